// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_report.c - lib/report/report_*.c: fixed result objects (docs/protocol.md "result") in, the
 * exact text and the JSON report numbers out.
 *
 * The arithmetic of the netdev example from the design brief, checked by hand:
 * cnt_ingress 35.9 35.6 35.5 + cnt_egress 70.3 73.5 69.2 give totals 106.2 109.1 104.7;
 * mean 320.0 / 3 = 106.67 -> "106.7"; spread (109.1 - 104.7) / 2 = 2.2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jget.h"
#include "plan/plan.h"
#include "report/report.h"
#include "store/store.h"
#include "base/util.h"
#include "helpers.h"

static json_t *result_new(int run, const char *plan, const char *state, int repeat,
			  const char *variants_json, const char *hosts_json)
{
	json_t *r = json_pack("{s:i, s:s, s:s, s:s, s:i, s:o, s:o, s:[]}", "run", run,
			      "plan", plan, "plan_sha256",
			      "1a2b3c4d5e6f77889900aabbccddeeff00112233445566778899aabbccddeeff",
			      "state", state, "repeat", repeat,
			      "variants", json_loads(variants_json, 0, NULL),
			      "hosts", json_loads(hosts_json, 0, NULL), "samples");

	assert_non_null(r);
	return r;
}

/* One whole-window sample; POINT is JSON text or NULL for no matrix. */
static void add(json_t *result, int job, const char *host, const char *variant, int rep,
		const char *point, const char *metric, const char *subject, double value)
{
	bool ns = !strcmp(metric, "prog.ns_per_run");
	json_t *s = json_pack("{s:i, s:s, s:s, s:i, s:o, s:s, s:s, s:f, s:s, s:s}",
			      "job", job, "host", host, "variant", variant, "rep", rep,
			      "point", point ? json_loads(point, 0, NULL) : json_object(),
			      "metric", metric, "subject", subject, "value", value,
			      "unit", ns ? "ns" : "pps",
			      "window", !strncmp(metric, "prog.", 5) ? "cost" : "rate");

	assert_non_null(s);
	assert_int_equal(json_array_append_new(json_object_get(result, "samples"), s), 0);
}

/* The report of RESULT, after checking that its text is exactly WANT (assert_text shows
 * both whole when not: the point of these tests is the layout). */
static json_t *report_as(const json_t *result, const char *want)
{
	json_t *report = report_build(result);
	char *text;

	assert_non_null(report);
	text = report_text(report);
	assert_non_null(text);
	assert_text(text, want);
	free(text);
	return report;
}

static const json_t *section(const json_t *report, int group, int sec)
{
	const json_t *g = json_array_get(json_object_get(report, "groups"), group);

	return json_array_get(json_object_get(g, "sections"), sec);
}

static double value_at(const json_t *obj, int i)
{
	return json_number_value(json_array_get(json_object_get(obj, "values"), i));
}

static const char *h1 = "[{\"name\":\"h1\",\"kernel_release\":\"6.18.44\"}]";

/* The quickstart table of the CLI brief, samples in the order jobs finish. */
static void test_report_quickstart(void **state)
{
	json_t *r = result_new(3, "quickstart", "done", 3, "[\"drop\",\"pass\"]", h1), *rep;
	const double drop[] = { 19.86e6, 19.91e6, 20.03e6 }, pass[] = { 3.12e6, 3.10e6, 3.15e6 };
	const double ns[] = { 35.9, 35.6, 35.5 };
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "prog.ns_per_run", "xdp_drop", ns[i]);
		add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", drop[i]);
		add(r, 2 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "b", pass[i]);
	}
	rep = report_as(r,
		"run 3  quickstart  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2 results-3     mean ± spread\n"
		"drop     b        19.86M    19.91M    20.03M   19.93M ± 0.09M\n"
		"pass     b         3.12M     3.10M     3.15M    3.12M ± 0.03M\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog      results-1 results-2 results-3   total = mean ± spread\n"
		"drop     xdp_drop       35.9      35.6      35.5           35.7 ± 0.2\n");

	/* the JSON report carries the unrounded numbers */
	assert_int_equal(json_integer_value(json_object_get(rep, "run")), 3);
	assert_int_equal(json_integer_value(json_object_get(rep, "repeat")), 3);
	{
		const json_t *rows = json_object_get(section(rep, 0, 0), "rows");
		const json_t *d = json_array_get(rows, 0), *p = json_array_get(rows, 1);

		assert_string_equal(json_string_value(json_object_get(section(rep, 0, 0),
								      "metric")), "port.rx_pps");
		assert_string_equal(json_string_value(json_object_get(d, "variant")), "drop");
		assert_near(value_at(d, 0), 19.86e6, 0);
		assert_near(value_at(d, 2), 20.03e6, 0);
		assert_near(jget_num(d, "mean", 0), 59.8e6 / 3, 1e-6);
		assert_near(jget_num(d, "spread", 0), 85000, 1e-6);
		assert_near(jget_num(d, "median", 0), 19.91e6, 0);
		assert_int_equal(json_integer_value(json_object_get(d, "n")), 3);
		assert_near(jget_num(p, "mean", 0), 9.37e6 / 3, 1e-6);
		assert_near(jget_num(p, "spread", 0), 25000, 1e-6);
	}
	json_decref(rep);
	json_decref(r);
}

/* A host's noise floor (store_noise_list's rows as "noise" in the result) is printed
 * beside the spreads: each row's cv = stddev / mean, and the floor of its metric (the
 * row's subject, else the metric's first). By hand: drop b 19.86 19.91 20.03 M, mean
 * 19.9333, deviations -0.0733 -0.0233 +0.0967, stddev sqrt(0.015267 / 2) = 0.08737,
 * cv 0.438 %; pass b 3.12 3.10 3.15, stddev sqrt(0.0012667 / 2) = 0.025166 over
 * 3.12333 = 0.806 %; xdp_drop 35.9 35.6 35.5, stddev sqrt(0.086667 / 2) = 0.20817 over
 * 35.6667 = 0.584 %. A host without a floor prints as before. */
static void test_report_noise_floor(void **state)
{
	json_t *r = result_new(3, "quickstart", "done", 3, "[\"drop\",\"pass\"]",
			       "[{\"name\":\"h1\",\"kernel_release\":\"6.18.44\"},"
			       "{\"name\":\"h2\",\"kernel_release\":\"6.18.44\"}]"), *rep;
	const double drop[] = { 19.86e6, 19.91e6, 20.03e6 }, pass[] = { 3.12e6, 3.10e6, 3.15e6 };
	const double ns[] = { 35.9, 35.6, 35.5 };
	const json_t *noise;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "prog.ns_per_run", "xdp_drop", ns[i]);
		add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", drop[i]);
		add(r, 2 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "b", pass[i]);
		add(r, 2 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "a", pass[i]);
		add(r, 2 * i + 7, "h2", "drop", i + 1, NULL, "port.rx_pps", "b", drop[i]);
	}
	/* h1 calibrated by run 4 on another kernel; a floor of a metric the run lacks, and
	 * one of port a, which received next to nothing then (3 pps: 316 % is noise around
	 * nothing, not a floor: a's row takes b's) */
	json_object_set_new(r, "noise", json_loads(
		"[{\"host_id\":1,\"host\":\"h1\",\"run\":4,\"kernel_release\":\"6.18.40\","
		"\"metric\":\"gen.tx_pps\",\"subject\":\"a\",\"window\":\"rate\",\"n\":10,"
		"\"mean\":2e7,\"cv\":0.5},"
		"{\"host_id\":1,\"host\":\"h1\",\"run\":4,\"kernel_release\":\"6.18.40\","
		"\"metric\":\"port.rx_pps\",\"subject\":\"a\",\"window\":\"rate\",\"n\":10,"
		"\"mean\":3,\"cv\":3.16},"
		"{\"host_id\":1,\"host\":\"h1\",\"run\":4,\"kernel_release\":\"6.18.40\","
		"\"metric\":\"port.rx_pps\",\"subject\":\"b\",\"window\":\"rate\",\"n\":10,"
		"\"mean\":2e7,\"cv\":0.23},"
		"{\"host_id\":1,\"host\":\"h1\",\"run\":4,\"kernel_release\":\"6.18.40\","
		"\"metric\":\"prog.ns_per_run\",\"subject\":\"xdp_tx\",\"window\":\"cost\","
		"\"n\":10,\"mean\":40,\"cv\":0.021}]", 0, NULL));
	rep = report_as(r,
		"run 3  quickstart  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"  noise floor: calibration run 4 on kernel 6.18.40; cv = a row's stddev / mean, floor = the host's run-to-run cv\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2 results-3     mean ± spread      cv  floor\n"
		"drop     b        19.86M    19.91M    20.03M   19.93M ± 0.09M   0.44 %   23 %\n"
		"pass     b         3.12M     3.10M     3.15M    3.12M ± 0.03M   0.81 %   23 %\n"
		"         a         3.12M     3.10M     3.15M    3.12M ± 0.03M   0.81 %   23 %\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog      results-1 results-2 results-3   total = mean ± spread      cv  floor\n"
		"drop     xdp_drop       35.9      35.6      35.5           35.7 ± 0.2     0.58 %  2.1 %\n"
		"\n"
		"host h2  kernel 6.18.44\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2 results-3     mean ± spread\n"
		"drop     b        19.86M    19.91M    20.03M   19.93M ± 0.09M\n"
		"pass     -             -         -         -        -\n");

	/* the JSON report's hosts carry the floor; the result's own hosts are untouched */
	noise = json_object_get(json_array_get(json_object_get(rep, "hosts"), 0), "noise");
	assert_int_equal(json_integer_value(json_object_get(noise, "run")), 4);
	assert_int_equal(json_array_size(json_object_get(noise, "metrics")), 4);
	assert_null(json_object_get(json_array_get(json_object_get(rep, "hosts"), 1), "noise"));
	assert_null(json_object_get(json_array_get(json_object_get(r, "hosts"), 0), "noise"));
	json_decref(rep);
	json_decref(r);
}

/* The netdev form: two programs in one variant, their per-repetition total. */
static void test_report_netdev_total(void **state)
{
	json_t *r = result_new(12, "ext-cnt", "done", 3, "[\"ext-cnt\"]", h1), *rep;
	const double in[] = { 35.9, 35.6, 35.5 }, eg[] = { 70.3, 73.5, 69.2 };
	const json_t *t, *rows;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		add(r, i + 1, "h1", "ext-cnt", i + 1, NULL, "prog.ns_per_run", "cnt_ingress",
		    in[i]);
		add(r, i + 1, "h1", "ext-cnt", i + 1, NULL, "prog.ns_per_run", "cnt_egress",
		    eg[i]);
	}
	rep = report_as(r,
		"run 12  ext-cnt  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog         results-1 results-2 results-3   total = mean ± spread\n"
		"ext-cnt  cnt_ingress       35.9      35.6      35.5          106.7 ± 2.2\n"
		"         cnt_egress        70.3      73.5      69.2\n");

	t = json_array_get(json_object_get(section(rep, 0, 0), "totals"), 0);
	assert_non_null(t);
	assert_string_equal(json_string_value(json_object_get(t, "variant")), "ext-cnt");
	assert_int_equal(json_integer_value(json_object_get(t, "programs")), 2);
	assert_near(value_at(t, 0), 106.2, 1e-9);
	assert_near(value_at(t, 1), 109.1, 1e-9);
	assert_near(value_at(t, 2), 104.7, 1e-9);
	assert_near(jget_num(t, "mean", 0), 320.0 / 3, 1e-9);
	assert_near(jget_num(t, "spread", 0), 2.2, 1e-9);
	assert_near(jget_num(t, "min", 0), 104.7, 1e-9);
	assert_near(jget_num(t, "max", 0), 109.1, 1e-9);

	/* each program keeps its own statistics */
	rows = json_object_get(section(rep, 0, 0), "rows");
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 1),
							      "subject")), "cnt_egress");
	assert_near(jget_num(json_array_get(rows, 1), "mean", 0), 213.0 / 3, 1e-9);
	assert_near(jget_num(json_array_get(rows, 1), "spread", 0), 2.15, 1e-9);
	json_decref(rep);
	json_decref(r);
}

/* Many variants, samples in reverse: rows come out in plan order, subjects as first
 * seen, each variant's total on its first row, the zero rows of a rate section left out
 * but a variant whose rows are all zero kept (the hashes and the one sort of
 * report_build.c and report_text.c, which replaced walks quadratic in variants). */
static void test_report_many_variants(void **state)
{
	enum { NV = 3000 };
	json_t *vars = json_array(), *r, *rep, *rows, *totals;
	char v[32], *text, *vj;
	const json_t *row;
	int i;

	(void)state;
	for (i = 0; i < NV; i++) {
		snprintf(v, sizeof(v), "v%d", i);
		json_array_append_new(vars, json_string(v));
	}
	vj = json_dumps(vars, JSON_COMPACT);
	r = result_new(1, "many", "done", 1, vj, h1);
	for (i = NV - 1; i >= 0; i--) {
		snprintf(v, sizeof(v), "v%d", i);
		add(r, i + 1, "h1", v, 1, NULL, "prog.ns_per_run", i % 2 ? "p2" : "p1", 10);
		add(r, i + 1, "h1", v, 1, NULL, "prog.ns_per_run", i % 2 ? "p1" : "p2", 20);
		/* even variants: port b zero (left out), c not; odd ones: both zero
		 * (kept: a variant never disappears from a table) */
		add(r, i + 1, "h1", v, 1, NULL, "port.rx_pps", "b", 0);
		add(r, i + 1, "h1", v, 1, NULL, "port.rx_pps", "c", i % 2 ? 0 : 1000);
	}
	rep = report_build(r);
	assert_non_null(rep);
	rows = json_object_get(section(rep, 0, 1), "rows");
	totals = json_object_get(section(rep, 0, 1), "totals");
	assert_string_equal(json_string_value(json_object_get(section(rep, 0, 1), "metric")),
			    "prog.ns_per_run");
	assert_int_equal(json_array_size(rows), 2 * NV);
	assert_int_equal(json_array_size(totals), NV);
	for (i = 0; i < NV; i++) {
		snprintf(v, sizeof(v), "v%d", i);
		row = json_array_get(rows, 2 * i);
		assert_string_equal(json_string_value(json_object_get(row, "variant")), v);
		/* the first sample filed (v2999's p2) made p2 the first subject */
		assert_string_equal(json_string_value(json_object_get(row, "subject")), "p2");
		assert_string_equal(json_string_value(json_object_get(json_array_get(totals, i),
								     "variant")), v);
		assert_near(value_at(json_array_get(totals, i), 0), 30, 1e-9);
	}
	text = report_text(rep);
	/* rate rows: v0's b left out, v1's both kept */
	assert_contains(text, "zero rows left out: v0 b, v2 b, v4 b");
	assert_contains(text, "\nv1       b             0      0\n");
	assert_contains(text, "\nv2999    p2         10.0           30.0\n");
	free(text);
	free(vj);
	json_decref(rep);
	json_decref(r);
	json_decref(vars);
}

/* A failed job leaves "-" cells; its repetition has no total; a variant without any
 * sample still gets a row; metrics come in the fixed order whatever the sample order;
 * rates pick K/M units and more decimals when a spread would round to zero. */
static void test_report_missing_and_order(void **state)
{
	json_t *r = result_new(4, "mix", "failed", 3, "[\"base\",\"cnt\",\"broken\"]", h1), *rep;
	const json_t *t;

	(void)state;
	add(r, 9, "h1", "cnt", 3, NULL, "prog.ns_per_run", "cnt_egress", 69.3);
	add(r, 9, "h1", "cnt", 3, NULL, "prog.ns_per_run", "cnt_ingress", 35.5);
	add(r, 7, "h1", "base", 3, NULL, "port.drop_pps", "b", 950);
	add(r, 7, "h1", "base", 3, NULL, "port.rx_pps", "b", 812400);
	add(r, 4, "h1", "base", 2, NULL, "port.rx_pps", "b", 815100);
	add(r, 1, "h1", "base", 1, NULL, "port.rx_pps", "b", 809700);
	add(r, 5, "h1", "cnt", 2, NULL, "prog.ns_per_run", "cnt_egress", 73.5);
	add(r, 2, "h1", "cnt", 1, NULL, "prog.ns_per_run", "cnt_egress", 70.3);
	add(r, 2, "h1", "cnt", 1, NULL, "prog.ns_per_run", "cnt_ingress", 35.9);
	/* job 5 lost cnt_ingress of rep 2: no total for rep 2 */
	add(r, 2, "h1", "cnt", 1, NULL, "port.rx_pps", "b", 7012345);
	add(r, 5, "h1", "cnt", 2, NULL, "port.rx_pps", "b", 7012000);
	rep = report_as(r,
		"run 4  mix  plan 1a2b3c4d5e6f  failed\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2 results-3      mean ± spread\n"
		"base     b        809.7k    815.1k    812.4k    812.4k ± 2.7k\n"
		"cnt      b       7.0123M   7.0120M         -   7.0122M ± 0.0002M\n"
		"broken   -             -         -         -         -\n"
		"\n"
		"port.drop_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2 results-3   mean ± spread\n"
		"base     b             -         -       950    950\n"
		"broken   -             -         -         -      -\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog         results-1 results-2 results-3   total = mean ± spread\n"
		"cnt      cnt_egress        70.3      73.5      69.3          105.5 ± 0.7\n"
		"         cnt_ingress       35.9         -      35.5\n"
		"broken   -                    -         -         -              -\n");

	t = json_array_get(json_object_get(section(rep, 0, 2), "totals"), 0);
	assert_int_equal(json_integer_value(json_object_get(t, "n")), 2);
	assert_near(value_at(t, 0), 106.2, 1e-9);
	assert_true(json_is_null(json_array_get(json_object_get(t, "values"), 1)));
	assert_near(value_at(t, 2), 104.8, 1e-9);
	assert_near(jget_num(t, "mean", 0), 105.5, 1e-9);
	assert_near(jget_num(t, "spread", 0), 0.7, 1e-9);
	/* the broken variant: a row of nulls and no numbers */
	t = json_array_get(json_object_get(section(rep, 0, 0), "rows"), 2);
	assert_string_equal(json_string_value(json_object_get(t, "variant")), "broken");
	assert_true(json_is_null(json_object_get(t, "subject")));
	assert_true(json_is_null(json_object_get(t, "mean")));
	assert_int_equal(json_integer_value(json_object_get(t, "n")), 0);
	json_decref(rep);
	json_decref(r);
}

/* Two hosts and a matrix: one block per host, one per point within it. */
static void test_report_hosts_and_points(void **state)
{
	json_t *r = result_new(7, "chain", "done", 2, "[\"tx-drop\"]",
			       "[{\"name\":\"h1\",\"kernel_release\":\"6.18.44\"},"
			       " {\"name\":\"h2\",\"kernel_release\":\"6.1.0-28-amd64\"}]"), *rep;
	const char *p64 = "{\"traffic.packet.size\":\"64\"}";
	const char *p1500 = "{\"traffic.packet.size\":\"1500\"}";
	const json_t *g;

	(void)state;
	add(r, 1, "h2", "tx-drop", 1, p64, "port.rx_pps", "a", 7.1e6);
	add(r, 1, "h1", "tx-drop", 1, p64, "gen.tx_pps", "a", 9.0e6);
	add(r, 2, "h2", "tx-drop", 1, p1500, "port.rx_pps", "a", 1.2e6);
	add(r, 2, "h1", "tx-drop", 1, p1500, "gen.tx_pps", "a", 1.25e6);
	add(r, 3, "h2", "tx-drop", 2, p64, "port.rx_pps", "a", 7.3e6);
	add(r, 3, "h1", "tx-drop", 2, p64, "gen.tx_pps", "a", 9.2e6);
	add(r, 4, "h2", "tx-drop", 2, p1500, "port.rx_pps", "a", 1.21e6);
	add(r, 4, "h1", "tx-drop", 2, p1500, "gen.tx_pps", "a", 1.25e6);
	rep = report_as(r,
		"run 7  chain  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"point traffic.packet.size=64\n"
		"\n"
		"gen.tx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2     mean ± spread\n"
		"tx-drop  a        9.000M    9.200M   9.100M ± 0.100M\n"
		"\n"
		"point traffic.packet.size=1500\n"
		"\n"
		"gen.tx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2     mean ± spread\n"
		"tx-drop  a        1.250M    1.250M   1.250M ± 0.000M\n"
		"\n"
		"host h2  kernel 6.1.0-28-amd64\n"
		"\n"
		"point traffic.packet.size=64\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2     mean ± spread\n"
		"tx-drop  a        7.100M    7.300M   7.200M ± 0.100M\n"
		"\n"
		"point traffic.packet.size=1500\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2     mean ± spread\n"
		"tx-drop  a        1.200M    1.210M   1.205M ± 0.005M\n");

	assert_int_equal(json_array_size(json_object_get(rep, "groups")), 4);
	g = json_array_get(json_object_get(rep, "groups"), 3);
	assert_string_equal(json_string_value(json_object_get(g, "host")), "h2");
	assert_string_equal(json_string_value(json_object_get(g, "kernel_release")),
			    "6.1.0-28-amd64");
	assert_string_equal(json_string_value(json_object_get(json_object_get(g, "point"),
							      "traffic.packet.size")), "1500");
	assert_near(jget_num(json_array_get(json_object_get(section(rep, 3, 0), "rows"), 0), "mean", 0),
		    1.205e6, 1e-6);
	json_decref(rep);
	json_decref(r);
}

/* How the tc programs were attached (the result's hosts[].tc_attach, from the jobs'
 * envs): a line per port under its host, several methods over the run's jobs joined
 * by '/'; none for a host without tc programs. The JSON report keeps the hosts as the
 * result gave them. */
static void test_report_tc_attach(void **state)
{
	json_t *r = result_new(9, "tc", "done", 1, "[\"cnt\"]",
			       "[{\"name\":\"g1\",\"kernel_release\":\"6.1.0-47\","
			       "  \"tc_attach\":{\"a\":{\"egress\":\"clsact\"},"
			       "  \"b\":{\"ingress\":\"clsact,tcx\",\"egress\":\"clsact\"}}},"
			       " {\"name\":\"g2\",\"kernel_release\":\"6.12.0\"}]"), *rep;
	const json_t *h;

	(void)state;
	add(r, 1, "g1", "cnt", 1, NULL, "prog.ns_per_run", "cnt_ingress", 35.0);
	add(r, 2, "g2", "cnt", 1, NULL, "prog.ns_per_run", "cnt_ingress", 30.0);
	rep = report_as(r,
		"run 9  tc  plan 1a2b3c4d5e6f  done\n"
		"host g1  kernel 6.1.0-47\n"
		"  port a: tc egress clsact\n"
		"  port b: tc ingress clsact/tcx, egress clsact\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog         results-1   total = mean ± spread\n"
		"cnt      cnt_ingress       35.0           35.0\n"
		"\n"
		"host g2  kernel 6.12.0\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog         results-1   total = mean ± spread\n"
		"cnt      cnt_ingress       30.0           30.0\n");
	h = json_array_get(json_object_get(rep, "hosts"), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(h, "tc_attach"), "b"), "ingress")), "clsact,tcx");
	assert_null(json_object_get(json_array_get(json_object_get(rep, "hosts"), 1),
				    "tc_attach"));
	json_decref(rep);
	json_decref(r);
}

/* When set, tc_result's port b had an XDP entry of mode auto that went this mode. */
static const char *xdp_auto_b;

/* When set, tc_result's ports have drivers (a veth, b virtio_net, and a port c the job
 * does not use, e1000e) and tc_run's job spec lists ports a and b and XDP entries. */
static bool with_drivers;

/* A job's result for store_ingest_result: one cost sample, and an env whose port b had
 * its tc hooks attached through TC_B (NULL: port b had only XDP). */
static json_t *tc_result(int64_t job, const char *tc_b)
{
	json_t *r = json_pack("{s:i, s:s, s:I, s:s, s:I, s:I, s:[{s:s, s:s, s:f, s:s, s:s}], "
			      "s:{s:{s:s, s:s}, s:[{s:s, s:s, s:{s:s, s:s}}, "
			      "{s:s, s:s, s:{s:s, s:s}}]}}",
			      "v", 1, "type", "result", "job", (json_int_t)job, "status", "ok",
			      "started_ms", (json_int_t)1000, "finished_ms", (json_int_t)2000,
			      "samples", "metric", "prog.ns_per_run", "subject", "cnt",
			      "value", 35.5, "unit", "ns", "window", "cost",
			      "env", "kernel", "release", "6.1.0-47", "version", "#1 SMP",
			      "ports", "role", "a", "xdp_mode", "none", "tc_attach",
			      "ingress", "none", "egress", "none",
			      "role", "b", "xdp_mode", tc_b ? "none" : "native", "tc_attach",
			      "ingress", tc_b ? tc_b : "none", "egress", tc_b ? tc_b : "none");

	assert_non_null(r);
	if (xdp_auto_b) {
		json_t *b = json_array_get(json_object_get(json_object_get(r, "env"), "ports"), 1);

		json_object_set_new(b, "xdp_mode", json_string(xdp_auto_b));
		json_object_set_new(b, "xdp_auto", json_true());
	}
	if (with_drivers) {
		json_t *ports = json_object_get(json_object_get(r, "env"), "ports");

		json_object_set_new(json_array_get(ports, 0), "driver", json_string("veth"));
		json_object_set_new(json_array_get(ports, 0), "xdp_mode", json_string("native"));
		json_object_set_new(json_array_get(ports, 1), "driver", json_string("virtio_net"));
		json_array_append_new(ports, json_pack("{s:s, s:s, s:s}", "role", "c", "driver",
						       "e1000e", "xdp_mode", "none"));
	}
	return r;
}

/* One job of variant VARIANT (0: "tc", 1: "xdp") on host H, run and reported with
 * tc_result(TC_B). Returns the run. */
static int64_t tc_run(struct store *st, int64_t h, int variant, const char *tc_b)
{
	static char *names[] = { "tc", "xdp" };
	static struct plan_variant vars[] = { { .name = "tc" }, { .name = "xdp" } };
	struct plan plan = { .file = "tc.yaml", .text = "name: tc\n", .text_len = 9,
			     .name = "tc", .repeat = 1, .variants = vars, .n_variants = 2 };
	struct plan_job job = { .variant = variant, .rep = 1 };
	struct store_job_new jn = { .host_id = h, .job = &job };
	struct store_ingest ing;
	int64_t run = 0, id, run_of;
	json_t *spec, *res;

	util_sha256_hex(plan.text, plan.text_len, plan.sha256);
	job.spec = json_pack("{s:s, s:s, s:i}", "plan", "tc", "variant", names[variant],
			     "rep", 1);
	static struct plan_object obj = { .name = "x.bpf.o", .data = "x", .len = 1 };
	struct plan_objects objs = { .objs = &obj, .n = 1 };

	util_sha256_hex(obj.data, obj.len, obj.sha256);
	if (with_drivers)
		json_object_update_new(job.spec, json_pack(
			"{s:[s, s], s:[{s:s, s:s, s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s, s:s, s:s}]}",
			"ports", "a", "b", "attach",
			"port", "b", "hook", "xdp", "mode", "auto", "program", "xdp_tx",
			"object", obj.name, "sha256", obj.sha256,
			"port", "a", "hook", "xdp", "mode", "native", "program", "xdp_drop",
			"object", obj.name, "sha256", obj.sha256));
	job.point_values = json_object();
	assert_int_equal(store_run_create(st, &plan, NULL, &objs, &jn, 1, 200, &run), 0);
	assert_int_equal(store_job_next(st, h, &id, &run_of, &spec), 0);
	assert_int_equal(run_of, run);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, id, 300), 0);
	assert_int_equal(store_job_accept(st, id, h, 310), 0);
	res = tc_result(id, tc_b);
	assert_int_equal(store_ingest_result(st, h, res, 400, &ing), 0);
	json_decref(res);
	json_decref(job.spec);
	json_decref(job.point_values);
	return run;
}

/* The same end to end from the store: result_show (store_query_result) reads each
 * job's env and names the hooks that were attached, per port; a run without tc
 * programs has no tc_attach and no line. */
static void test_report_tc_attach_from_store(void **state)
{
	json_t *inv = json_pack("{s:{s:s}}", "kernel", "release", "6.1.0-47"), *q, *rep, *h;
	struct store *st;
	struct err err;
	char *t;
	int64_t host, run;

	(void)state;
	st = store_open(":memory:", false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "g1", "0.1", inv, 100, &host, NULL), 0);

	run = tc_run(st, host, 0, "clsact");
	q = store_query_result(st, run);
	assert_non_null(q);
	h = json_array_get(json_object_get(q, "hosts"), 0);
	t = json_dumps(json_object_get(h, "tc_attach"), JSON_COMPACT | JSON_ENCODE_ANY);
	assert_text(t, "{\"b\":{\"ingress\":\"clsact\",\"egress\":\"clsact\"}}");
	free(t);
	rep = report_build(q);
	t = report_text(rep);
	assert_contains(t, "host g1  kernel 6.1.0-47\n  port b: tc ingress clsact, egress "
			   "clsact\n\n");
	free(t);
	json_decref(rep);
	json_decref(q);

	run = tc_run(st, host, 1, NULL);
	q = store_query_result(st, run);
	assert_non_null(q);
	assert_int_equal(json_array_size(json_object_get(q, "hosts")), 1);
	assert_null(json_object_get(json_array_get(json_object_get(q, "hosts"), 0),
				    "tc_attach"));
	rep = report_build(q);
	t = report_text(rep);
	assert_null(strstr(t, ": tc "));
	assert_contains(t, "host g1  kernel 6.1.0-47\n\n");
	free(t);
	json_decref(rep);
	json_decref(q);
	store_close(&st);
	json_decref(inv);
}

/* XDP entries of mode auto: result_show gives the mode each port got (hosts[].xdp_auto,
 * from the envs' xdp_auto ports), result show prints it under the host; entries not of
 * mode auto give nothing. */
static void test_report_xdp_auto_from_store(void **state)
{
	json_t *inv = json_pack("{s:{s:s}}", "kernel", "release", "6.1.0-47"), *q, *rep, *h;
	struct store *st;
	struct err err;
	char *t;
	int64_t host, run;

	(void)state;
	st = store_open(":memory:", false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "g1", "0.1", inv, 100, &host, NULL), 0);
	xdp_auto_b = "generic";
	run = tc_run(st, host, 1, NULL);
	xdp_auto_b = NULL;
	q = store_query_result(st, run);
	assert_non_null(q);
	h = json_array_get(json_object_get(q, "hosts"), 0);
	t = json_dumps(json_object_get(h, "xdp_auto"), JSON_COMPACT | JSON_ENCODE_ANY);
	assert_text(t, "{\"b\":\"generic\"}");
	free(t);
	rep = report_build(q);
	t = report_text(rep);
	assert_contains(t, "host g1  kernel 6.1.0-47\n  port b: xdp mode auto -> generic\n\n");
	free(t);
	json_decref(rep);
	json_decref(q);

	run = tc_run(st, host, 1, NULL);		/* mode native: nothing */
	q = store_query_result(st, run);
	assert_null(json_object_get(json_array_get(json_object_get(q, "hosts"), 0), "xdp_auto"));
	json_decref(q);
	store_close(&st);
	json_decref(inv);
}

/* result_show's hosts carry what the drivers form needs: port_driver, the drivers of
 * the ports the job's spec uses (not port c), as compare has it; per variant the XDP
 * entries in plan order with the mode the job's env says was used. */
static void test_report_drivers_from_store(void **state)
{
	json_t *inv = json_pack("{s:{s:s}}", "kernel", "release", "6.1.0-47"), *q, *rep, *f, *h;
	struct store *st;
	struct err err;
	char *t;
	int64_t host, run;

	(void)state;
	st = store_open(":memory:", false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "g1", "0.1", inv, 100, &host, NULL), 0);
	xdp_auto_b = "generic";
	with_drivers = true;
	run = tc_run(st, host, 1, NULL);
	xdp_auto_b = NULL;
	with_drivers = false;
	q = store_query_result(st, run);
	assert_non_null(q);
	h = json_array_get(json_object_get(q, "hosts"), 0);
	assert_string_equal(json_string_value(json_object_get(h, "port_driver")),
			    "veth,virtio_net");
	t = json_dumps(json_object_get(h, "xdp"), JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_text(t, "{\"xdp\":[{\"port\":\"b\",\"program\":\"xdp_tx\",\"mode\":\"generic\"},"
		       "{\"port\":\"a\",\"program\":\"xdp_drop\",\"mode\":\"native\"}]}");
	free(t);
	rep = report_build(q);
	f = report_form_build(rep, "drivers", NULL, "cnt", &err);
	assert_non_null(f);
	t = report_form_text(f);
	assert_text(t,
		"run 1  tc  plan 3ea22c4c7504  done\n"
		"\n"
		"prog.ns_per_run cnt  (ns per program run, bpf_stats on; mean of 1 repetition)\n"
		"driver           variant  6.1.0-47\n"
		"veth,virtio_net  tc              -\n"
		"                 xdp        35.5 g\n"
		"g generic: the XDP mode of the program (else the variant's first XDP program)\n");
	free(t);
	json_decref(f);
	json_decref(rep);
	json_decref(q);

	run = tc_run(st, host, 0, "clsact");	/* no XDP entry, no drivers: neither */
	q = store_query_result(st, run);
	h = json_array_get(json_object_get(q, "hosts"), 0);
	assert_null(json_object_get(h, "port_driver"));
	assert_null(json_object_get(h, "xdp"));
	json_decref(q);
	store_close(&st);
	json_decref(inv);
}

/* Halves round away from zero as by hand, although (35.9 - 35.6) / 2 is 0.14999... in
 * binary; a spread that would print as zero gets more decimals. */
static void test_report_rounding(void **state)
{
	json_t *r = result_new(8, "round", "done", 2, "[\"drop\",\"tx\"]", h1), *rep;

	(void)state;
	add(r, 1, "h1", "drop", 1, NULL, "prog.ns_per_run", "xdp_drop", 35.9);
	add(r, 2, "h1", "drop", 2, NULL, "prog.ns_per_run", "xdp_drop", 35.6);
	add(r, 3, "h1", "tx", 1, NULL, "prog.ns_per_run", "xdp_tx", 40.01);
	add(r, 4, "h1", "tx", 2, NULL, "prog.ns_per_run", "xdp_tx", 40.02);
	rep = report_as(r,
		"run 8  round  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog      results-1 results-2   total = mean ± spread\n"
		"drop     xdp_drop       35.9      35.6           35.8 ± 0.2\n"
		"tx       xdp_tx        40.01     40.02          40.02 ± 0.01\n");
	json_decref(rep);
	json_decref(r);
}

/* The text of REPORT printed with OPTS (NULL: the defaults). */
static char *text_with(const json_t *report, const struct report_text_opts *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_print_text_opts(report, opts, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The quickstart's rate tables: port a receives nothing in drop and pass (the generator's
 * own port; a few ARP or ICMP frames print as 0 beside millions), so those rows are left
 * out and named under the table; tx's a (the bounced frames) stays. A variant whose
 * every row is zero keeps them (nothing arrived: that must show), ns tables keep every
 * row, --all-rows and the JSON have them all. */
static void test_report_zero_rows(void **state)
{
	json_t *r = result_new(9, "quickstart", "done", 2, "[\"drop\",\"pass\",\"tx\",\"dead\"]",
			       h1), *rep;
	const double drop_a[] = { 0, 1 }, pass_a[] = { 0, 0 }, tx[] = { 7.01e6, 7.02e6 };
	REPORT_TEXT_OPTS(all, .all_rows = true);
	const json_t *rows;
	char *t;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		add(r, 4 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "a", drop_a[i]);
		add(r, 4 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", 19.9e6 + i * 1e4);
		add(r, 4 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "a", pass_a[i]);
		add(r, 4 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "b", 3.12e6 - i * 1e4);
		add(r, 4 * i + 3, "h1", "tx", i + 1, NULL, "port.rx_pps", "a", tx[i]);
		add(r, 4 * i + 3, "h1", "tx", i + 1, NULL, "port.rx_pps", "b", tx[i]);
		add(r, 4 * i + 4, "h1", "dead", i + 1, NULL, "port.rx_pps", "a", 0);
		add(r, 4 * i + 4, "h1", "dead", i + 1, NULL, "port.rx_pps", "b", 0);
		add(r, 4 * i + 4, "h1", "dead", i + 1, NULL, "prog.ns_per_run", "xdp_dead", 0);
	}
	rep = report_as(r,
		"run 9  quickstart  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2     mean ± spread\n"
		"drop     b        19.90M    19.91M   19.91M ± 0.01M\n"
		"pass     b         3.12M     3.11M    3.12M ± 0.01M\n"
		"tx       a         7.01M     7.02M    7.02M ± 0.01M\n"
		"         b         7.01M     7.02M    7.02M ± 0.01M\n"
		"dead     a             0         0        0 ± 0\n"
		"         b             0         0        0 ± 0\n"
		"zero rows left out: drop a, pass a (--all-rows shows them)\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog      results-1 results-2   total = mean ± spread\n"
		"dead     xdp_dead        0.0       0.0            0.0 ± 0.0\n");

	t = text_with(rep, &all);
	assert_contains(t, "drop     a             0         1        1 ± 1\n"
			   "         b        19.90M    19.91M   19.91M ± 0.01M\n"
			   "pass     a             0         0        0 ± 0\n");
	assert_null(strstr(t, "left out"));
	free(t);

	/* the JSON keeps every row: 4 variants x 2 ports */
	rows = json_object_get(section(rep, 0, 0), "rows");
	assert_int_equal(json_array_size(rows), 8);
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "subject")),
			    "a");

	/* NULL means the defaults; a too small sz is refused */
	t = text_with(rep, NULL);
	assert_contains(t, "zero rows left out: drop a, pass a");
	free(t);
	json_decref(rep);
	json_decref(r);
}

/* A driver counter record (nic.*, agent/ethstats.h) of job JOB; LISTED: the job's
 * metrics list it (the store's "listed"). */
static void add_nic(json_t *result, int job, const char *variant, int rep, const char *name,
		    const char *port, double value, const char *unit, bool listed)
{
	char metric[64];
	json_t *s;

	snprintf(metric, sizeof(metric), "nic.%s", name);
	s = json_pack("{s:i, s:s, s:s, s:i, s:o, s:s, s:s, s:f, s:s, s:s}", "job", job,
		      "host", "h1", "variant", variant, "rep", rep, "point", json_object(),
		      "metric", metric, "subject", port, "value", value, "unit", unit,
		      "window", "rate");
	assert_non_null(s);
	if (listed)
		json_object_set_new(s, "listed", json_true());
	assert_int_equal(json_array_append_new(json_object_get(result, "samples"), s), 0);
}

/* Driver counters: one table of their own after the per-metric ones, shown up to
 * REPORT_NIC_ROWS rows, above that left out with the records (--all-rows shows it); a
 * listed nic.NAME is a metric with its own table; --json has them all as sections. */
static void test_report_driver_counters(void **state)
{
	json_t *r = result_new(5, "quickstart", "done", 2, "[\"drop\",\"pass\"]", h1), *rep;
	REPORT_TEXT_OPTS(all, .all_rows = true);
	const json_t *g, *sec;
	char *t, name[32];
	size_t i;
	int k, listed = 0, nic = 0;

	(void)state;
	for (k = 0; k < 2; k++) {
		add(r, 2 * k + 1, "h1", "drop", k + 1, NULL, "port.rx_pps", "b", 5.1e6 + k * 1e5);
		add(r, 2 * k + 2, "h1", "pass", k + 1, NULL, "port.rx_pps", "b", 1.2e6);
		add_nic(r, 2 * k + 1, "drop", k + 1, "rx_queue_0_xdp_packets", "b", 5.1e6 + k * 1e5,
			"pps", false);
		add_nic(r, 2 * k + 1, "drop", k + 1, "rx_queue_0_xdp_bytes", "b",
			64 * (5.1e6 + k * 1e5), "Bps", false);
		add_nic(r, 2 * k + 1, "drop", k + 1, "tx_queue_0_xdp_xmit", "a", 5.1e6 + k * 1e5,
			"pps", false);
		add_nic(r, 2 * k + 2, "pass", k + 1, "rx_queue_0_xdp_packets", "b", 1.2e6, "pps",
			false);
		add_nic(r, 2 * k + 2, "pass", k + 1, "kicks", "b", 17 + k, "/s", false);
	}
	rep = report_as(r,
		"run 5  quickstart  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2     mean ± spread\n"
		"drop     b        5.100M    5.200M   5.150M ± 0.050M\n"
		"pass     b        1.200M    1.200M   1.200M ± 0.000M\n"
		"\n"
		"driver counters  (ethtool -S per second over the rate window; records, not compared)\n"
		"variant  port  counter                 unit  results-1  results-2             mean\n"
		"drop     a     tx_queue_0_xdp_xmit     pps      5.100M     5.200M  5.150M ± 0.050M\n"
		"         b     rx_queue_0_xdp_bytes    Bps      326.4M     332.8M    329.6M ± 3.2M\n"
		"         b     rx_queue_0_xdp_packets  pps      5.100M     5.200M  5.150M ± 0.050M\n"
		"pass     b     kicks                   /s           17         18           18 ± 1\n"
		"         b     rx_queue_0_xdp_packets  pps      1.200M     1.200M  1.200M ± 0.000M\n");
	/* --json: the counters are sections like any other */
	g = json_array_get(json_object_get(rep, "groups"), 0);
	json_array_foreach(json_object_get(g, "sections"), i, sec)
		nic += !strncmp(json_string_value(json_object_get(sec, "metric")), "nic.", 4);
	assert_int_equal(nic, 4);
	json_decref(rep);

	/* more rows than a handful: left out with the records, --all-rows shows them */
	for (k = 0; k < 8; k++) {
		snprintf(name, sizeof(name), "rxq%d_xdp_drops", k);
		add_nic(r, 1, "drop", 1, name, "b", 1000 + k, "pps", false);
	}
	/* a listed one: a metric, its own table */
	add_nic(r, 1, "drop", 1, "rx_queue_0_xdp_drops", "b", 5.1e6, "pps", true);
	add_nic(r, 3, "drop", 2, "rx_queue_0_xdp_drops", "b", 5.2e6, "pps", true);
	rep = report_build(r);
	assert_non_null(rep);
	t = text_with(rep, NULL);
	assert_null(strstr(t, "driver counters  ("));
	assert_contains(t, "1 record table left out (cpu.others, rx.cpu, medians, warm-up, search, "
			"driver\n  counters; --all-rows shows them)\n");
	assert_contains(t, "nic.rx_queue_0_xdp_drops  (packets/s, bpf_stats off)\n"
			   "variant  port  results-1 results-2     mean ± spread\n"
			   "drop     b        5.100M    5.200M   5.150M ± 0.050M\n");
	free(t);
	t = text_with(rep, &all);
	assert_contains(t, "driver counters  (");
	assert_contains(t, "         b     rxq7_xdp_drops          pps        1007          -             1007\n");
	assert_null(strstr(t, "record table"));
	free(t);
	g = json_array_get(json_object_get(rep, "groups"), 0);
	json_array_foreach(json_object_get(g, "sections"), i, sec)
		listed += json_is_true(json_object_get(sec, "listed"));
	assert_int_equal(listed, 1);
	json_decref(rep);
	json_decref(r);
}

static void test_report_empty(void **state)
{
	json_t *r = result_new(5, "quickstart", "queued", 3, "[\"drop\"]", h1), *rep;
	json_t *scalar = json_integer(1);

	(void)state;
	rep = report_as(r, "run 5  quickstart  plan 1a2b3c4d5e6f  queued\nno samples\n");
	assert_int_equal(json_array_size(json_object_get(rep, "groups")), 0);
	errno = 0;
	assert_null(report_build(scalar));
	assert_int_equal(errno, EINVAL);
	json_decref(scalar);
	json_decref(rep);
	json_decref(r);
}

static void test_report_csv(void **state)
{
	json_t *r = result_new(3, "quickstart", "done", 1, "[\"drop\"]", h1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	add(r, 1, "h1", "drop", 1, NULL, "port.rx_pps", "b", 19860000);
	add(r, 1, "h1", "drop", 1, "{\"traffic.packet.size\":\"64\",\"traffic.packet.flows\":4}",
	    "prog.ns_per_run", "odd,\"name\"", 35.9);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report_print_csv(r, f), 0);
	fclose(f);
	assert_text(buf,
		"run,job,host,variant,rep,point,metric,subject,window,value,unit\n"
		"3,1,h1,drop,1,,port.rx_pps,b,rate,19860000,pps\n"
		"3,1,h1,drop,1,traffic.packet.size=64 traffic.packet.flows=4,prog.ns_per_run,"
		"\"odd,\"\"name\"\"\",cost,35.9,ns\n");
	free(buf);
	json_decref(r);
}

/* Mark the last sample added with the job's VERDICTS (JSON text) and DETAILS. */
static void set_verdicts(json_t *result, const char *verdicts, const char *details)
{
	json_t *samples = json_object_get(result, "samples");
	json_t *s = json_array_get(samples, json_array_size(samples) - 1);

	assert_int_equal(json_object_set_new(s, "verdicts", json_loads(verdicts, 0, NULL)), 0);
	if (details)
		assert_int_equal(json_object_set_new(s, "verdict_details",
						     json_loads(details, 0, NULL)), 0);
}

/* Verdicts show as markers beside the cells of their job, explained under the table;
 * the JSON row carries them per repetition; a result without verdicts has none. */
static void test_report_verdicts(void **state)
{
	json_t *r = result_new(5, "quickstart", "done", 3, "[\"drop\",\"pass\"]", h1), *rep;
	const double drop[] = { 19.86e6, 19.91e6, 20.03e6 }, pass[] = { 3.12e6, 3.10e6, 3.15e6 };
	const json_t *rows, *v;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", drop[i]);
		if (i == 1)
			set_verdicts(r, "[\"unstable\", \"generator-bound\"]",
				     "{\"unstable\": \"rx_pps varied 12% (bound 5%)\"}");
		add(r, 2 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "b", pass[i]);
		if (i == 2)
			set_verdicts(r, "[\"errors\"]", NULL);
	}
	rep = report_as(r,
		"run 5  quickstart  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2 results-3     mean ± spread\n"
		"drop     b        19.86M 19.91M^*1    20.03M   19.93M ± 0.09M\n"
		"pass     b         3.12M     3.10M    3.15M!    3.12M ± 0.03M\n"
		"*1 unstable: rx_pps varied 12% (bound 5%)\n"
		"^ generator-bound: the receiver got all the generator sent with CPU to spare: the rate is the generator's\n"
		"! errors: XDP redirect errors or exceptions were seen\n");
	rows = json_object_get(section(rep, 0, 0), "rows");
	v = json_object_get(json_array_get(rows, 0), "verdicts");
	assert_int_equal(json_array_size(v), 3);
	assert_true(json_is_null(json_array_get(v, 0)));
	assert_string_equal(json_string_value(json_array_get(json_array_get(v, 1), 0)), "unstable");
	assert_string_equal(json_string_value(json_object_get(json_object_get(rep,
		"verdict_details"), "unstable")), "rx_pps varied 12% (bound 5%)");
	json_decref(rep);
	json_decref(r);

	/* no verdicts: no key, no legend */
	r = result_new(6, "q", "done", 1, "[\"drop\"]", h1);
	add(r, 1, "h1", "drop", 1, NULL, "port.rx_pps", "b", 1e6);
	rep = report_build(r);
	assert_null(json_object_get(json_array_get(json_object_get(section(rep, 0, 0), "rows"), 0),
				    "verdicts"));
	assert_null(json_object_get(rep, "verdict_details"));
	json_decref(rep);
	json_decref(r);
}

/* Each marked cell points at its own job's detail: two jobs unstable by different amounts
 * get a note each, a detail shared by two cells one note, and a cell marked without a
 * detail the verdict's meaning (issue 25: one job's detail was given for every cell). */
static void test_report_verdict_notes(void **state)
{
	json_t *r = result_new(7, "quickstart", "done", 3, "[\"drop\",\"pass\"]", h1), *rep;
	const double drop[] = { 10.24e6, 11.73e6, 14.06e6 }, pass[] = { 3.69e6, 3.77e6, 2.46e6 };
	const json_t *d;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", drop[i]);
		if (i == 0)
			set_verdicts(r, "[\"unstable\"]",
				     "{\"unstable\": \"port.rx_pps of 'b' varied 32.8 % (bound 5 %)\"}");
		if (i == 2)
			set_verdicts(r, "[\"unstable\"]",
				     "{\"unstable\": \"port.rx_pps of 'b' varied 6.5 % (bound 5 %)\"}");
		add(r, 2 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "b", pass[i]);
		if (i == 1)
			set_verdicts(r, "[\"unstable\"]",
				     "{\"unstable\": \"port.rx_pps of 'b' varied 6.5 % (bound 5 %)\"}");
		if (i == 2)
			set_verdicts(r, "[\"unstable\", \"errors\"]", NULL);
	}
	rep = report_as(r,
		"run 7  quickstart  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2 results-3     mean ± spread\n"
		"drop     b      10.24M*1    11.73M  14.06M*2   12.01M ± 1.91M\n"
		"pass     b         3.69M   3.77M*2   2.46M*!    3.31M ± 0.66M\n"
		"*1 unstable: port.rx_pps of 'b' varied 32.8 % (bound 5 %)\n"
		"*2 unstable: port.rx_pps of 'b' varied 6.5 % (bound 5 %)\n"
		"* unstable: the per-second rates varied beyond the bound\n"
		"! errors: XDP redirect errors or exceptions were seen\n");
	/* the JSON row: the job's details per repetition */
	d = json_object_get(json_array_get(json_object_get(section(rep, 0, 0), "rows"), 0),
			    "details");
	assert_int_equal(json_array_size(d), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 0), "unstable")),
			    "port.rx_pps of 'b' varied 32.8 % (bound 5 %)");
	assert_true(json_is_null(json_array_get(d, 1)));
	json_decref(rep);
	json_decref(r);
}

/* A run of more repetitions than a table has room for: n, min, median and max stand for
 * them (the markers of every repetition on n), so the table fits 100 columns; --wide
 * gives a column each. */
static void test_report_summary_columns(void **state)
{
	json_t *r = result_new(8, "quickstart", "done", 7, "[\"drop\"]", h1), *rep;
	const double v[] = { 16.36e6, 16.46e6, 12.55e6, 15.54e6, 14.32e6, 11.10e6, 15.64e6 };
	char *text, *line, *save = NULL;
	FILE *f;
	size_t len;
	int i;

	(void)state;
	for (i = 0; i < 7; i++) {
		add(r, i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", v[i]);
		if (i == 2)
			set_verdicts(r, "[\"unstable\"]",
				     "{\"unstable\": \"port.rx_pps of 'b' varied 9.0 % (bound 5 %)\"}");
	}
	rep = report_as(r,
		"run 8  quickstart  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off; 7 repetitions, --wide shows each)\n"
		"variant  port    n     min  median     max     mean ± spread\n"
		"drop     b     7*1  11.10M  15.54M  16.46M   14.57M ± 2.68M\n"
		"*1 unstable: port.rx_pps of 'b' varied 9.0 % (bound 5 %)\n");
	/* --wide: a column per repetition, wider than 100 */
	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	{
		REPORT_TEXT_OPTS(o, .wide = true);

		assert_int_equal(report_print_text_opts(rep, &o, f), 0);
	}
	fclose(f);
	assert_non_null(strstr(text, "variant  port  results-1 results-2 results-3 results-4 "
			       "results-5 results-6 results-7     mean ± spread\n"));
	assert_non_null(strstr(text, " 12.55M*1 "));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		assert_true(strlen(line) < 120);
	free(text);
	json_decref(rep);
	json_decref(r);
}

/* A name longer than 24 columns is elided with a key under the table, once however
 * many rows carry it; --wide prints it whole. */
static void test_report_long_names(void **state)
{
	json_t *r = result_new(9, "redirect", "done", 1,
			       "[\"native-2nd.xdp_prog_with_a_long_name\"]", h1), *rep;
	char *text = NULL;
	size_t len;
	FILE *f;

	(void)state;
	add(r, 1, "h1", "native-2nd.xdp_prog_with_a_long_name", 1, NULL, "prog.ns_per_run",
	    "xdp_redirect_map_multi_prog", 35.9);
	rep = report_as(r,
		"run 9  redirect  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant                   prog                      results-1   total = mean ± spread\n"
		"native-2nd.xdp_prog_wi~1  xdp_redirect_map_multi~2       35.9           35.9\n"
		"~1 native-2nd.xdp_prog_with_a_long_name\n"
		"~2 xdp_redirect_map_multi_prog\n");
	f = open_memstream(&text, &len);
	assert_non_null(f);
	{
		REPORT_TEXT_OPTS(o, .wide = true);

		assert_int_equal(report_print_text_opts(rep, &o, f), 0);
	}
	fclose(f);
	assert_non_null(strstr(text, "\nnative-2nd.xdp_prog_with_a_long_name  "
			       "xdp_redirect_map_multi_prog       35.9"));
	assert_null(strstr(text, "~1"));
	free(text);
	json_decref(rep);
	json_decref(r);
}

/* FORM of RESULT's report, after checking that its text is exactly WANT. */
static json_t *form_as(const json_t *result, const char *form, const char *metric,
		       const char *subject, const char *want)
{
	json_t *rep = report_build(result), *f;
	struct err err;
	char *text;

	assert_non_null(rep);
	f = report_form_build(rep, form, metric, subject, &err);
	if (!f)
		fprintf(stderr, "form: %s\n", err.msg);
	assert_non_null(f);
	text = report_form_text(f);
	assert_non_null(text);
	assert_text(text, want);
	free(text);
	json_decref(rep);
	return f;
}

/* The netdev redirect table: a row per host, a column per variant titled from its
 * name, rates as 9.1M, the mean over repetitions; a marker for a verdict. */
static void test_report_grid(void **state)
{
	json_t *r = result_new(7, "xdp-redirect-map", "done", 2,
			       "[\"generic\",\"native\",\"native-2nd.xdp_prog\"]",
			       "[{\"name\":\"h1\",\"kernel_release\":\"6.18.44\"},"
			       "{\"name\":\"h2\",\"kernel_release\":\"5.10.0-rc6\"}]"), *f;
	const char *v[] = { "generic", "native", "native-2nd.xdp_prog" };
	const double h1v[3][2] = { { 2.01e6, 1.99e6 }, { 9.08e6, 9.12e6 }, { 8.0e6, 8.02e6 } };
	const json_t *cell;
	struct err err;
	int i, k, job = 1;

	(void)state;
	for (k = 0; k < 2; k++)
		for (i = 0; i < 3; i++) {
			add(r, job++, "h1", v[i], k + 1, NULL, "counter.pps", "delivered", h1v[i][k]);
			add(r, job, "h1", v[i], k + 1, NULL, "counter.pps", "redirected", 1e7);
			add(r, job++, "h2", v[i], k + 1, NULL, "counter.pps", "delivered",
			    h1v[i][k] / 2);
			if (i == 1 && k == 0)
				set_verdicts(r, "[\"generator-bound\"]", NULL);
		}
	f = form_as(r, "grid", NULL, "delivered",
		"run 7  xdp-redirect-map  plan 1a2b3c4d5e6f  done\n"
		"\n"
		"counter.pps delivered  (packets/s, bpf_stats off; mean of 2 repetitions)\n"
		"Version    | Test                   | Generic | Native | Native + 2nd xdp_prog\n"
		"6.18.44    | xdp-redirect-map on h1 | 2.0M    | 9.1M   | 8.0M\n"
		"5.10.0-rc6 | xdp-redirect-map on h2 | 1.0M    | 4.6M^  | 4.0M\n"
		"^ generator-bound: the receiver got all the generator sent with CPU to spare: the rate is the generator's\n");
	cell = json_array_get(json_object_get(json_array_get(json_object_get(f, "rows"), 0),
					      "cells"), 1);
	assert_near(jget_num(cell, "mean", 0), 9.1e6, 1e-6);
	assert_near(value_at(cell, 1), 9.12e6, 0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(f, "columns"), 2), "title")), "Native + 2nd xdp_prog");
	json_decref(f);

	/* two subjects and none chosen: refused, naming them */
	{
		json_t *rep = report_build(r);

		assert_null(report_form_build(rep, "grid", NULL, NULL, &err));
		assert_int_equal(errno, EINVAL);
		assert_string_equal(err.msg, "form 'grid' needs --subject for 'counter.pps' (one of: delivered, redirected)");
		assert_null(report_form_build(rep, "grid", NULL, "nope", &err));
		assert_string_equal(err.msg, "the run has no 'counter.pps' samples of subject 'nope'");
		assert_null(report_form_build(rep, "pie", NULL, NULL, &err));
		assert_string_equal(err.msg, "unknown form 'pie' (expected table, grid, columns, cpumap or drivers)");
		json_decref(rep);
	}
	json_decref(r);
}

/* The chain table: a row per variant, the rate at the end of the chain. */
static void test_report_columns(void **state)
{
	json_t *r = result_new(8, "veth-chains", "done", 3,
			       "[\"tx-drop\",\"tx-pass\",\"redirect-drop\"]", h1), *f;
	const double e[3][3] = { { 6.51e6, 6.49e6, 6.55e6 }, { 1.21e6, 1.25e6, 1.22e6 },
				 { 7.9e6, 8.1e6, 8.0e6 } };
	const char *v[] = { "tx-drop", "tx-pass", "redirect-drop" };
	int i, k;

	(void)state;
	for (k = 0; k < 3; k++)
		for (i = 0; i < 3; i++)
			add(r, 3 * k + i + 1, "h1", v[i], k + 1, NULL, "counter.pps", "end", e[i][k]);
	f = form_as(r, "columns", NULL, NULL,
		"run 8  veth-chains  plan 1a2b3c4d5e6f  done\n"
		"\n"
		"counter.pps  (packets/s, bpf_stats off; mean of 3 repetitions)\n"
		"\n"
		"host h1  kernel 6.18.44\n"
		"variant                    end\n"
		"tx-drop        6.517M ± 0.030M\n"
		"tx-pass        1.227M ± 0.020M\n"
		"redirect-drop  8.000M ± 0.100M\n");
	json_decref(f);
	json_decref(r);
}

/* The cpumap table: dropped = rx_src - redirect_err - rx_dst per repetition. */
static void test_report_cpumap(void **state)
{
	json_t *r = result_new(9, "cpumap-redirect", "done", 2, "[\"drop\",\"pass\"]", h1), *f;
	const json_t *cell;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		add(r, 2 * k + 1, "h1", "drop", k + 1, NULL, "counter.pps", "rx_src", 5.0e6 + k * 1e5);
		add(r, 2 * k + 1, "h1", "drop", k + 1, NULL, "counter.pps", "redirect_err", 0);
		add(r, 2 * k + 1, "h1", "drop", k + 1, NULL, "counter.pps", "rx_dst", 3.0e6);
		add(r, 2 * k + 2, "h1", "pass", k + 1, NULL, "counter.pps", "rx_src", 4.0e6);
		add(r, 2 * k + 2, "h1", "pass", k + 1, NULL, "counter.pps", "redirect_err", 1e5);
		add(r, 2 * k + 2, "h1", "pass", k + 1, NULL, "counter.pps", "rx_dst", 1.0e6 + k * 2e5);
	}
	f = form_as(r, "cpumap", NULL, NULL,
		"run 9  cpumap-redirect  plan 1a2b3c4d5e6f  done\n"
		"\n"
		"counter.pps  (packets/s, bpf_stats off; mean of 2 repetitions)\n"
		"\n"
		"host h1  kernel 6.18.44\n"
		"variant  rx on source CPU          dropped  rx on destination CPU\n"
		"drop      5.050M ± 0.050M  2.050M ± 0.050M        3.000M ± 0.000M\n"
		"pass      4.000M ± 0.000M  2.800M ± 0.100M        1.100M ± 0.100M\n");
	cell = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(f, "groups"), 0), "rows"), 1), "cells"), 1);
	assert_near(value_at(cell, 0), 2.9e6, 1e-6);
	assert_near(value_at(cell, 1), 2.7e6, 1e-6);
	json_decref(f);
	json_decref(r);
}

/* One whole-window sample of METRIC for SUBJECT in UNIT and WINDOW, without a matrix. */
static void add_unit(json_t *result, int job, const char *host, const char *variant, int rep,
		     const char *metric, const char *subject, double value, const char *unit,
		     const char *window)
{
	json_t *s = json_pack("{s:i, s:s, s:s, s:i, s:o, s:s, s:s, s:f, s:s, s:s}",
			      "job", job, "host", host, "variant", variant, "rep", rep,
			      "point", json_object(), "metric", metric, "subject", subject,
			      "value", value, "unit", unit, "window", window);

	assert_non_null(s);
	assert_int_equal(json_array_append_new(json_object_get(result, "samples"), s), 0);
}

/* The hosts of the drivers tests: a guest per (kernel, NIC model), as result_show lists
 * them: the drivers of the ports the plan uses and per variant the XDP entries with the
 * mode used (vmxnet3: generic on 6.1, native on 6.12). */
static const char *drivers_hosts =
	"[{\"name\":\"g1\",\"kernel_release\":\"6.1.0-47\",\"port_driver\":\"virtio_net\","
	"\"xdp\":{\"drop\":[{\"port\":\"b\",\"program\":\"xdp_drop\",\"mode\":\"native\"}],"
	"\"pass\":[{\"port\":\"b\",\"program\":\"xdp_pass\",\"mode\":\"native\"}]}},"
	"{\"name\":\"g2\",\"kernel_release\":\"6.12.48\",\"port_driver\":\"virtio_net\","
	"\"xdp\":{\"drop\":[{\"port\":\"b\",\"program\":\"xdp_drop\",\"mode\":\"native\"}],"
	"\"pass\":[{\"port\":\"b\",\"program\":\"xdp_pass\",\"mode\":\"native\"}]}},"
	"{\"name\":\"g3\",\"kernel_release\":\"6.1.0-47\",\"port_driver\":\"vmxnet3\","
	"\"xdp\":{\"drop\":[{\"port\":\"b\",\"program\":\"xdp_drop\",\"mode\":\"generic\"}],"
	"\"pass\":[{\"port\":\"b\",\"program\":\"xdp_pass\",\"mode\":\"generic\"}]}},"
	"{\"name\":\"g4\",\"kernel_release\":\"6.12.48\",\"port_driver\":\"vmxnet3\","
	"\"xdp\":{\"drop\":[{\"port\":\"b\",\"program\":\"xdp_drop\",\"mode\":\"native\"}],"
	"\"pass\":[{\"port\":\"b\",\"program\":\"xdp_pass\",\"mode\":\"native\"}]}}]";

/* The samples of the drivers tests: per host, variant and repetition rx.ns_per_frame of
 * b and prog.ns_per_run under icount (guest instructions), and port.rx_pps of b (and of
 * a in pass: a subject only some variants have). */
static json_t *drivers_result(void)
{
	static const char *const hosts[] = { "g1", "g2", "g3", "g4" };
	static const char *const variants[] = { "drop", "pass" };
	static const char *const progs[] = { "xdp_drop", "xdp_pass" };
	/* [host][variant]: rx.ns_per_frame per frame, the program's share */
	static const double rx[4][2] = { { 1520, 2980 }, { 1490, 2960 }, { 2210, 3900 },
					 { 1750, 3010 } };
	json_t *r = result_new(12, "nic-compare", "done", 3, "[\"drop\",\"pass\"]", drivers_hosts);
	int h, v, k, job = 1;

	for (k = 0; k < 3; k++)
		for (h = 0; h < 4; h++)
			for (v = 0; v < 2; v++, job++) {
				/* vmxnet3 pass on 6.12 is the one cell that varies */
				double x = rx[h][v] + (h == 3 && v == 1 ? 5 * k : 0);

				add_unit(r, job, hosts[h], variants[v], k + 1, "rx.ns_per_frame", "b",
					 x, "insns", "rate");
				if (h == 2 && v == 1 && k == 1)
					set_verdicts(r, "[\"unstable\"]", "{\"unstable\": \"rx.ns_per_frame of 'b' varied 8 %\"}");
				add_unit(r, job, hosts[h], variants[v], k + 1, "prog.ns_per_run",
					 progs[v], 40 + 10 * v + h, "insns", "cost");
				add_unit(r, job, hosts[h], variants[v], k + 1, "port.rx_pps", "b",
					 1e4, "pkt/Ginsn", "rate");
				if (v == 1)
					add_unit(r, job, hosts[h], variants[v], k + 1, "port.rx_pps",
						 "a", 0, "pkt/Ginsn", "rate");
			}
	return r;
}

/* The table a driver developer posts: a row per driver and variant, a column per kernel,
 * rx.ns_per_frame of b by default, the XDP mode used marked; the JSON has every cell. */
static void test_report_drivers(void **state)
{
	json_t *r = drivers_result(), *f;
	const json_t *row, *cell;
	char *t;

	(void)state;
	f = form_as(r, "drivers", NULL, NULL,
		"run 12  nic-compare  plan 1a2b3c4d5e6f  done\n"
		"\n"
		"rx.ns_per_frame b  (guest instructions per frame, icount; mean of 3 repetitions, ± spread)\n"
		"driver      variant      6.1.0-47     6.12.48\n"
		"virtio_net  drop       1520 ± 0 n  1490 ± 0 n\n"
		"            pass       2980 ± 0 n  2960 ± 0 n\n"
		"vmxnet3     drop       2210 ± 0 g  1750 ± 0 n\n"
		"            pass     3900 ± 0*1 g  3015 ± 5 n\n"
		"*1 unstable: rx.ns_per_frame of 'b' varied 8 %\n"
		"n native, g generic: the XDP mode used on port b\n");
	/* the JSON: the form's head as grid's, then every cell with its kernel, host, mode */
	row = json_array_get(json_object_get(f, "rows"), 3);
	t = json_dumps(row, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	assert_text(t, "{\"driver\":\"vmxnet3\",\"point\":null,\"variant\":\"pass\","
		"\"subject\":\"b\",\"cells\":[{\"values\":[3900.0,3900.0,3900.0],"
		"\"verdicts\":[null,[\"unstable\"],null],\"details\":[null,{\"unstable\":"
		"\"rx.ns_per_frame of 'b' varied 8 %\"},null],\"n\":3,\"mean\":3900.0,"
		"\"spread\":0.0,\"min\":3900.0,\"max\":3900.0,\"median\":3900.0,"
		"\"stddev\":0.0,\"kernel\":\"6.1.0-47\",\"host\":\"g3\",\"mode\":\"generic\"},"
		"{\"values\":[3010.0,3015.0,3020.0],\"n\":3,\"mean\":3015.0,\"spread\":5.0,"
		"\"min\":3010.0,\"max\":3020.0,\"median\":3015.0,\"stddev\":5.0,"
		"\"kernel\":\"6.12.48\",\"host\":\"g4\",\"mode\":\"native\"}]}");
	free(t);
	json_object_del(f, "rows");
	t = json_dumps(f, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_text(t, "{\"form\":\"drivers\",\"run\":12,\"plan\":\"nic-compare\","
		"\"plan_sha256\":\"1a2b3c4d5e6f77889900aabbccddeeff00112233445566778899aabbccddeeff\","
		"\"state\":\"done\",\"repeat\":3,\"metric\":\"rx.ns_per_frame\",\"subject\":\"b\","
		"\"unit\":\"insns\",\"window\":\"rate\",\"columns\":[{\"title\":\"6.1.0-47\","
		"\"kernel\":\"6.1.0-47\"},{\"title\":\"6.12.48\",\"kernel\":\"6.12.48\"}],"
		"\"verdict_details\":{\"unstable\":\"rx.ns_per_frame of 'b' varied 8 %\"}}");
	free(t);
	json_decref(f);

	/* prog.ns_per_run, whose subjects are programs: each variant's first XDP program,
	 * the mode of its entry; bpf_stats on */
	f = form_as(r, "drivers", "prog.ns_per_run", NULL,
		"run 12  nic-compare  plan 1a2b3c4d5e6f  done\n"
		"\n"
		"prog.ns_per_run  (guest instructions per run, icount, bpf_stats on; mean of 3 repetitions, ± spread)\n"
		"driver      variant      6.1.0-47       6.12.48\n"
		"virtio_net  drop     40.0 ± 0.0 n  41.0 ± 0.0 n\n"
		"            pass     50.0 ± 0.0 n  51.0 ± 0.0 n\n"
		"vmxnet3     drop     42.0 ± 0.0 g  43.0 ± 0.0 n\n"
		"            pass     52.0 ± 0.0 g  53.0 ± 0.0 n\n"
		"programs: drop xdp_drop, pass xdp_pass\n"
		"n native, g generic: the XDP mode of the program (else the variant's first XDP program)\n");
	assert_true(json_is_null(json_object_get(f, "subject")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(f, "rows"), 1), "subject")), "xdp_pass");
	json_decref(f);

	/* a port metric with a subject only some variants have: the one all have */
	f = form_as(r, "drivers", "port.rx_pps", NULL,
		"run 12  nic-compare  plan 1a2b3c4d5e6f  done\n"
		"\n"
		"port.rx_pps b  (packets per 10^9 guest instructions, icount; mean of 3 repetitions, ± spread)\n"
		"driver      variant          6.1.0-47           6.12.48\n"
		"virtio_net  drop     10.00k ± 0.00k n  10.00k ± 0.00k n\n"
		"            pass     10.00k ± 0.00k n  10.00k ± 0.00k n\n"
		"vmxnet3     drop     10.00k ± 0.00k g  10.00k ± 0.00k n\n"
		"            pass     10.00k ± 0.00k g  10.00k ± 0.00k n\n"
		"n native, g generic: the XDP mode used on port b\n");
	json_decref(f);
	/* port a: no XDP program there, no mode */
	f = form_as(r, "drivers", "port.rx_pps", "a",
		"run 12  nic-compare  plan 1a2b3c4d5e6f  done\n"
		"\n"
		"port.rx_pps a  (packets per 10^9 guest instructions, icount; mean of 3 repetitions, ± spread)\n"
		"driver      variant  6.1.0-47  6.12.48\n"
		"virtio_net  drop            -        -\n"
		"            pass        0 ± 0    0 ± 0\n"
		"vmxnet3     drop            -        -\n"
		"            pass        0 ± 0    0 ± 0\n");
	json_decref(f);
	json_decref(r);

	/* without rx.ns_per_frame: prog.ns_per_run; a host of a driver and kernel already
	 * there is left out and named; a driver missing on a kernel has '-' */
	r = result_new(13, "nic-compare", "done", 1, "[\"drop\"]",
		       "[{\"name\":\"g1\",\"kernel_release\":\"6.1.0-47\",\"port_driver\":\"e1000e\"},"
		       "{\"name\":\"g2\",\"kernel_release\":\"6.1.0-47\",\"port_driver\":\"e1000e\"},"
		       "{\"name\":\"g3\",\"kernel_release\":\"6.12.48\",\"port_driver\":\"virtio_net\"}]");
	add(r, 1, "g1", "drop", 1, NULL, "prog.ns_per_run", "xdp_drop", 35.5);
	add(r, 2, "g2", "drop", 1, NULL, "prog.ns_per_run", "xdp_drop", 36.5);
	add(r, 3, "g3", "drop", 1, NULL, "prog.ns_per_run", "xdp_drop", 30.25);
	f = form_as(r, "drivers", NULL, NULL,
		"run 13  nic-compare  plan 1a2b3c4d5e6f  done\n"
		"\n"
		"prog.ns_per_run xdp_drop  (ns per program run, bpf_stats on; mean of 1 repetition)\n"
		"driver      variant  6.1.0-47  6.12.48\n"
		"e1000e      drop         35.5        -\n"
		"virtio_net  drop            -     30.3\n"
		"host g2 left out: driver e1000e and kernel 6.1.0-47 as host g1\n");
	cell = json_array_get(json_object_get(json_array_get(json_object_get(f, "rows"), 1),
					      "cells"), 0);
	assert_true(json_is_null(json_object_get(cell, "mean")));
	assert_true(json_is_null(json_object_get(cell, "host")));
	assert_true(json_is_null(json_object_get(cell, "mode")));
	json_decref(f);

	/* no samples of the metric: refused */
	{
		json_t *rep = report_build(r);
		struct err err;

		assert_null(report_form_build(rep, "drivers", "rx.ns_per_frame", NULL, &err));
		assert_int_equal(errno, EINVAL);
		assert_string_equal(err.msg, "no metric 'rx.ns_per_frame' (its metrics: prog.ns_per_run)");
		json_decref(rep);
	}
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_quickstart),
		cmocka_unit_test(test_report_noise_floor),
		cmocka_unit_test(test_report_netdev_total),
		cmocka_unit_test(test_report_missing_and_order),
		cmocka_unit_test(test_report_many_variants),
		cmocka_unit_test(test_report_hosts_and_points),
		cmocka_unit_test(test_report_tc_attach),
		cmocka_unit_test(test_report_xdp_auto_from_store),
		cmocka_unit_test(test_report_tc_attach_from_store),
		cmocka_unit_test(test_report_rounding),
		cmocka_unit_test(test_report_zero_rows),
		cmocka_unit_test(test_report_driver_counters),
		cmocka_unit_test(test_report_empty),
		cmocka_unit_test(test_report_csv),
		cmocka_unit_test(test_report_verdicts),
		cmocka_unit_test(test_report_verdict_notes),
		cmocka_unit_test(test_report_summary_columns),
		cmocka_unit_test(test_report_long_names),
		cmocka_unit_test(test_report_grid),
		cmocka_unit_test(test_report_columns),
		cmocka_unit_test(test_report_cpumap),
		cmocka_unit_test(test_report_drivers),
		cmocka_unit_test(test_report_drivers_from_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
