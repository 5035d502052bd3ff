/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* plot.h - plots of the compare and history reports, rendered by gnuplot.
 *
 * gnuplot runs as a child process (`gnuplot`, from gnuplot-nox) that reads a script on
 * its standard input: the data goes inline as datablocks, so no temporary file is left
 * behind. The terminal follows FILE's extension: .svg (svg) or .png (pngcairo). History:
 * a line per series over the groups (kernels or days), mean with error bars of ± one
 * standard deviation of the repetitions (half the range when there is one value less
 * than two), change points as dashed vertical lines. Compare: one panel per metric
 * compared (stacked in one file, in the order of the rows, at most PLOT_MAX_PANELS), each
 * with grouped bars of the mean per row, one bar per side, with the same error bars.
 *
 * Functions return 0 or -errno with the reason in ERR (-ENOENT gnuplot missing, -EIO
 * gnuplot failed, -EINVAL unknown extension or nothing to plot). Blocking; call from one
 * thread at a time (fork).
 */
#ifndef BPFLAB_PLOT_H
#define BPFLAB_PLOT_H

#include <jansson.h>
#include <stddef.h>

#include "base/err.h"

/* The most metrics one compare plot draws (one panel each). */
#define PLOT_MAX_PANELS 12

/* Whether a plot can be written to FILE: a .svg or .png name in a place this process
 * may create or overwrite it (nothing is left behind). 0, or -errno with ERR saying
 * "cannot write 'FILE': REASON". Called before anything is computed or printed, so that
 * gnuplot never falls back to standard output. */
int plot_check_output(const char *file, struct err *err);
/* Write the gnuplot script for history REPORT to FILE into *SCRIPT (heap, caller frees). */
int plot_history_script(const json_t *report, const char *file, char **script,
			struct err *err);
/* The same for compare REPORT. */
int plot_compare_script(const json_t *report, const char *file, char **script,
			struct err *err);
/* Render: run gnuplot on the script of the functions above. */
int plot_history(const json_t *report, const char *file, struct err *err);
int plot_compare(const json_t *report, const char *file, struct err *err);
/* Run gnuplot with SCRIPT on its standard input and wait for it. */
int plot_run_gnuplot(const char *script, struct err *err);

#endif
