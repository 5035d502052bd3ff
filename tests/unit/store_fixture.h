/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* store_fixture.h - the fixture that lib/store's unit tests share (test_store.c,
 * test_store_migrate.c, test_store_jobs.c): a hand-made plan of two variants, two
 * repetitions (no plan_parse: the store only reads the public fields of struct plan,
 * struct plan_objects and struct plan_job), a database file in a temporary folder, a
 * host's inventory, and helpers that make runs and results. store_fixture.c.
 */
#ifndef BPFLAB_TEST_STORE_FIXTURE_H
#define BPFLAB_TEST_STORE_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "store/store.h"

#define N_VARIANTS 2
#define N_REPS 2
#define N_JOBS (N_VARIANTS * N_REPS)
#define OBJ_NAME "xdp_basic.bpf.o"

/* A hand-made plan of two variants, two repetitions, interleaved (A B A B), each
 * attaching one program of OBJ_NAME. */
struct store_fix {
	char dir[64];
	char db[128];
	struct plan plan;
	struct plan_variant variants[N_VARIANTS];
	struct plan_attach attach[N_VARIANTS];
	char *var_names[N_VARIANTS];
	struct plan_objects objs;
	struct plan_object obj;
	struct plan_job jobs[N_JOBS];
	json_t *inventory;
};

/* cmocka setup: a new struct store_fix in *STATE (its folder made, no database yet);
 * teardown frees it and removes the folder. */
int store_fix_setup(void **state);
int store_fix_teardown(void **state);

/* Create a run of the fixture's jobs on one host. */
int64_t store_fix_run(struct store *st, struct store_fix *f, int64_t host_id, int64_t now);

/* A `result` message of job JOB with STATUS ("ok", "failed": with an error), two rate
 * samples of port.rx_pps (VALUE, VALUE + 1) and a cost sample, the job's env when
 * WITH_ENV. */
json_t *store_fix_result(int64_t job, const char *status, double value, bool with_env);

/* SELECT count(*) FROM TABLE through a separate connection to the file. */
long long store_fix_count(const char *db, const char *table);

/* Run SQL on the store's own connection (a trigger that makes a later write fail). */
void store_fix_sql(struct store *st, const char *sql);

/* Job JOB is running with its attempt open and host h1 busy: nothing of a write that
 * failed stayed. */
void store_fix_assert_running(const char *db, int64_t job);

/* The run's state as another connection sees it (committed). */
void store_fix_assert_state(const char *db, int64_t run, const char *state);

/* A store on the fixture's database with host h1 (*H1) and a run of the fixture's jobs,
 * the first N of them dispatched (their ids in JOBS). */
struct store *store_fix_dispatched(struct store_fix *f, int64_t *h1, int64_t *jobs, int n);

#endif
