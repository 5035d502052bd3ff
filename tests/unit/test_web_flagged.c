// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_web_flagged.c - the dashboard's /history and /compare (web/web_api.c, web_page.c,
 * docs/dashboard.md) when results are flagged, and their error pages, on a database
 * made by `bpflab result import` (plan k, web_test.h, and a fourth run on kernel 6.3.1
 * about as fast as 6.3.0 but five times as spread), every job of runs 1 to 3 flagged disturbed:
 *
 * - include_flagged=1 is the CLI's --include-flagged: /api/history and /api/compare
 *   byte-equal to `result history/compare ... --include-flagged -j`; without it the
 *   404 says include_flagged=1 (the CLI's message says --include-flagged);
 * - the pages: a checkbox include_flagged (checked when given), and an error page that
 *   keeps the form filled with what was sent (404 all flagged, 400 a bad value);
 * - the compare page under an UNKNOWN row: the smallest change its n can see, as the
 *   text of `result compare` prints it.
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

static char tmpdir[] = "/tmp/bpflab-test-webflag-XXXXXX";
static char db[300];
static struct web *srv;

/* 6.3.1: mean 21.275 (6.3.0: 21.15), stddev 0.62 (0.13): 6.3.0 -> 6.3.1 is UNKNOWN; the
 * pooled stddev sqrt((3 * 0.129^2 + 3 * 0.625^2) / 6) = 0.451 is a CV of 2.1 % */
static const char csv_631[] = "variant,prog,set,value\ndrop,xdp_drop,1,20.6\n"
	"drop,xdp_drop,2,21.9\ndrop,xdp_drop,3,20.9\ndrop,xdp_drop,4,21.7\n";

static char *cli(const char *const *args)
{
	return web_test_cli(tmpdir, (const char *[]){ "--db", db, NULL }, args);
}

static void get(const char *path, struct http *h)
{
	http_req(web_port(srv), "GET", path, NULL, h);
}

static int setup(void **state)
{
	char file[400];

	(void)state;
	if (web_test_setup_k(tmpdir, db, sizeof(db)))
		return -1;
	snprintf(file, sizeof(file), "%s/k3.csv", tmpdir);
	file_put(file, csv_631);
	free(cli((const char *[]){ "result", "import", file, "--plan", "k", "--kernel", "6.3.1",
				   NULL }));
	db_file_exec(db, "UPDATE jobs SET verdicts = '[\"disturbed\"]' WHERE run_id <= 3");
	srv = web_test_start(db, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	web_destroy(&srv);
	return tmpdir_remove(tmpdir);
}

/* include_flagged=1 answers what --include-flagged prints; without it, the error names
 * the parameter, not the CLI's option. */
static void test_web_include_flagged_api(void **state)
{
	struct http h;

	(void)state;
	web_test_same(web_port(srv), "/api/history?plan=k&metric=prog.ns_per_run&"
		      "include_flagged=1", cli((const char *[]){ "-j", "result", "history",
		      "--plan", "k", "--metric", "prog.ns_per_run", "--include-flagged", NULL }),
		      &h);
	http_free(&h);
	web_test_same(web_port(srv), "/api/compare?include_flagged=1&a=1&b=2",
		      cli((const char *[]){ "-j", "result", "compare", "1", "2",
		      "--include-flagged", NULL }), &h);
	http_free(&h);
	web_test_same(web_port(srv), "/api/compare?plan=k&by=kernel.release&include_flagged=1",
		      cli((const char *[]){ "-j", "result", "compare", "--plan", "k", "--by",
		      "kernel.release", "--include-flagged", NULL }), &h);
	http_free(&h);
	/* without: run 4 alone is left, one point of history; runs 1 and 2 all flagged */
	web_test_same(web_port(srv), "/api/history?plan=k&metric=prog.ns_per_run",
		      cli((const char *[]){ "-j", "result", "history", "--plan", "k",
		      "--metric", "prog.ns_per_run", NULL }), &h);
	http_free(&h);
	get("/api/compare?a=1&b=2", &h);
	assert_int_equal(h.status, 404);
	assert_text(h.body, "{\"error\":\"no results to compare (all of them flagged; "
		    "include_flagged=1 to use them)\"}\n");
	http_free(&h);
	get("/api/history?plan=k&metric=prog.ns_per_run&variant=drop&host=imported&"
	    "by=kernel.build&subject=xdp_drop&window=cost&include_flagged=1&plan=k", &h);
	assert_int_equal(h.status, 400);
	assert_contains(h.body, "'plan'");
	http_free(&h);
	get("/api/history?plan=k&metric=prog.ns_per_run&include_flagged=yes", &h);
	assert_int_equal(h.status, 400);
	assert_text(h.body, "{\"error\":\"parameter 'include_flagged': unknown value 'yes' "
		    "(expected 1)\"}\n");
	http_free(&h);
	get("/api/history?plan=k&metric=prog.ns_per_run&include_flagged", &h);
	assert_int_equal(h.status, 400);
	http_free(&h);
}

/* The pages: the checkbox, and error pages that keep the form as it was sent. */
static void test_web_include_flagged_pages(void **state)
{
	struct http h;

	(void)state;
	get("/compare?a=1&b=2&plan=&metric=", &h);
	assert_int_equal(h.status, 404);
	assert_contains(h.head, "Content-Type: text/html");
	assert_contains(h.body, "<title>error 404 - bpflab</title>");
	assert_contains(h.body, "<p>no results to compare (all of them flagged; "
			"include_flagged=1 to use them)</p>");
	assert_contains(h.body, "<form method=\"get\" action=\"/compare\">");
	assert_contains(h.body, "<option value=\"1\" selected>1 ");
	assert_contains(h.body, "<option value=\"2\" selected>2 ");
	assert_contains(h.body, "<input type=\"checkbox\" name=\"include_flagged\" "
			"value=\"1\"> include_flagged");
	http_free(&h);
	/* ticked: the report, the box stays ticked, the JSON link carries it */
	get("/compare?a=1&b=2&plan=&include_flagged=1", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<table class=\"sort\" id=\"compare-0\">");
	assert_contains(h.body, "name=\"include_flagged\" value=\"1\" checked>");
	assert_contains(h.body, "<a href=\"/api/compare?a=1&amp;b=2&amp;include_flagged=1\">");
	http_free(&h);
	get("/history?plan=k&metric=prog.ns_per_run&include_flagged=1", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<svg id=\"chart\"");
	assert_contains(h.body, "value=\"1\" checked>");
	http_free(&h);
	/* a bad value: 400, the form with the values sent (also test_web.c) */
	get("/compare?a=1&b=x", &h);
	assert_int_equal(h.status, 400);
	assert_contains(h.body, "<p>parameter &#39;b&#39;: &#39;x&#39; is not a run id");
	assert_contains(h.body, "<option value=\"x\" selected>x</option>");
	http_free(&h);
	/* the error page of any other path has no form */
	get("/runs/99", &h);
	assert_int_equal(h.status, 404);
	assert_null(strstr(h.body, "<form"));
	http_free(&h);
}

/* An UNKNOWN row (6.3.0 -> 6.3.1, 4 + 4 values) says under the compare table the
 * smallest change its n can see, as `result compare` prints it; -j has it on the row. */
static void test_web_compare_min_detectable(void **state)
{
	char *text = cli((const char *[]){ "result", "compare", "--plan", "k", "--by",
					   "kernel.release", "--baseline", "6.3.0", "--candidate",
					   "6.3.1", "--include-flagged", NULL });
	struct http h;

	(void)state;
	assert_contains(text, "UNKNOWN +15 reps");
	assert_contains(text, "drop xdp_drop:\n  with 4 + 4 values at 2.1 % CV the smallest "
			"change this can see is about 4.2 %\n");
	get("/compare?plan=k&by=kernel.release&baseline=6.3.0&candidate=6.3.1&"
	    "include_flagged=1", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, ">UNKNOWN +15 reps</td><td class=\"n\" data-v=\"4.2");
	assert_contains(h.body, ">about 4.2 %</td>");
	http_free(&h);
	get("/api/compare?plan=k&by=kernel.release&baseline=6.3.0&candidate=6.3.1&"
	    "include_flagged=1", &h);
	assert_contains(h.body, "\"min_detectable_pct\":");
	http_free(&h);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_web_include_flagged_api),
		cmocka_unit_test(test_web_include_flagged_pages),
		cmocka_unit_test(test_web_compare_min_detectable),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
