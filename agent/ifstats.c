// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* ifstats.c - see ifstats.h. One RTM_GETLINK request, one reply, through rtnl.c. */
#include "ifstats.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtnl.h"

struct ifstats {
	struct rtnl *nl;
};

struct ifstats *ifstats_new(void)
{
	struct ifstats *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	s->nl = rtnl_open();
	if (!s->nl) {
		err = errno;
		free(s);
		errno = err;
		return NULL;
	}
	return s;
}

void ifstats_destroy(struct ifstats **sp)
{
	struct ifstats *s = *sp;

	if (!s)
		return;
	rtnl_close(&s->nl);
	free(s);
	*sp = NULL;
}

static void parse_link(struct ifinfomsg *ifi, int len, struct ifstats_link *out)
{
	struct rtattr *rta;

	memset(out, 0, sizeof(*out));
	out->ifindex = ifi->ifi_index;
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		void *data = RTA_DATA(rta);
		int plen = RTA_PAYLOAD(rta);

		switch (rta->rta_type) {
		case IFLA_IFNAME:
			snprintf(out->name, sizeof(out->name), "%.*s", plen, (char *)data);
			break;
		case IFLA_ADDRESS:
			if (plen <= (int)sizeof(out->mac)) {
				memcpy(out->mac, data, plen);
				out->mac_len = plen;
			}
			break;
		case IFLA_MTU:
			if (plen >= 4)
				memcpy(&out->mtu, data, 4);
			break;
		case IFLA_LINK:
			if (plen >= 4)
				memcpy(&out->link, data, 4);
			break;
		case IFLA_LINK_NETNSID:
			out->link_netns = true;
			break;
		case IFLA_STATS64: {
			struct rtnl_link_stats64 st;

			memset(&st, 0, sizeof(st));
			memcpy(&st, data, plen < (int)sizeof(st) ? plen : (int)sizeof(st));
			out->stats.rx_packets = st.rx_packets;
			out->stats.tx_packets = st.tx_packets;
			out->stats.rx_bytes = st.rx_bytes;
			out->stats.tx_bytes = st.tx_bytes;
			out->stats.rx_dropped = st.rx_dropped;
			out->stats.tx_dropped = st.tx_dropped;
			out->stats.rx_errors = st.rx_errors;
			out->stats.tx_errors = st.tx_errors;
			break;
		}
		}
	}
}

/* The RTM_NEWLINK reply of ifstats_get into CTX (a struct ifstats_link). */
static int link_reply(const struct nlmsghdr *h, void *ctx)
{
	struct ifinfomsg *ifi = NLMSG_DATA(h);

	if (h->nlmsg_type != RTM_NEWLINK)
		return 0;
	parse_link(ifi, h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)), ctx);
	return 1;
}

int ifstats_get(struct ifstats *s, int ifindex, struct ifstats_link *out)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req;
	int err;

	if (ifindex <= 0)
		return -ENODEV;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = ifindex;
	out->ifindex = 0;
	err = rtnl_request(s->nl, &req.nh, req.nh.nlmsg_len, link_reply, out);
	return err || out->ifindex ? err : -EPROTO;	/* an ACK without the link */
}

int ifstats_read(struct ifstats *s, int ifindex, struct ifstats_counters *out)
{
	struct ifstats_link link;
	int err = ifstats_get(s, ifindex, &link);

	if (!err)
		*out = link.stats;
	return err;
}

void ifstats_format_mac(const uint8_t *mac, char *out)
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
		 mac[4], mac[5]);
}

int ifstats_parse_mac(const char *text, uint8_t mac[6])
{
	unsigned int b[6];
	char end;
	int i;

	if (sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &end) != 6 || strlen(text) != 17)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = b[i];
	return 0;
}
