/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_specs.h - the job specs of the runs with queued jobs, kept decoded while they
 * run (specs.c): dispatch (dispatch.c), the `job` message (jobmsg.c), the machine rule
 * (machine.c) and pairs (link.c) read a job's struct job_spec from here, not its stored
 * text. Event loop thread only.
 */
#ifndef BPFLAB_COORD_SPECS_H
#define BPFLAB_COORD_SPECS_H

#include <stddef.h>
#include <stdint.h>

#include "coord_priv.h"
#include "plan/jobspec.h"

/* One distinct spec of a run: decoded, and its JSON text as the `job` message carries
 * it (the bytes the store holds). Owned by its run's table (specs.c); valid until the
 * next coord_specs_tick. */
struct coord_spec {
	struct job_spec js;		/* holds the JSON its strings point into */
	char *text;
	size_t len;
	char *bad;			/* why the stored text cannot be run, or NULL */
};

/* A run's specs, as submit made them: a new table for RUN_ID with N_SPECS specs, spec I
 * the JSON SPECS[I] (borrowed: decoded, its reference held) as TEXTS[I] (heap, LENS[I]
 * bytes; taken, NULL-ed in TEXTS, also on failure), and N_JOBS jobs, job JOB_IDS[K] of
 * spec SPEC_OF[K]. Returns 0 or -errno (then nothing is kept: the jobs' specs are read
 * from the store at their dispatch). */
int coord_specs_add_run(struct coord *c, int64_t run_id, json_t *const *specs, char **texts,
			const size_t *lens, int n_specs, const int64_t *job_ids,
			const int *spec_of, int n_jobs);
/* The spec of job JOB_ID of run RUN_ID: kept, or read with every queued job of the run
 * that is not yet kept (after a restart of bpflabd, or jobs added by repeat.until).
 * NULL with WHY when the job is not queued or the store fails. */
const struct coord_spec *coord_spec_of(struct coord *c, int64_t run_id, int64_t job_id,
				       struct err *why);
/* Forget the specs of runs with no queued job left (the coordinator's tick). */
void coord_specs_tick(struct coord *c);
/* Free every table (coord_destroy). */
void coord_specs_release(struct coord *c);

#endif
