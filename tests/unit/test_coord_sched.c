// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_coord_sched.c - which hosts a plan runs on (coordinator/sched.c): kernel versions
 * and labels matched, hosts counted and chosen by queued work, ports by role and driver,
 * and the XDP modes a port's driver has against the mode a variant asks, at submit
 * (through the coordinator, with its refusal) and at dispatch. The fixture:
 * coord_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "coord.h"
#include "sched.h"
#include "proto/proto.h"
#include "helpers.h"
#include "coord_fixture.h"

static void test_coordinator_sched(void **state)
{
	struct plan_match match[2] = { { .key = "port.driver", .value = "veth" },
				       { .key = "rack", .value = "r3" } };
	char *ports[] = { "a", "b" };
	struct plan plan = { .match = match, .n_match = 2, .ports = ports, .n_ports = 2 };
	struct sched_host hosts[3] = { 0 };
	json_t *inv[3];
	struct err err;
	bool ok;
	int i;

	assert_true(sched_version_cmp("6.1.0-18-amd64", "6.1", 0, &ok) == 0 && ok);
	assert_true(sched_version_cmp("6.12.3", "6.2", 0, &ok) > 0);
	assert_true(sched_version_cmp("5.10", "6.1", 0, &ok) < 0);
	sched_version_cmp("rc1", "6.1", 0, &ok);
	assert_false(ok);
	assert_true(sched_value_matches("6.18.44", ">=6.1"));
	assert_true(sched_value_matches("6.1.158", ">=6.1"));
	assert_false(sched_value_matches("6.1.158", "<6.1"));
	assert_true(sched_value_matches("6.11.2", "<6.12"));
	assert_false(sched_value_matches("6.12.0-rc3", "<6.12"));
	assert_true(sched_value_matches("6.1.158", "=6.1"));
	assert_false(sched_value_matches("6.12.1", "=6.1"));
	assert_true(sched_value_matches("6.12.1", "!=6.1"));
	assert_true(sched_value_matches("veth", "veth"));
	assert_false(sched_value_matches("veth2", "veth"));
	assert_false(sched_value_matches("unknown", ">=6.1"));

	for (i = 0; i < 3; i++) {
		inv[i] = tctx_inventory(i == 1 ? "ixgbe" : "veth");
		hosts[i].id = i + 1;
		hosts[i].name = (const char *[]){ "h3", "h2", "h1" }[i];
		hosts[i].inventory = inv[i];
		hosts[i].pending = i == 0 ? 5 : 0;
	}
	assert_true(sched_host_matches(&plan, inv[0], NULL));
	assert_false(sched_host_matches(&plan, inv[1], &err));
	assert_string_equal(err.msg, "no port of roles a, b with driver 'veth'");
	/* count all: both veth hosts */
	assert_int_equal(sched_choose(&plan, hosts, 3, &err), 2);
	assert_true(hosts[0].chosen && !hosts[1].chosen && hosts[2].chosen);
	/* count 1: the one with less queued work */
	plan.host_count = 1;
	assert_int_equal(sched_choose(&plan, hosts, 3, &err), 1);
	assert_true(!hosts[0].chosen && hosts[2].chosen);
	plan.host_count = 3;
	assert_int_equal(sched_choose(&plan, hosts, 3, &err), -ERANGE);
	assert_non_null(strstr(err.msg, "the plan wants 3 hosts but 2 match"));
	/* a label, a key that is not there, a role that is missing */
	match[1].value = "r4";
	plan.host_count = 0;
	assert_int_equal(sched_choose(&plan, hosts, 3, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "'h3': rack is 'r3', not 'r4'"));
	match[1].key = "cpu.model";
	assert_false(sched_host_matches(&plan, inv[0], &err));
	assert_string_equal(err.msg, "no 'cpu.model' in its inventory");
	match[1].key = "kernel.release";
	match[1].value = ">=6.18";
	ports[1] = "c";
	assert_false(sched_host_matches(&plan, inv[0], &err));
	assert_string_equal(err.msg, "no port for role 'c'");
	for (i = 0; i < 3; i++)
		json_decref(inv[i]);

	/* a NIC guest: a, b on vmxnet3, e, f a veth pair. port.* asks the plan's ports */
	inv[0] = tctx_inventory("vmxnet3");
	json_array_append_new(json_object_get(inv[0], "ports"),
			      json_pack("{s:s, s:s, s:s}", "role", "e", "name", "port-e", "driver", "veth"));
	json_array_append_new(json_object_get(inv[0], "ports"),
			      json_pack("{s:s, s:s, s:s}", "role", "f", "name", "port-f", "driver", "veth"));
	plan.n_match = 1;
	ports[1] = "b";
	assert_false(sched_host_matches(&plan, inv[0], &err));
	assert_string_equal(err.msg, "no port of roles a, b with driver 'veth'");
	match[0].value = "vmxnet3";
	assert_true(sched_host_matches(&plan, inv[0], NULL));
	ports[1] = "f";		/* a plan whose ports are a and f: either driver will do */
	assert_true(sched_host_matches(&plan, inv[0], NULL));
	match[0].value = "veth";
	assert_true(sched_host_matches(&plan, inv[0], NULL));
	json_decref(inv[0]);
}

/* An inventory of host NAME whose port b ("port-b", DRIVER) has XDP MODES (a JSON
 * array), or no "xdp" at all (MODES NULL: an agent before it). */
static json_t *xdp_inventory(const char *driver, const char *modes)
{
	json_t *inv = tctx_inventory("veth");
	json_t *b = json_array_get(json_object_get(inv, "ports"), 1);

	json_object_set_new(b, "name", json_string("port-b"));
	json_object_set_new(b, "driver", json_string(driver));
	if (modes)
		json_object_set_new(b, "xdp", json_pack("{s:o, s:s}", "modes", json_of(modes),
							"source", "netlink"));
	return inv;
}

/* A port whose driver has generic XDP only: a plan asking native there does not match
 * (the reason names host, port, interface, driver, modes and variant); generic and auto
 * do, as does an inventory without "xdp" or with modes unknown; offload needs the mode
 * listed. The same for a job spec at dispatch. */
static void test_coordinator_sched_xdp(void **state)
{
	char *ports[] = { "a", "b" };
	struct plan_attach drop[] = { { .port = "b", .hook = JOB_HOOK_XDP,
					.mode = JOB_XDP_NATIVE } };
	struct plan_attach cnt[] = { { .port = "b", .hook = JOB_HOOK_TC_INGRESS } };
	struct plan_variant variants[] = { { .name = "cnt", .attach = cnt, .n_attach = 1 },
					   { .name = "drop", .attach = drop, .n_attach = 1 } };
	struct plan plan = { .ports = ports, .n_ports = 2, .variants = variants,
			     .n_variants = 2 };
	struct sched_host hosts[2] = { 0 };
	json_t *g3 = xdp_inventory("e1000e", "[\"generic\"]");
	json_t *v1 = xdp_inventory("virtio_net", "[\"native\", \"generic\"]");
	json_t *old = xdp_inventory("e1000e", NULL);
	json_t *unknown = xdp_inventory("e1000e", NULL);
	struct job_attach ja = { .port = "b", .hook = JOB_HOOK_XDP, .mode = JOB_XDP_NATIVE };
	const char *sports[] = { "a", "b" };
	struct job_spec spec = { .variant = "drop", .ports = sports, .n_ports = 2,
				 .attach = &ja, .n_attach = 1 };
	char asked[256];
	struct err err;
	const char *want = "port 'b' (port-b, e1000e) has XDP modes generic; the plan asks "
			   "native (variant 'drop')";

	json_object_set_new(json_array_get(json_object_get(unknown, "ports"), 1), "xdp",
			    json_pack("{s:s, s:s}", "source", "unknown", "reason", "not probed"));
	assert_false(sched_xdp_mode_fits(g3, "b", JOB_XDP_NATIVE, "drop", &err));
	assert_string_equal(err.msg, want);
	assert_true(sched_xdp_mode_fits(g3, "b", JOB_XDP_GENERIC, "drop", &err));
	assert_true(sched_xdp_mode_fits(g3, "b", JOB_XDP_AUTO, "drop", &err));
	assert_true(sched_xdp_mode_fits(v1, "b", JOB_XDP_NATIVE, "drop", &err));
	assert_true(sched_xdp_mode_fits(old, "b", JOB_XDP_NATIVE, "drop", &err));
	assert_true(sched_xdp_mode_fits(unknown, "b", JOB_XDP_NATIVE, "drop", &err));
	assert_true(sched_xdp_mode_fits(g3, "c", JOB_XDP_NATIVE, "drop", &err));
	assert_false(sched_xdp_mode_fits(v1, "b", JOB_XDP_OFFLOAD, "x", &err));
	assert_string_equal(err.msg, "port 'b' (port-b, virtio_net) has XDP modes native, generic; "
			    "the plan asks offload (variant 'x')");

	/* the plan: the tc variant is no matter, the xdp one refuses g3 */
	assert_false(sched_host_matches(&plan, g3, &err));
	assert_string_equal(err.msg, want);
	assert_false(sched_host_has_ports(&plan, g3, &err));	/* --hosts */
	assert_true(sched_host_matches(&plan, v1, NULL));
	assert_true(sched_host_matches(&plan, old, NULL));
	hosts[0] = (struct sched_host){ .id = 1, .name = "g3", .inventory = g3 };
	assert_int_equal(sched_choose(&plan, hosts, 1, &err), -ENOENT);
	assert_string_equal(err.msg, "no host matches the plan (hosts.match (any); ports a, b; "
			    "1 host connected; 'g3': port 'b' (port-b, e1000e) has XDP modes "
			    "generic; the plan asks native (variant 'drop'))");
	hosts[1] = (struct sched_host){ .id = 2, .name = "v1", .inventory = v1 };
	assert_int_equal(sched_choose(&plan, hosts, 2, &err), 1);
	assert_true(!hosts[0].chosen && hosts[1].chosen);
	/* mode auto matches both */
	drop[0].mode = JOB_XDP_AUTO;
	assert_int_equal(sched_choose(&plan, hosts, 2, &err), 2);
	drop[0].mode = JOB_XDP_GENERIC;
	assert_true(sched_host_matches(&plan, g3, NULL));

	/* at dispatch */
	assert_false(sched_jobspec_fits(&spec, g3, &err, asked, sizeof(asked)));
	assert_string_equal(err.msg, want);
	assert_true(sched_jobspec_fits(&spec, v1, &err, NULL, 0));
	ja.mode = JOB_XDP_AUTO;
	assert_true(sched_jobspec_fits(&spec, g3, &err, NULL, 0));
	json_decref(g3);
	json_decref(v1);
	json_decref(old);
	json_decref(unknown);
}

/* run submit through the coordinator: a plan asking native on a host whose port b has
 * generic XDP only is refused with the reason; --hosts names it; mode auto is accepted. */
static void test_coordinator_submit_xdp(void **state)
{
	struct tctx *t = *state;
	json_t *m = proto_msg_new("hello"), *r;
	char *text = strdup(tctx_plan_text), *p;

	json_object_set_new(m, "agent", json_string("g3"));
	json_object_set_new(m, "version", json_string("0.1"));
	json_object_set_new(m, "inventory", xdp_inventory("veth", "[\"generic\"]"));
	r = coord_ask(t->fx.c, t->agent, m, "welcome");
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "error");
	assert_non_null(strstr(jget_str(r, "message", ""),
			       "1 host connected; 'g3': port 'b' (port-b, veth) has XDP modes "
			       "generic; the plan asks native (variant 'drop'))"));
	json_decref(r);
	m = tctx_submit_msg(t, tctx_plan_text, NULL);
	json_object_set_new(m, "hosts", json_pack("[s]", "g3"));
	r = coord_ask(t->fx.c, t->client, m, "error");
	assert_string_equal(jget_str(r, "message", ""),
			    "host 'g3' cannot run plan 'coord-test': port 'b' (port-b, veth) has "
			    "XDP modes generic; the plan asks native (variant 'drop')");
	json_decref(r);
	while ((p = strstr(text, "mode: native")))
		memcpy(p, "mode: auto  ", 12);
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, text, NULL), "submitted");
	assert_int_equal(jget_int(r, "jobs", 0), 2);
	json_decref(r);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coordinator_sched),
		cmocka_unit_test(test_coordinator_sched_xdp),
		TCTX_TEST(test_coordinator_submit_xdp),
	};

	return cmocka_run_group_tests_name("coord_sched", tests, NULL, NULL);
}
