// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_report.c - lib/report/report_*.c: fixed result objects (docs/protocol.md "result") in, the
 * exact text and the JSON report numbers out: the tables of each metric, noise floors,
 * totals, many variants, missing samples, hosts and matrix points, rounding, zero rows,
 * driver counters, an empty run, CSV and long names. The fixture, shared with
 * test_report_attach.c, test_report_verdicts.c and test_report_forms.c: report_fixture.h.
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
#include "report/report.h"
#include "base/util.h"
#include "helpers.h"
#include "report_fixture.h"

/* The quickstart table of the CLI brief, samples in the order jobs finish. */
static void test_report_quickstart(void **state)
{
	json_t *r = report_fix_result(3, "quickstart", "done", 3, "[\"drop\",\"pass\"]",
				      report_fix_h1), *rep;
	const double drop[] = { 19.86e6, 19.91e6, 20.03e6 }, pass[] = { 3.12e6, 3.10e6, 3.15e6 };
	const double ns[] = { 35.9, 35.6, 35.5 };
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		report_fix_add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "prog.ns_per_run", "xdp_drop", ns[i]);
		report_fix_add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", drop[i]);
		report_fix_add(r, 2 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "b", pass[i]);
	}
	rep = report_fix_as(r,
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
		const json_t *rows = json_object_get(report_fix_section(rep, 0, 0), "rows");
		const json_t *d = json_array_get(rows, 0), *p = json_array_get(rows, 1);

		assert_string_equal(json_string_value(json_object_get(report_fix_section(rep, 0, 0),
								      "metric")), "port.rx_pps");
		assert_string_equal(json_string_value(json_object_get(d, "variant")), "drop");
		assert_near(report_fix_value(d, 0), 19.86e6, 0);
		assert_near(report_fix_value(d, 2), 20.03e6, 0);
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
	json_t *r = report_fix_result(3, "quickstart", "done", 3, "[\"drop\",\"pass\"]",
				      "[{\"name\":\"h1\",\"kernel_release\":\"6.18.44\"},"
				      "{\"name\":\"h2\",\"kernel_release\":\"6.18.44\"}]"), *rep;
	const double drop[] = { 19.86e6, 19.91e6, 20.03e6 }, pass[] = { 3.12e6, 3.10e6, 3.15e6 };
	const double ns[] = { 35.9, 35.6, 35.5 };
	const json_t *noise;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		report_fix_add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "prog.ns_per_run", "xdp_drop", ns[i]);
		report_fix_add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", drop[i]);
		report_fix_add(r, 2 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "b", pass[i]);
		report_fix_add(r, 2 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "a", pass[i]);
		report_fix_add(r, 2 * i + 7, "h2", "drop", i + 1, NULL, "port.rx_pps", "b", drop[i]);
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
	rep = report_fix_as(r,
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
	json_t *r = report_fix_result(12, "ext-cnt", "done", 3, "[\"ext-cnt\"]", report_fix_h1), *rep;
	const double in[] = { 35.9, 35.6, 35.5 }, eg[] = { 70.3, 73.5, 69.2 };
	const json_t *t, *rows;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		report_fix_add(r, i + 1, "h1", "ext-cnt", i + 1, NULL, "prog.ns_per_run", "cnt_ingress",
			       in[i]);
		report_fix_add(r, i + 1, "h1", "ext-cnt", i + 1, NULL, "prog.ns_per_run", "cnt_egress",
			       eg[i]);
	}
	rep = report_fix_as(r,
		"run 12  ext-cnt  plan 1a2b3c4d5e6f  done\n"
		"host h1  kernel 6.18.44\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog         results-1 results-2 results-3   total = mean ± spread\n"
		"ext-cnt  cnt_ingress       35.9      35.6      35.5          106.7 ± 2.2\n"
		"         cnt_egress        70.3      73.5      69.2\n");

	t = json_array_get(json_object_get(report_fix_section(rep, 0, 0), "totals"), 0);
	assert_non_null(t);
	assert_string_equal(json_string_value(json_object_get(t, "variant")), "ext-cnt");
	assert_int_equal(json_integer_value(json_object_get(t, "programs")), 2);
	assert_near(report_fix_value(t, 0), 106.2, 1e-9);
	assert_near(report_fix_value(t, 1), 109.1, 1e-9);
	assert_near(report_fix_value(t, 2), 104.7, 1e-9);
	assert_near(jget_num(t, "mean", 0), 320.0 / 3, 1e-9);
	assert_near(jget_num(t, "spread", 0), 2.2, 1e-9);
	assert_near(jget_num(t, "min", 0), 104.7, 1e-9);
	assert_near(jget_num(t, "max", 0), 109.1, 1e-9);

	/* each program keeps its own statistics */
	rows = json_object_get(report_fix_section(rep, 0, 0), "rows");
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
	r = report_fix_result(1, "many", "done", 1, vj, report_fix_h1);
	for (i = NV - 1; i >= 0; i--) {
		snprintf(v, sizeof(v), "v%d", i);
		report_fix_add(r, i + 1, "h1", v, 1, NULL, "prog.ns_per_run", i % 2 ? "p2" : "p1", 10);
		report_fix_add(r, i + 1, "h1", v, 1, NULL, "prog.ns_per_run", i % 2 ? "p1" : "p2", 20);
		/* even variants: port b zero (left out), c not; odd ones: both zero
		 * (kept: a variant never disappears from a table) */
		report_fix_add(r, i + 1, "h1", v, 1, NULL, "port.rx_pps", "b", 0);
		report_fix_add(r, i + 1, "h1", v, 1, NULL, "port.rx_pps", "c", i % 2 ? 0 : 1000);
	}
	rep = report_build(r);
	assert_non_null(rep);
	rows = json_object_get(report_fix_section(rep, 0, 1), "rows");
	totals = json_object_get(report_fix_section(rep, 0, 1), "totals");
	assert_string_equal(json_string_value(json_object_get(report_fix_section(rep, 0, 1), "metric")),
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
		assert_near(report_fix_value(json_array_get(totals, i), 0), 30, 1e-9);
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
	json_t *r = report_fix_result(4, "mix", "failed", 3, "[\"base\",\"cnt\",\"broken\"]",
				      report_fix_h1), *rep;
	const json_t *t;

	(void)state;
	report_fix_add(r, 9, "h1", "cnt", 3, NULL, "prog.ns_per_run", "cnt_egress", 69.3);
	report_fix_add(r, 9, "h1", "cnt", 3, NULL, "prog.ns_per_run", "cnt_ingress", 35.5);
	report_fix_add(r, 7, "h1", "base", 3, NULL, "port.drop_pps", "b", 950);
	report_fix_add(r, 7, "h1", "base", 3, NULL, "port.rx_pps", "b", 812400);
	report_fix_add(r, 4, "h1", "base", 2, NULL, "port.rx_pps", "b", 815100);
	report_fix_add(r, 1, "h1", "base", 1, NULL, "port.rx_pps", "b", 809700);
	report_fix_add(r, 5, "h1", "cnt", 2, NULL, "prog.ns_per_run", "cnt_egress", 73.5);
	report_fix_add(r, 2, "h1", "cnt", 1, NULL, "prog.ns_per_run", "cnt_egress", 70.3);
	report_fix_add(r, 2, "h1", "cnt", 1, NULL, "prog.ns_per_run", "cnt_ingress", 35.9);
	/* job 5 lost cnt_ingress of rep 2: no total for rep 2 */
	report_fix_add(r, 2, "h1", "cnt", 1, NULL, "port.rx_pps", "b", 7012345);
	report_fix_add(r, 5, "h1", "cnt", 2, NULL, "port.rx_pps", "b", 7012000);
	rep = report_fix_as(r,
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

	t = json_array_get(json_object_get(report_fix_section(rep, 0, 2), "totals"), 0);
	assert_int_equal(json_integer_value(json_object_get(t, "n")), 2);
	assert_near(report_fix_value(t, 0), 106.2, 1e-9);
	assert_true(json_is_null(json_array_get(json_object_get(t, "values"), 1)));
	assert_near(report_fix_value(t, 2), 104.8, 1e-9);
	assert_near(jget_num(t, "mean", 0), 105.5, 1e-9);
	assert_near(jget_num(t, "spread", 0), 0.7, 1e-9);
	/* the broken variant: a row of nulls and no numbers */
	t = json_array_get(json_object_get(report_fix_section(rep, 0, 0), "rows"), 2);
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
	json_t *r = report_fix_result(7, "chain", "done", 2, "[\"tx-drop\"]",
				      "[{\"name\":\"h1\",\"kernel_release\":\"6.18.44\"},"
				      " {\"name\":\"h2\",\"kernel_release\":\"6.1.0-28-amd64\"}]"), *rep;
	const char *p64 = "{\"traffic.packet.size\":\"64\"}";
	const char *p1500 = "{\"traffic.packet.size\":\"1500\"}";
	const json_t *g;

	(void)state;
	report_fix_add(r, 1, "h2", "tx-drop", 1, p64, "port.rx_pps", "a", 7.1e6);
	report_fix_add(r, 1, "h1", "tx-drop", 1, p64, "gen.tx_pps", "a", 9.0e6);
	report_fix_add(r, 2, "h2", "tx-drop", 1, p1500, "port.rx_pps", "a", 1.2e6);
	report_fix_add(r, 2, "h1", "tx-drop", 1, p1500, "gen.tx_pps", "a", 1.25e6);
	report_fix_add(r, 3, "h2", "tx-drop", 2, p64, "port.rx_pps", "a", 7.3e6);
	report_fix_add(r, 3, "h1", "tx-drop", 2, p64, "gen.tx_pps", "a", 9.2e6);
	report_fix_add(r, 4, "h2", "tx-drop", 2, p1500, "port.rx_pps", "a", 1.21e6);
	report_fix_add(r, 4, "h1", "tx-drop", 2, p1500, "gen.tx_pps", "a", 1.25e6);
	rep = report_fix_as(r,
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
	assert_near(jget_num(json_array_get(json_object_get(report_fix_section(rep, 3, 0),
							    "rows"), 0), "mean", 0),
		    1.205e6, 1e-6);
	json_decref(rep);
	json_decref(r);
}

/* Halves round away from zero as by hand, although (35.9 - 35.6) / 2 is 0.14999... in
 * binary; a spread that would print as zero gets more decimals. */
static void test_report_rounding(void **state)
{
	json_t *r = report_fix_result(8, "round", "done", 2, "[\"drop\",\"tx\"]", report_fix_h1), *rep;

	(void)state;
	report_fix_add(r, 1, "h1", "drop", 1, NULL, "prog.ns_per_run", "xdp_drop", 35.9);
	report_fix_add(r, 2, "h1", "drop", 2, NULL, "prog.ns_per_run", "xdp_drop", 35.6);
	report_fix_add(r, 3, "h1", "tx", 1, NULL, "prog.ns_per_run", "xdp_tx", 40.01);
	report_fix_add(r, 4, "h1", "tx", 2, NULL, "prog.ns_per_run", "xdp_tx", 40.02);
	rep = report_fix_as(r,
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
	json_t *r = report_fix_result(9, "quickstart", "done", 2, "[\"drop\",\"pass\",\"tx\",\"dead\"]",
				      report_fix_h1), *rep;
	const double drop_a[] = { 0, 1 }, pass_a[] = { 0, 0 }, tx[] = { 7.01e6, 7.02e6 };
	REPORT_TEXT_OPTS(all, .all_rows = true);
	const json_t *rows;
	char *t;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		report_fix_add(r, 4 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "a", drop_a[i]);
		report_fix_add(r, 4 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", 19.9e6 + i * 1e4);
		report_fix_add(r, 4 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "a", pass_a[i]);
		report_fix_add(r, 4 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "b", 3.12e6 - i * 1e4);
		report_fix_add(r, 4 * i + 3, "h1", "tx", i + 1, NULL, "port.rx_pps", "a", tx[i]);
		report_fix_add(r, 4 * i + 3, "h1", "tx", i + 1, NULL, "port.rx_pps", "b", tx[i]);
		report_fix_add(r, 4 * i + 4, "h1", "dead", i + 1, NULL, "port.rx_pps", "a", 0);
		report_fix_add(r, 4 * i + 4, "h1", "dead", i + 1, NULL, "port.rx_pps", "b", 0);
		report_fix_add(r, 4 * i + 4, "h1", "dead", i + 1, NULL, "prog.ns_per_run", "xdp_dead", 0);
	}
	rep = report_fix_as(r,
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
	rows = json_object_get(report_fix_section(rep, 0, 0), "rows");
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
	json_t *r = report_fix_result(5, "quickstart", "done", 2, "[\"drop\",\"pass\"]",
				      report_fix_h1), *rep;
	REPORT_TEXT_OPTS(all, .all_rows = true);
	const json_t *g, *sec;
	char *t, name[32];
	size_t i;
	int k, listed = 0, nic = 0;

	(void)state;
	for (k = 0; k < 2; k++) {
		report_fix_add(r, 2 * k + 1, "h1", "drop", k + 1, NULL, "port.rx_pps", "b", 5.1e6 + k * 1e5);
		report_fix_add(r, 2 * k + 2, "h1", "pass", k + 1, NULL, "port.rx_pps", "b", 1.2e6);
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
	rep = report_fix_as(r,
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
	json_t *r = report_fix_result(5, "quickstart", "queued", 3, "[\"drop\"]", report_fix_h1), *rep;
	json_t *scalar = json_integer(1);

	(void)state;
	rep = report_fix_as(r, "run 5  quickstart  plan 1a2b3c4d5e6f  queued\nno samples\n");
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
	json_t *r = report_fix_result(3, "quickstart", "done", 1, "[\"drop\"]", report_fix_h1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	report_fix_add(r, 1, "h1", "drop", 1, NULL, "port.rx_pps", "b", 19860000);
	report_fix_add(r, 1, "h1", "drop", 1,
		       "{\"traffic.packet.size\":\"64\",\"traffic.packet.flows\":4}",
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

/* A name longer than 24 columns is elided with a key under the table, once however
 * many rows carry it; --wide prints it whole. */
static void test_report_long_names(void **state)
{
	json_t *r = report_fix_result(9, "redirect", "done", 1,
				      "[\"native-2nd.xdp_prog_with_a_long_name\"]", report_fix_h1), *rep;
	char *text = NULL;
	size_t len;
	FILE *f;

	(void)state;
	report_fix_add(r, 1, "h1", "native-2nd.xdp_prog_with_a_long_name", 1, NULL, "prog.ns_per_run",
		       "xdp_redirect_map_multi_prog", 35.9);
	rep = report_fix_as(r,
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_quickstart),
		cmocka_unit_test(test_report_noise_floor),
		cmocka_unit_test(test_report_netdev_total),
		cmocka_unit_test(test_report_missing_and_order),
		cmocka_unit_test(test_report_many_variants),
		cmocka_unit_test(test_report_hosts_and_points),
		cmocka_unit_test(test_report_rounding),
		cmocka_unit_test(test_report_zero_rows),
		cmocka_unit_test(test_report_driver_counters),
		cmocka_unit_test(test_report_empty),
		cmocka_unit_test(test_report_csv),
		cmocka_unit_test(test_report_long_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
