// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_format.c - how the run report's printers write numbers and verdicts: the
 * number formats, the verdict markers and their legend, the run and matrix-point lines.
 * Shared by report_text.c and report_form.c (report_int.h).
 *
 * Verdicts: a marked cell carries its verdict's marker and, where the job stored a
 * detail, the number of a note under the table ("3.69M*1"; "*1 unstable: port.rx_pps of
 * 'b' varied 6.5 % (bound 5 %)"): one note per distinct detail, so a legend never gives
 * one job's detail for another's cell.
 *
 * The one number formatter of every command and the dashboard's text: SI prefixes (k, M,
 * G) from 10000 up (1000-9999 have their four digits) with four significant digits; in a table, of the section's largest
 * value (all rows of a section with the same unit share the decimals, so columns read
 * alike), ns with one decimal; "mean ± spread" in the mean's format, more decimals when
 * the spread would print as zero; percentages one way ("+12.3 %", "+1141 %"). Halves
 * round away from zero, as when the numbers are worked out by hand.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "base/texttable.h"
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

/* The index of note (VERDICT, DETAIL) in N, added when new; -1 on ENOMEM. */
static int note_index(struct report_notes *n, const char *verdict, const char *detail)
{
	const json_t *e;
	size_t i;

	if (!n->notes && !(n->notes = json_array()))
		return -1;
	json_array_foreach(n->notes, i, e)
		if (!strcmp(json_string_value(json_array_get(e, 0)), verdict) &&
		    !strcmp(json_string_value(json_array_get(e, 1)), detail))
			return (int)i;
	if (json_array_append_new(n->notes, json_pack("[ss]", verdict, detail)))
		return -1;
	return (int)json_array_size(n->notes) - 1;
}

/* Append C to BUF (LEN bytes) when it fits. */
static void put_char(char *buf, size_t len, char c)
{
	size_t l = strlen(buf);

	if (l + 2 <= len) {
		buf[l] = c;
		buf[l + 1] = '\0';
	}
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

void report_notes_cell(struct report_notes *n, char *buf, size_t len, const json_t *verdicts,
		       const json_t *details, int rep)
{
	size_t i, r, j, lo = rep < 0 ? 0 : (size_t)rep, hi;
	const json_t *v;
	char m, num[16];

	hi = rep < 0 ? json_array_size(verdicts) : lo + 1;
	for (i = 0; i <= ARRAY_SIZE(verdict_marks); i++) {
		int ks[16], nk = 0, k, a;
		bool seen = false, plain = false;

		m = i < ARRAY_SIZE(verdict_marks) ? verdict_marks[i].mark : '?';
		for (r = lo; r < hi; r++) {
			const json_t *rd = json_array_get(details, r);

			json_array_foreach(json_array_get(verdicts, r), j, v) {
				const char *name = json_string_value(v), *d;

				if (!name || verdict_mark(name) != m)
					continue;
				seen = true;
				d = json_string_value(json_object_get(rd, name));
				k = d ? note_index(n, name, d) : -1;
				if (d && k < 0)
					n->oom = true;
				if (k < 0) {
					plain = true;
					continue;
				}
				for (a = 0; a < nk && ks[a] != k; a++)
					;
				if (a == nk && nk < (int)ARRAY_SIZE(ks))
					ks[nk++] = k;
			}
		}
		if (!seen)
			continue;
		put_char(buf, len, m);
		qsort(ks, nk, sizeof(*ks), cmp_int);
		for (a = 0; a < nk; a++) {
			snprintf(num, sizeof(num), "%s%d", a ? "," : "", ks[a] + 1);
			if (strlen(buf) + strlen(num) < len)
				strcat(buf, num);
		}
		if (plain && !strchr(n->marks, m))
			put_char(n->marks, sizeof(n->marks), m);
	}
}

static const char *verdict_meaning(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verdict_marks); i++)
		if (!strcmp(name, verdict_marks[i].name))
			return verdict_marks[i].meaning;
	return "a verdict this bpflab does not know";
}

void report_notes_print(const struct report_notes *n, FILE *out)
{
	const json_t *e;
	size_t i;

	json_array_foreach(n->notes, i, e) {
		const char *name = json_string_value(json_array_get(e, 0));
		char line[1024];

		/* an agent's detail can be long: wrapped for a mail */
		snprintf(line, sizeof(line), "%c%zu %s: %s", verdict_mark(name), i + 1, name,
			 json_string_value(json_array_get(e, 1)));
		tt_wrap(out, line, 80, "    ");
	}
	for (i = 0; i < ARRAY_SIZE(verdict_marks); i++)
		if (strchr(n->marks, verdict_marks[i].mark))
			fprintf(out, "%c %s: %s\n", verdict_marks[i].mark, verdict_marks[i].name,
				verdict_meaning(verdict_marks[i].name));
	if (strchr(n->marks, '?'))
		fprintf(out, "? a verdict this bpflab does not know\n");
}

void report_notes_release(struct report_notes *n)
{
	json_decref(n->notes);
	n->notes = NULL;
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
		else if (max >= 1e4)	/* 1000-9999 have their four digits */
			f = (struct num_fmt){ 1e3, "k", 0 };
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
	report_num_fmt(json_is_number(v) ? json_number_value(v) : NAN, f, buf, len);
}

struct num_fmt report_fmt_si(double max)
{
	struct num_fmt f = report_fmt_for(NUM_RATE, max);

	if (f.div == 1)
		f.decimals = max == 0 ? 0 : sig4_decimals(fabs(max));
	return f;
}

const char *report_num(double v, char *out, size_t len)
{
	struct num_fmt f = report_fmt_si(v);

	return report_num_fmt(v, &f, out, len);
}

const char *report_num_fmt(double v, const struct num_fmt *f, char *out, size_t len)
{
	double x;

	if (!isfinite(v)) {
		snprintf(out, len, "-");
		return out;
	}
	x = v / f->div;
	x += copysign(fabs(x) * 1e-9, x);
	snprintf(out, len, "%.*f%s", f->decimals, x, f->suffix);
	return out;
}

const char *report_num_pm(double v, double pm, char *out, size_t len)
{
	struct num_fmt f = report_fmt_si(v);
	char a[CELL], b[CELL];

	if (!isfinite(pm)) {
		snprintf(out, len, "%s", report_num_fmt(v, &f, a, sizeof(a)));
		return out;
	}
	if (fabs(pm) > fabs(v))
		f = report_fmt_si(pm);
	report_fmt_show_spread(&f, fabs(pm));
	report_num_fmt(v, &f, a, sizeof(a));
	snprintf(out, len, "%s ± %s", a, pm == 0 ? "0" : report_num_fmt(pm, &f, b, sizeof(b)));
	return out;
}

const char *report_pct(double v, char *out, size_t len)
{
	if (!isfinite(v))
		snprintf(out, len, "-");
	else if (fabs(v) >= 100)
		snprintf(out, len, "%+.0f %%", v);
	else
		snprintf(out, len, "%+.1f %%", fabs(v) < 0.05 ? 0.0 : v);
	return out;
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
	const char *sha = jget_str(obj, "plan_sha256", NULL);

	fprintf(out, "run %lld  %s", (long long)json_integer_value(json_object_get(obj, "run")),
		jget_str(obj, "plan", NULL) ? jget_str(obj, "plan", NULL) : "-");
	if (sha)
		fprintf(out, "  plan %.12s", sha);
	if (jget_str(obj, "state", NULL))
		fprintf(out, "  %s", jget_str(obj, "state", NULL));
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
