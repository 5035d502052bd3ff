/* test_agent_ifstats.c - agent/ifstats.c against a real veth pair in a namespace: link
 * facts (MAC, MTU, the peer through IFLA_LINK) and IFLA_STATS64 counters that move when
 * frames are sent through an AF_PACKET socket. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#include "ifstats.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ifstats_link_facts),
		cmocka_unit_test(test_ifstats_counters_move),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}
