// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_web_chart.c - web_chart.c's hover titles on a hand-made history report: a point
 * of one value (no stddev: `result history -j` gives null) says "-", never "nan"
 * (tests/integration/test_dashboard.sh found it in a real browser); a point with every
 * number says them as %.6g / %.3g / %.2f.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "web.h"

static void test_web_chart_titles(void **state)
{
	const char *text =
		"{\"by\":\"kernel.release\",\"groups\":[{\"group\":\"6.1\"},{\"group\":\"6.2\"}],"
		"\"series\":[{\"metric\":\"prog.ns_per_run\",\"point\":\"\",\"variant\":\"v\","
		"\"subject\":\"p\",\"unit\":\"ns\",\"points\":["
		"{\"group\":\"6.1\",\"n\":1,\"mean\":43.25,\"stddev\":null,\"spread\":0.0,"
		"\"delta_pct\":0.0},"
		"{\"group\":\"6.2\",\"n\":4,\"mean\":50.125,\"stddev\":1.2345,\"spread\":2.5,"
		"\"delta_pct\":15.8959537572254}],\"changes\":[]}]}";
	json_t *report = json_loads(text, 0, NULL);
	struct web_buf b = { 0 };

	(void)state;
	assert_non_null(report);
	web_chart_history(&b, report);
	web_buf_add(&b, "", 1);
	assert_false(b.failed);
	assert_non_null(strstr(b.data, "<title>6.1: n 1, mean 43.25 ± -, spread 0, "
			       "delta 0.00 %</title>"));
	assert_non_null(strstr(b.data, "<title>6.2: n 4, mean 50.125 ± 1.23, spread 2.5, "
			       "delta 15.90 %</title>"));
	assert_null(strstr(b.data, "nan"));
	web_buf_release(&b);
	json_decref(report);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_web_chart_titles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
