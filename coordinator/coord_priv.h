/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_priv.h - the data the coordinator's files share: struct coord and the agents
 * it knows (struct coord_agent). No functions: those are in each file's own header
 * (coord_core.h, the interface all parts share; coord_agents.h, coord_results.h,
 * coord_dispatch.h, coord_clients.h, coord_zap.h, coord_boot.h, coord_link.h,
 * coord_machine.h). Not for other parts of bpflab.
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
#define COORD_BATCH 64			/* messages per socket per turn: the timer runs */
#define COORD_STALE_OLDER 3		/* stale jobs an agent remembers besides the latest */

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
	struct msg_progress progress_of;/* ... decoded (valid while PROGRESS is set) */
	int spooled;			/* results its hello said it would resend */
	int64_t hold_until_mono;	/* no job for it before this (spool resend, refusal) */
	int64_t ready_job;		/* two-host barrier: its job that said ready, or 0 */
	int64_t go_job;			/* ... and was sent go (or abort) */
	int64_t gone_mono;		/* when it was declared gone (0: connected, or never) */
	bool dispatch_wanted;		/* free: a job at the end of the turn (dispatch.c) */
	/* jobs taken away from it (its pair was given up, it moved, its agent started
	 * again): what it still sends for them is dropped (coord_stale_mark). STALE_JOB is
	 * the latest, which dispatch_send forgets when it hands the job to it again;
	 * STALE_OLDER the ones before it, latest first (0: none) */
	int64_t stale_job;
	int64_t stale_older[COORD_STALE_OLDER];
	/* kernel providers (boot.c, host_boot): the latest switch asked for, its state
	 * (NULL: none; "booting" holds back dispatch; "done", "failed", "mismatch"), the
	 * kernel it ran before, the error, since when, and until when it may take; also in
	 * the store (host_boots), from where coord_boot_restore makes an agent that has not
	 * said hello yet (not connected, its stored inventory) after a restart */
	const char *boot_state;
	char boot_kernel[256];
	char boot_from[256];
	char boot_error[512];
	int64_t boot_since_wall;
	int64_t boot_deadline_mono;
	/* its machine (machine.c; NULL: a machine of its own, no machine.id), the next host
	 * of that machine; whether its running job's spec has share_machine and pair (a job
	 * kept over a reconnect: no, and maybe); since when it waits for its machine
	 * (coord.machine_seq when it was refused for it, 0: not waiting); the
	 * dispatch_collect pass that saw it last */
	struct coord_machine *machine;
	struct coord_agent *machine_next;
	bool job_share, job_pair;
	/* held for the other side of a pair: busy for its machine while HELD_BY runs
	 * HELD_JOB (coord_machine_hold), with HELD_SHARE as that job's share_machine */
	struct coord_agent *held_by;
	int64_t held_job;
	bool held_share;
	uint64_t machine_wait;
	uint64_t collect_pass;
	bool result_pending;		/* a result of it waits for the batch's commit */
};

struct samples;
struct coord_result;

/* An encoded objects part of `job` messages and the attach list it is for (jobmsg.c). */
#define COORD_JOBMSG_SLOTS 8
struct coord_jobmsg {
	char *key;			/* NULL: an empty slot */
	size_t key_len;
	char *text;
	size_t len;
};

struct coord_run_specs;

struct coord {
	struct coord_opts opts;
	void *ctx;
	void *agents_sock;
	void *clients_sock;
	struct store *store;
	int lock_fd;			/* flock on DB-bpflabd.lock: one coordinator per db */
	struct coord_agent *agents;
	/* agents by ROUTER routing id, direct-mapped (core.c, coord_agent_by_rid): a hint that
	 * the lookup checks; agents are freed only with the coordinator */
	struct coord_agent *by_rid[COORD_RID_SLOTS];
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
	struct coord_probe *probe;	/* a link discovery waiting for reports (link.c) */
	/* hosts with queued pair jobs that have not said hello to this coordinator (link.c,
	 * coord_link_tick): their wait counts from STARTED_MONO; next scan at ABSENT_SCAN_MONO
	 * (0: none left to watch) */
	int64_t started_mono;
	int64_t absent_scan_mono;
	/* dispatch (dispatch.c): an agent is marked dispatch_wanted; the encoded objects of
	 * `job` messages (lib/plan/objects.h), made at the first job, and the objects parts of
	 * their text (jobmsg.c) */
	bool dispatch_wanted;
	struct object_cache *objects;
	struct coord_jobmsg jobmsg[COORD_JOBMSG_SLOTS];	/* jobmsg.c */
	unsigned jobmsg_next;
	struct coord_run_specs *run_specs;	/* the runs' decoded specs (specs.c) */
	/* hosts that share a machine (machine.c): the machines seen in hellos, the latest
	 * waiting number handed out, how many agents wait; dispatch_collect's passes, and
	 * its array of the waiting agents to serve first */
	struct coord_machine *machines;
	uint64_t machine_seq;
	int machine_waiting;
	uint64_t collect_pass;
	struct coord_agent **waiters;
	int waiters_cap;
	/* results (results.c): the samples of the message being handled, read from its text
	 * (coord_agent_recv, agents.c; NULL or not taken: in the message); the results of
	 * this turn stored in the open batch (BATCH_OPEN), waiting for its commit to be
	 * acknowledged */
	struct samples *in_samples;
	bool batch_open;
	struct coord_result *pending;
	int n_pending, pending_cap;
	/* big requests (coord_offload.h, query.c): the worker thread, the imports being
	 * written in parts (first: the one in progress); the loop's turns: when the current
	 * one began (its wait over), and the thread's CPU clock then */
	struct coord_offload *offload;
	struct coord_import *imports;
	int64_t turn_mono, turn_cpu_us;
};

#endif
