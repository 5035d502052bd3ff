// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* sqlite_jobs.c - what the jobs table's shape costs bpflabd's dispatch and results: the
 * writes of bench/coordinator's run of 10,000 jobs (10 waves of one job on each of 1,000
 * hosts) replayed straight into SQLite, CPU time per job under several designs.
 *
 * A turn of bpflabd stores about 64 results, then dispatches about 64 jobs, each part
 * one commit (bench/README.md, "What is left, measured (session 18)"); the hosts answer
 * in any order, so a turn's jobs are 64 random ones of a wave of 1,000 consecutive ids.
 * Here each turn is: the results of 64 jobs of wave k-1 (one UPDATE of the job row
 * each), a commit, the dispatch of the same hosts' jobs of wave k (the job row read,
 * then its UPDATE), a commit.
 *
 *   inline spec  the jobs table of schema 012 (its columns, CHECK, UNIQUE and indexes,
 *                jobs_queue partial as in 014), each row with its spec text inline
 *                (--spec-bytes, 447 by default: bench/coordinator's spec);
 *   spec apart   the same table with an integer spec_id in place of the text, the texts
 *                in a table of their own (one row: every job of the run has one spec);
 *   returning    inline spec, the dispatch's read and UPDATE as one UPDATE ... RETURNING.
 *
 * Fresh database file per variant and round in a temporary folder, WAL, synchronous
 * NORMAL, autocheckpoint 4,000 pages (lib/store/store.c); the inserts of the run are not
 * timed. Rounds of all variants (start rotated); the median of each (a job's result and
 * dispatch, commits included, and the kernel's part: the WAL's page writes) is printed
 * with its ratio to "inline spec". Prints figures; asserts nothing. Usage:
 *   build/bench/sqlite_jobs [--rounds R] [--spec-bytes B] [--dir D]
 */
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define HOSTS 1000
#define WAVES 10
#define TURN 64

enum variant { V_INLINE, V_APART, V_RETURNING, V__N };

static const char *const variant_name[V__N] = { "inline spec", "spec apart", "returning" };
static int spec_bytes = 447;
static char dir[200];

/* the process's CPU seconds so far, the kernel's part into *SYS */
static double cpu_s(double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + *sys;
}

/* The database's files and the folder go (on the way out too). */
static void remove_files(void)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	char path[300];
	size_t i;

	for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(path, sizeof(path), "%s/jobs.db%s", dir, suffix[i]);
		unlink(path);
	}
}

static void die(sqlite3 *db, const char *what)
{
	fprintf(stderr, "sqlite_jobs: %s: %s\n", what, db ? sqlite3_errmsg(db) : "failed");
	remove_files();
	rmdir(dir);
	exit(1);
}

static void exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		die(db, sql);
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		die(db, sql);
	return s;
}

static void step_done(sqlite3 *db, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		die(db, sqlite3_sql(s));
	sqlite3_reset(s);
}

/* schema 012's jobs table; SPEC_COLUMN is its spec column's definition */
static void create_jobs(sqlite3 *db, const char *spec_column)
{
	char sql[2048];

	snprintf(sql, sizeof(sql),
		 "CREATE TABLE jobs (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, "
		 "seq INTEGER NOT NULL, host_id INTEGER NOT NULL, variant TEXT NOT NULL, "
		 "variant_idx INTEGER NOT NULL, rep INTEGER NOT NULL, "
		 "point TEXT NOT NULL DEFAULT '{}', %s, "
		 "state TEXT NOT NULL DEFAULT 'queued' CHECK (state = 'queued' OR "
		 "state = 'running' OR state = 'done' OR state = 'failed'), "
		 "attempts INTEGER NOT NULL DEFAULT 0, error TEXT, verifier_log TEXT, "
		 "env_id INTEGER, started_ms INTEGER, finished_ms INTEGER, result_ms INTEGER, "
		 "verdicts TEXT NOT NULL DEFAULT '[]', verdict_details TEXT NOT NULL DEFAULT '{}', "
		 "added TEXT, UNIQUE (run_id, host_id, seq))", spec_column);
	exec(db, sql);
	exec(db, "CREATE INDEX jobs_queue ON jobs (host_id, state, run_id, seq) "
		 "WHERE state = 'queued' OR state = 'running'");
	exec(db, "CREATE INDEX jobs_run ON jobs (run_id, state)");
}

/* The run's rows, wave-major as bpflabd's submit writes them (job id w * HOSTS + h + 1). */
static sqlite3 *open_run(enum variant v, const char *path)
{
	char *spec = malloc(spec_bytes + 1);
	sqlite3_stmt *ins;
	sqlite3 *db;
	int w, h;

	if (!spec || sqlite3_open(path, &db) != SQLITE_OK)
		die(NULL, "open");
	memset(spec, 'x', spec_bytes);
	spec[spec_bytes] = '\0';
	exec(db, "PRAGMA journal_mode = WAL");
	exec(db, "PRAGMA synchronous = NORMAL");
	sqlite3_wal_autocheckpoint(db, 4000);
	if (v == V_APART) {
		exec(db, "CREATE TABLE job_specs (id INTEGER PRIMARY KEY, text TEXT NOT NULL)");
		create_jobs(db, "spec_id INTEGER NOT NULL REFERENCES job_specs (id)");
		ins = prep(db, "INSERT INTO job_specs (id, text) VALUES (1, ?1)");
		sqlite3_bind_text(ins, 1, spec, -1, SQLITE_STATIC);
		step_done(db, ins);
		sqlite3_finalize(ins);
		ins = prep(db, "INSERT INTO jobs (run_id, seq, host_id, variant, variant_idx, rep, "
			   "spec_id) VALUES (1, ?1, ?2, 'drop', 0, 1, 1)");
	} else {
		create_jobs(db, "spec TEXT NOT NULL");
		ins = prep(db, "INSERT INTO jobs (run_id, seq, host_id, variant, variant_idx, rep, "
			   "spec) VALUES (1, ?1, ?2, 'drop', 0, 1, ?3)");
	}
	exec(db, "BEGIN");
	for (w = 0; w < WAVES; w++)
		for (h = 0; h < HOSTS; h++) {
			sqlite3_bind_int(ins, 1, w);
			sqlite3_bind_int(ins, 2, h + 1);
			if (v != V_APART)
				sqlite3_bind_text(ins, 3, spec, -1, SQLITE_STATIC);
			step_done(db, ins);
		}
	exec(db, "COMMIT");
	sqlite3_finalize(ins);
	free(spec);
	return db;
}

/* The run's turns in variant V: CPU seconds, the kernel's into *SYS. ORDER is the
 * hosts' order of answers. */
static double replay(enum variant v, const int *order, double *sys)
{
	static const char *const get = "SELECT run_id, host_id, state, result_ms, attempts "
				       "FROM jobs WHERE id = ?1";
	static const char *const dispatch = "UPDATE jobs SET state = 'running', "
					    "attempts = attempts + 1, started_ms = ?2 "
					    "WHERE id = ?1 AND state = 'queued'";
	char path[300];
	sqlite3_stmt *g, *d, *dr, *r;
	long n = 0;
	double t0, t, sys0;
	sqlite3 *db;
	int w, b, i;

	snprintf(path, sizeof(path), "%s/jobs.db", dir);
	db = open_run(v, path);
	g = prep(db, get);
	d = prep(db, dispatch);
	dr = prep(db, "UPDATE jobs SET state = 'running', attempts = attempts + 1, "
		  "started_ms = ?2 WHERE id = ?1 AND state = 'queued' "
		  "RETURNING run_id, host_id, state, result_ms, attempts");
	r = prep(db, "UPDATE jobs SET state = 'done', error = NULL, env_id = 1, "
		 "finished_ms = ?2, result_ms = ?2, verdicts = '[]', verdict_details = '{}' "
		 "WHERE id = ?1");
	t0 = cpu_s(&sys0);
	for (w = 0; w < WAVES; w++)
		for (b = 0; b < HOSTS; b += TURN) {
			int end = b + TURN < HOSTS ? b + TURN : HOSTS;

			exec(db, "BEGIN IMMEDIATE");	/* the turn's results */
			for (i = b; i < end && w > 0; i++) {
				sqlite3_bind_int(r, 1, (w - 1) * HOSTS + order[w * HOSTS + i] + 1);
				sqlite3_bind_int64(r, 2, 1000 + w);
				step_done(db, r);
			}
			exec(db, "COMMIT");
			exec(db, "BEGIN IMMEDIATE");	/* the turn's dispatch */
			for (i = b; i < end; i++) {
				int id = w * HOSTS + order[w * HOSTS + i] + 1;
				sqlite3_stmt *s = v == V_RETURNING ? dr : g;

				sqlite3_bind_int(s, 1, id);
				if (s == dr)
					sqlite3_bind_int64(s, 2, 1000 + w);
				if (sqlite3_step(s) != SQLITE_ROW)
					die(db, "job row");
				n += sqlite3_column_int64(s, 1) > 0;	/* its host */
				sqlite3_reset(s);
				if (s == dr)
					continue;
				sqlite3_bind_int(d, 1, id);
				sqlite3_bind_int64(d, 2, 1000 + w);
				step_done(db, d);
			}
			exec(db, "COMMIT");
		}
	t = cpu_s(sys) - t0;
	*sys -= sys0;
	if (n < HOSTS * WAVES)
		die(db, "not every job was dispatched");
	sqlite3_finalize(g);
	sqlite3_finalize(d);
	sqlite3_finalize(dr);
	sqlite3_finalize(r);
	sqlite3_close(db);
	remove_files();
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "spec-bytes", required_argument, NULL, 's' },
		{ "dir", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int rounds = 5, opt, i, k, v, *order;
	double *t[V__N], *k_s[V__N], med[V__N], med_sys[V__N];
	const char *parent = "/tmp";

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 's')
			spec_bytes = atoi(optarg);
		else if (opt == 'd')
			parent = optarg;
		else {
			fprintf(stderr, "usage: sqlite_jobs [--rounds R] [--spec-bytes B] "
				"[--dir D]\n");
			return 2;
		}
	}
	if (rounds < 1 || spec_bytes < 1 || spec_bytes > 65536) {
		fprintf(stderr, "sqlite_jobs: bad --rounds or --spec-bytes\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/bpflab-sqlite-jobs-XXXXXX", parent);
	if (!mkdtemp(dir)) {
		perror("sqlite_jobs: mkdtemp");
		return 1;
	}
	/* each wave's hosts answer in an order of their own, the same in every variant */
	order = malloc(WAVES * HOSTS * sizeof(*order));
	for (v = 0; v < V__N; v++) {
		t[v] = malloc(rounds * sizeof(double));
		k_s[v] = malloc(rounds * sizeof(double));
		if (!t[v] || !k_s[v])
			return 1;
	}
	if (!order)
		return 1;
	srand(1);
	for (k = 0; k < WAVES; k++) {
		int *o = order + k * HOSTS;

		for (i = 0; i < HOSTS; i++)
			o[i] = i;
		for (i = HOSTS - 1; i > 0; i--) {
			int j = rand() % (i + 1), x = o[i];

			o[i] = o[j];
			o[j] = x;
		}
	}
	printf("jobs table: %d jobs (%d waves of %d hosts), %d a turn, spec %d bytes, "
	       "%d rounds\n", HOSTS * WAVES, WAVES, HOSTS, TURN, spec_bytes, rounds);
	for (i = 0; i < rounds; i++)
		for (k = 0; k < V__N; k++) {
			v = (i + k) % V__N;
			t[v][i] = replay(v, order, &k_s[v][i]);
		}
	for (v = 0; v < V__N; v++) {
		qsort(t[v], rounds, sizeof(double), cmp_double);
		qsort(k_s[v], rounds, sizeof(double), cmp_double);
		med[v] = t[v][rounds / 2];
		med_sys[v] = k_s[v][rounds / 2];
	}
	for (v = 0; v < V__N; v++)
		printf("  %-12s %6.2f us a job (%5.2f of it in the kernel)  x%.2f\n",
		       variant_name[v], med[v] * 1e6 / (HOSTS * WAVES),
		       med_sys[v] * 1e6 / (HOSTS * WAVES), med[v] / med[V_INLINE]);
	rmdir(dir);
	for (v = 0; v < V__N; v++) {
		free(t[v]);
		free(k_s[v]);
	}
	free(order);
	return 0;
}
