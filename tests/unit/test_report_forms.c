// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_report_forms.c - the report's other forms (report_form_build, report_form_text):
 * the grid of a netdev redirect run, the columns of a chain, the cpumap table, and the
 * drivers form (a row per driver, a column per kernel) with its XDP mode notes, each
 * checked as exact text and by its numbers. The fixture: report_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jget.h"
#include "base/util.h"
#include "report/report.h"
#include "helpers.h"
#include "report_fixture.h"

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
	json_t *r = report_fix_result(7, "xdp-redirect-map", "done", 2,
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
			report_fix_add(r, job++, "h1", v[i], k + 1, NULL, "counter.pps", "delivered", h1v[i][k]);
			report_fix_add(r, job, "h1", v[i], k + 1, NULL, "counter.pps", "redirected", 1e7);
			report_fix_add(r, job++, "h2", v[i], k + 1, NULL, "counter.pps", "delivered",
				       h1v[i][k] / 2);
			if (i == 1 && k == 0)
				report_fix_verdicts(r, "[\"generator-bound\"]", NULL);
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
	assert_near(report_fix_value(cell, 1), 9.12e6, 0);
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
	json_t *r = report_fix_result(8, "veth-chains", "done", 3,
				      "[\"tx-drop\",\"tx-pass\",\"redirect-drop\"]", report_fix_h1), *f;
	const double e[3][3] = { { 6.51e6, 6.49e6, 6.55e6 }, { 1.21e6, 1.25e6, 1.22e6 },
				 { 7.9e6, 8.1e6, 8.0e6 } };
	const char *v[] = { "tx-drop", "tx-pass", "redirect-drop" };
	int i, k;

	(void)state;
	for (k = 0; k < 3; k++)
		for (i = 0; i < 3; i++)
			report_fix_add(r, 3 * k + i + 1, "h1", v[i], k + 1, NULL, "counter.pps", "end", e[i][k]);
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
	json_t *r = report_fix_result(9, "cpumap-redirect", "done", 2, "[\"drop\",\"pass\"]",
				      report_fix_h1), *f;
	const json_t *cell;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		report_fix_add(r, 2 * k + 1, "h1", "drop", k + 1, NULL, "counter.pps", "rx_src", 5.0e6 + k * 1e5);
		report_fix_add(r, 2 * k + 1, "h1", "drop", k + 1, NULL, "counter.pps", "redirect_err", 0);
		report_fix_add(r, 2 * k + 1, "h1", "drop", k + 1, NULL, "counter.pps", "rx_dst", 3.0e6);
		report_fix_add(r, 2 * k + 2, "h1", "pass", k + 1, NULL, "counter.pps", "rx_src", 4.0e6);
		report_fix_add(r, 2 * k + 2, "h1", "pass", k + 1, NULL, "counter.pps", "redirect_err", 1e5);
		report_fix_add(r, 2 * k + 2, "h1", "pass", k + 1, NULL, "counter.pps", "rx_dst", 1.0e6 + k * 2e5);
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
	assert_near(report_fix_value(cell, 0), 2.9e6, 1e-6);
	assert_near(report_fix_value(cell, 1), 2.7e6, 1e-6);
	json_decref(f);
	json_decref(r);
}

/* The cpumap table when one variant was measured more often (a disturbed repetition run
 * again): the other's cells hold null for the repetitions it lacks, its dropped too, and
 * the title says how many each mean has at least and at most. */
static void test_report_cpumap_uneven(void **state)
{
	json_t *r = report_fix_result(9, "cpumap-redirect", "done", 2, "[\"drop\",\"pass\"]",
				      report_fix_h1), *f;
	const json_t *rows, *pass, *drop;
	int k;

	(void)state;
	for (k = 0; k < 3; k++) {
		report_fix_add(r, 2 * k + 1, "h1", "drop", k + 1, NULL, "counter.pps", "rx_src", 5.0e6);
		report_fix_add(r, 2 * k + 1, "h1", "drop", k + 1, NULL, "counter.pps", "rx_dst", 3.0e6);
		if (k == 2)
			break;
		report_fix_add(r, 2 * k + 2, "h1", "pass", k + 1, NULL, "counter.pps", "rx_src", 4.0e6);
		report_fix_add(r, 2 * k + 2, "h1", "pass", k + 1, NULL, "counter.pps", "rx_dst", 1.0e6);
	}
	f = form_as(r, "cpumap", NULL, NULL,
		"run 9  cpumap-redirect  plan 1a2b3c4d5e6f  done\n"
		"\n"
		"counter.pps  (packets/s, bpf_stats off; mean of 2 to 3 repetitions)\n"
		"\n"
		"host h1  kernel 6.18.44\n"
		"variant  rx on source CPU          dropped  rx on destination CPU\n"
		"drop      5.000M ± 0.000M  2.000M ± 0.000M        3.000M ± 0.000M\n"
		"pass      4.000M ± 0.000M  3.000M ± 0.000M        1.000M ± 0.000M\n");
	rows = json_object_get(json_array_get(json_object_get(f, "groups"), 0), "rows");
	drop = json_object_get(json_array_get(rows, 0), "cells");
	pass = json_object_get(json_array_get(rows, 1), "cells");
	assert_int_equal(json_array_size(json_object_get(json_array_get(drop, 1), "values")), 3);
	assert_near(report_fix_value(json_array_get(drop, 1), 2), 2.0e6, 1e-6);
	for (k = 0; k < 3; k++)
		assert_true(json_is_null(json_array_get(json_object_get(json_array_get(pass, k),
							"values"), 2)));
	assert_near(report_fix_value(json_array_get(pass, 1), 1), 3.0e6, 1e-6);
	assert_int_equal(json_integer_value(json_object_get(f, "repeat")), 3);
	assert_int_equal(json_integer_value(json_object_get(f, "repeat_min")), 2);
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
	json_t *r = report_fix_result(12, "nic-compare", "done", 3, "[\"drop\",\"pass\"]", drivers_hosts);
	int h, v, k, job = 1;

	for (k = 0; k < 3; k++)
		for (h = 0; h < 4; h++)
			for (v = 0; v < 2; v++, job++) {
				/* vmxnet3 pass on 6.12 is the one cell that varies */
				double x = rx[h][v] + (h == 3 && v == 1 ? 5 * k : 0);

				add_unit(r, job, hosts[h], variants[v], k + 1, "rx.ns_per_frame", "b",
					 x, "insns", "rate");
				if (h == 2 && v == 1 && k == 1)
					report_fix_verdicts(r, "[\"unstable\"]", "{\"unstable\": \"rx.ns_per_frame of 'b' varied 8 %\"}");
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
	r = report_fix_result(13, "nic-compare", "done", 1, "[\"drop\"]",
			      "[{\"name\":\"g1\",\"kernel_release\":\"6.1.0-47\",\"port_driver\":\"e1000e\"},"
			      "{\"name\":\"g2\",\"kernel_release\":\"6.1.0-47\",\"port_driver\":\"e1000e\"},"
			      "{\"name\":\"g3\",\"kernel_release\":\"6.12.48\",\"port_driver\":\"virtio_net\"}]");
	report_fix_add(r, 1, "g1", "drop", 1, NULL, "prog.ns_per_run", "xdp_drop", 35.5);
	report_fix_add(r, 2, "g2", "drop", 1, NULL, "prog.ns_per_run", "xdp_drop", 36.5);
	report_fix_add(r, 3, "g3", "drop", 1, NULL, "prog.ns_per_run", "xdp_drop", 30.25);
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
		cmocka_unit_test(test_report_grid),
		cmocka_unit_test(test_report_columns),
		cmocka_unit_test(test_report_cpumap),
		cmocka_unit_test(test_report_cpumap_uneven),
		cmocka_unit_test(test_report_drivers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
