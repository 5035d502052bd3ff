// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_plan_format.c - plans refused for their form, each with its exact
 * "file:line:column: message": every field's type and range, unknown and misplaced
 * keys, variants and their attach entries, the traffic rate (frames per second or a
 * share of the line rate, checked against a port's speed), and the matrix. The
 * fixture: plan_fixture.h.
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

#include "plan/plan.h"
#include "base/util.h"
#include "helpers.h"
#include "plan_fixture.h"

/* BASE with traffic.rate RATE (at 6:9) */
#define WITH_RATE(GEN, RATE)                                                   \
	"name: x\n"                                                            \
	"ports: [a, b]\n"                                                      \
	"traffic:\n"                                                           \
	"  from: a\n"                                                          \
	"  generator: " GEN "\n"                                               \
	"  rate: " RATE "\n"                                                   \
	"  duration: 1s\n"                                                     \
	"variants:\n"                                                          \
	"  drop:\n"                                                            \
	"    - {port: b, object: xdp_basic.bpf.o, program: xdp_drop}\n"
#define RATE_EXPECTED "traffic.rate: expected frames per second from 1 to 1000000000 (such as 200000) or a share of the port's line rate above 0% and at most 100% (such as 10%), got "

static const struct plan_fix_bad bad_format[] = {
	/* keys */
	{ BASE "trafic: {}\n",
	  FILE_NAME ":9:1: unknown key 'trafic' in the plan (expected one of: name, description, hosts, ports, traffic, variants, matrix, repeat, metrics, link, min_effect, share_machine, verifier, search, latency)" },
	{ "name: x\nports: [a]\n",
	  FILE_NAME ":1:1: missing required key 'traffic'" },
	{ "ports: [a]\n",
	  FILE_NAME ":1:1: missing required key 'name'" },
	{ "name: x\nports: [a]\ntraffic: {from: a}\nvariants: {}\n",
	  FILE_NAME ":3:10: missing required key 'duration' in traffic" },
	{ "name: x\nports: [a]\ntraffic: {duration: 1s}\nvariants: {}\n",
	  FILE_NAME ":3:10: missing required key 'from' in traffic" },
	{ "name: x\nports: [a]\ntraffic:\nvariants: {}\n",
	  FILE_NAME ":3:9: traffic: expected a map, got nothing" },
	{ "name: x\nports: [a]\ntraffic: {from: a, duration: 1s, packet: {siz: 1}}\nvariants: {}\n",
	  FILE_NAME ":3:43: unknown key 'siz' in traffic.packet (expected one of: size, proto, flows)" },

	/* name, ports */
	{ "name: a b\nports: [a]\ntraffic: {from: a, duration: 1s}\nvariants: {}\n",
	  FILE_NAME ":1:7: name: expected a plan name of letters, digits, '.', '_' and '-', got 'a b'" },
	{ "name: x\nports: []\ntraffic: {from: a, duration: 1s}\nvariants: {}\n",
	  FILE_NAME ":2:8: ports: expected a non-empty list of port roles, got an empty list" },
	{ "name: x\nports: a\ntraffic: {from: a, duration: 1s}\nvariants: {}\n",
	  FILE_NAME ":2:8: ports: expected a non-empty list of port roles, got 'a'" },
	{ "name: x\nports: [a, b, a]\ntraffic: {from: a, duration: 1s}\nvariants: {}\n",
	  FILE_NAME ":2:15: ports: duplicate port 'a' (first at 2:9)" },
	{ "name: x\nports: [a.b]\ntraffic: {from: a, duration: 1s}\nvariants: {}\n",
	  FILE_NAME ":2:9: ports: expected a port role of letters, digits, '_' and '-', got 'a.b'" },

	/* traffic */
	{ "name: x\nports: [a]\ntraffic: {from: c, duration: 1s}\nvariants: {}\n",
	  FILE_NAME ":3:17: traffic.from 'c' is not one of the plan's ports (a)" },
	{ "name: x\nports: [a]\ntraffic: {generator: trex, from: a, duration: 1s}\nvariants: {}\n",
	  FILE_NAME ":3:22: traffic.generator: expected one of xdp-live, udp, pktgen, none, got 'trex'" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 1s\n  packet:\n    size: big\n" V,
	  FILE_NAME ":7:11: traffic.packet.size: expected an integer from 60 to 9000, got 'big'" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 1s\n  packet: {size: 59}\n" V,
	  FILE_NAME ":6:18: traffic.packet.size: expected an integer from 60 to 9000, got '59'" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 1s\n  packet: {size: 9001}\n" V,
	  FILE_NAME ":6:18: traffic.packet.size: expected an integer from 60 to 9000, got '9001'" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 1s\n  packet: {size: 60, proto: udp6}\n" V,
	  FILE_NAME ":6:18: traffic.packet.size: udp6 frames need at least 62 bytes, got 60" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 1s\n  packet: {proto: ipx}\n" V,
	  FILE_NAME ":6:19: traffic.packet.proto: expected one of udp4, udp6, got 'ipx'" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 1s\n  packet: {flows: 0}\n" V,
	  FILE_NAME ":6:19: traffic.packet.flows: expected an integer from 1 to 64511, got '0'" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 1s\n  threads: 65\n" V,
	  FILE_NAME ":6:12: traffic.threads: expected an integer from 1 to 64, got '65'" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 0s\n" V,
	  FILE_NAME ":5:13: traffic.duration: expected a duration from 1ms to 60m (such as 10s, 500ms or 2m), got '0s'" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 61m\n" V,
	  FILE_NAME ":5:13: traffic.duration: expected a duration from 1ms to 60m (such as 10s, 500ms or 2m), got '61m'" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: soon\n" V,
	  FILE_NAME ":5:13: traffic.duration: expected a duration from 1ms to 60m (such as 10s, 500ms or 2m), got 'soon'" },
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 1s\n  warmup: 11m\n" V,
	  FILE_NAME ":6:11: traffic.warmup: expected a duration from 0s to 10m (such as 10s, 500ms or 2m), got '11m'" },

	/* hosts */
	{ BASE "hosts: {count: 0}\n",
	  FILE_NAME ":9:16: hosts.count: expected 'all' or an integer from 1 to 10000, got '0'" },
	{ BASE "hosts: {count: some}\n",
	  FILE_NAME ":9:16: hosts.count: expected 'all' or an integer from 1 to 10000, got 'some'" },
	{ BASE "hosts: {match: {port.driver: [veth]}}\n",
	  FILE_NAME ":9:30: hosts.match: expected a value, got a list" },
	{ BASE "hosts: {match: {\"a b\": x}}\n",
	  FILE_NAME ":9:17: hosts.match: expected an inventory key such as port.driver or kernel.release, got 'a b'" },
	{ BASE "hosts: {rack: r1}\n",
	  FILE_NAME ":9:9: unknown key 'rack' in hosts (expected one of: match, count)" },

	/* variants */
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants: {}\n",
	  FILE_NAME ":4:11: variants: expected at least one variant" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: c, object: xdp_basic.bpf.o, program: xdp_drop}\n",
	  FILE_NAME ":6:14: variant 'drop': port 'c' is not one of the plan's ports (a, b)" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop: []\n",
	  FILE_NAME ":5:9: variant 'drop': attach: expected a non-empty list of attach entries, got an empty list" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n    - b\n",
	  FILE_NAME ":6:7: variant 'drop': an attach entry must be a map such as {port: a, object: x.bpf.o, program: p}, got 'b'" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, object: o, prog: p}\n",
	  FILE_NAME ":6:28: variant 'drop': unknown key 'prog' in an attach entry (expected one of: port, hook, mode, tc_mode, object, program, maps, counters)" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, program: p}\n",
	  FILE_NAME ":6:7: variant 'drop': missing required key 'object' in an attach entry" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, hook: tc, object: o, program: p}\n",
	  FILE_NAME ":6:23: variant 'drop': hook: expected one of xdp, tc-ingress, tc-egress, got 'tc'" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, hook: tc-egress, mode: native, object: o, program: p}\n",
	  FILE_NAME ":6:40: variant 'drop': mode applies to hook xdp only, not tc-egress" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, mode: skb, object: o, program: p}\n",
	  FILE_NAME ":6:23: variant 'drop': mode: expected one of native, generic, offload, auto, got 'skb'" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, hook: tc-ingress, tc_mode: netkit, object: o, program: p}\n",
	  FILE_NAME ":6:44: variant 'drop': tc_mode: expected one of auto, tcx, clsact, got 'netkit'" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, hook: tc-egress, tc_mode: [tcx], object: o, program: p}\n",
	  FILE_NAME ":6:43: variant 'drop': tc_mode: expected one of auto, tcx, clsact, got a list" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, hook: xdp, tc_mode: tcx, object: o, program: p}\n",
	  FILE_NAME ":6:37: variant 'drop': tc_mode applies to hooks tc-ingress and tc-egress only, not xdp" },
	/* hook defaults to xdp, so tc_mode alone is refused too, wherever it stands */
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {tc_mode: clsact, port: b, object: o, program: p}\n",
	  FILE_NAME ":6:17: variant 'drop': tc_mode applies to hooks tc-ingress and tc-egress only, not xdp" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - port: b\n      object: o\n      program: p\n      tc_mode: auto\n",
	  FILE_NAME ":9:16: variant 'drop': tc_mode applies to hooks tc-ingress and tc-egress only, not xdp" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, object: o, program: xdp-drop}\n",
	  FILE_NAME ":6:37: variant 'drop': program: expected a program (function) name, got 'xdp-drop'" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, object: \"\", program: p}\n",
	  FILE_NAME ":6:25: variant 'drop': object: expected an object name or path, got ''" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  drop:\n"
	  "    - {port: b, object: o, program: p}\n"
	  "    - {port: b, hook: xdp, object: o, program: q}\n",
	  FILE_NAME ":7:7: variant 'drop': port 'b' already has a xdp program in this variant (at 6:7)" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  \"a/b\":\n"
	  "    - {port: b, object: o, program: p}\n",
	  FILE_NAME ":5:3: variants: expected a variant name of letters, digits, '.', '_' and '-', got 'a/b'" },

	/* repeat, metrics */
	{ BASE "repeat: 0\n",
	  FILE_NAME ":9:9: repeat: expected an integer from 1 to 1000, got '0'" },
	{ BASE "repeat: 1001\n",
	  FILE_NAME ":9:9: repeat: expected an integer from 1 to 1000, got '1001'" },
	{ BASE "repeat: +3\n",
	  FILE_NAME ":9:9: repeat: expected an integer from 1 to 1000, got '+3'" },
	{ BASE "repeat: {min: 5, max: 3}\n",
	  FILE_NAME ":9:15: repeat: min 5 is more than max 3" },
	{ BASE "repeat: {max: 20, until: 120%}\n",
	  FILE_NAME ":9:26: repeat.until: expected a percentage above 0 % and below 100 % (such as 2%), got '120%'" },
	{ BASE "repeat: {max: 20, until: 0%}\n",
	  FILE_NAME ":9:26: repeat.until: expected a percentage above 0 % and below 100 % (such as 2%), got '0%'" },
	{ BASE "repeat: {max: 20, on: [prog.nope]}\n",
	  FILE_NAME ":9:24: repeat.on: unknown metric 'prog.nope'" },
	{ BASE "repeat: {max: 20, on: [port.tx_pps]}\nmetrics: [port.rx_pps]\n",
	  FILE_NAME ":9:24: repeat.on: 'port.tx_pps' is not among the plan's metrics (port.rx_pps)" },
	{ BASE "repeat: {min: 3}\n",
	  FILE_NAME ":9:9: repeat: missing required key 'max' (the most repetitions to add up to)" },
	{ BASE "repeat: {max: 4, every: 1}\n",
	  FILE_NAME ":9:18: unknown key 'every' in repeat (expected one of: min, max, until, on)" },
	{ BASE "repeat: {max: 100001}\n",
	  FILE_NAME ":9:15: repeat.max: expected an integer from 1 to 1000, got '100001'" },
	{ BASE "min_effect: 0\n",
	  FILE_NAME ":9:13: min_effect: expected a percentage above 0 % and below 100 % (such as 2%), got '0'" },
	{ BASE "share_machine: yes\n",
	  FILE_NAME ":9:16: share_machine: expected one of false, true, got 'yes'" },
	{ BASE "verifier: loud\n",
	  FILE_NAME ":9:11: verifier: expected one of none, stats, got 'loud'" },
	{ BASE "metrics: [port.rx_pps, port.rx_bps]\n",
	  FILE_NAME ":9:24: metrics: unknown metric 'port.rx_bps' (known: port.rx_pps, port.tx_pps, port.drop_pps, gen.tx_pps, prog.ns_per_run, prog.run_pps, cpu.softirq, cpu.busy, counter.pps, gen.offered_pps, rx.ns_per_frame, rx.softirq_ns_per_frame, verifier.insns, prog.jited_bytes, prog.xlated_insns, verifier.processed_insns, verifier.total_states, verifier.peak_states, verifier.time_us, nic.NAME: a driver counter of ethtool -S)" },
	{ BASE "metrics: [port.rx_pps, nic.ucast pkts rx]\n",
	  FILE_NAME ":9:24: metrics: unknown metric 'nic.ucast pkts rx' (known: port.rx_pps, port.tx_pps, port.drop_pps, gen.tx_pps, prog.ns_per_run, prog.run_pps, cpu.softirq, cpu.busy, counter.pps, gen.offered_pps, rx.ns_per_frame, rx.softirq_ns_per_frame, verifier.insns, prog.jited_bytes, prog.xlated_insns, verifier.processed_insns, verifier.total_states, verifier.peak_states, verifier.time_us, nic.NAME: a driver counter of ethtool -S)" },
	{ WITH_RATE("xdp-live", "0"), FILE_NAME ":6:9: " RATE_EXPECTED "'0'" },
	{ WITH_RATE("udp", "1000000001"), FILE_NAME ":6:9: " RATE_EXPECTED "'1000000001'" },
	{ WITH_RATE("xdp-live", "0%"), FILE_NAME ":6:9: " RATE_EXPECTED "'0%'" },
	{ WITH_RATE("xdp-live", "100.5%"), FILE_NAME ":6:9: " RATE_EXPECTED "'100.5%'" },
	{ WITH_RATE("xdp-live", "10 %"), FILE_NAME ":6:9: " RATE_EXPECTED "'10 %'" },
	{ WITH_RATE("pktgen", "1.5"), FILE_NAME ":6:9: " RATE_EXPECTED "'1.5'" },
	{ WITH_RATE("xdp-live", "fast"), FILE_NAME ":6:9: " RATE_EXPECTED "'fast'" },
	{ WITH_RATE("none", "1000"),
	  FILE_NAME ":6:9: traffic.rate: needs a generator (traffic.generator is none)" },
	/* traffic.burst: 1 to what one call sends (line 7, after `rate`) */
	{ WITH_RATE("xdp-live", "1000\n  burst: 0"),
	  FILE_NAME ":7:10: traffic.burst: expected frames from 1 to 4096 (what one xdp-live call sends at most), got '0'" },
	{ WITH_RATE("pktgen", "1000\n  burst: 4097"),
	  FILE_NAME ":7:10: traffic.burst: expected frames from 1 to 4096 (what one pktgen call sends at most), got '4097'" },
	{ WITH_RATE("udp", "1000\n  burst: 65"),
	  FILE_NAME ":7:10: traffic.burst: expected frames from 1 to 64 (what one udp (sendmmsg) call sends at most), got '65'" },
	{ WITH_RATE("xdp-live", "1000\n  burst: many"),
	  FILE_NAME ":7:10: traffic.burst: expected frames from 1 to 4096 (what one xdp-live call sends at most), got 'many'" },
	{ BASE "metrics: [cpu.busy, cpu.busy]\n",
	  FILE_NAME ":9:21: metrics: duplicate metric 'cpu.busy' (first at 9:11)" },
	{ BASE "metrics: []\n",
	  FILE_NAME ":9:10: metrics: expected a non-empty list of metric names, got an empty list" },

	/* Text from the plan is shown escaped and cut short. */
	{ BASE "repeat: \"\\e[31mred\"\n",
	  FILE_NAME ":9:9: repeat: expected an integer from 1 to 1000, got '\\x1b[31mred'" },
	{ BASE "repeat: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	  FILE_NAME ":9:9: repeat: expected an integer from 1 to 1000, got 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'" },
};

/* Refused plans: the plan format. */
/* traffic.rate in frames/s or as a share of the line rate, into the job spec */
static void test_plan_rate(void **state)
{
	struct plan *p = plan_fix_parse_ok(WITH_RATE("xdp-live", "200000"));
	struct err err = { 0 };
	struct plan_job *jobs;
	json_t *t;
	int n;

	(void)state;
	assert_int_equal(p->traffic.rate_pps, 200000);
	assert_true(p->traffic.rate_share == 0);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	t = json_object_get(jobs[0].spec, "traffic");
	assert_int_equal(json_integer_value(json_object_get(t, "rate_pps")), 200000);
	assert_null(json_object_get(t, "rate_share"));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	p = plan_fix_parse_ok(WITH_RATE("udp", "2.5%"));
	assert_int_equal(p->traffic.rate_pps, 0);
	assert_true(p->traffic.rate_share == 0.025);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	t = json_object_get(jobs[0].spec, "traffic");
	assert_true(json_real_value(json_object_get(t, "rate_share")) == 0.025);
	assert_null(json_object_get(t, "rate_pps"));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	p = plan_fix_parse_ok(WITH_RATE("pktgen", "100%"));
	assert_true(p->traffic.rate_share == 1);
	plan_destroy(&p);
	p = plan_fix_parse_ok(BASE);		/* no rate: full speed, nothing in the spec */
	assert_int_equal(p->traffic.rate_pps, 0);
	assert_true(p->traffic.rate_share == 0);
	assert_int_equal(p->traffic.burst, 0);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_null(json_object_get(json_object_get(jobs[0].spec, "traffic"), "burst"));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	/* traffic.burst into the spec; udp up to 64 */
	p = plan_fix_parse_ok(WITH_RATE("xdp-live", "300000\n  burst: 4096"));
	assert_int_equal(p->traffic.burst, 4096);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	t = json_object_get(jobs[0].spec, "traffic");
	assert_int_equal(json_integer_value(json_object_get(t, "burst")), 4096);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	p = plan_fix_parse_ok(WITH_RATE("udp", "1000\n  burst: 64"));
	assert_int_equal(p->traffic.burst, 64);
	plan_destroy(&p);
}

/* Every job of plan TEXT checked against a host whose port a has SPEED Mb/s (0: none);
 * returns the first plan_rate_check() failure with ERR, or 0 */
static int rate_on(const char *text, int speed, struct err *err)
{
	struct plan *p = plan_fix_parse_ok(text);
	json_t *inv = speed ? json_pack("{s:[{s:s, s:i}]}", "ports", "role", "a", "speed", speed)
			    : json_pack("{s:[{s:s}]}", "ports", "role", "a");
	struct plan_job *jobs;
	int n, i, ret = 0;

	assert_int_equal(plan_expand(p, &jobs, &n, err), 0);
	for (i = 0; i < n && !ret; i++)
		ret = plan_rate_check(p, jobs[i].spec, inv, "h1", err);
	plan_jobs_free(jobs, n);
	json_decref(inv);
	plan_destroy(&p);
	return ret;
}

/* the line rate, and traffic.rate against a host's port at submit */
static void test_plan_rate_check(void **state)
{
	struct err err = { 0 };

	(void)state;
	/* 10 Gb/s, 64 + 24 bytes a frame: 1e10 / 704 */
	assert_true(fabs(plan_line_rate_pps(10000, 64) - 14204545.4545) < 1e-3);
	assert_true(fabs(plan_line_rate_pps(1000, 1500) - 82020.997) < 1e-3);
	assert_int_equal(rate_on(WITH_RATE("xdp-live", "14204545"), 10000, &err), 0);
	assert_int_equal(rate_on(WITH_RATE("xdp-live", "14204546"), 10000, &err), -EINVAL);
	assert_string_equal(err.msg, FILE_NAME ":6:9: traffic.rate: 14204546 frames/s is above the line rate of port 'a' on host 'h1': 14204545 frames/s of 64 bytes at 10000 Mb/s");
	assert_int_equal(err.line, 6);
	assert_int_equal(err.col, 9);
	assert_int_equal(rate_on(WITH_RATE("udp", "100000000"), 0, &err), 0);	/* no speed */
	assert_int_equal(rate_on(WITH_RATE("udp", "10%"), 10000, &err), 0);
	assert_int_equal(rate_on(WITH_RATE("udp", "10%"), 0, &err), -EINVAL);
	assert_string_equal(err.msg, FILE_NAME ":6:9: traffic.rate: 10% of the line rate, but port 'a' on host 'h1' reports no speed: give the rate in frames per second");
	assert_int_equal(rate_on(BASE, 0, &err), 0);			/* no rate */
	/* a matrix axis traffic.rate: its entry is the place */
	assert_int_equal(rate_on(WITH_RATE("xdp-live", "1000") "matrix:\n"
				 "  traffic.rate: [1000, 20000000]\n", 10000, &err), -EINVAL);
	assert_int_equal(err.line, 12);
	assert_int_equal(err.col, 3);
}

static void test_plan_bad_format(void **state)
{
	plan_fix_errors(bad_format, ARRAY_LEN(bad_format));
}

static const struct plan_fix_bad bad_matrix[] = {
	{ BASE "matrix: [a]\n",
	  FILE_NAME ":9:9: matrix: expected a map, got a list" },
	{ BASE "matrix:\n  traffic.packet.size: 64\n",
	  FILE_NAME ":10:24: matrix traffic.packet.size: expected a non-empty list of values, got '64'" },
	{ BASE "matrix:\n  traffic.packet.size: [64, {a: 1}]\n",
	  FILE_NAME ":10:29: matrix traffic.packet.size: values must be scalars, got a map" },
	{ BASE "matrix:\n  traffic.packet.size: [64, 128, 64, 128]\n",
	  FILE_NAME ":10:34: matrix traffic.packet.size: duplicate value '64' (first at 10:25)" },
	{ BASE "matrix:\n  repeat: [1, 2]\n",
	  FILE_NAME ":10:3: matrix: 'repeat' cannot be varied by the matrix" },
	{ BASE "matrix:\n  variants.drop: [1, 2]\n",
	  FILE_NAME ":10:3: matrix: 'variants.drop' cannot be varied by the matrix" },
	{ BASE "matrix:\n  traffic..size: [1, 2]\n",
	  FILE_NAME ":10:3: matrix: expected a key path such as traffic.packet.size, got 'traffic..size'" },
	{ BASE "matrix:\n  traffic.packet: [1]\n  traffic.packet.size: [64]\n",
	  FILE_NAME ":11:3: matrix: 'traffic.packet.size' overlaps 'traffic.packet' (at 10:3)" },

	/* Every point is a whole plan: the offending value is named with its place. */
	{ BASE "matrix:\n  traffic.packet.size: [64, abc]\n",
	  FILE_NAME ":10:29: matrix traffic.packet.size=abc: traffic.packet.size: expected an integer from 60 to 9000, got 'abc'" },
	{ BASE "matrix:\n  traffic.packet.siz: [64]\n",
	  FILE_NAME ":10:24: matrix traffic.packet.siz=64: unknown key 'siz' in traffic.packet (expected one of: size, proto, flows)" },
	{ BASE "matrix:\n  ports.x: [1]\n",
	  FILE_NAME ":10:13: matrix ports.x=1: 'ports' is not a map" },
	{ BASE "matrix:\n  traffic.from: [a, c]\n",
	  FILE_NAME ":10:21: matrix traffic.from=c: traffic.from 'c' is not one of the plan's ports (a, b)" },
	/* An error that the point causes elsewhere names the whole point. */
	{ "name: x\nports: [a]\ntraffic:\n  from: a\n  duration: 1s\n  packet: {size: 60}\n"
	  "variants: {v: [{port: a, object: o, program: p}]}\n"
	  "matrix:\n  traffic.packet.flows: [1, 2]\n  traffic.packet.proto: [udp4, udp6]\n",
	  FILE_NAME ":6:18: matrix point traffic.packet.flows=1, traffic.packet.proto=udp6: traffic.packet.size: udp6 frames need at least 62 bytes, got 60" },

	/* The expansion is capped before any point is built. */
	{ BASE "repeat: 1000\nmatrix:\n  traffic.threads: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
	  "  traffic.packet.flows: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n",
	  FILE_NAME ":10:1: the plan expands to 110000 jobs (repeat 1000 x 110 matrix points x 1 variants), more than 100000" },
	{ BASE "repeat: 1000\nmatrix:\n"
	  "  traffic.threads: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
	  "  traffic.packet.flows: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
	  "  traffic.packet.size: [61, 62, 63, 64, 65, 66, 67, 68, 69, 70]\n"
	  "  traffic.warmup: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
	  "  traffic.duration: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
	  "  description: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n",
	  FILE_NAME ":10:1: the matrix has more than 100000 points" },
	{ BASE "repeat: 1001\n",
	  FILE_NAME ":9:9: repeat: expected an integer from 1 to 1000, got '1001'" },
};

static void test_plan_bad_matrix(void **state)
{
	plan_fix_errors(bad_matrix, ARRAY_LEN(bad_matrix));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_rate),
		cmocka_unit_test(test_plan_rate_check),
		cmocka_unit_test(test_plan_bad_format),
		cmocka_unit_test(test_plan_bad_matrix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
