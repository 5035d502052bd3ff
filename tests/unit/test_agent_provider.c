// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_provider.c - unit tests for agent/provider.c, the agent's kernel provider:
 * real processes (small shell scripts written to a temporary directory) run as the agent
 * runs them: `list` parsed and bounded in time, `boot RELEASE` followed without blocking
 * to its exit, its failure with the last line it wrote, its timeout (the whole process
 * group killed), and the signal mask a child gets (the agent blocks SIGTERM; a provider
 * must not inherit that). Also the kexec provider script of the lab's guests
 * (lab/guest/kexec-provider.sh) in its dry-run mode over a fake kernel cache, and the
 * agent's loop (agent/agent.c) with a provider against a fake coordinator (a ROUTER on
 * ipc): the provider's kernels in hello, `boot` refused for a kernel it does not list,
 * a failing provider's `boot_report`, a job refused while the provider runs, and `ok`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "agent.h"
#include "base/log.h"
#include "proto/proto.h"
#include "provider.h"
#include "base/util.h"
#include "helpers.h"

#ifndef BPFLAB_SRCDIR
#define BPFLAB_SRCDIR "."
#endif

struct pctx {
	char dir[64];
	struct provider_config cfg;
};

static int setup(void **state)
{
	struct pctx *t = calloc(1, sizeof(*t));

	log_init("test_agent_provider", LOG_WARN);
	snprintf(t->dir, sizeof(t->dir), "/tmp/bpflab-test-provider.XXXXXX");
	tmpdir_make(t->dir);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct pctx *t = *state;

	provider_config_release(&t->cfg);
	assert_int_equal(tmpdir_remove(t->dir), 0);
	free(t);
	return 0;
}

/* Write BODY as the executable script DIR/provider and make it the configuration's
 * command (with ARG as an extra first word when not NULL). */
static void script(struct pctx *t, const char *body, const char *arg)
{
	char path[128], *text;

	snprintf(path, sizeof(path), "%s/provider", t->dir);
	assert_true(asprintf(&text, "#!/bin/sh\n%s\n", body) > 0);
	file_put(path, text);
	free(text);
	assert_int_equal(chmod(path, 0755), 0);
	provider_config_release(&t->cfg);
	t->cfg.argv[t->cfg.argc++] = strdup(path);
	if (arg)
		t->cfg.argv[t->cfg.argc++] = strdup(arg);
}

/* Poll RUN until it ends (at most 10 s); returns provider_boot_poll's end. */
static int run_to_end(struct provider_run *run, struct err *why, int *polls)
{
	int64_t deadline = util_mono_ms() + 10000;
	int rc;

	*polls = 0;
	while ((rc = provider_boot_poll(run, why)) == 1) {
		assert_true(util_mono_ms() < deadline);
		(*polls)++;
		usleep(10 * 1000);
	}
	return rc;
}

/* Whether process PID exists and is not a zombie. */
static bool alive(int pid)
{
	char path[64], buf[256] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return !strstr(buf, ") Z ");
}

static void test_release_ok(void **state)
{
	assert_true(provider_release_ok("6.1.0-47-cloud-amd64"));
	assert_true(provider_release_ok("6.12.117+deb12-cloud-amd64"));
	assert_true(provider_release_ok("6.1~rc1"));
	assert_false(provider_release_ok(""));
	assert_false(provider_release_ok(NULL));
	assert_false(provider_release_ok("-x"));
	assert_false(provider_release_ok("../etc"));
	assert_false(provider_release_ok("6.1 x"));
	assert_false(provider_release_ok("6.1;reboot"));
	assert_false(provider_release_ok("a/b"));
}

static void test_list(void **state)
{
	struct pctx *t = *state;
	struct err why;
	json_t *k = NULL;

	/* its argv: the configured words, then "list"; blank lines and repeats dropped */
	script(t, "[ \"$1\" = --cache ] && [ \"$2\" = list ] || exit 9\n"
		  "printf '6.1.0-47-cloud-amd64\\n\\n  6.1.0-53-cloud-amd64\\n"
		  "6.1.0-47-cloud-amd64\\n'", "--cache");
	assert_int_equal(provider_list(&t->cfg, &k, &why), 0);
	assert_int_equal(json_array_size(k), 2);
	assert_string_equal(json_string_value(json_array_get(k, 0)), "6.1.0-47-cloud-amd64");
	assert_string_equal(json_string_value(json_array_get(k, 1)), "6.1.0-53-cloud-amd64");
	json_decref(k);

	/* nothing to offer is not an error */
	script(t, "exit 0", NULL);
	assert_int_equal(provider_list(&t->cfg, &k, &why), 0);
	assert_int_equal(json_array_size(k), 0);
	json_decref(k);

	/* a failure names the exit status and the last line of stderr */
	script(t, "echo first >&2; echo 'no kernel cache here' >&2; exit 3", NULL);
	assert_int_equal(provider_list(&t->cfg, &k, &why), -EIO);
	assert_null(k);
	assert_contains(why.msg, "list: exit status 3: no kernel cache here");

	/* a line that is not a release */
	script(t, "echo '6.1;reboot'", NULL);
	assert_int_equal(provider_list(&t->cfg, &k, &why), -EINVAL);
	assert_contains(why.msg, "'6.1;reboot' is not a kernel release");

	/* a NUL byte is not text: refused, not a list cut short */
	script(t, "printf '6.1.0-47-cloud-amd64\\000\\n6.1.0-53-cloud-amd64\\n'", NULL);
	assert_int_equal(provider_list(&t->cfg, &k, &why), -EINVAL);
	assert_null(k);
	assert_contains(why.msg, "a NUL byte in its output");

	/* more output than is kept: refused, where the cut last line "6.1." was offered */
	script(t, "yes 6.1.0 | head -c 70000", NULL);
	assert_int_equal(provider_list(&t->cfg, &k, &why), -E2BIG);
	assert_null(k);
	assert_contains(why.msg, "more than 65536 bytes of output");

	/* bounded in time, also when a child keeps the pipe open */
	script(t, "sleep 20 & sleep 20", NULL);
	t->cfg.list_timeout_ms = 300;
	{
		int64_t t0 = util_mono_ms();

		assert_int_equal(provider_list(&t->cfg, &k, &why), -ETIMEDOUT);
		assert_true(util_mono_ms() - t0 < 3000);
	}
	assert_contains(why.msg, "no end within 300 ms; killed");

	/* a command that cannot start */
	provider_config_release(&t->cfg);
	t->cfg.argv[t->cfg.argc++] = strdup("/nonexistent/provider");
	{
		/* glibc reports the failed exec; where posix_spawn is a plain fork (valgrind)
		 * the child exits 127 instead */
		int rc = provider_list(&t->cfg, &k, &why);

		assert_true(rc == -ENOENT || rc == -EIO);
		assert_contains(why.msg, rc == -ENOENT ? "cannot start it" : "exit status 127");
	}
}

static void test_boot(void **state)
{
	struct pctx *t = *state;
	struct provider_run run;
	char path[128];
	struct err why;
	int polls;

	/* exit 0 after a while: followed without blocking */
	script(t, "[ \"$1\" = boot ] && [ \"$2\" = 6.1.0-53-cloud-amd64 ] || exit 9\n"
		  "echo switching >&2; sleep 0.3; exit 0", NULL);
	assert_int_equal(provider_boot_start(&t->cfg, "6.1.0-53-cloud-amd64", &run, &why), 0);
	assert_true(run.pid > 0);
	assert_int_equal(run_to_end(&run, &why, &polls), 0);
	assert_true(polls > 5);
	assert_int_equal(run.pid, 0);
	assert_int_equal(run.err_fd, -1);

	/* a failure: exit status and the last line it wrote */
	script(t, "echo \"kexec-provider: no initrd for '$2'\" >&2; exit 1", NULL);
	assert_int_equal(provider_boot_start(&t->cfg, "6.1.0-53-cloud-amd64", &run, &why), 0);
	assert_int_equal(run_to_end(&run, &why, &polls), -EIO);
	assert_text(why.msg, "boot 6.1.0-53-cloud-amd64: the kernel provider failed (exit status "
		    "1): kexec-provider: no initrd for '6.1.0-53-cloud-amd64'");

	/* the agent blocks SIGTERM (its signalfd) and ignores SIGPIPE: a provider gets the
	 * default mask and dispositions, so this one dies of its own SIGTERM */
	{
		sigset_t set, old;

		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &set, &old);
		script(t, "kill -TERM $$; sleep 1; exit 0", NULL);
		assert_int_equal(provider_boot_start(&t->cfg, "6.1.0-53-cloud-amd64", &run, &why), 0);
		assert_int_equal(run_to_end(&run, &why, &polls), -EIO);
		assert_contains(why.msg, "killed by signal 15");
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}

	/* its deadline: the whole process group is killed */
	snprintf(path, sizeof(path), "%s/child.pid", t->dir);
	{
		char body[256];

		snprintf(body, sizeof(body), "sleep 30 & echo $! > %s; echo waiting >&2; wait",
			 path);
		script(t, body, NULL);
	}
	t->cfg.boot_timeout_ms = 300;
	assert_int_equal(provider_boot_start(&t->cfg, "6.1.0-53-cloud-amd64", &run, &why), 0);
	assert_int_equal(run_to_end(&run, &why, &polls), -ETIMEDOUT);
	assert_text(why.msg, "boot 6.1.0-53-cloud-amd64: the kernel provider did not finish "
		    "within 300 ms; killed: waiting");
	{
		char *pid = file_slurp(path);
		int i;

		/* the grandchild, reparented, is dead within a moment (gone, or a zombie
		 * that its new parent has not reaped yet) */
		for (i = 0; i < 100 && alive(atoi(pid)); i++)
			usleep(10 * 1000);
		assert_false(alive(atoi(pid)));
		free(pid);
	}

	/* refused before anything runs */
	assert_int_equal(provider_boot_start(&t->cfg, "-f", &run, &why), -EINVAL);
	assert_contains(why.msg, "'-f' is not a kernel release");
	assert_true(why.input);		/* the request's, not the machine's */
	provider_config_release(&t->cfg);
	assert_int_equal(provider_boot_start(&t->cfg, "6.1", &run, &why), -ENOENT);
	assert_contains(why.msg, "no kernel_provider");

	/* abort: killed and released */
	script(t, "sleep 30", NULL);
	t->cfg.boot_timeout_ms = 0;
	assert_int_equal(provider_boot_start(&t->cfg, "6.1", &run, &why), 0);
	provider_boot_abort(&run);
	assert_int_equal(run.pid, 0);
}

/* lab/guest/kexec-provider.sh over a fake cache: lists the kernels whose image and initrd
 * are there; boot checks them (BPFLAB_KEXEC_DRY=1: nothing loaded) */
static void test_kexec_script(void **state)
{
	struct pctx *t = *state;
	static const char *const files[] = {
		"6.1.0-47-cloud-amd64/root/boot/vmlinuz-6.1.0-47-cloud-amd64",
		"6.1.0-47-cloud-amd64/initrd",
		"6.1.0-53-cloud-amd64/root/boot/vmlinuz-6.1.0-53-cloud-amd64",
		"6.1.0-53-cloud-amd64/initrd",
		"6.1.0-99-cloud-amd64/root/boot/vmlinuz-6.1.0-99-cloud-amd64", /* no initrd */
	};
	struct provider_run run;
	char cache[128], path[512], cmd[700];
	struct err why;
	json_t *k = NULL;
	size_t i;
	int polls;

	snprintf(cache, sizeof(cache), "%s/cache", t->dir);
	for (i = 0; i < ARRAY_LEN(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", cache, files[i]);
		snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
		assert_int_equal(system(cmd), 0);
		file_put(path, "x");
	}
	provider_config_release(&t->cfg);
	t->cfg.argv[t->cfg.argc++] = strdup(BPFLAB_SRCDIR "/lab/guest/kexec-provider.sh");
	t->cfg.argv[t->cfg.argc++] = strdup("--cache");
	t->cfg.argv[t->cfg.argc++] = strdup(cache);
	assert_int_equal(provider_list(&t->cfg, &k, &why), 0);
	assert_int_equal(json_array_size(k), 2);
	assert_string_equal(json_string_value(json_array_get(k, 0)), "6.1.0-47-cloud-amd64");
	assert_string_equal(json_string_value(json_array_get(k, 1)), "6.1.0-53-cloud-amd64");
	json_decref(k);

	setenv("BPFLAB_KEXEC_DRY", "1", 1);
	assert_int_equal(provider_boot_start(&t->cfg, "6.1.0-53-cloud-amd64", &run, &why), 0);
	assert_int_equal(run_to_end(&run, &why, &polls), 0);
	assert_int_equal(provider_boot_start(&t->cfg, "6.1.0-99-cloud-amd64", &run, &why), 0);
	assert_int_equal(run_to_end(&run, &why, &polls), -EIO);
	assert_contains(why.msg, "exit status 1): kexec-provider: no initrd");
	unsetenv("BPFLAB_KEXEC_DRY");
}

/* --- the agent's loop with a provider --- */

struct loop {
	void *zctx, *router;
	uint8_t id[PROTO_MAX_IDENTITY];
	size_t id_len;
	struct agent *agent;
	pthread_t thread;
	int rc;
};

static void *loop_thread(void *arg)
{
	struct loop *l = arg;

	l->rc = agent_run(l->agent);
	return NULL;
}

/* The agent's next message other than a heartbeat (answered), within 5 s. */
static json_t *agent_says(struct loop *l, const char *type)
{
	int64_t end = util_mono_ms() + 5000;
	struct err why;
	json_t *m;

	while (util_mono_ms() < end) {
		zmq_pollitem_t it = { .socket = l->router, .events = ZMQ_POLLIN };

		if (zmq_poll(&it, 1, 100) <= 0)
			continue;
		assert_int_equal(proto_recv_from(l->router, l->id, &l->id_len, &m, 0, &why), 0);
		if (strcmp(proto_msg_type(m), "heartbeat")) {
			if (strcmp(proto_msg_type(m), type))
				fail_msg("wanted '%s' from the agent, got '%s'", type,
					 proto_msg_type(m));
			return m;
		}
		proto_send_to(l->router, l->id, l->id_len, m, 0);
		json_decref(m);
	}
	fail_msg("no '%s' from the agent within 5 s", type);
	return NULL;
}

static void to_agent(struct loop *l, json_t *m)
{
	assert_non_null(m);
	assert_int_equal(proto_send_to(l->router, l->id, l->id_len, m, 0), 0);
	json_decref(m);
}

static void test_agent_boot(void **state)
{
	struct pctx *t = *state;
	struct inventory_config inv = { .agent = "boot-agent" };
	struct agent_opts o = { 0 };
	struct loop l = { 0 };
	char ep[128];
	struct err why;
	uint64_t one = 1;
	json_t *m, *k = NULL;
	int stop_fd = eventfd(0, EFD_CLOEXEC);

	script(t, "case \"$1 $2\" in\n"
		  "list*) printf '6.1.0-ok\\n6.1.0-fail\\n' ;;\n"
		  "'boot 6.1.0-fail') echo \"no initrd for $2\" >&2; exit 1 ;;\n"
		  "'boot 6.1.0-ok') echo \"switching to $2\" >&2; sleep 0.5 ;;\n"
		  "*) exit 9 ;;\n"
		  "esac", NULL);
	assert_int_equal(provider_list(&t->cfg, &k, &why), 0);
	inv.provider = json_pack("{s:s, s:o}", "command", t->cfg.argv[0], "kernels", k);
	snprintf(ep, sizeof(ep), "ipc://%s/coord.sock", t->dir);
	l.zctx = zmq_ctx_new();
	l.router = zmq_socket(l.zctx, ZMQ_ROUTER);
	assert_int_equal(zmq_bind(l.router, ep), 0);
	o.endpoint = ep;
	o.inv = &inv;
	o.stop_fd = stop_fd;
	o.provider = &t->cfg;
	l.agent = agent_new(&o);
	assert_non_null(l.agent);
	assert_int_equal(pthread_create(&l.thread, NULL, loop_thread, &l), 0);

	/* hello lists what the provider offers */
	m = agent_says(&l, "hello");
	assert_int_equal(json_array_size(json_object_get(json_object_get(json_object_get(m,
			 "inventory"), "provider"), "kernels")), 2);
	json_decref(m);
	to_agent(&l, json_pack("{s:i, s:s, s:i}", "v", 1, "type", "welcome", "heartbeat_ms",
			       1000));

	/* a kernel the provider did not list: refused without running anything */
	to_agent(&l, json_pack("{s:i, s:s, s:s}", "v", 1, "type", "boot", "kernel", "6.1.0-x"));
	m = agent_says(&l, "boot_report");
	assert_string_equal(jget_str(m, "status", ""), "failed");
	assert_contains(jget_str(m, "error", ""), "kernel '6.1.0-x' is not in the list of "
			"kernel provider");
	json_decref(m);

	/* the provider fails: its reason comes back */
	to_agent(&l, json_pack("{s:i, s:s, s:s}", "v", 1, "type", "boot", "kernel", "6.1.0-fail"));
	m = agent_says(&l, "boot_report");
	assert_string_equal(jget_str(m, "kernel", ""), "6.1.0-fail");
	assert_string_equal(jget_str(m, "status", ""), "failed");
	assert_text(jget_str(m, "error", ""), "boot 6.1.0-fail: the kernel provider failed "
		    "(exit status 1): no initrd for 6.1.0-fail");
	json_decref(m);

	/* the provider works; a job meanwhile is refused, heartbeats go on */
	to_agent(&l, json_pack("{s:i, s:s, s:s}", "v", 1, "type", "boot", "kernel", "6.1.0-ok"));
	to_agent(&l, json_pack("{s:i, s:s, s:{s:i, s:i, s:{}}}", "v", 1, "type", "job", "job",
			       "id", 5, "run", 1, "spec"));
	m = agent_says(&l, "error");
	assert_int_equal(jget_int(m, "job", 0), 5);
	assert_contains(jget_str(m, "message", ""), "is switching to kernel '6.1.0-ok'");
	json_decref(m);
	m = agent_says(&l, "boot_report");
	assert_string_equal(jget_str(m, "status", ""), "ok");
	assert_true(jget_int(m, "ms", 0) >= 500);
	json_decref(m);

	assert_int_equal(write(stop_fd, &one, sizeof(one)), sizeof(one));
	pthread_join(l.thread, NULL);
	assert_int_equal(l.rc, 0);
	agent_destroy(&l.agent);
	close(stop_fd);
	zmq_close(l.router);
	zmq_ctx_term(l.zctx);
	json_decref(inv.provider);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_ok),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kexec_script, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agent_boot, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
