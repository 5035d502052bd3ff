// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_cli_import.c - `bpflab --db FILE result import` with a kernel, and what the
 * kernel builds and pooling change in `result history` and `result compare`, through
 * the real binary: two imports of one release with different `uname -v` are two groups
 * by kernel.build and one by kernel.release; several snapshot pairs are repetitions;
 * a side pooling builds gets a note and --strict refuses, in compare and in
 * `bisect run` over stored results; bad kernels, unpaired
 * snapshots, negative or non-numeric CSV values and unknown --by fields fail with the
 * exit status of docs/cli.md and store nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"
#define REL "6.18.0-rc1+"

static char tmpdir[] = "/tmp/bpflab-test-cli-import-XXXXXX";
static char db[300];

/* bpflab --db DB ARGS... into O. */
static void bpflab(struct prog_out *o, const char *const *args)
{
	const char *argv[32] = { BPFLAB, "--db", db };
	int i;

	for (i = 0; args[i] && i < 28; i++)
		argv[3 + i] = args[i];
	argv[3 + i] = NULL;
	prog_run(o, argv, tmpdir);
}

/* TEXT into the file NAME of the test's directory; its path into PATH. */
static const char *put(char *path, size_t len, const char *name, const char *text)
{
	snprintf(path, len, "%s/%s", tmpdir, name);
	file_put(path, text);
	return path;
}

/* The number of stored runs. */
static size_t runs_stored(void)
{
	struct prog_out o;
	json_t *j;
	size_t n;

	bpflab(&o, (const char *[]){ "-j", "run", "list", NULL });
	assert_int_equal(o.status, 0);
	j = json_of(o.out);
	n = json_array_size(json_is_array(j) ? j : json_object_get(j, "runs"));
	json_decref(j);
	prog_out_free(&o);
	return n;
}

static void test_cli_import_kernel_builds(void **state)
{
	char a[400], b[400], c[400];
	struct prog_out o;
	json_t *j;

	put(a, sizeof(a), "a.csv", "variant,prog,set,value\nbase,p,1,30\nbase,p,2,30.2\n"
	    "base,p,3,30.1\n");
	put(b, sizeof(b), "b.csv", "base,p,1,36\nbase,p,2,36.2\nbase,p,3,36.1\n");
	put(c, sizeof(c), "c.csv", "patch,p,1,33\npatch,p,2,33.2\npatch,p,3,33.1\n");
	bpflab(&o, (const char *[]){ "result", "import", a, "--plan", "hand", "--host", "lab1",
				     "--kernel", REL, "--kernel-version", "#7", NULL });
	assert_int_equal(o.status, 0);
	assert_text(o.out, "imported run 1: 3 jobs of plan 'hand'\n");
	prog_out_free(&o);
	bpflab(&o, (const char *[]){ "result", "import", b, "--plan", "hand", "--host", "lab1",
				     "--kernel", REL, "--kernel-version", "#8", NULL });
	assert_int_equal(o.status, 0);
	prog_out_free(&o);

	/* two builds of one release (sha256 of REL "\n#7\n", of REL "\n#8\n") */
	bpflab(&o, (const char *[]){ "result", "history", "--plan", "hand", "--metric",
				     "prog.ns_per_run", "--by", "kernel.build", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, REL " #cf14be ");
	assert_contains(o.out, REL " #e3bd12 ");
	prog_out_free(&o);
	bpflab(&o, (const char *[]){ "-j", "result", "compare", "--plan", "hand", "--by",
				     "kernel.build", NULL });
	assert_int_equal(o.status, 0);
	j = json_of(o.out);
	assert_string_equal(json_string_value(json_object_get(j, "baseline")), REL " #cf14be");
	assert_int_equal(json_array_size(json_object_get(j, "pooled")), 0);
	json_decref(j);
	prog_out_free(&o);
	/* by release: one group only */
	bpflab(&o, (const char *[]){ "-j", "result", "history", "--plan", "hand", "--metric",
				     "prog.ns_per_run", NULL });
	assert_int_equal(o.status, 0);
	j = json_of(o.out);
	assert_int_equal(json_array_size(json_object_get(j, "groups")), 1);
	json_decref(j);
	prog_out_free(&o);

	/* variant base pools the two builds: a note, and --strict refuses (exit 1) */
	bpflab(&o, (const char *[]){ "result", "import", c, "--plan", "hand", "--host", "lab2",
				     "--kernel", REL, "--kernel-version", "#7", NULL });
	assert_int_equal(o.status, 0);
	prog_out_free(&o);
	bpflab(&o, (const char *[]){ "result", "compare", "--plan", "hand", "--by", "variant",
				     NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "note: baseline variant 'base' holds values of 1 host (lab1) and "
			"2 kernel builds\n  (" REL " #cf14be, " REL " #e3bd12); its figures pool "
			"them (--by host\n");
	prog_out_free(&o);
	bpflab(&o, (const char *[]){ "result", "compare", "--plan", "hand", "--by", "variant",
				     "--strict", NULL });
	assert_int_equal(o.status, 1);
	assert_contains(o.err, "bpflab: baseline variant 'base' holds values of 1 host (lab1) "
			"and 2 kernel builds (" REL " #cf14be, " REL " #e3bd12); --strict refuses");
	assert_text(o.out, "");
	prog_out_free(&o);
	/* two runs of one host and build each: nothing to say */
	bpflab(&o, (const char *[]){ "-j", "result", "compare", "1", "2", "--strict", NULL });
	assert_int_equal(o.status, 0);
	prog_out_free(&o);
}

static void test_cli_import_snapshot_pairs(void **state)
{
	char b1[400], a1[400], b2[400], a2[400];
	struct prog_out o;
	json_t *j, *p;

	put(b1, sizeof(b1), "b1.json", "[{\"id\": 1, \"name\": \"xdp_a\", \"run_cnt\": 10, "
	    "\"run_time_ns\": 1000}]");
	put(a1, sizeof(a1), "a1.json", "[{\"id\": 1, \"name\": \"xdp_a\", \"run_cnt\": 20, "
	    "\"run_time_ns\": 3000}]");
	put(b2, sizeof(b2), "b2.json", "[{\"id\": 1, \"name\": \"xdp_a\", \"run_cnt\": 20, "
	    "\"run_time_ns\": 3000}]");
	put(a2, sizeof(a2), "a2.json", "[{\"id\": 1, \"name\": \"xdp_a\", \"run_cnt\": 30, "
	    "\"run_time_ns\": 6000}]");
	bpflab(&o, (const char *[]){ "result", "import", "--before", b1, "--after", a1,
				     "--before", b2, "--after", a2, "--variant", "v", "--plan",
				     "snap", "--kernel", "6.1.0", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, ": 2 jobs of plan 'snap'\n");
	prog_out_free(&o);
	/* (3000 - 1000) / 10 = 200 and (6000 - 3000) / 10 = 300 ns: two repetitions on 6.1.0 */
	bpflab(&o, (const char *[]){ "-j", "result", "history", "--plan", "snap", "--metric",
				     "prog.ns_per_run", NULL });
	assert_int_equal(o.status, 0);
	j = json_of(o.out);
	p = json_array_get(json_object_get(json_array_get(json_object_get(j, "series"), 0),
					   "points"), 0);
	assert_string_equal(json_string_value(json_object_get(p, "group")), "6.1.0");
	assert_int_equal(json_integer_value(json_object_get(p, "n")), 2);
	assert_near(json_real_value(json_object_get(p, "mean")), 250, 1e-9);
	json_decref(j);
	prog_out_free(&o);
}

static void test_cli_import_refused(void **state)
{
	static const char *const sixty_five =
		"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk";
	char a[400], neg[400], word[400];
	struct prog_out o;
	size_t before;
	const struct {
		const char *args[14];
		const char *err;
	} usage[] = {
		{ { "result", "import", "a.csv", "--plan", "p", "--kernel", "", NULL },
		  "--kernel '' is not a kernel release (1 to 64 bytes)" },
		{ { "result", "import", "a.csv", "--plan", "p", "--kernel", sixty_five, NULL },
		  "is not a kernel release (1 to 64 bytes)" },
		{ { "result", "import", "a.csv", "--plan", "p", "--kernel-version", "#1", NULL },
		  "--kernel-version goes with --kernel" },
		{ { "result", "import", "--before", "b.json", "--after", "a.json", "--before",
		    "c.json", "--variant", "v", "--plan", "p", NULL },
		  "2 --before for 1 --after: give them in pairs" },
		{ { "result", "compare", "--plan", "p", "--by", "colour", NULL },
		  "cannot group by 'colour' (the fields are kernel.release, kernel.build, "
		  "kernel.version, kernel.config, port.driver, host, variant, plan, day, subject, "
		  "run, or up to three of them joined by ',')" },
	};
	size_t i;

	put(a, sizeof(a), "ok.csv", "base,p,1,30\n");
	bpflab(&o, (const char *[]){ "result", "import", a, "--plan", "x", "--kernel", "6.1",
				     NULL });
	assert_int_equal(o.status, 0);
	prog_out_free(&o);
	before = runs_stored();
	for (i = 0; i < ARRAY_LEN(usage); i++) {
		bpflab(&o, usage[i].args);
		if (o.status != 2)
			fprintf(stderr, "case %zu: status %d\n%s", i, o.status, o.err);
		assert_int_equal(o.status, 2);
		assert_contains(o.err, usage[i].err);
		prog_out_free(&o);
	}
	put(neg, sizeof(neg), "neg.csv", "variant,prog,set,value\nbase,p,1,30\nbase,p,2,-1\n");
	bpflab(&o, (const char *[]){ "result", "import", neg, "--plan", "x", "--kernel", "6.1",
				     NULL });
	assert_int_equal(o.status, 1);
	assert_contains(o.err, "neg.csv:3: value '-1' is negative\n");
	prog_out_free(&o);
	put(word, sizeof(word), "word.csv", "base,p,1,30\nbase,p,2,fast\n");
	bpflab(&o, (const char *[]){ "result", "import", word, "--plan", "x", NULL });
	assert_int_equal(o.status, 1);
	assert_contains(o.err, "word.csv:2: 'fast' is not a number\n");
	prog_out_free(&o);
	assert_int_equal(runs_stored(), before);
}

/* `bisect run` on stored results: kernel 6.2's values come from two hosts */
static void test_cli_import_bisect_pooled(void **state)
{
	char a[400], b[400];
	struct prog_out o;
	const char *run[] = { "bisect", "run", "--plan", "bis", "--metric", "prog.ns_per_run",
			      "--threshold", "5%", "--baseline", "0", "--kernel", "6.2", NULL,
			      NULL };
	char base[32];
	size_t first = 0;

	put(a, sizeof(a), "g.csv", "base,p,1,30\nbase,p,2,30.2\nbase,p,3,30.1\n");
	put(b, sizeof(b), "r.csv", "base,p,1,40\nbase,p,2,40.2\nbase,p,3,40.1\n");
	first = runs_stored() + 1;
	bpflab(&o, (const char *[]){ "result", "import", a, "--plan", "bis", "--host", "lab1",
				     "--kernel", "6.1", NULL });
	prog_out_free(&o);
	bpflab(&o, (const char *[]){ "result", "import", b, "--plan", "bis", "--host", "lab1",
				     "--kernel", "6.2", NULL });
	prog_out_free(&o);
	bpflab(&o, (const char *[]){ "result", "import", b, "--plan", "bis", "--host", "lab2",
				     "--kernel", "6.2", NULL });
	prog_out_free(&o);
	snprintf(base, sizeof(base), "%zu", first);
	run[9] = base;
	/* 30.1 -> 40.1 ns: bad (exit 1), with a note that 6.2 pools two hosts */
	bpflab(&o, run);
	assert_int_equal(o.status, 1);
	assert_contains(o.err, "bisect: note: candidate kernel '6.2' holds values of 2 hosts "
			"(lab1, lab2) and 1 kernel build (6.2); its figures pool them");
	assert_contains(o.out, "3 vs 6");
	prog_out_free(&o);
	run[12] = "--strict";
	bpflab(&o, run);
	assert_int_equal(o.status, 128);
	assert_contains(o.err, "bpflab: candidate kernel '6.2' holds values of 2 hosts (lab1, "
			"lab2) and 1 kernel build (6.2); --strict refuses to pool them\n");
	prog_out_free(&o);
}

static int setup(void **state)
{
	char ep[400];

	tmpdir_make(tmpdir);
	snprintf(db, sizeof(db), "%s/import.db", tmpdir);
	/* never reach a real lab by accident */
	snprintf(ep, sizeof(ep), "ipc://%s/none.sock", tmpdir);
	setenv("BPFLAB_COORDINATOR", ep, 1);
	return 0;
}

static int teardown(void **state)
{
	return tmpdir_remove(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_import_kernel_builds),
		cmocka_unit_test(test_cli_import_snapshot_pairs),
		cmocka_unit_test(test_cli_import_refused),
		cmocka_unit_test(test_cli_import_bisect_pooled),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
