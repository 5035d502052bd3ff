// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_report_verdicts.c - a job's verdicts in the report (lib/report): markers beside
 * the cells of their job, explained under the table with their details, the JSON rows
 * carrying them per repetition, and the summary columns a table gets when it has many
 * repetitions. The fixture: report_fixture.h.
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
#include "report/report.h"
#include "helpers.h"
#include "report_fixture.h"

/* Verdicts show as markers beside the cells of their job, explained under the table;
 * the JSON row carries them per repetition; a result without verdicts has none. */
static void test_report_verdicts(void **state)
{
	json_t *r = report_fix_result(5, "quickstart", "done", 3, "[\"drop\",\"pass\"]",
				      report_fix_h1), *rep;
	const double drop[] = { 19.86e6, 19.91e6, 20.03e6 }, pass[] = { 3.12e6, 3.10e6, 3.15e6 };
	const json_t *rows, *v;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		report_fix_add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", drop[i]);
		if (i == 1)
			report_fix_verdicts(r, "[\"unstable\", \"generator-bound\"]",
					    "{\"unstable\": \"rx_pps varied 12% (bound 5%)\"}");
		report_fix_add(r, 2 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "b", pass[i]);
		if (i == 2)
			report_fix_verdicts(r, "[\"errors\"]", NULL);
	}
	rep = report_fix_as(r,
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
	rows = json_object_get(report_fix_section(rep, 0, 0), "rows");
	v = json_object_get(json_array_get(rows, 0), "verdicts");
	assert_int_equal(json_array_size(v), 3);
	assert_true(json_is_null(json_array_get(v, 0)));
	assert_string_equal(json_string_value(json_array_get(json_array_get(v, 1), 0)), "unstable");
	assert_string_equal(json_string_value(json_object_get(json_object_get(rep,
		"verdict_details"), "unstable")), "rx_pps varied 12% (bound 5%)");
	json_decref(rep);
	json_decref(r);

	/* no verdicts: no key, no legend */
	r = report_fix_result(6, "q", "done", 1, "[\"drop\"]", report_fix_h1);
	report_fix_add(r, 1, "h1", "drop", 1, NULL, "port.rx_pps", "b", 1e6);
	rep = report_build(r);
	assert_null(json_object_get(json_array_get(json_object_get(report_fix_section(rep, 0, 0),
								   "rows"), 0), "verdicts"));
	assert_null(json_object_get(rep, "verdict_details"));
	json_decref(rep);
	json_decref(r);
}

/* Each marked cell points at its own job's detail: two jobs unstable by different amounts
 * get a note each, a detail shared by two cells one note, and a cell marked without a
 * detail the verdict's meaning (issue 25: one job's detail was given for every cell). */
static void test_report_verdict_notes(void **state)
{
	json_t *r = report_fix_result(7, "quickstart", "done", 3, "[\"drop\",\"pass\"]",
				      report_fix_h1), *rep;
	const double drop[] = { 10.24e6, 11.73e6, 14.06e6 }, pass[] = { 3.69e6, 3.77e6, 2.46e6 };
	const json_t *d;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		report_fix_add(r, 2 * i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", drop[i]);
		if (i == 0)
			report_fix_verdicts(r, "[\"unstable\"]",
					    "{\"unstable\": \"port.rx_pps of 'b' varied 32.8 % (bound 5 %)\"}");
		if (i == 2)
			report_fix_verdicts(r, "[\"unstable\"]",
					    "{\"unstable\": \"port.rx_pps of 'b' varied 6.5 % (bound 5 %)\"}");
		report_fix_add(r, 2 * i + 2, "h1", "pass", i + 1, NULL, "port.rx_pps", "b", pass[i]);
		if (i == 1)
			report_fix_verdicts(r, "[\"unstable\"]",
					    "{\"unstable\": \"port.rx_pps of 'b' varied 6.5 % (bound 5 %)\"}");
		if (i == 2)
			report_fix_verdicts(r, "[\"unstable\", \"errors\"]", NULL);
	}
	rep = report_fix_as(r,
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
	d = json_object_get(json_array_get(json_object_get(report_fix_section(rep, 0, 0), "rows"), 0),
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
	json_t *r = report_fix_result(8, "quickstart", "done", 7, "[\"drop\"]", report_fix_h1), *rep;
	const double v[] = { 16.36e6, 16.46e6, 12.55e6, 15.54e6, 14.32e6, 11.10e6, 15.64e6 };
	char *text, *line, *save = NULL;
	FILE *f;
	size_t len;
	int i;

	(void)state;
	for (i = 0; i < 7; i++) {
		report_fix_add(r, i + 1, "h1", "drop", i + 1, NULL, "port.rx_pps", "b", v[i]);
		if (i == 2)
			report_fix_verdicts(r, "[\"unstable\"]",
					    "{\"unstable\": \"port.rx_pps of 'b' varied 9.0 % (bound 5 %)\"}");
	}
	rep = report_fix_as(r,
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_verdicts),
		cmocka_unit_test(test_report_verdict_notes),
		cmocka_unit_test(test_report_summary_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
