/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* agent_int.h - the agent's state (struct agent), shared by agent.c (the loop, the
 * worker, the spool) and agent_boot.c (the kernel provider's `boot`). Not for other
 * files: agent.h is the interface. */
#ifndef BPFLAB_AGENT_AGENT_INT_H
#define BPFLAB_AGENT_AGENT_INT_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent.h"
#include "job.h"
#include "objstore.h"
#include "provider.h"

#define AGENT_ID_LEN 128
#define AGENT_BOOT_POLL_MS 100		/* how often a running kernel provider is checked */

struct agent {
	struct agent_opts opts;
	void *zctx;
	void *sock;			/* DEALER to the coordinator, NULL while backing off */
	void *pipe_main;		/* PAIR, loop's end */
	void *pipe_worker;		/* PAIR, worker's end */
	struct spool *spool;
	struct object_cache *objects;	/* from job messages, by sha256 (objstore.h) */
	int heartbeat_ms;
	int backoff_ms;
	int64_t last_recv_ms, last_send_ms, next_connect_ms;
	bool welcomed;
	/* a result the coordinator answered with an `error` (not stored: e.g. its disk full)
	 * stays spooled; the spool is sent again at resend_at_ms (0: none due), resend_ms
	 * after the error, the wait doubling from one heartbeat interval to the backoff's
	 * cap and reset by an ack or a welcome */
	int64_t resend_at_ms;
	int resend_ms;
	unsigned long malformed;
	/* the running job */
	bool busy;
	pthread_t worker;
	json_t *job_msg;		/* owned; read by the worker while busy */
	json_t *job_id;			/* owned */
	char job_id_text[AGENT_ID_LEN];
	/* its result: filled by the worker, then "R" on the pipe hands it to the loop */
	struct job_result *job_res;	/* owned, while busy */
	atomic_int cancel;
	atomic_int go;			/* two-host barrier: 1 go, -1 abort (job.h) */
	atomic_llong go_at_ms;		/* the go's at_ms; written before go = 1 */
	char go_abort[512];		/* the abort's reason; written before go = -1 */
	char pair_broken[512];		/* an abort after go: the other side was lost */
	bool discard;			/* the job ran through a stale session: no result */
	struct provider_run boot;	/* the kernel provider's `boot`, pid 0 when none */
	int64_t last_job_ns;		/* when the last job ended (the worker's; job.h) */
	/* a result the spool refused (a full disk): kept here, not sent, tried again every
	 * AGENT_SPOOL_RETRY_MS; while it is held the agent takes no job and names it as
	 * its job in hello and heartbeats (docs/agent.md, "Spool") */
	char *held;			/* the result's bytes, owned, NULL when none */
	size_t held_len;
	json_t *held_job;		/* its job id (owned) */
	char held_id[AGENT_ID_LEN];
	int64_t held_since_ms, held_retry_ms;
};

/* `boot {kernel}` from the coordinator (agent_boot.c): the provider started (NULL), or
 * the `boot_report` of its refusal, for the caller to send and free. */
json_t *agent_on_boot(struct agent *a, const json_t *msg);
/* Follow a running provider (agent_boot.c): NULL while it runs, then the `boot_report`
 * of its end, for the caller to send and free. */
json_t *agent_poll_boot(struct agent *a);

#endif
