// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web_conn.c - deadlines for the dashboard's connections (web_conn.h, docs/dashboard.md,
 * "Limits"). MHD closes a connection only when it is idle for its timeout, so 64 clients
 * sending a header line every 5 s held every slot (issue 23). Here each connection has
 * an absolute deadline: WEB_REQUEST_DEADLINE_S from its start, or from its previous
 * answer, to send a whole request; none while the answer is built; the send deadline to
 * take the answer. A thread wakes every 200 ms and shuts down (shutdown(2), not close:
 * the socket stays MHD's) the sockets past theirs; MHD then sees the end and closes.
 *
 * Threads: the notify callbacks run on MHD's threads, the reaper on its own; one mutex
 * guards the list. MHD calls the closed notification before it closes the socket, so
 * an fd in the list is always the connection's own.
 */
#include "web_conn.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "base/log.h"

#define REAP_INTERVAL_MS 200

struct conn {
	struct conn *prev, *next;
	int fd;
	long long deadline_ms;		/* CLOCK_MONOTONIC; 0: none */
};

struct web_conns {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	struct conn head;		/* the list's anchor */
	unsigned request_s, send_s;
	unsigned long late;
	bool stop;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *reaper(void *arg)
{
	struct web_conns *c = arg;
	struct timespec until;
	struct conn *e;
	long long now;

	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		now = now_ms();
		for (e = c->head.next; e != &c->head; e = e->next) {
			if (!e->deadline_ms || now < e->deadline_ms)
				continue;
			shutdown(e->fd, SHUT_RDWR);
			e->deadline_ms = 0;
			c->late++;
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += REAP_INTERVAL_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&c->wake, &c->lock, &until);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct web_conns *web_conns_new(unsigned request_s, unsigned send_s)
{
	struct web_conns *c = calloc(1, sizeof(*c));
	pthread_condattr_t ca;
	int err;

	if (!c)
		return NULL;
	c->head.next = c->head.prev = &c->head;
	c->request_s = request_s;
	c->send_s = send_s;
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->wake, &ca);
	pthread_condattr_destroy(&ca);
	err = pthread_create(&c->thread, NULL, reaper, c);
	if (err) {
		pthread_cond_destroy(&c->wake);
		pthread_mutex_destroy(&c->lock);
		free(c);
		errno = err;
		return NULL;
	}
	return c;
}

/* The entry of CONN (its socket context), or NULL. */
static struct conn *entry_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return info ? info->socket_context : NULL;
}

/* Set CONN's deadline to SECONDS from now (0: none). */
static void set_deadline(struct web_conns *c, struct MHD_Connection *conn, unsigned seconds)
{
	struct conn *e = entry_of(conn);

	if (!e)
		return;
	pthread_mutex_lock(&c->lock);
	e->deadline_ms = seconds ? now_ms() + seconds * 1000LL : 0;
	pthread_mutex_unlock(&c->lock);
}

void web_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
		      enum MHD_ConnectionNotificationCode toe)
{
	struct web_conns *c = cls;
	const union MHD_ConnectionInfo *info;
	struct conn *e;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		e = info ? calloc(1, sizeof(*e)) : NULL;
		if (!e) {
			/* without a deadline, MHD's idle timeout still ends it */
			pr_warn("dashboard: a connection without a deadline: out of memory");
			return;
		}
		e->fd = info->connect_fd;
		e->deadline_ms = now_ms() + c->request_s * 1000LL;
		pthread_mutex_lock(&c->lock);
		e->next = &c->head;
		e->prev = c->head.prev;
		c->head.prev->next = e;
		c->head.prev = e;
		pthread_mutex_unlock(&c->lock);
		*socket_context = e;
		return;
	}
	e = *socket_context;
	if (!e)
		return;
	pthread_mutex_lock(&c->lock);
	e->prev->next = e->next;
	e->next->prev = e->prev;
	pthread_mutex_unlock(&c->lock);
	free(e);
	*socket_context = NULL;
}

void web_conns_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)con_cls;
	(void)toe;
	set_deadline(cls, conn, ((struct web_conns *)cls)->request_s);
}

void web_conns_answering(struct web_conns *c, struct MHD_Connection *conn)
{
	set_deadline(c, conn, 0);
}

void web_conns_sending(struct web_conns *c, struct MHD_Connection *conn)
{
	set_deadline(c, conn, c->send_s);
}

unsigned long web_conns_late(struct web_conns *c)
{
	unsigned long n;

	pthread_mutex_lock(&c->lock);
	n = c->late;
	pthread_mutex_unlock(&c->lock);
	return n;
}

void web_conns_destroy(struct web_conns **cp)
{
	struct web_conns *c = *cp;
	struct conn *e, *next;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	for (e = c->head.next; e != &c->head; e = next) {
		next = e->next;
		free(e);
	}
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->lock);
	free(c);
	*cp = NULL;
}
