/* web_runs.c - the dashboard's /runs page and the pick lists of its forms (issue 25 item
 * 8): /runs filtered by plan, host, state and submission date (since, until:
 * YYYY-MM-DD, UTC) and cut in pages of WEB_RUNS_PAGE, newest first, in a sortable table
 * that the live script (web_page.c) keeps up to date; and the <select> lists of plans,
 * metrics, hosts, runs and groupings that /runs, /history and /compare offer, read from
 * the database (store_query_runs, store_query_hosts, store_query_metrics), so that no
 * name has to be known by heart. Called by web_page.c on the request's thread with the
 * request's read-only store.
 */
#include "web.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/store.h"

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

/* Runs on a page of /runs. */
#define WEB_RUNS_PAGE 50

static const char *const run_states[] = { "queued", "running", "done", "failed", "cancelled" };
/* What /history and /compare group by, offered in their lists (each takes more, joined
 * by ',', typed in the URL). */
static const char *const history_by[] = {
	"kernel.release", "kernel.build", "kernel.version", "kernel.config", "day", "port.driver",
};
static const char *const compare_by[] = {
	"kernel.release", "kernel.build", "kernel.version", "kernel.config", "port.driver",
	"host", "variant", "plan", "day", "subject", "run",
};

int web_picks_load(struct store *store, struct web_picks *p, struct web_reply *reply)
{
	*p = (struct web_picks){ 0 };
	p->runs = web_runs(store, reply);
	p->hosts = p->runs ? web_hosts(store, reply) : NULL;
	if (!p->hosts)
		goto fail;
	p->metrics = store_query_metrics(store);
	if (!p->metrics) {
		if (errno == EBUSY)
			web_reply_busy(reply);
		else
			web_reply_error(reply, 500, "cannot query the database: %s",
					store_err(store)->msg);
		goto fail;
	}
	return 0;
fail:
	web_picks_release(p);
	return -EIO;
}

void web_picks_release(struct web_picks *p)
{
	json_decref(p->runs);
	json_decref(p->hosts);
	json_decref(p->metrics);
	*p = (struct web_picks){ 0 };
}

/* An <option> of VALUE showing TEXT (NULL: VALUE), selected when it is SEL; returns
 * whether it is. */
static bool option(struct web_buf *b, const char *value, const char *text, const char *sel)
{
	bool sel_this = sel && value && !strcmp(sel, value);

	web_buf_str(b, "<option value=\"");
	web_buf_html(b, value);
	web_buf_str(b, sel_this ? "\" selected>" : "\">");
	web_buf_html(b, text ? text : value);
	web_buf_str(b, "</option>");
	return sel_this;
}

/* The distinct strings KEY of the objects of ARR as options (at most 256); returns
 * whether one is SEL. */
static bool options_of(struct web_buf *b, const json_t *arr, const char *key, const char *sel)
{
	const char *seen[256];
	size_t i, k, n = 0;
	const json_t *o;
	bool found = false;

	json_array_foreach(arr, i, o) {
		const char *v = json_string_value(json_object_get(o, key));

		for (k = 0; v && k < n && strcmp(seen[k], v); k++)
			;
		if (!v || k < n || n == sizeof(seen) / sizeof(seen[0]))
			continue;
		seen[n++] = v;
		found |= option(b, v, NULL, sel);
	}
	return found;
}

/* The runs of P as options, newest first: "ID plan (state, date)"; returns whether one
 * is SEL. */
static bool run_options(struct web_buf *b, const struct web_picks *p, const char *sel)
{
	bool found = false;
	size_t i;

	for (i = json_array_size(p->runs); i-- > 0;) {
		const json_t *r = json_array_get(p->runs, i);
		long long id = (long long)json_integer_value(json_object_get(r, "id"));
		char value[24], text[256], when[32];

		util_format_time(json_integer_value(json_object_get(r, "submitted_ms")), when,
				 sizeof(when));
		snprintf(value, sizeof(value), "%lld", id);
		snprintf(text, sizeof(text), "%lld %s (%s, %.10s)", id,
			 json_string_value(json_object_get(r, "plan")) ?: "",
			 json_string_value(json_object_get(r, "state")) ?: "", when);
		found |= option(b, value, text, sel);
	}
	return found;
}

bool web_pick_field(struct web_buf *b, const struct web_picks *p, const char *path,
		    const char *field, const char *value)
{
	bool history = !strcmp(path, "/history"), selected = false;
	size_t i, n;

	if (strcmp(field, "plan") && strcmp(field, "metric") && strcmp(field, "host") &&
	    strcmp(field, "a") && strcmp(field, "b") && strcmp(field, "by") &&
	    strcmp(field, "state"))
		return false;
	web_buf_printf(b, "<label>%s <select name=\"%s\" id=\"pick-%s\"><option value=\"\">%s"
		       "</option>", field, field, field, !strcmp(field, "a") ? "(baseline run)" :
		       !strcmp(field, "b") ? "(candidate run)" : "any");
	if (!strcmp(field, "plan")) {
		selected = options_of(b, p->runs, "plan", value);
	} else if (!strcmp(field, "metric")) {
		selected = options_of(b, p->metrics, "metric", value);
	} else if (!strcmp(field, "host")) {
		selected = options_of(b, p->hosts, "name", value);
	} else if (!strcmp(field, "state")) {
		for (i = 0; i < sizeof(run_states) / sizeof(run_states[0]); i++)
			selected |= option(b, run_states[i], NULL, value);
	} else if (!strcmp(field, "by")) {
		const char *const *by = history ? history_by : compare_by;

		n = history ? sizeof(history_by) / sizeof(history_by[0]) :
			sizeof(compare_by) / sizeof(compare_by[0]);
		for (i = 0; i < n; i++)
			selected |= option(b, by[i], NULL, value);
	} else {
		selected = run_options(b, p, value);
	}
	/* a value the lists do not hold (typed in the URL: two fields joined, a wrong
	 * name on an error page) stays, selected, to be put right in place */
	if (value && *value && !selected)
		option(b, value, NULL, value);
	web_buf_str(b, "</select></label> ");
	return true;
}

long long web_run_previous(const json_t *runs, long long id)
{
	const char *plan = NULL;
	long long prev = 0;
	const json_t *r;
	size_t i;

	json_array_foreach(runs, i, r)
		if (json_integer_value(json_object_get(r, "id")) == id)
			plan = json_string_value(json_object_get(r, "plan"));
	json_array_foreach(runs, i, r) {
		long long rid = (long long)json_integer_value(json_object_get(r, "id"));
		const char *rp = json_string_value(json_object_get(r, "plan"));

		if (plan && rp && !strcmp(rp, plan) && rid < id && rid > prev)
			prev = rid;
	}
	return prev;
}

/* Whether DATE is YYYY-MM-DD. */
static bool is_date(const char *date)
{
	static const char form[] = "dddd-dd-dd";
	size_t i;

	for (i = 0; form[i]; i++)
		if (form[i] == 'd' ? date[i] < '0' || date[i] > '9' : date[i] != form[i])
			return false;
	return !date[i];
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

/* Whether run R passes the filters F (plan, host, state, since, until). */
static bool run_wanted(const json_t *r, const json_t *run_hosts, const char *const *f)
{
	const char *plan = json_string_value(json_object_get(r, "plan"));
	const char *state = json_string_value(json_object_get(r, "state"));
	json_int_t id = json_integer_value(json_object_get(r, "id"));
	char when[32];
	const json_t *h;
	bool host = !f[1];
	size_t i;

	if ((f[0] && (!plan || strcmp(f[0], plan))) || (f[2] && (!state || strcmp(f[2], state))))
		return false;
	util_format_time(json_integer_value(json_object_get(r, "submitted_ms")), when,
			 sizeof(when));
	if ((f[3] && strncmp(when, f[3], 10) < 0) || (f[4] && strncmp(when, f[4], 10) > 0))
		return false;
	json_array_foreach(run_hosts, i, h) {
		const char *name = json_string_value(json_object_get(h, "host"));

		if (json_integer_value(json_object_get(h, "run")) == id && name && f[1] &&
		    !strcmp(name, f[1]))
			host = true;
	}
	return host;
}

/* The link to page PAGE of /runs with the filters F (named by KEYS). */
static void page_link(struct web_buf *b, const char *const *keys, const char *const *f,
		      long long page, const char *text)
{
	bool first = true;
	size_t i;

	web_buf_str(b, "<a href=\"/runs");
	for (i = 0; i < 5; i++) {
		if (!f[i])
			continue;
		web_buf_printf(b, "%s%s=", first ? "?" : "&amp;", keys[i]);
		web_buf_url(b, f[i], "");
		first = false;
	}
	if (page > 1)
		web_buf_printf(b, "%spage=%lld", first ? "?" : "&amp;", page);
	web_buf_printf(b, "\">%s</a> ", text);
}

void web_page_runs(struct store *store, const struct web_param *params, size_t n,
		   struct web_reply *reply)
{
	static const char *const allowed[] = {
		"plan", "host", "state=queued|running|done|failed|cancelled", "since", "until",
		"page", NULL,
	};
	static const char *const keys[] = { "plan", "host", "state", "since", "until" };
	const char *f[6] = { NULL };
	struct web_param given[16];
	json_t *run_hosts = NULL, *r;
	struct web_picks p = { 0 };
	struct web_buf b = { 0 };
	long long page = 1, shown = 0, match = 0, pages;
	bool live = false;
	size_t i, k = 0;
	struct err err;

	/* a form sends its empty fields: they are not given */
	for (i = 0; i < n && k < sizeof(given) / sizeof(given[0]); i++)
		if (params[i].value && *params[i].value)
			given[k++] = params[i];
	if (web_params_check(given, k, allowed, f, &err)) {
		web_reply_error(reply, 400, "%s", err.msg);
		return;
	}
	for (i = 3; i < 5; i++)
		if (f[i] && !is_date(f[i])) {
			web_reply_error(reply, 400, "parameter '%s': '%s' is not a date "
					"(YYYY-MM-DD)", keys[i], f[i]);
			return;
		}
	if (f[5] && (util_parse_int(f[5], &page) || page < 1)) {
		web_reply_error(reply, 400, "parameter 'page': '%s' is not a page number "
				"(a positive integer)", f[5]);
		return;
	}
	if (web_picks_load(store, &p, reply))
		return;
	run_hosts = store_query_run_hosts(store);
	if (!run_hosts) {
		if (errno == EBUSY)
			web_reply_busy(reply);
		else
			web_reply_error(reply, 500, "cannot query the database: %s",
					store_err(store)->msg);
		goto out;
	}
	json_array_foreach(p.runs, i, r) {
		const char *st = json_string_value(json_object_get(r, "state"));

		live = live || (st && (!strcmp(st, "queued") || !strcmp(st, "running")));
		match += run_wanted(r, run_hosts, f);
	}
	web_page_head_live(&b, "runs", live);
	web_buf_str(&b, "<form method=\"get\" action=\"/runs\" id=\"filter\">");
	for (i = 0; i < 3; i++)
		web_pick_field(&b, &p, "/runs", keys[i], f[i]);
	for (i = 3; i < 5; i++) {
		web_buf_printf(&b, "<label>%s <input type=\"date\" name=\"%s\" value=\"",
			       keys[i], keys[i]);
		web_buf_html(&b, f[i]);
		web_buf_str(&b, "\"></label> ");
	}
	web_buf_str(&b, "<button>filter</button> <a href=\"/runs\">all runs</a></form>\n");
	pages = match ? (match + WEB_RUNS_PAGE - 1) / WEB_RUNS_PAGE : 1;
	if (!json_array_size(p.runs) || !match) {
		web_buf_str(&b, json_array_size(p.runs) ? "<p>no run matches</p>\n" :
			    "<p>no runs</p>\n");
		goto page;
	}
	if (page > pages) {
		web_buf_printf(&b, "<p id=\"runs-count\">%lld run%s in %lld page%s: no page %lld "
			       "</p>\n<p>", match, match == 1 ? "" : "s", pages,
			       pages == 1 ? "" : "s", page);
		page_link(&b, keys, f, 1, "the first page");
		web_buf_str(&b, "</p>\n");
		goto page;
	}
	web_buf_printf(&b, "<p id=\"runs-count\">%lld run%s, page %lld of %lld</p>\n", match,
		       match == 1 ? "" : "s", page, pages);
	web_buf_str(&b, "<table id=\"runs\" class=\"sort\">\n<thead><tr><th>id</th><th>plan"
		    "</th><th>state</th><th>jobs</th><th>failed</th><th>hosts</th><th>kernels"
		    "</th><th>submitted</th><th>finished</th></tr></thead>\n<tbody>\n");
	/* newest first */
	for (i = json_array_size(p.runs); i-- > 0;) {
		json_int_t id;
		char t1[32], t2[32];
		const char *state;

		r = json_array_get(p.runs, i);
		if (!run_wanted(r, run_hosts, f) || shown++ / WEB_RUNS_PAGE != page - 1)
			continue;
		id = json_integer_value(json_object_get(r, "id"));
		state = json_string_value(json_object_get(r, "state"));
		web_buf_printf(&b, "<tr id=\"run-%lld\"><td data-v=\"%lld\"><a href=\"/runs/%lld\">"
			       "%lld</a></td>", (long long)id, (long long)id, (long long)id,
			       (long long)id);
		web_td(&b, r, "plan");
		web_buf_str(&b, "<td class=\"state-");
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
			       web_when(json_integer_value(json_object_get(r, "submitted_ms")),
					t1, sizeof(t1)),
			       web_when(json_integer_value(json_object_get(r, "finished_ms")),
					t2, sizeof(t2)));
	}
	web_buf_str(&b, "</tbody></table>\n");
	if (pages > 1) {
		web_buf_str(&b, "<p id=\"pages\">");
		if (page > 1)
			page_link(&b, keys, f, page - 1, "&larr; newer");
		if (page < pages)
			page_link(&b, keys, f, page + 1, "older &rarr;");
		web_buf_str(&b, "</p>\n");
	}
	web_table_script(&b);
	if (live)
		web_buf_printf(&b, "<script>%s</script>\n", web_live_script);
page:
	web_page_done(reply, &b);
out:
	web_buf_release(&b);
	json_decref(run_hosts);
	web_picks_release(&p);
}
