// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_progstats.c - agent/progstats.c: with bpf_stats on, run_cnt counts exactly
 * the runs of a program (driven by BPF_PROG_TEST_RUN) and run_time_ns grows; with the fd
 * closed they are off, as the job runner leaves them after its cost window
 * (docs/agent.md): this process holds no bpf-stats fd any more and runs are not counted.
 * The kernel counts while anyone holds them on (another process's fd, the sysctl
 * kernel.bpf_stats_enabled), so the off test looks for such a holder before and after
 * its runs and, while one stays, skips naming it (allowed as root: helpers.h). Needs root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progstats.h"
#include "base/log.h"
#include "helpers.h"

/* tries of the off check, the pause between two, and how many tries that no other
 * holder overlapped must count runs before that is a failure */
#define OFF_TRIES 20
#define OFF_WAIT_US 250000
#define OFF_COUNTED_FAIL 3

static void run(int fd, int n)
{
	unsigned char pkt[64] = { [12] = 0x08 };
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = n);

	assert_int_equal(bpf_prog_test_run_opts(fd, &t), 0);
}

/* xdp_basic.bpf.o loaded into *OBJ; returns xdp_drop's fd */
static int load_drop(struct bpf_object **obj)
{
	*obj = bpf_object__open_file(BPFLAB_BUILDDIR "/bpf/xdp_basic.bpf.o", NULL);
	assert_non_null(*obj);
	assert_int_equal(bpf_object__load(*obj), 0);
	return bpf_program__fd(bpf_object__find_program_by_name(*obj, "xdp_drop"));
}

/* How many of PID's ("self" or a number) open fds are BPF_ENABLE_STATS fds; 0 when
 * PID is gone. */
static int stats_fds_of(const char *pid)
{
	char dir[64], path[384], link[64];
	struct dirent *e;
	ssize_t len;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		n += !strcmp(link, "anon_inode:bpf-stats");
	}
	closedir(d);
	return n;
}

/* PID's command name, or "?" (a static buffer) */
static const char *comm_of(const char *pid)
{
	static char comm[32];
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	f = fopen(path, "r");
	if (!f || !fgets(comm, sizeof(comm), f))
		snprintf(comm, sizeof(comm), "?");
	if (f)
		fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return comm;
}

/* Whether something other than this process keeps bpf_stats on: the sysctl, or another
 * process with a stats fd (named in WHO). */
static bool stats_held_elsewhere(char *who, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	struct dirent *e;
	bool held = false;
	int on = 0;
	DIR *d;

	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
	}
	if (on) {
		snprintf(who, len, "the sysctl kernel.bpf_stats_enabled");
		return true;
	}
	d = opendir("/proc");
	assert_non_null(d);
	while (!held && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]) || atoi(e->d_name) == (int)getpid())
			continue;
		if (stats_fds_of(e->d_name) > 0) {
			snprintf(who, len, "pid %d (%s)", atoi(e->d_name), comm_of(e->d_name));
			held = true;
		}
	}
	closedir(d);
	return held;
}

static void test_progstats_counts(void **state)
{
	struct bpf_object *obj;
	struct progstats a, b;
	int prog, stats;

	skip_unless_root();
	prog = load_drop(&obj);
	stats = progstats_enable();
	assert_true(stats >= 0);
	assert_int_equal(progstats_read(prog, &a), 0);
	run(prog, 1000);
	assert_int_equal(progstats_read(prog, &b), 0);
	assert_int_equal(b.run_cnt - a.run_cnt, 1000);
	assert_true(b.run_time_ns > a.run_time_ns);
	progstats_disable(&stats);
	assert_int_equal(stats, -1);
	progstats_disable(&stats);
	assert_true(progstats_read(-1, &b) < 0);
	bpf_object__close(obj);
}

/* Off after progstats_disable: no stats fd left in this process, and runs not counted
 * in a try that no other holder overlapped. Runs counted in OFF_COUNTED_FAIL such tries
 * and none without are a failure; fewer (a holder came and went between two looks) or
 * none clear at all (another holder stayed), a skip. */
static void test_progstats_off(void **state)
{
	int prog, stats, i, clear = 0, counted = 0;
	struct bpf_object *obj;
	struct progstats a, b;
	char who[64] = "";

	skip_unless_root();
	prog = load_drop(&obj);
	stats = progstats_enable();
	assert_true(stats >= 0);
	assert_int_equal(stats_fds_of("self"), 1);
	progstats_disable(&stats);
	assert_int_equal(stats_fds_of("self"), 0);

	for (i = 0; i < OFF_TRIES && clear == counted && counted < OFF_COUNTED_FAIL; i++) {
		if (i)
			usleep(OFF_WAIT_US);
		if (stats_held_elsewhere(who, sizeof(who)))
			continue;
		assert_int_equal(progstats_read(prog, &a), 0);
		run(prog, 1000);
		assert_int_equal(progstats_read(prog, &b), 0);
		if (stats_held_elsewhere(who, sizeof(who)))
			continue;
		clear++;
		counted += b.run_cnt != a.run_cnt;
	}
	bpf_object__close(obj);
	if (clear > counted)
		return;
	if (counted >= OFF_COUNTED_FAIL)
		fail_msg("runs counted with bpf_stats off in %d tries, no other holder seen",
			 counted);
	if (!clear)
		skip_host("bpf_stats held on by %s through %d tries", who, i);
	skip_host("bpf_stats held on at times (last by %s): runs counted in the %d tries "
		  "nobody was seen holding them", who[0] ? who : "nobody seen", clear);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progstats_counts),
		cmocka_unit_test(test_progstats_off),
	};

	log_init("test_agent_progstats", LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
