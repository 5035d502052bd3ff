// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web_page.c - the dashboard's server-rendered pages (docs/dashboard.md): /runs/ID (links
 * to the plan's history and to a compare with its previous run, the tables of
 * web_table.c from the report `result show -j` gives, the environment of each host, the
 * verdicts with their details, downloads), /history and /compare (a form of pick lists,
 * web_runs.c; the charts of web_chart.c and web_chart_cmp.c and the tables of
 * web_table.c), /hosts (the objects of `host list`: state, last contact, kernel, ports,
 * job, kernel switch, noise floors, inventory); /runs is web_runs.c's, /bisect
 * web_bisect.c's, the frame of every page web_html.c's. The objects come from
 * web_api.c, so a page shows what /api/ serves; every text from the database is
 * HTML-escaped.
 */
#include "web.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/noise.h"
#include "base/util.h"
#include "report/report.h"
#include "report/report_compare.h"
#include "store/store.h"

/* A host whose last contact is older than this is not said to be idle or busy: the
 * coordinator stores the last contact every 5 s (coordinator/agents.c). */
#define WEB_HOST_STALE_MS 30000

/* The page's head (web_html.c). */
static void page_head(struct web_buf *b, const char *title)
{
	web_page_head(b, title);
}

/* REPLY the page in B (taken), or a 500 when B ran out of memory (web_html.c). */
static void reply_page(struct web_reply *reply, struct web_buf *b)
{
	web_page_done(reply, b);
}

/* DT milliseconds as "3 s", "5 min", "2 h", "4 d" into OUT; returns OUT. */
static const char *web_ago(long long dt, char *out, size_t len)
{
	if (dt < 120000)
		snprintf(out, len, "%lld s", dt / 1000);
	else if (dt < 7200000)
		snprintf(out, len, "%lld min", dt / 60000);
	else if (dt < 172800000)
		snprintf(out, len, "%lld h", dt / 3600000);
	else
		snprintf(out, len, "%lld d", dt / 86400000);
	return out;
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

/* The first metric of REPORT's tables that is not a record (the plan's own), or NULL. */
static const char *first_metric(const json_t *report)
{
	const json_t *g, *sec;
	size_t i, k;

	json_array_foreach(json_object_get(report, "groups"), i, g)
		json_array_foreach(json_object_get(g, "sections"), k, sec) {
			const char *m = json_string_value(json_object_get(sec, "metric"));

			if (m && !analysis_is_record(m))
				return m;
		}
	return NULL;
}

/* The links of run ID of PLAN: its history (the plan's first metric of REPORT), a
 * compare with the plan's previous run (from RUNS), the runs of the plan. */
static void run_links(struct web_buf *b, long long id, const char *plan, const json_t *report,
		      const json_t *runs)
{
	long long prev = web_run_previous(runs, id);
	const char *metric = first_metric(report);

	web_buf_str(b, "<p id=\"run-links\">");
	if (plan && metric) {
		web_buf_str(b, "<a id=\"link-history\" href=\"/history?plan=");
		web_buf_url(b, plan, "");
		web_buf_str(b, "&amp;metric=");
		web_buf_url(b, metric, "");
		web_buf_str(b, "\">history of ");
		web_buf_html(b, plan);
		web_buf_str(b, " (");
		web_buf_html(b, metric);
		web_buf_str(b, ")</a> &middot; ");
	}
	if (prev)
		web_buf_printf(b, "<a id=\"link-compare\" href=\"/compare?a=%lld&amp;b=%lld\">"
			       "compare with run %lld (previous of this plan)</a> &middot; ",
			       prev, id, prev);
	else
		web_buf_str(b, "no earlier run of this plan to compare with &middot; ");
	web_buf_str(b, "<a href=\"/runs?plan=");
	web_buf_url(b, plan, "");
	web_buf_str(b, "\">all runs of this plan</a></p>\n");
}

/* /runs/ID, and with JOB > 0 (?seconds=JOB) that job's per-second traces too. */
static void page_run(struct store *store, int64_t id, long long job, struct web_reply *reply)
{
	/* the downloads: ?format= of /api/runs/ID and what it is called */
	static const char *const formats[][2] = {
		{ "json", "JSON" }, { "csv", "CSV" }, { "kcidb", "KCIDB" }, { "bmf", "BMF" },
	};
	json_t *report = NULL, *result = web_result(store, id, &report, reply), *hosts = NULL;
	json_t *runs = NULL;
	json_t *seconds = NULL;
	struct web_buf b = { 0 };
	const char *plan;
	char title[64];
	size_t i;

	if (!result)
		return;
	hosts = web_hosts(store, reply);
	runs = hosts ? web_runs(store, reply) : NULL;
	if (!runs)
		goto out;
	plan = json_string_value(json_object_get(result, "plan"));
	snprintf(title, sizeof(title), "run %lld", (long long)id);
	page_head(&b, title);
	web_buf_str(&b, "<p>plan <b>");
	web_buf_html(&b, plan);
	web_buf_str(&b, "</b>, state <b>");
	web_buf_html(&b, json_string_value(json_object_get(result, "state")));
	web_buf_str(&b, "</b>. Download:");
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		web_buf_printf(&b, " <a href=\"/api/runs/%lld?format=%s\">%s</a>", (long long)id,
			       formats[i][0], formats[i][1]);
	web_buf_str(&b, "</p>\n");
	run_links(&b, (long long)id, plan, report, runs);
	web_buf_str(&b, "<h2>results</h2>\n<div id=\"tables\">\n");
	web_table_run(&b, report);
	web_buf_str(&b, "</div>\n");
	/* the repetitions; with ?seconds=JOB that job's per-second values, read alone */
	if (job > 0 && !(seconds = store_query_seconds(store, id, job))) {
		web_reply_error(reply, 500, "cannot read the seconds of job %lld: %s", job,
				store_err(store)->msg);
		goto out;
	}
	web_buf_str(&b, "<h2>repetitions</h2>\n");
	web_chart_run(&b, result, (long long)id, job, seconds);
	run_hosts_env(&b, result, hosts);
	run_verdicts(&b, result);
	web_table_script(&b);
	reply_page(reply, &b);
out:
	web_buf_release(&b);
	json_decref(runs);
	json_decref(hosts);
	json_decref(seconds);
	json_decref(report);
	json_decref(result);
}

/* A cell of O's string KEY, escaped (empty when absent). */
static void td(struct web_buf *b, const json_t *o, const char *key)
{
	web_td(b, o, key);
}

/* The table of `host list` (name, state, kernel, ports, job, kernel switch), the noise
 * floors where measured, and each host's inventory. */
static void page_hosts(struct store *store, struct web_reply *reply)
{
	json_t *hosts = web_hosts(store, reply), *h, *p, *m, *noise, *boot;
	long long now = (long long)util_wall_ms();
	struct web_buf b = { 0 };
	size_t i, k, rows = 0, stale = 0, connected = 0;
	char *text, num[32], when[32];

	if (!hosts)
		return;
	page_head(&b, "hosts");
	json_array_foreach(hosts, i, h) {
		const char *st = json_string_value(json_object_get(h, "state"));
		long long seen = json_integer_value(json_object_get(h, "last_seen_ms"));

		if (st && strcmp(st, "gone")) {
			connected++;
			stale += now - seen > WEB_HOST_STALE_MS;
		}
	}
	/* a database nobody writes (bpflab serve over a copy, or bpflabd down): its
	 * states are those of the last contact, not of now */
	if (stale)
		web_buf_printf(&b, "<p id=\"offline\" class=\"note\">%s: no word from %s for "
			       "more than %d s (the coordinator stores a host's last contact every "
			       "%d s). The states below are those of their last contact.</p>\n",
			       stale == connected ? "Offline database" : "Hosts not heard from",
			       stale == connected ? "any host" : "some hosts",
			       WEB_HOST_STALE_MS / 1000, 5);
	web_buf_str(&b, "<p>Download: <a href=\"/api/hosts\">JSON</a></p>\n<table id=\"hosts\" "
		    "class=\"sort\">\n<thead><tr><th>name</th><th>state</th><th>last seen</th>"
		    "<th>kernel</th><th>ports</th><th>job</th><th>kernel switch</th></tr></thead>"
		    "\n<tbody>\n");
	json_array_foreach(hosts, i, h) {
		const char *st = json_string_value(json_object_get(h, "state"));
		long long seen = json_integer_value(json_object_get(h, "last_seen_ms"));

		web_buf_str(&b, "<tr>");
		td(&b, h, "name");
		if (st && strcmp(st, "gone") && now - seen > WEB_HOST_STALE_MS) {
			web_buf_str(&b, "<td class=\"stale\">unknown (");
			web_buf_html(&b, st);
			web_buf_str(&b, " when last seen)</td>");
		} else {
			td(&b, h, "state");
		}
		web_buf_printf(&b, "<td data-v=\"%lld\">%s", seen, web_when(seen, when,
			       sizeof(when)));
		if (seen > 0 && now >= seen)
			web_buf_printf(&b, " (%s ago)", web_ago(now - seen, num, sizeof(num)));
		web_buf_str(&b, "</td>");
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
	web_buf_str(&b, "</tbody></table>\n");
	json_array_foreach(hosts, i, h) {
		noise = json_object_get(h, "noise");
		json_array_foreach(json_object_get(noise, "metrics"), k, m) {
			if (!rows++)
				web_buf_str(&b, "<h2>noise floor</h2>\n<p>run-to-run CV = stddev / "
					    "mean, from each host's calibration run</p>\n<table id=\"noise\" "
					    "class=\"sort\">\n<thead><tr><th>host</th><th>kernel</th><th>run</th><th>metric"
					    "</th><th>subject</th><th>window</th><th>n</th><th>mean"
					    "</th><th>CV</th></tr></thead>\n<tbody>\n");
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
	web_buf_str(&b, rows ? "</tbody></table>\n" : "<p>no noise floor measured</p>\n");
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
	web_table_script(&b);
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
static void page_form(struct web_buf *b, const struct web_picks *picks, const char *path,
		      const char *const *fields, const struct web_param *params, size_t n)
{
	size_t i, k;

	web_buf_printf(b, "<form method=\"get\" action=\"%s\">", path);
	for (k = 0; fields[k]; k++) {
		const char *v = "";

		for (i = 0; i < n; i++)
			if (!strcmp(params[i].key, fields[k]) && params[i].value)
				v = params[i].value;
		if (picks && web_pick_field(b, picks, path, fields[k], v))
			continue;
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
static void page_analysis_error(struct web_reply *reply, const struct web_picks *picks,
				const char *name, const char *const *fields,
				const struct web_param *params, size_t n)
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
	page_form(&b, picks, name[0] == 'h' ? "/history" : "/compare", fields, params, n);
	json_decref(e);
	reply_page(reply, &b);
	web_buf_release(&b);
	if (reply->status == 200)
		reply->status = status;
}

/* The history or compare page (HISTORY) for the N PARAMS: the form (pick lists from the
 * database), then (when any parameter is given) the JSON link, the chart and the table
 * of the report. */
static void page_analysis(struct store *store, bool history, const struct web_param *params,
			  size_t n, struct web_reply *reply)
{
	static const char *const history_fields[] = {
		"plan", "metric", "by", "variant", "subject", "host", NULL,
	};
	static const char *const compare_fields[] = {
		"a", "b", "plan", "by", "baseline", "candidate", "metric", "host", "run_spread",
		NULL,
	};
	const char *name = history ? "history" : "compare";
	struct web_picks picks = { 0 };
	struct web_param given[16];
	struct web_buf b = { 0 };
	json_t *report = NULL;
	size_t i, k = 0;

	/* a form sends its empty fields: they are not given */
	for (i = 0; i < n && k < sizeof(given) / sizeof(given[0]); i++)
		if (params[i].value && *params[i].value)
			given[k++] = params[i];
	if (web_picks_load(store, &picks, reply))
		return;
	if (k) {
		report = history ? web_history(store, given, k, reply) :
			web_compare(store, given, k, reply);
		if (!report) {
			page_analysis_error(reply, &picks, name, history ? history_fields :
					    compare_fields, given, k);
			goto out;
		}
	}
	page_head(&b, name);
	page_form(&b, &picks, history ? "/history" : "/compare", history ? history_fields :
		  compare_fields, given, k);
	if (report) {
		web_buf_printf(&b, "<p>Download: <a href=\"/api/%s", name);
		for (i = 0; i < k; i++)
			url_param(&b, !i, given[i].key, given[i].value);
		web_buf_str(&b, "\">JSON</a></p>\n");
		if (history) {
			web_chart_history(&b, report);
			web_table_history(&b, report);
		} else {
			web_chart_compare(&b, report);
			web_table_compare(&b, report);
		}
		web_table_script(&b);
	} else {
		web_buf_str(&b, history ? "<p>A metric of a plan over kernels or days: pick a "
			    "plan and a metric.</p>\n" : "<p>Pick two runs (a the baseline, b the "
			    "candidate), or a plan and what to group its runs by.</p>\n");
	}
	reply_page(reply, &b);
out:
	web_buf_release(&b);
	web_picks_release(&picks);
	json_decref(report);
}

int web_page_run_params(const struct web_param *params, size_t n, long long *job,
			struct web_reply *reply)
{
	static const char *const run_params[] = { "seconds", NULL };
	const char *values[1] = { NULL };
	struct err err;
	char *end;

	*job = 0;
	if (web_params_check(params, n, run_params, values, &err)) {
		web_reply_error(reply, 400, "%s", err.msg);
		return -EINVAL;
	}
	if (values[0]) {	/* ?seconds=JOB of the run page */
		errno = 0;
		*job = strtoll(values[0], &end, 10);
		if (errno || *end || *job < 1 || values[0][0] == '+') {
			web_reply_error(reply, 400, "parameter 'seconds': '%s' is not a job id (a "
					"positive integer)", values[0]);
			return -EINVAL;
		}
	}
	return 0;
}

void web_page(const char *db, enum web_route route, int64_t id,
	      const struct web_param *params, size_t n, struct web_reply *reply)
{
	static const char *const none[] = { NULL };
	const char *values[1] = { NULL };
	long long job = 0;
	struct store *store;
	struct err err;

	if (route == WEB_PAGE_RUN && web_page_run_params(params, n, &job, reply))
		return;
	if (route != WEB_PAGE_HISTORY && route != WEB_PAGE_COMPARE && route != WEB_PAGE_RUNS &&
	    route != WEB_PAGE_RUN && web_params_check(params, n, none, values, &err)) {
		web_reply_error(reply, 400, "%s", err.msg);
		return;
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
			web_page_runs(store, params, n, reply);
		store_close(&store);
	}
}
