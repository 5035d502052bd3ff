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
#include "msg_result.h"
#include "proto.h"
#include "store.h"

#define COORD_RID_SLOTS 4096
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
	bool dispatch_wanted;		/* free: a job at the end of the turn (coord.c) */
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

struct coord {
	struct coord_opts opts;
	void *ctx;
	void *agents_sock;
	void *clients_sock;
	struct store *store;
	int lock_fd;			/* flock on DB-bpflabd.lock: one coordinator per db */
	struct coord_agent *agents;
	/* agents by ROUTER routing id, direct-mapped (coord.c, agent_by_rid): a hint that
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
	/* dispatch (coord.c): an agent is marked dispatch_wanted; the encoded objects of
	 * `job` messages (lib/objects.h), made at the first job, and the objects parts of
	 * their text (jobmsg.c) */
	bool dispatch_wanted;
	struct object_cache *objects;
	struct coord_jobmsg jobmsg[COORD_JOBMSG_SLOTS];	/* jobmsg.c */
	unsigned jobmsg_next;
	/* hosts that share a machine (machine.c): the machines seen in hellos, the latest
	 * waiting number handed out, how many agents wait; dispatch_collect's passes, and
	 * its array of the waiting agents to serve first */
	struct coord_machine *machines;
	uint64_t machine_seq;
	int machine_waiting;
	uint64_t collect_pass;
	struct coord_agent **waiters;
	int waiters_cap;
	/* results (coord.c): the samples of the message being handled, read from its text
	 * (agent_recv; NULL or not taken: in the message); the results of this turn stored
	 * in the open batch (BATCH_OPEN), waiting for its commit to be acknowledged */
	struct samples *in_samples;
	bool batch_open;
	struct coord_result *pending;
	int n_pending, pending_cap;
};

/* Handle a client's `submit`: validate, choose hosts, store the run. Returns the reply
 * (`submitted` or `error`), a new reference, or NULL on ENOMEM. */
json_t *coord_submit(struct coord *c, const json_t *msg);
/* Handle a client's `query` (store_query_values) and `import` (store_import)
 * (coordinator/query.c). Return the reply, or NULL when out of memory. */
json_t *coord_query(struct coord *c, const json_t *msg);
json_t *coord_import(struct coord *c, const json_t *msg);
/* Bisect sessions (coordinator/bisect_req.c, lib/store_bisect.c): bisect_get,
 * bisect_start, bisect_add_step, bisect_finish, bisect_reset. Return the reply (`bisect`
 * with the session, or `error`), or NULL when out of memory. */
json_t *coord_bisect_get(struct coord *c, const json_t *msg);
json_t *coord_bisect_start(struct coord *c, const json_t *msg);
json_t *coord_bisect_add_step(struct coord *c, const json_t *msg);
json_t *coord_bisect_finish(struct coord *c, const json_t *msg);
json_t *coord_bisect_reset(struct coord *c, const json_t *msg);
/* Noise floors (coordinator/noise_req.c, lib/store_noise.c): noise_record (of an ended
 * run, in one transaction) and noise_list. Return the reply (`noise` with the rows, or
 * `error`), or NULL when out of memory. */
json_t *coord_noise_record(struct coord *c, const json_t *msg);
json_t *coord_noise_list(struct coord *c, const json_t *msg);

/* Two-host plans and wiring discovery (coordinator/link.c). */
struct plan;
struct plan_job;
/* A client's link_discover from routing id ID: probes go to every connected agent and
 * the reply (`links`) is sent when all reported or the deadline passed. */
void coord_link_discover(struct coord *c, const void *id, size_t id_len);
/* A client's link_list: the stored links. */
json_t *coord_link_list(struct coord *c, const json_t *msg);
/* An agent's probe_report, ready; a result (after it was stored) of a pair job. */
void coord_link_report(struct coord *c, struct coord_agent *a, const json_t *msg);
void coord_link_ready(struct coord *c, struct coord_agent *a, const json_t *msg);
void coord_link_result(struct coord *c, struct coord_agent *a, int64_t job, bool failed,
		       const char *error);
/* Agent LOST was declared gone while running job RUNNING (0: none): each connected agent
 * whose pair job's other side is on LOST's host is told to abort at once (`go` with
 * `abort`, also after a go: the pair broke during the job). */
void coord_link_lost(struct coord *c, struct coord_agent *lost, int64_t running);
/* Agent A said hello as a new session (its agent was restarted, or its connection
 * replaced, before its host was declared gone) without job DROPPED that it ran (0: none;
 * the store queued it again): as coord_link_lost for that job only, the other side of its
 * pair is told to abort at once, and what A still sends for DROPPED is stale. */
void coord_link_restarted(struct coord *c, struct coord_agent *a, int64_t dropped);
/* Job JOB of host NAME failed for good with WHY (the coordinator failed it): the other
 * side of its pair, if any, is aborted (running) or failed (queued). */
void coord_link_failed(struct coord *c, int64_t job, const char *name, const char *why);
/* Finish a discovery past its deadline, and fail the pairs that waited too long for a
 * gone host (called by the tick). */
void coord_link_tick(struct coord *c);
/* Free what link.c holds (coord_destroy). */
void coord_link_release(struct coord *c);
/* Whether the pair job with SPEC may go to agent A now: its partner's host is connected
 * and idle (or running the partner). Jobs without "pair" may always go. */
bool coord_link_may_dispatch(struct coord *c, struct coord_agent *a, int64_t job,
			     const json_t *spec, struct coord_agent **peer);
/* For a plan with a link: choose a stored link whose ends have the plan's ports, whose
 * hosts are connected and match hosts.match (NAMES, if not NULL, must name both), the
 * least loaded first; *GEN and *DUT get its hosts. Returns 0 or -errno with ERR. */
int coord_link_choose(struct coord *c, const struct plan *plan, const json_t *names,
		      struct coord_agent **gen, struct coord_agent **dut, char *err,
		      size_t err_len);
/* Split the N jobs of a plan with a link into 2N (*OUT, heap; job i's generator side at
 * 2i, its dut side at 2i+1, same seq). Returns 0 or -errno. */
int coord_link_split(const struct plan_job *jobs, int n, const char *gen, const char *dut,
		     struct plan_job **out);

/* Kernel providers (coordinator/boot.c): a client's host_boot; an agent's boot_report;
 * the end of a switch at the hello of a host that was booting (call after the agent's
 * inventory is updated); switches past their deadline (tick); whether A is held back
 * from dispatch while it switches; each host's "boot" object (and state "booting") in a
 * host_list reply. */
json_t *coord_host_boot(struct coord *c, const json_t *msg);
void coord_boot_report(struct coord *c, struct coord_agent *a, const json_t *msg);
void coord_boot_hello(struct coord *c, struct coord_agent *a, const json_t *hello);
void coord_boot_tick(struct coord *c);
bool coord_boot_holds(const struct coord_agent *a);
void coord_boot_hosts(struct coord *c, json_t *hosts);
/* At coordinator start (after store_recover): the latest stored switch of each host
 * back into its agent, made when needed; one still booting holds its host back until
 * its hello or its deadline (COORD_BOOT_TIMEOUT_MS from when it was asked: one past it
 * ends as failed at once). Returns 0 or -errno (logged). */
int coord_boot_restore(struct coord *c);
/* Whether the queued job with SPEC may be handed to agent A: its inventory still has
 * the spec's port roles and matches its hosts_match (sched_spec_fits). When not, WHY
 * (LEN bytes) names the host, the kernel it runs now and what the plan asks. */
bool coord_job_fits(const struct coord_agent *a, const json_t *spec, char *why, size_t len);

/* Hosts that share a machine (coordinator/machine.c; the rule is there and in
 * docs/architecture.md). After A's hello (its inventory updated): A joins the machine of
 * its inventory's machine.id (none: a machine of its own). */
void coord_machine_hello(struct coord *c, struct coord_agent *a);
/* A was handed the job with SPEC: note whether it shares the machine, and is a pair's. */
void coord_machine_running(struct coord_agent *a, const json_t *spec);
/* Whether A's next job, whatever it is, cannot start for its machine now (another host
 * there runs a job that neither shares the machine nor is a pair's): A then waits. */
bool coord_machine_busy(struct coord *c, struct coord_agent *a);
/* Whether the job with SPEC may start on A now for the machines: A's (and that of
 * PEER, the other side of its pair, or NULL); when not, A waits for its machine. */
bool coord_machine_may(struct coord *c, struct coord_agent *a, const json_t *spec,
		       const struct coord_agent *peer);
/* A's job with SPEC, one side of a pair, was picked while PEER, the other side, is idle
 * on another machine: PEER counts as busy there while A runs that job, so that no third
 * host of PEER's machine starts before PEER does. */
void coord_machine_hold(struct coord_agent *a, struct coord_agent *peer, const json_t *spec);
/* A waits for its machine (WAIT), or not any more. */
void coord_machine_wait(struct coord *c, struct coord_agent *a, bool wait);
/* A became free: the hosts that wait for its machine want a job (dispatch_wanted). */
void coord_machine_mark_waiting(struct coord_agent *a);
/* Each host of a host_list reply that waits for its machine gets "waits_for_machine":
 * true. */
void coord_machine_hosts(struct coord *c, json_t *hosts);
/* Free the machines (coord_destroy). */
void coord_machine_release(struct coord *c);

/* Hand queued jobs to every connected idle agent. */
void coord_dispatch(struct coord *c);
/* The `job` message for JOB_ID of RUN_ID with SPEC (borrowed) and the objects it
 * attaches, encoded (coordinator/jobmsg.c): heap text of *LEN bytes, or NULL with WHY,
 * *MISSING set when an object is not in the store (the job cannot ever run). SPEC_TEXT
 * (may be NULL): SPEC's JSON text, written as it is instead of encoding SPEC. */
char *coord_job_message(struct coord *c, int64_t job_id, int64_t run_id, const json_t *spec,
			const char *spec_text, size_t spec_len, size_t *len, char *why,
			size_t why_len, bool *missing);
/* Free the kept parts of `job` messages and the object cache (coord_destroy). */
void coord_job_messages_release(struct coord *c);

/* Send MSG (borrowed) to agent A without blocking; 0 (A's last_send_mono updated), or
 * -errno (logged at debug level). */
int coord_send_agent(struct coord *c, struct coord_agent *a, const json_t *msg);
/* Job JOB was taken away from agent A (take_away, coord_link_lost,
 * coord_link_restarted): what A sends for it from now on, a result from its spool
 * included, is dropped, until the job is handed to A again. A remembers the latest such
 * job and COORD_STALE_OLDER before it. */
void coord_stale_mark(struct coord_agent *a, int64_t job);
/* Whether what agent A sends for JOB is stale (coord_stale_mark). An older mark does not
 * count for the job A runs now: that is a new attempt handed to it. */
bool coord_stale(const struct coord_agent *a, int64_t job);
/* The agent named NAME (connected or not), or NULL. */
struct coord_agent *coord_agent_by_name(struct coord *c, const char *name);

#endif
