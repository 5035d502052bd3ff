// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_fixture.c - the fixture of lib/report's result-report tests (report_fixture.h):
 * result objects, samples and verdicts, the report's text checked exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "helpers.h"
#include "report_fixture.h"

const char report_fix_h1[] = "[{\"name\":\"h1\",\"kernel_release\":\"6.18.44\"}]";

json_t *report_fix_result(int run, const char *plan, const char *state, int repeat,
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
void report_fix_add(json_t *result, int job, const char *host, const char *variant, int rep,
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

/* Mark the last sample added with the job's VERDICTS (JSON text) and DETAILS. */
void report_fix_verdicts(json_t *result, const char *verdicts, const char *details)
{
	json_t *samples = json_object_get(result, "samples");
	json_t *s = json_array_get(samples, json_array_size(samples) - 1);

	assert_int_equal(json_object_set_new(s, "verdicts", json_loads(verdicts, 0, NULL)), 0);
	if (details)
		assert_int_equal(json_object_set_new(s, "verdict_details",
						     json_loads(details, 0, NULL)), 0);
}

/* The report of RESULT, after checking that its text is exactly WANT (assert_text shows
 * both whole when not: the point of these tests is the layout). */
json_t *report_fix_as(const json_t *result, const char *want)
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

const json_t *report_fix_section(const json_t *report, int group, int sec)
{
	const json_t *g = json_array_get(json_object_get(report, "groups"), group);

	return json_array_get(json_object_get(g, "sections"), sec);
}

double report_fix_value(const json_t *obj, int i)
{
	return json_number_value(json_array_get(json_object_get(obj, "values"), i));
}
