/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* agent.h - the agent's connection to the coordinator and its job worker.
 *
 * agent_run() is a small event loop in the calling thread around zmq_poll:
 *
 *   - a DEALER socket to the coordinator: hello (agent name, version, inventory) on every
 *     connect, heartbeat every heartbeat interval (1000 ms, or what welcome says), and a
 *     coordinator silent for PROTO_LIVENESS intervals is given up: the socket is closed
 *     and a new one connects after a backoff of 1 s, doubling up to 32 s, reset by the
 *     next welcome (Paranoid Pirate, zguide chapter 4);
 *   - job messages start a worker thread that runs job_run(); one job at a time, a second
 *     one is refused with an error reply; cancel sets the running job's cancel flag;
 *   - the worker hands progress and the result to the loop through an inproc PAIR socket,
 *     and only the loop's thread touches the DEALER;
 *   - results go to the spool (spool.h) before they are sent and leave it on ack; after
 *     each welcome every spooled result is sent again; hello names the spooled job ids
 *     and the job still running, so that the coordinator keeps that job here and waits
 *     for the spooled results before it sends another;
 *   - malformed messages are logged, counted and answered with an error, never fatal;
 *   - `boot` (docs/protocol.md) runs the kernel provider's `boot RELEASE` in a child
 *     process that the loop follows without blocking (agent/provider.h); a failure is
 *     reported with `boot_report`, success too, and then the machine goes away;
 *   - STOP_FD (a signalfd for SIGINT/SIGTERM) becoming readable cancels the running job,
 *     waits for its result (spooled, and sent if connected) and returns 0.
 */
#ifndef BPFLAB_AGENT_AGENT_H
#define BPFLAB_AGENT_AGENT_H

#include "base/version.h"
#include <stdbool.h>
#include <stddef.h>

#include "inventory.h"
#include "proto/keys.h"
#include "provider.h"

#define AGENT_VERSION bpflab_version	/* lib/base/version.h */
#define AGENT_BACKOFF_MIN_MS 1000
#define AGENT_BACKOFF_MAX_MS 32000

struct agent_opts {
	const char *endpoint;			/* coordinator's agent endpoint */
	const struct inventory_config *inv;	/* name, ports, labels (borrowed) */
	const char *spool_dir;			/* NULL: spool in memory */
	const char *bpf_dir;			/* objects a job message lacks, or NULL */
	int stop_fd;				/* readable means stop; -1 for none */
	/* CURVE (docs/security.md): the agent's own key pair and the coordinator's public
	 * key in Z85 (both borrowed); NULL KEY means plaintext */
	const struct keys_pair *key;
	const char *server_key;
	const char *pktgen_dir;			/* pktgen's control files, NULL:
						 * /proc/net/pktgen (tests) */
	/* the kernel provider of the agent's --config (borrowed), NULL: none; `boot`
	 * messages run it (agent/provider.h) */
	const struct provider_config *provider;
	/* warm a cold host up before a job (job.h, docs/agent.md "Warm-up"); the unit
	 * tests leave it off so that their jobs keep their timing */
	bool warm_up;
};

struct agent;

/* A new agent (sockets created, nothing connected yet). NULL with errno set. */
struct agent *agent_new(const struct agent_opts *opts);
/* Stop a running job (if any), close everything; nulls the caller's pointer. */
void agent_destroy(struct agent **agent);
/* Run until STOP_FD is readable. Returns 0, or -errno when ZeroMQ fails. */
int agent_run(struct agent *agent);

#endif
