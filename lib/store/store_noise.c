// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_noise.c - see store_noise.h. The noise floors of hosts, computed from a run's
 * stored values and kept in host_noise (schema 010).
 *
 * store_noise_record reads the whole-window values of the run's finished jobs ordered by
 * (host, environment, metric, subject, window, variant, point), so that each group of
 * repetitions comes as one stretch of rows, and writes the pooled CV per (host,
 * environment, metric, subject, window) in the same transaction. Its statements are
 * the store's (store_int.h).
 */
#include "store/store_noise.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/noise.h"
#include "store/store_int.h"
#include "base/util.h"

static int no_memory(struct store *store)
{
	return store_fail(store, -ENOMEM, "cannot record the noise floor: out of memory");
}

/* The rows of store_noise_list and store_noise_record. */
static const struct sql_col noise_cols[] = {
	{ "host_id", SQL_INT, 0 }, { "host", SQL_TEXT, 0 }, { "run", SQL_INT, 0 },
	{ "env_id", SQL_INT, 0 }, { "kernel_release", SQL_TEXT, 0 },
	{ "measured_ms", SQL_INT, 0 }, { "metric", SQL_TEXT, 0 }, { "subject", SQL_TEXT, 0 },
	{ "window", SQL_TEXT, 0 }, { "unit", SQL_TEXT, 0 }, { "n", SQL_INT, 0 },
	{ "mean", SQL_REAL, 0 }, { "cv", SQL_REAL, 0 },
};

#define NOISE_SELECT                                                                      \
	"SELECT n.host_id, h.name, n.run_id, n.env_id, e.kernel_release, n.measured_ms, "   \
	"n.metric, n.subject, n.window, n.unit, n.n, n.mean, n.cv FROM host_noise n "        \
	"JOIN hosts h ON h.id = n.host_id JOIN host_envs e ON e.id = n.env_id "

static const struct sto_stmt stmt_latest = {
	NOISE_SELECT "WHERE n.run_id = (SELECT l.run_id FROM host_noise l "
	"WHERE l.host_id = n.host_id ORDER BY l.measured_ms DESC, l.run_id DESC LIMIT 1) "
	"ORDER BY n.host_id, n.metric, n.subject, n.window, n.env_id",
};
static const struct sto_stmt stmt_of_run = {
	NOISE_SELECT "WHERE n.run_id = ?1 ORDER BY n.host_id, n.metric, n.subject, n.window, "
	"n.env_id",
};

json_t *store_noise_list(struct store *store)
{
	json_t *arr = sto_query_rows(store, &stmt_latest, noise_cols, ARRAY_SIZE(noise_cols),
				     "");

	if (!arr)
		errno = -sto_context(store, -errno, "cannot read the noise floors");
	return arr;
}

/* One (host, environment, metric, subject, window) being summed up. */
struct acc {
	int64_t host, env;
	char *metric, *subject, *window, *unit;
	double ss;			/* sum of (n_i - 1) cv_i^2 over the groups */
	int64_t df;			/* sum of (n_i - 1) */
	int64_t n;			/* values in the groups that count */
	double sum;			/* of those values */
	int64_t stored;			/* rows written */
};

static void acc_release(struct acc *a)
{
	free(a->metric);
	free(a->subject);
	free(a->window);
	free(a->unit);
	memset(a, 0, sizeof(*a));
}

/* The values of one (variant, point) group, in a growing array. */
struct vals {
	double *v;
	size_t n, cap;
};

static int vals_add(struct vals *g, double v)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		double *nv = realloc(g->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		g->v = nv;
		g->cap = cap;
	}
	g->v[g->n++] = v;
	return 0;
}

/* Add group G (then emptied) to A: its CV counts when it has two values and a mean. */
static void acc_group(struct acc *a, struct vals *g)
{
	double cv = noise_cv(g->v, g->n);
	size_t i;

	if (isfinite(cv)) {
		a->ss += (double)(g->n - 1) * cv * cv;
		a->df += (int64_t)g->n - 1;
		a->n += (int64_t)g->n;
		for (i = 0; i < g->n; i++)
			a->sum += g->v[i];
	}
	g->n = 0;
}

static const struct sto_stmt stmt_insert = {
	"INSERT INTO host_noise (run_id, host_id, env_id, metric, subject, window, unit, n, "
	"mean, cv, measured_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
};

/* Write A's row when it has enough values. */
static int acc_store(struct store *store, int64_t run, int64_t now_ms, struct acc *a)
{
	int err;

	if (!a->metric || a->n < NOISE_MIN_VALUES || a->df < 1)
		return 0;
	err = sto_exec(store, &stmt_insert, NULL, "iiittttirri", run, a->host, a->env,
		       a->metric, a->subject, a->window, a->unit, a->n, a->sum / (double)a->n,
		       sqrt(a->ss / (double)a->df), now_ms);
	if (err)
		return sto_context(store, err, "cannot store the noise floor");
	a->stored++;
	return 0;
}

static bool same(const unsigned char *a, const char *b)
{
	return !strcmp(a ? (const char *)a : "", b ? b : "");
}

static const struct sto_stmt stmt_run_values = {
	"SELECT j.host_id, j.env_id, s.metric, s.subject, s.window, v.unit, j.variant, "
	"j.point, v.value FROM jobs j JOIN sample_values v ON v.job_id = j.id AND v.seq = -1 "
	"JOIN series s ON s.id = v.series_id WHERE j.run_id = ?1 AND j.state = 'done' AND "
	"j.env_id IS NOT NULL ORDER BY j.host_id, j.env_id, s.metric, s.subject, s.window, "
	"j.variant, j.point, j.rep",
};

/* Read run RUN's values and write its rows; *STORED gets how many. In a transaction. */
static int record(struct store *store, int64_t run, int64_t now_ms, int64_t *stored)
{
	sqlite3_stmt *s = NULL;
	struct acc a = { 0 };
	struct vals g = { 0 };
	char *variant = NULL, *point = NULL;
	int rc, err = 0;

	*stored = 0;
	err = sto_prep(store, &stmt_run_values, &s);
	if (!err)
		err = sto_bind(store, s, "i", run);
	if (err) {
		s = NULL;	/* reset already, or not prepared */
		err = sto_context(store, err, "cannot read the values of the run");
		goto out;
	}
	for (;;) {
		int64_t host, env;
		const unsigned char *metric, *subject, *window, *unit, *var, *pt;

		rc = sqlite3_step(s);
		if (rc != SQLITE_ROW)
			break;
		host = sqlite3_column_int64(s, 0);
		env = sqlite3_column_int64(s, 1);
		metric = sqlite3_column_text(s, 2);
		subject = sqlite3_column_text(s, 3);
		window = sqlite3_column_text(s, 4);
		unit = sqlite3_column_text(s, 5);
		var = sqlite3_column_text(s, 6);
		pt = sqlite3_column_text(s, 7);
		if (!a.metric || host != a.host || env != a.env || !same(metric, a.metric) ||
		    !same(subject, a.subject) || !same(window, a.window)) {
			acc_group(&a, &g);
			err = acc_store(store, run, now_ms, &a);
			*stored += a.stored;
			acc_release(&a);
			free(variant);
			free(point);
			variant = point = NULL;
			if (err)
				goto out;
			a.host = host;
			a.env = env;
			a.metric = strdup(metric ? (const char *)metric : "");
			a.subject = strdup(subject ? (const char *)subject : "");
			a.window = strdup(window ? (const char *)window : "");
			a.unit = unit ? strdup((const char *)unit) : NULL;
			if (!a.metric || !a.subject || !a.window || (unit && !a.unit)) {
				err = no_memory(store);
				goto out;
			}
		}
		if (!variant || !same(var, variant) || !same(pt, point)) {
			acc_group(&a, &g);
			free(variant);
			free(point);
			variant = strdup(var ? (const char *)var : "");
			point = strdup(pt ? (const char *)pt : "");
			if (!variant || !point) {
				err = no_memory(store);
				goto out;
			}
		}
		if (vals_add(&g, sqlite3_column_double(s, 8))) {
			err = no_memory(store);
			goto out;
		}
	}
	if (rc != SQLITE_DONE) {
		err = sto_context(store, sto_dberr(store, rc), "cannot read the values of the run");
		goto out;
	}
	acc_group(&a, &g);
	err = acc_store(store, run, now_ms, &a);
	*stored += a.stored;
out:
	if (s)
		sto_done(s);
	acc_release(&a);
	free(g.v);
	free(variant);
	free(point);
	return err;
}

static const struct sto_stmt stmt_run_state = { "SELECT state FROM runs WHERE id = ?1" };
static const struct sto_stmt stmt_delete = { "DELETE FROM host_noise WHERE run_id = ?1" };

int store_noise_record(struct store *store, int64_t run, int64_t now_ms, json_t **rows)
{
	sqlite3_stmt *s = NULL;
	char state[32] = "";
	int64_t stored = 0;
	int err;

	if (rows)
		*rows = NULL;
	err = sto_write_begin(store, "record the noise floor");
	if (err)
		return err;
	err = sto_query_row(store, &stmt_run_state, &s, "i", run);
	if (err == -ENOENT) {
		err = store_fail(store, -ENOENT, "unknown run %lld", (long long)run);
		goto out;
	}
	if (err) {
		err = sto_context(store, err, "cannot read run");
		goto out;
	}
	snprintf(state, sizeof(state), "%s", sqlite3_column_text(s, 0) ?
		 (const char *)sqlite3_column_text(s, 0) : "");
	sto_done(s);
	if (!strcmp(state, "queued") || !strcmp(state, "running")) {
		err = store_fail(store, -EAGAIN, "run %lld is %s: a noise floor is recorded when "
				 "it has ended", (long long)run, state);
		goto out;
	}
	err = sto_exec(store, &stmt_delete, NULL, "i", run);
	if (err) {
		err = sto_context(store, err, "cannot replace the noise floor");
		goto out;
	}
	err = record(store, run, now_ms, &stored);
	if (!err && !stored)
		err = store_fail(store, -ENODATA, "run %lld has no metric with %d or more "
				 "values of finished jobs: no noise floor recorded",
				 (long long)run, NOISE_MIN_VALUES);
	if (!err && rows) {
		*rows = sto_query_rows(store, &stmt_of_run, noise_cols, ARRAY_SIZE(noise_cols),
				       "i", run);
		if (!*rows)
			err = sto_context(store, -errno, "cannot read the noise floor back");
	}
out:
	err = sto_write_end(store, err, "record the noise floor");
	if (err && rows) {
		json_decref(*rows);
		*rows = NULL;
	}
	return err;
}
