// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_plan.c - the plan model: parsing, defaults, every class of refused plan with its
 * exact "file:line:column: message", overrides, matrix points and job expansion.
 *
 * Plans are written inline so that the positions in the expected messages can be read
 * off the text; tests/data/plans/ holds the files that plan_load reads.
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
#include <sys/stat.h>
#include <unistd.h>

#include "plan/plan.h"
#include "base/util.h"
#include "helpers.h"

#define FILE_NAME "plans/x.yaml"

/* Variants for plans that test something before them. */
#define V "variants: {v: [{port: a, object: o, program: p}]}\n"

/* A valid plan that the bad cases below start from (8 lines). */
#define BASE                                                                   \
	"name: x\n"                                                            \
	"ports: [a, b]\n"                                                      \
	"traffic:\n"                                                           \
	"  from: a\n"                                                          \
	"  duration: 1s\n"                                                     \
	"variants:\n"                                                          \
	"  drop:\n"                                                            \
	"    - {port: b, object: xdp_basic.bpf.o, program: xdp_drop}\n"

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

static const char full_plan[] =
	"name: quickstart\n"
	"description: text\n"
	"hosts:\n"
	"  match: {port.driver: veth, kernel.release: \">=6.1\"}\n"
	"  count: all\n"
	"ports: [a, b]\n"
	"traffic:\n"
	"  generator: xdp-live\n"
	"  from: a\n"
	"  packet: {size: 64, proto: udp4, flows: 1}\n"
	"  threads: 1\n"
	"  duration: 10s\n"
	"  warmup: 2s\n"
	"variants:\n"
	"  drop:\n"
	"    - {port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o, program: xdp_drop}\n"
	"matrix:\n"
	"  traffic.packet.size: [64, 1500]\n"
	"repeat: 3\n"
	"metrics: [port.rx_pps, port.tx_pps, port.drop_pps, prog.ns_per_run]\n";

static struct plan *parse_ov(const char *text, const char *const *ovs, int n_ov,
			     struct err *err)
{
	struct plan_override ov[8];
	struct plan *p;
	int i;

	assert_true(n_ov <= 8);
	for (i = 0; i < n_ov; i++)
		assert_int_equal(plan_override_parse(ovs[i], &ov[i], err), 0);
	p = plan_parse(FILE_NAME, text, strlen(text), ov, n_ov, err);
	for (i = 0; i < n_ov; i++)
		plan_override_release(&ov[i]);
	return p;
}

static struct plan *parse_ok(const char *text)
{
	struct err err;
	struct plan *p = parse_ov(text, NULL, 0, &err);

	if (!p)
		fail_msg("plan refused: %s", err.msg);
	return p;
}

/* TEXT is refused with exactly EXPECT, and err.line/col agree with its prefix. */
static void expect_error_ov(const char *text, const char *const *ovs, int n_ov,
			    const char *expect)
{
	struct err err;
	struct plan *p;
	char prefix[64];

	errno = 0;
	p = parse_ov(text, ovs, n_ov, &err);
	if (p) {
		plan_destroy(&p);
		fail_msg("plan accepted, expected: %s", expect);
	}
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.msg, expect);
	if (err.line)
		snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", FILE_NAME, err.line, err.col);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", FILE_NAME);
	assert_int_equal(strncmp(err.msg, prefix, strlen(prefix)), 0);
}

static void expect_error(const char *text, const char *expect)
{
	expect_error_ov(text, NULL, 0, expect);
}

/* A refused plan: its text and exactly the message it gets. */
struct bad_plan {
	const char *text;
	const char *expect;
};

/* expect_error() on each of the N CASES. */
static void expect_errors(const struct bad_plan *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		expect_error(cases[i].text, cases[i].expect);
}

static void test_plan_full(void **state)
{
	struct plan *p = parse_ok(full_plan);
	const struct plan_attach *a;
	char sha[SHA256_HEX_LEN];

	(void)state;
	assert_string_equal(p->file, FILE_NAME);
	assert_int_equal(p->text_len, strlen(full_plan));
	assert_string_equal(p->text, full_plan);
	util_sha256_hex(full_plan, strlen(full_plan), sha);
	assert_string_equal(p->sha256, sha);
	assert_string_equal(p->name, "quickstart");
	assert_string_equal(p->description, "text");

	assert_int_equal(p->n_match, 2);
	assert_string_equal(p->match[0].key, "port.driver");
	assert_string_equal(p->match[0].value, "veth");
	assert_int_equal(p->match[0].line, 4);
	assert_int_equal(p->match[0].col, 11);
	assert_string_equal(p->match[1].key, "kernel.release");
	assert_string_equal(p->match[1].value, ">=6.1");
	assert_int_equal(p->host_count, 0);

	assert_int_equal(p->n_ports, 2);
	assert_string_equal(p->ports[0], "a");
	assert_string_equal(p->ports[1], "b");

	assert_int_equal(p->traffic.generator, JOB_GEN_XDP_LIVE);
	assert_string_equal(p->traffic.from, "a");
	assert_int_equal(p->traffic.size, 64);
	assert_int_equal(p->traffic.proto, JOB_PROTO_UDP4);
	assert_int_equal(p->traffic.flows, 1);
	assert_int_equal(p->traffic.threads, 1);
	assert_int_equal(p->traffic.duration_ms, 10000);
	assert_int_equal(p->traffic.warmup_ms, 2000);

	assert_int_equal(p->n_variants, 1);
	assert_string_equal(p->variants[0].name, "drop");
	assert_int_equal(p->variants[0].line, 15);
	assert_int_equal(p->variants[0].col, 3);
	assert_int_equal(p->variants[0].n_attach, 1);
	a = &p->variants[0].attach[0];
	assert_string_equal(a->port, "b");
	assert_int_equal(a->hook, JOB_HOOK_XDP);
	assert_int_equal(a->mode, JOB_XDP_NATIVE);
	assert_string_equal(a->object, "xdp_basic.bpf.o");
	assert_string_equal(a->program, "xdp_drop");
	assert_int_equal(a->line, 16);
	assert_int_equal(a->col, 7);
	assert_int_equal(a->object_line, 16);
	assert_int_equal(a->object_col, 50);
	assert_int_equal(a->program_line, 16);
	assert_int_equal(a->program_col, 76);

	assert_int_equal(p->n_axes, 1);
	assert_string_equal(p->matrix[0].key, "traffic.packet.size");
	assert_int_equal(p->matrix[0].n_values, 2);
	assert_string_equal(p->matrix[0].values[0], "64");
	assert_string_equal(p->matrix[0].values[1], "1500");
	assert_int_equal(p->matrix[0].line, 18);
	assert_int_equal(p->matrix[0].col, 3);

	assert_int_equal(p->repeat, 3);
	assert_int_equal(p->n_metrics, 4);
	assert_string_equal(p->metrics[0], "port.rx_pps");
	assert_string_equal(p->metrics[1], "port.tx_pps");
	assert_string_equal(p->metrics[2], "port.drop_pps");
	assert_string_equal(p->metrics[3], "prog.ns_per_run");

	plan_destroy(&p);
	assert_null(p);
	plan_destroy(&p);		/* NULL is fine, twice too */
	plan_destroy(NULL);
}

static void test_plan_defaults(void **state)
{
	static const char *const want_metrics[] = {
		"port.rx_pps", "port.tx_pps", "port.drop_pps", "gen.tx_pps",
		"prog.ns_per_run", "prog.run_pps",
	};
	struct plan *p = parse_ok(BASE);
	int i;

	(void)state;
	assert_null(p->description);
	assert_int_equal(p->n_match, 0);
	assert_int_equal(p->host_count, 0);
	assert_int_equal(p->traffic.generator, JOB_GEN_XDP_LIVE);
	assert_int_equal(p->traffic.size, 64);
	assert_int_equal(p->traffic.proto, JOB_PROTO_UDP4);
	assert_int_equal(p->traffic.flows, 1);
	assert_int_equal(p->traffic.threads, 1);
	assert_int_equal(p->traffic.duration_ms, 1000);
	assert_int_equal(p->traffic.warmup_ms, 1000);
	assert_int_equal(p->variants[0].attach[0].hook, JOB_HOOK_XDP);
	assert_int_equal(p->variants[0].attach[0].mode, JOB_XDP_NATIVE);
	assert_int_equal(p->n_axes, 0);
	assert_int_equal(p->repeat, 1);
	assert_int_equal(p->n_metrics, 6);
	for (i = 0; i < 6; i++)
		assert_string_equal(p->metrics[i], want_metrics[i]);
	plan_destroy(&p);
}

static void test_plan_values(void **state)
{
	struct plan *p;

	(void)state;
	p = parse_ok("name: v.1_x-y\n"
		     "description: \"quoted: text\"\n"
		     "hosts: {count: 3, match: {rack: r3}}\n"
		     "ports: [up, down-1, x_2]\n"
		     "traffic:\n"
		     "  generator: none\n"
		     "  from: up\n"
		     "  packet: {proto: udp6, size: 62, flows: 64511}\n"
		     "  threads: 64\n"
		     "  duration: 60m\n"
		     "  warmup: 0\n"
		     "variants:\n"
		     "  tc.1:\n"
		     "    - {port: up, hook: tc-ingress, object: sub/o.bpf.o, program: cls_a}\n"
		     "    - {port: up, hook: tc-egress, object: o2, program: cls_b}\n"
		     "    - {port: down-1, mode: generic, object: o3, program: _x1}\n"
		     "  off:\n"
		     "    - {port: x_2, mode: offload, object: o4, program: p}\n"
		     "repeat: 1000\n"
		     "metrics: [cpu.busy, cpu.softirq]\n");
	assert_string_equal(p->name, "v.1_x-y");
	assert_string_equal(p->description, "quoted: text");
	assert_int_equal(p->host_count, 3);
	assert_int_equal(p->n_match, 1);
	assert_string_equal(p->match[0].key, "rack");
	assert_int_equal(p->traffic.generator, JOB_GEN_NONE);
	assert_null(p->traffic.from);		/* not used without a generator */
	assert_int_equal(p->traffic.proto, JOB_PROTO_UDP6);
	assert_int_equal(p->traffic.size, 62);
	assert_int_equal(p->traffic.flows, 64511);
	assert_int_equal(p->traffic.threads, 64);
	assert_int_equal(p->traffic.duration_ms, 3600000);
	assert_int_equal(p->traffic.warmup_ms, 0);
	assert_int_equal(p->n_variants, 2);
	assert_int_equal(p->variants[0].n_attach, 3);
	assert_int_equal(p->variants[0].attach[0].hook, JOB_HOOK_TC_INGRESS);
	assert_int_equal(p->variants[0].attach[1].hook, JOB_HOOK_TC_EGRESS);
	assert_int_equal(p->variants[0].attach[2].mode, JOB_XDP_GENERIC);
	assert_string_equal(p->variants[0].attach[0].object, "sub/o.bpf.o");
	assert_int_equal(p->variants[1].attach[0].mode, JOB_XDP_OFFLOAD);
	assert_int_equal(p->repeat, 1000);
	assert_int_equal(p->n_metrics, 2);
	assert_string_equal(p->metrics[1], "cpu.softirq");
	plan_destroy(&p);

	/* Nulls of optional keys mean "absent". */
	p = parse_ok(BASE "description:\nhosts:\nmatrix: ~\nrepeat: null\nmetrics:\n");
	assert_null(p->description);
	assert_int_equal(p->repeat, 1);
	assert_int_equal(p->n_axes, 0);
	assert_int_equal(p->n_metrics, 6);
	plan_destroy(&p);
}

static void test_plan_load(void **state)
{
	struct err err;
	struct plan *p;
	char *text;
	size_t len;

	(void)state;
	p = plan_load(BPFLAB_SRCDIR "/tests/data/plans/full.yaml", NULL, 0, &err);
	if (!p)
		fail_msg("%s", err.msg);
	assert_int_equal(util_read_file(BPFLAB_SRCDIR "/tests/data/plans/full.yaml", 1 << 20,
					&text, &len), 0);
	assert_int_equal(p->text_len, len);
	assert_memory_equal(p->text, text, len);
	free(text);
	assert_string_equal(p->name, "quickstart");
	assert_int_equal(p->n_variants, 2);
	assert_int_equal(p->variants[1].attach[0].program_line, 20);
	plan_destroy(&p);

	p = plan_load(BPFLAB_SRCDIR "/tests/data/plans/tc-chain.yaml", NULL, 0, &err);
	if (!p)
		fail_msg("%s", err.msg);
	assert_int_equal(p->traffic.generator, JOB_GEN_UDP);
	assert_int_equal(p->traffic.duration_ms, 500);
	assert_int_equal(p->n_axes, 2);
	plan_destroy(&p);

	errno = 0;
	p = plan_load("no/such/plan.yaml", NULL, 0, &err);
	assert_null(p);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(err.msg,
			    "cannot open plan 'no/such/plan.yaml': No such file or directory");
	assert_int_equal(err.line, 0);
}

/* A FIFO or a directory given as a plan is refused at once (a FIFO waited for a writer
 * forever); the alarm fails the test rather than hanging it. */
static void test_plan_load_not_regular(void **state)
{
	char dir[] = "/tmp/bpflab-test-plan-XXXXXX", fifo[256];
	struct err err;
	struct plan *p;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/plan.yaml", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);
	errno = 0;
	p = plan_load(fifo, NULL, 0, &err);
	alarm(0);
	assert_null(p);
	assert_int_equal(errno, UTIL_ENOTREG);
	assert_non_null(strstr(err.msg, "plan.yaml': not a regular file (a FIFO, device or "
				"socket)"));
	p = plan_load(dir, NULL, 0, &err);
	assert_null(p);
	assert_non_null(strstr(err.msg, "': Is a directory"));
	unlink(fifo);
	rmdir(dir);
}

/* libyaml refuses a NUL byte and invalid UTF-8 in a plan at FILE:LINE:COLUMN. */
static void test_plan_parse_not_text(void **state)
{
	static const char nul[] = "name: a\nports: [a]\ntra\0ffic: {}\n";
	static const char latin[] = "name: a\n# caf\xe9\nports: [a]\n";
	struct err err;

	(void)state;
	assert_null(plan_parse("n.yaml", nul, sizeof(nul) - 1, NULL, 0, &err));
	assert_int_equal(err.line, 3);
	assert_non_null(strstr(err.msg, "n.yaml:3:"));
	assert_non_null(strstr(err.msg, "control characters are not allowed"));
	assert_null(plan_parse("l.yaml", latin, sizeof(latin) - 1, NULL, 0, &err));
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "l.yaml:2:"));
	assert_non_null(strstr(err.msg, "UTF-8"));
}

static void test_plan_name_valid(void **state)
{
	(void)state;
	assert_true(plan_name_valid("xdp-drop_1.2"));
	assert_false(plan_name_valid(""));
	assert_false(plan_name_valid("a/b"));
	assert_false(plan_name_valid("<i>"));
	assert_true(plan_name_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_false(plan_name_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

static const struct bad_plan bad_yaml[] = {
	{ "",
	  FILE_NAME ": empty plan" },
	{ "# nothing but a comment\n",
	  FILE_NAME ": empty plan" },
	{ "---\n...\n",
	  FILE_NAME ": empty plan" },
	{ "name: [a\n",
	  FILE_NAME ":2:1: did not find expected ',' or ']' (while parsing a flow sequence at 1:7)" },
	{ "name: x\n ports: y\n",
	  FILE_NAME ":2:7: mapping values are not allowed in this context" },
	{ "name: x\nports: [a]\nname: y\n",
	  FILE_NAME ":3:1: duplicate key 'name' (first at 1:1)" },
	{ BASE "ports: [c]\n",
	  FILE_NAME ":9:1: duplicate key 'ports' (first at 2:1)" },
	{ "traffic: {a: 1, b: 2, a: 3}\n",
	  FILE_NAME ":1:23: duplicate key 'a' (first at 1:11)" },
	{ "name: &n x\n",
	  FILE_NAME ":1:7: YAML anchors are not supported" },
	{ "name: *n\n",
	  FILE_NAME ":1:7: YAML aliases are not supported" },
	{ "name: !!str x\n",
	  FILE_NAME ":1:7: YAML tags are not supported" },
	{ BASE "---\nname: y\n",
	  FILE_NAME ":9:1: multiple documents are not supported" },
	{ "? [a, b]\n: c\n",
	  FILE_NAME ":1:3: map keys must be scalars" },
	{ "name: \"a\\0b\"\n",
	  FILE_NAME ":1:7: NUL characters are not supported" },
	{ "name: x\xc3\x28\n",
	  FILE_NAME ":1:9: invalid trailing UTF-8 octet (byte 0x28)" },
	{ "- a\n- b\n",
	  FILE_NAME ":1:1: a plan must be a map of keys (name, ports, traffic, ...), got a list" },
	{ "hello\n",
	  FILE_NAME ":1:1: a plan must be a map of keys (name, ports, traffic, ...), got 'hello'" },
};

/* Refused plans: the YAML layer. */
static void test_plan_bad_yaml(void **state)
{
	char *big, *deep;
	size_t i;

	(void)state;
	expect_errors(bad_yaml, ARRAY_LEN(bad_yaml));

	/* 32 levels are fine (for the YAML layer), 33 are not. */
	deep = calloc(1, 200);
	assert_non_null(deep);
	strcpy(deep, "a: ");
	for (i = 0; i < 31; i++)
		strcat(deep, "[");
	for (i = 0; i < 31; i++)
		strcat(deep, "]");
	strcat(deep, "\n");
	expect_error(deep, FILE_NAME ":1:1: unknown key 'a' in the plan (expected one of: name, description, hosts, ports, traffic, variants, matrix, repeat, metrics, link, min_effect, share_machine, verifier, search, latency)");
	memmove(deep + 4, deep + 3, strlen(deep + 3) + 1);
	deep[3] = '[';
	strcpy(deep + strlen(deep) - 1, "]\n");
	expect_error(deep, FILE_NAME ":1:35: nesting deeper than 32 levels is not supported");
	free(deep);

	/* Size: one byte over the limit is refused before it is parsed. */
	big = malloc(PLAN_MAX_BYTES + 1);
	assert_non_null(big);
	memset(big, '#', PLAN_MAX_BYTES + 1);
	{
		struct err err;
		struct plan *p = plan_parse(FILE_NAME, big, PLAN_MAX_BYTES + 1, NULL, 0, &err);

		assert_null(p);
		assert_int_equal(errno, EINVAL);
		assert_string_equal(err.msg, FILE_NAME ": the plan is larger than 1048576 bytes");
		/* ... and at the limit it is read (here: all comment). */
		p = plan_parse(FILE_NAME, big, PLAN_MAX_BYTES, NULL, 0, &err);
		assert_null(p);
		assert_string_equal(err.msg, FILE_NAME ": empty plan");
	}
	free(big);
}

static const struct bad_plan bad_format[] = {
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
	struct plan *p = parse_ok(WITH_RATE("xdp-live", "200000"));
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
	p = parse_ok(WITH_RATE("udp", "2.5%"));
	assert_int_equal(p->traffic.rate_pps, 0);
	assert_true(p->traffic.rate_share == 0.025);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	t = json_object_get(jobs[0].spec, "traffic");
	assert_true(json_real_value(json_object_get(t, "rate_share")) == 0.025);
	assert_null(json_object_get(t, "rate_pps"));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	p = parse_ok(WITH_RATE("pktgen", "100%"));
	assert_true(p->traffic.rate_share == 1);
	plan_destroy(&p);
	p = parse_ok(BASE);		/* no rate: full speed, nothing in the spec */
	assert_int_equal(p->traffic.rate_pps, 0);
	assert_true(p->traffic.rate_share == 0);
	assert_int_equal(p->traffic.burst, 0);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_null(json_object_get(json_object_get(jobs[0].spec, "traffic"), "burst"));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	/* traffic.burst into the spec; udp up to 64 */
	p = parse_ok(WITH_RATE("xdp-live", "300000\n  burst: 4096"));
	assert_int_equal(p->traffic.burst, 4096);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	t = json_object_get(jobs[0].spec, "traffic");
	assert_int_equal(json_integer_value(json_object_get(t, "burst")), 4096);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	p = parse_ok(WITH_RATE("udp", "1000\n  burst: 64"));
	assert_int_equal(p->traffic.burst, 64);
	plan_destroy(&p);
}

/* Every job of plan TEXT checked against a host whose port a has SPEED Mb/s (0: none);
 * returns the first plan_rate_check() failure with ERR, or 0 */
static int rate_on(const char *text, int speed, struct err *err)
{
	struct plan *p = parse_ok(text);
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
	expect_errors(bad_format, ARRAY_LEN(bad_format));
}

static const struct bad_plan bad_matrix[] = {
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
	expect_errors(bad_matrix, ARRAY_LEN(bad_matrix));
}

/* One override on BASE each (.text is the override) and the message it gets. */
static const struct bad_plan bad_overrides[] = {
	{ "traffic.packet.siz=1",
	  FILE_NAME ": override 'traffic.packet.siz=1': unknown key 'siz' in traffic.packet (expected one of: size, proto, flows)" },
	{ "traffic.packet.size=big",
	  FILE_NAME ": override 'traffic.packet.size=big': traffic.packet.size: expected an integer from 60 to 9000, got 'big'" },
	{ "traffic.from.x=1",
	  FILE_NAME ": override 'traffic.from.x=1': 'traffic.from' is not a map" },
	{ "ports=[a, b",
	  FILE_NAME ": override 'ports=[a, b': did not find expected ',' or ']' (while parsing a flow sequence)" },
	/* ... and what the file says stays positioned in the file. */
	{ "ports=[a]",
	  FILE_NAME ":8:14: variant 'drop': port 'b' is not one of the plan's ports (a)" },
	{ "matrix.traffic.threads=[1, x]",
	  FILE_NAME ": matrix traffic.threads=x: traffic.threads: expected an integer from 1 to 64, got 'x'" },
	{ "name=*x",
	  FILE_NAME ": override 'name=*x': YAML aliases are not supported" },
	{ "variants.t=[{port: b, hook: tc-egress, tc_mode: x, object: o, program: p}]",
	  FILE_NAME ": override 'variants.t=[{port: b, hook: tc-egress, tc_mode: x, object: o, program: p}]': variant 't': tc_mode: expected one of auto, tcx, clsact, got 'x'" },
	{ "variants.d=[{port: b, tc_mode: tcx, object: o, program: p}]",
	  FILE_NAME ": override 'variants.d=[{port: b, tc_mode: tcx, object: o, program: p}]': variant 'd': tc_mode applies to hooks tc-ingress and tc-egress only, not xdp" },
};

static void test_plan_overrides(void **state)
{
	static const char *const set[] = {
		"traffic.packet.size=1500", "repeat=2", "hosts.count=4", "hosts.match.rack=r3",
		"hosts.match.port.driver=mlx5", "ports=[a, b, c]", "traffic.packet.flows=8",
		"description=\"x: y\"",
	};
	static const char *const add_variant[] = {
		"variants.tx=[{port: a, object: xdp_basic.bpf.o, program: xdp_tx}]",
	};
	static const char *const drop_axis[] = { "traffic.packet.size=128" };
	static const char *const add_axis[] = { "matrix.traffic.threads=[1, 2, 4]" };
	struct err err;
	struct plan *p;
	char sha[SHA256_HEX_LEN];
	size_t i;

	(void)state;
	p = parse_ov(BASE, set, 8, &err);
	if (!p)
		fail_msg("%s", err.msg);
	util_sha256_hex(BASE, strlen(BASE), sha);
	assert_string_equal(p->sha256, sha);	/* the text, not the overrides */
	assert_int_equal(p->traffic.size, 1500);
	assert_int_equal(p->traffic.flows, 8);
	assert_int_equal(p->repeat, 2);
	assert_int_equal(p->host_count, 4);
	assert_int_equal(p->n_match, 2);
	assert_string_equal(p->match[0].key, "rack");
	assert_string_equal(p->match[0].value, "r3");
	assert_string_equal(p->match[1].key, "port.driver");
	assert_string_equal(p->match[1].value, "mlx5");
	assert_int_equal(p->n_ports, 3);
	assert_string_equal(p->ports[2], "c");
	assert_string_equal(p->description, "x: y");
	plan_destroy(&p);

	p = parse_ov(BASE, add_variant, 1, &err);
	assert_non_null(p);
	assert_int_equal(p->n_variants, 2);
	assert_string_equal(p->variants[1].name, "tx");
	assert_string_equal(p->variants[1].attach[0].program, "xdp_tx");
	assert_int_equal(p->variants[1].attach[0].line, 0);	/* not from the file */
	plan_destroy(&p);

	/* Setting a key that the matrix varies takes it out of the matrix. */
	p = parse_ov(full_plan, drop_axis, 1, &err);
	assert_non_null(p);
	assert_int_equal(p->n_axes, 0);
	assert_int_equal(p->traffic.size, 128);
	plan_destroy(&p);
	p = parse_ov(full_plan, add_axis, 1, &err);
	assert_non_null(p);
	assert_int_equal(p->n_axes, 2);
	assert_string_equal(p->matrix[1].key, "traffic.threads");
	assert_int_equal(p->matrix[1].n_values, 3);
	plan_destroy(&p);

	/* Errors in what an override put there are reported against the override. */
	for (i = 0; i < ARRAY_LEN(bad_overrides); i++)
		expect_error_ov(BASE, &bad_overrides[i].text, 1, bad_overrides[i].expect);
}

static void test_plan_override_parse(void **state)
{
	struct plan_override ov;
	struct err err;

	(void)state;
	assert_int_equal(plan_override_parse("traffic.packet.size=1500", &ov, &err), 0);
	assert_string_equal(ov.key, "traffic.packet.size");
	assert_string_equal(ov.value, "1500");
	plan_override_release(&ov);
	assert_null(ov.key);
	plan_override_release(&ov);

	assert_int_equal(plan_override_parse("description=a=b", &ov, &err), 0);
	assert_string_equal(ov.key, "description");
	assert_string_equal(ov.value, "a=b");
	plan_override_release(&ov);
	assert_int_equal(plan_override_parse("description=", &ov, &err), 0);
	assert_string_equal(ov.value, "");
	plan_override_release(&ov);

	assert_int_equal(plan_override_parse("x", &ov, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid override 'x': expected KEY=VALUE");
	assert_int_equal(err.line, 0);
	assert_int_equal(plan_override_parse("=1", &ov, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid override '=1': expected KEY=VALUE");
	assert_int_equal(plan_override_parse("a..b=1", &ov, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "invalid override 'a..b=1': expected a key path such as traffic.packet.size");
	assert_int_equal(plan_override_parse("a.=1", &ov, &err), -EINVAL);
	assert_int_equal(plan_override_parse("name=a\nb", &ov, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid override 'name=a\\x0ab': the value must be one line");
	assert_null(ov.key);
}

/* Expansion order, point values and spec contents. */
static void test_plan_expand_matrix(void **state)
{
	static const char *const variants[] = { "a1", "b2", "c3" };
	struct plan_job *jobs = NULL;
	struct err err;
	struct plan *p;
	int n = 0, i;

	(void)state;
	p = parse_ok("name: m\nports: [a, b]\ntraffic: {from: a, duration: 2s}\n"
		     "variants:\n"
		     "  a1: [{port: b, object: o.bpf.o, program: p1}]\n"
		     "  b2: [{port: b, object: o.bpf.o, program: p2}]\n"
		     "  c3: [{port: b, object: o.bpf.o, program: p3}]\n"
		     "matrix:\n"
		     "  traffic.packet.size: [64, 1500]\n"
		     "  traffic.packet.proto: [udp4, udp6]\n"
		     "repeat: 2\n");
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, 2 * 4 * 3);		/* reps x points x variants */
	for (i = 0; i < n; i++) {
		const struct plan_job *j = &jobs[i];
		int point = (i / 3) % 4;
		const char *size = point < 2 ? "64" : "1500";
		const char *proto = point % 2 ? "udp6" : "udp4";
		json_t *packet = json_object_get(json_object_get(j->spec, "traffic"), "packet");

		assert_int_equal(j->seq, i);
		assert_int_equal(j->rep, i / 12 + 1);
		assert_int_equal(j->point, point);
		assert_int_equal(j->variant, i % 3);	/* A B C A B C */
		assert_string_equal(json_string_value(json_object_get(j->spec, "variant")),
				    variants[i % 3]);
		assert_int_equal(json_integer_value(json_object_get(j->spec, "rep")), j->rep);
		assert_int_equal(json_object_size(j->point_values), 2);
		assert_string_equal(json_string_value(json_object_get(j->point_values,
							"traffic.packet.size")), size);
		assert_string_equal(json_string_value(json_object_get(j->point_values,
							"traffic.packet.proto")), proto);
		assert_true(json_equal(json_object_get(j->spec, "point"), j->point_values));
		assert_int_equal(json_integer_value(json_object_get(packet, "size")), atoi(size));
		assert_string_equal(json_string_value(json_object_get(packet, "proto")), proto);
		assert_string_equal(json_string_value(json_object_get(
			json_array_get(json_object_get(j->spec, "attach"), 0), "program")),
			i % 3 == 0 ? "p1" : i % 3 == 1 ? "p2" : "p3");
	}
	/* The plan is as it was after the expansion. */
	assert_int_equal(p->traffic.size, 64);
	assert_int_equal(p->traffic.proto, JOB_PROTO_UDP4);
	plan_jobs_free(jobs, n);
	jobs = NULL;
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);	/* and again */
	assert_int_equal(n, 24);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	plan_jobs_free(NULL, 0);
}

static void test_plan_expand_spec(void **state)
{
	struct plan_job *jobs = NULL;
	struct err err;
	struct plan *p;
	json_t *want;
	char *text;
	int n = 0;

	(void)state;
	p = parse_ok("name: spec\nports: [a, b]\n"
		     "traffic: {generator: udp, from: a, packet: {size: 128, proto: udp6, flows: 4},\n"
		     "          threads: 2, duration: 2s, warmup: 500ms}\n"
		     "variants:\n"
		     "  both:\n"
		     "    - {port: b, mode: generic, object: xdp_basic.bpf.o, program: xdp_tx}\n"
		     "    - {port: b, hook: tc-egress, object: sub/tc.bpf.o, program: cls}\n"
		     "metrics: [port.rx_pps, prog.ns_per_run]\n");
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, 1);
	want = json_loads("{\"plan\": \"spec\", \"variant\": \"both\", \"rep\": 1, \"point\": {},"
			  " \"ports\": [\"a\", \"b\"],"
			  " \"traffic\": {\"generator\": \"udp\", \"from\": \"a\","
			  "   \"packet\": {\"size\": 128, \"proto\": \"udp6\", \"flows\": 4},"
			  "   \"threads\": 2, \"duration_ms\": 2000, \"warmup_ms\": 500},"
			  " \"attach\": [{\"port\": \"b\", \"hook\": \"xdp\", \"mode\": \"generic\","
			  "   \"object\": \"xdp_basic.bpf.o\", \"program\": \"xdp_tx\"},"
			  "  {\"port\": \"b\", \"hook\": \"tc-egress\", \"tc_mode\": \"auto\","
			  "   \"object\": \"sub/tc.bpf.o\", \"program\": \"cls\"}],"
			  " \"metrics\": [\"port.rx_pps\", \"prog.ns_per_run\"]}", 0, NULL);
	assert_non_null(want);
	text = json_dumps(jobs[0].spec, JSON_SORT_KEYS);
	if (!json_equal(want, jobs[0].spec))
		fail_msg("spec differs: %s", text);
	free(text);
	assert_int_equal(json_object_size(jobs[0].point_values), 0);
	json_decref(want);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);

	/* mode auto: in the spec as written, decoded by the agent's decoder */
	p = parse_ok("name: auto\nports: [a, b]\ntraffic: {from: a, duration: 1s}\n"
		     "variants: {v: [{port: b, mode: auto, object: o, program: p}]}\n");
	assert_int_equal(p->variants[0].attach[0].mode, JOB_XDP_AUTO);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
			    jobs[0].spec, "attach"), 0), "mode")), "auto");
	{
		struct job_spec s;
		struct err e;

		assert_int_equal(jobspec_decode(jobs[0].spec, "spec", &s, &e), 0);
		assert_int_equal(s.attach[0].mode, JOB_XDP_AUTO);
		jobspec_release(&s);
	}
	plan_jobs_free(jobs, n);
	plan_destroy(&p);

	/* generator none: no "from" */
	p = parse_ok("name: n\nports: [a]\ntraffic: {generator: none, duration: 1s}\n"
		     "variants: {v: [{port: a, object: o, program: p}]}\n");
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_null(json_object_get(json_object_get(jobs[0].spec, "traffic"), "from"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(jobs[0].spec,
			    "traffic"), "generator")), "none");
	assert_null(json_object_get(jobs[0].spec, "sha256"));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
}

/* tc_mode: auto (the default), tcx or clsact on tc hooks; every tc entry of the spec
 * says which, XDP entries have none; an override can set it like any other key. */
static const char tc_plan[] =
	"name: tc\n"
	"ports: [a, b]\n"
	"traffic: {generator: udp, from: a, duration: 1s}\n"
	"variants:\n"
	"  tcx: [{port: b, hook: tc-ingress, tc_mode: tcx, object: tc_stats.bpf.o, program: cnt}]\n"
	"  clsact:\n"
	"    - {port: b, hook: tc-ingress, tc_mode: clsact, object: tc_stats.bpf.o, program: cnt}\n"
	"    - {port: a, hook: tc-egress, tc_mode: auto, object: tc_stats.bpf.o, program: cnt}\n"
	"  auto:\n"
	"    - {port: b, hook: tc-egress, object: tc_stats.bpf.o, program: cnt}\n"
	"    - {port: a, object: xdp_basic.bpf.o, program: xdp_pass}\n";

/* The tc_mode of attach entry I of JOB's spec, or NULL. */
static const char *spec_tc_mode(const struct plan_job *job, size_t i)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(job->spec,
							"attach"), i), "tc_mode"));
}

static void test_plan_tc_mode(void **state)
{
	static const char *const to_clsact[] = {
		"variants.tcx=[{port: b, hook: tc-ingress, tc_mode: clsact, object: o, program: p}]",
	};
	static const char *const new_variant[] = {
		"variants.x=[{port: a, hook: tc-egress, tc_mode: tcx, object: o, program: p}]",
	};
	struct plan_job *jobs = NULL;
	struct err err;
	struct plan *p;
	int n = 0;

	(void)state;
	p = parse_ok(tc_plan);
	assert_int_equal(p->n_variants, 3);
	assert_int_equal(p->variants[0].attach[0].tc_mode, JOB_TC_TCX);
	assert_int_equal(p->variants[1].attach[0].tc_mode, JOB_TC_CLSACT);
	assert_int_equal(p->variants[1].attach[1].tc_mode, JOB_TC_AUTO);
	assert_int_equal(p->variants[2].attach[0].tc_mode, JOB_TC_AUTO);	/* default */
	assert_int_equal(p->variants[2].attach[1].hook, JOB_HOOK_XDP);

	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(spec_tc_mode(&jobs[0], 0), "tcx");
	assert_string_equal(spec_tc_mode(&jobs[1], 0), "clsact");
	assert_string_equal(spec_tc_mode(&jobs[1], 1), "auto");
	assert_string_equal(spec_tc_mode(&jobs[2], 0), "auto");
	assert_null(spec_tc_mode(&jobs[2], 1));			/* xdp: no tc_mode */
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(jobs[2].spec, "attach"), 1), "mode")), "native");
	plan_jobs_free(jobs, n);
	jobs = NULL;
	plan_destroy(&p);

	/* Overrides: replace a variant, add one. */
	p = parse_ov(tc_plan, to_clsact, 1, &err);
	if (!p)
		fail_msg("%s", err.msg);
	assert_int_equal(p->variants[0].attach[0].tc_mode, JOB_TC_CLSACT);
	plan_destroy(&p);
	p = parse_ov(tc_plan, new_variant, 1, &err);
	if (!p)
		fail_msg("%s", err.msg);
	assert_int_equal(p->n_variants, 4);
	assert_int_equal(p->variants[3].attach[0].tc_mode, JOB_TC_TCX);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_string_equal(spec_tc_mode(&jobs[3], 0), "tcx");
	plan_jobs_free(jobs, n);
	plan_destroy(&p);

	assert_string_equal(jobspec_tc_mode_name(JOB_TC_AUTO), "auto");
	assert_string_equal(jobspec_tc_mode_name(JOB_TC_TCX), "tcx");
	assert_string_equal(jobspec_tc_mode_name(JOB_TC_CLSACT), "clsact");
	assert_string_equal(jobspec_tc_mode_name((enum job_tc_mode)7), "?");
}

/* The limit itself is accepted and expands; it takes well under a second. */
static void test_plan_expand_limit(void **state)
{
	static const char text[] = BASE "repeat: 1000\nmatrix:\n"
		"  traffic.threads: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
		"  traffic.packet.flows: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
	struct plan_job *jobs = NULL;
	struct err err;
	struct plan *p = parse_ok(text);
	int n = 0;

	(void)state;
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, PLAN_MAX_JOBS);
	assert_int_equal(jobs[n - 1].rep, 1000);
	assert_int_equal(jobs[n - 1].point, 99);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(jobs[n - 1].spec,
			 "traffic"), "threads")), 10);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
}

static void test_plan_names(void **state)
{
	(void)state;
	assert_string_equal(jobspec_hook_name(JOB_HOOK_XDP), "xdp");
	assert_string_equal(jobspec_hook_name(JOB_HOOK_TC_INGRESS), "tc-ingress");
	assert_string_equal(jobspec_hook_name(JOB_HOOK_TC_EGRESS), "tc-egress");
	assert_string_equal(jobspec_xdp_mode_name(JOB_XDP_NATIVE), "native");
	assert_string_equal(jobspec_xdp_mode_name(JOB_XDP_GENERIC), "generic");
	assert_string_equal(jobspec_xdp_mode_name(JOB_XDP_OFFLOAD), "offload");
	assert_string_equal(jobspec_xdp_mode_name(JOB_XDP_AUTO), "auto");
	assert_string_equal(jobspec_generator_name(JOB_GEN_XDP_LIVE), "xdp-live");
	assert_string_equal(jobspec_generator_name(JOB_GEN_UDP), "udp");
	assert_string_equal(jobspec_generator_name(JOB_GEN_PKTGEN), "pktgen");
	assert_string_equal(jobspec_generator_name(JOB_GEN_NONE), "none");
	assert_string_equal(jobspec_proto_name(JOB_PROTO_UDP4), "udp4");
	assert_string_equal(jobspec_proto_name(JOB_PROTO_UDP6), "udp6");
	assert_true(plan_metric_known("port.rx_pps"));
	assert_true(plan_metric_known("cpu.busy"));
	assert_true(plan_metric_known("prog.run_pps"));
	assert_true(plan_metric_known("counter.pps"));
	assert_true(plan_metric_known("cpu.softirq"));
	assert_true(plan_metric_known("rx.ns_per_frame"));
	assert_true(plan_metric_known("rx.softirq_ns_per_frame"));
	assert_false(plan_metric_known("rx.frames"));	/* a record, not a metric */
	assert_false(plan_metric_known("port.rx_bps"));
	assert_false(plan_metric_known(NULL));
	/* driver counters (agent/ethstats.h names) */
	assert_true(plan_metric_known("nic.rx_queue_0_xdp_drops"));
	assert_true(plan_metric_known("nic.rx-0.packets"));
	assert_true(plan_metric_known("nic.ucast_pkts_rx#1"));
	assert_true(plan_metric_known("nic.a23456789012345678901234567890123456789012345#7"));
	assert_false(plan_metric_known("nic.a234567890123456789012345678901234567890123456#7"));
	assert_false(plan_metric_known("nic."));
	assert_false(plan_metric_known("nic.*"));
	assert_false(plan_metric_known("nic.ucast pkts rx"));
	assert_false(plan_metric_known("nic.#1"));
	assert_false(plan_metric_known("nic.x#"));
	assert_false(plan_metric_known("nic.x#1a"));
	assert_false(plan_metric_known("nics.x"));
}

/* The experiments' syntax: maps filled from the plan, counters, traffic.cpus and .to. */
static const char fill_plan[] =
	"name: redirect\n"
	"ports: [a, b]\n"
	"traffic: {from: a, to: b, cpus: [0, 1], duration: 1s}\n"
	"variants:\n"
	"  native-2nd:\n"
	"    - port: a\n"
	"      object: xdp_redirect.bpf.o\n"
	"      program: xdp_redirect_map\n"
	"      maps:\n"
	"        tx_port:\n"
	"          - {key: 0, port: b}\n"
	"          - {key: 1, port: b, program: xdp_2nd}\n"
	"        cpu_map:\n"
	"          - {key: 1, qsize: 2048}\n"
	"        config:\n"
	"          - {key: 0, value: -5}\n"
	"      counters:\n"
	"        - {map: stats, keys: {0: rx_src, 1: cpumap_drop, 2: rx_dst}}\n";

static void test_plan_maps_counters(void **state)
{
	struct plan_job *jobs = NULL;
	const struct plan_attach *a;
	struct err err;
	struct plan *p;
	json_t *want;
	char *text;
	int n = 0;

	(void)state;
	p = parse_ok(fill_plan);
	assert_int_equal(p->traffic.n_cpus, 2);
	assert_int_equal(p->traffic.cpus[1], 1);
	assert_string_equal(p->traffic.to, "b");
	a = &p->variants[0].attach[0];
	assert_int_equal(a->n_fills, 4);
	assert_string_equal(a->fills[0].map, "tx_port");
	assert_string_equal(a->fills[0].port, "b");
	assert_null(a->fills[0].program);
	assert_string_equal(a->fills[1].program, "xdp_2nd");
	assert_int_equal(a->fills[1].program_line, 12);
	assert_int_equal(a->fills[1].program_col, 40);
	assert_int_equal(a->fills[2].key, 1);
	assert_int_equal(a->fills[2].qsize, 2048);
	assert_true(a->fills[3].has_value);
	assert_int_equal(a->fills[3].value, -5);
	assert_int_equal(a->n_counters, 3);
	assert_string_equal(a->counters[2].name, "rx_dst");
	assert_int_equal(a->counters[2].key, 2);
	assert_string_equal(a->counters[2].map, "stats");
	/* counters put counter.pps into the default metrics */
	assert_int_equal(p->n_metrics, 7);
	assert_string_equal(p->metrics[6], "counter.pps");

	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	want = json_loads("{\"port\": \"a\", \"hook\": \"xdp\", \"mode\": \"native\","
			  " \"object\": \"xdp_redirect.bpf.o\", \"program\": \"xdp_redirect_map\","
			  " \"maps\": {\"tx_port\": [{\"key\": 0, \"port\": \"b\"},"
			  "                        {\"key\": 1, \"port\": \"b\", \"program\": \"xdp_2nd\"}],"
			  "            \"cpu_map\": [{\"key\": 1, \"qsize\": 2048}],"
			  "            \"config\": [{\"key\": 0, \"value\": -5}]},"
			  " \"counters\": [{\"map\": \"stats\", \"keys\": {\"0\": \"rx_src\","
			  "   \"1\": \"cpumap_drop\", \"2\": \"rx_dst\"}}]}", 0, NULL);
	assert_non_null(want);
	text = json_dumps(json_array_get(json_object_get(jobs[0].spec, "attach"), 0),
			  JSON_SORT_KEYS);
	if (!json_equal(want, json_array_get(json_object_get(jobs[0].spec, "attach"), 0)))
		fail_msg("attach entry differs: %s", text);
	free(text);
	json_decref(want);
	want = json_loads("[0, 1]", 0, NULL);
	assert_true(json_equal(want, json_object_get(json_object_get(jobs[0].spec, "traffic"),
						     "cpus")));
	json_decref(want);
	assert_string_equal(json_string_value(json_object_get(json_object_get(jobs[0].spec,
			    "traffic"), "to")), "b");
	plan_jobs_free(jobs, n);
	plan_destroy(&p);

	/* one CPU as a scalar, as a matrix would give it */
	p = parse_ok("name: x\nports: [a, b]\ntraffic: {from: a, cpus: 1, duration: 1s}\n" V);
	assert_int_equal(p->traffic.n_cpus, 1);
	assert_int_equal(p->traffic.cpus[0], 1);
	assert_null(p->traffic.to);
	plan_destroy(&p);
	p = parse_ok("name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\n"
		     "variants: {v: [{port: a, object: o, program: p}]}\n"
		     "matrix: {traffic.cpus: [0, 1]}\n");
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, 2);
	want = json_loads("[1]", 0, NULL);
	assert_true(json_equal(want, json_object_get(json_object_get(jobs[1].spec, "traffic"),
						     "cpus")));
	json_decref(want);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
}

#define FILL_HEAD "name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n  v:\n" \
		  "    - port: a\n      object: o\n      program: p\n"

static const struct bad_plan bad_fills[] = {
	{ FILL_HEAD "      maps: {tx: [{key: 0, prot: b}]}\n",
	  FILE_NAME ":9:28: variant 'v': unknown key 'prot' in a map slot (expected one of: key, port, program, qsize, value)" },
	{ FILL_HEAD "      maps: {tx: [{key: 0, port: c}]}\n",
	  FILE_NAME ":9:34: variant 'v': maps.tx: port 'c' is not one of the plan's ports (a, b)" },
	{ FILL_HEAD "      maps: {cpu_map: [{key: 1, qsize: 0}]}\n",
	  FILE_NAME ":9:40: variant 'v': maps.cpu_map.qsize: expected an integer from 1 to 16384, got '0'" },
	{ FILL_HEAD "      maps: {cpu_map: [{key: 1, qsize: 16385}]}\n",
	  FILE_NAME ":9:40: variant 'v': maps.cpu_map.qsize: expected an integer from 1 to 16384, got '16385'" },
	{ FILL_HEAD "      maps: {tx: [{key: -1, port: b}]}\n",
	  FILE_NAME ":9:25: variant 'v': maps.tx.key: expected an integer from 0 to 9223372036854775807, got '-1'" },
	{ FILL_HEAD "      maps: {tx: [{port: b}]}\n",
	  FILE_NAME ":9:19: variant 'v': missing required key 'key' in a map slot" },
	{ FILL_HEAD "      maps: {tx: [{key: 0}]}\n",
	  FILE_NAME ":9:19: variant 'v': maps.tx: a slot needs one of port (devmap), qsize (cpumap) or value (array, hash)" },
	{ FILL_HEAD "      maps: {tx: [{key: 0, port: b, value: 3}]}\n",
	  FILE_NAME ":9:44: variant 'v': maps.tx: port, qsize and value exclude each other" },
	{ FILL_HEAD "      maps: {cfg: [{key: 0, value: 3, program: q}]}\n",
	  FILE_NAME ":9:48: variant 'v': maps.cfg: program goes with port (devmap) or qsize (cpumap), not value" },
	{ FILL_HEAD "      maps: {tx: [{key: 0, port: b}, {key: 0, port: a}]}\n",
	  FILE_NAME ":9:38: variant 'v': maps.tx: duplicate key 0 (first at 9:19)" },
	{ FILL_HEAD "      maps: {tx: []}\n",
	  FILE_NAME ":9:18: variant 'v': maps.tx: expected a non-empty list of slots, got an empty list" },
	{ FILL_HEAD "      maps: {1tx: [{key: 0, port: b}]}\n",
	  FILE_NAME ":9:14: variant 'v': maps: expected a map name, got '1tx'" },
	{ FILL_HEAD "      counters: [{map: stats, keys: {rx: a}}]\n",
	  FILE_NAME ":9:38: variant 'v': counters.stats.keys: keys must be integers from 0 to 4294967295 (slots of the map), got 'rx'" },
	{ FILL_HEAD "      counters: [{map: stats, keys: {0: a b}}]\n",
	  FILE_NAME ":9:41: variant 'v': counters.stats.keys: expected a counter name of letters, digits, '.', '_' and '-', got 'a b'" },
	{ FILL_HEAD "      counters: [{map: stats, keys: {0: rx, 1: rx}}]\n",
	  FILE_NAME ":9:48: variant 'v': counters: duplicate counter name 'rx' (first at 9:38)" },
	{ FILL_HEAD "      counters: [{map: stats, keys: {}}]\n",
	  FILE_NAME ":9:37: variant 'v': counters.stats.keys: expected 1 to 64 keys, got 0" },
	{ FILL_HEAD "      counters: [{map: stats}]\n",
	  FILE_NAME ":9:18: variant 'v': missing required key 'keys' in a counters entry" },
	{ FILL_HEAD "      counters: [{map: s, keys: {0: x}}, {map: s, keys: {1: y}}]\n",
	  FILE_NAME ":9:48: variant 'v': counters: map 's' is listed twice (first at 9:24)" },
	{ FILL_HEAD "      counters: [{map: s, keys: {0: x}}]\n"
	  "    - {port: b, object: o, program: p, counters: [{map: s, keys: {0: x}}]}\n",
	  FILE_NAME ":10:70: variant 'v': counters: duplicate counter name 'x' (first at 9:34)" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, to: c, duration: 1s}\n" V,
	  FILE_NAME ":3:24: traffic.to 'c' is not one of the plan's ports (a, b)" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, to: a, duration: 1s}\n" V,
	  FILE_NAME ":3:24: traffic.to: the destination must differ from traffic.from 'a'" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, cpus: [0, x], duration: 1s}\n" V,
	  FILE_NAME ":3:30: traffic.cpus: expected an integer from 0 to 4095, got 'x'" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, cpus: [1, 1], duration: 1s}\n" V,
	  FILE_NAME ":3:30: traffic.cpus: duplicate CPU 1 (first at 3:27)" },
	{ "name: x\nports: [a, b]\ntraffic: {from: a, cpus: [], duration: 1s}\n" V,
	  FILE_NAME ":3:26: traffic.cpus: expected a non-empty list of CPU numbers, got an empty list" },
};

static void test_plan_bad_maps_counters(void **state)
{
	expect_errors(bad_fills, ARRAY_LEN(bad_fills));
}

/* repeat as a map: min defaults to 5, until to 2 %, on to the metrics; the spec carries
 * the policy for the coordinator; a plain count is min = max. min_effect and
 * share_machine. */
static void test_plan_repeat_adaptive(void **state)
{
	struct plan *p = parse_ok(BASE "repeat: {max: 20, until: 1.5%, on: [prog.ns_per_run]}\n"
				  "min_effect: 3%\nshare_machine: true\n");
	struct plan_job *jobs = NULL;
	const json_t *r;
	struct err err;
	int n = 0;

	assert_int_equal(p->repeat, 5);
	assert_int_equal(p->repeat_max, 20);
	assert_float_equal(p->repeat_until, 0.015, 1e-12);
	assert_int_equal(p->n_repeat_on, 1);
	assert_string_equal(p->repeat_on[0], "prog.ns_per_run");
	assert_float_equal(p->min_effect, 0.03, 1e-12);
	assert_true(p->share_machine);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, 5);
	r = json_object_get(jobs[0].spec, "repeat");
	assert_int_equal(json_integer_value(json_object_get(r, "min")), 5);
	assert_int_equal(json_integer_value(json_object_get(r, "max")), 20);
	assert_float_equal(json_number_value(json_object_get(r, "until")), 0.015, 1e-12);
	assert_string_equal(json_string_value(json_array_get(json_object_get(r, "on"), 0)),
			    "prog.ns_per_run");
	assert_true(json_is_true(json_object_get(jobs[0].spec, "share_machine")));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);

	p = parse_ok(BASE "repeat: {min: 2, max: 2}\n");
	assert_int_equal(p->repeat, 2);
	assert_float_equal(p->repeat_until, 0.02, 1e-12);
	assert_int_equal(p->n_repeat_on, 0);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	/* on defaults to the plan's metrics */
	assert_true(json_array_size(json_object_get(json_object_get(jobs[0].spec, "repeat"),
						    "on")) > 0);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);

	p = parse_ok(BASE "repeat: 4\n");
	assert_int_equal(p->repeat, 4);
	assert_int_equal(p->repeat_max, 4);
	assert_true(p->repeat_until == 0);
	assert_float_equal(p->min_effect, 0.02, 1e-12);
	assert_false(p->share_machine);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_null(json_object_get(jobs[0].spec, "repeat"));
	assert_null(json_object_get(jobs[0].spec, "share_machine"));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_repeat_adaptive),
		cmocka_unit_test(test_plan_full),
		cmocka_unit_test(test_plan_defaults),
		cmocka_unit_test(test_plan_values),
		cmocka_unit_test(test_plan_load),
		cmocka_unit_test(test_plan_load_not_regular),
		cmocka_unit_test(test_plan_parse_not_text),
		cmocka_unit_test(test_plan_name_valid),
		cmocka_unit_test(test_plan_bad_yaml),
		cmocka_unit_test(test_plan_rate),
		cmocka_unit_test(test_plan_rate_check),
		cmocka_unit_test(test_plan_bad_format),
		cmocka_unit_test(test_plan_bad_matrix),
		cmocka_unit_test(test_plan_overrides),
		cmocka_unit_test(test_plan_override_parse),
		cmocka_unit_test(test_plan_expand_matrix),
		cmocka_unit_test(test_plan_expand_spec),
		cmocka_unit_test(test_plan_tc_mode),
		cmocka_unit_test(test_plan_expand_limit),
		cmocka_unit_test(test_plan_names),
		cmocka_unit_test(test_plan_maps_counters),
		cmocka_unit_test(test_plan_bad_maps_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
