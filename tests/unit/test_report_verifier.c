// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_report_verifier.c - lib/report/report_verifier.c: veristat's DIFF ("+703
 * (+70.51%)": 1700 against 997), the report of a run over two kernels built from value
 * rows and jobs (means, a program one kernel refused as MISMATCH with its error, a
 * program unknown on one kernel as N/A, repetitions that differ), and its table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "report/report_verifier.h"

static void test_diff(void **state)
{
	char out[64];

	(void)state;
	assert_string_equal(report_verifier_diff(997, 1700, out, sizeof(out)), "+703 (+70.51%)");
	assert_string_equal(report_verifier_diff(200, 150, out, sizeof(out)), "-50 (-25.00%)");
	assert_string_equal(report_verifier_diff(12, 12, out, sizeof(out)), "+0 (+0.00%)");
	assert_string_equal(report_verifier_diff(0, 5, out, sizeof(out)), "+5 (n/a)");
	assert_string_equal(report_verifier_diff(2, 2.5, out, sizeof(out)), "+0.5 (+25.00%)");
	assert_string_equal(report_verifier_diff(NAN, 5, out, sizeof(out)), "-");
}

#define ROW(job, host, kr, variant, subject, metric, value) \
	"{\"job\":" #job ",\"host\":\"" host "\",\"kernel_release\":\"" kr "\",\"group\":\"" \
	kr "\",\"variant\":\"" variant "\",\"subject\":\"" subject "\",\"metric\":\"" metric \
	"\",\"value\":" #value "}"

/* Kernel 6.1 (jobs 1, 2: two repetitions, and 5) and 6.12 (jobs 3, 4, and 6 that could
 * not load xdp_bad): drop's xdp_drop grows from 997 to 1700 insns, its states from 10 to
 * 13; pass's xdp_pass has one figure varying on 6.12; bad's xdp_bad loads on 6.1 only;
 * two's xdp_two is only measured on 6.1 (the other kernel's job failed otherwise). */
static const char values[] = "["
	ROW(1, "h1", "6.1.0", "drop", "xdp_drop", "verifier.insns", 997) ","
	ROW(1, "h1", "6.1.0", "drop", "xdp_drop", "verifier.total_states", 10) ","
	ROW(1, "h1", "6.1.0", "drop", "xdp_drop", "prog.jited_bytes", 120) ","
	ROW(1, "h1", "6.1.0", "drop", "xdp_drop", "port.rx_pps", 5e6) ","
	ROW(2, "h1", "6.1.0", "drop", "xdp_drop", "verifier.insns", 997) ","
	ROW(2, "h1", "6.1.0", "drop", "xdp_drop", "verifier.total_states", 10) ","
	ROW(2, "h1", "6.1.0", "drop", "xdp_drop", "prog.jited_bytes", 120) ","
	ROW(1, "h1", "6.1.0", "pass", "xdp_pass", "verifier.insns", 2) ","
	ROW(5, "h1", "6.1.0", "bad", "xdp_bad", "verifier.insns", 40) ","
	ROW(5, "h1", "6.1.0", "two", "xdp_two", "verifier.insns", 8) ","
	ROW(3, "h2", "6.12.0", "drop", "xdp_drop", "verifier.insns", 1700) ","
	ROW(3, "h2", "6.12.0", "drop", "xdp_drop", "verifier.total_states", 13) ","
	ROW(3, "h2", "6.12.0", "drop", "xdp_drop", "prog.jited_bytes", 118) ","
	ROW(3, "h2", "6.12.0", "pass", "xdp_pass", "verifier.insns", 2) ","
	ROW(4, "h2", "6.12.0", "pass", "xdp_pass", "verifier.insns", 3) "]";

static const char jobs[] = "["
	"{\"id\":6,\"host\":\"h2\",\"variant\":\"bad\",\"state\":\"failed\","
	"\"kernel_release\":\"6.12.0\",\"error\":\"cannot load program 'xdp_bad' of object "
	"'t.bpf.o': Permission denied (verifier: R1 offset is outside of the packet)\"},"
	"{\"id\":7,\"host\":\"h2\",\"variant\":\"two\",\"state\":\"failed\","
	"\"kernel_release\":\"6.12.0\",\"error\":\"cancelled\"},"
	"{\"id\":3,\"host\":\"h2\",\"variant\":\"drop\",\"state\":\"done\","
	"\"kernel_release\":\"6.12.0\"}]";

static const json_t *program(const json_t *report, const char *variant)
{
	const json_t *p;
	size_t i;

	json_array_foreach(json_object_get(report, "programs"), i, p)
		if (!strcmp(json_string_value(json_object_get(p, "variant")), variant))
			return p;
	fail_msg("no program of variant %s", variant);
	return NULL;
}

static const json_t *cell(const json_t *p, int g)
{
	return json_array_get(json_object_get(p, "groups"), (size_t)g);
}

static double figure(const json_t *p, int g, const char *metric)
{
	return json_number_value(json_object_get(json_object_get(cell(p, g), "values"), metric));
}

static const char *verdict(const json_t *p, int g)
{
	return json_string_value(json_object_get(g < 0 ? p : cell(p, g), "verdict"));
}

static void test_build(void **state)
{
	json_t *v = json_of(values), *j = json_of(jobs), *r;
	const json_t *p, *d;
	struct err msg;

	(void)state;
	r = report_verifier_build(v, j, "kernel.release", &msg);
	assert_non_null(r);
	assert_int_equal(json_array_size(json_object_get(r, "groups")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(r, "groups"), 0)),
			    "6.1.0");
	assert_int_equal(json_array_size(json_object_get(r, "programs")), 4);

	p = program(r, "drop");
	assert_true(figure(p, 0, "verifier.insns") == 997);
	assert_true(figure(p, 1, "verifier.insns") == 1700);
	assert_int_equal(json_integer_value(json_object_get(cell(p, 0), "n")), 2);
	assert_string_equal(verdict(p, 0), "success");
	assert_string_equal(verdict(p, -1), "MATCH");
	d = json_object_get(json_object_get(p, "diff"), "verifier.insns");
	assert_true(json_number_value(json_object_get(d, "delta")) == 703);
	assert_true(fabs(json_number_value(json_object_get(d, "pct")) - 70.511534) < 1e-5);
	d = json_object_get(json_object_get(p, "diff"), "verifier.total_states");
	assert_true(json_number_value(json_object_get(d, "pct")) == 30);
	assert_null(json_object_get(json_object_get(cell(p, 0), "values"), "port.rx_pps"));

	p = program(r, "pass");
	assert_true(figure(p, 1, "verifier.insns") == 2.5);
	assert_int_equal(json_array_size(json_object_get(cell(p, 1), "varies")), 1);

	p = program(r, "bad");
	assert_string_equal(verdict(p, 0), "success");
	assert_string_equal(verdict(p, 1), "failure");
	assert_string_equal(verdict(p, -1), "MISMATCH");
	assert_non_null(strstr(json_string_value(json_object_get(cell(p, 1), "error")),
			       "outside of the packet"));

	p = program(r, "two");
	assert_string_equal(verdict(p, 1), "unknown");
	assert_string_equal(verdict(p, -1), "N/A");
	json_decref(r);

	json_decref(v);
	json_decref(j);
	/* nothing to show: no figures, no load failure */
	v = json_of("[" ROW(1, "h1", "6.1.0", "drop", "b", "port.rx_pps", 5) "]");
	j = json_of("[{\"id\":7,\"host\":\"h2\",\"variant\":\"two\",\"state\":\"failed\","
		    "\"error\":\"cancelled\"}]");
	assert_null(report_verifier_build(v, j, "host", &msg));
	assert_non_null(strstr(msg.msg, "no load figures"));
	json_decref(v);
	json_decref(j);
}

static void test_print(void **state)
{
	json_t *v = json_of(values), *j = json_of(jobs), *r;
	struct err msg;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	r = report_verifier_build(v, j, "kernel.release", &msg);
	assert_non_null(r);
	assert_int_equal(report_verifier_print_text(r, out), 0);
	fclose(out);
	if (!strstr(buf, "  A  6.1.0\n  B  6.12.0\n") ||
	    !strstr(buf, "Insns (A)  Insns (B)    Insns (DIFF)") ||
	    !strstr(buf, "  +0.5 (+25.00%)") ||
	    !strstr(buf, "+703 (+70.51%)") || !strstr(buf, "+3 (+30.00%)") ||
	    !strstr(buf, "-2 (-1.67%)") || !strstr(buf, "success      failure      MISMATCH") ||
	    !strstr(buf, "2.5*") ||
	    !strstr(buf, "* the repetitions differ") ||
	    !strstr(buf, "B bad xdp_bad: cannot load program 'xdp_bad'"))
		fail_msg("unexpected table:\n%s", buf);
	free(buf);
	json_decref(r);
	json_decref(v);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
