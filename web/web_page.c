// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web_page.c - the dashboard's server-rendered pages (docs/dashboard.md): /runs (the list
 * with plan, state, hosts, kernels, when) and /runs/ID (the tables of `result show`, the
 * environment of each host, the verdicts with their details, downloads), /history (a
 * form, the chart of web_chart.c and the text of `result history`) and /compare (a form
 * and the table of `result compare`), /hosts (the objects of `host list`: state,
 * kernel, ports, job, kernel switch, noise floors, inventory); /bisect is web_bisect.c's,
 * on the helpers exported here (web_page_head, web_page_done, web_td). The objects
 * come from web_api.c, so a page shows what /api/ serves; every text from the database
 * is HTML-escaped. No external resources: one inline style sheet.
 */
#include "web.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/noise.h"
#include "base/util.h"
#include "report/report.h"
#include "report/report_compare.h"
#include "store/store.h"

static const char style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222}"
	"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;"
	"text-align:left;vertical-align:top}th{background:#f3f3f3}"
	"pre{background:#f8f8f8;padding:.5em;overflow-x:auto}"
	".state-running{color:#06c}.state-failed,.state-cancelled{color:#b00}"
	"nav a{margin-right:1em}";

/* /runs while a run is queued or running: every 2 s, the state, jobs, failed and finished
 * cells of the rows (id "run-ID") from /api/runs, as text (never markup; finished as
 * util_format_time writes it, so that a row reads as after a reload); stops when none is
 * left or on a non-JSON answer (401 when the browser has no token cookie: it sends the
 * cookie with credentials 'same-origin', docs/dashboard.md "Security model"). Its
 * SHA-256 is in the Content-Security-Policy (web.c): a change here changes the header. */
const char web_live_script[] =
	"(function(){function poll(){fetch('/api/runs',{cache:'no-store',"
	"credentials:'same-origin'})"
	".then(function(r){return r.ok?r.json():null}).then(function(runs){var live=false;"
	"if(!runs)return;runs.forEach(function(r){var row=document.getElementById('run-'+r.id);"
	"if(r.state==='queued'||r.state==='running')live=true;if(!row)return;var c=row.cells;"
	"c[2].textContent=r.state;c[2].className='state-'+r.state;"
	"c[3].textContent=r.jobs_done+'/'+r.jobs_total;c[4].textContent=r.jobs_failed;"
	"c[8].textContent=r.finished_ms>0?new Date(r.finished_ms).toISOString()"
	".replace(/\\.\\d+Z$/,'Z'):'-';});"
	"if(live)setTimeout(poll,2000);}).catch(function(){setTimeout(poll,2000);});}"
	"setTimeout(poll,2000);})();";

/* The page's head and title; LIVE: a reload every 5 s for a browser without script. */
static void page_head_live(struct web_buf *b, const char *title, bool live)
{
	web_buf_str(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<title>");
	web_buf_html(b, title);
	web_buf_str(b, " - bpflab</title>");
	if (live)
		web_buf_str(b, "<noscript><meta http-equiv=\"refresh\" content=\"5\"></noscript>");
	web_buf_printf(b, "<style>%s</style></head><body>\n"
		       "<nav><a href=\"/runs\">runs</a><a href=\"/history\">history</a>"
		       "<a href=\"/compare\">compare</a><a href=\"/hosts\">hosts</a>"
		       "<a href=\"/bisect\">bisect</a>"
		       "<a href=\"/api/runs\">/api/runs</a>"
		       "<a href=\"/api/hosts\">/api/hosts</a></nav>\n<h1>", style);
	web_buf_html(b, title);
	web_buf_str(b, "</h1>\n");
}

static void page_head(struct web_buf *b, const char *title)
{
	page_head_live(b, title, false);
}

/* REPLY the page in B (taken), or a 500 when B ran out of memory. */
static void reply_page(struct web_reply *reply, struct web_buf *b)
{
	web_buf_str(b, "</body></html>\n");
	if (b->failed) {
		web_buf_release(b);
		web_page_error(reply, 500, "out of memory");
		return;
	}
	web_reply_release(reply);
	reply->status = 200;
	reply->type = "text/html; charset=utf-8";
	reply->body = b->data;
	reply->len = b->len;
	*b = (struct web_buf){ 0 };
}

void web_page_error(struct web_reply *reply, unsigned status, const char *message)
{
	struct web_buf b = { 0 };
	char title[32];

	snprintf(title, sizeof(title), "error %u", status);
	page_head(&b, title);
	web_buf_str(&b, "<p>");
	web_buf_html(&b, message);
	web_buf_str(&b, "</p>\n</body></html>\n");
	web_reply_release(reply);
	reply->status = status;
	reply->type = "text/html; charset=utf-8";
	if (b.failed) {
		web_buf_release(&b);
		reply->type = "text/plain; charset=utf-8";
		reply->body = strdup(message);
		reply->len = reply->body ? strlen(message) : 0;
		return;
	}
	reply->body = b.data;
	reply->len = b.len;
}

static const char *when_text(long long ms, char *out, size_t len)
{
	if (ms <= 0)
		snprintf(out, len, "-");
	else
		util_format_time(ms, out, len);
	return out;
}

/* Append to B the distinct MEMBER values of the rows of RUN_HOSTS that belong to RUN,
 * joined by ", ". */
static void run_hosts_cell(struct web_buf *b, const json_t *run_hosts, json_int_t run,
			   const char *member)
{
	const char *seen[64];
	size_t i, k, n_seen = 0;
	json_t *r;

	json_array_foreach(run_hosts, i, r) {
		const char *v = json_string_value(json_object_get(r, member));

		if (json_integer_value(json_object_get(r, "run")) != run || !v)
			continue;
		for (k = 0; k < n_seen && strcmp(seen[k], v); k++)
			;
		if (k < n_seen)
			continue;
		if (n_seen == sizeof(seen) / sizeof(seen[0])) {
			web_buf_str(b, ", ...");
			return;
		}
		seen[n_seen] = v;
		web_buf_str(b, n_seen++ ? ", " : "");
		web_buf_html(b, v);
	}
}

static void page_runs(struct store *store, struct web_reply *reply)
{
	json_t *runs = web_runs(store, reply), *run_hosts = NULL, *r;
	struct web_buf b = { 0 };
	bool live = false;
	size_t i;

	if (!runs)
		goto out;
	run_hosts = store_query_run_hosts(store);
	if (!run_hosts) {
		if (errno == EBUSY)
			web_reply_busy(reply);
		else
			web_reply_error(reply, 500, "cannot query the database: %s",
					store_errmsg(store));
		goto out;
	}
	json_array_foreach(runs, i, r) {
		const char *st = json_string_value(json_object_get(r, "state"));

		live = live || (st && (!strcmp(st, "queued") || !strcmp(st, "running")));
	}
	page_head_live(&b, "runs", live);
	if (!json_array_size(runs)) {
		web_buf_str(&b, "<p>no runs</p>\n");
		reply_page(reply, &b);
		goto out;
	}
	web_buf_str(&b, "<table id=\"runs\">\n<tr><th>id</th><th>plan</th><th>state</th>"
		    "<th>jobs</th><th>failed</th><th>hosts</th><th>kernels</th><th>submitted</th>"
		    "<th>finished</th></tr>\n");
	/* newest first */
	for (i = json_array_size(runs); i-- > 0;) {
		json_int_t id;
		char t1[32], t2[32];
		const char *state;

		r = json_array_get(runs, i);
		id = json_integer_value(json_object_get(r, "id"));
		state = json_string_value(json_object_get(r, "state"));
		web_buf_printf(&b, "<tr id=\"run-%lld\"><td><a href=\"/runs/%lld\">%lld</a></td>"
			       "<td>", (long long)id, (long long)id, (long long)id);
		web_buf_html(&b, json_string_value(json_object_get(r, "plan")));
		web_buf_str(&b, "</td><td class=\"state-");
		web_buf_html(&b, state);
		web_buf_str(&b, "\">");
		web_buf_html(&b, state);
		web_buf_printf(&b, "</td><td>%lld/%lld</td><td>%lld</td><td>",
			       (long long)json_integer_value(json_object_get(r, "jobs_done")),
			       (long long)json_integer_value(json_object_get(r, "jobs_total")),
			       (long long)json_integer_value(json_object_get(r, "jobs_failed")));
		run_hosts_cell(&b, run_hosts, id, "host");
		web_buf_str(&b, "</td><td>");
		run_hosts_cell(&b, run_hosts, id, "kernel_release");
		web_buf_printf(&b, "</td><td>%s</td><td>%s</td></tr>\n",
			       when_text(json_integer_value(json_object_get(r, "submitted_ms")),
					 t1, sizeof(t1)),
			       when_text(json_integer_value(json_object_get(r, "finished_ms")),
					 t2, sizeof(t2)));
	}
	web_buf_str(&b, "</table>\n");
	if (live)
		web_buf_printf(&b, "<script>%s</script>\n", web_live_script);
	reply_page(reply, &b);
out:
	web_buf_release(&b);
	json_decref(run_hosts);
	json_decref(runs);
}

/* The hosts of RESULT: name, role, kernel, tc attach; and the inventory each host last
 * reported (from HOSTS, the host list) in a <details>. */
static void run_hosts_env(struct web_buf *b, const json_t *result, const json_t *hosts)
{
	json_t *h, *inv, *tc;
	size_t i, k;
	char *text;

	web_buf_str(b, "<h2>hosts</h2>\n<table id=\"hosts\">\n<tr><th>host</th><th>role</th>"
		    "<th>kernel</th><th>kernel version</th><th>tc attach</th>"
		    "<th>inventory (latest)</th></tr>\n");
	json_array_foreach(json_object_get(result, "hosts"), i, h) {
		const char *name = json_string_value(json_object_get(h, "name"));

		web_buf_str(b, "<tr><td>");
		web_buf_html(b, name);
		web_buf_str(b, "</td><td>");
		web_buf_html(b, json_string_value(json_object_get(h, "role")));
		web_buf_str(b, "</td><td>");
		web_buf_html(b, json_string_value(json_object_get(h, "kernel_release")));
		web_buf_str(b, "</td><td>");
		web_buf_html(b, json_string_value(json_object_get(h, "kernel_version")));
		web_buf_str(b, "</td><td>");
		tc = json_object_get(h, "tc_attach");
		text = tc ? json_dumps(tc, JSON_COMPACT) : NULL;
		web_buf_html(b, text);
		free(text);
		web_buf_str(b, "</td><td>");
		inv = NULL;
		json_array_foreach(hosts, k, tc) {
			const char *n = json_string_value(json_object_get(tc, "name"));

			if (n && name && !strcmp(n, name))
				inv = json_object_get(tc, "inventory");
		}
		text = inv ? json_dumps(inv, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
		if (text) {
			web_buf_str(b, "<details><summary>inventory</summary><pre>");
			web_buf_html(b, text);
			web_buf_str(b, "</pre></details>");
		}
		free(text);
		web_buf_str(b, "</td></tr>\n");
	}
	web_buf_str(b, "</table>\n");
}

/* The jobs of RESULT's samples that carry verdicts: job, host, variant, rep, each
 * verdict with the agent's detail. */
static void run_verdicts(struct web_buf *b, const json_t *result)
{
	json_int_t last = -1;
	bool any = false;
	json_t *s, *v;
	size_t i, k;

	json_array_foreach(json_object_get(result, "samples"), i, s) {
		json_int_t job = json_integer_value(json_object_get(s, "job"));
		json_t *verdicts = json_object_get(s, "verdicts");
		json_t *details = json_object_get(s, "verdict_details");

		if (job == last || !json_array_size(verdicts))
			continue;
		last = job;
		if (!any)
			web_buf_str(b, "<h2>verdicts</h2>\n<table id=\"verdicts\">\n<tr><th>job"
				    "</th><th>host</th><th>variant</th><th>rep</th><th>verdict"
				    "</th><th>detail</th></tr>\n");
		any = true;
		json_array_foreach(verdicts, k, v) {
			const char *name = json_string_value(v);

			web_buf_printf(b, "<tr><td>%lld</td><td>", (long long)job);
			web_buf_html(b, json_string_value(json_object_get(s, "host")));
			web_buf_str(b, "</td><td>");
			web_buf_html(b, json_string_value(json_object_get(s, "variant")));
			web_buf_printf(b, "</td><td>%lld</td><td>",
				       (long long)json_integer_value(json_object_get(s, "rep")));
			web_buf_html(b, name);
			web_buf_str(b, "</td><td>");
			web_buf_html(b, name ? json_string_value(json_object_get(details, name)) :
				     NULL);
			web_buf_str(b, "</td></tr>\n");
		}
	}
	web_buf_str(b, any ? "</table>\n" : "<h2>verdicts</h2>\n<p>none</p>\n");
}

/* /runs/ID, and with JOB > 0 (?seconds=JOB) that job's per-second traces too. */
static void page_run(struct store *store, int64_t id, long long job, struct web_reply *reply)
{
	/* the downloads: ?format= of /api/runs/ID and what it is called */
	static const char *const formats[][2] = {
		{ "json", "JSON" }, { "csv", "CSV" }, { "kcidb", "KCIDB" }, { "bmf", "BMF" },
	};
	json_t *report = NULL, *result = web_result(store, id, &report, reply), *hosts = NULL;
	json_t *seconds = NULL;
	struct web_buf b = { 0 };
	char title[64], *text = NULL;
	size_t len = 0, i;
	FILE *f;
	int err;

	if (!result)
		return;
	hosts = web_hosts(store, reply);
	if (!hosts)
		goto out;
	f = open_memstream(&text, &len);
	err = f ? report_print_text(report, f) : -ENOMEM;
	if (f && fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		web_reply_error(reply, 500, "cannot write the report of run %lld: %s",
				(long long)id, strerror(-err));
		goto out;
	}
	snprintf(title, sizeof(title), "run %lld", (long long)id);
	page_head(&b, title);
	web_buf_str(&b, "<p>plan <b>");
	web_buf_html(&b, json_string_value(json_object_get(result, "plan")));
	web_buf_str(&b, "</b>, state <b>");
	web_buf_html(&b, json_string_value(json_object_get(result, "state")));
	web_buf_str(&b, "</b>. Download:");
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		web_buf_printf(&b, " <a href=\"/api/runs/%lld?format=%s\">%s</a>", (long long)id,
			       formats[i][0], formats[i][1]);
	web_buf_str(&b, "</p>\n");
	web_buf_str(&b, "<h2>results</h2>\n<pre id=\"tables\">");
	web_buf_html(&b, text);
	web_buf_str(&b, "</pre>\n");
	/* the repetitions; with ?seconds=JOB that job's per-second values, read alone */
	if (job > 0 && !(seconds = store_query_seconds(store, id, job))) {
		web_reply_error(reply, 500, "cannot read the seconds of job %lld: %s", job,
				store_errmsg(store));
		goto out;
	}
	web_buf_str(&b, "<h2>repetitions</h2>\n");
	web_chart_run(&b, result, (long long)id, job, seconds);
	run_hosts_env(&b, result, hosts);
	run_verdicts(&b, result);
	reply_page(reply, &b);
out:
	web_buf_release(&b);
	free(text);
	json_decref(hosts);
	json_decref(seconds);
	json_decref(report);
	json_decref(result);
}

/* A cell of O's string KEY, escaped (empty when absent). */
static void td(struct web_buf *b, const json_t *o, const char *key)
{
	web_buf_str(b, "<td>");
	web_buf_html(b, json_string_value(json_object_get(o, key)));
	web_buf_str(b, "</td>");
}

void web_page_head(struct web_buf *b, const char *title)
{
	page_head(b, title);
}

void web_page_done(struct web_reply *reply, struct web_buf *b)
{
	reply_page(reply, b);
}

void web_td(struct web_buf *b, const json_t *o, const char *key)
{
	td(b, o, key);
}

/* The table of `host list` (name, state, kernel, ports, job, kernel switch), the noise
 * floors where measured, and each host's inventory. */
static void page_hosts(struct store *store, struct web_reply *reply)
{
	json_t *hosts = web_hosts(store, reply), *h, *p, *m, *noise, *boot;
	struct web_buf b = { 0 };
	size_t i, k, rows = 0;
	char *text, num[32];

	if (!hosts)
		return;
	page_head(&b, "hosts");
	web_buf_str(&b, "<p>Download: <a href=\"/api/hosts\">JSON</a></p>\n<table id=\"hosts\">\n"
		    "<tr><th>name</th><th>state</th><th>kernel</th><th>ports</th><th>job</th>"
		    "<th>kernel switch</th></tr>\n");
	json_array_foreach(hosts, i, h) {
		web_buf_str(&b, "<tr>");
		td(&b, h, "name");
		td(&b, h, "state");
		td(&b, h, "kernel_release");
		web_buf_str(&b, "<td>");
		/* role=ifname driver, as host list */
		json_array_foreach(json_object_get(json_object_get(h, "inventory"), "ports"), k, p) {
			web_buf_str(&b, k ? ", " : "");
			if (json_string_value(json_object_get(p, "role"))) {
				web_buf_html(&b, json_string_value(json_object_get(p, "role")));
				web_buf_str(&b, "=");
			}
			web_buf_html(&b, json_string_value(json_object_get(p, "name")));
			web_buf_str(&b, " ");
			web_buf_html(&b, json_string_value(json_object_get(p, "driver")));
		}
		web_buf_str(&b, "</td><td>");
		if (json_is_integer(json_object_get(h, "job")))
			web_buf_printf(&b, "%lld", (long long)json_integer_value(json_object_get(h,
												     "job")));
		web_buf_str(&b, "</td><td>");
		boot = json_object_get(h, "boot");
		if (boot) {
			web_buf_html(&b, json_string_value(json_object_get(boot, "kernel")));
			web_buf_str(&b, " ");
			web_buf_html(&b, json_string_value(json_object_get(boot, "state")));
			if (json_string_value(json_object_get(boot, "error"))) {
				web_buf_str(&b, ": ");
				web_buf_html(&b, json_string_value(json_object_get(boot, "error")));
			}
		}
		web_buf_str(&b, "</td></tr>\n");
	}
	web_buf_str(&b, "</table>\n");
	json_array_foreach(hosts, i, h) {
		noise = json_object_get(h, "noise");
		json_array_foreach(json_object_get(noise, "metrics"), k, m) {
			if (!rows++)
				web_buf_str(&b, "<h2>noise floor</h2>\n<p>run-to-run CV = stddev / "
					    "mean (bpflab host calibrate)</p>\n<table id=\"noise\">\n"
					    "<tr><th>host</th><th>kernel</th><th>run</th><th>metric"
					    "</th><th>subject</th><th>window</th><th>n</th><th>mean"
					    "</th><th>CV</th></tr>\n");
			web_buf_str(&b, "<tr>");
			td(&b, h, "name");
			td(&b, noise, "kernel_release");
			web_buf_printf(&b, "<td><a href=\"/runs/%lld\">%lld</a></td>",
				       (long long)json_integer_value(json_object_get(noise, "run")),
				       (long long)json_integer_value(json_object_get(noise, "run")));
			td(&b, m, "metric");
			td(&b, m, "subject");
			td(&b, m, "window");
			web_buf_printf(&b, "<td>%lld</td><td>",
				       (long long)json_integer_value(json_object_get(m, "n")));
			web_buf_html(&b, report_compare_num(json_number_value(json_object_get(m,
				     "mean")), num, sizeof(num)));
			web_buf_str(&b, "</td><td>");
			web_buf_html(&b, noise_cv_text(json_number_value(json_object_get(m, "cv")),
						       num, sizeof(num)));
			web_buf_str(&b, "</td></tr>\n");
		}
	}
	web_buf_str(&b, rows ? "</table>\n" : "<p>no noise floor measured</p>\n");
	web_buf_str(&b, "<h2>inventory</h2>\n");
	json_array_foreach(hosts, i, h) {
		text = json_object_get(h, "inventory") ?
			json_dumps(json_object_get(h, "inventory"), JSON_INDENT(1) | JSON_SORT_KEYS) :
			NULL;
		if (!text)
			continue;
		web_buf_str(&b, "<details><summary>");
		web_buf_html(&b, json_string_value(json_object_get(h, "name")));
		web_buf_str(&b, "</summary><pre>");
		web_buf_html(&b, text);
		web_buf_str(&b, "</pre></details>\n");
		free(text);
	}
	reply_page(reply, &b);
	web_buf_release(&b);
	json_decref(hosts);
}

/* Append KEY=VALUE to B for a URL in HTML, percent-encoded but for unreserved bytes. */
static void url_param(struct web_buf *b, bool first, const char *key, const char *value)
{
	web_buf_printf(b, "%s%s=", first ? "?" : "&amp;", key);
	web_buf_url(b, value, "");
}

/* A GET form to PATH with a text field per name of FIELDS (NULL-terminated), filled
 * from the N PARAMS. */
static void page_form(struct web_buf *b, const char *path, const char *const *fields,
		      const struct web_param *params, size_t n)
{
	size_t i, k;

	web_buf_printf(b, "<form method=\"get\" action=\"%s\">", path);
	for (k = 0; fields[k]; k++) {
		const char *v = "";

		for (i = 0; i < n; i++)
			if (!strcmp(params[i].key, fields[k]) && params[i].value)
				v = params[i].value;
		web_buf_printf(b, "<label>%s <input name=\"%s\" size=\"14\" value=\"", fields[k],
			       fields[k]);
		web_buf_html(b, v);
		web_buf_str(b, "\"></label> ");
	}
	/* include_flagged=1: the CLI's --include-flagged (unchecked, a form sends nothing) */
	for (i = 0; i < n && strcmp(params[i].key, "include_flagged"); i++)
		;
	web_buf_printf(b, "<label><input type=\"checkbox\" name=\"include_flagged\" "
		       "value=\"1\"%s> include_flagged</label> ", i < n ? " checked" : "");
	web_buf_str(b, "<button>show</button></form>\n");
}

/* REPLY, the JSON error of /api/history or /api/compare, as the page NAME: the error's
 * title and message under the form filled with the N PARAMS, so that a wrong value can
 * be put right in place. Same status (and Retry-After). */
static void page_analysis_error(struct web_reply *reply, const char *name,
				const char *const *fields, const struct web_param *params,
				size_t n)
{
	json_t *e = json_loadb(reply->body ? reply->body : "", reply->len, 0, NULL);
	const char *msg = json_string_value(json_object_get(e, "error"));
	unsigned status = reply->status;
	struct web_buf b = { 0 };
	char title[32];

	snprintf(title, sizeof(title), "error %u", status);
	page_head(&b, title);
	web_buf_str(&b, "<p>");
	web_buf_html(&b, msg ? msg : "error");
	web_buf_str(&b, "</p>\n");
	page_form(&b, name[0] == 'h' ? "/history" : "/compare", fields, params, n);
	json_decref(e);
	reply_page(reply, &b);
	web_buf_release(&b);
	if (reply->status == 200)
		reply->status = status;
}

/* The history or compare page (HISTORY) for the N PARAMS: the form, then (when any
 * parameter is given) the JSON link, for a history the chart, and the text report. */
static void page_analysis(struct store *store, bool history, const struct web_param *params,
			  size_t n, struct web_reply *reply)
{
	static const char *const history_fields[] = {
		"plan", "metric", "by", "variant", "subject", "host", NULL,
	};
	static const char *const compare_fields[] = {
		"a", "b", "plan", "by", "baseline", "candidate", "metric", "host", NULL,
	};
	const char *name = history ? "history" : "compare";
	struct web_param given[16];
	struct web_buf b = { 0 };
	json_t *report = NULL;
	char *text = NULL;
	size_t len = 0, i, k = 0;
	FILE *f;
	int err;

	/* a form sends its empty fields: they are not given */
	for (i = 0; i < n && k < sizeof(given) / sizeof(given[0]); i++)
		if (params[i].value && *params[i].value)
			given[k++] = params[i];
	if (k) {
		report = history ? web_history(store, given, k, reply) :
			web_compare(store, given, k, reply);
		if (!report) {
			page_analysis_error(reply, name, history ? history_fields :
					    compare_fields, given, k);
			return;
		}
		f = open_memstream(&text, &len);
		err = !f ? -ENOMEM : history ? report_history_print_text(report, f) :
			report_compare_print_text(report, NULL, f);
		if (f && fclose(f) && !err)
			err = -ENOMEM;
		if (err) {
			web_reply_error(reply, 500, "cannot write the %s: %s", name, strerror(-err));
			goto out;
		}
	}
	page_head(&b, name);
	page_form(&b, history ? "/history" : "/compare", history ? history_fields :
		  compare_fields, given, k);
	if (report) {
		web_buf_printf(&b, "<p>Download: <a href=\"/api/%s", name);
		for (i = 0; i < k; i++)
			url_param(&b, !i, given[i].key, given[i].value);
		web_buf_str(&b, "\">JSON</a></p>\n");
		if (history)
			web_chart_history(&b, report);
		web_buf_printf(&b, "<pre id=\"%s\">", name);
		web_buf_html(&b, text);
		web_buf_str(&b, "</pre>\n");
	} else {
		web_buf_str(&b, history ? "<p>A metric of a plan over kernels or days: give plan "
			    "and metric.</p>\n" : "<p>Two runs (a, b), or a plan grouped by a field "
			    "(by: kernel.release, port.driver, ...).</p>\n");
	}
	reply_page(reply, &b);
out:
	web_buf_release(&b);
	free(text);
	json_decref(report);
}

void web_page(const char *db, enum web_route route, int64_t id,
	      const struct web_param *params, size_t n, struct web_reply *reply)
{
	static const char *const none[] = { NULL };
	static const char *const run_params[] = { "seconds", NULL };
	const char *values[1] = { NULL };
	long long job = 0;
	struct store *store;
	char err[256], *end;

	if (route != WEB_PAGE_HISTORY && route != WEB_PAGE_COMPARE &&
	    web_params_check(params, n, route == WEB_PAGE_RUN ? run_params : none, values, err,
			     sizeof(err))) {
		web_reply_error(reply, 400, "%s", err);
		return;
	}
	if (values[0]) {	/* ?seconds=JOB of the run page */
		errno = 0;
		job = strtoll(values[0], &end, 10);
		if (errno || *end || job < 1 || values[0][0] == '+') {
			web_reply_error(reply, 400, "parameter 'seconds': '%s' is not a job id (a "
					"positive integer)", values[0]);
			return;
		}
	}
	store = web_store_open(db, reply);
	if (store) {
		if (route == WEB_PAGE_HISTORY || route == WEB_PAGE_COMPARE)
			page_analysis(store, route == WEB_PAGE_HISTORY, params, n, reply);
		else if (route == WEB_PAGE_HOSTS)
			page_hosts(store, reply);
		else if (route == WEB_PAGE_RUN)
			page_run(store, id, job, reply);
		else
			page_runs(store, reply);
		store_close(&store);
	}
}
