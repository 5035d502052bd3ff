/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* rtnl.h - the agent's one rtnetlink client: a NETLINK_ROUTE socket in the calling
 * thread's network namespace, a request sent, its replies read until the request is
 * answered.
 *
 * Replies are matched by sequence number, so a stray message from an earlier interrupted
 * request on the same socket is skipped. An NLMSG_ERROR ends the request with the
 * kernel's -errno (0, an ACK, ends it with 0); NLMSG_DONE ends a dump with 0. Used by
 * ifstats.c (RTM_GETLINK, one reply) and attach.c (tc qdisc and filter dumps). A struct
 * rtnl is used by one thread at a time.
 */
#ifndef BPFLAB_AGENT_RTNL_H
#define BPFLAB_AGENT_RTNL_H

#include <linux/netlink.h>
#include <stddef.h>
#include <stdint.h>

struct rtnl;

/* Open and bind the socket. NULL with errno set on failure. */
struct rtnl *rtnl_open(void);
/* Close R and null the caller's pointer; NULL is fine. */
void rtnl_close(struct rtnl **r);

/* Called for each reply message of a request that is neither NLMSG_ERROR nor NLMSG_DONE.
 * Returns 0 to read on, 1 when the request is answered (a single reply), or -errno to
 * end the request with that error. */
typedef int (*rtnl_each_fn)(const struct nlmsghdr *h, void *ctx);

/* Send the request REQ (LEN bytes, a struct nlmsghdr first; its nlmsg_seq is set here)
 * and call EACH on its replies until it is answered: EACH returns 1, NLMSG_DONE (a
 * dump's end) or NLMSG_ERROR arrives. Returns 0 or -errno (the kernel's, EACH's, or the
 * socket's; -EPROTO for a reply the socket cut short). */
int rtnl_request(struct rtnl *r, struct nlmsghdr *req, size_t len, rtnl_each_fn each,
		 void *ctx);

#endif
