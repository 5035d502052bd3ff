/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* report_fixture.h - the fixture that lib/report's result-report tests share
 * (test_report.c, test_report_attach.c, test_report_verdicts.c, test_report_forms.c):
 * result objects as result_show gives them (docs/protocol.md "result") made by hand,
 * samples and verdicts added to them, and the report's text checked exactly (the
 * point of these tests is the layout). report_fixture.c.
 */
#ifndef BPFLAB_TEST_REPORT_FIXTURE_H
#define BPFLAB_TEST_REPORT_FIXTURE_H

#include <jansson.h>

/* The hosts of a result of one host h1 on kernel 6.18.44 (JSON text). */
extern const char report_fix_h1[];

/* A result of RUN of PLAN in STATE with REPEAT repetitions, VARIANTS_JSON and
 * HOSTS_JSON (JSON text), and no samples yet (new reference). */
json_t *report_fix_result(int run, const char *plan, const char *state, int repeat,
			  const char *variants_json, const char *hosts_json);

/* One whole-window sample (window cost for prog.*, else rate); POINT is JSON text or
 * NULL for no matrix. */
void report_fix_add(json_t *result, int job, const char *host, const char *variant, int rep,
		    const char *point, const char *metric, const char *subject, double value);

/* Mark the last sample added with the job's VERDICTS (JSON text) and DETAILS (JSON text
 * or NULL). */
void report_fix_verdicts(json_t *result, const char *verdicts, const char *details);

/* The report of RESULT, after checking that its text is exactly WANT (assert_text shows
 * both whole when not); the caller owns it. */
json_t *report_fix_as(const json_t *result, const char *want);

/* Section SEC of group GROUP of REPORT (borrowed), and value I of a row or cell OBJ. */
const json_t *report_fix_section(const json_t *report, int group, int sec);
double report_fix_value(const json_t *obj, int i);

#endif
