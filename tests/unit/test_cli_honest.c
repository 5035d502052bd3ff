// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_cli_honest.c - what `result history` and `result compare` say about what they
 * put together, and one wording per mistake (issue 25, item 3), by running
 * build/bin/bpflab on a database it fills itself with `result import`:
 *
 * - history of values from two hosts: a note naming them; `--by host` a history each;
 * - compare of runs of two plans: a note first, `--strict` refuses;
 * - an unknown run: "unknown run 99" from show, compare and export alike; an unknown
 *   metric: the metrics there are, from compare, history and show --form alike;
 * - long notes wrapped at 80 columns; --ascii text without a byte above 127;
 * - other programs' words through bpflab's (item 5): `serve` on a port in use says it
 *   once, in bpflab's words, without libmicrohttpd's "Failed to bind to port 0".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helpers.h"

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"

static char tmpdir[] = "/tmp/bpflab-test-cli-honest-XXXXXX";
static char db[300];

static void run_cli(struct prog_out *o, const char *const *args)
{
	prog_run_args(o, BPFLAB, args, tmpdir);
}

/* Import CSV as a run of PLAN on HOST (kernel 6.6.0). */
static int import(const char *name, const char *csv, const char *plan, const char *host)
{
	char file[300];
	struct prog_out o;
	int status;

	snprintf(file, sizeof(file), "%s/%s", tmpdir, name);
	file_put(file, csv);
	run_cli(&o, (const char *[]){ "--db", db, "result", "import", file, "--plan", plan,
				      "--host", host, "--kernel", "6.6.0", NULL });
	status = o.status;
	if (status)
		fprintf(stderr, "import failed: %s", o.err);
	prog_out_free(&o);
	return status;
}

/* Run 1: plan p on h1, run 2: plan p on h2, run 3: plan q on h1. */
static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	unsetenv("BPFLAB_COORDINATOR");
	snprintf(db, sizeof(db), "%s/lab.db", tmpdir);
	if (import("a.csv", "variant,prog,set,value\ndrop,xdp_drop,1,35.9\ndrop,xdp_drop,2,35.6\n"
		   "drop,xdp_drop,3,35.5\n", "p", "h1") ||
	    import("b.csv", "variant,prog,set,value\ndrop,xdp_drop,1,30.1\ndrop,xdp_drop,2,30.3\n"
		   "drop,xdp_drop,3,30.0\n", "p", "h2") ||
	    import("c.csv", "variant,prog,set,value\ndrop,xdp_drop,1,36.2\ndrop,xdp_drop,2,36.0\n"
		   "drop,xdp_drop,3,36.1\n", "q", "h1"))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(tmpdir);
}

/* Every line of TEXT at most MAX columns (bytes: the texts here are ASCII but '±'). */
static void assert_lines_fit(const char *text, int max)
{
	const char *p = text, *e;
	int w;

	for (; *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, "\n");
		for (w = 0; p < e; p++)
			w += ((unsigned char)*p & 0xc0) != 0x80;
		if (w > max)
			fprintf(stderr, "a line of %d columns in:\n%s", w, text);
		assert_true(w <= max);
	}
}

static void test_cli_honest_history_pooled(void **state)
{
	struct prog_out o;
	json_t *j;

	(void)state;
	run_cli(&o, (const char *[]){ "--db", db, "result", "history", "--plan", "p", "--metric",
				      "prog.ns_per_run", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "kernel.release  n  mean ± stddev  spread  delta\n"
			       "6.6.0           6   32.90 ± 3.04    2.95   base\n");
	assert_contains(o.out, "note: kernel.release '6.6.0' holds values of 2 hosts (h1, h2) "
			       "and 1 kernel build\n  (6.6.0); its figures pool them (--by host "
			       "gives a history per host, --host\n  keeps one)\n");
	assert_lines_fit(o.out, 80);
	prog_out_free(&o);

	/* a history per host, no note */
	run_cli(&o, (const char *[]){ "--db", db, "result", "history", "--plan", "p", "--metric",
				      "prog.ns_per_run", "--by", "host", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "host h1\n\nprog.ns_per_run drop xdp_drop (ns; arithmetic mean, "
			       "lower is better)\nkernel.release  n  mean ± stddev  spread  delta\n"
			       "6.6.0           3   35.67 ± 0.21    0.20   base\n");
	assert_contains(o.out, "\nhost h2\n\n");
	assert_contains(o.out, "6.6.0           3   30.13 ± 0.15    0.15   base\n");
	assert_null(strstr(o.out, "note:"));
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "-j", "result", "history", "--plan", "p",
				      "--metric", "prog.ns_per_run", "--by", "host", NULL });
	assert_int_equal(o.status, 0);
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "histories")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(j, "histories"), 1), "host")), "h2");
	json_decref(j);
	prog_out_free(&o);

	/* JSON of the pooled history names what it pools: its group's hosts */
	run_cli(&o, (const char *[]){ "--db", db, "-j", "result", "history", "--plan", "p",
				      "--metric", "prog.ns_per_run", NULL });
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(j,
		"groups"), 0), "hosts")), 2);
	json_decref(j);
	prog_out_free(&o);
}

static void test_cli_honest_compare_plans(void **state)
{
	struct prog_out o;

	(void)state;
	run_cli(&o, (const char *[]){ "--db", db, "result", "compare", "1", "3", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "note: baseline run '1' is of plan 'p', candidate run '3' of "
			"plan 'q'; rows pair\n  by metric, point, variant and subject "
			"(--strict refuses)\n\nrun 1 -> 3\n");
	assert_int_equal(strncmp(o.out, "note: ", 6), 0);
	assert_lines_fit(o.out, 80);
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "compare", "1", "3", "--strict",
				      NULL });
	assert_int_equal(o.status, 1);
	assert_string_equal(o.err, "bpflab: baseline run '1' is of plan 'p', candidate run '3' "
			    "of plan 'q'; --strict refuses to compare runs of different plans\n");
	assert_string_equal(o.out, "");
	prog_out_free(&o);

	/* runs of one plan: no note */
	run_cli(&o, (const char *[]){ "--db", db, "result", "compare", "1", "2", NULL });
	assert_int_equal(o.status, 0);
	assert_null(strstr(o.out, "different plans"));
	assert_null(strstr(o.out, "is of plan"));
	prog_out_free(&o);
}

/* One mistake, one wording, whichever command makes it. */
static void test_cli_honest_errors(void **state)
{
	static const struct {
		const char *args[12];
		const char *err;
	} cases[] = {
		{ { "result", "show", "99", NULL }, "bpflab: unknown run 99\n" },
		{ { "result", "compare", "1", "99", NULL }, "bpflab: unknown run 99\n" },
		{ { "result", "compare", "99", "1", NULL }, "bpflab: unknown run 99\n" },
		{ { "result", "export", "99", "--format", "bmf", NULL }, "bpflab: unknown run 99\n" },
		{ { "run", "show", "99", NULL }, "bpflab: unknown run 99\n" },
		{ { "result", "compare", "1", "2", "--metric", "nope", NULL },
		  "bpflab: runs 1 and 2 have no metric 'nope' (their metrics: prog.ns_per_run)\n" },
		{ { "result", "compare", "--plan", "p", "--by", "host", "--metric", "nope", NULL },
		  "bpflab: plan 'p' has no metric 'nope' (its metrics: prog.ns_per_run)\n" },
		{ { "result", "history", "--plan", "p", "--metric", "nope", NULL },
		  "bpflab: plan 'p' has no metric 'nope' (its metrics: prog.ns_per_run)\n" },
		{ { "result", "show", "1", "--form", "columns", "--metric", "nope", NULL },
		  "bpflab: run 1 has no metric 'nope' (its metrics: prog.ns_per_run)\n" },
	};
	char *args[16];
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prog_out o;

		args[0] = "--db";
		args[1] = db;
		for (k = 0; cases[i].args[k]; k++)
			args[k + 2] = (char *)cases[i].args[k];
		args[k + 2] = NULL;
		run_cli(&o, (const char *const *)args);
		if (o.status != 1 || strcmp(o.err, cases[i].err))
			fprintf(stderr, "case %zu: status %d: %s", i, o.status, o.err);
		assert_int_equal(o.status, 1);
		assert_string_equal(o.err, cases[i].err);
		prog_out_free(&o);
	}
}

/* --ascii: the same text in ASCII ("+-" for "±"), JSON as it is. */
static void test_cli_honest_ascii(void **state)
{
	static const char *const cmds[][12] = {
		{ "result", "show", "1", "--ascii", NULL },
		{ "--ascii", "result", "compare", "1", "2", NULL },
		{ "result", "history", "--plan", "p", "--metric", "prog.ns_per_run", "--ascii", NULL },
	};
	char *args[16];
	struct prog_out o;
	size_t i, k;
	const char *p;

	(void)state;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		args[0] = "--db";
		args[1] = db;
		for (k = 0; cmds[i][k]; k++)
			args[k + 2] = (char *)cmds[i][k];
		args[k + 2] = NULL;
		run_cli(&o, (const char *const *)args);
		assert_int_equal(o.status, 0);
		assert_non_null(strstr(o.out, " +- "));
		for (p = o.out; *p; p++)
			assert_true((unsigned char)*p < 0x80);
		prog_out_free(&o);
	}
	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", NULL });
	assert_contains(o.out, "35.7 ± 0.2\n");
	prog_out_free(&o);
	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", "--ascii", NULL });
	assert_contains(o.out, "35.7 +- 0.2\n");
	prog_out_free(&o);
}

/* A port in use: one line, bpflab's; none of libmicrohttpd's. */
static void test_cli_honest_serve_port_in_use(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	char http[64], want[160];
	struct prog_out o;
	int fd;

	(void)state;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	snprintf(http, sizeof(http), "127.0.0.1:%u", ntohs(sa.sin_port));
	snprintf(want, sizeof(want), "bpflab: cannot listen on '%s': Address already in use\n",
		 http);

	run_cli(&o, (const char *[]){ "--db", db, "serve", "--http", http, NULL });
	assert_int_equal(o.status, 1);
	assert_string_equal(o.err, want);
	prog_out_free(&o);
	/* -v: still no word of libmicrohttpd's ("Failed to bind to port 0") */
	run_cli(&o, (const char *[]){ "--db", db, "-v", "serve", "--http", http, NULL });
	assert_int_equal(o.status, 1);
	assert_null(strstr(o.err, "Failed to bind"));
	assert_contains(o.err, want);
	prog_out_free(&o);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_honest_history_pooled),
		cmocka_unit_test(test_cli_honest_compare_plans),
		cmocka_unit_test(test_cli_honest_errors),
		cmocka_unit_test(test_cli_honest_serve_port_in_use),
		cmocka_unit_test(test_cli_honest_ascii),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
