// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_udpgen.c - the udp generator (agent/udpgen.c) for real: its frames cross the
 * veth pair (tx on va, rx on vb, read from rtnetlink), as many as it says it sent, over
 * IPv4 and IPv6 and two threads; a tc ingress program on vb sees them as the stack's own
 * skbs. Plus the refusals of a bad configuration. Needs root and a veth pair
 * (tests/unit/test_agent_lab.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "attach.h"
#include "ifstats.h"
#include "base/log.h"
#include "udpgen.h"
#include "test_agent_lab.h"

static struct ifstats *rtnl;

static int setup(void **state)
{
	int err = lab_setup_bpf(&lab, "udpgen");

	if (err || !lab.up)
		return err;
	rtnl = ifstats_new();
	if (!rtnl) {
		lab_down(&lab);
		return -ENOMEM;
	}
	return 0;
}

static int teardown(void **state)
{
	ifstats_destroy(&rtnl);
	lab_down(&lab);
	return 0;
}

static struct udpgen_config config(bool ipv6, int threads)
{
	struct udpgen_config c = { .ifindex = lab.ifa, .size = 64, .ipv6 = ipv6, .flows = 4,
				   .threads = threads };
	struct ifstats_link l;

	assert_int_equal(ifstats_get(rtnl, lab.ifa, &l), 0);
	memcpy(c.src_mac, l.mac, 6);
	assert_int_equal(ifstats_get(rtnl, lab.ifb, &l), 0);
	memcpy(c.dst_mac, l.mac, 6);
	return c;
}

/* Run the generator for MS and return the frames it counted; *A and *B get the deltas of
 * va's and vb's counters. */
static struct gen_pace_stats last_pace;	/* run()'s generator's, at its stop */

static uint64_t run(const struct udpgen_config *cfg, int ms, struct ifstats_counters *a,
		    struct ifstats_counters *b)
{
	struct ifstats_counters a0, b0;
	struct udpgen *gen;
	struct err err;
	uint64_t frames = 0;

	assert_int_equal(ifstats_read(rtnl, lab.ifa, &a0), 0);
	assert_int_equal(ifstats_read(rtnl, lab.ifb, &b0), 0);
	gen = udpgen_new(cfg, &err);
	if (!gen)
		fail_msg("udpgen_new: %s", err.msg);
	if (udpgen_start(gen, &err))
		fail_msg("udpgen_start: %s", err.msg);
	usleep(ms * 1000);
	assert_int_equal(udpgen_stop(gen, &err), 0);
	assert_int_equal(udpgen_error(gen, &err), 0);
	assert_int_equal(udpgen_frames(gen, &frames), 0);
	if (udpgen_pace_stats(gen, &last_pace))
		memset(&last_pace, 0, sizeof(last_pace));
	udpgen_destroy(&gen);
	assert_null(gen);
	usleep(50000);		/* the backlog of vb drains */
	assert_int_equal(ifstats_read(rtnl, lab.ifa, a), 0);
	assert_int_equal(ifstats_read(rtnl, lab.ifb, b), 0);
	a->tx_packets -= a0.tx_packets;
	a->tx_dropped -= a0.tx_dropped;
	b->rx_packets -= b0.rx_packets;
	b->rx_dropped -= b0.rx_dropped;
	return frames;
}

static void test_udpgen_crosses_the_veth(void **state)
{
	struct ifstats_counters a, b;
	struct udpgen_config cfg;
	uint64_t frames;
	int ipv6;

	SKIP_UNLESS_LAB();
	for (ipv6 = 0; ipv6 <= 1; ipv6++) {
		cfg = config(ipv6, ipv6 ? 2 : 1);
		frames = run(&cfg, 200, &a, &b);
		print_message("udp%d, %d thread(s): %llu frames sent, va tx %llu, vb rx %llu (+%llu dropped)\n",
			      ipv6 ? 6 : 4, cfg.threads, (unsigned long long)frames,
			      (unsigned long long)a.tx_packets, (unsigned long long)b.rx_packets,
			      (unsigned long long)b.rx_dropped);
		assert_true(frames > 1000);
		/* every frame it counted left va and arrived on vb (or was dropped there
		 * with a count: a full backlog) */
		assert_true(a.tx_packets >= frames && a.tx_packets <= frames + 100);
		assert_true(b.rx_packets + b.rx_dropped >= frames);
		assert_true(b.rx_packets >= frames / 2);
	}
}

/* tc ingress on vb (tcx) runs on every frame: they are skbs of the stack. */
static void test_udpgen_reaches_tc(void **state)
{
	struct attach_opts o = { .bpf_dir = BPF_DIR };
	struct attach_port port = { .role = "b", .ifname = "vb", .ifindex = lab.ifb };
	struct attach_set *set;
	struct ifstats_counters a, b;
	struct udpgen_config cfg;
	json_t *attach;
	char *log = NULL;
	struct err err;
	uint64_t frames, runs = 0;

	SKIP_UNLESS_LAB();
	o.ports = &port;
	o.n_ports = 1;
	attach = json_loads("[{\"port\":\"b\",\"hook\":\"tc-ingress\","
			    "\"object\":\"tc_stats_variants.bpf.o\",\"program\":\"cnt_ingress\","
			    "\"counters\":[{\"map\":\"stats\",\"keys\":{\"0\":\"ingress\"}}]}]",
			    0, NULL);
	assert_non_null(attach);
	set = attach_new();
	assert_non_null(set);
	if (attach_load(set, attach, &o, &log, &err) || attach_links(set, &err))
		fail_msg("attach: %s\n%s", err.msg, log ? log : "");
	cfg = config(false, 1);
	frames = run(&cfg, 200, &a, &b);
	assert_int_equal(attach_counter_count(set), 1);
	assert_int_equal(attach_counter_read(set, 0, &runs), 0);
	print_message("tc ingress on vb ran %llu times for %llu frames (vb rx %llu)\n",
		      (unsigned long long)runs, (unsigned long long)frames,
		      (unsigned long long)b.rx_packets);
	assert_true(frames > 1000);
	assert_true(runs >= b.rx_packets && runs <= b.rx_packets + 100);
	attach_destroy(&set);
	json_decref(attach);
}

/* With a rate: 20000/s for 1 s owes 20000 frames: those sent and the shortfall (what a
 * thread held up beyond its burst could not send on time) add up to them within 2 %
 * (the bucket starts empty, so the first second holds the rate too), and without a
 * shortfall over 1 % (the validity bound; a busy host's) the frames sent alone do, with
 * one thread and with two sharing it; with burst 4 no thread sends more at once */
static void test_udpgen_rate(void **state)
{
	struct ifstats_counters a, b;
	struct udpgen_config cfg;
	uint64_t frames;
	int threads;

	SKIP_UNLESS_LAB();
	for (threads = 1; threads <= 2; threads++) {
		cfg = config(false, threads);
		cfg.rate_pps = 20000;
		cfg.burst = threads == 2 ? 4 : 0;
		frames = run(&cfg, 1000, &a, &b);
		print_message("udp4 at 20000/s, %d thread(s), burst %d: %llu frames in ~1 s, shortfall %llu, largest burst %llu, vb rx %llu\n",
			      threads, cfg.burst, (unsigned long long)frames,
			      (unsigned long long)last_pace.shortfall,
			      (unsigned long long)last_pace.burst, (unsigned long long)b.rx_packets);
		assert_true(frames + last_pace.shortfall > 19600 &&
			    frames + last_pace.shortfall < 20400);
		if (last_pace.shortfall <= 200)
			assert_true(frames > 19600 && frames < 20400);
		assert_true(last_pace.burst >= 1);
		if (cfg.burst)
			assert_true(last_pace.burst <= 4);
		assert_true(a.tx_packets >= frames && a.tx_packets <= frames + 100);
	}
}

static void test_udpgen_refusals(void **state)
{
	struct udpgen_config cfg = { .ifindex = 1, .size = 64, .flows = 1, .threads = 1 };
	struct err err;

	(void)state;
	cfg.size = 20;
	assert_null(udpgen_new(&cfg, &err));
	assert_true(err.msg[0] != 0);
	assert_true(err.input);
	cfg.size = 64;
	cfg.threads = 0;
	err_clear(&err);
	assert_null(udpgen_new(&cfg, &err));
	assert_true(err.msg[0] != 0);
	assert_true(err.input);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udpgen_crosses_the_veth),
		cmocka_unit_test(test_udpgen_reaches_tc),
		cmocka_unit_test(test_udpgen_rate),
		cmocka_unit_test(test_udpgen_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
