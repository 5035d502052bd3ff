// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_xdpgen.c - agent/xdpgen.c: the frames it builds (lengths, IPv4 header
 * checksum, IPv6 UDP checksum), its refusals, and for real on a veth pair: frames reach an
 * XDP_DROP receiver and the generator's count matches what arrived; several flows give
 * that many UDP source ports with valid checksums; several threads; a prompt stop.
 * Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <math.h>
#include <time.h>

#include "ifstats.h"
#include "xdpgen.h"
#include "base/log.h"
#include "base/util.h"
#include "test_agent_lab.h"

static int setup(void **state)
{
	return lab_setup_bpf(&lab, "xdpgen");
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static void test_xdpgen_frames(void **state)
{
	struct xdpgen_config cfg = {
		.src_mac = { 2, 0, 0, 0, 0, 1 },
		.dst_mac = { 2, 0, 0, 0, 0, 2 },
		.size = 64,
		.flows = 1,
		.threads = 1,
	};
	uint8_t f[XDPGEN_MAX_SIZE];

	assert_int_equal(xdpgen_build_frame(&cfg, 1234, f, sizeof(f)), 0);
	assert_memory_equal(f, cfg.dst_mac, 6);
	assert_memory_equal(f + 6, cfg.src_mac, 6);
	assert_int_equal(f[12] << 8 | f[13], 0x0800);
	assert_int_equal(f[14], 0x45);
	assert_int_equal(f[16] << 8 | f[17], 50);		/* IPv4 total length */
	assert_int_equal(fold(csum16_add(f + 14, 20, 0)), 0xffff);	/* header checksum */
	assert_int_equal(f[26], 198);
	assert_int_equal(f[29], 1);
	assert_int_equal(f[33], 2);
	assert_int_equal(f[34] << 8 | f[35], 1234);		/* source port */
	assert_int_equal(f[38] << 8 | f[39], 30);		/* UDP length */
	assert_int_equal(f[40] << 8 | f[41], 0);		/* no UDP checksum */

	cfg.ipv6 = true;
	cfg.size = 1500;
	assert_int_equal(xdpgen_build_frame(&cfg, 1234, f, sizeof(f)), 0);
	assert_int_equal(f[12] << 8 | f[13], 0x86dd);
	assert_int_equal(f[18] << 8 | f[19], 1500 - 54);	/* payload length */
	assert_int_equal(f[22], 0x20);				/* 2001:2::1 */
	assert_int_equal(f[37], 1);
	assert_int_equal(f[53], 2);
	assert_true(udp6_checksum_ok(f));

	cfg.size = XDPGEN_MIN_SIZE_V6 - 1;
	assert_int_equal(xdpgen_build_frame(&cfg, 1, f, sizeof(f)), -EINVAL);
	cfg.ipv6 = false;
	cfg.size = XDPGEN_MIN_SIZE_V4;
	assert_int_equal(xdpgen_build_frame(&cfg, 1, f, sizeof(f)), 0);
	cfg.size = XDPGEN_MAX_SIZE + 1;
	assert_int_equal(xdpgen_build_frame(&cfg, 1, f, sizeof(f)), -EINVAL);
}

static void test_xdpgen_refusals(void **state)
{
	struct xdpgen_config cfg = { .ifindex = 1, .size = 64, .flows = 1, .threads = 1 };
	struct err err;

	cfg.size = 20;
	assert_null(xdpgen_new(&cfg, &err));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.msg, "packet size 20 is out of range 42..3000 for 'udp4'");
	assert_true(err.input);		/* the spec's size, not this host */
	cfg.size = 64;
	cfg.flows = 0;
	assert_null(xdpgen_new(&cfg, &err));
	assert_non_null(strstr(err.msg, "flows 0 is out of range"));
	cfg.flows = 1;
	cfg.threads = 0;
	assert_null(xdpgen_new(&cfg, &err));
	assert_non_null(strstr(err.msg, "threads 0 is out of range"));
}

/* Attach PROGRAM of OBJECT to vb natively; returns the link fd, *OBJ to close. */
static int receiver(const char *object, const char *program, struct bpf_object **obj)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_DRV_MODE);
	struct bpf_program *prog;
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", BPF_DIR, object);
	*obj = bpf_object__open_file(path, NULL);
	assert_non_null(*obj);
	bpf_object__for_each_program(prog, *obj)	/* test_agent.bpf.o has xdp_bad */
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), program));
	assert_int_equal(bpf_object__load(*obj), 0);
	fd = bpf_link_create(bpf_program__fd(bpf_object__find_program_by_name(*obj, program)),
			     lab.ifb, BPF_XDP, &lo);
	assert_true(fd >= 0);
	return fd;
}

static struct xdpgen_config lab_cfg(int size, int flows, int threads, bool ipv6)
{
	struct xdpgen_config cfg = {
		.ifindex = lab.ifa,
		.size = size,
		.flows = flows,
		.threads = threads,
		.ipv6 = ipv6,
	};
	struct ifstats *s = ifstats_new();
	struct ifstats_link a, b;

	assert_non_null(s);
	assert_int_equal(ifstats_get(s, lab.ifa, &a), 0);
	assert_int_equal(ifstats_get(s, lab.ifb, &b), 0);
	memcpy(cfg.src_mac, a.mac, 6);
	memcpy(cfg.dst_mac, b.mac, 6);
	ifstats_destroy(&s);
	return cfg;
}

static void test_xdpgen_delivers(void **state)
{
	struct ifstats_counters a0, a1, b0, b1;
	struct bpf_object *obj;
	struct ifstats *s;
	struct xdpgen *gen;
	struct xdpgen_config cfg;
	uint64_t f0, f1;
	int64_t t;
	struct err err;
	int link;

	SKIP_UNLESS_LAB();
	link = receiver("xdp_basic.bpf.o", "xdp_drop", &obj);
	cfg = lab_cfg(64, 1, 1, false);
	s = ifstats_new();
	gen = xdpgen_new(&cfg, &err);
	if (!gen)
		fail_msg("xdpgen_new: %s", err.msg);
	assert_int_equal(xdpgen_frames(gen, &f0), 0);
	assert_int_equal(f0, 0);
	assert_int_equal(ifstats_read(s, lab.ifb, &b0), 0);
	assert_int_equal(ifstats_read(s, lab.ifa, &a0), 0);
	assert_int_equal(xdpgen_start(gen, &err), 0);
	usleep(1000 * 1000);
	assert_int_equal(xdpgen_error(gen, &err), 0);
	t = util_mono_ms();
	assert_int_equal(xdpgen_stop(gen, &err), 0);
	t = util_mono_ms() - t;
	assert_true(t < 3000);		/* a signal ends the test run (a loaded CI: room) */
	assert_int_equal(xdpgen_frames(gen, &f1), 0);
	assert_int_equal(ifstats_read(s, lab.ifb, &b1), 0);
	assert_int_equal(ifstats_read(s, lab.ifa, &a1), 0);
	fprintf(stderr, "  xdpgen: %llu frames in ~1 s, %llu received, %llu dropped, "
		"stop took %lld ms\n", (unsigned long long)f1,
		(unsigned long long)(b1.rx_packets - b0.rx_packets),
		(unsigned long long)(a1.tx_dropped - a0.tx_dropped + a1.rx_dropped - a0.rx_dropped +
				     b1.rx_dropped - b0.rx_dropped + b1.tx_dropped - b0.tx_dropped),
		(long long)t);
	assert_true(f1 > 10000);
	/* every frame the program sent arrived or was counted as dropped (a full veth
	 * ring); nearly all arrive */
	assert_true(b1.rx_packets - b0.rx_packets >= f1 * 9 / 10);
	assert_true(b1.rx_packets - b0.rx_packets <= f1 + 100);
	xdpgen_destroy(&gen);
	assert_null(gen);
	xdpgen_destroy(&gen);
	ifstats_destroy(&s);
	close(link);
	bpf_object__close(obj);
}

static void check_flows(bool ipv6)
{
	struct bpf_object *obj;
	struct xdpgen *gen;
	struct xdpgen_config cfg;
	struct {
		__u64 count;
		__u16 check;
		__u16 pad[3];
	} st;
	struct err err;
	__u16 key, next;
	int link, map, n = 0;
	void *prev = NULL;

	link = receiver("test_agent.bpf.o", "xdp_sport_count", &obj);
	map = bpf_map__fd(bpf_object__find_map_by_name(obj, "sports"));
	cfg = lab_cfg(ipv6 ? 100 : 64, 4, 1, ipv6);
	gen = xdpgen_new(&cfg, &err);
	if (!gen)
		fail_msg("xdpgen_new: %s", err.msg);
	assert_int_equal(xdpgen_start(gen, &err), 0);
	usleep(300 * 1000);
	assert_int_equal(xdpgen_stop(gen, &err), 0);
	while (!bpf_map_get_next_key(map, prev, &next)) {
		uint8_t f[XDPGEN_MAX_SIZE];

		key = next;
		prev = &key;
		assert_int_equal(bpf_map_lookup_elem(map, &key, &st), 0);
		assert_true(key >= 1024 && key < 1028);
		assert_true(st.count > 100);
		if (ipv6) {
			/* the checksum the program left must be the one of a frame built with
			 * this port from scratch */
			assert_int_equal(xdpgen_build_frame(&cfg, key, f, sizeof(f)), 0);
			assert_int_equal(st.check, (uint16_t)(f[60] | f[61] << 8));
			assert_true(udp6_checksum_ok(f));
		} else {
			assert_int_equal(st.check, 0);
		}
		n++;
	}
	assert_int_equal(n, 4);
	xdpgen_destroy(&gen);
	close(link);
	bpf_object__close(obj);
}

static void test_xdpgen_flows_udp4(void **state)
{
	SKIP_UNLESS_LAB();
	check_flows(false);
}

static void test_xdpgen_flows_udp6(void **state)
{
	SKIP_UNLESS_LAB();
	check_flows(true);
}

static void test_xdpgen_threads(void **state)
{
	struct bpf_object *obj;
	struct xdpgen *gen;
	struct xdpgen_config cfg;
	struct err err;
	uint64_t frames;
	int link;

	SKIP_UNLESS_LAB();
	link = receiver("xdp_basic.bpf.o", "xdp_drop", &obj);
	cfg = lab_cfg(64, 1, 2, false);
	gen = xdpgen_new(&cfg, &err);
	assert_non_null(gen);
	assert_int_equal(xdpgen_start(gen, &err), 0);
	usleep(300 * 1000);
	assert_int_equal(xdpgen_stop(gen, &err), 0);
	assert_int_equal(xdpgen_frames(gen, &frames), 0);
	assert_true(frames > 1000);
	/* restartable */
	assert_int_equal(xdpgen_start(gen, &err), 0);
	usleep(100 * 1000);
	xdpgen_destroy(&gen);
	close(link);
	bpf_object__close(obj);
}

/* With a rate: the frames sent and the shortfall (what a thread held up beyond its
 * burst could not send on time, gen.h struct gen_pace) over the 2 s add up to the rate
 * within 2 %; without a shortfall over 1 % (the validity bound: a busy host's) the frames
 * counted over 1.5 s after 0.5 s of start alone are the rate's within 2 % (the
 * integration test holds 1 % on a longer window), and the threads' own record
 * (xdpgen_paced, struct gen_paced) within 0.1 %. For one thread (burst auto) and for
 * two sharing it (burst 8: no take above it); the 50 ms counts are printed (how even the
 * pacing is); a thread beyond the last has no record. */
static void rate_run(int threads)
{
	struct xdpgen_config cfg;
	struct bpf_object *obj;
	struct xdpgen *gen;
	struct gen_paced paced[2];
	struct gen_pace_stats ps;
	uint64_t f[41];
	int64_t t[41], t0;
	double owed;
	char line[41 * 8] = "";
	struct err err;
	size_t o = 0;
	double pps;
	int i, link;

	link = receiver("xdp_basic.bpf.o", "xdp_drop", &obj);
	cfg = lab_cfg(64, 1, threads, false);
	cfg.rate_pps = 100000;
	cfg.burst = threads == 2 ? 8 : 0;
	gen = xdpgen_new(&cfg, &err);
	if (!gen)
		fail_msg("xdpgen_new: %s", err.msg);
	t0 = util_mono_ns();
	assert_int_equal(xdpgen_start(gen, &err), 0);
	for (i = 0; i <= 40; i++) {
		if (i)
			usleep(50 * 1000);
		assert_int_equal(xdpgen_frames(gen, &f[i]), 0);
		t[i] = util_mono_ns();
		if (i && o < sizeof(line))
			o += (size_t)snprintf(line + o, sizeof(line) - o, " %llu",
					      (unsigned long long)(f[i] - f[i - 1]));
	}
	assert_int_equal(xdpgen_stop(gen, &err), 0);
	pps = (double)(f[40] - f[10]) / ((t[40] - t[10]) / 1e9);
	for (i = 0; i < threads; i++)
		assert_int_equal(xdpgen_paced(gen, i, &paced[i]), 0);
	assert_int_equal(xdpgen_paced(gen, threads, &paced[0]), -ENOENT);
	assert_int_equal(xdpgen_pace_stats(gen, &ps), 0);
	owed = 100000.0 * (double)(t[40] - t0) / 1e9;
	fprintf(stderr, "  xdpgen at 100000/s, %d thread(s), burst %d: %.0f/s over 1.5 s, %.1f/s by the threads' record; %llu sent, %llu short of %.0f owed, largest burst %llu; per 50 ms:%s\n",
		threads, cfg.burst, pps, gen_paced_rate(paced, threads, 0),
		(unsigned long long)f[40], (unsigned long long)ps.shortfall, owed,
		(unsigned long long)ps.burst, line);
	assert_true(fabs((double)(f[40] + ps.shortfall) - owed) <= 0.02 * owed);
	if (cfg.burst)
		assert_true(ps.burst >= 1 && ps.burst <= (uint64_t)cfg.burst);
	if ((double)ps.shortfall <= 0.01 * owed) {
		assert_true(pps > 98000 && pps < 102000);
		/* the threads' own record within the same 2 % as the count */
		assert_float_equal(gen_paced_rate(paced, threads, 1000000000LL), 100000, 2000);
	}
	xdpgen_destroy(&gen);
	close(link);
	bpf_object__close(obj);
}

static void test_xdpgen_rate(void **state)
{
	SKIP_UNLESS_LAB();
	rate_run(1);
	rate_run(2);
}

/* One generator for a search's trials: stopped, its rate changes (gen_ops.set_rate; not
 * while it runs: -EBUSY) and the next start paces at the new rate: the frames sent and
 * the shortfall of each start add up to what its rate owed, within 5 % (0.5 s). A burst
 * above a call's is refused. */
static void test_xdpgen_set_rate(void **state)
{
	static const uint64_t rates[] = { 20000, 50000 };
	struct xdpgen_config cfg;
	struct bpf_object *obj;
	struct gen_pace_stats ps;
	struct xdpgen *gen;
	uint64_t before = 0, after;
	struct err err;
	int i, link;

	SKIP_UNLESS_LAB();
	link = receiver("xdp_basic.bpf.o", "xdp_drop", &obj);
	cfg = lab_cfg(64, 1, 1, false);
	cfg.rate_pps = rates[0];
	gen = xdpgen_new(&cfg, &err);
	if (!gen)
		fail_msg("xdpgen_new: %s", err.msg);
	for (i = 0; i < 2; i++) {
		int64_t t0 = util_mono_ns(), t1;
		double owed;

		if (i)
			assert_int_equal(xdpgen_set_rate(gen, rates[i]), 0);
		assert_int_equal(xdpgen_start(gen, &err), 0);
		assert_int_equal(xdpgen_set_rate(gen, 1), -EBUSY);
		usleep(500 * 1000);
		t1 = util_mono_ns();
		assert_int_equal(xdpgen_stop(gen, &err), 0);
		assert_int_equal(xdpgen_frames(gen, &after), 0);
		assert_int_equal(xdpgen_pace_stats(gen, &ps), 0);
		owed = (double)rates[i] * (double)(t1 - t0) / 1e9;
		fprintf(stderr, "  start %d at %llu/s: %llu sent, %llu short of %.0f owed\n", i + 1,
			(unsigned long long)rates[i], (unsigned long long)(after - before),
			(unsigned long long)ps.shortfall, owed);
		assert_true(fabs((double)(after - before + ps.shortfall) - owed) <= 0.05 * owed);
		before = after;
	}
	xdpgen_destroy(&gen);
	cfg.burst = 4097;
	assert_null(xdpgen_new(&cfg, &err));
	assert_int_equal(errno, EINVAL);
	assert_true(err.input);
	assert_string_equal(err.msg, "burst 4097 is out of range 1..4096 (frames of one call)");
	close(link);
	bpf_object__close(obj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xdpgen_frames),
		cmocka_unit_test(test_xdpgen_refusals),
		cmocka_unit_test(test_xdpgen_delivers),
		cmocka_unit_test(test_xdpgen_flows_udp4),
		cmocka_unit_test(test_xdpgen_flows_udp6),
		cmocka_unit_test(test_xdpgen_threads),
		cmocka_unit_test(test_xdpgen_rate),
		cmocka_unit_test(test_xdpgen_set_rate),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}
