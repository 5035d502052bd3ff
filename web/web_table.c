/* web_table.c - the dashboard's HTML tables built from the JSON the API serves (issue 25
 * item 8): the result tables of a run (`result show -j`: a table per host, kernel and
 * metric, repetitions as columns up to WEB_TABLE_REPS, then min / median / max), the
 * rows of a compare (`result compare -j`) and the points of a history (`result history
 * -j`). Every table of class "sort" is sortable by a click on its header through
 * web_sort_script, the dashboard's second inline script (its SHA-256 in the
 * Content-Security-Policy, web.c): a number cell carries its exact value in data-v, so
 * that 9.9M sorts below 10.1M. Numbers are written by report_compare_num, as the CLI's
 * compare. Called by web_page.c and web_runs.c on the request's thread; pure (no
 * database), every text from the JSON HTML-escaped.
 */
#include "web.h"

#include <math.h>
#include <string.h>

#include "analysis/analysis.h"
#include "report/report_compare.h"

/* Repetitions shown as columns of a run's table; more: min, median and max. */
#define WEB_TABLE_REPS 5

/* Sort every <table class="sort"> by the column whose header is clicked (again: the
 * other way); a cell's data-v (a number) is its key, else its text. Header cells are
 * focusable and take Enter. */
const char web_sort_script[] =
	"(function(){function key(c){if(!c)return'';var v=c.getAttribute('data-v');"
	"return v!==null&&v!==''&&!isNaN(+v)?+v:c.textContent;}"
	"function sort(t,i,th){var asc=th.getAttribute('aria-sort')!=='ascending';"
	"var hs=t.tHead.rows[0].cells;for(var k=0;k<hs.length;k++)hs[k].removeAttribute("
	"'aria-sort');th.setAttribute('aria-sort',asc?'ascending':'descending');"
	"var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows);"
	"rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]),r=typeof x==="
	"'number'&&typeof y==='number'?x-y:String(x).localeCompare(String(y));"
	"return asc?r:-r;});rows.forEach(function(r){tb.appendChild(r);});}"
	"document.querySelectorAll('table.sort').forEach(function(t){if(!t.tHead||"
	"!t.tBodies.length)return;Array.prototype.forEach.call(t.tHead.rows[0].cells,"
	"function(th,i){th.tabIndex=0;th.addEventListener('click',function(){sort(t,i,th);});"
	"th.addEventListener('keydown',function(e){if(e.key==='Enter')sort(t,i,th);});});});"
	"})();";

void web_table_script(struct web_buf *b)
{
	web_buf_printf(b, "<script>%s</script>\n", web_sort_script);
}

void web_num_td(struct web_buf *b, const json_t *v, const char *suffix)
{
	char num[32];

	if (!json_is_number(v)) {
		web_buf_str(b, "<td>-</td>");
		return;
	}
	web_buf_printf(b, "<td class=\"n\" data-v=\"%.15g\">", json_number_value(v));
	web_buf_html(b, report_compare_num(json_number_value(v), num, sizeof(num)));
	web_buf_printf(b, "%s</td>", suffix ? suffix : "");
}

/* A cell of O's number KEY. */
static void num_td(struct web_buf *b, const json_t *o, const char *key)
{
	web_num_td(b, json_object_get(o, key), NULL);
}

/* A cell of O's integer KEY. */
static void int_td(struct web_buf *b, const json_t *o, const char *key)
{
	long long v = (long long)json_integer_value(json_object_get(o, key));

	web_buf_printf(b, "<td class=\"n\" data-v=\"%lld\">%lld</td>", v, v);
}

/* A percentage cell of VALUE (a ratio when RATIO: 0.05 is 5 %). */
static void pct_td(struct web_buf *b, double value, bool ratio)
{
	if (!isfinite(value)) {
		web_buf_str(b, "<td>-</td>");
		return;
	}
	value *= ratio ? 100 : 1;
	web_buf_printf(b, "<td class=\"n\" data-v=\"%.15g\">%+.1f %%</td>", value, value);
}

/* The statistics cells of O (a row or a total): n, mean, stddev, spread, cv. */
static void stats_tds(struct web_buf *b, const json_t *o)
{
	double mean = json_number_value(json_object_get(o, "mean"));
	double sd = json_number_value(json_object_get(o, "stddev"));
	json_int_t n = json_integer_value(json_object_get(o, "n"));

	web_buf_printf(b, "<td class=\"n\" data-v=\"%lld\">%lld</td>", (long long)n,
		       (long long)n);
	num_td(b, o, "mean");
	num_td(b, o, "stddev");
	num_td(b, o, "spread");
	if (n < 2 || mean == 0) {
		web_buf_str(b, "<td>-</td>");
		return;
	}
	web_buf_printf(b, "<td class=\"n\" data-v=\"%.6g\">%.1f %%</td>", fabs(sd / mean),
		       fabs(sd / mean) * 100);
}

/* The value cells of O: each repetition (REPS at most WEB_TABLE_REPS), marked '*' with
 * its verdicts as the cell's title where the job had any; else min, median and max. */
static void values_tds(struct web_buf *b, const json_t *o, size_t reps)
{
	const json_t *values = json_object_get(o, "values");
	const json_t *verdicts = json_object_get(o, "verdicts");
	size_t i, k;

	if (reps > WEB_TABLE_REPS) {
		num_td(b, o, "min");
		num_td(b, o, "median");
		num_td(b, o, "max");
		return;
	}
	for (i = 0; i < reps; i++) {
		const json_t *v = json_array_get(verdicts, i), *name;
		char num[32];

		if (!json_array_size(v)) {
			web_num_td(b, json_array_get(values, i), NULL);
			continue;
		}
		if (!json_is_number(json_array_get(values, i))) {
			web_buf_str(b, "<td>-</td>");
			continue;
		}
		web_buf_printf(b, "<td class=\"n marked\" data-v=\"%.15g\" title=\"",
			       json_number_value(json_array_get(values, i)));
		json_array_foreach(v, k, name) {
			web_buf_str(b, k ? ", " : "");
			web_buf_html(b, json_string_value(name));
		}
		web_buf_str(b, " (see verdicts)\">");
		web_buf_html(b, report_compare_num(json_number_value(json_array_get(values, i)),
						   num, sizeof(num)));
		web_buf_str(b, "*</td>");
	}
}

/* The table of section SEC (a metric in a window) of a run whose jobs have REPS
 * repetitions, with id ID. */
static void run_section(struct web_buf *b, const json_t *sec, size_t reps, const char *id)
{
	const json_t *r;
	size_t i, k;
	bool many = reps > WEB_TABLE_REPS;

	web_buf_printf(b, "<table class=\"sort\" id=\"%s\"><caption>", id);
	web_buf_html(b, json_string_value(json_object_get(sec, "metric")));
	web_buf_str(b, " <small>(");
	web_buf_html(b, json_string_value(json_object_get(sec, "unit")));
	web_buf_str(b, ", ");
	web_buf_html(b, json_string_value(json_object_get(sec, "window")));
	web_buf_str(b, ")</small></caption>\n<thead><tr><th>variant</th><th>subject</th>");
	if (many)
		web_buf_str(b, "<th>min</th><th>median</th><th>max</th>");
	for (k = 0; !many && k < reps; k++)
		web_buf_printf(b, "<th>rep %zu</th>", k + 1);
	web_buf_str(b, "<th>n</th><th>mean</th><th>stddev</th><th>spread</th><th>cv</th>"
		    "</tr></thead>\n<tbody>\n");
	json_array_foreach(json_object_get(sec, "rows"), i, r) {
		web_buf_str(b, "<tr>");
		web_td(b, r, "variant");
		web_td(b, r, "subject");
		values_tds(b, r, reps);
		stats_tds(b, r);
		web_buf_str(b, "</tr>\n");
	}
	web_buf_str(b, "</tbody>\n");
	if (json_array_size(json_object_get(sec, "totals"))) {
		web_buf_str(b, "<tfoot>\n");
		json_array_foreach(json_object_get(sec, "totals"), i, r) {
			web_buf_str(b, "<tr>");
			web_td(b, r, "variant");
			web_buf_printf(b, "<td>total of %lld programs</td>",
				       (long long)json_integer_value(json_object_get(r, "programs")));
			values_tds(b, r, reps);
			stats_tds(b, r);
			web_buf_str(b, "</tr>\n");
		}
		web_buf_str(b, "</tfoot>\n");
	}
	web_buf_str(b, "</table>\n");
}

void web_table_run(struct web_buf *b, const json_t *report)
{
	json_int_t repeat = json_integer_value(json_object_get(report, "repeat"));
	const json_t *g, *sec;
	size_t i, k, records;
	char id[48];

	json_array_foreach(json_object_get(report, "groups"), i, g) {
		web_buf_str(b, "<h3>host ");
		web_buf_html(b, json_string_value(json_object_get(g, "host")));
		web_buf_str(b, ", kernel ");
		web_buf_html(b, json_string_value(json_object_get(g, "kernel_release")));
		if (json_string_value(json_object_get(g, "point"))) {
			web_buf_str(b, ", point ");
			web_buf_html(b, json_string_value(json_object_get(g, "point")));
		}
		web_buf_str(b, "</h3>\n");
		/* the plan's metrics first, the agent's records (cpu.others, medians,
		 * driver counters...) folded below them */
		records = 0;
		json_array_foreach(json_object_get(g, "sections"), k, sec) {
			const char *metric = json_string_value(json_object_get(sec, "metric"));

			if (metric && analysis_is_record(metric)) {
				records++;
				continue;
			}
			snprintf(id, sizeof(id), "t-%zu-%zu", i, k);
			run_section(b, sec, repeat > 0 ? (size_t)repeat : 1, id);
		}
		if (!records)
			continue;
		web_buf_printf(b, "<details><summary>%zu more: the agent's records</summary>\n",
			       records);
		json_array_foreach(json_object_get(g, "sections"), k, sec) {
			const char *metric = json_string_value(json_object_get(sec, "metric"));

			if (!metric || !analysis_is_record(metric))
				continue;
			snprintf(id, sizeof(id), "t-%zu-%zu", i, k);
			run_section(b, sec, repeat > 0 ? (size_t)repeat : 1, id);
		}
		web_buf_str(b, "</details>\n");
	}
}

/* The title of a verdict: what the CLI's legend says of it. */
static const char *verdict_title(const char *v)
{
	if (!v)
		return "";
	if (!strcmp(v, "SAME"))
		return "no change beyond the minimum effect";
	if (!strcmp(v, "UNKNOWN"))
		return "too few values to tell (see the smallest change n can see)";
	return "a change the test sees";
}

/* The strings of array ARR joined by ", " (escaped). */
static void joined(struct web_buf *b, const json_t *arr)
{
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		web_buf_str(b, i ? ", " : "");
		if (json_is_integer(v))
			web_buf_printf(b, "<a href=\"/runs/%lld\">%lld</a>",
				       (long long)json_integer_value(v), (long long)json_integer_value(v));
		else
			web_buf_html(b, json_string_value(v));
	}
}

/* Whole runs compared: the run-to-run spread in their tests, or why it is not known and
 * what was assumed (the notes under the CLI's table, naming the page's parameter). */
static void compare_run_notes(struct web_buf *b, const json_t *report)
{
	json_t *notes = report_compare_run_note_list(report);
	const json_t *v;
	size_t i;

	json_array_foreach(notes, i, v) {
		char text[512];

		snprintf(text, sizeof(text), "%s", json_string_value(v));
		web_buf_str(b, "<p class=\"note\">");
		web_buf_html(b, web_cli_hint(text, sizeof(text)));
		web_buf_str(b, "</p>\n");
	}
	json_decref(notes);
}

/* The sides of compare REPORT: what each group holds; a note when their plans differ;
 * the run-to-run notes. */
static void compare_sides(struct web_buf *b, const json_t *report)
{
	static const char *const keys[] = { "runs", "plans", "kernels", "hosts", "cpus" };
	const json_t *s, *plans = NULL;
	bool differ = false;
	size_t i, k;

	web_buf_str(b, "<h3>sides</h3>\n<table id=\"sides\">\n<thead><tr><th>group</th>"
		    "<th>results</th><th>runs</th><th>plans</th><th>kernels</th><th>hosts</th>"
		    "<th>cpus</th></tr></thead>\n<tbody>\n");
	json_array_foreach(json_object_get(report, "sides"), i, s) {
		if (plans && !json_equal(plans, json_object_get(s, "plans")))
			differ = true;
		plans = json_object_get(s, "plans");
		web_buf_str(b, "<tr>");
		web_td(b, s, "group");
		web_buf_printf(b, "<td class=\"n\">%lld</td>",
			       (long long)json_integer_value(json_object_get(s, "results")));
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			web_buf_str(b, "<td>");
			joined(b, json_object_get(s, keys[k]));
			web_buf_str(b, "</td>");
		}
		web_buf_str(b, "</tr>\n");
	}
	web_buf_str(b, "</tbody></table>\n");
	if (differ)
		web_buf_str(b, "<p class=\"note\" id=\"plans-differ\">The sides ran different "
			    "plans: a difference may come from the plans, not the kernels.</p>\n");
	web_buf_printf(b, "<p>Verdicts: Welch's t (Mann-Whitney U below 5 values or when "
		       "skewed), alpha %g, minimum effect %g %%; UNKNOWN +N: the repetitions per "
		       "side that would settle it; exact: both sides repeat one value, no test "
		       "was run.</p>\n", json_number_value(json_object_get(report, "alpha")),
		       100 * json_number_value(json_object_get(report, "min_effect")));
	compare_run_notes(b, report);
}

void web_table_compare(struct web_buf *b, const json_t *report)
{
	const json_t *c, *r;
	size_t i, k;

	json_array_foreach(json_object_get(report, "comparisons"), i, c) {
		web_buf_str(b, "<h3>baseline ");
		web_buf_html(b, json_string_value(json_object_get(c, "baseline")));
		web_buf_str(b, ", candidate ");
		web_buf_html(b, json_string_value(json_object_get(c, "candidate")));
		web_buf_printf(b, "</h3>\n<table class=\"sort\" id=\"compare-%zu\">\n<thead><tr>"
			       "<th>metric</th><th>point</th><th>variant</th><th>subject</th>"
			       "<th>unit</th><th>n a</th><th>mean a</th><th>n b</th><th>mean b</th>"
			       "<th>delta</th><th>95 %% CI</th><th>p</th><th>verdict</th>"
			       "<th>smallest visible</th></tr></thead>\n<tbody>\n", i);
		json_array_foreach(json_object_get(c, "rows"), k, r) {
			const char *verdict = json_string_value(json_object_get(r, "verdict"));
			const json_t *mdp = json_object_get(r, "min_detectable_pct");
			char text[64];

			web_buf_str(b, "<tr>");
			web_td(b, r, "metric");
			web_td(b, r, "point");
			web_td(b, r, "variant");
			web_td(b, r, "subject");
			web_td(b, r, "unit");
			int_td(b, r, "n_a");
			num_td(b, r, "mean_a");
			int_td(b, r, "n_b");
			num_td(b, r, "mean_b");
			pct_td(b, json_number_value(json_object_get(r, "delta_pct")), false);
			web_buf_printf(b, "<td>%+.1f .. %+.1f %%</td>",
				       json_number_value(json_object_get(r, "ci_lo_pct")),
				       json_number_value(json_object_get(r, "ci_hi_pct")));
			web_buf_printf(b, "<td class=\"n\" data-v=\"%.6g\">%.3g</td>",
				       json_number_value(json_object_get(r, "p")),
				       json_number_value(json_object_get(r, "p")));
			web_buf_str(b, "<td class=\"verdict-");
			web_buf_html(b, verdict);
			web_buf_str(b, "\" title=\"");
			web_buf_html(b, verdict_title(verdict));
			web_buf_str(b, "\">");
			web_buf_html(b, report_compare_verdict_text(r, text, sizeof(text)));
			web_buf_str(b, "</td>");
			if (json_is_number(mdp))
				web_buf_printf(b, "<td class=\"n\" data-v=\"%.6g\">about %.2g %%</td>",
					       json_number_value(mdp), json_number_value(mdp));
			else
				web_buf_str(b, "<td></td>");
			web_buf_str(b, "</tr>\n");
		}
		web_buf_str(b, "</tbody></table>\n");
	}
	compare_sides(b, report);
}

/* The change points of each series of history REPORT, a list item each. */
static void history_changes(struct web_buf *b, const json_t *report)
{
	const json_t *s, *c;
	size_t i, k, n = 0;

	json_array_foreach(json_object_get(report, "series"), i, s)
		json_array_foreach(json_object_get(s, "changes"), k, c) {
			web_buf_str(b, n++ ? "<li>" : "<h3>change points</h3>\n<ul id=\"changes\">"
				    "<li>");
			web_buf_html(b, json_string_value(json_object_get(s, "variant")));
			web_buf_str(b, " ");
			web_buf_html(b, json_string_value(json_object_get(s, "subject")));
			if (json_is_true(json_object_get(c, "within"))) {
				web_buf_str(b, ": change point within ");
				web_buf_html(b, json_string_value(json_object_get(c, "before")));
				web_buf_printf(b, " (value %lld)",
					       (long long)json_integer_value(json_object_get(c,
							"index")));
			} else {
				web_buf_str(b, ": change point between ");
				web_buf_html(b, json_string_value(json_object_get(c, "before")));
				web_buf_str(b, " and ");
				web_buf_html(b, json_string_value(json_object_get(c, "after")));
			}
			web_buf_printf(b, ", p = %.3g</li>\n",
				       json_number_value(json_object_get(c, "p")));
		}
	web_buf_str(b, n ? "</ul>\n" : "<p>no change point</p>\n");
}

void web_table_history(struct web_buf *b, const json_t *report)
{
	const json_t *s, *p;
	size_t i, k;

	web_buf_str(b, "<table class=\"sort\" id=\"history-points\">\n<thead><tr><th>metric"
		    "</th><th>variant</th><th>subject</th><th>unit</th><th>group</th><th>n</th>"
		    "<th>mean</th><th>stddev</th><th>min</th><th>max</th><th>delta</th></tr>"
		    "</thead>\n<tbody>\n");
	json_array_foreach(json_object_get(report, "series"), i, s) {
		json_array_foreach(json_object_get(s, "points"), k, p) {
			web_buf_str(b, "<tr>");
			web_td(b, s, "metric");
			web_td(b, s, "variant");
			web_td(b, s, "subject");
			web_td(b, s, "unit");
			web_td(b, p, "group");
			int_td(b, p, "n");
			num_td(b, p, "mean");
			num_td(b, p, "stddev");
			num_td(b, p, "min");
			num_td(b, p, "max");
			if (json_is_number(json_object_get(p, "delta_pct")))
				pct_td(b, json_number_value(json_object_get(p, "delta_pct")),
				       false);
			else
				web_buf_str(b, "<td>-</td>");
			web_buf_str(b, "</tr>\n");
		}
	}
	web_buf_str(b, "</tbody></table>\n");
	history_changes(b, report);
}
