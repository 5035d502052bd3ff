// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_noise.c - the noise floor: lib/analysis/noise.c (CV, the advice a plan gets, the built-in
 * calibration plan) and lib/store/store_noise.c (a run's noise floor recorded from its stored
 * values in one transaction, and read back), on a real SQLite database in a temporary
 * directory, against hand-worked values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "analysis/noise.h"
#include "plan/plan.h"
#include "store/store.h"
#include "store/store_noise.h"
#include "base/util.h"

static char tmpdir[] = "/tmp/bpflab-test-noise-XXXXXX";

static void test_noise_cv(void **state)
{
	const double v[] = { 24, 26, 24, 26 }, zero[] = { -1, 1 };

	/* sd of 24, 26, 24, 26: sqrt(4 / 3) = 1.154701; / 25 */
	assert_float_equal(noise_cv(v, 4), 0.0461880, 1e-6);
	assert_true(isnan(noise_cv(v, 1)));
	assert_true(isnan(noise_cv(zero, 2)));
}

/* The built-in plan is plans/calibrate.yaml, and a valid plan of one XDP_DROP variant. */
static void test_noise_calibrate_plan(void **state)
{
	struct err err = { .msg = "" };
	struct plan *plan;
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(util_read_file(BPFLAB_SRCDIR "/plans/calibrate.yaml", 1 << 20, &text,
					&len), 0);
	assert_int_equal(len, strlen(noise_calibrate_plan));
	assert_memory_equal(text, noise_calibrate_plan, len);
	free(text);
	plan = plan_parse("calibrate", noise_calibrate_plan, strlen(noise_calibrate_plan), NULL,
			  0, &err);
	assert_non_null(plan);
	assert_int_equal(plan->n_variants, 1);
	assert_int_equal(plan->repeat, 10);
	plan_destroy(&plan);
}

/* Hosts as noise_hosts_attach makes them from flat rows. */
static json_t *hosts_with(const char *rows_json)
{
	json_t *hosts = json_loads("[{\"id\": 1, \"name\": \"h1\"}, {\"id\": 2, \"name\": \"h2\"},"
				   " {\"id\": 3, \"name\": \"h3\"}]", 0, NULL);
	json_t *rows = json_loads(rows_json, 0, NULL);

	assert_non_null(hosts);
	assert_non_null(rows);
	assert_int_equal(noise_hosts_attach(hosts, rows), 0);
	json_decref(rows);
	return hosts;
}

/* 3.1 % CV for 2 %: 38 repetitions (test_stats.c); the largest CV of the plan's metrics
 * decides, a subject far below its metric's largest mean does not; repeat max 3 is too
 * few: 3 + 3 values at 3.1 % can see 2.801585 * 0.031 * sqrt(2/3) = 7.09 %. */
static void test_noise_advise(void **state)
{
	json_t *hosts = hosts_with(
		"[{\"host_id\": 1, \"run\": 4, \"env_id\": 7, \"kernel_release\": \"6.1.0\","
		"  \"measured_ms\": 5, \"metric\": \"prog.ns_per_run\", \"subject\": \"xdp_drop\","
		"  \"window\": \"cost\", \"unit\": \"ns\", \"n\": 10, \"mean\": 25, \"cv\": 0.031},"
		" {\"host_id\": 1, \"run\": 4, \"env_id\": 7, \"metric\": \"port.rx_pps\","
		"  \"subject\": \"a\", \"window\": \"rate\", \"n\": 10, \"mean\": 0.4, \"cv\": 2.4},"
		" {\"host_id\": 1, \"run\": 4, \"env_id\": 7, \"metric\": \"port.rx_pps\","
		"  \"subject\": \"b\", \"window\": \"rate\", \"n\": 10, \"mean\": 1e6, \"cv\": 0.012},"
		" {\"host_id\": 2, \"run\": 5, \"env_id\": 8, \"metric\": \"prog.ns_per_run\","
		"  \"subject\": \"xdp_drop\", \"window\": \"cost\", \"n\": 10, \"mean\": 30,"
		"  \"cv\": 0.02},"
		" {\"host_id\": 9, \"run\": 6, \"env_id\": 9, \"metric\": \"prog.ns_per_run\","
		"  \"subject\": \"x\", \"window\": \"cost\", \"n\": 10, \"mean\": 30, \"cv\": 0.5}]");
	char *rx[] = { "port.rx_pps" }, *ns[] = { "prog.ns_per_run" }, *none[] = { "x.y" };
	struct noise_advice a;
	const json_t *noise;
	char text[512];
	json_t *j;

	/* the rows grouped on their hosts; the row of an unknown host is left out */
	noise = json_object_get(json_array_get(hosts, 0), "noise");
	assert_int_equal(json_integer_value(json_object_get(noise, "run")), 4);
	assert_string_equal(json_string_value(json_object_get(noise, "kernel_release")), "6.1.0");
	assert_int_equal(json_array_size(json_object_get(noise, "metrics")), 3);
	assert_null(json_object_get(json_object_get(json_array_get(json_object_get(noise,
		"metrics"), 0), "host_id"), "x"));
	assert_null(json_object_get(json_array_get(hosts, 2), "noise"));

	assert_int_equal(noise_advise(hosts, NULL, 0, 0.02, 3, &a), 0);
	assert_int_equal(a.reps, 38);
	assert_false(a.capped);
	assert_string_equal(a.host, "h1");
	assert_string_equal(a.metric, "prog.ns_per_run");
	assert_float_equal(a.reachable, 0.070913, 1e-5);
	noise_advice_text(&a, text, sizeof(text));
	assert_string_equal(text, "needs about 38 repetitions per variant to see a 2 % change "
			    "(host h1: prog.ns_per_run xdp_drop CV 3.1 %)");
	assert_true(noise_advice_warning(&a, text, sizeof(text)));
	assert_string_equal(text, "repeat max 3 is too few for it (needs about 38): 3 + 3 "
			    "values at 3.1 % CV can see a change of about 7.1 %");
	j = noise_advice_json(&a);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "reps")), 38);
	assert_false(json_is_true(json_object_get(j, "enough")));
	assert_float_equal(json_number_value(json_object_get(j, "min_detectable_pct")), 7.0913,
			   1e-3);
	json_decref(j);

	/* port b's 1.2 % decides port.rx_pps, not port a's 240 % around 0.4 pps:
	 * 15.697758 * 0.012^2 / 0.05^2 = 0.90 -> 1, at least 2; 40 are enough */
	assert_int_equal(noise_advise(hosts, rx, 1, 0.05, 40, &a), 0);
	assert_string_equal(a.subject, "b");
	assert_int_equal(a.reps, 2);
	assert_false(noise_advice_warning(&a, text, sizeof(text)));
	assert_string_equal(text, "");

	/* only h2: 2 % CV for 2 %: 15.70 -> 16 */
	json_array_remove(hosts, 0);
	assert_int_equal(noise_advise(hosts, ns, 1, 0.02, 20, &a), 0);
	assert_string_equal(a.host, "h2");
	assert_int_equal(a.reps, 16);

	/* capped: 50 % CV for 0.1 % */
	json_array_insert_new(hosts, 0, json_pack("{s:i, s:s, s:{s:[{s:s, s:f, s:f}]}}", "id", 4,
		"name", "h4", "noise", "metrics", "metric", "m", "mean", 1.0, "cv", 0.5));
	assert_int_equal(noise_advise(hosts, NULL, 0, 0.001, 5, &a), 0);
	assert_true(a.capped);
	assert_int_equal(a.reps, NOISE_MAX_REPS);
	noise_advice_text(&a, text, sizeof(text));
	assert_string_equal(text, "needs more than 1000 repetitions per variant to see a "
			    "0.1 % change (host h4: m CV 50 %)");

	assert_int_equal(noise_advise(hosts, none, 1, 0.02, 5, &a), -ENOENT);
	assert_int_equal(noise_advise(hosts, NULL, 0, 0, 5, &a), -EINVAL);
	json_decref(hosts);
}

/* --- the store --- */

static const char plan_text[] =
	"name: cal2\n"
	"ports: [a, b]\n"
	"traffic: {generator: xdp-live, from: a, duration: 1s}\n"
	"variants:\n"
	"  drop:\n"
	"    - {port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o, program: xdp_drop}\n"
	"  pass:\n"
	"    - {port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o, program: xdp_pass}\n"
	"repeat: 10\n";

static json_t *sample(const char *metric, const char *subject, double v, const char *unit,
		      const char *window)
{
	return json_pack("{s:s, s:s, s:f, s:s, s:s, s:n}", "metric", metric, "subject", subject,
			 "value", v, "unit", unit, "window", window, "seq");
}

/* A database at PATH with host h1 and run 1 of plan_text; with RUN_JOBS its jobs ran:
 * per repetition (odd - even) drop: port.rx_pps b 0.99M / 1.01M, xdp_drop 24 / 26 ns;
 * pass: port.rx_pps b 1.96M / 2.04M, xdp_pass 30 ns always; port.rx_pps a 0 / 1.
 * *HOST gets h1's id. */
static void make_db(const char *path, bool run_jobs, int64_t *host)
{
	json_t *inv = json_loads("{\"hostname\":\"h1\",\"agent\":\"h1\",\"kernel\":"
				 "{\"release\":\"6.18.44\",\"version\":\"#1 SMP\"},"
				 "\"ports\":[{\"role\":\"a\",\"name\":\"h1-a\",\"driver\":\"veth\"},"
				 "{\"role\":\"b\",\"name\":\"h1-b\",\"driver\":\"veth\"}]}", 0, NULL);
	struct err perr = { .msg = "" };
	struct plan_objects objs = { 0 };
	struct store_job_new *jn;
	struct plan_job *jobs;
	struct store *st;
	struct plan *plan;
	int64_t run, job_id, run_id;
	struct err err;
	json_t *spec, *a;
	int n, i;
	size_t x;

	st = store_open(path, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1.0", inv, 1000, host, NULL), 0);
	plan = plan_parse("cal2.yaml", plan_text, strlen(plan_text), NULL, 0, &perr);
	assert_non_null(plan);
	assert_int_equal(plan_objects_resolve(plan, BPFLAB_BUILDDIR "/bpf", &objs, &perr), 0);
	assert_int_equal(plan_expand(plan, &jobs, &n, &perr), 0);
	jn = calloc(n, sizeof(*jn));
	assert_non_null(jn);
	for (i = 0; i < n; i++) {
		json_array_foreach(json_object_get(jobs[i].spec, "attach"), x, a)
			json_object_set_new(a, "sha256", json_string(plan_objects_find(&objs,
				json_string_value(json_object_get(a, "object")))->sha256));
		jn[i].host_id = *host;
		jn[i].job = &jobs[i];
	}
	assert_int_equal(store_run_create(st, plan, NULL, &objs, jn, n, 2000, &run), 0);
	assert_int_equal(run, 1);
	while (run_jobs && store_job_next(st, *host, &job_id, &run_id, &spec) == 0) {
		bool drop = !strcmp(json_string_value(json_object_get(spec, "variant")), "drop");
		bool odd = json_integer_value(json_object_get(spec, "rep")) % 2;
		struct store_ingest ing;
		json_t *res, *s;

		assert_int_equal(store_job_dispatch(st, job_id, 3000), 0);
		res = json_pack("{s:i, s:s, s:I, s:s, s:O, s:i, s:i, s:[]}", "v", 1, "type",
				"result", "job", (json_int_t)job_id, "status", "ok", "env", inv,
				"started_ms", 3000, "finished_ms", 4000, "samples");
		assert_non_null(res);
		s = json_object_get(res, "samples");
		json_array_append_new(s, sample("port.rx_pps", "b", drop ? (odd ? 0.99e6 : 1.01e6) :
						(odd ? 1.96e6 : 2.04e6), "pps", "rate"));
		json_array_append_new(s, sample("port.rx_pps", "a", odd ? 0 : 1, "pps", "rate"));
		json_array_append_new(s, sample("prog.ns_per_run", drop ? "xdp_drop" : "xdp_pass",
						drop ? (odd ? 24 : 26) : 30, "ns", "cost"));
		assert_int_equal(store_ingest_result(st, *host, res, 5000, &ing), 0);
		json_decref(res);
		json_decref(spec);
	}
	free(jn);
	plan_jobs_free(jobs, n);
	plan_objects_release(&objs);
	plan_destroy(&plan);
	store_close(&st);
	json_decref(inv);
}

/* The row of ROWS with METRIC and SUBJECT. */
static const json_t *row_of(const json_t *rows, const char *metric, const char *subject)
{
	const json_t *r;
	size_t i;

	json_array_foreach(rows, i, r)
		if (!strcmp(json_string_value(json_object_get(r, "metric")), metric) &&
		    !strcmp(json_string_value(json_object_get(r, "subject")), subject))
			return r;
	fail_msg("no row %s %s", metric, subject);
	return NULL;
}

static int64_t count_rows(const char *path)
{
	struct err err;
	struct store *st = store_open(path, true, &err);
	json_t *rows;
	int64_t n;

	assert_non_null(st);
	rows = store_noise_list(st);
	assert_non_null(rows);
	n = (int64_t)json_array_size(rows);
	json_decref(rows);
	store_close(&st);
	return n;
}

/* Hand-worked: xdp_drop 24/26 x 5: sd sqrt(10/9) = 1.054093, cv 0.0421637; port b per
 * variant 1 % and 2 % of the mean times sqrt(10/9), pooled sqrt((cv1^2 + cv2^2) / 2) =
 * 0.0166667 over 20 values of mean 1.5M; xdp_pass constant: cv 0; port a's 0/1: mean
 * 0.5, cv 1.054093. */
static void test_noise_store_record(void **state)
{
	struct err err;
	char path[300];
	struct store *st;
	json_t *rows = NULL, *hosts;
	const json_t *r;
	struct noise_advice a;
	int64_t host;

	snprintf(path, sizeof(path), "%s/ran.db", tmpdir);
	make_db(path, true, &host);
	st = store_open(path, false, &err);
	assert_non_null(st);
	assert_int_equal(store_noise_record(st, 1, 9000, &rows), 0);
	assert_int_equal(json_array_size(rows), 4);
	r = row_of(rows, "prog.ns_per_run", "xdp_drop");
	assert_int_equal(json_integer_value(json_object_get(r, "n")), 10);
	assert_float_equal(json_real_value(json_object_get(r, "cv")), 0.0421637, 1e-6);
	assert_float_equal(json_real_value(json_object_get(r, "mean")), 25, 1e-9);
	assert_string_equal(json_string_value(json_object_get(r, "unit")), "ns");
	assert_string_equal(json_string_value(json_object_get(r, "window")), "cost");
	assert_string_equal(json_string_value(json_object_get(r, "host")), "h1");
	assert_string_equal(json_string_value(json_object_get(r, "kernel_release")), "6.18.44");
	assert_int_equal(json_integer_value(json_object_get(r, "measured_ms")), 9000);
	r = row_of(rows, "port.rx_pps", "b");
	assert_int_equal(json_integer_value(json_object_get(r, "n")), 20);
	assert_float_equal(json_real_value(json_object_get(r, "cv")), 1.0 / 60, 1e-9);
	assert_float_equal(json_real_value(json_object_get(r, "mean")), 1.5e6, 1e-3);
	assert_float_equal(json_real_value(json_object_get(row_of(rows, "prog.ns_per_run",
		"xdp_pass"), "cv")), 0, 0);
	assert_float_equal(json_real_value(json_object_get(row_of(rows, "port.rx_pps", "a"),
		"cv")), 1.0540926, 1e-6);
	json_decref(rows);

	/* recorded again: replaced, not doubled; the list has the latest of each host */
	assert_int_equal(store_noise_record(st, 1, 9500, NULL), 0);
	rows = store_noise_list(st);
	assert_non_null(rows);
	assert_int_equal(json_array_size(rows), 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 0),
		"measured_ms")), 9500);

	/* the advice from the stored floor: xdp_drop's 4.2 % decides (port a is left out):
	 * 15.697758 * 0.0421637^2 / 0.02^2 = 69.77 -> 70 */
	hosts = json_pack("[{s:I, s:s}]", "id", (json_int_t)host, "name", "h1");
	assert_int_equal(noise_hosts_attach(hosts, rows), 0);
	assert_int_equal(noise_advise(hosts, NULL, 0, 0.02, 10, &a), 0);
	assert_string_equal(a.subject, "xdp_drop");
	assert_int_equal(a.reps, 70);
	json_decref(hosts);
	json_decref(rows);

	/* refused: an unknown run */
	assert_int_equal(store_noise_record(st, 7, 9600, &rows), -ENOENT);
	assert_null(rows);
	assert_string_equal(store_err(st)->msg, "unknown run 7");
	store_close(&st);

	/* a read-only database: refused, and nothing changed */
	st = store_open(path, true, &err);
	assert_non_null(st);
	assert_int_equal(store_noise_record(st, 1, 9900, NULL), -EROFS);
	store_close(&st);
	assert_int_equal(count_rows(path), 4);
}

/* A run that has not ended has no noise floor yet, and one without values none at all;
 * neither leaves a row behind. */
static void test_noise_store_refusals(void **state)
{
	struct err err;
	char path[300];
	json_t *running = NULL;
	struct store *st;
	int64_t host;

	snprintf(path, sizeof(path), "%s/queued.db", tmpdir);
	make_db(path, false, &host);
	st = store_open(path, false, &err);
	assert_non_null(st);
	assert_int_equal(store_noise_record(st, 1, 9000, NULL), -EAGAIN);
	assert_non_null(strstr(store_err(st)->msg, "run 1 is queued"));
	assert_int_equal(store_run_cancel(st, 1, 9100, &running), 0);
	json_decref(running);
	assert_int_equal(store_noise_record(st, 1, 9200, NULL), -ENODATA);
	assert_non_null(strstr(store_err(st)->msg, "no metric with 3 or more values"));
	store_close(&st);
	assert_int_equal(count_rows(path), 0);
}

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	return tmpdir_remove(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noise_cv),
		cmocka_unit_test(test_noise_calibrate_plan),
		cmocka_unit_test(test_noise_advise),
		cmocka_unit_test(test_noise_store_record),
		cmocka_unit_test(test_noise_store_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
