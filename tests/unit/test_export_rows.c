// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_export_rows.c - what an export keeps of a run's rows (lib/report/export_rows.c,
 * export_run.c): rates that are zero by design left out (and kept with all_rows, or when
 * the whole variant delivered nothing), BMF refused across hosts or kernel builds with
 * the options that select each pair, and a KCIDB checkout's commit and tree for a kernel
 * built from a git tree (the release's 12 digits; the full hash and the tree from the
 * kernel cache's record when it is of that build). Formats' rules: export_schema.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/jget.h"
#include "report/export.h"
#include "helpers.h"
#include "export_schema.h"

#define FULL "5aa4d9b42198b84e5ee86e3b4fd693f2e511ce9e"

/* A value row of run 7 (rate unit pps unless UNIT says otherwise). */
static json_t *row(const char *host, const char *release, const char *variant,
		   const char *subject, const char *metric, const char *unit, double value,
		   int job)
{
	json_t *r = json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:f, s:s, s:s, s:s, s:[], "
			      "s:{}}", "run", (json_int_t)7, "job", (json_int_t)job, "plan",
			      "qs", "variant", variant, "subject", subject, "metric", metric,
			      "unit", unit, "value", value, "host", host, "kernel_release",
			      release, "window", "rate", "flags", "point");

	assert_non_null(r);
	return r;
}

/* drop: port a receives 10 and 12 Mpps, port b nothing (0, and 1 kpps: 1e-4 of the
 * largest, which prints as 0); pass: b forwards 10 and 11 Mpps, a 0.1 % of it (kept);
 * none: delivered nothing anywhere (kept: that is its result); a cost (ns) of 0 kept. */
static json_t *zero_rows(const char *host, const char *release)
{
	json_t *r = json_array();

	json_array_append_new(r, row(host, release, "drop", "a", "port.rx_pps", "pps", 10e6, 1));
	json_array_append_new(r, row(host, release, "drop", "a", "port.rx_pps", "pps", 12e6, 2));
	json_array_append_new(r, row(host, release, "drop", "b", "port.rx_pps", "pps", 0, 1));
	json_array_append_new(r, row(host, release, "drop", "b", "port.rx_pps", "pps", 1e3, 2));
	json_array_append_new(r, row(host, release, "pass", "b", "port.rx_pps", "pps", 10e6, 3));
	json_array_append_new(r, row(host, release, "pass", "b", "port.rx_pps", "pps", 11e6, 4));
	json_array_append_new(r, row(host, release, "pass", "a", "port.rx_pps", "pps", 11e3, 3));
	json_array_append_new(r, row(host, release, "none", "a", "port.rx_pps", "pps", 0, 5));
	json_array_append_new(r, row(host, release, "none", "b", "port.rx_pps", "pps", 0, 5));
	json_array_append_new(r, row(host, release, "drop", "xdp_drop", "prog.ns_per_run", "ns",
				     0, 1));
	return r;
}

/* The benchmark names of BMF document B, sorted, joined by ", ". */
static void names(const json_t *b, char *out, size_t len)
{
	const char *k;
	json_t *v, *list = json_array();
	size_t off = 0, i, j;

	json_object_foreach((json_t *)b, k, v)
		json_array_append_new(list, json_string(k));
	for (i = 0; i < json_array_size(list); i++)	/* few: a selection sort */
		for (j = i + 1; j < json_array_size(list); j++)
			if (strcmp(json_string_value(json_array_get(list, j)),
				   json_string_value(json_array_get(list, i))) < 0) {
				json_t *t = json_incref(json_array_get(list, i));

				json_array_set(list, i, json_array_get(list, j));
				json_array_set_new(list, j, t);
			}
	out[0] = '\0';
	json_array_foreach(list, i, v)
		off += snprintf(out + off, len - off, "%s%s", i ? ", " : "", json_string_value(v));
	json_decref(list);
}

static json_t *run_export(const json_t *rows, const char *format, bool all_rows,
			  const char *cache, size_t *n_zero, struct err *msg)
{
	size_t n_flagged;

	return export_run(rows, 7, &(struct export_run_opts){
		.format = format, .db_id = "00ff00ff00ff00ff",
		.all_rows = all_rows, .kernel_cache = cache, .n_zero = n_zero },
		&n_flagged, msg);
}

static void test_export_rows_zero(void **state)
{
	json_t *rows = zero_rows("h1", "6.1.0"), *kept, *b;
	struct err msg;
	char list[512];
	size_t n = 99;

	(void)state;
	kept = export_rows_nonzero(rows, &n);
	assert_non_null(kept);
	assert_int_equal(n, 1);			/* drop's port b */
	assert_int_equal(json_array_size(kept), json_array_size(rows) - 2);
	json_decref(kept);

	b = run_export(rows, "bmf", false, NULL, &n, &msg);
	assert_non_null(b);
	assert_bmf(b);
	assert_int_equal(n, 1);
	names(b, list, sizeof(list));
	assert_string_equal(list, "qs/drop/a, qs/drop/xdp_drop, qs/none/a, qs/none/b, "
			    "qs/pass/a, qs/pass/b");
	json_decref(b);
	b = run_export(rows, "bmf", true, NULL, &n, &msg);
	assert_int_equal(n, 0);
	assert_int_equal(json_object_size(b), 7);
	json_decref(b);
	b = run_export(rows, "kcidb", false, NULL, &n, &msg);
	assert_kcidb_v4_4(b);
	assert_int_equal(json_array_size(json_object_get(b, "tests")), 6);
	json_decref(b);
	json_decref(rows);
}

/* A run of two hosts: no BMF of both, each host's alone; names alike in both. */
static void test_export_rows_bmf_pairs(void **state)
{
	json_t *rows = zero_rows("h1", "6.1.0"), *more = zero_rows("h2", "6.1.0"), *b1, *b2;
	struct err msg;
	char l1[512], l2[512];
	size_t n, n_flagged;

	(void)state;
	json_array_extend(rows, more);
	json_decref(more);
	errno = 0;
	assert_null(run_export(rows, "bmf", false, NULL, &n, &msg));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(msg.msg, "run 7 has results of 2 host and kernel build pairs, and a "
			    "BMF document holds one (a Bencher testbed and branch): export each "
			    "with --host h1 --kernel '6.1.0', --host h2 --kernel '6.1.0'");
	errno = 0;
	assert_null(export_bmf(rows));
	assert_int_equal(errno, EINVAL);
	/* KCIDB keeps them apart in its own ids: all of them */
	b1 = run_export(rows, "kcidb", false, NULL, &n, &msg);
	assert_non_null(b1);
	assert_int_equal(json_array_size(json_object_get(b1, "tests")), 12);
	json_decref(b1);

	b1 = export_run(rows, 7, &(struct export_run_opts){
		.format = "bmf", .host = "h1" },
		&n_flagged, &msg);
	b2 = export_run(rows, 7, &(struct export_run_opts){
		.format = "bmf", .host = "h2",
		.kernel = "6.1.0" }, &n_flagged, &msg);
	assert_non_null(b1);
	assert_non_null(b2);
	names(b1, l1, sizeof(l1));
	names(b2, l2, sizeof(l2));
	assert_string_equal(l1, l2);	/* one series per (benchmark, measure) */
	json_decref(b1);
	json_decref(b2);
	json_decref(rows);
}

/* Write TEXT into DIR/NAME. */
static void put(const char *dir, const char *name, const char *text)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	file_put(p, text);
}

/* The checkout of KCIDB data K (one kernel build). */
static const json_t *checkout(const json_t *k)
{
	assert_int_equal(json_array_size(json_object_get(k, "checkouts")), 1);
	return json_array_get(json_object_get(k, "checkouts"), 0);
}

static void test_export_rows_source(void **state)
{
	struct err msg;
	char cache[] = "/tmp/bpflab-test-export-rows.XXXXXX", d[256];
	const char *rel = "6.12.0-bpflab-5aa4d9b42198-dirty";
	json_t *rows, *k;
	const json_t *c;
	size_t n;

	(void)state;
	tmpdir_make(cache);
	/* no record: the commit's 12 digits from the release, nothing else */
	rows = zero_rows("h1", rel);
	k = run_export(rows, "kcidb", false, cache, &n, &msg);
	assert_kcidb_v4_4(k);
	c = checkout(k);
	assert_string_equal(jget_str(c, "git_commit_name", NULL), "5aa4d9b42198-dirty");
	assert_null(json_object_get(c, "git_commit_hash"));
	assert_null(json_object_get(c, "tree_name"));
	json_decref(k);
	json_decref(rows);

	/* the record of that build: the full hash, the tree */
	snprintf(d, sizeof(d), "%s/%s", cache, rel);
	assert_int_equal(mkdir(d, 0755), 0);
	put(d, "commit", FULL "\n");
	put(d, "tree", "/var/cache/bpflab/src/linux-6.12\n");
	rows = zero_rows("h1", rel);
	k = run_export(rows, "kcidb", false, cache, &n, &msg);
	assert_kcidb_v4_4(k);
	c = checkout(k);
	assert_string_equal(jget_str(c, "git_commit_name", NULL), "5aa4d9b42198-dirty");
	assert_string_equal(jget_str(c, "git_commit_hash", NULL), FULL);
	assert_string_equal(jget_str(c, "tree_name", NULL), "linux-6.12");
	assert_string_equal(jget_str(json_object_get(c, "misc"), "tree", NULL),
			    "/var/cache/bpflab/src/linux-6.12");
	json_decref(k);
	/* no cache read: the name only */
	json_decref(rows);
	rows = zero_rows("h1", rel);
	k = run_export(rows, "kcidb", false, NULL, &n, &msg);
	assert_null(json_object_get(checkout(k), "git_commit_hash"));
	json_decref(k);
	json_decref(rows);

	/* a record of another commit under that name: not this build's */
	put(d, "commit", "0000000000000000000000000000000000000000\n");
	rows = zero_rows("h1", rel);
	k = run_export(rows, "kcidb", false, cache, &n, &msg);
	c = checkout(k);
	assert_null(json_object_get(c, "git_commit_hash"));
	assert_null(json_object_get(c, "tree_name"));
	json_decref(k);
	json_decref(rows);

	/* a release not built from a tree: no git members at all */
	rows = zero_rows("h1", "6.1.0-47-cloud-amd64");
	k = run_export(rows, "kcidb", false, cache, &n, &msg);
	assert_null(json_object_get(checkout(k), "git_commit_name"));
	json_decref(k);
	json_decref(rows);
	assert_int_equal(tmpdir_remove(cache), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_rows_zero),
		cmocka_unit_test(test_export_rows_bmf_pairs),
		cmocka_unit_test(test_export_rows_source),
	};

	return cmocka_run_group_tests_name("export_rows", tests, NULL, NULL);
}
