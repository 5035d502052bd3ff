// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_genboost.c - agent/genboost.c on this process's own autogroup: the first
 * get sets nice GENBOOST_NICE, a second changes nothing, the last put restores what was
 * there (and a put too many does nothing); genboost_seen() tells once that one ran, at
 * which nice. Needs root (CAP_SYS_NICE) and autogroup
 * scheduling; skipped without autogroup (/proc/self/autogroup missing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "genboost.h"

/* The autogroup's nice, or 99 when unreadable. */
static int group_nice(void)
{
	FILE *f = fopen("/proc/self/autogroup", "r");
	int nice = 99;

	if (!f)
		return 99;
	if (fscanf(f, "%*s nice %d", &nice) != 1)
		nice = 99;
	fclose(f);
	return nice;
}

/* In a child of a session of its own (so that no one else's autogroup changes): 0 when
 * all holds, 77 without autogroup, else the number of the check that failed. */
static int counted_child(void)
{
	int before, nice;

	if (setsid() < 0)
		return 1;
	before = group_nice();
	if (before == 99 || access("/proc/self/autogroup", W_OK))
		return 77;
	if (before <= GENBOOST_NICE || !genboost_get() || group_nice() != GENBOOST_NICE)
		return 2;
	if (!genboost_get())
		return 3;
	genboost_put();
	if (group_nice() != GENBOOST_NICE)	/* one still runs */
		return 4;
	genboost_put();
	if (group_nice() != before)
		return 5;
	genboost_put();				/* one too many: nothing */
	if (group_nice() != before)
		return 6;
	if (!genboost_get())
		return 7;
	genboost_put();
	if (group_nice() != before)
		return 8;
	/* seen: the nice the last get ran at, once; then nothing until the next get */
	if (genboost_seen(&nice) != 1 || nice != GENBOOST_NICE)
		return 9;
	if (genboost_seen(&nice) != 0)
		return 10;
	return 0;
}

static void test_genboost_counted(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(counted_child());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_genboost_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
