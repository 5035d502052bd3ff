// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_format.c - how the run report's printers write numbers and verdicts: the
 * number formats, the verdict markers and their legend, the run and matrix-point lines.
 * Shared by report_text.c and report_form.c (report_int.h).
 *
 * Numbers in the text: rates in K/M/G with four significant digits of the section's
 * largest value (all rows of a section with the same unit share the decimals, so columns
 * read alike), ns with one decimal, anything else with four significant digits; a row
 * gets more decimals when its spread would otherwise print as zero, so that differences
 * show. Halves round away from zero, as when the numbers are worked out by hand.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "base/util.h"

#define MAX_DECIMALS 6

/* Verdicts (docs/plans.md) as one-character markers beside the numbers they concern. */
static const struct {
	const char *name;
	char mark;
	const char *meaning;
} verdict_marks[] = {
	{ "debug-kernel", '#', "measured on a kernel with debug options that spoil measurements" },
	{ "generator-bound", '^', "the receiver got all the generator sent with CPU to spare: the rate is the generator's" },
	{ "unstable", '*', "the per-second rates varied beyond the bound" },
	{ "errors", '!', "XDP redirect errors or exceptions were seen" },
	{ "disturbed", '&', "other work took more than the bound of the measured CPUs: measured again, left out of compare" },
	{ "outlier-seconds", 'o', "some seconds of the window lay outside Tukey's fences (k 1.5)" },
	{ "not-settled", '~', "repeat.max was reached with the 95 % confidence interval of the mean still wider than repeat.until" },
};

static char verdict_mark(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verdict_marks); i++)
		if (!strcmp(name, verdict_marks[i].name))
			return verdict_marks[i].mark;
	return '?';
}

void report_add_marks(char *buf, size_t len, const json_t *verdicts)
{
	const json_t *v;
	size_t i, j, n;
	char m;

	for (i = 0; i <= ARRAY_SIZE(verdict_marks); i++) {
		m = i < ARRAY_SIZE(verdict_marks) ? verdict_marks[i].mark : '?';
		json_array_foreach(verdicts, j, v)
			if (json_is_string(v) && verdict_mark(json_string_value(v)) == m)
				break;
		n = strlen(buf);
		if (j == json_array_size(verdicts) || strchr(buf, m) || n + 2 > len)
			continue;
		buf[n] = m;
		buf[n + 1] = '\0';
	}
}

void report_print_legend(const char *marks, const json_t *details, FILE *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verdict_marks); i++) {
		const char *d = get_str(details, verdict_marks[i].name);

		if (strchr(marks, verdict_marks[i].mark))
			fprintf(out, "%c %s: %s\n", verdict_marks[i].mark, verdict_marks[i].name,
				d ? d : verdict_marks[i].meaning);
	}
	if (strchr(marks, '?'))
		fprintf(out, "? a verdict this bpflab does not know\n");
}

/* Decimals that give four significant digits for a largest value of MAX. */
static int sig4_decimals(double max)
{
	if (max < 10)
		return 3;
	if (max < 100)
		return 2;
	if (max < 1000)
		return 1;
	return 0;
}

struct num_fmt report_fmt_for(enum num_kind kind, double max)
{
	struct num_fmt f = { 1, "", 0 };

	max = fabs(max);
	switch (kind) {
	case NUM_RATE:
		if (max >= 1e9)
			f = (struct num_fmt){ 1e9, "G", 0 };
		else if (max >= 1e6)
			f = (struct num_fmt){ 1e6, "M", 0 };
		else if (max >= 1e3)
			f = (struct num_fmt){ 1e3, "K", 0 };
		f.decimals = f.div > 1 ? sig4_decimals(max / f.div) : 0;
		break;
	case NUM_NS:
		f.decimals = 1;
		break;
	case NUM_PLAIN:
		f.decimals = sig4_decimals(max);
		break;
	}
	return f;
}

void report_fmt_show_spread(struct num_fmt *f, double spread)
{
	while (f->decimals < MAX_DECIMALS && isfinite(spread) && spread > 0 &&
	       round(spread / f->div * pow(10, f->decimals)) == 0)
		f->decimals++;
}

/* V formatted with F, "-" when absent. Halves round away from zero as they do by hand:
 * (35.9 - 35.6) / 2 is 0.1499999... in binary and prints as 0.2, not 0.1. */
void report_fmt_num(char *buf, size_t len, const json_t *v, const struct num_fmt *f)
{
	double x;

	if (!json_is_number(v) || !isfinite(json_number_value(v))) {
		snprintf(buf, len, "-");
		return;
	}
	x = json_number_value(v) / f->div;
	x += copysign(fabs(x) * 1e-9, x);
	snprintf(buf, len, "%.*f%s", f->decimals, x, f->suffix);
}

double report_obj_max(const json_t *obj)
{
	const json_t *v;
	double max = 0;
	size_t i;

	json_array_foreach(json_object_get(obj, "values"), i, v)
		if (json_is_number(v) && fabs(json_number_value(v)) > max)
			max = fabs(json_number_value(v));
	return max;
}

void report_mean_texts(const json_t *obj, struct num_fmt f, struct row_text *rt)
{
	report_fmt_show_spread(&f, json_number_value(json_object_get(obj, "spread")));
	report_fmt_num(rt->mean, CELL, json_object_get(obj, "mean"), &f);
	if (json_integer_value(json_object_get(obj, "n")) >= 2)
		report_fmt_num(rt->spread, CELL, json_object_get(obj, "spread"), &f);
}

void report_print_run_line(const json_t *obj, FILE *out)
{
	const char *sha = get_str(obj, "plan_sha256");

	fprintf(out, "run %lld  %s", (long long)json_integer_value(json_object_get(obj, "run")),
		get_str(obj, "plan") ? get_str(obj, "plan") : "-");
	if (sha)
		fprintf(out, "  plan %.12s", sha);
	if (get_str(obj, "state"))
		fprintf(out, "  %s", get_str(obj, "state"));
	fputc('\n', out);
}

void report_point_label(const json_t *point, FILE *out)
{
	const char *key;
	const json_t *v;
	bool first = true;

	fputs("point", out);
	json_object_foreach((json_t *)point, key, v) {
		fprintf(out, "%s%s=", first ? " " : "  ", key);
		if (json_is_string(v)) {
			fputs(json_string_value(v), out);
		} else {
			char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

			fputs(s ? s : "?", out);
			free(s);
		}
		first = false;
	}
	fputc('\n', out);
}

char *report_point_text(const json_t *point)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *key;
	const json_t *v;
	bool first = true;

	if (!f)
		return NULL;
	if (json_is_object(point)) {
		json_object_foreach((json_t *)point, key, v) {
			char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);

			fprintf(f, "%s%s=%s", first ? "" : " ", key,
				s ? s : (json_string_value(v) ? json_string_value(v) : ""));
			free(s);
			first = false;
		}
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *report_print_to_string(int (*print)(const json_t *obj, FILE *out), const json_t *obj)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return NULL;
	err = print(obj, f);
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		free(buf);
		errno = -err;
		return NULL;
	}
	return buf;
}
