/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord.h - bpflabd's core: two ZeroMQ ROUTER sockets (agents, clients), the SQLite
 * store, and a single-threaded zmq_poll event loop whose handlers never block.
 *
 * Agents say hello, get jobs, report progress and results (docs/protocol.md); clients
 * submit plans and query. A timer every tick (250 ms) sends heartbeats, declares silent
 * agents gone (their running job goes back to the queue, or fails once it was lost
 * max_attempts times, and their queued jobs move to another host that matched the plan
 * when one is free of the run: store_host_lost) and dispatches queued jobs to idle hosts. The queue lives in the store, so a restarted
 * coordinator loses nothing: jobs left running are queued again at start.
 *
 * coord_new/coord_run/coord_destroy are called from one thread; coord_stop may be called
 * from a signal handler.
 */
#ifndef BPFLAB_COORD_H
#define BPFLAB_COORD_H

#include <stddef.h>
#include <stdint.h>

#include "proto/keys.h"

struct coord;

struct coord_opts {
	const char *agents;		/* endpoint to bind for agents, e.g. tcp://198.18.0.1:5555 */
	const char *clients;		/* endpoint to bind for clients, e.g. ipc:///run/x.sock */
	const char *db;			/* database file (created and migrated if needed) */
	int heartbeat_ms;		/* 0: PROTO_HEARTBEAT_MS */
	int liveness;			/* heartbeats an agent may miss; 0: PROTO_LIVENESS */
	int tick_ms;			/* timer period; 0: 250 */
	int max_attempts;		/* times a job may be lost with its host; 0: 3 */
	/* CURVE (docs/security.md). KEY: the coordinator's key pair (copied), or NULL for
	 * plaintext, which coord_new refuses unless both endpoints are loopback or ipc.
	 * AUTHORIZED: folder of public certificates allowed to connect (needed with KEY). */
	const struct keys_pair *key;
	const char *authorized;
};

#define COORD_OPTS(...) ((struct coord_opts){ __VA_ARGS__ })

/* Counters, for tests and for a later `status` request. Each is counted by the one
 * file of coordinator/ named beside it (tests/check-owners.py). */
struct coord_stats {
	/* owner: core.c */
	uint64_t bad_messages;		/* malformed or unknown, answered with error */
	uint64_t role_refused;		/* messages or handshakes refused for the role */
	/* owner: dispatch.c */
	uint64_t jobs_dispatched;
	uint64_t jobs_lost_failed;	/* jobs failed after max_attempts losses */
	uint64_t rounds_unstored;	/* dispatch rounds that could not be stored */
	/* owner: results.c */
	uint64_t results;		/* results stored */
	uint64_t duplicates;		/* results acknowledged again, not stored */
	/* owner: submit.c */
	uint64_t runs_submitted;
	/* owner: agents.c */
	uint64_t agents_gone;
	uint64_t jobs_moved;		/* queued jobs moved off a gone host */
	/* owner: clients.c */
	uint64_t runs_cancelled;
	/* owner: zap.c */
	uint64_t auth_allowed;		/* CURVE handshakes with an allowed key */
	uint64_t auth_refused;		/* ... with a key not in the allow list, or a
					 * non-agent key on the agents socket */
	/* owner: coord.c. The loop's turns: the longest (from the end of its wait to its
	 * end), the most CPU time one took (the thread's clock: what the machine's load
	 * does not add), and how many took longer than COORD_TURN_BUDGET_MS */
	uint64_t turn_max_ms;
	uint64_t turn_max_cpu_us;
	uint64_t turns_over_budget;
};

/* What one turn of the loop may take; big requests are parsed and read on a worker
 * thread and imports written in parts of COORD_IMPORT_SLICE_MS to stay within it. */
#define COORD_TURN_BUDGET_MS 50
#define COORD_IMPORT_SLICE_MS 20

/* Open the store (migrating it, then requeueing jobs left running), bind both sockets.
 * OPTS is copied. Returns NULL with errno set; the reason is logged. */
struct coord *coord_new(const struct coord_opts *opts);
/* Close sockets (linger 0) and the store; *C becomes NULL. Takes NULL. */
void coord_destroy(struct coord **c);

/* Serve until coord_stop. Returns 0, or -errno when polling fails. */
int coord_run(struct coord *c);
/* One turn of the loop: wait up to TIMEOUT_MS (less when the timer is due) for messages,
 * handle those that came, run the timer when due. Returns 0 or -errno; an interrupted
 * wait (EINTR) is 0. For tests, which drive the loop from their own thread. */
int coord_run_once(struct coord *c, int timeout_ms);
/* Make coord_run return after the current turn. Async-signal-safe. */
void coord_stop(struct coord *c);

void coord_get_stats(const struct coord *c, struct coord_stats *stats);

/* Reload the allow list (opts.authorized) at the start of the next loop turn, logging
 * how many keys are allowed; a folder that cannot be read keeps the old list.
 * Async-signal-safe: bpflabd calls it on SIGHUP. */
void coord_request_reload(struct coord *c);

#endif
