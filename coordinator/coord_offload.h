/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_offload.h - the coordinator's worker threads (offload.c): what a client asks that
 * would hold the event loop longer than its budget and needs none of the loop's state.
 * One thread parses and frees, one reads, so that a read never waits behind a parse.
 *
 * - Parsing: a client frame over COORD_PARSE_INLINE bytes is decoded, validated and, for
 *   an `import`, checked (store_import_check) on the worker; the loop gets the message
 *   back (coord_offload_next) and hands it to its handler.
 * - Freeing: the last reference to a big message (coord_offload_drop).
 * - Reading: `run_list`, `result_show`, `result_seconds`, `run_show`, `run_attempts`
 *   and `query` (their cost grows with the jobs stored: `run_list` counts them) are
 *   answered on the reading worker over its own read-only connection (WAL: readers
 *   never wait for the loop's writes), the reply encoded there; the loop only sends the
 *   text. A big read
 *   (the result of 160,000 jobs: seconds) still delays the reads behind it.
 *
 * Requests and answers go through two lists under a mutex; the worker wakes the loop
 * through an eventfd that the loop polls beside its sockets. The loop thread calls
 * everything here; the worker touches only its own store and the items it was given.
 */
#ifndef BPFLAB_COORD_OFFLOAD_H
#define BPFLAB_COORD_OFFLOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <zmq.h>

#include "coord_priv.h"

/* Frames up to this size are decoded in the loop (about 0.5 ms); larger ones on the
 * worker. */
#define COORD_PARSE_INLINE (64u << 10)

/* An item the worker has finished: a parsed client message to handle (MSG, owned by
 * the item; NULL with WHY when it was malformed), from ID. CHECKED: an import whose
 * store_import_check passed; CHECK_ERR: its error (WHY), 0 if none. */
struct coord_work {
	struct coord_work *next;
	unsigned char id[PROTO_MAX_IDENTITY];
	size_t id_len;
	int kind;			/* offload.c's enum */
	zmq_msg_t frame;		/* a frame to parse (closed by the worker) */
	json_t *msg;
	bool validated;			/* proto_validate passed */
	bool checked;
	int check_err;
	struct err why;
	char *reply;			/* an encoded reply (a query), sent by the loop */
	size_t reply_len;
};

/* Start the worker with its own read-only connection to DB. Returns 0 or -errno
 * (logged). */
int coord_offload_start(struct coord *c, const char *db);
/* Stop and join the worker, dropping what it has not done. Takes a coordinator without
 * one. */
void coord_offload_stop(struct coord *c);
/* The eventfd the loop polls (readable: coord_offload_next has items), or -1. */
int coord_offload_fd(const struct coord *c);

/* Hand FRAME (moved: the caller's becomes empty) of client ID to the worker to parse.
 * Returns 0 or -ENOMEM (FRAME then still the caller's). */
int coord_offload_parse(struct coord *c, const void *id, size_t id_len, zmq_msg_t *frame);
/* Whether the worker answers requests of TYPE (the reading requests above). */
bool coord_offload_reads(const char *type);
/* Hand the validated request MSG (referenced) of client ID to the worker to answer.
 * Returns 0 or -ENOMEM. */
int coord_offload_read(struct coord *c, const void *id, size_t id_len, const json_t *msg);

/* Drop the reference V (taken) on the worker: the last reference to a big message (an
 * import of 160,000 jobs is millions of values, 0.2 s to free). Freed here when the
 * worker cannot take it. */
void coord_offload_drop(struct coord *c, json_t *v);

/* The next parsed message the worker finished, with replies to reading requests sent on
 * the way (to the clients' socket); NULL when none. Free it with coord_offload_free. */
struct coord_work *coord_offload_next(struct coord *c);
void coord_offload_free(struct coord_work *w);

#endif
