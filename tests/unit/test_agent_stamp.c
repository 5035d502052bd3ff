// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_stamp.c - the latency stamp (bpf/latency_shared.h) both generators write:
 * udpgen_stamp_frame() in user space, and xdp_gen with `stamp` run once by
 * BPF_PROG_TEST_RUN (not live: the frame comes back) on udp4 and udp6 frames: magic,
 * stream, seq, a timestamp of this host's CLOCK_MONOTONIC, and an IPv6 UDP checksum that
 * is still right.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "helpers.h"
#include "latency_shared.h"
#include "udpgen.h"
#include "xdpgen.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct xdpgen_config cfg_of(bool ipv6, int size)
{
	return (struct xdpgen_config){ .size = size, .ipv6 = ipv6, .flows = 1, .threads = 1,
				       .stamp = true };
}

static void test_stamp_udpgen(void **state)
{
	struct xdpgen_config cfg = cfg_of(true, 100);
	uint8_t f[XDPGEN_MAX_SIZE];
	struct lat_payload pl;

	(void)state;
	assert_int_equal(xdpgen_build_frame(&cfg, 1024, f, sizeof(f)), 0);
	assert_true(udp6_checksum_ok(f));
	udpgen_stamp_frame(&cfg, f, 3, 0x01020304, 0x1122334455667788ull);
	assert_true(udp6_checksum_ok(f));
	memcpy(&pl, f + 62, sizeof(pl));
	assert_int_equal(pl.magic, LAT_MAGIC);
	assert_int_equal(pl.stream, 3);
	assert_int_equal(pl.seq, 0x01020304);
	assert_true(pl.ts_ns == 0x1122334455667788ull);
	udpgen_stamp_frame(&cfg, f, 3, 5, 6);		/* stamped again: still right */
	assert_true(udp6_checksum_ok(f));
	cfg = cfg_of(false, 64);
	assert_int_equal(xdpgen_build_frame(&cfg, 1024, f, sizeof(f)), 0);
	udpgen_stamp_frame(&cfg, f, 1, 2, 3);
	memcpy(&pl, f + 42, sizeof(pl));
	assert_int_equal(pl.magic, LAT_MAGIC);
	assert_int_equal(f[40] << 8 | f[41], 0);	/* IPv4: still no UDP checksum */
}

/* xdp_gen with stamp on, run twice on one frame: the second run's seq is 1. */
static void run_xdp_gen(bool ipv6, int size)
{
	struct xdpgen_config cfg = cfg_of(ipv6, size);
	uint8_t in[XDPGEN_MAX_SIZE], out[XDPGEN_MAX_SIZE];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in, .data_size_in = (uint32_t)size,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
	struct lat_payload pl;
	struct xdpgen *gen;
	uint64_t t0 = mono_ns();
	struct err err;
	int run;

	gen = xdpgen_new(&cfg, &err);
	if (!gen)
		fail_msg("xdpgen_new: %s", err.msg);
	assert_int_equal(xdpgen_build_frame(&cfg, 1024, in, sizeof(in)), 0);
	for (run = 0; run < 2; run++) {
		opts.data_size_out = sizeof(out);
		assert_int_equal(bpf_prog_test_run_opts(xdpgen_prog_fd(gen), &opts), 0);
		assert_int_equal(opts.retval, XDP_TX);
		assert_int_equal(opts.data_size_out, size);
	}
	memcpy(&pl, out + (ipv6 ? 62 : 42), sizeof(pl));
	assert_int_equal(pl.magic, LAT_MAGIC);
	assert_int_equal(pl.seq, 1);
	assert_true(pl.stream < LAT_MAX_STREAMS);
	assert_true(pl.ts_ns >= t0 && pl.ts_ns <= mono_ns());
	if (ipv6)
		assert_true(udp6_checksum_ok(out));
	xdpgen_destroy(&gen);
	/* no room for the stamp */
	cfg = cfg_of(ipv6, ipv6 ? 77 : 57);
	assert_null(xdpgen_new(&cfg, &err));
	assert_contains(err.msg, "leaves no room for the 16-byte stamp");
	assert_true(err.input);
}

static void test_stamp_xdp_gen(void **state)
{
	(void)state;
	skip_unless_root();
	run_xdp_gen(false, 64);
	run_xdp_gen(true, 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stamp_udpgen),
		cmocka_unit_test(test_stamp_xdp_gen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
