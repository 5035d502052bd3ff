// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_version.c - unit tests for the agent's version: vercmp() (lib/base/vercmp.c)
 * and bpflabd refusing a plan for a host whose agent is older than JOBSPEC_AGENT_MIN,
 * naming both versions (coordinator/submit.c), over the in-process coordinator of
 * helpers.h with real ipc sockets and a database file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "coord.h"
#include "base/log.h"
#include "base/util.h"
#include "base/vercmp.h"
#include "plan/jobspec.h"
#include "proto/proto.h"
#include "helpers.h"

#ifndef BPFLAB_BUILDDIR
#define BPFLAB_BUILDDIR "build"
#endif

static const char plan_text[] =
	"name: version-test\n"
	"ports: [a, b]\n"
	"traffic: {generator: xdp-live, from: a, duration: 1s}\n"
	"variants:\n"
	"  drop:\n"
	"    - {port: b, hook: xdp, object: xdp_basic.bpf.o, program: xdp_drop}\n";

static void test_agent_version_vercmp(void **state)
{
	assert_int_equal(vercmp("0.1.0", "0.1.0"), 0);
	assert_int_equal(vercmp("0.1", "0.1.0"), 0);
	assert_true(vercmp("0.0.9", "0.1.0") < 0);
	assert_true(vercmp("0.10.0", "0.9.3") > 0);
	assert_true(vercmp("1", "0.99.99") > 0);
	assert_int_equal(vercmp("0.2rc1", "0.2.0"), 0);
	assert_true(vercmp("", "0.0.1") < 0);
	assert_int_equal(vercmp("", "0"), 0);
	assert_true(vercmp("99999999999999999999", "1000000") > 0);
}

/* hello from agent NAME with agent_version VERSION (NULL: an agent from before there was
 * one) on a new connection of F, kept in *SOCK */
static void hello(struct coord_fix *f, void **sock, const char *name, const char *version)
{
	json_t *m = proto_msg_new("hello"), *inv, *r;

	inv = json_pack("{s:s, s:s, s:{s:s}, s:[{s:s, s:s, s:s}, {s:s, s:s, s:s}]}",
			"hostname", name, "agent", name, "kernel", "release", "6.18.44", "ports",
			"role", "a", "name", "veth-a", "driver", "veth",
			"role", "b", "name", "veth-b", "driver", "veth");
	if (version)
		json_object_set_new(inv, "agent_version", json_string(version));
	*sock = coord_fix_agent(f);
	json_object_set_new(m, "agent", json_string(name));
	json_object_set_new(m, "version", json_string(version ? version : "0.0.1"));
	json_object_set_new(m, "inventory", inv);
	r = coord_ask(f->c, *sock, m, "welcome");
	json_decref(r);
}

static json_t *submit(struct coord_fix *f, void *client, const char *hosts, const char *want)
{
	char *b64 = util_base64_encode(f->obj, f->obj_len);
	json_t *m = proto_msg_new("submit");

	json_object_set_new(m, "plan_file", json_string("plan.yaml"));
	json_object_set_new(m, "plan_text", json_string(plan_text));
	json_object_set_new(m, "hosts", json_pack("[s]", hosts));
	json_object_set_new(m, "objects", json_pack("{s:{s:s, s:s}}", "xdp_basic.bpf.o",
						    "sha256", f->obj_sha, "data", b64));
	free(b64);
	return coord_ask(f->c, client, m, want);
}

static void test_agent_version_refused(void **state)
{
	struct coord_fix f;
	void *old, *cur, *pre, *client;
	char want[256];
	json_t *r;

	log_init("test_agent_version", LOG_WARN);
	coord_fix_init(&f, "version");
	coord_fix_start(&f, &COORD_OPTS(.tick_ms = 20));
	coord_fix_object(&f, BPFLAB_BUILDDIR "/bpf/xdp_basic.bpf.o");
	client = coord_fix_client(&f);
	hello(&f, &old, "old", "0.0.9");
	hello(&f, &cur, "cur", JOBSPEC_AGENT_MIN);
	hello(&f, &pre, "pre", NULL);

	r = submit(&f, client, "old", "error");
	snprintf(want, sizeof(want), "host 'old' runs bpflab-agent 0.0.9, older than %s, the "
		 "oldest that runs this coordinator's jobs", JOBSPEC_AGENT_MIN);
	assert_non_null(strstr(jget_str(r, "message", ""), want));
	json_decref(r);
	/* nothing stored for the refused plan; the current and the unversioned agents run it */
	r = submit(&f, client, "cur", "submitted");
	assert_int_equal(jget_int(r, "run", 0), 1);
	json_decref(r);
	r = submit(&f, client, "pre", "submitted");
	assert_int_equal(jget_int(r, "run", 0), 2);
	json_decref(r);

	zmq_close(old);
	zmq_close(cur);
	zmq_close(pre);
	zmq_close(client);
	coord_fix_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agent_version_vercmp),
		cmocka_unit_test(test_agent_version_refused),
	};

	return cmocka_run_group_tests_name("agent_version", tests, NULL, NULL);
}
