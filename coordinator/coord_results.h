/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_results.h - agents' results (results.c): stored in one batch a loop turn,
 * acknowledged after its commit. results.c owns each agent's results part (struct
 * coord_agent_results) and the batch in struct coord. Event loop thread only.
 */
#ifndef BPFLAB_COORD_RESULTS_H
#define BPFLAB_COORD_RESULTS_H

#include <stddef.h>

#include "coord_priv.h"

struct samples;

/* An agent's `result` MSG from routing id ID, of agent A, its samples read from the text
 * in SAMPLES (taken when the decoder takes them; NULL or not taken: in MSG): into the
 * turn's batch, or dropped when its job was taken away from A. */
void coord_on_result(struct coord *c, struct coord_agent *a, const void *id, size_t id_len,
		     const json_t *msg, struct samples *samples);
/* Commit the open batch of results, then handle each of them in order: the ack or the
 * error, the other side of a pair, the agent free again. Nothing when none is open. */
void coord_result_flush(struct coord *c);
/* Agent A's hello says it resends N results from its spool: no job for it until they
 * are in (or a heartbeat passed: N 0 lifts the hold at once). */
void coord_results_spooled(struct coord *c, struct coord_agent *a, int n);

#endif
