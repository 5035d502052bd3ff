// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* xdphold.c - see xdphold.h. The veth pair is made and deleted with one RTM_NEWLINK and
 * one RTM_DELLINK through rtnl.c; the program attached with libbpf. */
#include "xdphold.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtnl.h"

#define XDPHOLD_MSG 512

struct xdphold {
	char ifname[IFNAMSIZ];
};

struct msg {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char buf[XDPHOLD_MSG];
};

/* Append attribute TYPE with LEN bytes of DATA at the end of message M (its fixed
 * size holds what make_pair and del_link put); returns it, for nesting. */
static struct rtattr *put_attr(struct msg *m, int type, const void *data, size_t len)
{
	char *p = (char *)m + NLMSG_ALIGN(m->nh.nlmsg_len);
	struct rtattr a = { .rta_type = (unsigned short)type,
			    .rta_len = (unsigned short)RTA_LENGTH(len) };

	memcpy(p, &a, sizeof(a));
	if (len)
		memcpy(p + RTA_LENGTH(0), data, len);
	m->nh.nlmsg_len = NLMSG_ALIGN(m->nh.nlmsg_len) + RTA_ALIGN(a.rta_len);
	return (struct rtattr *)p;
}

/* Close nested attribute A: its length reaches the message's end. */
static void end_nest(struct msg *m, struct rtattr *a)
{
	a->rta_len = (unsigned short)((char *)m + m->nh.nlmsg_len - (char *)a);
}

static int ignore(const struct nlmsghdr *h, void *ctx)
{
	(void)h;
	(void)ctx;
	return 0;
}

/* Send message M (an RTM_NEWLINK or RTM_DELLINK) and wait for its ACK. */
static int request(struct msg *m)
{
	struct rtnl *r = rtnl_open();
	int err;

	if (!r)
		return -errno;
	err = rtnl_request(r, &m->nh, m->nh.nlmsg_len, ignore, NULL);
	rtnl_close(&r);
	return err;
}

/* The veth pair NAME / NAME "p", down. */
static int make_pair(const char *name)
{
	struct msg m;
	struct rtattr *info, *data, *peer;
	struct ifinfomsg peer_ifi;
	char peer_name[IFNAMSIZ];

	memset(&m, 0, sizeof(m));
	m.nh.nlmsg_len = NLMSG_LENGTH(sizeof(m.ifi));
	m.nh.nlmsg_type = RTM_NEWLINK;
	m.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	m.ifi.ifi_family = AF_UNSPEC;
	put_attr(&m, IFLA_IFNAME, name, strlen(name) + 1);
	info = put_attr(&m, IFLA_LINKINFO, NULL, 0);
	put_attr(&m, IFLA_INFO_KIND, "veth", 5);
	data = put_attr(&m, IFLA_INFO_DATA, NULL, 0);
	memset(&peer_ifi, 0, sizeof(peer_ifi));
	peer = put_attr(&m, VETH_INFO_PEER, &peer_ifi, sizeof(peer_ifi));
	snprintf(peer_name, sizeof(peer_name), "%sp", name);
	put_attr(&m, IFLA_IFNAME, peer_name, strlen(peer_name) + 1);
	end_nest(&m, peer);
	end_nest(&m, data);
	end_nest(&m, info);
	return request(&m);
}

static int del_link(const char *name)
{
	struct msg m;

	memset(&m, 0, sizeof(m));
	m.nh.nlmsg_len = NLMSG_LENGTH(sizeof(m.ifi));
	m.nh.nlmsg_type = RTM_DELLINK;
	m.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	m.ifi.ifi_family = AF_UNSPEC;
	put_attr(&m, IFLA_IFNAME, name, strlen(name) + 1);
	return request(&m);
}

struct xdphold *xdphold_new(int prog_fd, struct err *err)
{
	static atomic_uint next;
	struct xdphold *h = calloc(1, sizeof(*h));
	int ifindex, e;

	if (!h) {
		err_set(err, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	snprintf(h->ifname, sizeof(h->ifname), "bph%u-%u", (unsigned int)getpid() % 10000000,
		 atomic_fetch_add(&next, 1) % 1000);
	e = make_pair(h->ifname);
	if (e) {
		err_set(err, "cannot make the veth pair '%s': %s", h->ifname,
			strerror(-e));
		free(h);
		errno = -e;
		return NULL;
	}
	ifindex = (int)if_nametoindex(h->ifname);
	e = ifindex ? bpf_xdp_attach(ifindex, prog_fd, XDP_FLAGS_SKB_MODE, NULL) : -errno;
	if (e) {
		err_set(err, "cannot attach the generator program to '%s': %s",
			h->ifname, strerror(-e));
		del_link(h->ifname);
		free(h);
		errno = -e;
		return NULL;
	}
	return h;
}

const char *xdphold_ifname(const struct xdphold *h)
{
	return h->ifname;
}

void xdphold_destroy(struct xdphold **hp)
{
	struct xdphold *h = *hp;

	if (!h)
		return;
	del_link(h->ifname);
	free(h);
	*hp = NULL;
}
