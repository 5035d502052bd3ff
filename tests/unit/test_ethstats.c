// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_ethstats.c - agent/ethstats.c: the naming and unit rules and the rates of two
 * snapshots (the nic.* samples, docs/agent.md "Driver counters") on captured driver
 * counters, and the ioctl path on a real veth pair (needs root; skipped without).
 *
 * Where the fixtures come from (names in the driver's order):
 *   veth     `ethtool -S vb` on this project's Debian 12 VM (kernel 6.18.44), a veth pair
 *            with xdp_drop (build/bpf/xdp_basic.bpf.o) on vb and 2000, then 5000 frames
 *            sent into va by an AF_PACKET socket: the two snapshots as printed.
 *   virtio_net  drivers/net/virtio_net.c of linux-source-6.12 (Debian's
 *            /usr/src/linux-source-6.12.tar.xz): virtnet_get_strings() with one queue
 *            pair and no device stats (QEMU without VIRTIO_NET_F_DEVICE_STATS): the
 *            totals "rx_%s"/"tx_%s" of virtnet_rq_stats_desc/virtnet_sq_stats_desc, then
 *            "rx%u_%s", "tx%u_%s" per queue (kernels before 6.10 print
 *            rx_queue_0_xdp_drops and the like: the same rules apply). Values: a plausible
 *            XDP_DROP run of 2 s at 1.2 Mpps.
 *   vmxnet3  drivers/net/vmxnet3/vmxnet3_ethtool.c of linux-source-6.12:
 *            vmxnet3_get_strings() with one tx and one rx queue (tq dev, tq driver, rq
 *            dev, rq driver stats, the global one); the strings as the driver has them,
 *            leading spaces, "#" and all. Values: plausible, 1 s of XDP_TX.
 *   e1000e   drivers/net/ethernet/intel/e1000e/ethtool.c of linux-source-6.12:
 *            e1000_gstrings_stats[]. Values: plausible, 1 s of 64-byte frames in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ethstats.h"
#include "base/util.h"
#include "test_agent_lab.h"

struct fixture {
	const char *raw;		/* the driver's string */
	uint64_t a, b;			/* two snapshots */
	const char *name;		/* the sanitized name */
	const char *unit;		/* NULL: not a counter */
};

static const struct fixture veth[] = {
	{ "peer_ifindex", 3, 3, "peer_ifindex", NULL },
	{ "rx_queue_0_xdp_packets", 2000, 5000, "rx_queue_0_xdp_packets", "pps" },
	{ "rx_queue_0_xdp_bytes", 100000, 250000, "rx_queue_0_xdp_bytes", "Bps" },
	{ "rx_queue_0_drops", 0, 0, "rx_queue_0_drops", "pps" },
	{ "rx_queue_0_xdp_redirect", 0, 0, "rx_queue_0_xdp_redirect", "pps" },
	{ "rx_queue_0_xdp_drops", 2000, 5000, "rx_queue_0_xdp_drops", "pps" },
	{ "rx_queue_0_xdp_tx", 0, 0, "rx_queue_0_xdp_tx", "pps" },
	{ "rx_queue_0_xdp_tx_errors", 0, 0, "rx_queue_0_xdp_tx_errors", "pps" },
	{ "tx_queue_0_xdp_xmit", 0, 0, "tx_queue_0_xdp_xmit", "pps" },
	{ "tx_queue_0_xdp_xmit_errors", 0, 0, "tx_queue_0_xdp_xmit_errors", "pps" },
};

static const struct fixture virtio_net[] = {
	{ "rx_drops", 0, 0, "rx_drops", "pps" },
	{ "rx_xdp_packets", 51234567, 53634567, "rx_xdp_packets", "pps" },
	{ "rx_xdp_tx", 0, 0, "rx_xdp_tx", "pps" },
	{ "rx_xdp_redirects", 0, 0, "rx_xdp_redirects", "pps" },
	{ "rx_xdp_drops", 51234000, 53634000, "rx_xdp_drops", "pps" },
	{ "rx_kicks", 1877, 1913, "rx_kicks", "/s" },
	{ "tx_xdp_tx", 0, 0, "tx_xdp_tx", "pps" },
	{ "tx_xdp_tx_drops", 0, 0, "tx_xdp_tx_drops", "pps" },
	{ "tx_kicks", 412, 414, "tx_kicks", "/s" },
	{ "tx_tx_timeouts", 0, 0, "tx_tx_timeouts", "/s" },
	{ "rx0_drops", 0, 0, "rx0_drops", "pps" },
	{ "rx0_xdp_packets", 51234567, 53634567, "rx0_xdp_packets", "pps" },
	{ "rx0_xdp_tx", 0, 0, "rx0_xdp_tx", "pps" },
	{ "rx0_xdp_redirects", 0, 0, "rx0_xdp_redirects", "pps" },
	{ "rx0_xdp_drops", 51234000, 53634000, "rx0_xdp_drops", "pps" },
	{ "rx0_kicks", 1877, 1913, "rx0_kicks", "/s" },
	{ "tx0_xdp_tx", 0, 0, "tx0_xdp_tx", "pps" },
	{ "tx0_xdp_tx_drops", 0, 0, "tx0_xdp_tx_drops", "pps" },
	{ "tx0_kicks", 412, 414, "tx0_kicks", "/s" },
	{ "tx0_tx_timeouts", 0, 0, "tx0_tx_timeouts", "/s" },
};

static const struct fixture vmxnet3[] = {
	{ "Tx Queue#", 0, 0, "Tx_Queue", NULL },
	{ "  TSO pkts tx", 0, 0, "TSO_pkts_tx", "pps" },
	{ "  TSO bytes tx", 0, 0, "TSO_bytes_tx", "Bps" },
	{ "  ucast pkts tx", 8123400, 8923400, "ucast_pkts_tx", "pps" },
	{ "  ucast bytes tx", 487404000, 535404000, "ucast_bytes_tx", "Bps" },
	{ "  mcast pkts tx", 12, 12, "mcast_pkts_tx", "pps" },
	{ "  mcast bytes tx", 1080, 1080, "mcast_bytes_tx", "Bps" },
	{ "  bcast pkts tx", 3, 3, "bcast_pkts_tx", "pps" },
	{ "  bcast bytes tx", 180, 180, "bcast_bytes_tx", "Bps" },
	{ "  pkts tx err", 0, 0, "pkts_tx_err", "pps" },
	{ "  pkts tx discard", 0, 0, "pkts_tx_discard", "pps" },
	{ "  drv dropped tx total", 0, 0, "drv_dropped_tx_total", "pps" },
	{ "     too many frags", 0, 0, "too_many_frags", "/s" },
	{ "     giant hdr", 0, 0, "giant_hdr", "/s" },
	{ "     hdr err", 0, 0, "hdr_err", "pps" },
	{ "     tso", 0, 0, "tso", "/s" },
	{ "  ring full", 310, 42, "ring_full", "/s" },	/* went down: left out */
	{ "  pkts linearized", 0, 0, "pkts_linearized", "pps" },
	{ "  hdr cloned", 0, 0, "hdr_cloned", "/s" },
	{ "  giant hdr", 0, 0, "giant_hdr#1", "/s" },	/* a name the driver repeats */
	{ "  xdp xmit", 8123000, 8923000, "xdp_xmit", "pps" },
	{ "  xdp xmit err", 0, 0, "xdp_xmit_err", "pps" },
	{ "Rx Queue#", 0, 0, "Rx_Queue", NULL },
	{ "  LRO pkts rx", 0, 0, "LRO_pkts_rx", "pps" },
	{ "  LRO byte rx", 0, 0, "LRO_byte_rx", "Bps" },
	{ "  ucast pkts rx", 8123500, 8923500, "ucast_pkts_rx", "pps" },
	{ "  ucast bytes rx", 487410000, 535410000, "ucast_bytes_rx", "Bps" },
	{ "  mcast pkts rx", 40, 41, "mcast_pkts_rx", "pps" },
	{ "  mcast bytes rx", 3600, 3690, "mcast_bytes_rx", "Bps" },
	{ "  bcast pkts rx", 7, 7, "bcast_pkts_rx", "pps" },
	{ "  bcast bytes rx", 420, 420, "bcast_bytes_rx", "Bps" },
	{ "  pkts rx OOB", 0, 0, "pkts_rx_OOB", "pps" },
	{ "  pkts rx err", 0, 0, "pkts_rx_err", "pps" },
	{ "  drv dropped rx total", 0, 0, "drv_dropped_rx_total", "pps" },
	{ "     err", 0, 0, "err", "pps" },
	{ "     fcs", 0, 0, "fcs", "/s" },
	{ "  rx buf alloc fail", 0, 0, "rx_buf_alloc_fail", "/s" },
	{ "     xdp packets", 8123100, 8923100, "xdp_packets", "pps" },
	{ "     xdp tx", 8123000, 8923000, "xdp_tx", "pps" },
	{ "     xdp redirects", 0, 0, "xdp_redirects", "pps" },
	{ "     xdp drops", 100, 100, "xdp_drops", "pps" },
	{ "     xdp aborted", 0, 0, "xdp_aborted", "pps" },
	{ "tx timeout count", 0, 0, "tx_timeout_count", "/s" },
};

static const struct fixture e1000e[] = {
	{ "rx_packets", 3000412, 3800412, "rx_packets", "pps" },
	{ "tx_packets", 1203, 1204, "tx_packets", "pps" },
	{ "rx_bytes", 192026368, 243226368, "rx_bytes", "Bps" },
	{ "tx_bytes", 88214, 88280, "tx_bytes", "Bps" },
	{ "rx_broadcast", 17, 17, "rx_broadcast", "pps" },
	{ "tx_broadcast", 2, 2, "tx_broadcast", "pps" },
	{ "rx_multicast", 33, 33, "rx_multicast", "pps" },
	{ "tx_multicast", 21, 21, "tx_multicast", "pps" },
	{ "rx_errors", 0, 0, "rx_errors", "pps" },
	{ "tx_errors", 0, 0, "tx_errors", "pps" },
	{ "tx_dropped", 0, 0, "tx_dropped", "pps" },
	{ "multicast", 33, 33, "multicast", "pps" },
	{ "collisions", 0, 0, "collisions", "/s" },
	{ "rx_length_errors", 0, 0, "rx_length_errors", "pps" },
	{ "rx_over_errors", 0, 0, "rx_over_errors", "pps" },
	{ "rx_crc_errors", 0, 0, "rx_crc_errors", "pps" },
	{ "rx_frame_errors", 0, 0, "rx_frame_errors", "pps" },
	{ "rx_no_buffer_count", 1480, 1986, "rx_no_buffer_count", "/s" },
	{ "rx_missed_errors", 2210, 3015, "rx_missed_errors", "pps" },
	{ "tx_aborted_errors", 0, 0, "tx_aborted_errors", "pps" },
	{ "tx_carrier_errors", 0, 0, "tx_carrier_errors", "pps" },
	{ "tx_fifo_errors", 0, 0, "tx_fifo_errors", "pps" },
	{ "tx_heartbeat_errors", 0, 0, "tx_heartbeat_errors", "pps" },
	{ "tx_window_errors", 0, 0, "tx_window_errors", "pps" },
	{ "tx_abort_late_coll", 0, 0, "tx_abort_late_coll", "/s" },
	{ "tx_deferred_ok", 0, 0, "tx_deferred_ok", "/s" },
	{ "tx_single_coll_ok", 0, 0, "tx_single_coll_ok", "/s" },
	{ "tx_multi_coll_ok", 0, 0, "tx_multi_coll_ok", "/s" },
	{ "tx_timeout_count", 0, 0, "tx_timeout_count", "/s" },
	{ "tx_restart_queue", 0, 0, "tx_restart_queue", "/s" },
	{ "rx_long_length_errors", 0, 0, "rx_long_length_errors", "pps" },
	{ "rx_short_length_errors", 0, 0, "rx_short_length_errors", "pps" },
	{ "rx_align_errors", 0, 0, "rx_align_errors", "pps" },
	{ "tx_tcp_seg_good", 0, 0, "tx_tcp_seg_good", "/s" },
	{ "tx_tcp_seg_failed", 0, 0, "tx_tcp_seg_failed", "/s" },
	{ "rx_flow_control_xon", 0, 0, "rx_flow_control_xon", "/s" },
	{ "rx_flow_control_xoff", 0, 0, "rx_flow_control_xoff", "/s" },
	{ "tx_flow_control_xon", 0, 0, "tx_flow_control_xon", "/s" },
	{ "tx_flow_control_xoff", 0, 0, "tx_flow_control_xoff", "/s" },
	{ "rx_csum_offload_good", 3000100, 3800100, "rx_csum_offload_good", "/s" },
	{ "rx_csum_offload_errors", 0, 0, "rx_csum_offload_errors", "pps" },
	{ "rx_header_split", 0, 0, "rx_header_split", "/s" },
	{ "alloc_rx_buff_failed", 0, 0, "alloc_rx_buff_failed", "/s" },
	{ "tx_smbus", 0, 0, "tx_smbus", "/s" },
	{ "rx_smbus", 0, 0, "rx_smbus", "/s" },
	{ "dropped_smbus", 0, 0, "dropped_smbus", "pps" },
	{ "rx_dma_failed", 0, 0, "rx_dma_failed", "/s" },
	{ "tx_dma_failed", 0, 0, "tx_dma_failed", "/s" },
	{ "rx_hwtstamp_cleared", 0, 0, "rx_hwtstamp_cleared", "/s" },
	{ "uncorr_ecc_errors", 0, 0, "uncorr_ecc_errors", "pps" },
	{ "corr_ecc_errors", 0, 0, "corr_ecc_errors", "pps" },
	{ "tx_hwtstamp_timeouts", 0, 0, "tx_hwtstamp_timeouts", "/s" },
	{ "tx_hwtstamp_skipped", 0, 0, "tx_hwtstamp_skipped", "/s" },
};

/* A driver's ETHTOOL_GSTRINGS buffer of F's N strings (heap). */
static char *raw_of(const struct fixture *f, int n)
{
	char *raw = calloc((size_t)n, ETHSTATS_RAW_LEN);
	int i;

	assert_non_null(raw);
	for (i = 0; i < n; i++)
		strncpy(raw + (size_t)i * ETHSTATS_RAW_LEN, f[i].raw, ETHSTATS_RAW_LEN);
	return raw;
}

/* Names and units of F as ethstats_names makes them. */
static void check_names(const struct fixture *f, int n)
{
	struct ethstats_stat st[64];
	char *raw = raw_of(f, n);
	int i;

	assert_true(n <= 64);
	assert_int_equal(ethstats_names(raw, n, st), n);
	for (i = 0; i < n; i++) {
		assert_string_equal(st[i].name, f[i].name);
		if (f[i].unit)
			assert_string_equal(ethstats_unit_name(st[i].unit), f[i].unit);
		else
			assert_int_equal(st[i].unit, ETHSTATS_NONE);
	}
	free(raw);
}

static void test_names_units(void **state)
{
	check_names(veth, (int)ARRAY_SIZE(veth));
	check_names(virtio_net, (int)ARRAY_SIZE(virtio_net));
	check_names(vmxnet3, (int)ARRAY_SIZE(vmxnet3));
	check_names(e1000e, (int)ARRAY_SIZE(e1000e));
}

static void test_name_edges(void **state)
{
	/* a string of all 32 bytes (no NUL), i40e's dots and dashes, nothing left, repeats */
	static const struct fixture f[] = {
		{ "rx_queue_12_xdp_redirect_errors_", 0, 0, "rx_queue_12_xdp_redirect_errors", "pps" },
		{ "rx-0.packets", 0, 0, "rx-0.packets", "pps" },
		{ " # ", 0, 0, "stat2", "/s" },
		{ "kicks", 0, 0, "kicks", "/s" },
		{ "kicks", 0, 0, "kicks#1", "/s" },
		{ " kicks ", 0, 0, "kicks#2", "/s" },
		{ "ifindex", 0, 0, "ifindex", NULL },
		{ "rx_queue", 0, 0, "rx_queue", NULL },
		{ "tx_restart_queue", 0, 0, "tx_restart_queue", "/s" },
		{ "rx_octets_phy", 0, 0, "rx_octets_phy", "Bps" },
	};

	assert_int_equal(strlen(f[0].raw), ETHSTATS_RAW_LEN);
	check_names(f, (int)ARRAY_SIZE(f));
	assert_int_equal(ethstats_unit_of("kicks#1"), ETHSTATS_EPS);
	assert_int_equal(ethstats_unit_of("xdp_bytes#3"), ETHSTATS_BPS);
	assert_null(ethstats_unit_name(ETHSTATS_NONE));
	assert_int_equal(ethstats_names("", -1, NULL), -EINVAL);
}

/* The rates of fixture F over DT, KEEP the names to keep at zero; checks each against
 * (b - a) / dt and returns how many. */
static int check_rates(const struct fixture *f, int n, double dt,
		       bool (*keep)(const char *, void *), void *ctx, struct ethstats_rate *out)
{
	struct ethstats_stat st[64];
	uint64_t a[64], b[64];
	char *raw = raw_of(f, n);
	int i, k, j;

	assert_int_equal(ethstats_names(raw, n, st), n);
	free(raw);
	for (i = 0; i < n; i++) {
		a[i] = f[i].a;
		b[i] = f[i].b;
	}
	k = ethstats_rates(st, n, a, b, dt, keep, ctx, out);
	assert_true(k >= 0);
	for (j = 0; j < k; j++) {
		i = ethstats_find(st, n, out[j].name);
		assert_true(i >= 0);
		assert_non_null(f[i].unit);
		assert_string_equal(out[j].unit, f[i].unit);
		assert_true(f[i].b >= f[i].a);
		assert_near(out[j].value, (double)(f[i].b - f[i].a) / dt, 1e-9);
		/* the caller's names stay valid: they point into the stats */
		assert_string_equal(out[j].name, f[i].name);
	}
	return k;
}

static bool keep_drops(const char *name, void *ctx)
{
	(*(int *)ctx)++;
	return !strcmp(name, "rx_queue_0_drops") || !strcmp(name, "peer_ifindex");
}

static void test_rates(void **state)
{
	struct ethstats_rate r[64];
	int asked = 0, k;

	/* veth: 3000 frames, 150000 bytes in 2 s; peer_ifindex is no counter; zeros out */
	k = check_rates(veth, (int)ARRAY_SIZE(veth), 2.0, NULL, NULL, r);
	assert_int_equal(k, 3);
	assert_string_equal(r[0].name, "rx_queue_0_xdp_packets");
	assert_near(r[0].value, 1500, 1e-9);
	assert_string_equal(r[1].name, "rx_queue_0_xdp_bytes");
	assert_string_equal(r[1].unit, "Bps");
	assert_near(r[1].value, 75000, 1e-9);
	assert_string_equal(r[2].name, "rx_queue_0_xdp_drops");

	/* a zero delta kept when asked for (a plan's metric), a non-counter never */
	k = check_rates(veth, (int)ARRAY_SIZE(veth), 2.0, keep_drops, &asked, r);
	assert_int_equal(k, 4);
	assert_string_equal(r[2].name, "rx_queue_0_drops");
	assert_near(r[2].value, 0, 0);
	assert_int_equal(asked, ARRAY_SIZE(veth) - 1 - 3);	/* only zero counters asked */

	/* virtio_net: totals and queue 0, 1.2 Mpps of XDP_DROP */
	k = check_rates(virtio_net, (int)ARRAY_SIZE(virtio_net), 2.0, NULL, NULL, r);
	assert_int_equal(k, 8);
	assert_string_equal(r[0].name, "rx_xdp_packets");
	assert_near(r[0].value, 1.2e6, 1e-6);
	assert_string_equal(r[2].name, "rx_kicks");
	assert_string_equal(r[2].unit, "/s");
	assert_near(r[2].value, 18, 1e-9);

	/* vmxnet3: ring_full went down (left out); queue headers are no counters */
	k = check_rates(vmxnet3, (int)ARRAY_SIZE(vmxnet3), 1.0, NULL, NULL, r);
	assert_int_equal(k, 9);
	for (int j = 0; j < k; j++) {
		assert_string_not_equal(r[j].name, "ring_full");
		assert_string_not_equal(r[j].name, "Tx_Queue");
	}
	assert_string_equal(r[0].name, "ucast_pkts_tx");
	assert_near(r[0].value, 800000, 1e-9);

	/* e1000e */
	k = check_rates(e1000e, (int)ARRAY_SIZE(e1000e), 0.5, NULL, NULL, r);
	assert_int_equal(k, 7);
	assert_string_equal(r[2].name, "rx_bytes");
	assert_near(r[2].value, 102400000, 1e-6);

	/* no time between the snapshots: no rates */
	assert_int_equal(ethstats_rates(NULL, 0, NULL, NULL, 0, NULL, NULL, r), -EINVAL);
}

static void test_too_many(void **state)
{
	int n = ETHSTATS_MAX + 88, i, k;
	char *raw = calloc((size_t)n, ETHSTATS_RAW_LEN);
	struct ethstats_stat *st = calloc((size_t)n, sizeof(*st));
	struct ethstats_rate *r = calloc((size_t)n, sizeof(*r));
	uint64_t *a = calloc((size_t)n, sizeof(*a)), *b = calloc((size_t)n, sizeof(*b));

	assert_true(raw && st && r && a && b);
	for (i = 0; i < n; i++) {
		snprintf(raw + (size_t)i * ETHSTATS_RAW_LEN, ETHSTATS_RAW_LEN,
			 "rx_queue_%d_xdp_packets", i / 8);
		b[i] = (uint64_t)i;
	}
	/* only the first ETHSTATS_MAX are kept; the eight per queue repeat as #K */
	assert_int_equal(ethstats_names(raw, n, st), ETHSTATS_MAX);
	assert_string_equal(st[0].name, "rx_queue_0_xdp_packets");
	assert_string_equal(st[7].name, "rx_queue_0_xdp_packets#7");
	assert_string_equal(st[ETHSTATS_MAX - 1].name, "rx_queue_63_xdp_packets#7");
	k = ethstats_rates(st, ETHSTATS_MAX, a, b, 1.0, NULL, NULL, r);
	assert_int_equal(k, ETHSTATS_MAX - 1);		/* the first is 0 -> 0 */
	assert_near(r[k - 1].value, ETHSTATS_MAX - 1, 0);
	free(raw);
	free(st);
	free(r);
	free(a);
	free(b);
}

/* The ioctl path on the lab's veth pair: veth's names in order, values that read, lo
 * without driver counters, an interface that does not exist. */
static void test_ioctl_veth(void **state)
{
	struct ethstats *e = NULL;
	uint64_t v[ETHSTATS_MAX];
	const struct ethstats_stat *st;
	int n, i;

	SKIP_UNLESS_LAB();
	assert_int_equal(ethstats_open("va", &e), 0);
	n = ethstats_count(e);
	st = ethstats_stats(e);
	assert_string_equal(ethstats_driver(e), "veth");
	/* veth has a block per rx and tx queue: one of each here */
	assert_int_equal(n, (int)ARRAY_SIZE(veth));
	for (i = 0; i < n; i++)
		assert_string_equal(st[i].name, veth[i].name);
	memset(v, 0xff, sizeof(v));
	assert_int_equal(ethstats_read(e, v), 0);
	assert_int_equal(v[0], (uint64_t)lab.ifb);	/* peer_ifindex of va: vb */
	for (i = 1; i < n; i++)
		assert_true(v[i] < (1ULL << 40));
	ethstats_destroy(&e);
	assert_null(e);
	ethstats_destroy(&e);
	assert_int_equal(ethstats_open("lo", &e), -EOPNOTSUPP);
	assert_null(e);
	assert_int_equal(ethstats_open("bpflab-none0", &e), -ENODEV);
	assert_int_equal(ethstats_open("an-interface-name-far-too-long", &e), -EINVAL);
}

static int setup(void **state)
{
	return lab_setup(&lab, "ethstats");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_units),
		cmocka_unit_test(test_name_edges),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_ioctl_veth),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}
