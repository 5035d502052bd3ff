// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web_chart.c - the dashboard's charts, small hand-written SVGs inlined in the pages (no
 * script, no external resource; strict CSP). The run page's (web_chart_run): per metric
 * each repetition a dot, the mean a bar, min..max a line, and each dot a link to the
 * page with that repetition's per-second traces (?seconds=JOB).
 * The /history page's chart: a small hand-written SVG of a history report
 * (analysis_history, docs/analysis.md), inlined in the page (no script, no external
 * resource): per series the group means with stddev bars (the spread where there is no
 * stddev), a <title> on each point (group, n, mean ± stddev, spread, delta %) for hover,
 * the change points as dashed red lines (between two groups: halfway; within one: on it),
 * the groups along x, a legend. Every text is HTML-escaped.
 */
#include "web.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/jget.h"

#define W 760.0
#define H 340.0
#define LEFT 70.0
#define RIGHT 20.0
#define TOP 20.0
#define BOTTOM 90.0
#define MAX_SERIES 8

static const char *const colors[MAX_SERIES] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
};

/* The NULL-terminated WORDS, HTML-escaped, joined by blanks (empty ones left out). */
static void html_words(struct web_buf *b, const char *const *words)
{
	bool first = true;

	for (; *words; words++) {
		if (!**words)
			continue;
		if (!first)
			web_buf_str(b, " ");
		web_buf_html(b, *words);
		first = false;
	}
}

/* The half height of P's bar: stddev, else spread, else 0. */
static double bar(const json_t *p)
{
	double e = jget_num(p, "stddev", NAN);

	if (!isfinite(e))
		e = jget_num(p, "spread", NAN);
	return isfinite(e) ? e : 0;
}

/* O's number K as FMT into BUF, "-" when absent (a stddev of one value): a hover title
 * never says "nan". */
static const char *num_text(const json_t *o, const char *k, const char *fmt, char *buf,
			    size_t len)
{
	double v = jget_num(o, k, NAN);

	if (!isfinite(v))
		return "-";
	snprintf(buf, len, fmt, v);
	return buf;
}

/* The index of GROUP in GROUPS (the report's {"group": NAME, ...}), or -1. */
static long group_index(const json_t *groups, const char *group)
{
	size_t i;
	json_t *g;

	json_array_foreach(groups, i, g)
		if (!strcmp(jget_str(g, "group", ""), group))
			return (long)i;
	return -1;
}

/* V with an SI prefix and three significant digits ("10.2M", "25.0", "0.512"). */
static void si_text(double v, char *buf, size_t len)
{
	static const struct { double div; const char *p; } pre[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
	};
	double a = fabs(v);
	size_t i;

	if (a == 0) {
		snprintf(buf, len, "0");
		return;
	}
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (a >= pre[i].div) {
			v /= pre[i].div;
			a /= pre[i].div;
			break;
		}
	snprintf(buf, len, "%.*f%s", a >= 100 ? 0 : a >= 10 ? 1 : 2, v,
		 i < sizeof(pre) / sizeof(pre[0]) ? pre[i].p : "");
}

/* The y axis of a chart of height HT (plot from TOP to HT - BOTTOM_) with ticks. */
static void y_axis(struct web_buf *b, double base, double top, double ht, double bottom,
		   const char *unit)
{
	char t[32];
	int i;

	web_buf_printf(b, "<path d=\"M%.1f %.1fV%.1fH%.1f\" stroke=\"#444\" fill=\"none\"/>\n",
		       LEFT, TOP, ht - bottom, W - RIGHT);
	for (i = 0; i <= 4; i++) {
		double v = base + (top - base) * i / 4;
		double y = TOP + (ht - bottom - TOP) * (1 - (v - base) / (top - base));

		si_text(v, t, sizeof(t));
		web_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
			       "<path d=\"M%.1f %.1fH%.1f\" stroke=\"#eee\"/>\n", LEFT - 4, y + 4, t,
			       LEFT + 1, y, W - RIGHT);
	}
	web_buf_printf(b, "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" "
		       "text-anchor=\"middle\">", (ht - bottom + TOP) / 2, (ht - bottom + TOP) / 2);
	web_buf_html(b, *unit ? unit : "value");
	web_buf_str(b, "</text>\n");
}

void web_chart_history(struct web_buf *b, const json_t *report)
{
	const json_t *groups = json_object_get(report, "groups");
	const json_t *series = json_object_get(report, "series"), *s, *p, *c;
	size_t n_groups = json_array_size(groups), i, j;
	double top = 0, step, x, y, mag;
	char t1[32], t2[32], t3[32];

	json_array_foreach(series, i, s) {
		if (i == MAX_SERIES)
			break;
		json_array_foreach(json_object_get(s, "points"), j, p)
			if (isfinite(jget_num(p, "mean", NAN)) && jget_num(p, "mean", NAN) + bar(p) > top)
				top = jget_num(p, "mean", NAN) + bar(p);
	}
	if (!n_groups || !(top > 0))
		return;
	/* four ticks at a round step: 1, 1.5, 2, ... times a power of ten */
	mag = pow(10, floor(log10(top * 1.05 / 4)));
	top = 4 * mag * ceil(top * 1.05 / 4 / mag * 2) / 2;
	step = (W - LEFT - RIGHT) / (double)n_groups;
#define X(k) (LEFT + step * ((double)(k) + 0.5))
#define Y(v) (TOP + (H - TOP - BOTTOM) * (1 - (v) / top))
	web_buf_printf(b, "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		       "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-size=\"11\" "
		       "font-family=\"sans-serif\">\n", W, H + 20.0 * (double)json_array_size(series),
		       W, H + 20.0 * (double)json_array_size(series));
	/* axes, y ticks at 0, 1/4, ... of the top (SI prefixes), the unit */
	y_axis(b, 0, top, H, BOTTOM, jget_str(json_array_get(series, 0), "unit", ""));
	json_array_foreach(groups, i, c) {
		web_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(30 %.1f %.1f)\">",
			       X(i), H - BOTTOM + 14, X(i), H - BOTTOM + 14);
		web_buf_html(b, jget_str(c, "group", ""));
		web_buf_str(b, "</text>\n");
	}
	json_array_foreach(series, i, s) {
		const char *color = colors[i % MAX_SERIES];
		long prev = -1;
		double py = 0;

		if (i == MAX_SERIES)
			break;
		/* the change points first, under the points */
		json_array_foreach(json_object_get(s, "changes"), j, c) {
			long k = group_index(groups, jget_str(c, "after", ""));

			if (k < 0)
				continue;
			x = X(k) - (json_is_true(json_object_get(c, "within")) ? 0 : step / 2);
			web_buf_printf(b, "<path class=\"change\" d=\"M%.1f %.1fV%.1f\" stroke=\"red\" "
				       "stroke-dasharray=\"5 4\"><title>change point: ", x, TOP,
				       H - BOTTOM);
			web_buf_html(b, jget_str(c, "before", ""));
			web_buf_str(b, " -&gt; ");
			web_buf_html(b, jget_str(c, "after", ""));
			web_buf_str(b, "</title></path>\n");
		}
		json_array_foreach(json_object_get(s, "points"), j, p) {
			long k = group_index(groups, jget_str(p, "group", ""));
			double m = jget_num(p, "mean", NAN), e = bar(p);

			if (k < 0 || !isfinite(m))
				continue;
			x = X(k);
			y = Y(m);
			if (prev >= 0)
				web_buf_printf(b, "<path d=\"M%.1f %.1fL%.1f %.1f\" stroke=\"%s\"/>\n",
					       X(prev), py, x, y, color);
			prev = k;
			py = y;
			web_buf_printf(b, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"%s\"/>"
				       "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				       "fill=\"%s\"><title>", x, Y(m - e > 0 ? m - e : 0), Y(m + e),
				       color, x, y, color);
			web_buf_html(b, jget_str(p, "group", ""));
			web_buf_printf(b, ": n %lld, mean %.6g ± %s, spread %s, delta %s %%"
				       "</title></circle>\n",
				       (long long)json_integer_value(json_object_get(p, "n")), m,
				       num_text(p, "stddev", "%.3g", t1, sizeof(t1)),
				       num_text(p, "spread", "%.3g", t2, sizeof(t2)),
				       num_text(p, "delta_pct", "%.2f", t3, sizeof(t3)));
		}
		web_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" "
			       "fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">", LEFT, H + 20.0 *
			       (double)i, color, LEFT + 16, H + 20.0 * (double)i + 9);
		html_words(b, (const char *[]){ jget_str(s, "variant", ""), jget_str(s, "subject", ""),
				jget_str(s, "point", ""), NULL });
		web_buf_str(b, "</text>\n");
	}
#undef X
#undef Y
	web_buf_str(b, "</svg>\n");
}

/* --- the run page's charts (web_chart_run) --- */

#define RUN_H 230.0			/* a metric's chart, legend rows below */
#define RUN_BOTTOM 80.0
#define TRACE_H 150.0
#define MAX_DOTS 2000			/* per page: beyond, a note says how many were left */

/* "k=v k=v" of matrix point POINT into OUT ("" for none). */
static void point_label(const json_t *point, char *out, size_t len)
{
	const char *k;
	size_t off = 0;
	json_t *v;

	out[0] = '\0';
	json_object_foreach((json_t *)point, k, v) {
		char *t = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		if (off < len)
			off += snprintf(out + off, len - off, "%s%s=%s", off ? " " : "", k,
					t ? t : json_string_value(v) ? json_string_value(v) : "?");
		free(t);
	}
}

/* A y axis from 0 (or the lowest value, when below 0) to a round top over [LO, HI]:
 * *BASE and *TOP. */
static void y_range(double lo, double hi, double *base, double *top)
{
	double mag;

	*base = lo < 0 ? lo : 0;
	hi = hi > *base ? hi : *base + 1;
	mag = pow(10, floor(log10((hi - *base) * 1.05 / 4)));
	*top = *base + 4 * mag * ceil((hi - *base) * 1.05 / 4 / mag * 2) / 2;
}

/* The chart of METRIC: per category (host, variant, subject, point; CATS: label -> its
 * samples) the repetitions as dots, their mean as a bar across and min..max as a line;
 * each dot links to the page of run RUN with its job's per-second traces (?seconds=JOB),
 * the dots of job JOB (0: none) drawn larger, in orange. *DOTS counts the dots drawn. */
static void metric_chart(struct web_buf *b, const char *metric, const json_t *cats,
			 long long run, long long job, size_t *dots)
{
	size_t n = json_object_size(cats), i = 0, j;
	double lo = INFINITY, hi = -INFINITY, base, top, step;
	const char *label, *unit = "";
	char t[32], mt[32];
	json_t *list, *s;

	json_object_foreach((json_t *)cats, label, list)
		json_array_foreach(list, j, s) {
			double v = jget_num(s, "value", NAN);

			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			unit = jget_str(s, "unit", "");
		}
	y_range(lo, hi, &base, &top);
	step = (W - LEFT - RIGHT) / (double)n;
#define X(k) (LEFT + step * ((double)(k) + 0.5))
#define Y(v) (TOP + (RUN_H - RUN_BOTTOM - TOP) * (1 - ((v) - base) / (top - base)))
	web_buf_str(b, "<h3>");
	web_buf_html(b, metric);
	web_buf_printf(b, "</h3>\n<svg class=\"runchart\" xmlns=\"http://www.w3.org/2000/svg\" "
		       "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-size=\"11\" "
		       "font-family=\"sans-serif\">\n", W, RUN_H, W, RUN_H);
	y_axis(b, base, top, RUN_H, RUN_BOTTOM, unit);
	json_object_foreach((json_t *)cats, label, list) {
		size_t m = json_array_size(list);
		double sum = 0, mn = INFINITY, mx = -INFINITY, x = X(i);
		double gap = m > 1 ? fmin(8.0, step * 0.6 / (double)(m - 1)) : 0;
		double half = fmax(12.0, fmin(step * 0.35, gap * (double)m / 2 + 8));

		json_array_foreach(list, j, s) {
			sum += jget_num(s, "value", NAN);
			mn = fmin(mn, jget_num(s, "value", NAN));
			mx = fmax(mx, jget_num(s, "value", NAN));
		}
		si_text(sum / (double)m, mt, sizeof(mt));
		web_buf_printf(b, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"#999\"/>"
			       "<path class=\"mean\" d=\"M%.1f %.1fH%.1f\" stroke=\"#d62728\" "
			       "stroke-width=\"2\"><title>", x, Y(mn), Y(mx), x - half,
			       Y(sum / (double)m), x + half);
		web_buf_html(b, label);
		web_buf_printf(b, ": mean %s %s of %zu, min..max ", mt, unit, m);
		si_text(mn, t, sizeof(t));
		web_buf_printf(b, "%s..", t);
		si_text(mx, t, sizeof(t));
		web_buf_printf(b, "%s</title></path>\n", t);
		json_array_foreach(list, j, s) {
			double dx = x + ((double)j - (double)(m - 1) / 2) * gap;
			long long sj = (long long)json_integer_value(json_object_get(s, "job"));

			if (*dots >= MAX_DOTS)
				break;
			(*dots)++;
			si_text(jget_num(s, "value", NAN), t, sizeof(t));
			web_buf_printf(b, "<a href=\"/runs/%lld?seconds=%lld#seconds\"><circle "
				       "class=\"rep\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\">"
				       "<title>", run, sj, dx, Y(jget_num(s, "value", NAN)),
				       sj == job ? "5" : "3.5", sj == job ? "#ff7f0e" : "#1f77b4");
			web_buf_html(b, label);
			web_buf_printf(b, " rep %lld: %s %s</title></circle></a>\n",
				       (long long)json_integer_value(json_object_get(s, "rep")), t,
				       unit);
		}
		web_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(25 %.1f %.1f)\">",
			       x - 10, RUN_H - RUN_BOTTOM + 14, x - 10, RUN_H - RUN_BOTTOM + 14);
		web_buf_html(b, label);
		web_buf_str(b, "</text>\n");
		i++;
	}
#undef X
#undef Y
	web_buf_str(b, "</svg>\n");
}

/* The per-second trace of series S (index IDX of its job's). */
static void trace_chart(struct web_buf *b, const json_t *s, long long idx)
{
	const json_t *secs = json_object_get(s, "seconds"), *vals = json_object_get(s, "values");
	double lo = INFINITY, hi = -INFINITY, base, top, last = 1, step;
	char pt[256], t[32];
	json_t *v;
	size_t i;

	json_array_foreach(vals, i, v) {
		lo = fmin(lo, json_number_value(v));
		hi = fmax(hi, json_number_value(v));
		last = fmax(last, (double)json_integer_value(json_array_get(secs, i)));
	}
	y_range(lo, hi, &base, &top);
	step = (W - LEFT - RIGHT) / (last + 1);
#define X(k) (LEFT + step * ((k) + 0.5))
#define Y(v) (TOP + (TRACE_H - 30 - TOP) * (1 - ((v) - base) / (top - base)))
	point_label(json_object_get(s, "point"), pt, sizeof(pt));
	web_buf_printf(b, "<div class=\"trace\" id=\"s%lld\"><h4>per second: ", idx);
	html_words(b, (const char *[]){ jget_str(s, "metric", ""), jget_str(s, "host", ""), jget_str(s, "variant", ""),
			jget_str(s, "subject", ""), pt, NULL });
	web_buf_printf(b, " rep %lld</h4>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		       "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-size=\"11\" "
		       "font-family=\"sans-serif\">\n",
		       (long long)json_integer_value(json_object_get(s, "rep")), W, TRACE_H, W,
		       TRACE_H);
	y_axis(b, base, top, TRACE_H, 30, jget_str(s, "unit", ""));
	web_buf_str(b, "<path class=\"trace-line\" fill=\"none\" stroke=\"#1f77b4\" d=\"");
	json_array_foreach(vals, i, v)
		web_buf_printf(b, "%s%.1f %.1f", i ? "L" : "M",
			       X((double)json_integer_value(json_array_get(secs, i))),
			       Y(json_number_value(v)));
	web_buf_str(b, "\"/>\n");
	json_array_foreach(vals, i, v) {
		double sec = (double)json_integer_value(json_array_get(secs, i));

		si_text(json_number_value(v), t, sizeof(t));
		web_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#1f77b4\">"
			       "<title>second %.0f: %s</title></circle>", X(sec),
			       Y(json_number_value(v)), sec, t);
		if (last < 40 || !((long long)sec % 10))
			web_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f"
				       "</text>", X(sec), TRACE_H - 14, sec);
		web_buf_str(b, "\n");
	}
#undef X
#undef Y
	web_buf_str(b, "</svg></div>\n");
}

void web_chart_run(struct web_buf *b, const json_t *result, long long run, long long job,
		   const json_t *seconds)
{
	const json_t *series = json_object_get(seconds, "series");
	json_t *metrics = json_object(), *s, *cats, *list;
	char label[600], pt[256];
	const char *metric;
	size_t i, dots = 0, total = 0;

	if (!metrics)
		return;
	/* by metric, then category, in the order the samples come (job order) */
	json_array_foreach(json_object_get(result, "samples"), i, s) {
		if (analysis_row_is_record(s) || !isfinite(jget_num(s, "value", NAN)))
			continue;
		cats = json_object_get(metrics, jget_str(s, "metric", ""));
		if (!cats && json_object_set_new(metrics, jget_str(s, "metric", ""), cats = json_object()))
			goto out;
		point_label(json_object_get(s, "point"), pt, sizeof(pt));
		snprintf(label, sizeof(label), "%s %s %s%s%s", jget_str(s, "host", ""), jget_str(s, "variant", ""),
			 jget_str(s, "subject", ""), *pt ? " " : "", pt);
		list = json_object_get(cats, label);
		if (!list && json_object_set_new(cats, label, list = json_array()))
			goto out;
		json_array_append(list, s);
		total++;
	}
	if (!json_object_size(metrics))
		goto out;
	/* the clicked repetition's seconds first, where the link lands */
	if (job > 0) {
		web_buf_printf(b, "<div id=\"seconds\">\n");
		json_array_foreach(series, i, s)
			trace_chart(b, s, (long long)i);
		if (!json_array_size(series))
			web_buf_printf(b, "<p>Job %lld has no per-second values.</p>\n", job);
		web_buf_str(b, "</div>\n");
	}
	web_buf_str(b, "<p>Each dot is a repetition (the red bar their mean, the grey line "
		    "min..max); click one for its per-second values.</p>\n");
	json_object_foreach(metrics, metric, cats)
		metric_chart(b, metric, cats, run, job, &dots);
	if (dots < total)
		web_buf_printf(b, "<p>%zu of %zu repetitions drawn.</p>\n", dots, total);
out:
	json_decref(metrics);
}
