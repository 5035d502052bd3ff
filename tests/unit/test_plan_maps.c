// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_plan_maps.c - the experiments' syntax: maps filled from the plan (ports,
 * programs, cpumap entries, values), counters read from a map, traffic.cpus and
 * traffic.to; parsed into the variants and the job specs, and every way of getting them
 * wrong refused with its exact "file:line:column: message". The fixture:
 * plan_fixture.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "base/util.h"
#include "helpers.h"
#include "plan_fixture.h"

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
	p = plan_fix_parse_ok(fill_plan);
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
	p = plan_fix_parse_ok("name: x\nports: [a, b]\ntraffic: {from: a, cpus: 1, duration: 1s}\n" V);
	assert_int_equal(p->traffic.n_cpus, 1);
	assert_int_equal(p->traffic.cpus[0], 1);
	assert_null(p->traffic.to);
	plan_destroy(&p);
	p = plan_fix_parse_ok("name: x\nports: [a, b]\ntraffic: {from: a, duration: 1s}\n"
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

static const struct plan_fix_bad bad_fills[] = {
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
	plan_fix_errors(bad_fills, ARRAY_LEN(bad_fills));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_maps_counters),
		cmocka_unit_test(test_plan_bad_maps_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
