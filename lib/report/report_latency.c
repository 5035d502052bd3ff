// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_latency.c - see report_int.h. The latency table of `result show` (docs/cli.md,
 * "result show"): one row per job and latency window (subject PORT@LOAD), its figures
 * from the whole-window samples latency.* (docs/agent.md, "Metrics"; burst: the largest
 * burst the receiver saw, beside the load) and its histogram
 * from the result's "latency_hist" rows (bucket bounds from bpf/latency_shared.h). The
 * rows go into the report as "latency"; the text prints them as one table in µs.
 */
#include "report/report_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/texttable.h"
#include "latency_shared.h"

/* The row of JOB and SUBJECT in ROWS, or NULL. */
static json_t *find_row(json_t *rows, json_int_t job, const char *subject)
{
	json_t *r;
	size_t i;

	json_array_foreach(rows, i, r) {
		if (json_integer_value(json_object_get(r, "job")) == job &&
		    !strcmp(jget_str(r, "subject", NULL), subject))
			return r;
	}
	return NULL;
}

/* A new row for sample S (job, host, variant, rep, point, subject split at '@'). */
static json_t *new_row(json_t *rows, const json_t *s, const char *subject)
{
	const char *at = strrchr(subject, '@');
	json_t *r;

	r = json_pack("{s:O, s:O?, s:O?, s:O?, s:O?, s:s, s:s%, s:s, s:[]}",
		      "job", json_object_get(s, "job"), "host", json_object_get(s, "host"),
		      "variant", json_object_get(s, "variant"), "rep", json_object_get(s, "rep"),
		      "point", json_object_get(s, "point"), "subject", subject,
		      "port", subject, at ? (size_t)(at - subject) : strlen(subject),
		      "load", at ? at + 1 : "", "histogram");
	if (r && json_array_append_new(rows, r))
		return NULL;
	return r;
}

static int add_hist(json_t *rows, const json_t *hist)
{
	const json_t *h;
	json_t *r, *b;
	size_t i;

	json_array_foreach(hist, i, h) {
		json_int_t bucket = json_integer_value(json_object_get(h, "bucket"));
		const char *subject = jget_str(h, "subject", NULL);

		r = subject ? find_row(rows, json_integer_value(json_object_get(h, "job")),
				       subject) : NULL;
		if (!r || bucket < 0 || bucket >= LAT_BUCKETS)
			continue;
		b = json_pack("[IIf]", (json_int_t)lat_bucket_low((__u32)bucket),
			      (json_int_t)(lat_bucket_low((__u32)bucket) +
					   lat_bucket_width((__u32)bucket) - 1),
			      json_number_value(json_object_get(h, "count")));
		if (!b || json_array_append_new(json_object_get(r, "histogram"), b))
			return -ENOMEM;
	}
	return 0;
}

json_t *report_latency_build(const json_t *result)
{
	json_t *rows = json_array(), *r;
	const json_t *s;
	size_t i;

	json_array_foreach(json_object_get(result, "samples"), i, s) {
		const char *metric = jget_str(s, "metric", NULL), *subject = jget_str(s, "subject", NULL);

		if (!rows || !metric || !subject || strncmp(metric, "latency.", 8) ||
		    !json_is_number(json_object_get(s, "value")))
			continue;
		r = find_row(rows, json_integer_value(json_object_get(s, "job")), subject);
		if (!r)
			r = new_row(rows, s, subject);
		if (!r || json_object_set(r, metric + 8, json_object_get(s, "value"))) {
			json_decref(rows);
			rows = NULL;
		}
	}
	if (rows && add_hist(rows, json_object_get(result, "latency_hist"))) {
		json_decref(rows);
		rows = NULL;
	}
	if (!rows)
		errno = ENOMEM;
	return rows;
}

/* Member KEY of R in µs with one decimal ("-" when absent) into BUF. */
static const char *us(const json_t *r, const char *key, char *buf, size_t len)
{
	const json_t *v = json_object_get(r, key);

	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, "%.1f", json_number_value(v) / 1000);
	return buf;
}

/* Member KEY of R as a whole number. */
static const char *count(const json_t *r, const char *key, char *buf, size_t len)
{
	const json_t *v = json_object_get(r, key);

	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, "%.0f", json_number_value(v));
	return buf;
}

int report_latency_print_text(const json_t *rows, FILE *out)
{
	static const char *const head[] = {
		"host", "variant", ">rep", "point", "port", "load", ">pps", ">burst", ">min", ">p50",
		">p90", ">p99", ">p99.9", ">max", ">lost", ">reordered", ">duplicated",
		">foreign",
	};
	enum { N_COLS = sizeof(head) / sizeof(head[0]) };
	char b[N_COLS][48];
	struct tt_table t;
	const json_t *r;
	size_t i;
	int err;

	if (!json_array_size(rows))
		return 0;
	err = tt_table_init(&t, N_COLS, head);
	if (err)
		return err;
	json_array_foreach(rows, i, r) {
		char *point = report_point_text(json_object_get(r, "point"));
		const char *cells[N_COLS] = {
			jget_str(r, "host", NULL), jget_str(r, "variant", NULL), count(r, "rep", b[2], 48),
			point && point[0] ? point : "-", jget_str(r, "port", NULL), jget_str(r, "load", NULL),
			count(r, "load_pps", b[6], 48), count(r, "burst_max", b[7], 48),
			us(r, "min_ns", b[8], 48), us(r, "p50_ns", b[9], 48),
			us(r, "p90_ns", b[10], 48), us(r, "p99_ns", b[11], 48),
			us(r, "p999_ns", b[12], 48), us(r, "max_ns", b[13], 48),
			count(r, "lost", b[14], 48), count(r, "reordered", b[15], 48),
			count(r, "duplicated", b[16], 48), count(r, "foreign", b[17], 48),
		};

		err = tt_table_add(&t, cells);
		free(point);
		if (err)
			break;
	}
	if (!err) {
		fprintf(out, "\nlatency  (one-way, µs; load: a share of the PDR or frames/s; burst: the most frames that arrived within half a frame's time of each other; histograms and gaps in -j)\n");
		tt_table_print(&t, out);
	}
	tt_table_release(&t);
	return err;
}
