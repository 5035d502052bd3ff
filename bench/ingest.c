// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* ingest.c - the CPU time bpflabd's result path takes per sample, stage by stage, in one
 * thread of this process: no agents, no dispatch, no other process competing for the
 * CPU, so that a change to the path shows on a busy machine too (bench/README.md).
 *
 * For each of N results of S samples (the text the simulated agents of
 * bench/coordinator.c send: port.rx_pps of port b, seq 0..S-1) it times, with the
 * thread's CPU clock:
 *   decode    proto_decode (jansson parses the frame)
 *   validate  proto_validate on the agent -> coordinator channel
 *   store     store_ingest_result (one transaction: samples, job, attempt, run)
 *   free      json_decref of the message
 * into a fresh database (store_open: every migration, WAL, synchronous=NORMAL) with a
 * host and N queued jobs. Then encode: proto_encode beside json_dumps(JSON_COMPACT) of a
 * `job` message carrying bench's BPF object in base64, as bpflabd sends one per job.
 * Then what handing out a job costs besides the message:
 *   dispatch  the N jobs of a fresh database dispatched one transaction each
 *             (store_job_dispatch), and in transactions of B jobs (store_jobs_dispatch,
 *             as bpflabd does for the jobs of one turn of its loop; B default 64)
 *   objects   the object entry of a `job` message, {"sha256", "data": base64}: read from
 *             the store and encoded for every message, and from the object cache
 *             (lib/plan/objects.h) that bpflabd keeps
 *
 *   build/bench/ingest [--results N] [--samples S] [--rounds R] [--object FILE]
 *                      [--batch B]
 *
 * Rounds (default 3) each use a new database; the median round is printed. Asserts
 * nothing; exits 1 when a result is refused.
 */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plan/objects.h"
#include "proto/proto.h"
#include "proto/proto_schema.h"
#include "store/store.h"
#include "base/util.h"

enum { ST_DECODE, ST_VALIDATE, ST_STORE, ST_FREE, ST__N };

static const char *const stage_names[ST__N] = { "decode", "validate", "store", "free" };

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The result text of bench/coordinator.c for JOB with N samples (heap). */
static char *result_text(long long job, int n, size_t *len)
{
	size_t cap = 256 + (size_t)n * 96, used;
	char *t = malloc(cap);
	int i;

	if (!t)
		return NULL;
	used = snprintf(t, cap, "{\"v\":1,\"type\":\"result\",\"job\":%lld,\"status\":\"ok\","
			"\"started_ms\":1000,\"finished_ms\":2000,\"samples\":[", job);
	for (i = 0; i < n; i++)
		used += snprintf(t + used, cap - used, "%s{\"metric\":\"port.rx_pps\",\"subject\":"
				 "\"b\",\"value\":%d.5,\"unit\":\"pps\",\"window\":\"rate\","
				 "\"seq\":%d}", i ? "," : "", 1000000 + i, i);
	used += snprintf(t + used, cap - used, "]}");
	*len = used;
	return t;
}

/* A fresh database in DIR with one host and N queued jobs (ids 1..N); the host id in
 * *HOST. NULL on failure (message printed). */
static struct store *db_new(const char *dir, int round, int n, int64_t *host)
{
	struct err err;
	char path[PATH_MAX];
	json_t *inv = json_pack("{s:s, s:{s:s}}", "hostname", "h", "kernel", "release", "6.18");
	struct store *st;
	int requeued, j;
	sqlite3 *d;

	snprintf(path, sizeof(path), "%s/ingest-%d.db", dir, round);
	st = store_open(path, false, &err);
	if (!st) {
		fprintf(stderr, "ingest: %s\n", err.msg);
		json_decref(inv);
		return NULL;
	}
	if (store_host_hello(st, "h", "bench", inv, 1, host, &requeued)) {
		fprintf(stderr, "ingest: %s\n", store_err(st)->msg);
		json_decref(inv);
		store_close(&st);
		return NULL;
	}
	json_decref(inv);
	d = store_db(st);
	sqlite3_exec(d, "BEGIN; INSERT INTO plans (id, name, sha256, text, created_ms) "
		     "VALUES (1, 'bench', 'x', 'x', 0); INSERT INTO runs (id, plan_id, plan_file, "
		     "submitted_ms) VALUES (1, 1, 'b', 0); INSERT INTO job_specs (id, text) "
		     "VALUES (1, '{}');", NULL, NULL, NULL);
	for (j = 1; j <= n; j++) {
		char sql[256];

		snprintf(sql, sizeof(sql), "INSERT INTO jobs (id, run_id, seq, host_id, variant, "
			 "variant_idx, rep, spec_id) VALUES (%d, 1, %d, %lld, 'drop', 0, 1, 1)", j,
			 j, (long long)*host);
		sqlite3_exec(d, sql, NULL, NULL, NULL);
	}
	if (sqlite3_exec(d, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "ingest: cannot make the jobs: %s\n", sqlite3_errmsg(d));
		store_close(&st);
		return NULL;
	}
	return st;
}

/* One round: N results of S samples; CPU seconds per stage into T. Returns 0 or -1. */
static int round_run(const char *dir, int round, int n, int s, double t[ST__N])
{
	struct store_ingest ing;
	int64_t host = 0;
	struct store *st = db_new(dir, round, n, &host);
	struct err why;
	int j, rc = 0;

	if (!st)
		return -1;
	memset(t, 0, sizeof(double) * ST__N);
	for (j = 1; j <= n && !rc; j++) {
		size_t len;
		char *text = result_text(j, s, &len);
		json_t *msg;
		double c0, c1;

		if (!text)
			return -1;
		c0 = cpu_now();
		msg = proto_decode(text, len, &why);
		c1 = cpu_now();
		t[ST_DECODE] += c1 - c0;
		if (!msg || proto_validate(msg, PROTO_CH_AGENT_TO_COORD, &why)) {
			fprintf(stderr, "ingest: result %d refused: %s\n", j, why.msg);
			rc = -1;
		}
		c0 = cpu_now();
		t[ST_VALIDATE] += c0 - c1;
		if (!rc && store_ingest_result(st, host, msg, 3000, &ing)) {
			fprintf(stderr, "ingest: %s\n", store_err(st)->msg);
			rc = -1;
		}
		c1 = cpu_now();
		t[ST_STORE] += c1 - c0;
		json_decref(msg);
		t[ST_FREE] += cpu_now() - c1;
		free(text);
	}
	store_close(&st);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* proto_encode and json_dumps of a job message with OBJ's bytes in base64, REPS times;
 * microseconds per message into *OURS and *JANSSON. */
static int encode_bench(const char *obj, int reps, double *ours, double *jansson)
{
	char *data = NULL, *b64, *text;
	size_t len = 0;
	json_t *msg;
	double c0;
	int i;

	if (util_read_file(obj, 16 << 20, &data, &len)) {
		fprintf(stderr, "ingest: cannot read '%s'\n", obj);
		return -1;
	}
	b64 = util_base64_encode(data, len);
	free(data);
	msg = json_pack("{s:i, s:s, s:{s:i, s:i, s:{s:s, s:s, s:[s, s]}}, s:{s:{s:s, s:s}}}",
			"v", 1, "type", "job", "job", "id", 1, "run", 1, "spec", "plan", "bench",
			"variant", "drop", "ports", "a", "b", "objects", "xdp_basic.bpf.o",
			"sha256", "0123", "data", b64 ? b64 : "");
	free(b64);
	if (!msg)
		return -1;
	c0 = cpu_now();
	for (i = 0; i < reps; i++) {
		text = proto_encode(msg, &len);
		free(text);
	}
	*ours = (cpu_now() - c0) / reps * 1e6;
	c0 = cpu_now();
	for (i = 0; i < reps; i++) {
		text = json_dumps(msg, JSON_COMPACT);
		free(text);
	}
	*jansson = (cpu_now() - c0) / reps * 1e6;
	json_decref(msg);
	return 0;
}

/* Dispatch the N queued jobs of a fresh database in transactions of BATCH jobs
 * (store_jobs_dispatch; 0: store_job_dispatch, one each). CPU seconds, or < 0. */
static double dispatch_round(const char *dir, int round, int n, int batch)
{
	int64_t host = 0, ids[256];
	int errs[256], j, k;
	struct store *st = db_new(dir, 1000 + 2 * round + !!batch, n, &host);
	double c0, t = -1;

	if (!st)
		return -1;
	c0 = cpu_now();
	for (j = 1; j <= n; j += batch ? batch : 1) {
		if (!batch) {
			if (store_job_dispatch(st, j, 3000))
				goto out;
			continue;
		}
		for (k = 0; k < batch && j + k <= n; k++)
			ids[k] = j + k;
		if (store_jobs_dispatch(st, ids, k, 3000, errs))
			goto out;
		while (k--)
			if (errs[k])
				goto out;
	}
	t = cpu_now() - c0;
out:
	if (t < 0)
		fprintf(stderr, "ingest: dispatch: %s\n", store_err(st)->msg);
	store_close(&st);
	return t;
}

struct object_src {
	struct store *st;
	char sha[SHA256_HEX_LEN];
};

static int object_load(void *arg, const char *sha256, void **data, size_t *len)
{
	return store_object_get(((struct object_src *)arg)->st, sha256, data, len);
}

/* The object entry of a `job` message for OBJ, REPS times: read and encoded each time
 * as bpflabd did (store_object_get, base64, json_pack), and from an object cache.
 * Microseconds per message into *EACH and *CACHED. */
static int objects_bench(const char *dir, const char *obj, int reps, double *each,
			 double *cached)
{
	struct object_src src = { 0 };
	struct object_cache *cache = object_cache_new(OBJECT_CACHE_SLOTS, OBJECT_CACHE_BYTES);
	struct err err;
	char path[PATH_MAX], *file = NULL, *b64;
	sqlite3_stmt *ins = NULL;
	size_t flen = 0, len;
	json_t *entry;
	void *data;
	double c0;
	int i, rc = -1;

	snprintf(path, sizeof(path), "%s/objects.db", dir);
	src.st = store_open(path, false, &err);
	if (!src.st || !cache || util_read_file(obj, 16 << 20, &file, &flen))
		goto out;
	util_sha256_hex(file, flen, src.sha);
	if (sqlite3_prepare_v2(store_db(src.st), "INSERT INTO objects (sha256, name, size, "
			       "bytes, created_ms) VALUES (?1, 'o', ?2, ?3, 0)", -1, &ins,
			       NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(ins, 1, src.sha, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, 2, (sqlite3_int64)flen);
	sqlite3_bind_blob(ins, 3, file, (int)flen, SQLITE_STATIC);
	if (sqlite3_step(ins) != SQLITE_DONE)
		goto out;
	c0 = cpu_now();
	for (i = 0; i < reps; i++) {
		if (store_object_get(src.st, src.sha, &data, &len))
			goto out;
		b64 = util_base64_encode(data, len);
		free(data);
		entry = json_pack("{s:s, s:s}", "sha256", src.sha, "data", b64 ? b64 : "");
		free(b64);
		json_decref(entry);
	}
	*each = (cpu_now() - c0) / reps * 1e6;
	c0 = cpu_now();
	for (i = 0; i < reps; i++) {
		entry = object_cache_get(cache, src.sha, object_load, &src);
		if (!entry)
			goto out;
		json_decref(entry);
	}
	*cached = (cpu_now() - c0) / reps * 1e6;
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "ingest: objects: %s\n",
			src.st ? store_err(src.st)->msg : err.msg);
	sqlite3_finalize(ins);
	object_cache_destroy(&cache);
	store_close(&src.st);
	free(file);
	return rc;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "results", required_argument, NULL, 'n' },
		{ "samples", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "object", required_argument, NULL, 'o' },
		{ "batch", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	int n = 10000, s = 100, rounds = 3, batch = 64, opt, r, k, rc = 1;
	double each[64], batched[64], obj_each = 0, obj_cached = 0;
	char dir[] = "/tmp/bpflab-ingest-XXXXXX", self[PATH_MAX], obj[PATH_MAX + 32], cmd[128];
	double (*t)[ST__N], col[64], total, ours = 0, theirs = 0;
	ssize_t len;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[len > 0 ? len : 0] = '\0';
	if (strrchr(self, '/'))
		*strrchr(self, '/') = '\0';		/* build/bench */
	snprintf(obj, sizeof(obj), "%s/../bpf/xdp_basic.bpf.o", self);
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 's': s = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'o': snprintf(obj, sizeof(obj), "%s", optarg); break;
		case 'b': batch = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: ingest [--results N] [--samples S] [--rounds R] "
				"[--object FILE] [--batch B]\n");
			return 2;
		}
	}
	if (n < 1 || s < 1 || rounds < 1 || rounds > 64 || batch < 1 || batch > 256) {
		fprintf(stderr, "ingest: bad --results, --samples, --rounds (1 to 64) or --batch "
			"(1 to 256)\n");
		return 2;
	}
	if (!mkdtemp(dir)) {
		perror("ingest: mkdtemp");
		return 1;
	}
	t = calloc(rounds, sizeof(*t));
	if (!t)
		goto out;
	for (r = 0; r < rounds; r++)
		if (round_run(dir, r, n, s, t[r]))
			goto out;
	printf("result path in one thread, %d results x %d samples, median of %d rounds "
	       "(CPU time)\n", n, s, rounds);
	printf("    %-9s %12s %14s\n", "stage", "us/sample", "samples/s");
	for (k = 0, total = 0; k < ST__N; k++) {
		for (r = 0; r < rounds; r++)
			col[r] = t[r][k];
		qsort(col, rounds, sizeof(col[0]), cmp_double);
		total += col[rounds / 2];
		printf("    %-9s %12.3f %14.0f\n", stage_names[k], col[rounds / 2] / n / s * 1e6,
		       (double)n * s / col[rounds / 2]);
	}
	printf("    %-9s %12.3f %14.0f\n", "all", total / n / s * 1e6, (double)n * s / total);
	if (!encode_bench(obj, 2000, &ours, &theirs))
		printf("job message with '%s' in base64: proto_encode %.1f us, json_dumps %.1f us "
		       "(x%.2f)\n", obj, ours, theirs, ours > 0 ? theirs / ours : 0);
	for (r = 0; r < rounds; r++) {	/* alternated, each on a fresh database */
		each[r] = dispatch_round(dir, r, n, 0);
		batched[r] = dispatch_round(dir, r, n, batch);
		if (each[r] < 0 || batched[r] < 0)
			goto out;
	}
	total = median(each, rounds);
	printf("dispatch of %d jobs, median of %d rounds: one transaction each %.1f us a job, "
	       "%d a transaction %.1f us a job (x%.2f)\n", n, rounds, total / n * 1e6, batch,
	       median(batched, rounds) / n * 1e6, total / median(batched, rounds));
	if (objects_bench(dir, obj, 2000, &obj_each, &obj_cached))
		goto out;
	printf("object entry of a job message: read and encoded %.2f us, cached %.3f us\n",
	       obj_each, obj_cached);
	rc = 0;
out:
	free(t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "ingest: cannot remove '%s'\n", dir);
	return rc;
}
