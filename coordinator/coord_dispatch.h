/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_dispatch.h - handing queued jobs to agents (dispatch.c) and the `job` messages
 * it sends (jobmsg.c). dispatch.c owns the job an agent runs and its hold (struct
 * coord_agent_job): the other files change them through the functions below. Event
 * loop thread only.
 */
#ifndef BPFLAB_COORD_DISPATCH_H
#define BPFLAB_COORD_DISPATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord_priv.h"

/* How the error of an attempt its agent refused begins (agents.c): a job that was
 * delivered, not one that could not be (give_up_undelivered does not count it). */
#define COORD_REFUSED "refused by the agent: "

/* Hand queued jobs to every connected idle agent. */
void coord_dispatch(struct coord *c);
/* Hand jobs to the agents marked by coord_dispatch_agent in this turn, if any (the end
 * of the loop's turn). */
void coord_dispatch_turn(struct coord *c);
/* A result of agent A was stored with its host left busy (store_ingest_msg's
 * KEEP_BUSY): at the end of the turn its host is made idle unless A got a job. */
void coord_dispatch_kept_busy(struct coord *c, struct coord_agent *a);
/* Agent A's hello: it goes on with JOB, kept running across a reconnect. */
void coord_job_kept(struct coord_agent *a, int64_t job);
/* JOB is over for agent A (its result, its refusal; 0: whatever A ran, it is gone or
 * said hello as a new session): A has no job now, if JOB was its job. */
void coord_job_over(struct coord_agent *a, int64_t job);
/* No job for agent A before UNTIL_MONO (util_mono_ms; 0: no hold, INT64_MAX: until its
 * next hello). */
void coord_dispatch_hold(struct coord_agent *a, int64_t until_mono);
/* Count N jobs failed after max_attempts losses (stats.jobs_lost_failed). */
void coord_count_lost_failed(struct coord *c, int n);
struct coord_spec;

/* The `job` message for JOB_ID of RUN_ID with SPEC (its run's, coord_specs.h) and the
 * objects it attaches, encoded for agent A (coordinator/jobmsg.c): those A has from
 * earlier messages of its session named by sha256 alone, the others with their bytes
 * (A has them from now on). Heap text of *LEN bytes, or NULL with WHY, *MISSING set when
 * an object is not in the store (the job cannot ever run). */
char *coord_job_message(struct coord *c, struct coord_agent *a, int64_t job_id,
			int64_t run_id, const struct coord_spec *spec, size_t *len,
			struct err *why, bool *missing);
/* Agent A's hello: a new session, nothing sent yet; how many objects it keeps (its
 * `objects_kept`; none when absent). */
void coord_job_objects_hello(struct coord_agent *a, const json_t *hello);
/* Agent A lacks an object it was sent (its refusal said `missing`), or a job message to
 * it may not have arrived: the next one carries every object's bytes. */
void coord_job_objects_forget(struct coord_agent *a);
/* Free the kept parts of `job` messages and the object cache (coord_destroy). */
void coord_job_messages_release(struct coord *c);

#endif
