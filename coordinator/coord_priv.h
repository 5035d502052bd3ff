/* coord_priv.h - what the coordinator's files share: struct coord, the agents it
 * knows, and the handlers that coord.c's loop calls in submit.c. Not for other parts.
 */
#ifndef BPFLAB_COORD_PRIV_H
#define BPFLAB_COORD_PRIV_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "coord.h"
#include "proto.h"
#include "store.h"

/* An agent that said hello since the coordinator started. Kept after it is gone, so
 * that its name keeps its host id when it comes back. */
struct coord_agent {
	struct coord_agent *next;
	char *name;
	int64_t host_id;
	unsigned char rid[PROTO_MAX_IDENTITY];	/* ROUTER routing id of its latest hello */
	size_t rid_len;
	bool connected;			/* false: gone */
	int64_t job_id;			/* job handed to it and not finished, or 0 */
	int64_t last_recv_mono;		/* liveness */
	int64_t last_send_mono;		/* when to send a heartbeat */
	int64_t seen_wall;		/* last message, wall clock */
	int64_t seen_stored_wall;	/* last time seen_wall went to the store */
	json_t *inventory;		/* of its latest hello (owned) */
	json_t *progress;		/* its latest progress message (owned), or NULL */
	int spooled;			/* results its hello said it would resend */
	int64_t hold_until_mono;	/* no job for it before this (spool resend, refusal) */
};

struct coord {
	struct coord_opts opts;
	void *ctx;
	void *agents_sock;
	void *clients_sock;
	struct store *store;
	int lock_fd;			/* flock on DB-bpflabd.lock: one coordinator per db */
	struct coord_agent *agents;
	int64_t next_tick_mono;
	volatile sig_atomic_t stop;
	struct coord_stats stats;
	/* CURVE: the ZAP handler's socket (NULL in plaintext), the allow list, its folder */
	void *zap_sock;
	bool curve;
	struct keys_pair key;
	struct keys_allow *allow;
	char *authorized;
	volatile sig_atomic_t reload;
	struct coord_refusal {		/* recent refused keys: one log line a minute each */
		uint8_t key[32];
		int64_t logged_mono;
	} refusals[16];
};

/* Handle a client's `submit`: validate, choose hosts, store the run. Returns the reply
 * (`submitted` or `error`), a new reference, or NULL on ENOMEM. */
json_t *coord_submit(struct coord *c, const json_t *msg);
/* Handle a client's `query` (store_query_values) and `import` (store_import)
 * (coordinator/query.c). Return the reply, or NULL when out of memory. */
json_t *coord_query(struct coord *c, const json_t *msg);
json_t *coord_import(struct coord *c, const json_t *msg);

/* Hand queued jobs to every connected idle agent. */
void coord_dispatch(struct coord *c);

#endif
