// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_plan.c - the plan model: parsing, defaults and values, plan_load and what it
 * refuses to read, names, YAML that is not a plan, and repeat.until (the adaptive
 * repetitions). Refused plans of every other class are in test_plan_format.c and
 * test_plan_maps.c, overrides and job expansion in test_plan_expand.c; the fixture they
 * share: plan_fixture.h.
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
#include "plan_fixture.h"

static void test_plan_full(void **state)
{
	struct plan *p = plan_fix_parse_ok(plan_fix_full);
	const struct plan_attach *a;
	char sha[SHA256_HEX_LEN];

	(void)state;
	assert_string_equal(p->file, FILE_NAME);
	assert_int_equal(p->text_len, strlen(plan_fix_full));
	assert_string_equal(p->text, plan_fix_full);
	util_sha256_hex(plan_fix_full, strlen(plan_fix_full), sha);
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
	struct plan *p = plan_fix_parse_ok(BASE);
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
	p = plan_fix_parse_ok("name: v.1_x-y\n"
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
	p = plan_fix_parse_ok(BASE "description:\nhosts:\nmatrix: ~\nrepeat: null\nmetrics:\n");
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

static const struct plan_fix_bad bad_yaml[] = {
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
	plan_fix_errors(bad_yaml, ARRAY_LEN(bad_yaml));

	/* 32 levels are fine (for the YAML layer), 33 are not. */
	deep = calloc(1, 200);
	assert_non_null(deep);
	strcpy(deep, "a: ");
	for (i = 0; i < 31; i++)
		strcat(deep, "[");
	for (i = 0; i < 31; i++)
		strcat(deep, "]");
	strcat(deep, "\n");
	plan_fix_error(deep, FILE_NAME ":1:1: unknown key 'a' in the plan (expected one of: name, description, hosts, ports, traffic, variants, matrix, repeat, metrics, link, min_effect, share_machine, verifier, search, latency)");
	memmove(deep + 4, deep + 3, strlen(deep + 3) + 1);
	deep[3] = '[';
	strcpy(deep + strlen(deep) - 1, "]\n");
	plan_fix_error(deep, FILE_NAME ":1:35: nesting deeper than 32 levels is not supported");
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

/* repeat as a map: min defaults to 5, until to 2 %, on to the metrics; the spec carries
 * the policy for the coordinator; a plain count is min = max. min_effect and
 * share_machine. */
static void test_plan_repeat_adaptive(void **state)
{
	struct plan *p = plan_fix_parse_ok(BASE "repeat: {max: 20, until: 1.5%, "
					   "on: [prog.ns_per_run]}\n"
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

	p = plan_fix_parse_ok(BASE "repeat: {min: 2, max: 2}\n");
	assert_int_equal(p->repeat, 2);
	assert_float_equal(p->repeat_until, 0.02, 1e-12);
	assert_int_equal(p->n_repeat_on, 0);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	/* on defaults to the plan's metrics */
	assert_true(json_array_size(json_object_get(json_object_get(jobs[0].spec, "repeat"),
						    "on")) > 0);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);

	p = plan_fix_parse_ok(BASE "repeat: 4\n");
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
		cmocka_unit_test(test_plan_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
