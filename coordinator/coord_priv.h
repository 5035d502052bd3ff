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
	int64_t ready_job;		/* two-host barrier: its job that said ready, or 0 */
	int64_t go_job;			/* ... and was sent go (or abort) */
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
	struct coord_probe *probe;	/* a link discovery waiting for reports (link.c) */
};

/* Handle a client's `submit`: validate, choose hosts, store the run. Returns the reply
 * (`submitted` or `error`), a new reference, or NULL on ENOMEM. */
json_t *coord_submit(struct coord *c, const json_t *msg);
/* Handle a client's `query` (store_query_values) and `import` (store_import)
 * (coordinator/query.c). Return the reply, or NULL when out of memory. */
json_t *coord_query(struct coord *c, const json_t *msg);
json_t *coord_import(struct coord *c, const json_t *msg);

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
/* Finish a discovery past its deadline (called by the tick). */
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

/* Hand queued jobs to every connected idle agent. */
void coord_dispatch(struct coord *c);

#endif
