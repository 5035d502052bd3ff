/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* ifstats.h - per-port link facts and counters through rtnetlink.
 *
 * One RTM_GETLINK request per call on a NETLINK_ROUTE socket opened by ifstats_new() in
 * the network namespace of the calling thread. Counters come from IFLA_STATS64, not from
 * /sys/class/net, because sysfs shows the namespace it was mounted in, which need not be
 * the agent's. Used by the job runner (counters every second), the inventory (MAC, MTU)
 * and the generator setup (the veth peer through IFLA_LINK).
 *
 * A struct ifstats is used by one thread at a time.
 */
#ifndef BPFLAB_AGENT_IFSTATS_H
#define BPFLAB_AGENT_IFSTATS_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

struct ifstats;

struct ifstats_counters {
	uint64_t rx_packets, tx_packets;
	uint64_t rx_bytes, tx_bytes;
	uint64_t rx_dropped, tx_dropped;
	uint64_t rx_errors, tx_errors;
};

struct ifstats_link {
	int ifindex;
	char name[IF_NAMESIZE];
	uint8_t mac[32];		/* IFLA_ADDRESS */
	int mac_len;			/* 0 when the link has none */
	unsigned int mtu;
	int link;			/* IFLA_LINK (a veth's peer), 0 when absent */
	bool link_netns;		/* IFLA_LINK_NETNSID present: LINK is in another netns */
	struct ifstats_counters stats;
};

/* Open the netlink socket. NULL with errno set on failure. */
struct ifstats *ifstats_new(void);
/* Free S and null the caller's pointer; NULL is fine. */
void ifstats_destroy(struct ifstats **s);

/* Everything RTM_GETLINK says about IFINDEX into OUT. Returns 0, -ENODEV when there is no
 * such interface, or another -errno. */
int ifstats_get(struct ifstats *s, int ifindex, struct ifstats_link *out);
/* Only the IFLA_STATS64 counters of IFINDEX. Returns 0 or -errno as ifstats_get. */
int ifstats_read(struct ifstats *s, int ifindex, struct ifstats_counters *out);

/* "aa:bb:cc:dd:ee:ff" for a 6-byte MAC into OUT (at least 18 bytes). */
void ifstats_format_mac(const uint8_t *mac, char *out);
/* Parse "aa:bb:cc:dd:ee:ff". Returns 0 or -EINVAL. */
int ifstats_parse_mac(const char *text, uint8_t mac[6]);

#endif
