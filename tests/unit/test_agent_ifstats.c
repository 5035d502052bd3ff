// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_ifstats.c - agent/ifstats.c against a real veth pair in a namespace: link
 * facts (MAC, MTU, the peer through IFLA_LINK) and IFLA_STATS64 counters that move when
 * frames are sent through an AF_PACKET socket; agent/rtnl.c under them: a dump, an error
 * from the callback, and the replies of an abandoned request skipped by sequence number.
 * Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#include <linux/rtnetlink.h>

#include "ifstats.h"
#include "rtnl.h"
#include "test_agent_lab.h"

static int setup(void **state)
{
	return lab_setup(&lab, "ifstats");
}

static void send_frames(int ifindex, int n)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = ifindex,
		.sll_halen = 6,
	};
	unsigned char frame[64];
	int fd, i;

	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	assert_true(fd >= 0);
	memset(frame, 0, sizeof(frame));
	memset(frame, 0xff, 6);			/* broadcast */
	frame[6] = 0x02;			/* locally administered source */
	frame[12] = 0x88;			/* local experimental ethertype 0x88b5 */
	frame[13] = 0xb5;
	memset(sll.sll_addr, 0xff, 6);
	for (i = 0; i < n; i++)
		assert_int_equal(sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&sll,
					sizeof(sll)), sizeof(frame));
	close(fd);
}

static void test_ifstats_link_facts(void **state)
{
	struct ifstats *s;
	struct ifstats_link a, b;
	char mac[18];
	uint8_t parsed[6];

	SKIP_UNLESS_LAB();
	s = ifstats_new();
	assert_non_null(s);
	assert_int_equal(ifstats_get(s, lab.ifa, &a), 0);
	assert_int_equal(ifstats_get(s, lab.ifb, &b), 0);
	assert_string_equal(a.name, "va");
	assert_int_equal(a.ifindex, lab.ifa);
	assert_int_equal(a.mac_len, 6);
	assert_int_equal(a.mtu, 1500);
	/* a veth names its peer in IFLA_LINK */
	assert_int_equal(a.link, lab.ifb);
	assert_int_equal(b.link, lab.ifa);
	assert_false(a.link_netns);
	ifstats_format_mac(a.mac, mac);
	assert_int_equal(ifstats_parse_mac(mac, parsed), 0);
	assert_memory_equal(parsed, a.mac, 6);
	assert_int_equal(ifstats_parse_mac("aa:bb:cc:dd:ee", parsed), -EINVAL);
	assert_int_equal(ifstats_parse_mac("aa:bb:cc:dd:ee:ff:00", parsed), -EINVAL);
	assert_int_equal(ifstats_get(s, 999999, &a), -ENODEV);
	ifstats_destroy(&s);
	assert_null(s);
	ifstats_destroy(&s);
}

static void test_ifstats_counters_move(void **state)
{
	struct ifstats_counters a0, b0, a1, b1;
	struct ifstats *s;

	SKIP_UNLESS_LAB();
	s = ifstats_new();
	assert_non_null(s);
	assert_int_equal(ifstats_read(s, lab.ifa, &a0), 0);
	assert_int_equal(ifstats_read(s, lab.ifb, &b0), 0);
	send_frames(lab.ifa, 100);
	assert_int_equal(ifstats_read(s, lab.ifa, &a1), 0);
	assert_int_equal(ifstats_read(s, lab.ifb, &b1), 0);
	/* >= : the kernel may send IPv6 neighbour discovery of its own meanwhile */
	assert_true(a1.tx_packets - a0.tx_packets >= 100);
	assert_true(b1.rx_packets - b0.rx_packets >= 100);
	assert_true(b1.rx_bytes - b0.rx_bytes >= 100 * 64);
	assert_true(a1.tx_bytes - a0.tx_bytes >= 100 * 64);
	ifstats_destroy(&s);
}

struct link_names {
	int n;
	bool va, vb, lo;
	int stop_after;			/* return -ECANCELED at this reply (0: never) */
};

static int link_name_each(const struct nlmsghdr *h, void *ctx)
{
	struct link_names *c = ctx;
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	struct rtattr *a;

	if (h->nlmsg_type != RTM_NEWLINK)
		return 0;
	c->n++;
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type != IFLA_IFNAME)
			continue;
		c->va |= !strcmp(RTA_DATA(a), "va");
		c->vb |= !strcmp(RTA_DATA(a), "vb");
		c->lo |= !strcmp(RTA_DATA(a), "lo");
	}
	return c->n == c->stop_after ? -ECANCELED : 0;
}

static void test_rtnl_dump_and_stale_replies(void **state)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req;
	struct link_names all = { 0 }, first = { .stop_after = 1 };
	struct rtnl *nl;
	struct ifstats_link link;
	struct ifstats *s;

	SKIP_UNLESS_LAB();
	nl = rtnl_open();
	assert_non_null(nl);
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.ifi.ifi_family = AF_UNSPEC;
	/* the lab's namespace has lo, va and vb: a dump ends at NLMSG_DONE with all three */
	assert_int_equal(rtnl_request(nl, &req.nh, req.nh.nlmsg_len, link_name_each, &all), 0);
	assert_int_equal(all.n, 3);
	assert_true(all.va && all.vb && all.lo);
	/* the callback's error ends the request at once */
	assert_int_equal(rtnl_request(nl, &req.nh, req.nh.nlmsg_len, link_name_each, &first),
			 -ECANCELED);
	assert_int_equal(first.n, 1);
	/* the rest of that dump is still queued on the socket; the next request skips it */
	memset(&all, 0, sizeof(all));
	assert_int_equal(rtnl_request(nl, &req.nh, req.nh.nlmsg_len, link_name_each, &all), 0);
	assert_int_equal(all.n, 3);
	rtnl_close(&nl);
	assert_null(nl);
	rtnl_close(&nl);

	/* ifstats on it: a link that is not there is the kernel's -ENODEV */
	s = ifstats_new();
	assert_non_null(s);
	assert_int_equal(ifstats_get(s, lab.ifb, &link), 0);
	assert_string_equal(link.name, "vb");
	assert_int_equal(ifstats_get(s, 999999, &link), -ENODEV);
	assert_int_equal(ifstats_get(s, lab.ifa, &link), 0);
	assert_string_equal(link.name, "va");
	ifstats_destroy(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ifstats_link_facts),
		cmocka_unit_test(test_ifstats_counters_move),
		cmocka_unit_test(test_rtnl_dump_and_stale_replies),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}
