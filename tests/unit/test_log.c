// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_log.c - lib/base/log.c writing to a file: each line "YYYY-MM-DDTHH:MM:SS.mmmZ
 * PROG: LEVEL: TEXT", its time the UTC of the moment it was written, also across a
 * second boundary and from another thread (the stamp text is kept a second per
 * thread), lines below the level left out; a thread's held lines (log_hold), also
 * when the process dies of a fatal signal (log_flush_on_fatal). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"
#include "helpers.h"

#define LINE_RE "^([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})\\.[0-9]{3}Z " \
		"test_log: (info|warning): (.*)$"

/* The UTC second of REALTIME now as the log writes it. */
static void now_stamp(char *out, size_t len, time_t *sec)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm);
	*sec = ts.tv_sec;
}

static void *other_thread(void *arg)
{
	(void)arg;
	pr_info("from another thread");
	return NULL;
}

/* Check line LINE: well formed, with TEXT, its stamp between BEFORE and AFTER. */
static void check_line(const regex_t *re, const char *line, const char *text,
		       const char *before, const char *after)
{
	regmatch_t m[4];
	char stamp[32], got[256];

	assert_int_equal(regexec(re, line, 4, m, 0), 0);
	snprintf(stamp, sizeof(stamp), "%.*s", (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so);
	snprintf(got, sizeof(got), "%.*s", (int)(m[3].rm_eo - m[3].rm_so), line + m[3].rm_so);
	assert_string_equal(got, text);
	assert_true(strcmp(stamp, before) >= 0);
	assert_true(strcmp(stamp, after) <= 0);
}

static void test_log_file_stamps(void **state)
{
	char dir[] = "/tmp/bpflab-test-log.XXXXXX", path[64], line[512];
	char s0[32], s1[32], s2[32], s3[32];
	time_t t0, t;
	pthread_t th;
	regex_t re;
	FILE *f;
	int n = 0;

	(void)state;
	tmpdir_make(dir);
	snprintf(path, sizeof(path), "%s/log", dir);
	assert_int_equal(regcomp(&re, LINE_RE, REG_EXTENDED), 0);
	log_init("test_log", LOG_INFO);
	assert_int_equal(log_set_file(path), 0);

	now_stamp(s0, sizeof(s0), &t0);
	pr_info("first");
	pr_debug("not written");
	pr_warn("second %d", 2);
	now_stamp(s1, sizeof(s1), &t);
	/* the next second: a new stamp, not the one kept */
	do {
		usleep(20000);
		now_stamp(s2, sizeof(s2), &t);
	} while (t == t0);
	pr_info("third");
	assert_int_equal(pthread_create(&th, NULL, other_thread, NULL), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	now_stamp(s3, sizeof(s3), &t);

	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		switch (n++) {
		case 0: check_line(&re, line, "first", s0, s1); break;
		case 1: check_line(&re, line, "second 2", s0, s1); break;
		case 2: check_line(&re, line, "third", s2, s3); break;
		case 3: check_line(&re, line, "from another thread", s2, s3); break;
		}
	}
	fclose(f);
	assert_int_equal(n, 4);
	regfree(&re);
	tmpdir_remove(dir);
}

/* The lines in file PATH now */
static int file_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int c, n = 0;

	assert_non_null(f);
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* A thread that holds its lines (log_hold, bpflabd's loop): they reach the file at
 * log_flush, at a warning, or when another thread's line is written, in order; once it
 * lets go, the held ones go out and each line after at once. */
static void test_log_held(void **state)
{
	char dir[] = "/tmp/bpflab-test-log.XXXXXX", path[64];
	pthread_t th;

	(void)state;
	tmpdir_make(dir);
	snprintf(path, sizeof(path), "%s/log", dir);
	log_init("test_log", LOG_INFO);
	assert_int_equal(log_set_file(path), 0);
	log_hold(true);
	pr_info("held one");
	assert_int_equal(file_lines(path), 0);
	pr_warn("a warning, at once");
	assert_int_equal(file_lines(path), 2);
	pr_info("held two");
	assert_int_equal(file_lines(path), 2);
	assert_int_equal(pthread_create(&th, NULL, other_thread, NULL), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(file_lines(path), 4);
	pr_info("held three");
	assert_int_equal(file_lines(path), 4);
	log_flush();
	assert_int_equal(file_lines(path), 5);
	pr_info("held four");
	log_hold(false);
	assert_int_equal(file_lines(path), 6);
	pr_info("not held");
	assert_int_equal(file_lines(path), 7);
	tmpdir_remove(dir);
}

static void prior_handler(int sig)
{
	_exit(40 + sig);
}

/* A child that holds a line (bpflabd's loop) and dies of SIG, with log_flush_on_fatal
 * (FLUSH) or without, a handler of its own installed before it (PRIOR: a sanitizer's);
 * returns how many lines its log at PATH holds, and checks that it died of SIG all the
 * same, or in the prior handler (a fault comes back to it). */
static int crash_child(const char *path, int sig, bool flush, bool prior)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);	/* no core file from the test */
		/* not cmocka's handlers: a process's own */
		signal(SIGABRT, SIG_DFL);
		signal(SIGSEGV, prior ? prior_handler : SIG_DFL);
		log_init("test_log", LOG_INFO);
		if (log_set_file(path))
			_exit(2);
		if (flush)
			log_flush_on_fatal();
		log_hold(true);
		pr_info("the line before the crash");
		if (sig == SIGSEGV)
			*(volatile int *)NULL = 1;	/* a real fault, not only the signal */
		raise(sig);
		_exit(3);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (prior) {
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 40 + sig);
	} else {
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), sig);
	}
	return file_lines(path);
}

/* Held lines reach the file when the process dies of a fatal signal (log_flush_on_fatal),
 * with a line naming it, and the process still dies of that signal, or in the handler it
 * had before (a fault); without it they are lost (what the test tells apart). */
static void test_log_fatal(void **state)
{
	char dir[] = "/tmp/bpflab-test-log.XXXXXX", path[64], *text = NULL;
	size_t len;

	(void)state;
	tmpdir_make(dir);
	snprintf(path, sizeof(path), "%s/lost", dir);
	assert_int_equal(crash_child(path, SIGABRT, false, false), 0);
	snprintf(path, sizeof(path), "%s/segv", dir);
	assert_int_equal(crash_child(path, SIGSEGV, true, false), 2);
	assert_int_equal(util_read_file(path, 1 << 16, &text, &len), 0);
	assert_non_null(strstr(text, "info: the line before the crash\n"));
	assert_non_null(strstr(text, "test_log: fatal signal SIGSEGV\n"));
	free(text);
	snprintf(path, sizeof(path), "%s/abrt", dir);
	assert_int_equal(crash_child(path, SIGABRT, true, false), 2);
	snprintf(path, sizeof(path), "%s/prior", dir);
	assert_int_equal(crash_child(path, SIGSEGV, true, true), 2);
	tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_file_stamps),
		cmocka_unit_test(test_log_held),
		cmocka_unit_test(test_log_fatal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
