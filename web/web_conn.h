/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* web_conn.h - the dashboard's connection deadlines (web_conn.c), for web.c only: MHD
 * times a connection out when it is idle, so one that sends a header line every few
 * seconds would hold its slot for ever; these deadlines count from its start instead.
 */
#ifndef BPFLAB_WEB_CONN_H
#define BPFLAB_WEB_CONN_H

#include <microhttpd.h>

struct web_conns;

/* Start the thread that shuts down a connection past its deadline: a request not whole
 * within REQUEST_S seconds of its connection (or of its previous answer), an answer not
 * taken within SEND_S. NULL with errno on failure. */
struct web_conns *web_conns_new(unsigned request_s, unsigned send_s);
/* MHD's notify-connection callback (MHD_OPTION_NOTIFY_CONNECTION, CLS the web_conns;
 * MHD's threads): a new connection starts its request deadline, a closed one leaves. */
void web_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
		      enum MHD_ConnectionNotificationCode toe);
/* MHD's request-completed callback (MHD_OPTION_NOTIFY_COMPLETED, CLS the web_conns):
 * the answer went, the request deadline again (keep-alive). */
void web_conns_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe);
/* CONN's request came whole (the access handler runs): no deadline while its answer is
 * built. */
void web_conns_answering(struct web_conns *c, struct MHD_Connection *conn);
/* CONN's answer is queued: the send deadline. */
void web_conns_sending(struct web_conns *c, struct MHD_Connection *conn);
/* The number of connections shut down for a deadline so far. */
unsigned long web_conns_late(struct web_conns *c);
/* Stop the thread and free; the connections must be gone (MHD stopped). Takes NULL;
 * *C becomes NULL. */
void web_conns_destroy(struct web_conns **c);

#endif
