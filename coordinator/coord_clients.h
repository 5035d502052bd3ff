/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_clients.h - clients' requests: the receiving and the table of handlers
 * (clients.c), and the handlers that have files of their own (submit.c, query.c,
 * bisect_req.c, noise_req.c). Each handler returns its reply, a new reference, or NULL
 * when out of memory. Event loop thread only.
 */
#ifndef BPFLAB_COORD_CLIENTS_H
#define BPFLAB_COORD_CLIENTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord_priv.h"

/* Receive and answer one client request: 1 when one was handled, 0 when none waited,
 * or -errno. */
int coord_client_recv(struct coord *c);

/* Handle a client's `submit`: validate, choose hosts, store the run. Returns the reply
 * (`submitted` or `error`), a new reference, or NULL on ENOMEM. */
json_t *coord_submit(struct coord *c, const json_t *msg);
/* Handle a message the worker thread parsed (coord_offload_next), and free W. */
struct coord_work;
void coord_client_parsed(struct coord *c, struct coord_work *w);
/* A client's `import` (coordinator/query.c): begun at once (the run queued, or the error
 * answered), its jobs written by coord_import_turn, the client answered at the end.
 * CHECKED: store_import_check passed on the worker. */
void coord_import_start(struct coord *c, const void *id, size_t id_len, const json_t *msg,
			bool checked);
/* Write parts of the waiting imports until DEADLINE_MS (util_mono_ms); whether any is
 * left. */
bool coord_import_turn(struct coord *c, int64_t deadline_ms);
/* Give up the imports not finished (their runs deleted), at the coordinator's end. */
void coord_imports_release(struct coord *c);
/* Bisect sessions (coordinator/bisect_req.c, lib/store/store_bisect.c): bisect_get,
 * bisect_list (reply `bisect_sessions`),
 * bisect_start, bisect_add_step, bisect_finish, bisect_reset. Return the reply (`bisect`
 * with the session, or `error`), or NULL when out of memory. */
json_t *coord_bisect_get(struct coord *c, const json_t *msg);
json_t *coord_bisect_list(struct coord *c, const json_t *msg);
json_t *coord_bisect_start(struct coord *c, const json_t *msg);
json_t *coord_bisect_add_step(struct coord *c, const json_t *msg);
json_t *coord_bisect_finish(struct coord *c, const json_t *msg);
json_t *coord_bisect_reset(struct coord *c, const json_t *msg);
/* Noise floors (coordinator/noise_req.c, lib/store/store_noise.c): noise_record (of an ended
 * run, in one transaction) and noise_list. Return the reply (`noise` with the rows, or
 * `error`), or NULL when out of memory. */
json_t *coord_noise_record(struct coord *c, const json_t *msg);
json_t *coord_noise_list(struct coord *c, const json_t *msg);


#endif
