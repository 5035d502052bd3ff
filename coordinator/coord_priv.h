/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_priv.h - the data the coordinator's files share: struct coord and the agents
 * it knows (struct coord_agent), each field written by one file, its owner (below). No
 * functions: those are in each file's own header (coord_core.h, the interface all parts
 * share; coord_agents.h, coord_results.h, coord_dispatch.h, coord_clients.h,
 * coord_zap.h, coord_boot.h, coord_link.h, coord_machine.h). Not for other parts of
 * bpflab.
 */
#ifndef BPFLAB_COORD_PRIV_H
#define BPFLAB_COORD_PRIV_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "coord.h"
#include "plan/jobspec.h"
#include "proto/msg_result.h"
#include "proto/proto.h"
#include "store/store.h"

#define COORD_RID_SLOTS 4096
#define COORD_RID_WAYS 4		/* slots of a set in by_rid */
#define COORD_BATCH 64			/* messages per socket per turn: the timer runs */
#define COORD_STALE_OLDER 3		/* stale jobs an agent remembers besides the latest */

/* Each field of struct coord_agent and struct coord is written by one file of the
 * coordinator, its owner, named in an `owner:` comment before it (a part's struct says
 * it in its own comment); the other files read it and ask the owner for a change
 * through the functions of the owner's header. tests/check-owners.py checks the writes
 * (`=`, `++`, `+=`, ...) in the coordinator's .c files against these comments. */

/* owner: agents.c. An agent's session: its latest hello's connection and what it sent
 * since. */
struct coord_agent_session {
	unsigned char rid[PROTO_MAX_IDENTITY];	/* ROUTER routing id of its latest hello */
	size_t rid_len;
	bool connected;			/* false: gone */
	int64_t last_recv_mono;		/* liveness */
	int64_t seen_wall;		/* last message, wall clock */
	int64_t seen_stored_wall;	/* last time seen_wall went to the store */
	json_t *progress;		/* its latest progress message (owned), or NULL */
	struct msg_progress progress_of;/* ... decoded (valid while PROGRESS is set) */
};

/* owner: dispatch.c. The job an agent runs and when it may have the next
 * (coord_dispatch.h: coord_job_kept, coord_job_over, coord_dispatch_hold). */
struct coord_agent_job {
	int64_t id;			/* job handed to it and not finished, or 0 */
	int64_t hold_until_mono;	/* no job for it before this (spool resend, refusal) */
	uint64_t collect_pass;		/* the dispatch_collect pass that saw it */
	bool kept_busy;			/* in c->kept_busy (coord_dispatch_kept_busy) */
};

/* owner: results.c. Its results (coord_results.h: coord_results_spooled). */
struct coord_agent_results {
	int spooled;			/* results its hello said it resends, not in yet */
	bool pending;			/* a result of it waits for the commit */
};

/* owner: link.c. Two-host barrier and loss (coord_link.h: coord_link_hello,
 * coord_link_handed, coord_link_lost). */
struct coord_agent_pair {
	int64_t ready_job;		/* its job that said ready, or 0 */
	int64_t go_job;			/* ... and was sent go (or abort) */
	int64_t gone_mono;		/* when it was declared gone (0: connected, or never) */
};

/* owner: boot.c. Kernel providers (host_boot): the latest switch asked for, its state
 * (NULL: none; "booting" holds back dispatch; "done", "failed", "mismatch"), the kernel
 * it ran before, the error, since when, and until when it may take; also in the store
 * (host_boots), from where coord_boot_restore makes an agent that has not said hello
 * yet (not connected, its stored inventory) after a restart. */
struct coord_agent_boot {
	const char *state;
	char kernel[256];
	char from[256];
	char error[512];
	int64_t since_wall;
	int64_t deadline_mono;
};

/* owner: machine.c. Its machine (NULL: a machine of its own, no machine.id), the next
 * host of that machine; whether its running job's spec has share_machine and pair (a
 * job kept over a reconnect: no, and maybe); held for the other side of a pair: busy for
 * its machine while HELD_BY runs HELD_JOB (coord_machine_hold), with HELD_SHARE as that
 * job's share_machine; since when it waits for its machine (coord.machine_seq when it
 * was refused for it, 0: not waiting). */
struct coord_agent_machine {
	struct coord_machine *of;
	struct coord_agent *next;
	bool share, pair;
	struct coord_agent *held_by;
	int64_t held_job;
	bool held_share;
	uint64_t wait;
};

/* owner: jobmsg.c. The objects whose bytes went to an agent in its session (since its
 * hello): it keeps them (its hello's `objects_kept`), so later `job` messages name them
 * by sha256 alone. The latest KEPT sent, the oldest forgotten first; KEPT 0: an agent
 * that keeps none, or an older one (every message carries the bytes). An agent that
 * lacks one all the same (it dropped it, a message was lost) says so in its refusal,
 * and the bytes go again (coord_job_objects_forget). */
#define COORD_AGENT_OBJECTS 16
struct coord_agent_objects {
	int kept;			/* at most COORD_AGENT_OBJECTS */
	int n, next;			/* SHA256[0..N): sent; NEXT: the slot to replace */
	char sha256[COORD_AGENT_OBJECTS][65];
};

/* An agent that said hello since the coordinator started. Kept after it is gone, so
 * that its name keeps its host id when it comes back. Made by coord_agent_add (core.c:
 * an agent's hello, a kernel switch restored from the store). */
struct coord_agent {
	/* owner: core.c. The registry (coord_agent_add, coord_agent_known), sending, the
	 * stale marks and the dispatch request (coord_core.h). */
	struct coord_agent *next;
	char *name;
	int64_t host_id;
	json_t *inventory;		/* of its latest hello, or the store's (owned) */
	int64_t last_send_mono;		/* when to send a heartbeat */
	/* jobs taken away from it (its pair was given up, it moved, its agent started
	 * again): what it still sends for them is dropped (coord_stale_mark). STALE_JOB is
	 * the latest, which dispatch forgets when it hands the job to it again
	 * (coord_stale_handed); STALE_OLDER the ones before it, latest first (0: none) */
	int64_t stale_job;
	int64_t stale_older[COORD_STALE_OLDER];
	bool dispatch_wanted;		/* free: a job at the end of the turn */
	/* owner: agents.c */
	struct coord_agent_session sess;
	/* owner: dispatch.c */
	struct coord_agent_job job;
	/* owner: results.c */
	struct coord_agent_results res;
	/* owner: link.c */
	struct coord_agent_pair pair;
	/* owner: boot.c */
	struct coord_agent_boot boot;
	/* owner: machine.c */
	struct coord_agent_machine machine;
	/* owner: jobmsg.c */
	struct coord_agent_objects objs;
};

struct samples;
struct coord_result;

/* owner: jobmsg.c. The encoded objects part of `job` messages for one attach list: with
 * the objects' bytes (TEXT; NULL when larger than a slot may keep) and naming them by
 * sha256 alone (REFS, for an agent that has them all). */
#define COORD_JOBMSG_SLOTS 8
struct coord_jobmsg {
	char *key;			/* NULL: an empty slot */
	size_t key_len;
	char *text;
	size_t len;
	char *refs;
	size_t refs_len;
};

struct coord_run_specs;

/* The coordinator: one, made by coord_new (coord.c). */
struct coord {
	/* owner: coord.c. Setup, the loop and its turns: when the current one began (its
	 * wait over), and the thread's CPU clock then. */
	struct coord_opts opts;
	void *ctx;
	void *agents_sock;
	void *clients_sock;
	struct store *store;
	int lock_fd;			/* flock on DB-bpflabd.lock: one coordinator per db */
	int64_t next_tick_mono;
	volatile sig_atomic_t stop;
	int64_t started_mono;
	int64_t turn_mono, turn_cpu_us;
	/* counters: each owned by the file named beside it in coord.h */
	struct coord_stats stats;
	/* owner: core.c. The agents; by ROUTER routing id, in sets of COORD_RID_WAYS
	 * (coord_agent_by_rid): a hint that the lookup checks; agents are freed only with
	 * the coordinator. An agent was marked dispatch_wanted (coord_dispatch_agent). */
	struct coord_agent *agents;
	struct coord_agent *by_rid[COORD_RID_SLOTS];
	bool dispatch_wanted;
	/* owner: zap.c. CURVE: the ZAP handler's socket (NULL in plaintext), the allow
	 * list, its folder, a reload asked for (coord_request_reload), recent refused keys
	 * (one log line a minute each) */
	void *zap_sock;
	bool curve;
	struct keys_pair key;
	struct keys_allow *allow;
	char *authorized;
	volatile sig_atomic_t reload;
	struct coord_refusal {
		uint8_t key[32];
		int64_t logged_mono;
	} refusals[16];
	/* owner: link.c. A link discovery waiting for reports; hosts with queued pair jobs
	 * that have not said hello to this coordinator (coord_link_tick): their wait counts
	 * from STARTED_MONO; next scan at ABSENT_SCAN_MONO (0: none left to watch) */
	struct coord_probe *probe;
	int64_t absent_scan_mono;
	/* owner: jobmsg.c. The encoded objects of `job` messages (lib/plan/objects.h), made
	 * at the first job, and the objects parts of their text */
	struct object_cache *objects;
	struct coord_jobmsg jobmsg[COORD_JOBMSG_SLOTS];
	unsigned jobmsg_next;
	/* owner: specs.c. The runs' decoded specs */
	struct coord_run_specs *run_specs;
	/* owner: dispatch.c. dispatch_collect's passes, whether a round's picks are read
	 * in the store batch that stores them (PICKS_BATCHED), its array of the waiting
	 * agents to serve first, and the agents whose host a result of this turn left busy
	 * for their next job (coord_dispatch_kept_busy); the rounds in a row that could not
	 * be stored, those not said in a warning yet, and when the last warning was */
	uint64_t collect_pass;
	bool picks_batched;
	struct coord_agent **waiters;
	int waiters_cap;
	struct coord_agent **kept_busy;
	int n_kept_busy, kept_busy_cap;
	uint64_t unstored_rounds, unstored_unsaid;
	int64_t unstored_said_mono;
	/* owner: machine.c. Hosts that share a machine: the machines seen in hellos, the
	 * latest waiting number handed out, how many agents wait */
	struct coord_machine *machines;
	uint64_t machine_seq;
	int machine_waiting;
	/* owner: results.c. The results of this turn stored in the open batch
	 * (BATCH_OPEN), waiting for its commit to be acknowledged */
	bool batch_open;
	struct coord_result *pending;
	int n_pending, pending_cap;
	/* owner: offload.c. The worker threads (coord_offload.h) */
	struct coord_offload *offload;
	/* owner: query.c. The imports being written in parts (first: the one in
	 * progress) */
	struct coord_import *imports;
};

#endif
