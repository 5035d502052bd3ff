// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web_api.c - the dashboard's JSON answers under /api/ (docs/dashboard.md): the same
 * objects `bpflab --db FILE -j` prints, from the same store functions (cli/client.c,
 * cli/noise.c, cli/result.c): run list, result show (the report with the hosts' noise
 * floors) or its CSV, host list (with kernel switches and noise floors), result history
 * and result compare (cli/result_analysis.c: the same filter, analysis and report
 * functions, the query parameters for its options), result export (export_run),
 * bisect status and log
 * (lib/analysis/bisect_session.c over store_bisect_get). Also the
 * objects the pages (web_page.c) render. Runs on MHD's threads (one per connection),
 * one store per request, no state kept between calls.
 */
#include "web.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/bisect_session.h"
#include "analysis/noise.h"
#include "analysis/runspread.h"
#include "report/export.h"
#include "report/report.h"
#include "report/report_compare.h"
#include "store/store.h"
#include "store/store_bisect.h"
#include "store/store_noise.h"

void web_reply_error(struct web_reply *reply, unsigned status, const char *fmt, ...)
{
	char msg[1024], *s;
	json_t *e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	web_utf8_repair(msg);	/* JSON takes only UTF-8: a long path cut mid-character */
	web_reply_release(reply);
	reply->status = status;
	reply->type = "application/json";
	reply->filename[0] = '\0';	/* an error is never a download */
	reply->retry_after = 0;
	e = json_pack("{s:s}", "error", msg);
	s = e ? json_dumps(e, JSON_COMPACT) : NULL;
	json_decref(e);
	/* the CLI's JSON ends with a newline: so does every answer */
	reply->body = s ? realloc(s, strlen(s) + 2) : NULL;
	if (!reply->body) {
		free(s);
		reply->status = 500;
		reply->body = strdup("{\"error\":\"out of memory\"}\n");
		reply->len = reply->body ? strlen(reply->body) : 0;
		return;
	}
	reply->len = strlen(reply->body);
	memcpy(reply->body + reply->len, "\n", 2);
	reply->len++;
}

void web_reply_release(struct web_reply *reply)
{
	free(reply->body);
	reply->body = NULL;
	reply->len = 0;
}

/* REPLY becomes OBJ as `bpflab -j` prints it (cli_print_json: compact, 15 digits, a
 * newline). */
static void reply_json(struct web_reply *reply, const json_t *obj)
{
	char *s = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(15) | JSON_ENCODE_ANY);
	size_t n = s ? strlen(s) : 0;
	char *body = s ? realloc(s, n + 2) : NULL;

	if (!body) {
		free(s);
		web_reply_error(reply, 500, "out of memory");
		return;
	}
	memcpy(body + n, "\n", 2);
	web_reply_release(reply);
	reply->status = 200;
	reply->type = "application/json";
	reply->body = body;
	reply->len = n + 1;
}

void web_reply_busy(struct web_reply *reply)
{
	web_reply_error(reply, 503, "the database is busy: a writer has held its lock for more "
			"than %d s; try again", WEB_RETRY_AFTER_S);
	reply->retry_after = WEB_RETRY_AFTER_S;
}

/* REPLY the error of a failed store call (errno set, message in STORE). */
static void reply_store_error(struct store *store, struct web_reply *reply)
{
	if (errno == EBUSY)
		web_reply_busy(reply);
	else if (errno == ENOMEM)
		web_reply_error(reply, 500, "out of memory");
	else
		web_reply_error(reply, 500, "cannot query the database: %s",
				store_err(store)->msg);
}

struct store *web_store_open(const char *db, struct web_reply *reply)
{
	struct err err;
	struct store *store = store_open(db, true, &err);

	if (store)
		return store;
	if (errno == EBUSY)
		web_reply_busy(reply);
	else
		web_reply_error(reply, 500, "cannot open database '%s': %s", db,
				*err.msg ? err.msg : strerror(errno));
	return NULL;
}

json_t *web_runs(struct store *store, struct web_reply *reply)
{
	json_t *runs = store_query_runs(store);

	if (!runs)
		reply_store_error(store, reply);
	return runs;
}

json_t *web_hosts(struct store *store, struct web_reply *reply)
{
	json_t *hosts = store_query_hosts(store), *rows = NULL;
	int err;

	if (!hosts)
		goto fail;
	err = store_boot_attach(store, hosts);
	if (err) {
		errno = -err;
		goto fail;
	}
	/* as `host list`: the noise floors on the hosts (cli/noise.c) */
	rows = store_noise_list(store);
	if (!rows)
		goto fail;
	if (noise_hosts_attach(hosts, rows)) {
		errno = ENOMEM;
		goto fail;
	}
	json_decref(rows);
	return hosts;
fail:
	reply_store_error(store, reply);
	json_decref(rows);
	json_decref(hosts);
	return NULL;
}

json_t *web_result(struct store *store, int64_t id, json_t **report, struct web_reply *reply)
{
	json_t *result = store_query_result(store, id), *noise;

	if (!result) {
		if (errno == ENOENT)
			web_reply_error(reply, 404, "no run %lld", (long long)id);
		else
			reply_store_error(store, reply);
		return NULL;
	}
	if (!report)
		return result;
	/* as `result show`: the hosts' noise floors beside the spreads (cli/result.c) */
	noise = store_noise_list(store);
	if (!noise) {
		reply_store_error(store, reply);
		json_decref(result);
		return NULL;
	}
	if (json_object_set_new(result, "noise", noise) || !(*report = report_build(result))) {
		web_reply_error(reply, 500, "cannot build the report of run %lld: %s",
				(long long)id, strerror(errno ? errno : ENOMEM));
		json_decref(result);
		return NULL;
	}
	return result;
}

/* The parameters of /api/history and /api/compare: the options of `result history` and
 * `result compare` of the same name (docs/dashboard.md). Index = enum below. */
static const char *const an_params[] = {
	"plan", "metric", "variant", "subject", "window=rate|cost", "host", "by",
	"include_flagged=1", "a", "b", "baseline", "candidate", "run_spread", NULL,
};
enum { P_PLAN, P_METRIC, P_VARIANT, P_SUBJECT, P_WINDOW, P_HOST, P_BY, P_FLAGGED, P_A, P_B,
       P_BASELINE, P_CANDIDATE, P_RUN_SPREAD, P_N };
/* the filter keys of the first P_BY + 1 parameters (make_filter in cli/result_analysis.c) */
static const char *const an_keys[] = {
	"plan", "metric", "variant", "subject", "window", "host", "by",
};

/* Check PARAMS against the first N_ALLOWED of an_params into V; 400 otherwise. */
static int an_check(const struct web_param *params, size_t n, size_t n_allowed,
		    const char **v, struct web_reply *reply)
{
	const char *allowed[P_N + 1];
	struct err err;
	size_t i;

	for (i = 0; i < n_allowed; i++)
		allowed[i] = an_params[i];
	allowed[n_allowed] = NULL;
	for (i = n_allowed; i < P_N; i++)
		v[i] = NULL;
	if (web_params_check(params, n, allowed, v, &err)) {
		web_reply_error(reply, 400, "%s", err.msg);
		return -EINVAL;
	}
	return 0;
}

/* The value rows for the filter of V (and RUNS when not NULL) as the CLI asks for them;
 * NULL with REPLY the error. */
static json_t *an_rows(struct store *store, const char *const *v, json_t *runs,
		       struct web_reply *reply)
{
	json_t *filter = json_object(), *rows = NULL;
	size_t i;

	for (i = 0; filter && i <= P_BY; i++)
		if (v[i] && json_object_set_new(filter, an_keys[i], json_string(v[i])))
			break;
	if (!filter || i <= P_BY || (runs && json_object_set(filter, "runs", runs))) {
		web_reply_error(reply, 500, "out of memory");
		goto out;
	}
	rows = store_query_values(store, filter);
	if (!rows)
		reply_store_error(store, reply);
out:
	json_decref(filter);
	return rows;
}

const char *web_cli_hint(char *msg, size_t len)
{
	static const char *const map[][2] = {
		{ "--include-flagged", "include_flagged=1" },
		{ "--run-spread 0", "run_spread=0" },
		{ "--run-spread", "run_spread=PCT" },
	};
	size_t k, tail, opt, param;
	char *at;

	for (k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
		at = strstr(msg, map[k][0]);
		if (!at)
			continue;
		opt = strlen(map[k][0]);
		param = strlen(map[k][1]);
		tail = strlen(at + opt);
		if ((size_t)(at - msg) + param + tail + 1 > len)
			return msg;
		memmove(at + param, at + opt, tail + 1);
		memcpy(at, map[k][1], param);
		return msg;
	}
	return msg;
}

/* REPORT with what each row's n can resolve (ADD, as the CLI does before printing), or
 * NULL with REPLY the error (REPORT freed). */
static json_t *with_min_detectable(json_t *report, int (*add)(json_t *),
				   struct web_reply *reply)
{
	if (!add(report))
		return report;
	json_decref(report);
	web_reply_error(reply, 500, "out of memory");
	return NULL;
}

json_t *web_history(struct store *store, const struct web_param *params, size_t n,
		    struct web_reply *reply)
{
	const char *v[P_N];
	json_t *rows, *report;
	char msg[1024];
	struct err e;

	if (an_check(params, n, P_FLAGGED + 1, v, reply))
		return NULL;
	if (!v[P_PLAN] || !v[P_METRIC]) {
		web_reply_error(reply, 400, "parameter '%s' is needed (plan and metric)",
				v[P_PLAN] ? "metric" : "plan");
		return NULL;
	}
	if (!v[P_BY])
		v[P_BY] = "kernel.release";
	if (!store_history_by_known(v[P_BY])) {
		web_reply_error(reply, 400, "parameter 'by': a history goes by %s, not '%s'",
				store_history_by_fields(), v[P_BY]);
		return NULL;
	}
	rows = an_rows(store, v, NULL, reply);
	if (!rows)
		return NULL;
	{
		ANALYSIS_OPTS(aopts, .include_flagged = v[P_FLAGGED] != NULL);

		report = analysis_history(rows, v[P_BY], &aopts, &e);
	}
	json_decref(rows);
	if (!report) {
		snprintf(msg, sizeof(msg), "%s", e.msg);
		web_reply_error(reply, errno == ENOENT ? 404 : 500, "plan '%s', metric '%s': %s",
				v[P_PLAN], v[P_METRIC], web_cli_hint(msg, sizeof(msg)));
		return NULL;
	}
	return with_min_detectable(report, report_history_add_min_detectable, reply);
}

/* A run id parameter NAME's VALUE into *ID; 400 otherwise. */
static int run_param(const char *name, const char *value, long long *id,
		     struct web_reply *reply)
{
	char *end;

	errno = 0;
	*id = strtoll(value, &end, 10);
	if (*value < '1' || *value > '9' || *end || errno) {
		web_reply_error(reply, 400, "parameter '%s': '%s' is not a run id (a positive "
				"integer)", name, value);
		return -EINVAL;
	}
	return 0;
}

json_t *web_compare(struct store *store, const struct web_param *params, size_t n,
		    struct web_reply *reply)
{
	const char *v[P_N], *by, *baseline, *candidate;
	json_t *rows, *report, *runs = NULL, *spread = NULL;
	long long a = 0, b = 0;
	char msg[1024];
	struct err e;

	double run_spread = 0;

	if (an_check(params, n, P_N, v, reply))
		return NULL;
	if (v[P_RUN_SPREAD] && runspread_parse_pct(v[P_RUN_SPREAD], &run_spread)) {
		web_reply_error(reply, 400, "parameter 'run_spread': '%s' is not a percentage "
				"from 0 to 1000", v[P_RUN_SPREAD]);
		return NULL;
	}
	if (v[P_BY] && !store_values_by_known(v[P_BY])) {
		web_reply_error(reply, 400, "parameter 'by': cannot group by '%s' (the fields "
				"are %s)", v[P_BY], store_values_by_fields());
		return NULL;
	}
	if (v[P_A] || v[P_B]) {
		if (!v[P_A] || !v[P_B]) {
			web_reply_error(reply, 400, "parameter '%s' is needed (two runs: a and b)",
					v[P_A] ? "b" : "a");
			return NULL;
		}
		if (run_param("a", v[P_A], &a, reply) || run_param("b", v[P_B], &b, reply))
			return NULL;
		if (a == b || (v[P_BY] && strcmp(v[P_BY], "run")) || v[P_BASELINE] ||
		    v[P_CANDIDATE]) {
			web_reply_error(reply, 400, a == b ? "parameters 'a' and 'b' are the same "
					"run" : "parameters 'by', 'baseline' and 'candidate' go "
					"without 'a' and 'b' (a is the baseline, b the candidate)");
			return NULL;
		}
		runs = json_pack("[I, I]", (json_int_t)a, (json_int_t)b);
		if (!runs) {
			web_reply_error(reply, 500, "out of memory");
			return NULL;
		}
		by = v[P_BY] = "run";
		baseline = v[P_A];
		candidate = v[P_B];
	} else {
		if (!v[P_PLAN] || !v[P_BY]) {
			web_reply_error(reply, 400, "parameter '%s' is needed (two runs a and b, or "
					"plan and by)", v[P_PLAN] ? "by" : "plan");
			return NULL;
		}
		by = v[P_BY];
		baseline = v[P_BASELINE];
		candidate = v[P_CANDIDATE];
	}
	rows = an_rows(store, v, runs, reply);
	json_decref(runs);
	if (!rows)
		return NULL;
	/* whole runs: their run-to-run spread, as the CLI reads it (docs/analysis.md) */
	if (!strcmp(by, "run")) {
		json_t *f = json_object(), *sf;
		size_t i;

		for (i = 0; f && i < P_BY; i++)
			if (v[i])
				json_object_set_new(f, an_keys[i], json_string(v[i]));
		sf = f ? analysis_spread_filter(f, rows, v[P_FLAGGED] != NULL) : NULL;
		spread = sf ? store_query_run_spread(store, sf) : NULL;
		json_decref(f);
		json_decref(sf);
		if (!spread) {
			json_decref(rows);
			if (sf)
				reply_store_error(store, reply);
			else
				web_reply_error(reply, 500, "out of memory");
			return NULL;
		}
	}
	{
		ANALYSIS_OPTS(aopts, .include_flagged = v[P_FLAGGED] != NULL, .run_spread = spread,
			      .run_spread_assumed = run_spread);

		report = analysis_compare(rows, by, baseline, candidate, &aopts, &e);
	}
	json_decref(spread);
	json_decref(rows);
	if (!report) {
		snprintf(msg, sizeof(msg), "%s", e.msg);
		web_reply_error(reply, errno == ENOENT ? 404 : errno == ENOMEM ? 500 : 400, "%s",
				web_cli_hint(msg, sizeof(msg)));
		return NULL;
	}
	return with_min_detectable(report, report_compare_add_min_detectable, reply);
}

json_t *web_bisect_list(struct store *store, struct web_reply *reply)
{
	json_t *list = store_bisect_list(store);

	if (!list)
		reply_store_error(store, reply);
	return list;
}

json_t *web_bisect(struct store *store, int64_t id, struct bisect **engine,
		   struct web_reply *reply)
{
	json_t *ses = store_bisect_get(store, id);
	struct bisect *b;

	if (!ses) {
		if (errno == ENOENT && id)
			web_reply_error(reply, 404, "no bisect session %lld", (long long)id);
		else if (errno == ENOENT)
			web_reply_error(reply, 404, "no bisect session");
		else
			reply_store_error(store, reply);
		return NULL;
	}
	b = bisect_session_replay(ses);
	if (!b || bisect_session_status(ses, b)) {
		web_reply_error(reply, 500, b || errno == ENOMEM ? "out of memory" :
				"cannot replay bisect session %lld: its steps do not fit its kernels",
				(long long)json_integer_value(json_object_get(ses, "id")));
		bisect_destroy(&b);
		json_decref(ses);
		return NULL;
	}
	if (engine)
		*engine = b;
	else
		bisect_destroy(&b);
	return ses;
}

json_t *web_export(struct store *store, int64_t id, const char *format,
		   struct web_reply *reply)
{
	json_t *filter = json_pack("{s:[I]}", "runs", (json_int_t)id), *rows, *out;
	char db_id[STORE_DB_ID_LEN];
	struct err e;
	size_t n_flagged;
	int err;

	if (!filter) {
		web_reply_error(reply, 500, "out of memory");
		return NULL;
	}
	rows = store_query_values(store, filter);
	json_decref(filter);
	err = rows ? store_db_id(store, db_id) : -errno;
	if (err) {
		errno = -err;
		reply_store_error(store, reply);
		json_decref(rows);
		return NULL;
	}
	/* as `bpflab --db FILE result export ID --format F` (lib/report/export_run.c) */
	out = export_run(rows, id, &(struct export_run_opts){
		.format = format, .db_id = db_id,
		.kernel_cache = export_kernel_cache() }, &n_flagged, &e);
	json_decref(rows);
	if (!out)	/* EINVAL: a BMF of several hosts or kernel builds */
		web_reply_error(reply, errno == ENOENT ? 404 : errno == EINVAL ? 409 : 500,
				"%s", e.msg);
	return out;
}

/* REPLY the samples of RESULT as `result show --csv` prints them. */
static void reply_csv(struct web_reply *reply, const json_t *result)
{
	char *body = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);
	int err = f ? report_print_csv(result, f) : -ENOMEM;

	if (f && fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(body);
		web_reply_error(reply, 500, "cannot write CSV: %s", strerror(-err));
		return;
	}
	web_reply_release(reply);
	reply->status = 200;
	reply->type = "text/csv; charset=utf-8";
	reply->body = body;
	reply->len = len;
}

void web_api(const char *db, enum web_route route, int64_t id,
	     const struct web_param *params, size_t n, struct web_reply *reply)
{
	static const char *const none[] = { NULL };
	static const char *const run_params[] = { "format=json|csv|kcidb|bmf", NULL };
	const char *values[2];
	json_t *obj = NULL, *report = NULL;
	struct store *store;
	struct err err;

	if (route != WEB_API_HISTORY && route != WEB_API_COMPARE &&
	    web_params_check(params, n, route == WEB_API_RUN ? run_params : none, values, &err)) {
		web_reply_error(reply, 400, "%s", err.msg);
		return;
	}
	store = web_store_open(db, reply);
	if (!store)
		return;
	switch (route) {
	case WEB_API_RUNS:
		obj = web_runs(store, reply);
		break;
	case WEB_API_HOSTS:
		obj = web_hosts(store, reply);
		break;
	case WEB_API_HISTORY:
		obj = web_history(store, params, n, reply);
		break;
	case WEB_API_COMPARE:
		obj = web_compare(store, params, n, reply);
		break;
	case WEB_API_BISECTS:
		obj = web_bisect_list(store, reply);
		break;
	case WEB_API_BISECT:
	case WEB_API_BISECT_LOG:
	case WEB_API_BISECT_ID:
	case WEB_API_BISECT_ID_LOG:
		obj = web_bisect(store, route == WEB_API_BISECT_ID || route == WEB_API_BISECT_ID_LOG ?
				 id : 0, NULL, reply);
		if (obj && (route == WEB_API_BISECT_LOG || route == WEB_API_BISECT_ID_LOG)) {
			json_t *steps = json_incref(json_object_get(obj, "steps"));

			json_decref(obj);
			obj = steps;
		}
		break;
	case WEB_API_RUN:
		if (values[0] && (!strcmp(values[0], "kcidb") || !strcmp(values[0], "bmf"))) {
			obj = web_export(store, id, values[0], reply);
			break;
		}
		if (values[0] && !strcmp(values[0], "csv")) {
			obj = web_result(store, id, NULL, reply);
			if (obj)
				reply_csv(reply, obj);
			goto download;
		}
		obj = web_result(store, id, &report, reply);
		if (obj) {
			json_decref(obj);
			obj = report;
		}
		break;
	default:
		web_reply_error(reply, 404, "no such path");
		goto out;
	}
	if (obj)
		reply_json(reply, obj);
download:
	/* ?format=: a download, named after the run and the format */
	if (route == WEB_API_RUN && values[0] && reply->status == 200)
		snprintf(reply->filename, sizeof(reply->filename),
			 strcmp(values[0], "json") && strcmp(values[0], "csv") ? "run-%lld.%s.json" :
			 "run-%lld.%s", (long long)id, values[0]);
out:
	json_decref(obj);
	store_close(&store);
}
