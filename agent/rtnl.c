// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* rtnl.c - see rtnl.h. */
#include "rtnl.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#define RTNL_BUF (64 * 1024)

struct rtnl {
	int fd;
	uint32_t seq;
	char *buf;
};

struct rtnl *rtnl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct rtnl *r;
	int one = 1, err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->buf = malloc(RTNL_BUF);
	r->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (!r->buf || r->fd < 0) {
		err = r->buf ? errno : ENOMEM;
		goto fail;
	}
	/* Errors come back with only the header we sent, not the whole request. */
	setsockopt(r->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (bind(r->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = errno;
		goto fail;
	}
	return r;
fail:
	rtnl_close(&r);
	errno = err;
	return NULL;
}

void rtnl_close(struct rtnl **rp)
{
	struct rtnl *r = *rp;

	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r);
	*rp = NULL;
}

int rtnl_request(struct rtnl *r, struct nlmsghdr *req, size_t len, rtnl_each_fn each,
		 void *ctx)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	req->nlmsg_seq = ++r->seq;
	if (sendto(r->fd, req, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		ssize_t got = recv(r->fd, r->buf, RTNL_BUF, 0);
		struct nlmsghdr *h;
		int n, ret;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EPROTO;
		n = (int)got;
		for (h = (struct nlmsghdr *)r->buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != r->seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			ret = each(h, ctx);
			if (ret)
				return ret < 0 ? ret : 0;
		}
	}
}
