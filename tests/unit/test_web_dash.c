/* test_web_dash.c - the dashboard's pages of issue 25 item 8 (web/web_runs.c,
 * web_table.c, web_chart_cmp.c, docs/dashboard.md) on a database made by `bpflab result
 * import` (plan k on three kernels, web_test.h, and 120 more runs of plan m, one of
 * them on host "other" and one failed, submitted on three days, and run 124 of plan w
 * with 200 repetitions):
 *
 * - /runs filtered by plan, host, state and date, cut in pages of 50 with links that
 *   keep the filters; bad filters are 400 naming the parameter;
 * - the pick lists of plans, hosts, states, metrics and runs, from the database;
 * - a run page streamed (chunked; 404 and 400 decided before), sortable tables with each repetition's exact value in data-v, links to
 *   the plan's history and to a compare with its previous run, no CLI hint;
 * - the tables of 200 repetitions as light as those of 5 (min, median, max columns);
 * - /compare: the chart (a bar per row, its hover title) and the sides;
 * - /hosts: the last contact, and "offline database" rather than a stale state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web.h"
#include "helpers.h"
#include "web_test.h"

static char tmpdir[] = "/tmp/bpflab-test-webdash-XXXXXX";
static char db[300];
static struct web *srv;

static void get(const char *path, struct http *h)
{
	http_req(web_port(srv), "GET", path, NULL, h);
}

static int setup(void **state)
{
	(void)state;
	if (web_test_setup_k(tmpdir, db, sizeof(db)))
		return -1;
	/* runs 4..123: copies of run 3's head as plan m, a day apart in three blocks:
	 * 4..43 on 2026-01-01, 44..83 on 2026-01-02, 84..123 on 2026-01-03 */
	db_file_exec(db, "INSERT INTO plans (name, sha256, text, created_ms) SELECT 'm', 'm' || sha256, "
		"text, created_ms FROM plans WHERE name = 'k' LIMIT 1");
	db_file_exec(db, "WITH RECURSIVE n(i) AS (SELECT 4 UNION ALL SELECT i + 1 FROM n "
		"WHERE i < 123) INSERT INTO runs (id, plan_id, plan_file, state, "
		"submitted_ms, finished_ms, variants, repeat) SELECT i, (SELECT id FROM plans "
		"WHERE name = 'm'), 'm.yaml', 'done', 1767225600000 + ((i - 4) / 40) * 86400000 "
		"+ i, 0, r.variants, r.repeat "
		"FROM n, runs r WHERE r.id = 3");
	db_file_exec(db, "UPDATE runs SET state = 'failed' WHERE id = 50");
	db_file_exec(db, "INSERT INTO hosts (name, state, inventory, first_seen_ms, last_seen_ms) VALUES "
		"('other', 'idle', '{}', 1, 1767225600000)");
	db_file_exec(db, "INSERT INTO job_specs (text) VALUES ('{}')");
	db_file_exec(db, "INSERT INTO jobs (run_id, host_id, seq, variant, variant_idx, rep, "
		"spec_id, state) SELECT 60, (SELECT id FROM hosts WHERE name = 'other'), 0, "
		"'drop', 0, 1, (SELECT max(id) FROM job_specs), 'done'");
	/* run 124 of plan w: 200 repetitions of two programs */
	{
		char file[400], line[64];
		FILE *f;
		int i;

		snprintf(file, sizeof(file), "%s/w.csv", tmpdir);
		f = fopen(file, "w");
		if (!f)
			return -1;
		fputs("variant,prog,set,value\n", f);
		for (i = 1; i <= 200; i++) {
			snprintf(line, sizeof(line), "drop,xdp_drop,%d,%d.5\n", i, 10 + i % 7);
			fputs(line, f);
			snprintf(line, sizeof(line), "drop,xdp_pass,%d,%d.25\n", i, 20 + i % 5);
			fputs(line, f);
		}
		fclose(f);
		free(web_test_cli(tmpdir, (const char *[]){ "--db", db, NULL }, (const char *[]){
			"result", "import", file, "--plan", "w", "--kernel", "6.4.0", NULL }));
	}
	srv = web_test_start(db, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	web_destroy(&srv);
	return tmpdir_remove(tmpdir);
}

/* /runs: pages of 50 newest first, filters, their pick lists and errors. */
static void test_web_dash_runs(void **state)
{
	struct http h;

	(void)state;
	get("/runs", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<p id=\"runs-count\">124 runs, page 1 of 3</p>");
	assert_contains(h.body, "<tr id=\"run-124\">");
	assert_contains(h.body, "<tr id=\"run-75\">");
	assert_null(strstr(h.body, "<tr id=\"run-74\">"));
	assert_int_equal(web_test_count(h.body, "<tr id=\"run-"), 50);
	assert_contains(h.body, "<a href=\"/runs?page=2\">older &rarr;</a>");
	/* the pick lists: plans, hosts, states */
	assert_contains(h.body, "<select name=\"plan\" id=\"pick-plan\"><option value=\"\">any"
			"</option><option value=\"k\">k</option><option value=\"m\">m</option>"
			"<option value=\"w\">w</option></select>");
	assert_contains(h.body, "<option value=\"other\">other</option>");
	assert_contains(h.body, "<option value=\"cancelled\">cancelled</option>");
	assert_contains(h.body, "<input type=\"date\" name=\"since\" value=\"\">");
	http_free(&h);

	get("/runs?page=3", &h);
	assert_contains(h.body, "page 3 of 3");
	assert_contains(h.body, "<tr id=\"run-1\">");
	assert_int_equal(web_test_count(h.body, "<tr id=\"run-"), 24);
	assert_contains(h.body, "<a href=\"/runs?page=2\">&larr; newer</a>");
	http_free(&h);

	/* an empty field of the form is no filter */
	get("/runs?plan=k&host=&state=&since=&until=", &h);
	assert_contains(h.body, "3 runs, page 1 of 1");
	assert_contains(h.body, "<option value=\"k\" selected>k</option>");
	assert_null(strstr(h.body, "<tr id=\"run-4\">"));
	http_free(&h);
	get("/runs?state=failed", &h);
	assert_contains(h.body, "1 run, page 1 of 1");
	assert_contains(h.body, "<tr id=\"run-50\">");
	http_free(&h);
	get("/runs?host=other", &h);
	assert_contains(h.body, "1 run, page 1 of 1");
	assert_contains(h.body, "<tr id=\"run-60\">");
	http_free(&h);
	/* 2026-01-02 only: runs 44..83, 40 of them */
	get("/runs?plan=m&since=2026-01-02&until=2026-01-02", &h);
	assert_contains(h.body, "40 runs, page 1 of 1");
	assert_contains(h.body, "<tr id=\"run-83\">");
	assert_contains(h.body, "<tr id=\"run-44\">");
	assert_null(strstr(h.body, "<tr id=\"run-43\">"));
	assert_null(strstr(h.body, "<tr id=\"run-84\">"));
	http_free(&h);
	/* the page links keep the filters */
	get("/runs?plan=m&since=2026-01-01", &h);
	assert_contains(h.body, "120 runs, page 1 of 3");
	assert_contains(h.body, "<a href=\"/runs?plan=m&amp;since=2026-01-01&amp;page=2\">");
	http_free(&h);
	get("/runs?plan=nope", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<p>no run matches</p>");
	assert_contains(h.body, "<option value=\"nope\" selected>nope</option>");
	http_free(&h);

	get("/runs?state=lost", &h);
	assert_int_equal(h.status, 400);
	assert_contains(h.body, "parameter &#39;state&#39;");
	http_free(&h);
	get("/runs?since=yesterday", &h);
	assert_int_equal(h.status, 400);
	assert_contains(h.body, "parameter &#39;since&#39;: &#39;yesterday&#39; is not a date "
			"(YYYY-MM-DD)");
	http_free(&h);
	get("/runs?state=failed&page=4", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "1 run in 1 page: no page 4");
	assert_contains(h.body, "<a href=\"/runs?state=failed\">the first page</a>");
	http_free(&h);
	get("/runs?page=0", &h);
	assert_int_equal(h.status, 400);
	http_free(&h);
	get("/runs?limit=5", &h);
	assert_int_equal(h.status, 400);
	assert_contains(h.body, "unknown parameter &#39;limit&#39;");
	http_free(&h);
}

/* A run page: tables (data-v, a header per repetition), the links, no CLI hint. */
static void test_web_dash_run(void **state)
{
	struct http h;

	(void)state;
	get("/runs/2", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<table class=\"sort\" id=\"t-0-0\"><caption>prog.ns_per_run");
	assert_contains(h.body, "<th>rep 4</th><th>n</th><th>mean</th>");
	assert_contains(h.body, "<td class=\"n\" data-v=\"20.3\">20.30</td>");
	/* the history of the plan's first metric, the compare with run 1 (plan k) */
	assert_contains(h.body, "<a id=\"link-history\" href=\"/history?plan=k&amp;metric="
			"prog.ns_per_run\">");
	assert_contains(h.body, "<a id=\"link-compare\" href=\"/compare?a=1&amp;b=2\">");
	assert_null(strstr(h.body, "--"));
	http_free(&h);
	get("/runs/1", &h);
	assert_contains(h.body, "no earlier run of this plan to compare with");
	http_free(&h);
	/* streamed (web_stream.c): chunked, the whole page; the status decided first */
	get("/runs/2?seconds=1", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.head, "Transfer-Encoding: chunked");
	assert_contains(h.head, "Content-Security-Policy: default-src 'none'");
	assert_contains(h.body, "<title>run 2 - bpflab</title>");
	assert_contains(h.body, "<h2>results</h2>");
	assert_true(strlen(h.body) > 7 && !strcmp(h.body + strlen(h.body) - 8, "</html>\n"));
	http_free(&h);
	get("/runs/999", &h);
	assert_int_equal(h.status, 404);
	assert_null(strstr(h.head, "chunked"));
	assert_contains(h.body, "<p>no run 999</p>");
	http_free(&h);
	get("/runs/2?seconds=x", &h);
	assert_int_equal(h.status, 400);
	http_free(&h);
	get("/runs/2?limit=1", &h);
	assert_int_equal(h.status, 400);
	http_free(&h);
	http_req(web_port(srv), "HEAD", "/runs/2", NULL, &h);
	assert_int_equal(h.status, 200);
	http_free(&h);
}

/* The tables of a run of 200 repetitions weigh what those of 5 do: min, median and max
 * instead of a column per repetition (the dots of web_chart.c have each value). */
static void test_web_dash_weight(void **state)
{
	struct http h;

	(void)state;
	get("/runs/124", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<th>subject</th><th>min</th><th>median</th><th>max</th>"
			"<th>n</th>");
	assert_contains(h.body, "<td class=\"n\" data-v=\"200\">200</td>");
	assert_null(strstr(h.body, "<th>rep 1</th>"));
	{
		const char *t = strstr(h.body, "<div id=\"tables\">");
		const char *end = t ? strstr(t, "</div>") : NULL;

		assert_non_null(end);
		if (end - t > 6000)
			fail_msg("the tables of 400 values are %td bytes (more than 6000)", end - t);
	}
	http_free(&h);
}

/* /compare and /history: run pickers, the metric list, the chart. */
static void test_web_dash_compare(void **state)
{
	struct http h;

	(void)state;
	get("/compare", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<select name=\"a\" id=\"pick-a\"><option value=\"\">(baseline "
			"run)</option><option value=\"124\">124 w (done, ");
	assert_contains(h.body, "<option value=\"123\">123 m (done, 2026-01-03)</option>");
	assert_contains(h.body, "<option value=\"prog.ns_per_run\">prog.ns_per_run</option>");
	http_free(&h);
	get("/compare?a=1&b=2", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<svg id=\"compare-chart\"");
	/* 10.15 -> 20.15 (each a rounding tie, so the means are not asserted): +98.5 %,
	 * the interval (the run-to-run spread assumed: one run a side), the verdict, and
	 * under the table the note the CLI prints */
	assert_contains(h.body, "<title>prog.ns_per_run drop xdp_drop: 10.");
	assert_contains(h.body, ", +98.5 % [+70.0, +127.1], DIFFERENT</title>");
	assert_contains(h.body, "<p class=\"note\">run-to-run spread unknown (1 run per side; "
			"3 needed): 7 % assumed (run_spread=PCT)</p>");
	assert_contains(h.body, "<table id=\"sides\">");
	assert_contains(h.body, "<label>run_spread <input name=\"run_spread\"");
	http_free(&h);
	/* run_spread as `--run-spread`: 0 assumes nothing (a narrower interval), a bad
	 * value is refused naming the parameter, the form kept filled */
	get("/compare?a=1&b=2&run_spread=0", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "3 needed): repetitions taken as independent (run_spread=0)</p>");
	assert_null(strstr(h.body, "[+70.0, +127.1]"));
	assert_contains(h.body, "value=\"0\"");
	http_free(&h);
	get("/compare?a=1&b=2&run_spread=7%25", &h);
	assert_int_equal(h.status, 400);
	assert_contains(h.body, "parameter &#39;run_spread&#39;: &#39;7%&#39; is not a percentage");
	http_free(&h);
	/* 10.15 -> 21.15, +108 %: beyond the axis's 100 %, the bar cut and marked */
	get("/compare?a=1&b=3", &h);
	assert_contains(h.body, "text-anchor=\"end\">+100 %</text>");
	assert_contains(h.body, "text-anchor=\"end\">&#9654;</text>");
	assert_contains(h.body, "<td><a href=\"/runs/1\">1</a></td><td>k</td><td>6.1.0</td>");
	http_free(&h);
}

/* /hosts: last contact; states of an offline database not shown as current. */
static void test_web_dash_hosts(void **state)
{
	struct http h;

	(void)state;
	get("/hosts", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<p id=\"offline\" class=\"note\">Offline database: no word from "
			"any host");
	assert_contains(h.body, "<td class=\"stale\">unknown (idle when last seen)</td>"
			"<td data-v=\"1767225600000\">2026-01-01T00:00:00Z (");
	assert_null(strstr(h.body, "<td>idle</td>"));
	http_free(&h);
	/* a host heard from just now: its state as it is, no note */
	db_file_exec(db, "UPDATE hosts SET last_seen_ms = CAST((julianday('now') - 2440587.5) "
		"* 86400000 AS INTEGER) WHERE name = 'other'");
	get("/hosts", &h);
	assert_null(strstr(h.body, "id=\"offline\""));
	assert_contains(h.body, "<td>idle</td>");
	http_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_web_dash_runs),
		cmocka_unit_test(test_web_dash_run),
		cmocka_unit_test(test_web_dash_weight),
		cmocka_unit_test(test_web_dash_compare),
		cmocka_unit_test(test_web_dash_hosts),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
