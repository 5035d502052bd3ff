/* store_query.c - the query objects of the store (store.h; docs/protocol.md "Query
 * objects"): hosts, runs, a run's results and attempts, the values compare, history and
 * bisect select; each a SELECT of store_stmt_sql[] and the table of its columns.
 */
#include "store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "samples.h"
#include "store_repeat.h"
#include "util.h"

/* --- queries: a SELECT of stmt_sql[] and the table of its columns, in order --- */

/* RUN_HEAD_SQL: a run of the list; the "run" of run_show adds overrides. Columns 10 and
 * 11 (variants, repeat) are read by run_get. */
static const struct sql_col run_cols[] = {
	{ "id", SQL_INT, 0 }, { "plan", SQL_TEXT, 0 }, { "plan_sha256", SQL_TEXT, 0 },
	{ "state", SQL_TEXT, 0 }, { "submitted_ms", SQL_INT, 0 },
	{ "finished_ms", SQL_INT, 0 }, { "jobs_total", SQL_INT, 0 },
	{ "jobs_done", SQL_INT, 0 }, { "jobs_failed", SQL_INT, 0 },
	{ "overrides", SQL_JSON, 0 },
};
#define RUN_LIST_COLS 9		/* run_cols without overrides */

static const struct sql_col host_cols[] = {	/* S_Q_HOSTS */
	{ "id", SQL_INT, 0 }, { "name", SQL_TEXT, 0 }, { "state", SQL_TEXT, 0 },
	{ "kernel_release", SQL_TEXT, 0 }, { "last_seen_ms", SQL_INT, 0 },
	{ "job", SQL_INT, 0 }, { "inventory", SQL_JSON, 0 },
};

static const struct sql_col job_cols[] = {	/* S_Q_RUN_JOBS */
	{ "id", SQL_INT, 0 }, { "seq", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
	{ "variant", SQL_TEXT, 0 }, { "rep", SQL_INT, 0 }, { "point", SQL_JSON, 0 },
	{ "state", SQL_TEXT, 0 }, { "attempts", SQL_INT, 0 }, { "error", SQL_TEXT, 0 },
	{ "started_ms", SQL_INT, 0 }, { "finished_ms", SQL_INT, 0 },
	{ "verdicts", SQL_JSON, 0 }, { "verdict_details", SQL_JSON, 0 },
	{ "timing", SQL_TEXT, 0 }, { "added", SQL_TEXT, SQL_OMIT_NULL },
};

static const struct sql_col result_host_cols[] = {	/* S_Q_RESULT_HOSTS */
	{ "name", SQL_TEXT, 0 }, { "kernel_release", SQL_TEXT, 0 },
	{ "kernel_version", SQL_TEXT, 0 },
	/* two-host plans: the role it played (generator, dut) */
	{ "role", SQL_TEXT, SQL_OMIT_NULL },
	/* per port role and hook: tcx, clsact; none attached: absent */
	{ "tc_attach", SQL_JSON, SQL_OMIT_NULL },
};

static const struct sql_col sample_cols[] = {	/* S_Q_RESULT_SAMPLES */
	{ "job", SQL_INT, 0 }, { "host", SQL_TEXT, 0 }, { "variant", SQL_TEXT, 0 },
	{ "rep", SQL_INT, 0 }, { "point", SQL_JSON, 0 }, { "metric", SQL_TEXT, 0 },
	{ "subject", SQL_TEXT, 0 }, { "value", SQL_REAL, 0 }, { "unit", SQL_TEXT, 0 },
	{ "window", SQL_TEXT, 0 }, { "verdicts", SQL_JSON, 0 }, { "timing", SQL_TEXT, 0 },
};

static const struct sql_col attempt_cols[] = {	/* S_Q_ATTEMPTS */
	{ "job", SQL_INT, 0 }, { "attempt", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
	{ "started_ms", SQL_INT, 0 }, { "ended_ms", SQL_INT, 0 },
	{ "outcome", SQL_TEXT, 0 }, { "error", SQL_TEXT, 0 },
};

static const struct sql_col value_cols[] = {	/* S_Q_VALUES */
	{ "run", SQL_INT, 0 }, { "job", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
	{ "kernel_release", SQL_TEXT, 0 }, { "variant", SQL_TEXT, 0 },
	{ "subject", SQL_TEXT, 0 }, { "rep", SQL_INT, 0 }, { "value", SQL_REAL, 0 },
	{ "unit", SQL_TEXT, 0 }, { "flags", SQL_JSON, 0 }, { "day", SQL_TEXT, 0 },
	{ "plan", SQL_TEXT, 0 }, { "plan_sha256", SQL_TEXT, 0 },
	{ "metric", SQL_TEXT, 0 }, { "window", SQL_TEXT, 0 }, { "cpu", SQL_TEXT, 0 },
	{ "governor", SQL_TEXT, 0 }, { "port_driver", SQL_TEXT, 0 },
	{ "point", SQL_JSON, 0 }, { "debug_options", SQL_JSON, 0 },
	{ "timing", SQL_TEXT, 0 }, { "time_ms", SQL_INT, 0 },
	/* imported results say so in their plan text (store_import) */
	{ "imported", SQL_FLAG, 0 },
	/* "clsact", "tcx" or "clsact,tcx" when tc programs were attached */
	{ "tc_attach", SQL_TEXT, SQL_OMIT_NULL },
};

json_t *store_query_hosts(struct store *st)
{
	json_t *r = sto_query_rows(st, S_Q_HOSTS, host_cols, ARRAY_SIZE(host_cols), "");

	if (!r)
		sto_context(st, -errno, "cannot list hosts");
	return r;
}

json_t *store_query_runs(struct store *st)
{
	json_t *r = sto_query_rows(st, S_Q_RUNS, run_cols, RUN_LIST_COLS, "");

	if (!r)
		sto_context(st, -errno, "cannot list runs");
	return r;
}

/* The head of run RUN_ID (FULL: with overrides), or NULL: errno ENOENT for no such run.
 * *VARIANTS and *REPEAT (may be NULL) get the run's variants and repeat. */
static json_t *run_get(struct store *st, int64_t run_id, bool full, json_t **variants,
		       int64_t *repeat)
{
	sqlite3_stmt *s = NULL;
	json_t *r;
	int err = sto_query_row(st, S_Q_RUN, &s, "i", run_id);

	if (err) {
		if (err == -ENOENT)
			store_fail(st, -ENOENT, "unknown run %lld", (long long)run_id);
		errno = -err;
		return NULL;
	}
	r = sql_row_json(s, run_cols, full ? ARRAY_SIZE(run_cols) : RUN_LIST_COLS);
	if (variants)
		*variants = sql_column(s, 10, SQL_JSON);
	if (repeat)
		*repeat = sqlite3_column_int64(s, 11);
	sto_done(s);
	if (!r) {
		store_fail(st, -ENOMEM, "out of memory");
		errno = ENOMEM;
	}
	return r;
}

json_t *store_query_run(struct store *st, int64_t run_id)
{
	json_t *run, *jobs;
	int err = 0;

	run = run_get(st, run_id, true, NULL, NULL);
	if (!run) {
		err = -errno;
		goto out;
	}
	jobs = sto_query_rows(st, S_Q_RUN_JOBS, job_cols, ARRAY_SIZE(job_cols), "i", run_id);
	if (!jobs)
		err = -(errno ? errno : EIO);
	else if (json_object_set_new(run, "jobs", jobs))
		err = store_fail(st, -ENOMEM, "out of memory");
	if (err) {
		json_decref(run);
		run = NULL;
	}
out:
	if (err && err != -ENOENT) {
		sto_context(st, err, "cannot read run %lld", (long long)run_id);
		errno = -err;
	}
	return run;
}

json_t *store_query_result(struct store *st, int64_t run_id)
{
	json_t *head = NULL, *res = NULL, *variants = NULL, *hosts = NULL, *samples = NULL;
	int64_t repeat = 0;
	int err = 0;

	head = run_get(st, run_id, false, &variants, &repeat);
	if (!head) {
		err = -errno;
		goto out;
	}
	hosts = sto_query_rows(st, S_Q_RESULT_HOSTS, result_host_cols, ARRAY_SIZE(result_host_cols),
			       "i", run_id);
	samples = hosts ? sto_query_rows(st, S_Q_RESULT_SAMPLES, sample_cols,
					 ARRAY_SIZE(sample_cols), "i", run_id) : NULL;
	if (!hosts || !samples) {
		err = -(errno ? errno : EIO);
		goto out;
	}
	if (!json_is_array(variants)) {
		json_decref(variants);
		variants = json_array();
	}
	/* "o" steals hosts, variants and samples, also on failure. */
	res = json_pack("{s:O, s:O, s:O, s:O, s:o, s:o, s:I, s:o}",
			"run", json_object_get(head, "id"), "plan", json_object_get(head, "plan"),
			"plan_sha256", json_object_get(head, "plan_sha256"),
			"state", json_object_get(head, "state"), "hosts", hosts,
			"variants", variants, "repeat", (json_int_t)repeat, "samples", samples);
	hosts = variants = samples = NULL;
	if (!res)
		err = store_fail(st, -ENOMEM, "out of memory");
out:
	if (err) {
		json_decref(res);
		res = NULL;
	}
	json_decref(head);
	json_decref(hosts);
	json_decref(samples);
	json_decref(variants);
	if (err && err != -ENOENT)
		sto_context(st, err, "cannot read the result of run %lld", (long long)run_id);
	if (err)
		errno = -err;
	return res;
}

json_t *store_query_attempts(struct store *st, int64_t run_id)
{
	json_t *r = sto_query_rows(st, S_Q_ATTEMPTS, attempt_cols, ARRAY_SIZE(attempt_cols), "i",
				   run_id);

	if (!r)
		sto_context(st, -errno, "cannot list the attempts of run %lld", (long long)run_id);
	return r;
}

/* --- compare, history and import (issue 5: lib/analysis.c, cli/result_analysis.c) --- */

/* The value of row R that store_query_values groups BY ("" when absent). */
static const char *values_group(const json_t *r, const char *by)
{
	static const struct { const char *by, *member; } keys[] = {
		{ "kernel.release", "kernel_release" }, { "port.driver", "port_driver" },
		{ "host", "host" }, { "variant", "variant" }, { "plan", "plan" },
		{ "day", "day" }, { "subject", "subject" },
	};
	const char *v = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(by, keys[i].by))
			v = json_string_value(json_object_get(r, keys[i].member));
	return v ? v : "";
}

bool store_values_by_known(const char *by)
{
	static const char *const known[] = { "kernel.release", "port.driver", "host", "variant",
					     "plan", "day", "subject", "run" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(by, known[i]))
			return true;
	return false;
}

json_t *store_query_values(struct store *st, const json_t *filter)
{
	const char *by = json_string_value(json_object_get(filter, "by"));
	json_t *runs = json_object_get(filter, "runs"), *arr = NULL, *r;
	char *runs_text = NULL;
	size_t i;
	int err;

	if (by && !store_values_by_known(by)) {
		err = store_fail(st, -EINVAL, "cannot group by '%s' (expected kernel.release, "
				 "port.driver, host, variant, plan, day, subject or run)", by);
		goto fail;
	}
	if (runs && !json_is_null(runs)) {
		json_array_foreach(runs, i, r)
			if (!json_is_integer(r)) {
				err = store_fail(st, -EINVAL, "'runs' must be an array of run ids");
				goto fail;
			}
		if (!json_is_array(runs)) {
			err = store_fail(st, -EINVAL, "'runs' must be an array of run ids");
			goto fail;
		}
		runs_text = json_dumps(runs, JSON_COMPACT);
		if (!runs_text) {
			err = store_fail(st, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	arr = sto_query_rows(st, S_Q_VALUES, value_cols, ARRAY_SIZE(value_cols), "ttttttt",
			     json_string_value(json_object_get(filter, "plan")),
			     json_string_value(json_object_get(filter, "metric")),
			     json_string_value(json_object_get(filter, "window")), runs_text,
			     json_string_value(json_object_get(filter, "subject")),
			     json_string_value(json_object_get(filter, "variant")),
			     json_string_value(json_object_get(filter, "host")));
	if (!arr) {
		err = -errno;
		goto fail;
	}
	json_array_foreach(arr, i, r) {
		const char *g;
		char run[32];

		if (!by)
			continue;
		if (!strcmp(by, "run")) {
			snprintf(run, sizeof(run), "%lld",
				 (long long)json_integer_value(json_object_get(r, "run")));
			g = run;
		} else {
			g = values_group(r, by);
		}
		if (json_object_set_new(r, "group", json_string(g))) {
			err = store_fail(st, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	free(runs_text);
	return arr;
fail:
	free(runs_text);
	json_decref(arr);
	sto_context(st, err, "cannot query values");
	errno = -err;
	return NULL;
}
