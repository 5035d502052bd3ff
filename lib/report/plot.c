// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plot.c - see plot.h. gnuplot scripts for history and compare, and running gnuplot.
 *
 * Scripts are built in an open_memstream buffer; labels are quoted for gnuplot (single
 * quotes, a quote doubled). Called by cli/result_analysis.c.
 */
#include "report/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/jget.h"
#include "base/log.h"

/* S in gnuplot single quotes. */
static void quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if (*s != '\n')
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* A label inside a datablock: double quotes, no double quote inside. */
static void label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc(*s == '"' || *s == '\n' ? '\'' : *s, f);
	fputc('"', f);
}

/* The format of FILE from its extension: "svg", "png" or NULL. */
static const char *plot_format(const char *file)
{
	const char *ext = strrchr(file, '.');

	if (ext && !strcmp(ext, ".svg"))
		return "svg";
	if (ext && !strcmp(ext, ".png"))
		return "png";
	return NULL;
}

int plot_check_output(const char *file, struct err *err)
{
	int fd, e;

	if (!file || !*file)
		return err_ret(err, -EINVAL, "no file name to plot to");
	if (!plot_format(file))
		return err_ret(err, -EINVAL, "cannot tell the format of '%s' "
			      "(expected a name ending in .svg or .png)", file);
	/* an existing file is opened without truncating; a new one is removed again */
	fd = open(file, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != ENOENT)
		return err_ret(err, -errno, "cannot write '%s': %s", file, strerror(errno));
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0) {
		e = -errno;
		return err_ret(err, e, "cannot write '%s': %s", file, strerror(-e));
	}
	close(fd);
	unlink(file);
	return 0;
}

/* The terminal (WIDTH x HEIGHT) and output lines for FILE. */
static int terminal_sized(FILE *f, const char *file, int width, int height, struct err *err)
{
	const char *fmt = plot_format(file);

	if (fmt && !strcmp(fmt, "svg"))
		fprintf(f, "set terminal svg size %d,%d dynamic noenhanced font 'sans,11' "
			"background rgb 'white'\n", width, height);
	else if (fmt)
		fprintf(f, "set terminal pngcairo size %d,%d noenhanced font 'sans,10'\n", width,
			height);
	else
		return err_ret(err, -EINVAL, "cannot tell the format of '%s' "
			      "(expected a name ending in .svg or .png)", file);
	fprintf(f, "set output ");
	quote(f, file);
	/* axis numbers as the text writes them: SI prefixes, not 1.4e+07 */
	fprintf(f, "\nset encoding utf8\nset key outside below\nset grid ytics\n"
		"set format y '%%.1s%%c'\n");
	return 0;
}

static int terminal(FILE *f, const char *file, struct err *err)
{
	return terminal_sized(f, file, 900, 520, err);
}

/* The error bar half-width of a point: stddev, else spread, else 0. */
static double errbar(const json_t *p, const char *sd, const char *spread)
{
	double e = jget_num(p, sd, NAN);

	if (!isfinite(e))
		e = jget_num(p, spread, NAN);
	return isfinite(e) ? e : 0;
}

/* Close the script stream F whose buffer is *BUF: on success (E 0) the script goes to
 * *SCRIPT, else it is freed. Returns E, or -ENOMEM when the stream could not be closed. */
static int script_close(FILE *f, char **buf, int e, char **script, struct err *err)
{
	if (fclose(f) && !e)
		e = err_ret(err, -ENOMEM, "out of memory");
	if (e)
		free(*buf);
	else
		*script = *buf;
	return e;
}

int plot_history_script(const json_t *report, const char *file, char **script, struct err *err)
{
	json_t *series = json_object_get(report, "series"), *s, *p, *c;
	char *buf = NULL;
	size_t len = 0, i, j, n_points = 0;
	FILE *f;
	int e;

	*script = NULL;
	if (!json_array_size(series))
		return err_ret(err, -EINVAL, "nothing to plot: the history is empty");
	f = open_memstream(&buf, &len);
	if (!f)
		return err_ret(err, -ENOMEM, "out of memory");
	e = terminal(f, file, err);
	if (e)
		goto out;
	fprintf(f, "set title ");
	s = json_array_get(series, 0);
	{
		char t[512];

		snprintf(t, sizeof(t), "%s history by %s (mean ± stddev of the repetitions)",
			 jget_str(s, "metric", ""), jget_str(report, "by", ""));
		quote(f, t);
	}
	fprintf(f, "\nset ylabel ");
	quote(f, *jget_str(s, "unit", "") ? jget_str(s, "unit", "") : "value");
	fprintf(f, "\nset xlabel ");
	quote(f, jget_str(report, "by", ""));
	fprintf(f, "\nset xtics rotate by -30\nset offsets 0.3, 0.3, 0, 0\nset yrange [0:*]\n");
	json_array_foreach(series, i, s) {
		fprintf(f, "$s%zu << EOD\n", i);
		json_array_foreach(json_object_get(s, "points"), j, p) {
			fprintf(f, "%zu ", j);
			label(f, jget_str(p, "group", ""));
			fprintf(f, " %.17g %.17g\n", jget_num(p, "mean", NAN), errbar(p, "stddev", "spread"));
			n_points++;
		}
		fprintf(f, "EOD\n");
		json_array_foreach(json_object_get(s, "changes"), j, c) {
			/* between two groups: halfway; within one: on it */
			double x = 0;
			size_t k;

			json_array_foreach(json_object_get(s, "points"), k, p)
				if (!strcmp(jget_str(p, "group", ""), jget_str(c, "after", "")))
					x = (double)k - (json_is_true(json_object_get(c, "within")) ? 0 : 0.5);
			fprintf(f, "set arrow from first %g, graph 0 to first %g, graph 1 nohead "
				"dashtype 2 lc rgb 'red'\n", x, x);
		}
	}
	fprintf(f, "plot ");
	json_array_foreach(series, i, s) {
		char t[512];

		snprintf(t, sizeof(t), "%s%s%s%s%s", jget_str(s, "variant", ""),
			 *jget_str(s, "subject", "") ? " " : "", jget_str(s, "subject", ""),
			 *jget_str(s, "point", "") ? " " : "", jget_str(s, "point", ""));
		fprintf(f, "%s$s%zu using 1:3:4:xticlabels(2) with yerrorlines pt 7 lw 2 title ",
			i ? ", \\\n     " : "", i);
		quote(f, *t ? t : jget_str(s, "metric", ""));
	}
	fprintf(f, "\n");
	if (!n_points)
		e = err_ret(err, -EINVAL, "nothing to plot: no points");
out:
	return script_close(f, &buf, e, script, err);
}

/* The distinct metrics of the rows of COMPARISONS[0], in row order, into a new array. */
static json_t *compare_metrics(const json_t *cmps)
{
	json_t *metrics = json_array(), *r, *m;
	size_t i, j;

	if (!metrics)
		return NULL;
	json_array_foreach(json_object_get(json_array_get(cmps, 0), "rows"), i, r) {
		json_array_foreach(metrics, j, m)
			if (!strcmp(json_string_value(m), jget_str(r, "metric", "")))
				break;
		if (j == json_array_size(metrics) &&
		    json_array_append_new(metrics, json_string(jget_str(r, "metric", "")))) {
			json_decref(metrics);
			return NULL;
		}
	}
	return metrics;
}

/* One panel: the grouped bars of METRIC (datablock $dK), one group per row of the
 * baseline, one bar per side. Returns the number of groups. */
static size_t compare_panel(FILE *f, const json_t *report, const char *metric, size_t k)
{
	json_t *cmps = json_object_get(report, "comparisons"), *first = json_array_get(cmps, 0);
	json_t *r, *cmp, *r2, *unit_row = NULL;
	size_t i, c, j, n = 0;
	char t[512];

	fprintf(f, "$d%zu << EOD\n", k);
	json_array_foreach(json_object_get(first, "rows"), i, r) {
		if (strcmp(jget_str(r, "metric", ""), metric))
			continue;
		if (!unit_row)
			unit_row = r;
		snprintf(t, sizeof(t), "%s%s%s%s%s", jget_str(r, "variant", ""),
			 *jget_str(r, "variant", "") && *jget_str(r, "subject", "") ? " " : "", jget_str(r, "subject", ""),
			 *jget_str(r, "point", "") ? " " : "", jget_str(r, "point", ""));
		label(f, *t ? t : metric);
		fprintf(f, " %.17g %.17g", jget_num(r, "mean_a", NAN), errbar(r, "stddev_a", "spread_a"));
		json_array_foreach(cmps, c, cmp) {
			double m = NAN, sd = 0;

			json_array_foreach(json_object_get(cmp, "rows"), j, r2)
				if (!strcmp(jget_str(r2, "metric", ""), metric) &&
				    !strcmp(jget_str(r2, "variant", ""), jget_str(r, "variant", "")) &&
				    !strcmp(jget_str(r2, "subject", ""), jget_str(r, "subject", "")) &&
				    !strcmp(jget_str(r2, "point", ""), jget_str(r, "point", ""))) {
					m = jget_num(r2, "mean_b", NAN);
					sd = errbar(r2, "stddev_b", "spread_b");
				}
			if (isfinite(m))
				fprintf(f, " %.17g %.17g", m, sd);
			else
				fprintf(f, " NaN 0");
		}
		fprintf(f, "\n");
		n++;
	}
	fprintf(f, "EOD\n");
	snprintf(t, sizeof(t), "%s by %s (mean ± stddev)", metric, jget_str(report, "by", ""));
	fprintf(f, "set title ");
	quote(f, t);
	fprintf(f, "\nset ylabel ");
	quote(f, unit_row && *jget_str(unit_row, "unit", "") ? jget_str(unit_row, "unit", "") : "value");
	fprintf(f, "\nplot $d%zu using 2:3:xtic(1) title ", k);
	quote(f, jget_str(report, "baseline", ""));
	json_array_foreach(cmps, c, cmp) {
		fprintf(f, ", '' using %zu:%zu title ", 4 + 2 * c, 5 + 2 * c);
		quote(f, jget_str(cmp, "candidate", ""));
	}
	fprintf(f, "\n");
	return n;
}

int plot_compare_script(const json_t *report, const char *file, char **script, struct err *err)
{
	json_t *cmps = json_object_get(report, "comparisons"), *metrics, *m;
	char *buf = NULL;
	size_t len = 0, k, n = 0, n_metrics;
	FILE *f;
	int e;

	*script = NULL;
	if (!json_array_get(json_object_get(json_array_get(cmps, 0), "rows"), 0))
		return err_ret(err, -EINVAL, "nothing to plot: no compared rows");
	metrics = compare_metrics(cmps);
	if (!metrics)
		return err_ret(err, -ENOMEM, "out of memory");
	n_metrics = json_array_size(metrics);
	if (n_metrics > PLOT_MAX_PANELS) {
		json_decref(metrics);
		return err_ret(err, -EINVAL, "too many metrics to plot: %zu (at most %d "
			      "panels; choose some with --metric)", n_metrics, PLOT_MAX_PANELS);
	}
	f = open_memstream(&buf, &len);
	if (!f) {
		json_decref(metrics);
		return err_ret(err, -ENOMEM, "out of memory");
	}
	e = terminal_sized(f, file, 900, n_metrics > 1 ? 380 * (int)n_metrics : 520, err);
	if (e)
		goto out;
	fprintf(f, "set style data histogram\nset style histogram errorbars gap 1 lw 1\n"
		"set style fill solid 0.6 border -1\nset boxwidth 0.9\nset yrange [0:*]\n"
		"set xtics rotate by -30\n");
	if (n_metrics > 1)
		fprintf(f, "set multiplot layout %zu,1\n", n_metrics);
	json_array_foreach(metrics, k, m)
		n += compare_panel(f, report, json_string_value(m), k);
	if (n_metrics > 1)
		fprintf(f, "unset multiplot\n");
	if (!n)
		e = err_ret(err, -EINVAL, "nothing to plot");
out:
	json_decref(metrics);
	return script_close(f, &buf, e, script, err);
}

/* gnuplot's words from its stderr (TALK, rewound) for bpflab's messages: its first
 * error line into OUT (LEN bytes, "" when none), its warnings to the debug log (a plot
 * of one group: "empty x range", which gnuplot mends itself). gnuplot echoes the script
 * line and a caret line before an error; the message is the line that names the line
 * ("\"-\", line 12: undefined variable: x"). */
static void gnuplot_words(FILE *talk, char *out, size_t len)
{
	char line[512];
	size_t n;

	out[0] = '\0';
	if (!talk)
		return;
	rewind(talk);
	while (fgets(line, sizeof(line), talk)) {
		n = strcspn(line, "\r\n");
		line[n] = '\0';
		if (!n || strspn(line, " ^") == n)
			continue;
		if (strstr(line, "arning:")) {
			pr_debug("plot: gnuplot: %s", line);
			continue;
		}
		if (!*out && (strstr(line, "line ") || strstr(line, "rror")))
			snprintf(out, len, "%s", line + strspn(line, " \t"));
	}
}

int plot_run_gnuplot(const char *script, struct err *err)
{
	int in[2], status = 0, e = 0;
	size_t len = strlen(script), off = 0;
	FILE *talk = tmpfile();		/* gnuplot's stderr: bpflab says what matters */
	char words[512];
	ssize_t w;
	pid_t pid;
	void (*old)(int);

	if (pipe2(in, O_CLOEXEC)) {
		e = err_ret(err, -errno, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		e = -errno;
		close(in[0]);
		close(in[1]);
		e = err_ret(err, e, "cannot start gnuplot: %s", strerror(-e));
		goto out;
	}
	if (pid == 0) {
		/* gnuplot writes the plot to its standard output when it cannot open the
		 * file: never onto ours (JSON or a table may be going there) */
		int null = open("/dev/null", O_WRONLY);

		dup2(in[0], STDIN_FILENO);
		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		if (talk)
			dup2(fileno(talk), STDERR_FILENO);
		else if (null >= 0)
			dup2(null, STDERR_FILENO);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	old = signal(SIGPIPE, SIG_IGN);
	while (off < len) {
		w = write(in[1], script + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(in[1]);
	signal(SIGPIPE, old);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	gnuplot_words(talk, words, sizeof(words));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		e = err_ret(err, -ENOENT, "cannot run 'gnuplot' (install gnuplot-nox)");
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		e = err_ret(err, -EIO, "gnuplot failed (status %d)%s%s",
			   WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
			   *words ? ": " : "", words);
	else if (off < len)
		e = err_ret(err, -EIO, "gnuplot did not read its script");
out:
	if (talk)
		fclose(talk);
	return e;
}

/* Write the plot of REPORT to FILE: the gnuplot script MAKE_SCRIPT writes, run. */
static int plot_with(int (*make_script)(const json_t *report, const char *file, char **script,
					struct err *err),
		     const json_t *report, const char *file, struct err *err)
{
	char *script = NULL;
	int e = plot_check_output(file, err);

	if (!e)
		e = make_script(report, file, &script, err);

	if (!e)
		e = plot_run_gnuplot(script, err);
	free(script);
	return e;
}

int plot_history(const json_t *report, const char *file, struct err *err)
{
	return plot_with(plot_history_script, report, file, err);
}

int plot_compare(const json_t *report, const char *file, struct err *err)
{
	return plot_with(plot_compare_script, report, file, err);
}
