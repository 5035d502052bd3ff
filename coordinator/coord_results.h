/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_results.h - agents' results (results.c): stored in one batch a loop turn,
 * acknowledged after its commit. Event loop thread only.
 */
#ifndef BPFLAB_COORD_RESULTS_H
#define BPFLAB_COORD_RESULTS_H

#include <stddef.h>

#include "coord_priv.h"

/* An agent's `result` MSG from routing id ID, of agent A: into the turn's batch (the
 * samples read from the text are c->in_samples), or dropped when its job was taken away
 * from A. */
void coord_on_result(struct coord *c, struct coord_agent *a, const void *id, size_t id_len,
		     const json_t *msg);
/* Commit the open batch of results, then handle each of them in order: the ack or the
 * error, the other side of a pair, the agent free again. Nothing when none is open. */
void coord_result_flush(struct coord *c);

#endif
