// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_probe.c - agent/probe.c's report when ports cannot take part: a port whose
 * interface does not exist is left out and the first such port is named in the
 * report's "error" (one message, whatever follows); the roles are still listed. No root
 * needed: no socket is opened for a missing interface.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>

#include "probe.h"
#include "proto/proto.h"

static void test_probe_missing_ports(void **state)
{
	struct inventory_pair ports[] = {
		{ .key = "a", .value = "bpflab-nx0" },
		{ .key = "b", .value = "bpflab-nx1" },
	};
	struct inventory_config inv = { .agent = "t", .ports = ports, .n_ports = 2 };
	json_t *msg = proto_msg_new("probe"), *report, *received;

	(void)state;
	assert_non_null(msg);
	json_object_set_new(msg, "probe", json_integer(7));
	json_object_set_new(msg, "listen_ms", json_integer(100));
	json_object_set_new(msg, "nonces", json_pack("{s:s, s:s}", "a", "n-a", "b", "n-b"));
	report = probe_run(&inv, msg);
	assert_non_null(report);
	assert_string_equal(proto_msg_type(report), "probe_report");
	assert_int_equal(json_integer_value(json_object_get(report, "probe")), 7);
	/* the first port's message, once */
	assert_string_equal(json_string_value(json_object_get(report, "error")),
			    "port 'a': no interface 'bpflab-nx0'");
	received = json_object_get(report, "received");
	assert_int_equal(json_array_size(json_object_get(received, "a")), 0);
	assert_int_equal(json_array_size(json_object_get(received, "b")), 0);
	json_decref(report);

	/* no ports: nothing to say */
	inv.n_ports = 0;
	report = probe_run(&inv, msg);
	assert_non_null(report);
	assert_null(json_object_get(report, "error"));
	json_decref(report);
	json_decref(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_missing_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
