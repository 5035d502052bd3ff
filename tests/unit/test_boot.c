// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_boot.c - kernel switches that survive a coordinator restart, and jobs that do not
 * run on the wrong kernel (coordinator/boot.c, lib/store/store_boot.c, schema 008;
 * docs/protocol.md "Kernel providers", docs/kernels.md "Kernel switches and runs").
 *
 * The store functions on a real SQLite file; then the coordinator in-process over real
 * ZeroMQ ipc:// sockets and a real database file, driven with coord_run_once between the
 * test's own sends and receives (one thread, as tests/unit/test_coordinator.c does): a
 * DEALER plays the agent, another the CLI. A restart is coord_destroy and coord_new on
 * the same database while the agent's socket stays (ZeroMQ reconnects it). A switch past
 * its deadline is made by moving its stored start back, not by waiting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "coord.h"
#include "base/log.h"
#include "proto/proto.h"
#include "sched.h"
#include "store/store.h"
#include "base/util.h"
#include "helpers.h"

#define OBJ_NAME "xdp_basic.bpf.o"
#define OLD_KERNEL "6.18.44"
#define NEW_KERNEL "6.19.1"

struct tctx {
	struct coord_fix fx;
	void *agent, *client;
};

/* --- the store --- */

/* begin, a second begin refused, the open switch read back with the host's inventory,
 * end, and what cannot be ended or begun */
static void test_store_boot_begin_end(void **state)
{
	struct err err;
	char dir[] = "/tmp/bpflab-test-boot.XXXXXX", path[128];
	json_t *inv = json_pack("{s:{s:s}}", "kernel", "release", OLD_KERNEL), *list, *b;
	struct store *st;
	int64_t host = 0, id = 0;

	tmpdir_make(dir);
	snprintf(path, sizeof(path), "%s/lab.db", dir);
	st = store_open(path, false, &err);
	assert_non_null(st);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	assert_int_equal(store_host_hello(st, "h1", "0.1", inv, 1000, &host, NULL), 0);

	assert_int_equal(store_boot_begin(st, host, NEW_KERNEL, OLD_KERNEL, 2000, &id), 0);
	assert_true(id > 0);
	assert_int_equal(store_boot_begin(st, host, "7.0", OLD_KERNEL, 2001, NULL), -EEXIST);
	assert_contains(store_err(st)->msg, "switching its kernel already");
	assert_int_equal(store_boot_begin(st, host + 100, "7.0", OLD_KERNEL, 2001, NULL),
			 -ENOENT);

	list = store_boot_latest(st, true);
	assert_non_null(list);
	assert_int_equal(json_array_size(list), 1);
	b = json_array_get(list, 0);
	assert_int_equal(jget_int(b, "id", 0), id);
	assert_string_equal(jget_str(b, "host", ""), "h1");
	assert_string_equal(jget_str(b, "kernel", ""), NEW_KERNEL);
	assert_string_equal(jget_str(b, "from", ""), OLD_KERNEL);
	assert_string_equal(jget_str(b, "state", ""), "booting");
	assert_int_equal(jget_int(b, "started_ms", 0), 2000);
	assert_null(json_object_get(b, "ended_ms"));
	assert_null(json_object_get(b, "error"));
	assert_string_equal(jget_str(json_object_get(json_object_get(b, "inventory"),
							  "kernel"), "release", ""), OLD_KERNEL);
	json_decref(list);

	assert_int_equal(store_boot_end(st, host, "booting", NULL, 3000), -EINVAL);
	assert_int_equal(store_boot_end(st, host, "failed", "no initrd", 3000), 0);
	assert_int_equal(store_boot_end(st, host, "done", NULL, 3001), -ENOENT);
	list = store_boot_latest(st, true);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	list = store_boot_latest(st, false);
	assert_int_equal(json_array_size(list), 1);
	b = json_array_get(list, 0);
	assert_string_equal(jget_str(b, "state", ""), "failed");
	assert_string_equal(jget_str(b, "error", ""), "no initrd");
	assert_int_equal(jget_int(b, "ended_ms", 0), 3000);
	json_decref(list);

	/* the next switch is the latest one */
	assert_int_equal(store_boot_begin(st, host, "7.0", OLD_KERNEL, 4000, NULL), 0);
	list = store_boot_latest(st, false);
	assert_int_equal(json_array_size(list), 1);
	assert_string_equal(jget_str(json_array_get(list, 0), "kernel", ""), "7.0");
	json_decref(list);

	json_decref(inv);
	store_close(&st);
	assert_int_equal(tmpdir_remove(dir), 0);
}

/* --- the check at dispatch (sched_spec_fits) --- */

/* a spec's hosts_match and port roles against an inventory, and what it says when they
 * do not hold */
static void test_boot_spec_fits(void **state)
{
	json_t *inv = json_of("{\"kernel\": {\"release\": \"6.1.0-53-cloud-amd64\"}, "
			      "\"labels\": {\"rack\": \"r3\"}, \"ports\": [{\"role\": \"a\"}, "
			      "{\"role\": \"b\"}]}");
	json_t *spec = json_of("{\"ports\": [\"a\", \"b\"], \"hosts_match\": "
			       "{\"rack\": \"r3\", \"kernel\": \">=6.1\"}}");
	char asked[256];
	struct err why;

	assert_true(sched_spec_fits(spec, inv, &why, asked, sizeof(asked)));
	json_object_set_new(json_object_get(spec, "hosts_match"), "kernel",
			    json_string("=6.12"));
	assert_false(sched_spec_fits(spec, inv, &why, asked, sizeof(asked)));
	assert_text(why.msg, "kernel.release is '6.1.0-53-cloud-amd64', not '=6.12'");
	assert_text(asked, "hosts.match rack=r3, kernel=6.12; ports a, b");
	/* without hosts_match (--hosts) only the port roles count */
	json_object_del(spec, "hosts_match");
	assert_true(sched_spec_fits(spec, inv, &why, NULL, 0));
	json_array_append_new(json_object_get(spec, "ports"), json_string("c"));
	assert_false(sched_spec_fits(spec, inv, &why, asked, sizeof(asked)));
	assert_text(why.msg, "no port for role 'c'");
	assert_text(asked, "hosts.match (any); ports a, b, c");
	json_decref(spec);
	json_decref(inv);
}

/* --- the coordinator --- */

static void coord_start(struct tctx *t)
{
	coord_fix_start(&t->fx, &COORD_OPTS(.tick_ms = 20));
}

static int setup(void **state)
{
	struct tctx *t = calloc(1, sizeof(*t));

	log_init("test_boot", LOG_WARN);
	coord_fix_init(&t->fx, "boot");
	coord_start(t);
	t->agent = coord_fix_agent(&t->fx);
	t->client = coord_fix_client(&t->fx);
	coord_fix_object(&t->fx, BPFLAB_BUILDDIR "/bpf/" OBJ_NAME);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tctx *t = *state;

	zmq_close(t->agent);
	zmq_close(t->client);
	coord_fix_release(&t->fx);
	free(t);
	return 0;
}

/* The coordinator stops (as a SIGKILL would leave the database: every switch is
 * written when it changes) and a new one starts on the same database. */
static void coord_restart(struct tctx *t)
{
	coord_destroy(&t->fx.c);
	coord_start(t);
}

/* hello from h1 running RELEASE, its provider offering both kernels, with "booting"
 * BOOTING unless NULL */
static void hello(struct tctx *t, const char *release, const char *booting)
{
	json_t *m = proto_msg_new("hello");

	json_object_set_new(m, "agent", json_string("h1"));
	json_object_set_new(m, "inventory", json_pack(
		"{s:s, s:{s:s, s:s}, s:{s:s, s:[s, s]}, s:[{s:s, s:s, s:s}, {s:s, s:s, s:s}]}",
		"hostname", "h1", "kernel", "release", release, "version", "#1 SMP",
		"provider", "command", "/bin/provider", "kernels", OLD_KERNEL, NEW_KERNEL,
		"ports", "role", "a", "name", "veth-a", "driver", "veth",
		"role", "b", "name", "veth-b", "driver", "veth"));
	if (booting)
		json_object_set_new(m, "booting", json_string(booting));
	json_decref(coord_ask(t->fx.c, t->agent, m, "welcome"));
}

/* h1 is asked to switch to NEW_KERNEL and its agent gets the boot message */
static void boot_h1(struct tctx *t)
{
	json_t *r;

	r = coord_ask(t->fx.c, t->client, json_pack("{s:i, s:s, s:s, s:s}", "v", 1, "type",
						    "host_boot", "host", "h1", "kernel",
						    NEW_KERNEL), "booting");
	assert_string_equal(jget_str(r, "from", ""), OLD_KERNEL);
	json_decref(r);
	r = coord_pump(t->fx.c, t->agent, 2000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "boot");
	json_decref(r);
}

/* h1's entry in host_list (new reference) */
static json_t *host_h1(struct tctx *t)
{
	json_t *r = coord_ask(t->fx.c, t->client, proto_msg_new("host_list"), "hosts"), *h;
	json_t *found = NULL;
	size_t i;

	json_array_foreach(json_object_get(r, "hosts"), i, h)
		if (!strcmp(jget_str(h, "name", ""), "h1"))
			found = json_incref(h);
	json_decref(r);
	assert_non_null(found);
	return found;
}

/* h1's host_list entry has STATE and a switch to KERNEL in BOOT_STATE whose error
 * contains ERROR (NULL: none) */
static void assert_h1(struct tctx *t, const char *state, const char *boot_state,
		      const char *error)
{
	json_t *h = host_h1(t), *b = json_object_get(h, "boot");

	assert_string_equal(jget_str(h, "state", ""), state);
	assert_non_null(b);
	assert_string_equal(jget_str(b, "state", ""), boot_state);
	assert_string_equal(jget_str(b, "kernel", ""), NEW_KERNEL);
	assert_string_equal(jget_str(b, "from", ""), OLD_KERNEL);
	assert_true(jget_int(b, "since_ms", 0) > 0);
	if (error)
		assert_contains(jget_str(b, "error", ""), error);
	else
		assert_null(json_object_get(b, "error"));
	json_decref(h);
}

/* The latest stored switch as "STATE KERNEL FROM ended|open ERROR", read from the
 * database file with a connection of the test's own. */
static void stored_boot(struct tctx *t, char *out, size_t len)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;

	assert_int_equal(sqlite3_open_v2(t->fx.db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT state || ' ' || kernel || ' ' || "
					    "from_kernel || ' ' || iif(ended_ms IS NULL, 'open', "
					    "'ended') || ' ' || coalesce(error, '') FROM host_boots "
					    "ORDER BY id DESC LIMIT 1", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	snprintf(out, len, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	sqlite3_close(db);
}

/* A submit of a two-variant plan whose hosts.match is {kernel: MATCH}; HOSTS (NULL: none)
 * is the submitter's --hosts. */
static json_t *submit_msg(struct tctx *t, const char *match, const char *hosts)
{
	char text[1024], *b64 = util_base64_encode(t->fx.obj, t->fx.obj_len);
	json_t *m = proto_msg_new("submit");

	snprintf(text, sizeof(text),
		 "name: boot-test\n"
		 "hosts:\n"
		 "  match: {kernel: \"%s\"}\n"
		 "ports: [a, b]\n"
		 "traffic:\n"
		 "  generator: xdp-live\n"
		 "  from: a\n"
		 "  packet: {size: 64, proto: udp4, flows: 1}\n"
		 "  duration: 1s\n"
		 "  warmup: 1s\n"
		 "variants:\n"
		 "  drop:\n"
		 "    - {port: b, hook: xdp, object: " OBJ_NAME ", program: xdp_drop}\n"
		 "  pass:\n"
		 "    - {port: b, hook: xdp, object: " OBJ_NAME ", program: xdp_pass}\n"
		 "metrics: [port.rx_pps]\n", match);
	json_object_set_new(m, "plan_file", json_string("boot.yaml"));
	json_object_set_new(m, "plan_text", json_string(text));
	json_object_set_new(m, "objects", json_pack("{s:{s:s, s:s}}", OBJ_NAME, "sha256",
						    t->fx.obj_sha, "data", b64));
	if (hosts)
		json_object_set_new(m, "hosts", json_pack("[s]", hosts));
	free(b64);
	return m;
}

/* The switch is stored when it is asked for and when it ends (here: the provider
 * failed), and host_list shows it. */
static void test_boot_stored(void **state)
{
	struct tctx *t = *state;
	char row[512];
	json_t *r;

	hello(t, OLD_KERNEL, NULL);
	boot_h1(t);
	stored_boot(t, row, sizeof(row));
	assert_text(row, "booting " NEW_KERNEL " " OLD_KERNEL " open ");
	assert_h1(t, "booting", "booting", NULL);

	r = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i}", "v", 1, "type", "boot_report",
		      "kernel", NEW_KERNEL, "status", "failed", "error",
		      "boot " NEW_KERNEL ": the kernel provider failed (exit status 1): no initrd",
		      "ms", 5);
	assert_int_equal(proto_send(t->agent, r, 0), 0);
	json_decref(r);
	assert_null(coord_pump(t->fx.c, t->agent, 200));
	stored_boot(t, row, sizeof(row));
	assert_text(row, "failed " NEW_KERNEL " " OLD_KERNEL " ended boot " NEW_KERNEL
		    ": the kernel provider failed (exit status 1): no initrd");
	assert_h1(t, "idle", "failed", "no initrd");

	/* an ended switch is shown after a restart too */
	coord_restart(t);
	assert_h1(t, "gone", "failed", "no initrd");
}

/* The coordinator restarts while h1 switches: the new one knows the switch (host_list),
 * holds h1 back (a run for the new kernel waits; a hello while the provider still runs
 * gets no job), and h1's hello with the new kernel ends the switch "done"; then the run
 * goes to h1. */
static void test_boot_restart_done(void **state)
{
	struct tctx *t = *state;
	long long job;
	char row[512];
	json_t *r;

	hello(t, OLD_KERNEL, NULL);
	boot_h1(t);
	coord_restart(t);
	assert_h1(t, "gone", "booting", NULL);
	stored_boot(t, row, sizeof(row));
	assert_text(row, "booting " NEW_KERNEL " " OLD_KERNEL " open ");

	/* a switching host is a candidate as the kernel it switches to */
	r = coord_ask(t->fx.c, t->client, submit_msg(t, "=6.19", NULL), "submitted");
	assert_int_equal(json_array_size(json_object_get(r, "hosts")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(r, "hosts"), 0)),
			    "h1");
	json_decref(r);

	/* the agent reconnects while its provider still runs: still booting, no job */
	hello(t, OLD_KERNEL, NEW_KERNEL);
	assert_null(coord_pump(t->fx.c, t->agent, 300));
	assert_h1(t, "booting", "booting", NULL);

	/* the new kernel's hello ends the switch, and the run's first job goes out */
	hello(t, NEW_KERNEL, NULL);
	r = coord_pump(t->fx.c, t->agent, 2000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "job");
	job = jget_int(json_object_get(r, "job"), "id", 0);
	assert_true(job > 0);
	assert_string_equal(jget_str(json_object_get(json_object_get(json_object_get(r,
			    "job"), "spec"), "hosts_match"), "kernel", ""), "=6.19");
	json_decref(r);
	assert_h1(t, "busy", "done", NULL);
	stored_boot(t, row, sizeof(row));
	assert_text(row, "done " NEW_KERNEL " " OLD_KERNEL " ended ");
}

/* The coordinator restarts after the switch's deadline has passed (its stored start
 * moved back 11 minutes): the switch ends "failed" at once, stored, and h1 is free again
 * (its old kernel's hello ends nothing more and it takes a run for that kernel). */
static void test_boot_restart_timeout(void **state)
{
	struct tctx *t = *state;
	sqlite3 *db = NULL;
	char row[512];
	json_t *r;

	hello(t, OLD_KERNEL, NULL);
	boot_h1(t);
	coord_destroy(&t->fx.c);
	assert_int_equal(sqlite3_open(t->fx.db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE host_boots SET started_ms = started_ms - "
				      "660000", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	coord_start(t);

	assert_h1(t, "gone", "failed", "no hello from host 'h1' with kernel '" NEW_KERNEL
		  "' within 600 s");
	stored_boot(t, row, sizeof(row));
	assert_text(row, "failed " NEW_KERNEL " " OLD_KERNEL " ended no hello from host 'h1' "
		    "with kernel '" NEW_KERNEL "' within 600 s");

	hello(t, OLD_KERNEL, NULL);
	assert_h1(t, "idle", "failed", "within 600 s");
	r = coord_ask(t->fx.c, t->client, submit_msg(t, "=6.18", NULL), "submitted");
	json_decref(r);
	r = coord_pump(t->fx.c, t->agent, 2000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "job");
	json_decref(r);
}

/* Runs and a switching host: a plan for the kernel it leaves is refused (naming the
 * switch), --hosts naming it is refused, a plan for the kernel it switches to is queued
 * on it. The host then comes back with the old kernel (mismatch): the queued jobs are
 * not run on it but failed, each with an error that names the host, its kernel now and
 * what the plan asked. */
static void test_boot_wrong_kernel(void **state)
{
	struct tctx *t = *state;
	json_t *r, *job;
	long long run;
	size_t i;

	hello(t, OLD_KERNEL, NULL);
	boot_h1(t);

	r = coord_ask(t->fx.c, t->client, submit_msg(t, "=6.18", NULL), "error");
	assert_text(jget_str(r, "message", ""), "no host matches the plan (hosts.match "
		    "kernel=6.18; ports a, b; 1 host connected or switching kernels; 'h1' "
		    "(switching to kernel '" NEW_KERNEL "'): kernel.release is '" NEW_KERNEL
		    "', not '=6.18')");
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, submit_msg(t, "=6.19", "h1"), "error");
	assert_text(jget_str(r, "message", ""), "host 'h1' is switching to kernel '"
		    NEW_KERNEL "' (bpflab host boot): name it when the switch is done, or let "
		    "the plan's hosts.match choose");
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, submit_msg(t, "=6.19", NULL), "submitted");
	run = jget_int(r, "run", 0);
	assert_int_equal(jget_int(r, "jobs", 0), 2);
	json_decref(r);
	assert_null(coord_pump(t->fx.c, t->agent, 200));

	/* back, but on the kernel it left */
	hello(t, OLD_KERNEL, NULL);
	assert_null(coord_pump(t->fx.c, t->agent, 300));	/* no job reaches it */
	r = host_h1(t);
	assert_string_equal(jget_str(json_object_get(r, "boot"), "state", ""), "mismatch");
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, json_pack("{s:i, s:s, s:I}", "v", 1, "type",
						    "run_show", "run", (json_int_t)run), "run");
	assert_string_equal(jget_str(json_object_get(r, "run"), "state", ""), "failed");
	json_array_foreach(json_object_get(json_object_get(r, "run"), "jobs"), i, job) {
		assert_string_equal(jget_str(job, "state", ""), "failed");
		assert_int_equal(jget_int(job, "attempts", -1), 0);
		assert_text(jget_str(job, "error", ""), "host 'h1' runs kernel '" OLD_KERNEL
			    "' now and no longer matches the plan: kernel.release is '"
			    OLD_KERNEL "', not '=6.19' (the plan asks hosts.match kernel=6.19; "
			    "ports a, b); the job was not run on it");
	}
	assert_int_equal(i, 2);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_boot_begin_end),
		cmocka_unit_test(test_boot_spec_fits),
		cmocka_unit_test_setup_teardown(test_boot_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot_restart_done, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot_restart_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot_wrong_kernel, setup, teardown),
	};

	return cmocka_run_group_tests_name("boot", tests, NULL, NULL);
}
