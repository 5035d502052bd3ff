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
/* Handle a client's `query` (store_query_values) and `import` (store_import)
 * (coordinator/query.c). Return the reply, or NULL when out of memory. */
json_t *coord_query(struct coord *c, const json_t *msg);
json_t *coord_import(struct coord *c, const json_t *msg);
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
