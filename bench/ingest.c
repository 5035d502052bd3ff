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
 *
 *   build/bench/ingest [--results N] [--samples S] [--rounds R] [--object FILE]
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

#include "proto.h"
#include "proto_schema.h"
#include "store.h"
#include "util.h"

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
	char path[PATH_MAX], err[512];
	json_t *inv = json_pack("{s:s, s:{s:s}}", "hostname", "h", "kernel", "release", "6.18");
	struct store *st;
	int requeued, j;
	sqlite3 *d;

	snprintf(path, sizeof(path), "%s/ingest-%d.db", dir, round);
	st = store_open(path, false, err, sizeof(err));
	if (!st) {
		fprintf(stderr, "ingest: %s\n", err);
		json_decref(inv);
		return NULL;
	}
	if (store_host_hello(st, "h", "bench", inv, 1, host, &requeued)) {
		fprintf(stderr, "ingest: %s\n", store_errmsg(st));
		json_decref(inv);
		store_close(&st);
		return NULL;
	}
	json_decref(inv);
	d = store_db(st);
	sqlite3_exec(d, "BEGIN; INSERT INTO plans (id, name, sha256, text, created_ms) "
		     "VALUES (1, 'bench', 'x', 'x', 0); INSERT INTO runs (id, plan_id, plan_file, "
		     "submitted_ms) VALUES (1, 1, 'b', 0);", NULL, NULL, NULL);
	for (j = 1; j <= n; j++) {
		char sql[256];

		snprintf(sql, sizeof(sql), "INSERT INTO jobs (id, run_id, seq, host_id, variant, "
			 "variant_idx, rep, spec) VALUES (%d, 1, %d, %lld, 'drop', 0, 1, '{}')", j,
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
	char why[256];
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
		msg = proto_decode(text, len, why, sizeof(why));
		c1 = cpu_now();
		t[ST_DECODE] += c1 - c0;
		if (!msg || proto_validate(msg, PROTO_CH_AGENT_TO_COORD, why, sizeof(why))) {
			fprintf(stderr, "ingest: result %d refused: %s\n", j, why);
			rc = -1;
		}
		c0 = cpu_now();
		t[ST_VALIDATE] += c0 - c1;
		if (!rc && store_ingest_result(st, host, msg, 3000, &ing)) {
			fprintf(stderr, "ingest: %s\n", store_errmsg(st));
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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "results", required_argument, NULL, 'n' },
		{ "samples", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "object", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int n = 10000, s = 100, rounds = 3, opt, r, k, rc = 1;
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
		default:
			fprintf(stderr, "usage: ingest [--results N] [--samples S] [--rounds R] "
				"[--object FILE]\n");
			return 2;
		}
	}
	if (n < 1 || s < 1 || rounds < 1 || rounds > 64) {
		fprintf(stderr, "ingest: bad --results, --samples or --rounds (1 to 64)\n");
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
	rc = 0;
out:
	free(t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "ingest: cannot remove '%s'\n", dir);
	return rc;
}
