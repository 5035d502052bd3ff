/* web_chart_cmp.c - the compare page's chart (docs/dashboard.md, /compare): an inline SVG
 * of the rows of `result compare -j`, one horizontal bar per row (metric, variant,
 * subject) from 0 to its delta % (the axis at most +-100 %: beyond, cut and marked with
 * an arrow), its confidence interval as a whisker, coloured by
 * verdict (SAME grey, UNKNOWN amber, a change blue), a hover title with the means and
 * the verdict. No script, no outside resource. Called by web_page.c on the request's
 * thread; pure.
 */
#include "web.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_compare.h"

/* Rows drawn at most (the table below has them all). */
#define CHART_ROWS 80
#define ROW_H 18
#define LABEL_W 330
#define PLOT_W 420
/* The axis spans at most +-SPAN_MAX %: a bar beyond it is cut at the edge and marked
 * with an arrow (its title has the value), so one huge change does not flatten the
 * others. Labels longer than LABEL_MAX bytes are cut (the title has them whole). */
#define SPAN_MAX 100.0
#define LABEL_MAX 50

static const char *bar_colour(const char *verdict)
{
	if (!verdict || !strcmp(verdict, "SAME"))
		return "#999";
	if (!strcmp(verdict, "UNKNOWN"))
		return "#d90";
	return "#06c";
}

void web_chart_compare(struct web_buf *b, const json_t *report)
{
	const json_t *c, *r;
	double span = 1;
	size_t i, k, rows = 0, y;

	json_array_foreach(json_object_get(report, "comparisons"), i, c)
		json_array_foreach(json_object_get(c, "rows"), k, r) {
			double lo = json_number_value(json_object_get(r, "ci_lo_pct"));
			double hi = json_number_value(json_object_get(r, "ci_hi_pct"));
			double d = json_number_value(json_object_get(r, "delta_pct"));

			if (rows++ >= CHART_ROWS)
				continue;
			if (isfinite(lo) && fabs(lo) > span)
				span = fabs(lo);
			if (isfinite(hi) && fabs(hi) > span)
				span = fabs(hi);
			if (isfinite(d) && fabs(d) > span)
				span = fabs(d);
		}
	if (!rows)
		return;
	if (rows > CHART_ROWS)
		rows = CHART_ROWS;
	span = ceil(fmin(span, SPAN_MAX));
	web_buf_printf(b, "<svg id=\"compare-chart\" xmlns=\"http://www.w3.org/2000/svg\" "
		       "width=\"%d\" height=\"%zu\" role=\"img\" aria-label=\"delta per row\">\n"
		       "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%zu\" stroke=\"#444\"/>\n"
		       "<text x=\"%d\" y=\"%zu\" font-size=\"11\">-%.0f %%</text>"
		       "<text x=\"%d\" y=\"%zu\" font-size=\"11\" text-anchor=\"middle\">0</text>"
		       "<text x=\"%d\" y=\"%zu\" font-size=\"11\" text-anchor=\"end\">+%.0f %%"
		       "</text>\n", LABEL_W + PLOT_W + 10, rows * ROW_H + 20,
		       LABEL_W + PLOT_W / 2, LABEL_W + PLOT_W / 2, rows * ROW_H, LABEL_W,
		       rows * ROW_H + 14, span, LABEL_W + PLOT_W / 2, rows * ROW_H + 14,
		       LABEL_W + PLOT_W, rows * ROW_H + 14, span);
	y = 0;
	json_array_foreach(json_object_get(report, "comparisons"), i, c)
		json_array_foreach(json_object_get(c, "rows"), k, r) {
			const char *verdict = json_string_value(json_object_get(r, "verdict"));
			double d = json_number_value(json_object_get(r, "delta_pct"));
			double lo = json_number_value(json_object_get(r, "ci_lo_pct"));
			double hi = json_number_value(json_object_get(r, "ci_hi_pct"));
			double x0 = LABEL_W + PLOT_W / 2.0, scale = PLOT_W / 2.0 / span;
			double dc, loc, hic;
			char ma[32], mb[32], label[256];

			if (y >= rows)
				continue;
			if (!isfinite(d))
				d = 0;
			dc = fmax(-span, fmin(span, d));
			snprintf(label, sizeof(label), "%s %s %s",
				 json_string_value(json_object_get(r, "metric")) ?: "",
				 json_string_value(json_object_get(r, "variant")) ?: "",
				 json_string_value(json_object_get(r, "subject")) ?: "");
			if (strlen(label) > LABEL_MAX)
				memcpy(label + LABEL_MAX - 3, "...", 4);
			web_buf_printf(b, "<g><title>");
			web_buf_html(b, json_string_value(json_object_get(r, "metric")));
			web_buf_str(b, " ");
			web_buf_html(b, json_string_value(json_object_get(r, "variant")));
			web_buf_str(b, " ");
			web_buf_html(b, json_string_value(json_object_get(r, "subject")));
			web_buf_printf(b, ": %s -> %s, %+.1f %% [%+.1f, %+.1f], ",
				       report_compare_num(json_number_value(json_object_get(r,
						"mean_a")), ma, sizeof(ma)),
				       report_compare_num(json_number_value(json_object_get(r,
						"mean_b")), mb, sizeof(mb)), d, lo, hi);
			web_buf_html(b, verdict);
			web_buf_printf(b, "</title><text x=\"%d\" y=\"%zu\" font-size=\"11\" "
				       "text-anchor=\"end\">", LABEL_W - 6, y * ROW_H + 13);
			web_buf_html(b, label);
			web_buf_printf(b, "</text><rect x=\"%.1f\" y=\"%zu\" width=\"%.1f\" "
				       "height=\"%d\" fill=\"%s\"/>", dc < 0 ? x0 + dc * scale : x0,
				       y * ROW_H + 3, fabs(dc) * scale, ROW_H - 6, bar_colour(verdict));
			if (dc != d)
				web_buf_printf(b, "<text x=\"%.1f\" y=\"%zu\" font-size=\"11\" "
					       "text-anchor=\"%s\">%s</text>", x0 + dc * scale,
					       y * ROW_H + 13, d < 0 ? "start" : "end",
					       d < 0 ? "&#9664;" : "&#9654;");
			if (isfinite(lo) && isfinite(hi) && hi >= lo) {
				loc = fmax(-span, fmin(span, lo));
				hic = fmax(-span, fmin(span, hi));
				web_buf_printf(b, "<line x1=\"%.1f\" y1=\"%zu\" x2=\"%.1f\" y2=\"%zu\" "
					       "stroke=\"#222\"/>", x0 + loc * scale, y * ROW_H + 9,
					       x0 + hic * scale, y * ROW_H + 9);
			}
			web_buf_str(b, "</g>\n");
			y++;
		}
	web_buf_str(b, "</svg>\n");
}
