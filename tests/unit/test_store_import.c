// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_store_import.c - unit tests for lib/store/store_import.c on a real SQLite file: an
 * import written in parts (store_import_step with a deadline already past: the smallest
 * parts) stores the same run as store_import at once and shows it queued until the last
 * part; an import given up half-way (store_import_destroy) leaves no run, job, spec or
 * sample, and a step that fails nothing of its part (taken again, it writes it whole);
 * store_import_check refuses bad input with the job and sample named, without a store;
 * and many variants are numbered in first-seen order (the hash that replaced a walk).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "base/util.h"
#include "helpers.h"

struct fixture {
	char dir[64];
	char db[128];
	struct store *st;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct err err;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/bpflab-test-store-import.XXXXXX");
	tmpdir_make(f->dir);
	snprintf(f->db, sizeof(f->db), "%s/lab.db", f->dir);
	f->st = store_open(f->db, false, &err);
	if (!f->st)
		fail_msg("cannot open '%s': %s", f->db, err.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	store_close(&f->st);
	tmpdir_remove(f->dir);
	free(f);
	return 0;
}

/* An import of N jobs: variant "v<j % NV>" (first seen in the order v0, v1, ...),
 * repetition j / NV + 1, two samples each. */
static json_t *import_of(int n, int nv)
{
	json_t *jobs = json_array();
	int j;

	for (j = 0; j < n; j++) {
		char v[32];

		snprintf(v, sizeof(v), "v%d", j % nv);
		json_array_append_new(jobs, json_pack("{s:s, s:i, s:[{s:s, s:s, s:f, s:s},"
						      "{s:s, s:s, s:f, s:s}]}",
						      "variant", v, "rep", j / nv + 1, "samples",
						      "metric", "prog.ns_per_run", "subject", "p1",
						      "value", 10.0 + j, "unit", "ns",
						      "metric", "prog.ns_per_run", "subject", "p2",
						      "value", 20.0 + j, "unit", "ns"));
	}
	return json_pack("{s:s, s:s, s:o}", "plan", "big", "source", "big.csv", "jobs", jobs);
}

static void test_store_import_parts(void **state)
{
	struct fixture *f = *state;
	json_t *imp = import_of(1000, 10), *a, *b, *run;
	struct store_import *im = NULL;
	int64_t once = 0, parted;
	int parts = 0, rc;

	assert_int_equal(store_import(f->st, imp, 1000, &once), 0);
	assert_int_equal(store_import_begin(f->st, imp, 1000, false, &im), 0);
	parted = store_import_run_id(im);
	assert_int_equal(store_import_jobs(im), 1000);
	while ((rc = store_import_step(f->st, im, 0)) == 1) {
		parts++;
		if (parts == 1) {	/* readers see a queued run, not a done one */
			run = store_query_run(f->st, parted);
			assert_non_null(run);
			assert_string_equal(json_string_value(json_object_get(run, "state")),
					    "queued");
			json_decref(run);
		}
	}
	assert_int_equal(rc, 0);
	parts++;
	/* a deadline already past: 16 jobs a part, and the end in a part of its own */
	assert_int_equal(parts, (1000 + 15) / 16 + 1);
	store_import_destroy(f->st, &im);
	assert_null(im);

	a = store_query_result(f->st, once);
	b = store_query_result(f->st, parted);
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(json_string_value(json_object_get(b, "state")), "done");
	assert_int_equal(json_array_size(json_object_get(b, "samples")), 2000);
	assert_true(json_equal(json_object_get(a, "variants"), json_object_get(b, "variants")));
	assert_int_equal(json_integer_value(json_object_get(b, "repeat")), 100);
	json_object_del(a, "run");	/* ids and times differ, the rest is the same */
	json_object_del(b, "run");
	json_object_del(a, "plan_sha256");
	json_object_del(b, "plan_sha256");
	assert_int_equal(json_array_size(json_object_get(a, "samples")),
			 json_array_size(json_object_get(b, "samples")));
	json_decref(a);
	json_decref(b);
	json_decref(imp);
}

static void test_store_import_given_up(void **state)
{
	struct fixture *f = *state;
	json_t *imp = import_of(500, 500), *run, *values;
	struct store_import *im = NULL;
	int64_t run_id;

	assert_int_equal(store_import_begin(f->st, imp, 1000, false, &im), 0);
	run_id = store_import_run_id(im);
	assert_int_equal(store_import_step(f->st, im, 0), 1);
	assert_int_equal(store_import_step(f->st, im, 0), 1);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs"), 32);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_specs"), 1);
	store_import_destroy(f->st, &im);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs"), 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_specs"), 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM sample_values"), 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM runs"), 0);
	run = store_query_run(f->st, run_id);
	assert_null(run);
	store_import_destroy(f->st, &im);	/* NULL: nothing */

	/* a coordinator killed half-way: the next one's store_recover deletes the run,
	 * and keeps a finished import */
	assert_int_equal(store_import(f->st, imp, 1000, &run_id), 0);
	assert_int_equal(store_import_begin(f->st, imp, 1000, false, &im), 0);
	assert_int_equal(store_import_step(f->st, im, 0), 1);
	/* as if killed: nothing undone; IM's memory freed behind its back (its values:
	 * the reference values gives and the one IM holds) */
	values = store_import_values(im);
	json_decref(values);
	json_decref(values);
	free(im);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM runs"), 2);
	assert_int_equal(store_recover(f->st, NULL), 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs"), 500);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM sample_values"), 1000);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_specs"), 1);
	json_decref(imp);
}

/* A step that fails (a trigger of the test's refuses one job) leaves nothing of its
 * part, the spec row it wrote first included; the same step taken again writes the
 * spec anew, and every job names a spec row that is there. */
static void test_store_import_step_fails(void **state)
{
	struct fixture *f = *state;
	json_t *imp = import_of(40, 2);
	struct store_import *im = NULL;
	int rc;

	assert_int_equal(store_import_begin(f->st, imp, 1000, false, &im), 0);
	db_file_exec(f->db, "CREATE TRIGGER test_step_fails BEFORE INSERT ON jobs WHEN "
		     "NEW.seq = 3 BEGIN SELECT RAISE(ABORT, 'test: the step fails'); END");
	assert_true(store_import_step(f->st, im, 0) < 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs"), 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_specs"), 0);
	db_file_exec(f->db, "DROP TRIGGER test_step_fails");
	while ((rc = store_import_step(f->st, im, 0)) == 1)
		;
	assert_int_equal(rc, 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs"), 40);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_specs"), 1);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE spec_id NOT IN "
				       "(SELECT id FROM job_specs)"), 0);
	store_import_destroy(f->st, &im);
	json_decref(imp);
}

static void test_store_import_check(void **state)
{
	static const struct {
		const char *json, *why;
	} cases[] = {
		{ "{\"plan\":\"p\",\"source\":\"s\",\"jobs\":[]}",
		  "an import needs 'plan', 'source' and a non-empty 'jobs' array" },
		{ "{\"plan\":\"p\",\"source\":\"s\",\"jobs\":[{\"variant\":\"a\",\"samples\":[]},"
		  "{\"samples\":[]}]}", "jobs[1]: needs 'variant' and 'samples'" },
		{ "{\"plan\":\"p\",\"source\":\"s\",\"jobs\":[{\"variant\":\"a\",\"samples\":"
		  "[{\"metric\":\"m\",\"value\":1},{\"metric\":\"m\",\"value\":2}]}]}",
		  "jobs[0].samples[1]: 'm' of '' is there already (samples[0]): one value per job "
		  "and subject" },
		{ "{\"plan\":\"p\",\"source\":\"s\",\"jobs\":[{\"variant\":\"a\",\"samples\":"
		  "[{\"metric\":\"m\",\"value\":-1,\"unit\":\"ns\"}]}]}",
		  "jobs[0].samples[0]: 'value' -1 of 'm' is negative (a time in ns cannot be)" },
		{ "{\"plan\":\"p\",\"source\":\"s\",\"jobs\":[{\"variant\":\"a\",\"samples\":[]}]}",
		  "nothing to import: no samples" },
		{ "{\"plan\":\"p\",\"source\":\"s\",\"kernel\":{\"release\":\"\"},\"jobs\":"
		  "[{\"variant\":\"a\",\"samples\":[{\"metric\":\"m\",\"value\":1}]}]}",
		  "'kernel.release' must be a name of 1 to 64 bytes" },
	};
	struct fixture *f = *state;
	struct err why;
	size_t i;
	int64_t run = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		json_t *imp = json_of(cases[i].json);

		err_clear(&why);
		assert_int_equal(store_import_check(imp, &why), -EINVAL);
		assert_string_equal(why.msg, cases[i].why);
		/* the same words from store_import, nothing stored */
		assert_int_equal(store_import(f->st, imp, 1, &run), -EINVAL);
		assert_contains(store_err(f->st)->msg, cases[i].why);
		json_decref(imp);
	}
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM runs"), 0);
}

/* Variants numbered in first-seen order however many there are: the hash from name to
 * index gives each job its variant's index, as the walk did. */
static void test_store_import_variant_order(void **state)
{
	struct fixture *f = *state;
	json_t *imp = import_of(6000, 3000), *run, *v;
	int64_t id = 0;
	size_t i;

	assert_int_equal(store_import(f->st, imp, 1, &id), 0);
	run = store_query_result(f->st, id);
	assert_non_null(run);
	assert_int_equal(json_array_size(json_object_get(run, "variants")), 3000);
	json_array_foreach(json_object_get(run, "variants"), i, v) {
		char want[32];

		snprintf(want, sizeof(want), "v%zu", i);
		assert_string_equal(json_string_value(v), want);
	}
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE variant_idx != "
				    "CAST(substr(variant, 2) AS INTEGER)"), 0);
	json_decref(run);
	json_decref(imp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_import_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_import_given_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_import_step_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_import_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_import_variant_order, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
