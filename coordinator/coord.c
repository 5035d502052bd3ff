// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* coord.c - see coord.h. The event loop (one turn: ZAP requests, agent messages, the
 * turn's results committed, client requests, the turn's dispatch, the timer when due),
 * the timer, and the setup and teardown of the coordinator.
 *
 * The parts it drives, in the order of their calls (each calls only parts after it, so
 * there is no circle): agents.c (agents' messages, heartbeats, liveness), clients.c and
 * the request handlers, results.c, dispatch.c and jobmsg.c, boot.c, link.c, core.c (the
 * agents and sending: coord_core.h, which all of them share), machine.c; zap.c (CURVE)
 * stands apart (it counts refusals through core.c). Each file owns the fields of the
 * state that it writes (coord_priv.h).
 *
 * Everything runs on the thread that calls coord_run: handlers do a few SQLite
 * transactions and non-blocking sends (ZMQ_DONTWAIT), never a blocking wait. ROUTER
 * sockets are ZMQ_ROUTER_MANDATORY, so a send to an agent that vanished fails at once
 * (EHOSTUNREACH) and is logged, instead of being dropped silently; liveness then marks
 * the agent gone.
 */
#include "coord_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "coord_agents.h"
#include "coord_boot.h"
#include "coord_clients.h"
#include "coord_core.h"
#include "coord_dispatch.h"
#include "coord_link.h"
#include "coord_machine.h"
#include "coord_offload.h"
#include "coord_results.h"
#include "coord_specs.h"
#include "coord_zap.h"
#include "proto/keys.h"
#include "base/log.h"
#include "base/util.h"

#define COORD_TICK_MS 250
#define COORD_MAX_ATTEMPTS 3

/* --- timer and loop --- */

static void tick(struct coord *c)
{
	coord_agents_tick(c);	/* liveness, heartbeats */
	coord_link_tick(c);
	coord_boot_tick(c);
	coord_dispatch(c);
	coord_specs_tick(c);	/* after it: a run's last queued jobs went out */
}

/* The loop thread's CPU time in microseconds. */
static int64_t thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The parts of a turn, for the log line of one over budget: when each ended. */
enum { T_AGENTS, T_CLIENTS, T_WORKER, T_IMPORTS, T_TIMER, T__N };

/* The end of a turn that began at C->turn_mono (C->turn_cpu_us), its parts ending at
 * MARK: counted (coord_stats). */
static void turn_end(struct coord *c, const int64_t mark[T__N])
{
	int64_t took = util_mono_ms() - c->turn_mono, cpu = thread_cpu_us() - c->turn_cpu_us;

	if (took > (int64_t)c->stats.turn_max_ms)
		c->stats.turn_max_ms = (uint64_t)took;
	if (cpu > (int64_t)c->stats.turn_max_cpu_us)
		c->stats.turn_max_cpu_us = (uint64_t)cpu;
	if (took > COORD_TURN_BUDGET_MS) {
		c->stats.turns_over_budget++;
		pr_debug("loop turn took %lld ms, %lld ms of CPU (budget %d ms): agents %lld, "
			 "clients %lld, worker's %lld, imports %lld, dispatch and timer %lld",
			 (long long)took, (long long)(cpu / 1000), COORD_TURN_BUDGET_MS,
			 (long long)(mark[T_AGENTS] - c->turn_mono),
			 (long long)(mark[T_CLIENTS] - mark[T_AGENTS]),
			 (long long)(mark[T_WORKER] - mark[T_CLIENTS]),
			 (long long)(mark[T_IMPORTS] - mark[T_WORKER]),
			 (long long)(mark[T_TIMER] - mark[T_IMPORTS]));
	}
}

int coord_run_once(struct coord *c, int timeout_ms)
{
	zmq_pollitem_t items[4] = {
		{ c->agents_sock, 0, ZMQ_POLLIN, 0 },
		{ c->clients_sock, 0, ZMQ_POLLIN, 0 },
		{ NULL, coord_offload_fd(c), ZMQ_POLLIN, 0 },	/* the worker's answers */
		{ c->zap_sock, 0, ZMQ_POLLIN, 0 },	/* last: absent in plaintext */
	};
	int64_t now = util_mono_ms(), wait = c->next_tick_mono - now, mark[T__N];
	struct coord_work *w;
	int i, rc;

	if (c->reload)
		coord_reload_keys(c);
	if (wait < 0 || c->imports)	/* an import's next part: no wait */
		wait = 0;
	if (wait > timeout_ms)
		wait = timeout_ms;
	log_flush();	/* the last turn's lines (coord_run holds them) */
	rc = zmq_poll(items, c->zap_sock ? 4 : 3, (long)wait);
	if (rc < 0)
		return zmq_errno() == EINTR ? 0 : -zmq_errno();
	c->turn_mono = util_mono_ms();
	c->turn_cpu_us = thread_cpu_us();
	for (i = 0; i < COORD_BATCH && c->zap_sock && (items[3].revents & ZMQ_POLLIN); i++) {
		int ev = 0;
		size_t evsz = sizeof(ev);

		coord_zap_handle(c);
		if (zmq_getsockopt(c->zap_sock, ZMQ_EVENTS, &ev, &evsz) || !(ev & ZMQ_POLLIN))
			break;
	}
	for (i = 0; i < COORD_BATCH && (items[0].revents & ZMQ_POLLIN); i++) {
		rc = coord_agent_recv(c);
		if (rc <= 0)
			break;
	}
	coord_result_flush(c);	/* the turn's results: stored, then acknowledged */
	mark[T_AGENTS] = util_mono_ms();
	for (i = 0; i < COORD_BATCH && (items[1].revents & ZMQ_POLLIN); i++) {
		rc = coord_client_recv(c);
		if (rc <= 0)
			break;
	}
	mark[T_CLIENTS] = util_mono_ms();
	/* the worker's: answers sent, parsed requests handled */
	for (i = 0; i < COORD_BATCH && (w = coord_offload_next(c)); i++)
		coord_client_parsed(c, w);
	mark[T_WORKER] = util_mono_ms();
	coord_import_turn(c, c->turn_mono + COORD_IMPORT_SLICE_MS);
	mark[T_IMPORTS] = util_mono_ms();
	coord_dispatch_turn(c);		/* the agents freed in this turn, in one batch */
	now = util_mono_ms();
	if (now >= c->next_tick_mono) {
		tick(c);
		c->next_tick_mono = now + c->opts.tick_ms;
	}
	mark[T_TIMER] = util_mono_ms();
	turn_end(c, mark);
	return 0;
}

int coord_run(struct coord *c)
{
	int err = 0;

	log_hold(true);	/* a turn's lines in one write, before the next wait (coord_run_once) */
	while (!c->stop && !err)
		err = coord_run_once(c, c->opts.tick_ms);
	if (err)
		pr_warn("event loop failed: %s", zmq_strerror(-err));
	pr_info("longest loop turn %llu ms (most CPU in one: %.1f ms), %llu turn%s over the "
		"%d ms budget", (unsigned long long)c->stats.turn_max_ms,
		c->stats.turn_max_cpu_us / 1000.0,
		(unsigned long long)c->stats.turns_over_budget,
		c->stats.turns_over_budget == 1 ? "" : "s", COORD_TURN_BUDGET_MS);
	log_hold(false);	/* the stop's lines at once */
	return err;
}

void coord_stop(struct coord *c)
{
	c->stop = 1;
}

void coord_get_stats(const struct coord *c, struct coord_stats *stats)
{
	*stats = c->stats;
}

/* --- setup --- */

/* A ROUTER bound to ENDPOINT, taking frames of up to MAX bytes. */
static void *router_new(struct coord *c, const char *endpoint, const char *what,
			const char *zap_domain, bool handover, int64_t max)
{
	int one = 1, zero = 0;
	void *s = zmq_socket(c->ctx, ZMQ_ROUTER);

	if (!s) {
		pr_warn("cannot create the %s socket: %s", what, zmq_strerror(zmq_errno()));
		return NULL;
	}
	if (zmq_setsockopt(s, ZMQ_ROUTER_MANDATORY, &one, sizeof(one)) ||
	    zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof(max)) ||
	    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero)) ||
	    (handover && zmq_setsockopt(s, ZMQ_ROUTER_HANDOVER, &one, sizeof(one))) ||
	    coord_zap_server(c, s, zap_domain)) {
		pr_warn("cannot set options of the %s socket: %s", what,
			zmq_strerror(zmq_errno()));
		goto fail;
	}
	if (zmq_bind(s, endpoint)) {
		pr_warn("cannot bind the %s endpoint '%s': %s", what, endpoint,
			zmq_strerror(zmq_errno()));
		goto fail;
	}
	return s;
fail:
	errno = zmq_errno();
	zmq_close(s);
	return NULL;
}

/* Take DB-bpflabd.lock so that a second coordinator on the same database (which would
 * requeue and dispatch the first one's jobs) refuses to start. Returns 0 or -errno. */
static int db_lock(struct coord *c, const char *db)
{
	char path[PATH_MAX];

	if (!strcmp(db, ":memory:"))
		return 0;
	if (snprintf(path, sizeof(path), "%s-bpflabd.lock", db) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	c->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (c->lock_fd < 0) {
		pr_warn("cannot open lock file '%s': %s", path, strerror(errno));
		return -errno;
	}
	if (flock(c->lock_fd, LOCK_EX | LOCK_NB)) {
		int err = -errno;

		if (err == -EWOULDBLOCK)
			pr_warn("database '%s' is in use by another bpflabd (lock '%s')", db, path);
		else
			pr_warn("cannot lock '%s': %s", path, strerror(-err));
		return err;
	}
	return 0;
}

struct coord *coord_new(const struct coord_opts *opts)
{
	struct err err;
	struct coord *c;
	int requeued = 0, saved;

	if (!opts || !opts->agents || !opts->clients || !opts->db) {
		pr_warn("coordinator needs agents and clients endpoints and a database");
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->opts = *opts;
	if (c->opts.heartbeat_ms <= 0)
		c->opts.heartbeat_ms = PROTO_HEARTBEAT_MS;
	if (c->opts.liveness <= 0)
		c->opts.liveness = PROTO_LIVENESS;
	if (c->opts.tick_ms <= 0)
		c->opts.tick_ms = COORD_TICK_MS;
	if (c->opts.max_attempts <= 0)
		c->opts.max_attempts = COORD_MAX_ATTEMPTS;
	c->lock_fd = -1;

	if (!opts->key) {
		/* plaintext only where nobody else can connect; before anything is opened */
		const char *ep = !keys_endpoint_is_local(opts->agents) ? opts->agents :
				 !keys_endpoint_is_local(opts->clients) ? opts->clients : NULL;

		if (ep) {
			pr_warn("refusing plaintext on '%s'; give --key and --authorized, or "
				"--plaintext on loopback/ipc only", ep);
			saved = EPERM;
			goto fail;
		}
	}
	saved = -db_lock(c, opts->db);
	if (saved)
		goto fail;
	c->store = store_open(opts->db, false, &err);
	if (!c->store) {
		saved = errno;
		pr_warn("%s", err.msg);
		goto fail;
	}
	if (store_recover(c->store, &requeued)) {
		saved = EIO;
		pr_warn("%s", store_err(c->store)->msg);
		goto fail;
	}
	if (requeued)
		pr_info("%d job%s left running by the previous coordinator queued again",
			requeued, requeued == 1 ? "" : "s");
	if (coord_boot_restore(c)) {	/* kernel switches in progress (boot.c) */
		saved = EIO;
		goto fail;
	}
	saved = -coord_offload_start(c, opts->db);
	if (saved)
		goto fail;
	c->started_mono = util_mono_ms();
	coord_link_start(c);	/* pairs of hosts not back yet wait from now */
	c->ctx = zmq_ctx_new();
	if (!c->ctx) {
		saved = errno;
		pr_warn("cannot create a ZeroMQ context: %s", zmq_strerror(errno));
		goto fail;
	}
	if (coord_zap_init(c, opts)) {
		saved = errno;
		goto fail;
	}
	c->agents_sock = router_new(c, opts->agents, "agents", KEYS_ZAP_AGENTS, true,
				    PROTO_MAX_BYTES);
	if (!c->agents_sock) {
		saved = errno;
		goto fail;
	}
	c->clients_sock = router_new(c, opts->clients, "clients", KEYS_ZAP_CLIENTS, false,
				     PROTO_MAX_CLIENT_BYTES);
	if (!c->clients_sock) {
		saved = errno;
		goto fail;
	}
	c->next_tick_mono = util_mono_ms() + c->opts.tick_ms;
	pr_info("serving agents on %s, clients on %s, database '%s' (schema %d)", opts->agents,
		opts->clients, opts->db, store_schema_version(c->store));
	/* The strings of OPTS are not kept. */
	c->opts.agents = c->opts.clients = c->opts.db = c->opts.authorized = NULL;
	c->opts.key = NULL;
	return c;
fail:
	coord_destroy(&c);
	errno = saved;
	return NULL;
}

void coord_destroy(struct coord **cp)
{
	struct coord *c = cp ? *cp : NULL;
	if (!c)
		return;
	coord_offload_stop(c);
	coord_imports_release(c);	/* before the store closes: their runs deleted */
	if (c->agents_sock)
		zmq_close(c->agents_sock);
	if (c->clients_sock)
		zmq_close(c->clients_sock);
	coord_zap_release(c);	/* before the context ends */
	if (c->ctx)
		zmq_ctx_term(c->ctx);
	coord_agents_release(c);
	coord_link_release(c);
	coord_machine_release(c);
	free(c->waiters);
	free(c->kept_busy);
	free(c->pending);	/* empty: every turn commits its results (result_flush) */
	coord_job_messages_release(c);
	coord_specs_release(c);
	store_close(&c->store);
	if (c->lock_fd >= 0)
		close(c->lock_fd);	/* releases the flock */
	free(c);
	*cp = NULL;
}
