// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_csv.c - report_print_csv (report.h): a result's raw samples as CSV, one line
 * per sample, fields quoted as RFC 4180 says (texttable.h).
 */
#include "report/report.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "report/report_int.h"
#include "base/texttable.h"

/* S as a CSV field (NULL empty), then ',' or, for the LAST of a line, '\n'. */
static void csv_field(FILE *out, const char *s, bool last)
{
	tt_csv_field(out, s);
	fputc(last ? '\n' : ',', out);
}

/* A JSON scalar as CSV text: strings as they are, numbers with enough digits to read
 * back the same double, null as empty. */
static void csv_value(FILE *out, const json_t *v, bool last)
{
	char buf[64];
	int prec;

	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		double d = json_real_value(v);

		for (prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, d);
			if (strtod(buf, NULL) == d)
				break;
		}
	} else if (json_is_string(v)) {
		csv_field(out, json_string_value(v), last);
		return;
	} else {
		buf[0] = '\0';
	}
	csv_field(out, buf, last);
}

int report_print_csv(const json_t *result, FILE *out)
{
	const json_t *run = json_object_get(result, "run"), *s;
	size_t i;

	fputs("run,job,host,variant,rep,point,metric,subject,window,value,unit\n", out);
	json_array_foreach(json_object_get(result, "samples"), i, s) {
		char *point = report_point_text(json_object_get(s, "point"));

		if (!point)
			return -ENOMEM;
		csv_value(out, run, false);
		csv_value(out, json_object_get(s, "job"), false);
		csv_value(out, json_object_get(s, "host"), false);
		csv_value(out, json_object_get(s, "variant"), false);
		csv_value(out, json_object_get(s, "rep"), false);
		csv_field(out, point, false);
		csv_value(out, json_object_get(s, "metric"), false);
		csv_value(out, json_object_get(s, "subject"), false);
		csv_value(out, json_object_get(s, "window"), false);
		csv_value(out, json_object_get(s, "value"), false);
		csv_value(out, json_object_get(s, "unit"), true);
		free(point);
	}
	return ferror(out) ? -EIO : 0;
}
