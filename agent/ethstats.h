/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* ethstats.h - a port's driver counters (what `ethtool -S` prints), through the
 * SIOCETHTOOL ioctl: the names once (ETHTOOL_GSSET_INFO for ETH_SS_STATS, else
 * ETHTOOL_GDRVINFO's n_stats; then ETHTOOL_GSTRINGS), the values at each read
 * (ETHTOOL_GSTATS). Never runs the ethtool command.
 *
 * The job runner reads every job port at the start and at the end of the rate window and
 * emits a sample nic.NAME per counter and port (docs/agent.md, "Driver counters"). The
 * naming and unit rules and the two-snapshot rates are pure functions (ethstats_names,
 * ethstats_unit_of, ethstats_rates) that tests drive with captured driver data
 * (tests/unit/test_ethstats.c).
 *
 * Names: a driver's string (at most ETH_GSTRING_LEN bytes) with every character but
 * [A-Za-z0-9_.-] made '_', runs of '_' made one, '_' trimmed at both ends (vmxnet3's
 * "  ucast pkts rx" is ucast_pkts_rx); a name seen before gets "#K", K its earlier
 * occurrences (vmxnet3's second queue: ucast_pkts_rx#1). At most ETHSTATS_MAX stats a
 * port are kept (the driver's first ones).
 *
 * Units, by the name's tokens (split at '_', '.', '-', lower case), first rule that
 * matches:
 *   not a counter, left out: a token "ifindex" or "index" (veth's peer_ifindex); a queue
 *     header, only tokens rx/tx/queue (vmxnet3's "Rx Queue#": the queue's number)
 *   Bps: a token bytes, byte or octets
 *   pps: a token packets, packet, pkts, pkt, frames, frame, drops, drop, dropped,
 *     discard(s/ed), xdp, errors, error, err, errs, missed, unicast, multicast,
 *     broadcast, ucast, mcast, bcast
 *   /s: any other counter (kicks, timeouts, restarts, allocation failures)
 * A counter whose value went down between the snapshots (a gauge, a reset, a 32-bit
 * wrap) is left out of that window.
 *
 * A struct ethstats is used by one thread at a time.
 */
#ifndef BPFLAB_AGENT_ETHSTATS_H
#define BPFLAB_AGENT_ETHSTATS_H

#include <stdbool.h>
#include <stdint.h>

#define ETHSTATS_MAX 512		/* stats kept per port */
#define ETHSTATS_MAX_DRIVER 65536	/* a driver reporting more: -E2BIG */
#define ETHSTATS_RAW_LEN 32		/* ETH_GSTRING_LEN */
#define ETHSTATS_NAME_LEN 48		/* a name, "#K" and its NUL */

enum ethstats_unit {
	ETHSTATS_NONE,			/* not a counter: never a sample */
	ETHSTATS_PPS,			/* frames, packets, drops, XDP actions */
	ETHSTATS_BPS,			/* bytes */
	ETHSTATS_EPS,			/* other events */
};

struct ethstats_stat {
	char name[ETHSTATS_NAME_LEN];	/* sanitized, unique in its port */
	enum ethstats_unit unit;
};

/* One rate of ethstats_rates(): NAME points into the stats given. */
struct ethstats_rate {
	const char *name;
	const char *unit;
	double value;			/* delta / dt */
};

/* ---- pure ---- */

/* The unit rule of sanitized NAME (above). */
enum ethstats_unit ethstats_unit_of(const char *name);
/* "pps", "Bps", "/s", or NULL for ETHSTATS_NONE. */
const char *ethstats_unit_name(enum ethstats_unit unit);
/* The first min(N, ETHSTATS_MAX) of N raw driver strings RAW (N * ETHSTATS_RAW_LEN
 * bytes, each NUL-padded or not) as sanitized, unique names with their units into OUT
 * (room for min(N, ETHSTATS_MAX)). Returns how many, or -EINVAL for N < 0. */
int ethstats_names(const char *raw, int n, struct ethstats_stat *out);
/* The rates between snapshots A and B (values of the N stats STATS) taken DT seconds
 * apart into OUT (room for N): every counter, in stats order, but those whose value
 * went down and those of unit ETHSTATS_NONE; a delta of zero only when KEEP (may be
 * NULL) says yes for its name. Returns how many, or -EINVAL for DT <= 0. */
int ethstats_rates(const struct ethstats_stat *stats, int n, const uint64_t *a,
		   const uint64_t *b, double dt, bool (*keep)(const char *name, void *ctx),
		   void *ctx, struct ethstats_rate *out);
/* The index of NAME among the N STATS, or -1. */
int ethstats_find(const struct ethstats_stat *stats, int n, const char *name);

/* ---- I/O ---- */

struct ethstats;

/* The driver counters of interface IFNAME (in the calling thread's network namespace):
 * their names and units, read once. Returns 0, -EOPNOTSUPP when the driver has none,
 * -E2BIG when it reports more than ETHSTATS_MAX_DRIVER, or another -errno. */
int ethstats_open(const char *ifname, struct ethstats **out);
/* Free E and null the caller's pointer; NULL is fine. */
void ethstats_destroy(struct ethstats **e);
/* The kept stats (ethstats_count of them). */
const struct ethstats_stat *ethstats_stats(const struct ethstats *e);
int ethstats_count(const struct ethstats *e);
/* The driver's name (ETHTOOL_GDRVINFO), "" when unknown. */
const char *ethstats_driver(const struct ethstats *e);
/* The values of the kept stats now into VALUES (ethstats_count entries). Returns 0,
 * -ESTALE when the driver's count changed since ethstats_open (queues changed: open
 * again), or another -errno. */
int ethstats_read(struct ethstats *e, uint64_t *values);

#endif
