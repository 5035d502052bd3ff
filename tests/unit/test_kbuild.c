// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_kbuild.c - kernel builds (lib/analysis/kbuild.c) and honest pooling: the
 * identity and label of a build (hashes checked with Python's hashlib), the label with
 * its hash and naming a build by release or label (the exports), two builds of
 * one release as two groups of compare and history and in the history plot's labels,
 * a side pooling hosts and builds named in the report and its text and refused with
 * strict, and imports with a kernel through the store (SQLite in memory): history by
 * kernel.build, kernel.release, kernel.version; bad kernels refused with nothing stored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/kbuild.h"
#include "base/jget.h"
#include "report/plot.h"
#include "report/report_compare.h"
#include "store/store.h"

#define REL "6.18.0-rc1+"
#define VER "#1 SMP PREEMPT_DYNAMIC Tue Dec  1 10:00:00 UTC 2026"
/* sha256 of REL "\n" VER "\naaaa" and of REL "\n" VER "\nbbbb" (hashlib) */
#define ID_A "3bbe4a2d6d8eda2b091dfca809a0711a16fab33ec6bc5801dc76a07d93ac0b4d"
#define ID_B "0a5b1c61605d519a593099ace301ec66950a715fa10cc0ea69881422fef8c46e"
#define LABEL_A REL " #3bbe4a"
#define LABEL_B REL " #0a5b1c"

/* A value row as store_query_values gives it, of build CONFIG ("aaaa", "bbbb"). */
static json_t *row(json_int_t job, const char *host, const char *config, const char *variant,
		   double value)
{
	json_t *r = json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:s, s:s, s:[],"
			      " s:{}, s:[], s:s, s:s, s:s}",
			      "run", (json_int_t)1, "job", job, "host", host, "kernel_release",
			      REL, "kernel_version", VER, "config_sha256", config, "variant",
			      variant, "subject", "xdp_drop", "value", value, "metric",
			      "prog.ns_per_run", "unit", "ns", "flags", "point", "debug_options",
			      "plan", "p", "plan_sha256", "0123456789abcdef", "timing", "wall");

	assert_non_null(r);
	return r;
}

static void test_kbuild_id_and_labels(void **state)
{
	char id[SHA256_HEX_LEN];
	json_t *rows;

	kbuild_id(REL, VER, "aaaa", id);
	assert_string_equal(id, ID_A);
	kbuild_id("6.1.0", NULL, NULL, id);
	assert_string_equal(id, "ec0fe377159dbf1849775fb2ac31629833f6b79ad270e812849d4a40e6bb50f0");

	rows = json_pack("[{s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:n},"
			 " {s:s, s:s, s:s}, {}]",
			 "kernel_release", REL, "kernel_version", VER, "config_sha256", "aaaa",
			 "kernel_release", REL, "kernel_version", VER, "config_sha256", "bbbb",
			 "kernel_release", REL, "kernel_version", VER, "config_sha256", "aaaa",
			 "kernel_release", "6.1.0", "kernel_version",
			 "kernel_release", "", "kernel_version", "", "config_sha256", "");
	assert_non_null(rows);
	assert_int_equal(kbuild_label_rows(rows), 0);
	/* two builds share the release: the short hash tells them apart */
	assert_string_equal(jget_str(json_array_get(rows, 0), "kernel_build", ""), LABEL_A);
	assert_string_equal(jget_str(json_array_get(rows, 0), "kernel_build_id", ""), ID_A);
	assert_string_equal(jget_str(json_array_get(rows, 1), "kernel_build", ""), LABEL_B);
	assert_string_equal(jget_str(json_array_get(rows, 1), "kernel_build_id", ""), ID_B);
	assert_string_equal(jget_str(json_array_get(rows, 2), "kernel_build", ""), LABEL_A);
	/* one build of its release: the release alone */
	assert_string_equal(jget_str(json_array_get(rows, 3), "kernel_build", ""), "6.1.0");
	/* nothing known: no identity, an empty label */
	assert_string_equal(jget_str(json_array_get(rows, 4), "kernel_build", ""), "");
	assert_null(json_object_get(json_array_get(rows, 4), "kernel_build_id"));
	assert_string_equal(jget_str(json_array_get(rows, 5), "kernel_build", ""), "");
	/* without the second build the label is the release */
	json_array_remove(rows, 1);
	assert_int_equal(kbuild_label_rows(rows), 0);
	assert_string_equal(jget_str(json_array_get(rows, 0), "kernel_build", ""), REL);
	json_decref(rows);
}

/* The label with its hash whatever else there is (the exports' names), and naming a
 * build by its release or its label (`result export --kernel`). */
static void test_kbuild_hashed_and_matches(void **state)
{
	json_t *r = json_pack("{s:s, s:s, s:s}", "kernel_release", REL, "kernel_version", VER,
			      "config_sha256", "aaaa");
	char id[SHA256_HEX_LEN], label[128];

	assert_non_null(r);
	kbuild_id_of_row(r, id);
	assert_string_equal(id, ID_A);
	json_decref(r);
	kbuild_label_hashed(REL, ID_A, label, sizeof(label));
	assert_string_equal(label, LABEL_A);
	kbuild_label_hashed(NULL, ID_A, label, sizeof(label));
	assert_string_equal(label, "#3bbe4a");

	assert_true(kbuild_matches(REL, REL, ID_A));
	assert_true(kbuild_matches(LABEL_A, REL, ID_A));
	assert_true(kbuild_matches(REL " #3bbe", REL, ID_A));
	assert_true(kbuild_matches(REL " #" ID_A, REL, ID_A));
	assert_true(kbuild_matches("#3bbe4a", NULL, ID_A));
	assert_false(kbuild_matches(REL " #3bb", REL, ID_A));	/* too short */
	assert_false(kbuild_matches(LABEL_B, REL, ID_A));
	assert_false(kbuild_matches(REL " #3BBE4A", REL, ID_A));
	assert_false(kbuild_matches(REL "#3bbe4a", REL, ID_A));
	assert_false(kbuild_matches("6.18.0", REL, ID_A));
	assert_false(kbuild_matches("6.1.0 #3bbe4a", REL, ID_A));
	assert_false(kbuild_matches("", NULL, ID_A));
}

/* 5 values of build A at 100 +- 1 and 5 of build B 20 % higher, all on host h1. */
static json_t *two_builds(const char *by)
{
	static const double v[] = { 100, 101, 99, 100.5, 99.5 };
	json_t *rows = json_array(), *r;
	json_int_t job = 1;
	size_t i;

	for (i = 0; i < 5; i++) {
		json_array_append_new(rows, row(job++, "h1", "aaaa", "drop", v[i]));
		json_array_append_new(rows, row(job++, "h1", "bbbb", "drop", v[i] * 1.2));
	}
	assert_int_equal(kbuild_label_rows(rows), 0);
	json_array_foreach(rows, i, r)
		json_object_set_new(r, "group", json_string(!strcmp(by, "kernel.build") ?
				    jget_str(r, "kernel_build", "") : jget_str(r, "kernel_release", "")));
	return rows;
}

static void test_kbuild_compare_history_plot(void **state)
{
	json_t *rows = two_builds("kernel.build"), *rep, *cmp, *r, *groups;
	struct err err;
	char *script = NULL;

	rep = analysis_compare(rows, "kernel.build", NULL, NULL, NULL, &err);
	if (!rep)
		fail_msg("%s", err.msg);
	assert_string_equal(jget_str(rep, "baseline", ""), LABEL_A);
	cmp = json_array_get(json_object_get(rep, "comparisons"), 0);
	assert_string_equal(jget_str(cmp, "candidate", ""), LABEL_B);
	r = json_array_get(json_object_get(cmp, "rows"), 0);
	assert_string_equal(jget_str(r, "verdict", ""), "DIFFERENT");
	assert_true(json_real_value(json_object_get(r, "delta_pct")) > 19.99 &&
		    json_real_value(json_object_get(r, "delta_pct")) < 20.01);
	/* one host, one build a side: nothing pooled */
	assert_int_equal(json_array_size(json_object_get(rep, "pooled")), 0);
	json_decref(rep);

	rep = analysis_history(rows, "kernel.build", NULL, &err);
	if (!rep)
		fail_msg("%s", err.msg);
	groups = json_object_get(rep, "groups");
	assert_int_equal(json_array_size(groups), 2);
	assert_string_equal(jget_str(json_array_get(groups, 0), "group", ""), LABEL_A);
	assert_string_equal(jget_str(json_array_get(groups, 1), "group", ""), LABEL_B);
	r = json_array_get(json_object_get(json_array_get(json_object_get(rep, "series"), 0),
					   "points"), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "n")), 5);
	assert_true(json_real_value(json_object_get(r, "delta_pct")) > 19.99 &&
		    json_real_value(json_object_get(r, "delta_pct")) < 20.01);
	/* the plot's x labels are the builds' labels */
	assert_int_equal(plot_history_script(rep, "x.svg", &script, &err), 0);
	assert_non_null(strstr(script, "\"" LABEL_A "\""));
	assert_non_null(strstr(script, "\"" LABEL_B "\""));
	free(script);
	json_decref(rep);
	json_decref(rows);

	/* by release the two builds are one group */
	rows = two_builds("kernel.release");
	rep = analysis_history(rows, "kernel.release", NULL, &err);
	assert_non_null(rep);
	assert_int_equal(json_array_size(json_object_get(rep, "groups")), 1);
	json_decref(rep);
	json_decref(rows);
}

/* Variants base and patch, each measured on h1 (build A) and h2 (build B): both sides
 * pool two hosts and two builds. */
static void test_kbuild_pooling_strict(void **state)
{
	static const double v[] = { 100, 101, 99, 100.5 };
	json_t *rows = json_array(), *rep, *p, *r;
	ANALYSIS_OPTS(strict, .strict = true);
	struct err err;
	char text[1024], *buf = NULL;
	json_int_t job = 1;
	size_t i, len = 0;
	FILE *f;

	for (i = 0; i < 4; i++) {
		json_array_append_new(rows, row(job++, i < 2 ? "h1" : "h2", i < 2 ? "aaaa" : "bbbb",
						"base", v[i]));
		json_array_append_new(rows, row(job++, i < 2 ? "h1" : "h2", i < 2 ? "aaaa" : "bbbb",
						"patch", v[i] * 1.1));
	}
	assert_int_equal(kbuild_label_rows(rows), 0);
	json_array_foreach(rows, i, r)
		json_object_set_new(r, "group", json_string(jget_str(r, "variant", "")));

	rep = analysis_compare(rows, "variant", "base", NULL, NULL, &err);
	if (!rep)
		fail_msg("%s", err.msg);
	assert_int_equal(json_array_size(json_object_get(rep, "pooled")), 2);
	p = json_array_get(json_object_get(rep, "pooled"), 0);
	assert_string_equal(jget_str(p, "side", ""), "baseline");
	assert_string_equal(jget_str(p, "group", ""), "base");
	assert_int_equal(json_array_size(json_object_get(p, "hosts")), 2);
	assert_string_equal(analysis_pooled_text(p, "variant", text, sizeof(text)),
			    "baseline variant 'base' holds values of 2 hosts (h1, h2) and 2 kernel "
			    "builds (" LABEL_A ", " LABEL_B ")");
	p = json_array_get(json_object_get(rep, "pooled"), 1);
	assert_string_equal(jget_str(p, "side", ""), "candidate");
	assert_string_equal(jget_str(p, "group", ""), "patch");
	/* the text says it under the table */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report_compare_print_text(rep, NULL, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "note: baseline variant 'base' holds values of 2 hosts (h1, "
			       "h2) and 2 kernel\n  builds (" LABEL_A ", " LABEL_B "); its figures "
			       "pool them"));
	assert_non_null(strstr(buf, "note: candidate variant 'patch' holds values of 2 hosts"));
	assert_non_null(strstr(buf, "kernel " LABEL_A ", " LABEL_B ", host h1, h2"));
	free(buf);
	json_decref(rep);

	/* --strict refuses, naming what is mixed */
	assert_null(analysis_compare(rows, "variant", "base", NULL, &strict, &err));
	assert_int_equal(errno, EDOM);
	assert_string_equal(err.msg, "baseline variant 'base' holds values of 2 hosts (h1, h2) and "
			    "2 kernel builds (" LABEL_A ", " LABEL_B "); --strict refuses to pool "
			    "them (--by host or kernel.build, or --host, splits them)");

	/* by host each side is one host and one build: nothing pooled, strict compares */
	json_array_foreach(rows, i, r)
		json_object_set_new(r, "group", json_string(jget_str(r, "host", "")));
	rep = analysis_compare(rows, "host", "h1", NULL, &strict, &err);
	if (!rep)
		fail_msg("%s", err.msg);
	assert_int_equal(json_array_size(json_object_get(rep, "pooled")), 0);
	json_decref(rep);
	json_decref(rows);
}

/* An import of values 30 + K/10 (K = 0, 1, 2) in three repetitions of variant "base",
 * on host HOST and kernel RELEASE (NULL: none) with VERSION (NULL: none). */
static int import_kernel(struct store *st, const char *host, const char *release,
			 const char *version, double base, int64_t *run)
{
	json_t *imp = json_pack("{s:s, s:s, s:s, s:[]}", "plan", "hand", "source", "hand.csv",
				"host", host, "jobs"), *k;
	int i, err;

	assert_non_null(imp);
	for (i = 0; i < 3; i++)
		json_array_append_new(json_object_get(imp, "jobs"),
				      json_pack("{s:s, s:i, s:[{s:s, s:s, s:f, s:s}]}", "variant",
						"base", "rep", i + 1, "samples", "metric",
						"prog.ns_per_run", "subject", "p", "value",
						base + i / 10.0, "unit", "ns"));
	if (release) {
		k = json_pack("{s:s}", "release", release);
		if (version)
			json_object_set_new(k, "version", json_string(version));
		json_object_set_new(imp, "kernel", k);
	}
	err = store_import(st, imp, 1700000000000LL, run);
	json_decref(imp);
	return err;
}

static json_t *history_by(struct store *st, const char *by)
{
	json_t *filter = json_pack("{s:s, s:s, s:s}", "plan", "hand", "metric",
				   "prog.ns_per_run", "by", by), *rows, *rep;
	struct err err;

	rows = store_query_values(st, filter);
	assert_non_null(rows);
	rep = analysis_history(rows, by, NULL, &err);
	if (!rep)
		fail_msg("%s", err.msg);
	json_decref(rows);
	json_decref(filter);
	return rep;
}

static void test_kbuild_import_history(void **state)
{
	struct err err;
	char long_name[STORE_KERNEL_NAME_MAX + 2];
	struct store *st = store_open(":memory:", false, &err);
	json_t *rep, *g, *runs, *rows, *filter;
	int64_t run = 0;

	assert_non_null(st);
	assert_int_equal(import_kernel(st, "lab1", REL, "#7", 30, &run), 0);
	assert_int_equal(import_kernel(st, "lab1", REL, "#8", 36, &run), 0);

	/* two builds of one release: two groups, labelled with the short hash
	 * (sha256 of REL "\n#7\n" and REL "\n#8\n": cf14be..., e3bd12...) */
	rep = history_by(st, "kernel.build");
	g = json_object_get(rep, "groups");
	assert_int_equal(json_array_size(g), 2);
	assert_string_equal(jget_str(json_array_get(g, 0), "group", ""), REL " #cf14be");
	assert_string_equal(jget_str(json_array_get(g, 1), "group", ""), REL " #e3bd12");
	g = json_object_get(json_array_get(json_object_get(rep, "series"), 0), "points");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(g, 0), "n")), 3);
	assert_true(json_real_value(json_object_get(json_array_get(g, 0), "mean")) > 30.0999 &&
		    json_real_value(json_object_get(json_array_get(g, 0), "mean")) < 30.1001);
	assert_true(json_real_value(json_object_get(json_array_get(g, 1), "mean")) > 36.0999 &&
		    json_real_value(json_object_get(json_array_get(g, 1), "mean")) < 36.1001);
	json_decref(rep);
	rep = history_by(st, "kernel.version");
	g = json_object_get(rep, "groups");
	assert_int_equal(json_array_size(g), 2);
	assert_string_equal(jget_str(json_array_get(g, 0), "group", ""), "#7");
	json_decref(rep);
	rep = history_by(st, "kernel.release");
	g = json_object_get(rep, "groups");
	assert_int_equal(json_array_size(g), 1);
	assert_string_equal(jget_str(json_array_get(g, 0), "group", ""), REL);
	/* the side names both builds and the host */
	assert_int_equal(json_array_size(json_object_get(json_array_get(g, 0), "builds")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(g, 0),
							     "hosts"), 0)), "lab1");
	json_decref(rep);

	/* bad kernels: refused, nothing stored */
	memset(long_name, 'k', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(import_kernel(st, "lab1", "", NULL, 1, &run), -EINVAL);
	assert_non_null(strstr(store_err(st)->msg, "'kernel.release' must be a name of 1 to 64 "
				"bytes"));
	assert_int_equal(import_kernel(st, "lab1", long_name, NULL, 1, &run), -EINVAL);
	assert_int_equal(import_kernel(st, "lab1", REL, long_name, 1, &run), -EINVAL);
	assert_non_null(strstr(store_err(st)->msg, "'kernel.version'"));
	long_name[STORE_KERNEL_NAME_MAX] = '\0';	/* 64 bytes: the most there may be */
	assert_int_equal(import_kernel(st, "lab2", long_name, NULL, 50, &run), 0);
	runs = store_query_runs(st);
	assert_int_equal(json_array_size(runs), 3);
	json_decref(runs);

	/* two fields: groups are their values joined by '/' */
	rep = history_by(st, "kernel.release,host");
	g = json_object_get(rep, "groups");
	assert_int_equal(json_array_size(g), 2);
	assert_string_equal(jget_str(json_array_get(g, 0), "group", ""), REL "/lab1");
	assert_non_null(strstr(jget_str(json_array_get(g, 1), "group", ""), "kkkk/lab2"));
	json_decref(rep);
	assert_true(store_values_by_known("port.driver,kernel.release"));
	assert_true(store_values_by_known("port.driver,kernel.release,host"));
	assert_false(store_values_by_known("port.driver,kernel.release,host,day"));
	assert_false(store_values_by_known("host,host"));
	assert_false(store_values_by_known("kernel.release,"));
	assert_false(store_values_by_known(",host"));
	assert_false(store_values_by_known("host,colour"));
	assert_false(store_values_by_known(""));
	assert_true(store_history_by_known("port.driver,kernel.release"));
	assert_true(store_history_by_known("day"));
	assert_false(store_history_by_known("kernel.release,host"));
	assert_false(store_history_by_known("dayz"));

	/* an unknown field lists the fields */
	filter = json_pack("{s:s}", "by", "colour");
	rows = store_query_values(st, filter);
	assert_null(rows);
	assert_non_null(strstr(store_err(st)->msg, "cannot group by 'colour' (the fields are "
				"kernel.release, kernel.build, kernel.version, kernel.config, "));
	json_decref(filter);
	store_close(&st);
}

/* The commit in a release lab/kbuild/build.sh made: the last "-bpflab-HEX12", with
 * "-dirty" kept; nothing for other releases. */
static void test_kbuild_commit_of_release(void **state)
{
	char c[KBUILD_COMMIT_LEN];

	(void)state;
	assert_true(kbuild_commit_of_release("6.12.118-bpflab-5aa4d9b42198", c));
	assert_string_equal(c, "5aa4d9b42198");
	assert_true(kbuild_commit_of_release("6.12.0-bpflab-0123456789ab-dirty", c));
	assert_string_equal(c, "0123456789ab-dirty");
	assert_true(kbuild_commit_of_release("6.1-bpflab-x-bpflab-aaaaaaaaaaaa", c));
	assert_string_equal(c, "aaaaaaaaaaaa");
	assert_false(kbuild_commit_of_release("6.12.0-bpflab-local", c));
	assert_string_equal(c, "");
	assert_false(kbuild_commit_of_release("6.12.0-bpflab-5aa4d9b4219", c));
	assert_false(kbuild_commit_of_release("6.12.0-bpflab-5aa4d9b42198x", c));
	assert_false(kbuild_commit_of_release("6.12.0-bpflab-5AA4D9B42198", c));
	assert_false(kbuild_commit_of_release("6.12.0-bpflab-5aa4d9b42198-rc1", c));
	assert_false(kbuild_commit_of_release("6.1.0-47-cloud-amd64", c));
	assert_false(kbuild_commit_of_release(NULL, c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kbuild_id_and_labels),
		cmocka_unit_test(test_kbuild_hashed_and_matches),
		cmocka_unit_test(test_kbuild_compare_history_plot),
		cmocka_unit_test(test_kbuild_pooling_strict),
		cmocka_unit_test(test_kbuild_import_history),
		cmocka_unit_test(test_kbuild_commit_of_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
