// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_export_store.c - `bpflab result export` of a real store (lib/store, lib/report/export.c,
 * cli/result_analysis.c): one run on hosts h1 and h2 over three kernel builds, two of them
 * of the same release. Every KCIDB test and BMF benchmark must carry exactly the stored
 * values of its own host and build (the numbers below are worked out by hand); --host and
 * --kernel select; ids are unique, the same in two exports and different in two
 * databases; the database id of schema 011 is given to an older database when it
 * migrates; the CLI's errors for a host or kernel without results, and --build-id.
 * The formats' rules: export_schema.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jget.h"
#include "plan/plan.h"
#include "report/export.h"
#include "store/store.h"
#include "base/util.h"
#include "helpers.h"
#include "export_schema.h"

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"
#define T0 1764583200000LL		/* 2025-12-01T10:00:00Z */

/* The three builds: kbuild.h's identities (printf '%s\n%s\n%s' R V C | sha256sum) and
 * labels with their hash (kbuild_label_hashed). */
static const struct build {
	const char *release, *version, *config, *id, *label;
} builds[] = {
	{ "6.1.158", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1", "a1",
	  "c3db54551126532e14eb5082ab69f8d632f1eaa858c73e3f53ad64fe6d33a617", "6.1.158 #c3db54" },
	{ "6.18.0-rc1+", "#3 SMP PREEMPT_DYNAMIC Mon Dec  1 10:00:00 UTC 2026", "b2",
	  "a78cf9f197ee5de18eafcd05be1472453dfba19a8cd62b66c5e287bf3aadc3a9",
	  "6.18.0-rc1+ #a78cf9" },
	{ "6.18.0-rc1+", "#4 SMP PREEMPT_DYNAMIC Mon Dec  1 12:00:00 UTC 2026", "c3",
	  "eb92d1012fea91b5bfa8c9c94e656d5fe29726712ec07762e98951025340ea63",
	  "6.18.0-rc1+ #eb92d1" },
};

/* What each job ran on and measured: host, repetition, build, rx pps, ns per run, start
 * (ms after T0; h2's second repetition started before its first but ended after it). */
static const struct job_run {
	const char *host;
	int rep, build;
	double pps, ns;
	long long start;
} job_runs[] = {
	{ "h1", 1, 0, 10e6, 30, 60250 },
	{ "h1", 2, 0, 15e6, 34, 120250 },
	{ "h1", 3, 1, 20e6, 40, 180250 },
	{ "h2", 1, 2, 6e6, 50, 240250 },
	{ "h2", 2, 2, 12e6, 52, 235250 },
	{ "h2", 3, 0, 30e6, 25, 360250 },
};

/* The export by hand: per host and build, the mean of the pps (windows of equal time:
 * (10 + 15) / 2 = 12.5 M, (6 + 12) / 2 = 9 M; the harmonic 12 M and 8 M before), of the
 * ns, their min and max, the number of values and the earliest start. */
static const struct expect {
	const char *host;
	int build;
	double pps, pps_lo, pps_hi, ns, ns_lo, ns_hi;
	int n;
	const char *start;
} expects[] = {
	{ "h1", 0, 12.5e6, 10e6, 15e6, 32, 30, 34, 2, "2025-12-01T10:01:00.250+00:00" },
	{ "h1", 1, 20e6, 20e6, 20e6, 40, 40, 40, 1, "2025-12-01T10:03:00.250+00:00" },
	{ "h2", 2, 9e6, 6e6, 12e6, 51, 50, 52, 2, "2025-12-01T10:03:55.250+00:00" },
	{ "h2", 0, 30e6, 30e6, 30e6, 25, 25, 25, 1, "2025-12-01T10:06:00.250+00:00" },
};

static char tmpdir[] = "/tmp/bpflab-test-export-XXXXXX";

static const char plan_text[] = "name: kx\nvariants: {drop: []}\nrepeat: 3\n";

/* A database at PATH holding the run of job_runs (run 1). */
static void make_store(const char *path)
{
	struct plan_variant variant = { .name = "drop" };
	struct plan plan = { .file = "kx.yaml", .text = (char *)plan_text,
			     .text_len = sizeof(plan_text) - 1, .name = "kx", .repeat = 3,
			     .variants = &variant, .n_variants = 1 };
	struct plan_job jobs[3];
	struct store_job_new jn[6];
	int64_t hosts[2], run, job, run_of, k;
	struct err err;
	struct store *st;
	json_t *inv, *spec;
	int i;

	util_sha256_hex(plan_text, plan.text_len, plan.sha256);
	st = store_open(path, false, &err);
	assert_non_null(st);
	inv = json_pack("{s:{s:s}}", "kernel", "release", builds[0].release);
	assert_int_equal(store_host_hello(st, "h1", "0.1", inv, T0, &hosts[0], NULL), 0);
	assert_int_equal(store_host_hello(st, "h2", "0.1", inv, T0, &hosts[1], NULL), 0);
	json_decref(inv);
	for (i = 0; i < 3; i++) {
		jobs[i] = (struct plan_job){ .seq = i, .rep = i + 1,
			.point_values = json_pack("{s:s}", "traffic.packet.size", "64"),
			.spec = json_pack("{s:s, s:s, s:i}", "plan", "kx", "variant", "drop",
					  "rep", i + 1) };
		jn[i] = (struct store_job_new){ .host_id = hosts[0], .job = &jobs[i] };
		jn[3 + i] = (struct store_job_new){ .host_id = hosts[1], .job = &jobs[i] };
	}
	assert_int_equal(store_run_create(st, &plan, NULL, NULL, jn, 6, T0, &run), 0);
	assert_int_equal(run, 1);
	for (k = 0; k < 6; k++) {
		const struct job_run *jr = &job_runs[k];
		const struct build *b = &builds[jr->build];
		struct store_ingest ing;
		json_t *res;

		assert_int_equal(store_job_next(st, hosts[k / 3], &job, &run_of, &spec), 0);
		assert_int_equal(json_integer_value(json_object_get(spec, "rep")), jr->rep);
		json_decref(spec);
		assert_int_equal(store_job_dispatch(st, job, T0 + jr->start - 1000), 0);
		res = json_pack("{s:i, s:s, s:I, s:s, s:I, s:I, s:{s:{s:s, s:s, s:s}, s:{s:s}}, "
				"s:[{s:s, s:s, s:f, s:s, s:s, s:n}, {s:s, s:s, s:f, s:s, s:s, s:n}]}",
				"v", 1, "type", "result", "job", (json_int_t)job, "status", "ok",
				"started_ms", (json_int_t)(T0 + jr->start),
				"finished_ms", (json_int_t)(T0 + 60000 * (k + 1) + 30000),
				"env", "kernel", "release", b->release, "version", b->version,
				"config_sha256", b->config, "cpu", "model", "Xeon",
				"samples", "metric", "port.rx_pps", "subject", "b", "value", jr->pps,
				"unit", "pps", "window", "rate", "seq",
				"metric", "prog.ns_per_run", "subject", "xdp_drop", "value", jr->ns,
				"unit", "ns", "window", "cost", "seq");
		assert_non_null(res);
		assert_int_equal(store_ingest_result(st, hosts[k / 3], res, T0 + 60000 * (k + 1) +
						     30000, &ing), 0);
		json_decref(res);
	}
	for (i = 0; i < 3; i++) {
		json_decref(jobs[i].point_values);
		json_decref(jobs[i].spec);
	}
	store_close(&st);
}

/* The value rows of run 1 of database PATH and its id (into DB_ID). */
static json_t *run_rows(const char *path, char db_id[STORE_DB_ID_LEN])
{
	struct err err;
	struct store *st = store_open(path, true, &err);
	json_t *filter = json_pack("{s:[i]}", "runs", 1), *rows;

	assert_non_null(st);
	rows = store_query_values(st, filter);
	assert_non_null(rows);
	assert_int_equal(json_array_size(rows), 12);
	assert_int_equal(store_db_id(st, db_id), 0);
	store_close(&st);
	json_decref(filter);
	return rows;
}

static json_t *kcidb(const json_t *rows, const char *db_id, const char *build_id)
{
	json_t *k = export_kcidb(rows, &(struct export_kcidb_opts){
		.db_id = db_id, .build_id = build_id });

	assert_non_null(k);
	assert_kcidb_v4_4(k);
	return k;
}

/* The index in builds[] of the build with version string VERSION (the test fails
 * without one). */
static size_t build_of(const char *version)
{
	size_t x;

	for (x = 0; x < ARRAY_LEN(builds) && strcmp(builds[x].version, version); x++)
		;
	assert_true(x < ARRAY_LEN(builds));
	return x;
}

/* The expectation of host HOST and build identity ID (the test fails without one). */
static const struct expect *expect_of(const char *host, const char *id)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(expects); i++)
		if (!strcmp(expects[i].host, host) && !strcmp(builds[expects[i].build].id, id))
			return &expects[i];
	fail_msg("no result expected of host '%s' on build %s", host, id);
	return NULL;
}

/* Every test of K (from DB_ID's database) against its host's and build's stored values;
 * the builds and checkouts are exactly those of EXPECT_BUILDS (a bit per builds[]). */
static void check_kcidb(const json_t *k, const char *db_id, unsigned expect_builds)
{
	json_t *t, *b, *ids = json_object();
	char want[600];
	size_t i, n = 0;

	for (i = 0; i < ARRAY_LEN(builds); i++)
		n += (expect_builds >> i) & 1;
	assert_int_equal(json_array_size(json_object_get(k, "builds")), n);
	assert_int_equal(json_array_size(json_object_get(k, "checkouts")), n);
	json_array_foreach(json_object_get(k, "builds"), i, b) {
		const json_t *misc = json_object_get(b, "misc");
		size_t x = build_of(jget_str(misc, "kernel_version", ""));

		assert_true((expect_builds >> x) & 1);
		snprintf(want, sizeof(want), "bpflab:build.%s@%s", builds[x].release,
			 builds[x].id);
		assert_text(jget_str(b, "id", ""), want);
		snprintf(want, sizeof(want), "bpflab:checkout.%s@%s", builds[x].release,
			 builds[x].id);
		assert_text(jget_str(b, "checkout_id", ""), want);
		assert_text(jget_str(misc, "kernel_release", ""), builds[x].release);
		assert_text(jget_str(misc, "config_sha256", ""), builds[x].config);
		assert_text(jget_str(misc, "kernel_build", ""), builds[x].label);
		assert_true(json_is_true(json_object_get(b, "valid")));
	}
	json_array_foreach(json_object_get(k, "tests"), i, t) {
		const json_t *env = json_object_get(json_object_get(t, "environment"), "misc");
		const json_t *misc = json_object_get(t, "misc"), *num = json_object_get(t, "number");
		const char *host = jget_str(env, "host", ""), *id = jget_str(t, "id", "");
		bool pps = strstr(jget_str(t, "path", ""), "port_rx_pps") != NULL;
		const struct build *bd = &builds[build_of(jget_str(env, "kernel_version", ""))];
		const struct expect *e = expect_of(host, bd->id);

		/* the environment is this host's and this build's, exactly as stored */
		assert_text(jget_str(json_object_get(t, "environment"), "comment", ""), host);
		assert_text(jget_str(env, "kernel_release", ""), bd->release);
		assert_text(jget_str(env, "config_sha256", ""), bd->config);
		assert_text(jget_str(env, "kernel_build", ""), bd->label);
		assert_text(jget_str(env, "cpu", ""), "Xeon");
		snprintf(want, sizeof(want), "bpflab:build.%s@%s", bd->release, bd->id);
		assert_text(jget_str(t, "build_id", ""), want);
		snprintf(want, sizeof(want), "bpflab:%s.run1.%s.%.16s.bpflab.kx.drop."
			 "traffic_packet_size_64.%s", db_id, host, bd->id,
			 pps ? "port_rx_pps.b" : "prog_ns_per_run.xdp_drop");
		assert_text(id, want);
		assert_text(jget_str(t, "start_time", ""), e->start);
		assert_int_equal(json_integer_value(json_object_get(misc, "n")), e->n);
		if (pps) {
			assert_near(json_real_value(json_object_get(num, "value")), e->pps, 1e-3);
			assert_text(jget_str(num, "unit", ""), "pps");
			assert_near(json_real_value(json_object_get(misc, "min")), e->pps_lo, 1e-3);
			assert_near(json_real_value(json_object_get(misc, "max")), e->pps_hi, 1e-3);
		} else {
			assert_near(json_real_value(json_object_get(num, "value")), e->ns * 1e-9,
				    1e-15);
			assert_text(jget_str(num, "unit", ""), "s");
			assert_near(json_real_value(json_object_get(misc, "min")), e->ns_lo, 1e-9);
			assert_near(json_real_value(json_object_get(misc, "max")), e->ns_hi, 1e-9);
		}
		/* ids unique */
		assert_null(json_object_get(ids, id));
		json_object_set_new(ids, id, json_true());
	}
	json_decref(ids);
}

/* Measure METRIC of benchmark "kx/drop/SUBJECT/traffic.packet.size=64 [HOST LABEL]" of
 * B: VALUE, LO and HI within EPS. */
static void assert_measure(const json_t *b, const char *subject, const struct expect *e,
			   const char *metric, double value, double lo, double hi, double eps)
{
	char name[300];
	json_t *m;

	/* no host, no kernel: the same name in every host's and build's document */
	snprintf(name, sizeof(name), "kx/drop/%s/traffic.packet.size=64", subject);
	m = json_object_get(json_object_get(b, name), metric);
	assert_non_null(m);
	assert_near(json_real_value(json_object_get(m, "value")), value, eps);
	assert_near(json_real_value(json_object_get(m, "lower_value")), lo, eps);
	assert_near(json_real_value(json_object_get(m, "upper_value")), hi, eps);
}

/* The BMF of ROWS: refused (EINVAL) when they span several hosts or builds (a document
 * is one Bencher testbed and branch); the document of each of the N_EXPECTS (host,
 * build) pairs of EX, as by hand, its benchmarks named alike in all of them. */
static void check_bmf(const json_t *rows, size_t n_expects, const struct expect *const *ex)
{
	struct err msg;
	json_t *sel, *b;
	size_t i;

	errno = 0;
	b = export_bmf(rows);
	if (n_expects > 1) {
		assert_null(b);
		assert_int_equal(errno, EINVAL);
	}
	json_decref(b);
	for (i = 0; i < n_expects; i++) {
		sel = export_select(rows, ex[i]->host, builds[ex[i]->build].label, &msg);
		assert_non_null(sel);
		b = export_bmf(sel);
		assert_non_null(b);
		assert_bmf(b);
		assert_int_equal(json_object_size(b), 2);
		assert_measure(b, "b", ex[i], "port.rx_pps", ex[i]->pps, ex[i]->pps_lo,
			       ex[i]->pps_hi, 1e-3);
		assert_measure(b, "xdp_drop", ex[i], "prog.ns_per_run", ex[i]->ns, ex[i]->ns_lo,
			       ex[i]->ns_hi, 1e-9);
		json_decref(b);
		json_decref(sel);
	}
}

static void test_export_store_hosts_and_builds(void **state)
{
	const struct expect *all[] = { &expects[0], &expects[1], &expects[2], &expects[3] };
	char db[300], db2[300], id[STORE_DB_ID_LEN], id2[STORE_DB_ID_LEN];
	json_t *rows, *rows2, *k, *k2, *b, *t;
	size_t i, j;

	snprintf(db, sizeof(db), "%s/a.db", tmpdir);
	rows = run_rows(db, id);
	assert_int_equal(strlen(id), 16);
	assert_true(strspn(id, "0123456789abcdef") == 16);

	k = kcidb(rows, id, NULL);
	assert_int_equal(json_array_size(json_object_get(k, "tests")), 8);
	check_kcidb(k, id, 7);
	/* stable: the same export twice */
	k2 = kcidb(rows, id, NULL);
	assert_true(json_equal(k, k2));
	json_decref(k2);
	check_bmf(rows, 4, all);

	/* another database with the same results: another id, so no test id in common;
	 * its builds are the same builds, with the same ids */
	snprintf(db2, sizeof(db2), "%s/b.db", tmpdir);
	make_store(db2);
	rows2 = run_rows(db2, id2);
	assert_string_not_equal(id, id2);
	k2 = kcidb(rows2, id2, NULL);
	check_kcidb(k2, id2, 7);
	json_array_foreach(json_object_get(k, "tests"), i, t)
		json_array_foreach(json_object_get(k2, "tests"), j, b)
			assert_string_not_equal(jget_str(t, "id", ""), jget_str(b, "id", ""));
	assert_true(json_equal(json_object_get(k, "builds"), json_object_get(k2, "builds")));
	json_decref(k2);
	json_decref(rows2);
	json_decref(k);
	json_decref(rows);
}

static void test_export_store_select(void **state)
{
	const struct expect *h2[] = { &expects[2], &expects[3] };
	const struct expect *rc1[] = { &expects[1], &expects[2] };
	struct err msg;
	char db[300], id[STORE_DB_ID_LEN];
	json_t *rows, *sel, *k;

	snprintf(db, sizeof(db), "%s/a.db", tmpdir);
	rows = run_rows(db, id);

	sel = export_select(rows, "h2", NULL, &msg);
	assert_int_equal(json_array_size(sel), 6);
	k = kcidb(sel, id, NULL);
	check_kcidb(k, id, 1 | 4);
	json_decref(k);
	check_bmf(sel, 2, h2);
	json_decref(sel);

	/* a release: both of its builds, on either host */
	sel = export_select(rows, NULL, "6.18.0-rc1+", &msg);
	assert_int_equal(json_array_size(sel), 6);
	check_bmf(sel, 2, rc1);
	json_decref(sel);

	/* a build by its label, and by a longer hash, on its host */
	sel = export_select(rows, "h1", "6.18.0-rc1+ #a78cf9", &msg);
	assert_int_equal(json_array_size(sel), 2);
	k = kcidb(sel, id, NULL);
	check_kcidb(k, id, 2);
	json_decref(k);
	/* the caller's build id: named by every test, no checkouts or builds */
	k = kcidb(sel, id, "ci:kernel-42");
	assert_null(json_object_get(k, "builds"));
	assert_text(jget_str(json_array_get(json_object_get(k, "tests"), 0), "build_id", ""),
		    "ci:kernel-42");
	json_decref(k);
	json_decref(sel);
	sel = export_select(rows, NULL, "6.18.0-rc1+ #eb92d1012fea", &msg);
	assert_int_equal(json_array_size(sel), 4);
	json_decref(sel);

	/* nothing: say which hosts and kernels there are */
	errno = 0;
	assert_null(export_select(rows, "h3", NULL, &msg));
	assert_int_equal(errno, ENOENT);
	assert_text(msg.msg, "host 'h3' has no results (hosts: h1, h2)");
	assert_null(export_select(rows, NULL, "6.2", &msg));
	assert_text(msg.msg, "kernel '6.2' has no results (kernels: 6.1.158, 6.18.0-rc1+ #a78cf9, "
		    "6.18.0-rc1+ #eb92d1)");
	assert_null(export_select(rows, "h2", "6.18.0-rc1+ #a78cf9", &msg));
	assert_text(msg.msg, "kernel '6.18.0-rc1+ #a78cf9' has no results on host 'h2' (kernels: "
		    "6.18.0-rc1+ #eb92d1, 6.1.158)");
	json_decref(rows);
}

/* The CLI on the database: the same export as the library's, its errors and statuses. */
static void test_export_store_cli(void **state)
{
	static const struct {
		const char *args[8];
		int status;
		const char *err;
	} bad[] = {
		{ { "--host", "h3" }, 1, "bpflab: run 1: host 'h3' has no results (hosts: h1, h2)\n" },
		{ { "--kernel", "6.2" }, 1, "bpflab: run 1: kernel '6.2' has no results (kernels: "
		  "6.1.158, 6.18.0-rc1+ #a78cf9, 6.18.0-rc1+ #eb92d1)\n" },
		{ { "--build-id", "ci:k1" }, 1, "bpflab: --build-id names one build, but run 1 has "
		  "results of 3 kernel builds: choose one with --kernel\n" },
		{ { "--build-id", "k1" }, 2, "--build-id 'k1' is not a KCIDB id" },
		{ { "--kernel", "" }, 2, "--kernel '' is not a kernel release" },
	};
	char db[300], id[STORE_DB_ID_LEN], *text, *line;
	const char *argv[16];
	struct prog_out o;
	json_t *rows, *got, *want;
	size_t i, n;

	snprintf(db, sizeof(db), "%s/a.db", tmpdir);
	rows = run_rows(db, id);
	want = kcidb(rows, id, NULL);
	prog_run(&o, (const char *[]){ BPFLAB, "--db", db, "result", "export", "1", "--format",
				       "kcidb", NULL }, tmpdir);
	assert_int_equal(o.status, 0);
	text = json_dumps(want, JSON_COMPACT | JSON_REAL_PRECISION(15));	/* as the CLI */
	assert_non_null(text);
	assert_true(asprintf(&line, "%s\n", text) > 0);
	assert_text(o.out, line);
	free(line);
	free(text);
	json_decref(want);
	prog_out_free(&o);

	prog_run(&o, (const char *[]){ BPFLAB, "--db", db, "result", "export", "1", "--format",
				       "kcidb", "--host", "h1", "--kernel", "6.18.0-rc1+ #a78c",
				       "--build-id", "ci:k1", NULL }, tmpdir);
	assert_int_equal(o.status, 0);
	got = json_of(o.out);
	assert_int_equal(json_array_size(json_object_get(got, "tests")), 2);
	assert_text(jget_str(json_array_get(json_object_get(got, "tests"), 1), "build_id", ""), "ci:k1");
	json_decref(got);
	prog_out_free(&o);

	/* BMF: one host and build a document; the error lists the options of each pair */
	prog_run(&o, (const char *[]){ BPFLAB, "--db", db, "result", "export", "1", "--format",
				       "bmf", NULL }, tmpdir);
	assert_int_equal(o.status, 1);
	assert_text(o.out, "");
	assert_text(o.err, "bpflab: run 1 has results of 4 host and kernel build pairs, and a "
		    "BMF document holds one (a Bencher testbed and branch): export each with "
		    "--host h1 --kernel '6.1.158', --host h1 --kernel '6.18.0-rc1+ #a78cf9', "
		    "--host h2 --kernel '6.18.0-rc1+ #eb92d1', --host h2 --kernel '6.1.158'\n");
	prog_out_free(&o);
	prog_run(&o, (const char *[]){ BPFLAB, "--db", db, "result", "export", "1", "--format",
				       "bmf", "--host", "h2", "--kernel", "6.1.158", NULL },
		 tmpdir);
	assert_int_equal(o.status, 0);
	got = json_of(o.out);
	assert_non_null(json_object_get(got, "kx/drop/b/traffic.packet.size=64"));
	assert_int_equal(json_object_size(got), 2);
	json_decref(got);
	prog_out_free(&o);

	for (i = 0; i < ARRAY_LEN(bad); i++) {
		const char *base[] = { BPFLAB, "--db", db, "result", "export", "1", "--format",
				       "kcidb" };

		memcpy(argv, base, sizeof(base));
		n = ARRAY_LEN(base);
		for (size_t a = 0; bad[i].args[a]; a++)
			argv[n++] = bad[i].args[a];
		argv[n] = NULL;
		prog_run(&o, argv, tmpdir);
		assert_int_equal(o.status, bad[i].status);
		assert_contains(o.err, bad[i].err);
		assert_text(o.out, "");
		prog_out_free(&o);
	}
	json_decref(rows);
}

/* Schema 011 gives a database of schema 10 its id when it migrates. */
extern const char *const store_migrations[];

static void test_export_store_db_id_migration(void **state)
{
	struct err err;
	char db[300], sql[64], id[STORE_DB_ID_LEN];
	struct store *st;
	sqlite3 *c;
	int v;

	snprintf(db, sizeof(db), "%s/old.db", tmpdir);
	assert_int_equal(sqlite3_open(db, &c), SQLITE_OK);
	for (v = 1; v <= 10; v++)
		assert_int_equal(sqlite3_exec(c, store_migrations[v - 1], NULL, NULL, NULL), 0);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = 10");
	assert_int_equal(sqlite3_exec(c, sql, NULL, NULL, NULL), 0);
	sqlite3_close(c);
	/* read-only, an older database is refused; read-write it migrates */
	assert_null(store_open(db, true, &err));
	st = store_open(db, false, &err);
	assert_non_null(st);
	assert_true(store_schema_version(st) >= 11);
	assert_int_equal(store_db_id(st, id), 0);
	assert_int_equal(strlen(id), 16);
	assert_true(strspn(id, "0123456789abcdef") == 16);
	store_close(&st);
	/* and keeps it */
	st = store_open(db, true, &err);
	assert_non_null(st);
	{
		char again[STORE_DB_ID_LEN];

		assert_int_equal(store_db_id(st, again), 0);
		assert_text(again, id);
	}
	store_close(&st);
}

/* The database of every test: a.db in a new TMPDIR. */
static int setup(void **state)
{
	char db[300];

	tmpdir_make(tmpdir);
	snprintf(db, sizeof(db), "%s/a.db", tmpdir);
	make_store(db);
	return 0;
}

static int teardown(void **state)
{
	return tmpdir_remove(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_store_hosts_and_builds),
		cmocka_unit_test(test_export_store_select),
		cmocka_unit_test(test_export_store_cli),
		cmocka_unit_test(test_export_store_db_id_migration),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
