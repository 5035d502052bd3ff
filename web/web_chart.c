// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web_chart.c - the /history page's chart: a small hand-written SVG of a history report
 * (analysis_history, docs/analysis.md), inlined in the page (no script, no external
 * resource): per series the group means with stddev bars (the spread where there is no
 * stddev), a <title> on each point (group, n, mean ± stddev, spread, delta %) for hover,
 * the change points as dashed red lines (between two groups: halfway; within one: on it),
 * the groups along x, a legend. Every text is HTML-escaped.
 */
#include "web.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

static double num(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* The half height of P's bar: stddev, else spread, else 0. */
static double bar(const json_t *p)
{
	double e = num(p, "stddev");

	if (!isfinite(e))
		e = num(p, "spread");
	return isfinite(e) ? e : 0;
}

/* O's number K as FMT into BUF, "-" when absent (a stddev of one value): a hover title
 * never says "nan". */
static const char *num_text(const json_t *o, const char *k, const char *fmt, char *buf,
			    size_t len)
{
	double v = num(o, k);

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
		if (!strcmp(str(g, "group"), group))
			return (long)i;
	return -1;
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
			if (isfinite(num(p, "mean")) && num(p, "mean") + bar(p) > top)
				top = num(p, "mean") + bar(p);
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
	/* axes, y ticks at 0, 1/4, ... of the top, the unit */
	web_buf_printf(b, "<path d=\"M%.1f %.1fV%.1fH%.1f\" stroke=\"#444\" fill=\"none\"/>\n",
		       LEFT, TOP, H - BOTTOM, W - RIGHT);
	for (i = 0; i <= 4; i++) {
		y = Y(top * (double)i / 4);
		web_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>"
			       "<path d=\"M%.1f %.1fH%.1f\" stroke=\"#eee\"/>\n", LEFT - 4, y + 4,
			       top * (double)i / 4, LEFT + 1, y, W - RIGHT);
	}
	web_buf_printf(b, "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" "
		       "text-anchor=\"middle\">", (H - BOTTOM + TOP) / 2, (H - BOTTOM + TOP) / 2);
	s = json_array_get(series, 0);
	web_buf_html(b, *str(s, "unit") ? str(s, "unit") : "value");
	web_buf_str(b, "</text>\n");
	json_array_foreach(groups, i, c) {
		web_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(30 %.1f %.1f)\">",
			       X(i), H - BOTTOM + 14, X(i), H - BOTTOM + 14);
		web_buf_html(b, str(c, "group"));
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
			long k = group_index(groups, str(c, "after"));

			if (k < 0)
				continue;
			x = X(k) - (json_is_true(json_object_get(c, "within")) ? 0 : step / 2);
			web_buf_printf(b, "<path class=\"change\" d=\"M%.1f %.1fV%.1f\" stroke=\"red\" "
				       "stroke-dasharray=\"5 4\"><title>change point: ", x, TOP,
				       H - BOTTOM);
			web_buf_html(b, str(c, "before"));
			web_buf_str(b, " -&gt; ");
			web_buf_html(b, str(c, "after"));
			web_buf_str(b, "</title></path>\n");
		}
		json_array_foreach(json_object_get(s, "points"), j, p) {
			long k = group_index(groups, str(p, "group"));
			double m = num(p, "mean"), e = bar(p);

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
			web_buf_html(b, str(p, "group"));
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
		web_buf_html(b, str(s, "variant"));
		web_buf_str(b, " ");
		web_buf_html(b, str(s, "subject"));
		web_buf_str(b, " ");
		web_buf_html(b, str(s, "point"));
		web_buf_str(b, "</text>\n");
	}
#undef X
#undef Y
	web_buf_str(b, "</svg>\n");
}
