// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_import.c - `result import` into the store (store.h): results made elsewhere as a
 * new, done run. In parts, for bpflabd's loop, which must not block long on one request
 * (docs/store.md, "Imports"): store_import_check (pure, no store: the caller may run it
 * on another thread), store_import_begin (host, environment, the run queued), then
 * store_import_step until it returns 0, each step one transaction of as many jobs as fit
 * before a deadline; the last sets the run's variants and makes it done. store_import is
 * all of it at once (`bpflab --db`).
 *
 * Linear in jobs and samples: a variant's index comes from a hash (a JSON object), not
 * a walk over the variants (which made 40,000 variants take 32 s). A part that fails
 * (the disk, never the input, which was checked first) deletes what the earlier parts
 * wrote, so nothing of a failed import stays. One thread per store, as the store.
 */
#include "store/store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "plan/plan.h"

/* Jobs written between two looks at the clock. */
#define IMPORT_CLOCK_EVERY 16

struct store_import {
	json_t *own;		/* {"import": IMP (referenced), "variants", "vidx"} */
	json_t *imp;		/* the three, borrowed from OWN */
	json_t *variants;	/* names in first-seen order */
	json_t *vidx;		/* name -> index in VARIANTS */
	json_t *jobs;		/* IMP's "jobs" */
	int64_t run_id, host_id, env_id, max_rep, now_ms;
	int64_t spec_id;	/* the jobs' spec row, written with the first job; 0 before */
	size_t next;		/* the first job not written */
	bool done;
};

/* One sample of an import, jobs[I].samples[K], checked (SEEN: the job's samples so far,
 * "metric\nsubject\nwindow" -> K). 0 or -EINVAL / -ENOMEM with WHY. */
static int check_sample(const json_t *smp, size_t i, size_t k, json_t *seen,
			struct err *why)
{
	const char *metric = json_string_value(json_object_get(smp, "metric"));
	const char *subject = json_string_value(json_object_get(smp, "subject"));
	const char *unit = json_string_value(json_object_get(smp, "unit"));
	const char *window = json_string_value(json_object_get(smp, "window"));
	json_t *v = json_object_get(smp, "value"), *dup;
	char *key = NULL;
	int err;

	if (!metric || !*metric || !json_is_number(v))
		return err_ret(why, -EINVAL, "jobs[%zu].samples[%zu]: a sample needs a "
				   "'metric' and a numeric 'value'", i, k);
	if (unit && !strcmp(unit, "ns") && json_number_value(v) < 0)
		return err_ret(why, -EINVAL, "jobs[%zu].samples[%zu]: 'value' %g of '%s' "
				   "is negative (a time in ns cannot be)", i, k,
				   json_number_value(v), metric);
	if (!window)
		window = !strncmp(metric, "prog.", 5) ? "cost" : "rate";
	/* the store keeps one value per job and series: say which, not SQLite's words */
	if (asprintf(&key, "%s\n%s\n%s", metric, subject ? subject : "", window) < 0)
		return err_ret(why, -ENOMEM, "out of memory");
	dup = json_object_get(seen, key);
	if (dup) {
		free(key);
		return err_ret(why, -EINVAL, "jobs[%zu].samples[%zu]: '%s' of '%s' is "
				   "there already (samples[%lld]): one value per job and subject",
				   i, k, metric, subject ? subject : "",
				   (long long)json_integer_value(dup));
	}
	err = json_object_set_new(seen, key, json_integer((json_int_t)k));
	free(key);
	return err ? err_ret(why, -ENOMEM, "out of memory") : 0;
}

/* Whether member K of KERNEL is absent (when OPTIONAL) or a name of 1 to
 * STORE_KERNEL_NAME_MAX bytes; else -EINVAL with WHY. */
static int check_kernel(const json_t *kernel, const char *k, bool optional,
			struct err *why)
{
	const json_t *v = json_object_get(kernel, k);
	size_t n = json_string_length(v);

	if ((!v && optional) || (json_is_string(v) && n > 0 && n <= STORE_KERNEL_NAME_MAX))
		return 0;
	return err_ret(why, -EINVAL, "'kernel.%s' must be a name of 1 to %d bytes", k,
			   STORE_KERNEL_NAME_MAX);
}

int store_import_check(const json_t *imp, struct err *why)
{
	const json_t *kernel = json_object_get(imp, "kernel");
	const char *plan = json_string_value(json_object_get(imp, "plan"));
	const char *host = json_string_value(json_object_get(imp, "host"));
	const json_t *jobs = json_object_get(imp, "jobs"), *job, *smp;
	size_t i, k, n_samples = 0;
	json_t *seen;
	int err = 0;

	if (!plan || !*plan || !json_string_value(json_object_get(imp, "source")) ||
	    !json_is_array(jobs) || !json_array_size(jobs))
		return err_ret(why, -EINVAL, "an import needs 'plan', 'source' and a "
				   "non-empty 'jobs' array");
	/* names as a plan names itself: no markup, no control bytes, bounded */
	if (!plan_name_valid(plan) || (host && *host && !plan_name_valid(host)))
		return err_ret(why, -EINVAL, "'%s' must be a name of 1 to %d letters, "
				   "digits, '.', '_' and '-'", plan_name_valid(plan) ? "host" : "plan",
				   PLAN_MAX_NAME);
	if (kernel && !json_is_object(kernel))
		return err_ret(why, -EINVAL, "'kernel' must be an object {\"release\", "
				   "\"version\"}");
	if (kernel && ((err = check_kernel(kernel, "release", false, why)) ||
		       (err = check_kernel(kernel, "version", true, why))))
		return err;
	json_array_foreach(jobs, i, job) {
		const char *v = json_string_value(json_object_get(job, "variant"));

		if (!v || !*v || !json_is_array(json_object_get(job, "samples")))
			return err_ret(why, -EINVAL, "jobs[%zu]: needs 'variant' and "
					   "'samples'", i);
		seen = json_object();
		if (!seen)
			return err_ret(why, -ENOMEM, "out of memory");
		json_array_foreach(json_object_get(job, "samples"), k, smp) {
			err = check_sample(smp, i, k, seen, why);
			if (err)
				break;
			n_samples++;
		}
		json_decref(seen);
		if (err)
			return err;
	}
	if (!n_samples)
		return err_ret(why, -EINVAL, "nothing to import: no samples");
	return 0;
}

static const struct sto_stmt stmt_import_host = {
	"INSERT INTO hosts (name, state, inventory, first_seen_ms, last_seen_ms) "
	"VALUES (?1, 'gone', '{}', ?2, ?2) ON CONFLICT (name) DO UPDATE SET "
	"last_seen_ms = excluded.last_seen_ms RETURNING id",
};

/* The environment of an import's jobs from its "kernel" (KERNEL; NULL: none, *ENV_ID
 * -1): an inventory of the release and version, found or added for HOST_ID. */
static int import_env(struct store *st, int64_t host_id, const json_t *kernel, int64_t now_ms,
		      int64_t *env_id)
{
	json_t *env;
	bool icount;
	int err;

	*env_id = -1;
	if (!kernel)
		return 0;
	env = json_pack("{s:b, s:{s:O}}", "imported", 1, "kernel", "release",
			json_object_get(kernel, "release"));
	if (!env || (json_object_get(kernel, "version") &&
		     json_object_set(json_object_get(env, "kernel"), "version",
				     json_object_get(kernel, "version")))) {
		json_decref(env);
		return store_fail(st, -ENOMEM, "out of memory");
	}
	err = sto_env_upsert(st, host_id, env, now_ms, env_id, &icount);
	json_decref(env);
	return err;
}

int store_import_begin(struct store *st, const json_t *imp, int64_t now_ms, bool checked,
		       struct store_import **out)
{
	const char *plan = json_string_value(json_object_get(imp, "plan"));
	const char *source = json_string_value(json_object_get(imp, "source"));
	const char *host = json_string_value(json_object_get(imp, "host"));
	char *text = NULL, sha[SHA256_HEX_LEN];
	struct err why;
	struct store_import *im;
	int err;

	*out = NULL;
	if (!checked && (err = store_import_check(imp, &why)))
		return sto_context(st, store_fail(st, err, "%s", why.msg), "cannot import '%s'",
				   source ? source : "?");
	im = calloc(1, sizeof(*im));
	if (!im || asprintf(&text, "imported from %s\n# plan %s, imported by bpflab result "
			    "import\n", source, plan) < 0) {
		free(im);
		return sto_context(st, store_fail(st, -ENOMEM, "out of memory"),
				   "cannot import '%s'", source);
	}
	im->own = json_pack("{s:O, s:[], s:{}}", "import", imp, "variants", "vidx");
	im->imp = json_object_get(im->own, "import");
	im->jobs = json_object_get(imp, "jobs");
	im->variants = json_object_get(im->own, "variants");
	im->vidx = json_object_get(im->own, "vidx");
	im->max_rep = 1;
	im->now_ms = now_ms;
	util_sha256_hex(text, strlen(text), sha);
	err = !im->variants || !im->vidx ? store_fail(st, -ENOMEM, "out of memory") : 0;
	if (!err)
		err = sto_tx_begin(st);
	if (!err) {
		err = sto_query_int(st, &stmt_import_host, &im->host_id, "ti",
				    host && *host ? host : "imported", now_ms);
		if (!err)
			err = import_env(st, im->host_id, json_object_get(imp, "kernel"), now_ms,
					 &im->env_id);
		/* variants and repeat are known at the end (store_import_step's last part) */
		if (!err)
			err = sto_run_insert(st, plan, sha, text, source, "[]", "[]", 1, now_ms,
					     &im->run_id);
		err = sto_tx_end(st, err);
	}
	free(text);
	if (err) {
		im->run_id = 0;	/* nothing stored: nothing to delete */
		store_import_destroy(st, &im);
		return sto_context(st, err, "cannot import '%s'", source);
	}
	*out = im;
	return 0;
}

static const struct sto_stmt stmt_sample_insert = {
	"INSERT INTO sample_values (job_id, series_id, seq, value, unit) "
	"VALUES (?1, ?2, -1, ?3, ?4)",
};
static const struct sto_stmt stmt_job_done = {
	"UPDATE jobs SET state = 'done', env_id = ?2, started_ms = ?3, finished_ms = ?3, "
	"result_ms = ?3 WHERE id = ?1",
};
static const struct sto_stmt stmt_run_end = {
	"UPDATE runs SET variants = ?2, repeat = ?3, state = 'done', finished_ms = ?4 "
	"WHERE id = ?1",
};

/* Job I of IM (checked) and its samples. In a transaction. */
static int import_job(struct store *st, struct store_import *im, size_t i)
{
	const json_t *job = json_array_get(im->jobs, i), *smp;
	const char *v = json_string_value(json_object_get(job, "variant"));
	const json_t *point = json_object_get(job, "point");
	int64_t rep = json_integer_value(json_object_get(job, "rep")), job_id, sid;
	json_t *idx = json_object_get(im->vidx, v);
	size_t k = json_array_size(im->variants);
	char *pt;
	int err;

	if (!idx && (json_object_set_new(im->vidx, v, json_integer((json_int_t)k)) ||
		     json_array_append_new(im->variants, json_string(v))))
		return store_fail(st, -ENOMEM, "out of memory");
	if (idx)
		k = (size_t)json_integer_value(idx);
	if (rep > im->max_rep)
		im->max_rep = rep;
	pt = json_is_object(point) ? json_dumps(point, JSON_COMPACT | JSON_SORT_KEYS) :
	     strdup("{}");
	if (!pt)
		return store_fail(st, -ENOMEM, "out of memory");
	err = im->spec_id ? 0 : sto_spec_insert(st, "{\"imported\":true}", &im->spec_id);
	if (!err)
		err = sto_job_insert(st, im->run_id, (int64_t)i, im->host_id, v, (int64_t)k,
				     rep > 0 ? rep : 1, pt, im->spec_id);
	free(pt);
	if (err)
		return err;
	job_id = sqlite3_last_insert_rowid(st->db);
	err = sto_exec(st, &stmt_job_done, NULL, "ioi", job_id, im->env_id, im->now_ms);
	json_array_foreach(json_object_get(job, "samples"), k, smp) {
		const char *metric = json_string_value(json_object_get(smp, "metric"));
		const char *subject = json_string_value(json_object_get(smp, "subject"));
		const char *unit = json_string_value(json_object_get(smp, "unit"));
		const char *window = json_string_value(json_object_get(smp, "window"));

		if (err)
			break;
		if (!window)
			window = !strncmp(metric, "prog.", 5) ? "cost" : "rate";
		err = sto_series_id(st, metric, subject ? subject : "", window, &sid);
		if (!err)
			err = sto_exec(st, &stmt_sample_insert, NULL, "iirt", job_id, sid,
				       json_number_value(json_object_get(smp, "value")),
				       unit ? unit : "");
	}
	return err;
}

/* The run's variants and repetitions, and the run done: IM's last part. */
static int import_end(struct store *st, struct store_import *im)
{
	char *vars = json_dumps(im->variants, JSON_COMPACT);
	int err;

	if (!vars)
		return store_fail(st, -ENOMEM, "out of memory");
	err = sto_exec(st, &stmt_run_end, NULL, "itii", im->run_id, vars, im->max_rep,
		       im->now_ms);
	free(vars);
	return err;
}

int store_import_step(struct store *st, struct store_import *im, int64_t deadline_ms)
{
	size_t n = json_array_size(im->jobs), i = im->next;
	int64_t spec_id = im->spec_id;
	bool end = false;
	int err;

	if (im->done)
		return 0;
	err = sto_tx_begin(st);
	while (!err && i < n) {
		err = import_job(st, im, i++);
		if (!err && (i - im->next) % IMPORT_CLOCK_EVERY == 0 &&
		    util_mono_ms() >= deadline_ms)
			break;
	}
	/* the last part (the variants' text: 2 MB at 160,000) in this transaction when
	 * there is time left or no job was written, else in a part of its own */
	if (!err && i == n && (i == im->next || util_mono_ms() < deadline_ms)) {
		err = import_end(st, im);
		end = true;
	}
	err = sto_tx_end(st, err);
	if (err) {
		im->spec_id = spec_id;	/* a spec row this part wrote is gone with it */
		return sto_context(st, err, "cannot import '%s'",
				   json_string_value(json_object_get(im->imp, "source")));
	}
	im->next = i;
	im->done = end;
	return end ? 0 : 1;
}

int64_t store_import_run_id(const struct store_import *im)
{
	return im->run_id;
}

size_t store_import_jobs(const struct store_import *im)
{
	return json_array_size(im->jobs);
}

json_t *store_import_values(const struct store_import *im)
{
	return json_incref(im->own);
}

static const struct sto_stmt stmt_del_samples = {
	"DELETE FROM sample_values WHERE job_id IN (SELECT id FROM jobs WHERE run_id = ?1)",
};
static const struct sto_stmt stmt_del_specs = {
	"DELETE FROM job_specs WHERE id IN (SELECT spec_id FROM jobs WHERE run_id = ?1)",
};
static const struct sto_stmt stmt_del_jobs = { "DELETE FROM jobs WHERE run_id = ?1" };
static const struct sto_stmt stmt_del_run = { "DELETE FROM runs WHERE id = ?1" };

void store_import_destroy(struct store *st, struct store_import **imp)
{
	struct store_import *im = imp ? *imp : NULL;
	int err;

	if (!im)
		return;
	if (!im->done && im->run_id) {
		/* what the earlier parts wrote; one statement each, keeping st's message */
		struct err keep = st->err;

		err = sto_tx_begin(st);
		if (!err)
			err = sto_exec(st, &stmt_del_samples, NULL, "i", im->run_id);
		if (!err)
			err = sto_exec(st, &stmt_del_specs, NULL, "i", im->run_id);
		if (!err)
			err = sto_exec(st, &stmt_del_jobs, NULL, "i", im->run_id);
		if (!err)
			err = sto_exec(st, &stmt_del_run, NULL, "i", im->run_id);
		sto_tx_end(st, err);
		st->err = keep;
	}
	json_decref(im->own);
	free(im);
	*imp = NULL;
}

int store_import(struct store *st, const json_t *imp, int64_t now_ms, int64_t *run_id)
{
	struct store_import *im = NULL;
	int err;

	err = store_import_begin(st, imp, now_ms, false, &im);
	while (!err && (err = store_import_step(st, im, INT64_MAX)) > 0)
		;
	if (!err)
		*run_id = im->run_id;
	store_import_destroy(st, &im);
	return err;
}
