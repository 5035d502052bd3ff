// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* sqlite_insert.c - what the design of the samples table costs: the same 1,000,000 sample
 * rows (10,000 jobs x 100 per-second samples of 'port.rx_pps' of subject 'b') inserted
 * straight into SQLite under several table designs and settings, rows per second each.
 *
 * Every variant starts from a fresh database file in a temporary folder with a minimal
 * `jobs` table (10,000 rows) that samples refer to, foreign keys on, WAL, one prepared
 * INSERT reused (except the "prepare per row" variant), one transaction per job (100
 * rows, as bpflabd stores one result) unless the variant says "one transaction".
 *
 *   current      schema 001..006: text metric/subject/unit, seq NULL for the whole window,
 *                UNIQUE index on (job_id, metric, subject, window, ifnull(seq, -1)) and the
 *                partial index samples(metric, window) WHERE seq IS NULL;
 *   no indexes   the same table without its two indexes (no uniqueness: not a candidate);
 *   plain unique the same columns, seq NOT NULL DEFAULT -1 (-1 = whole window) and a plain
 *                UNIQUE (job_id, metric, subject, window, seq);
 *   series       metric, subject and window once in a `series` table; samples hold
 *                (job_id, series_id, seq, value, unit) with UNIQUE (job_id, series_id, seq), the
 *                series id looked up through an in-process cache as the store would;
 *   series wr    the same with samples WITHOUT ROWID, PRIMARY KEY (job_id, series_id, seq).
 *
 * Each is run with synchronous=NORMAL and FULL, one transaction per job and one for all,
 * and the current one also with a statement prepared per row; rounds of all variants
 * (start rotated) are repeated and the median of each is printed with its ratio to the
 * current design under the same settings. Prints figures; asserts nothing. Usage:
 *   build/bench/sqlite_insert [--jobs N] [--per-job S] [--rounds R] [--dir D]
 */
#include <getopt.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int n_jobs = 10000, per_job = 100;
static char dir[200];

enum design { D_CURRENT, D_NOINDEX, D_PLAIN, D_SERIES, D_SERIES_WR };

static const char *const design_sql[] = {
	[D_CURRENT] =
		"CREATE TABLE samples (id INTEGER PRIMARY KEY, "
		"job_id INTEGER NOT NULL REFERENCES jobs (id), metric TEXT NOT NULL, "
		"subject TEXT NOT NULL DEFAULT '', value REAL NOT NULL, unit TEXT NOT NULL "
		"DEFAULT '', window TEXT NOT NULL CHECK (window IN ('rate', 'cost')), "
		"seq INTEGER CHECK (seq IS NULL OR seq >= 0));"
		"CREATE UNIQUE INDEX samples_key ON samples (job_id, metric, subject, window, "
		"ifnull(seq, -1));"
		"CREATE INDEX samples_metric ON samples (metric, window) WHERE seq IS NULL;",
	[D_NOINDEX] =
		"CREATE TABLE samples (id INTEGER PRIMARY KEY, "
		"job_id INTEGER NOT NULL REFERENCES jobs (id), metric TEXT NOT NULL, "
		"subject TEXT NOT NULL DEFAULT '', value REAL NOT NULL, unit TEXT NOT NULL "
		"DEFAULT '', window TEXT NOT NULL CHECK (window IN ('rate', 'cost')), "
		"seq INTEGER CHECK (seq IS NULL OR seq >= 0));",
	[D_PLAIN] =
		"CREATE TABLE samples (id INTEGER PRIMARY KEY, "
		"job_id INTEGER NOT NULL REFERENCES jobs (id), metric TEXT NOT NULL, "
		"subject TEXT NOT NULL DEFAULT '', value REAL NOT NULL, unit TEXT NOT NULL "
		"DEFAULT '', window TEXT NOT NULL CHECK (window IN ('rate', 'cost')), "
		"seq INTEGER NOT NULL DEFAULT -1 CHECK (seq >= -1), "
		"UNIQUE (job_id, metric, subject, window, seq));",
	[D_SERIES] =
		"CREATE TABLE series (id INTEGER PRIMARY KEY, metric TEXT NOT NULL, "
		"subject TEXT NOT NULL, window TEXT NOT NULL, UNIQUE (metric, subject, window));"
		"CREATE TABLE samples (id INTEGER PRIMARY KEY, "
		"job_id INTEGER NOT NULL REFERENCES jobs (id), "
		"series_id INTEGER NOT NULL REFERENCES series (id), "
		"seq INTEGER NOT NULL DEFAULT -1 CHECK (seq >= -1), value REAL NOT NULL, "
		"unit TEXT NOT NULL DEFAULT '', UNIQUE (job_id, series_id, seq));",
	[D_SERIES_WR] =
		"CREATE TABLE series (id INTEGER PRIMARY KEY, metric TEXT NOT NULL, "
		"subject TEXT NOT NULL, window TEXT NOT NULL, UNIQUE (metric, subject, window));"
		"CREATE TABLE samples (job_id INTEGER NOT NULL REFERENCES jobs (id), "
		"series_id INTEGER NOT NULL REFERENCES series (id), "
		"seq INTEGER NOT NULL DEFAULT -1 CHECK (seq >= -1), value REAL NOT NULL, "
		"unit TEXT NOT NULL DEFAULT '', PRIMARY KEY (job_id, series_id, seq)) WITHOUT ROWID;",
};

static const char *const design_name[] = {
	[D_CURRENT] = "current (expression unique + partial index)",
	[D_NOINDEX] = "no secondary indexes (no uniqueness)",
	[D_PLAIN] = "plain UNIQUE, seq NOT NULL DEFAULT -1",
	[D_SERIES] = "series ids, UNIQUE (job, series, seq)",
	[D_SERIES_WR] = "series ids, WITHOUT ROWID primary key",
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int check(sqlite3 *d, int rc, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "sqlite_insert: %s: %s\n", what, sqlite3_errmsg(d));
		return -1;
	}
	return 0;
}

static const char *insert_sql(enum design d)
{
	if (d == D_SERIES || d == D_SERIES_WR)
		return "INSERT INTO samples (job_id, series_id, seq, value, unit) "
		       "VALUES (?1, ?2, ?3, ?4, ?5)";
	return "INSERT INTO samples (job_id, metric, subject, value, unit, window, seq) "
	       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
}

/* The series id of (metric, subject, window, unit): one cached id, as a store keeps the
 * ids it looked up; a miss is an upsert and a select. */
static int64_t series_id(sqlite3 *d, sqlite3_stmt *up, sqlite3_stmt *sel, int64_t *cache)
{
	int64_t cached = *cache;

	if (cached)
		return cached;
	for (sqlite3_stmt *s = up; s; s = s == up ? sel : NULL) {
		sqlite3_bind_text(s, 1, "port.rx_pps", -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, "b", -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, "rate", -1, SQLITE_STATIC);
		if (check(d, sqlite3_step(s), "series") == 0 && s == sel)
			cached = sqlite3_column_int64(s, 0);
		sqlite3_reset(s);
	}
	*cache = cached;
	return cached;
}

/* Rows per second of one variant; 0 on failure. */
static double run(enum design dz, bool full, bool one_tx, bool prepare_per_row)
{
	char path[300], sql[320];
	sqlite3 *d = NULL;
	sqlite3_stmt *ins = NULL, *up = NULL, *sel = NULL;
	bool series = dz == D_SERIES || dz == D_SERIES_WR;
	double t0, t = 0;
	int64_t cache = 0;
	int j, i, bad = 0;

	snprintf(path, sizeof(path), "%s/v.db", dir);
	unlink(path);
	snprintf(sql, sizeof(sql), "%s-wal", path);
	unlink(sql);
	if (check(d, sqlite3_open(path, &d), "open"))
		goto out;
	snprintf(sql, sizeof(sql), "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; "
		 "PRAGMA foreign_keys=ON;", full ? "FULL" : "NORMAL");
	if (check(d, sqlite3_exec(d, sql, NULL, NULL, NULL), "pragma") ||
	    check(d, sqlite3_exec(d, "CREATE TABLE jobs (id INTEGER PRIMARY KEY, x TEXT);",
				  NULL, NULL, NULL), "jobs") ||
	    (snprintf(sql, sizeof(sql), "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT "
		      "n + 1 FROM c WHERE n < %d) INSERT INTO jobs SELECT n, 'x' FROM c", n_jobs),
	     check(d, sqlite3_exec(d, sql, NULL, NULL, NULL), "jobs")) ||
	    check(d, sqlite3_exec(d, design_sql[dz], NULL, NULL, NULL), "schema"))
		goto out;
	if (series &&
	    (check(d, sqlite3_prepare_v2(d, "INSERT INTO series (metric, subject, window) "
					 "VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING", -1, &up,
					 NULL), "prepare") ||
	     check(d, sqlite3_prepare_v2(d, "SELECT id FROM series WHERE metric = ?1 AND "
					 "subject = ?2 AND window = ?3", -1, &sel,
					 NULL), "prepare")))
		goto out;
	t0 = now_s();
	if (one_tx)
		sqlite3_exec(d, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	for (j = 1; j <= n_jobs && !bad; j++) {
		if (!one_tx)
			sqlite3_exec(d, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		for (i = 0; i < per_job && !bad; i++) {
			if (!ins && check(d, sqlite3_prepare_v2(d, insert_sql(dz), -1, &ins, NULL),
					  "prepare")) {
				bad = 1;
				break;
			}
			sqlite3_bind_int64(ins, 1, j);
			if (series) {
				sqlite3_bind_int64(ins, 2, series_id(d, up, sel, &cache));
				sqlite3_bind_int64(ins, 3, i);
				sqlite3_bind_double(ins, 4, 1000000.5 + i);
				sqlite3_bind_text(ins, 5, "pps", -1, SQLITE_STATIC);
			} else {
				sqlite3_bind_text(ins, 2, "port.rx_pps", -1, SQLITE_STATIC);
				sqlite3_bind_text(ins, 3, "b", -1, SQLITE_STATIC);
				sqlite3_bind_double(ins, 4, 1000000.5 + i);
				sqlite3_bind_text(ins, 5, "pps", -1, SQLITE_STATIC);
				sqlite3_bind_text(ins, 6, "rate", -1, SQLITE_STATIC);
				sqlite3_bind_int64(ins, 7, i);
			}
			bad = check(d, sqlite3_step(ins), "insert");
			sqlite3_reset(ins);
			if (prepare_per_row) {
				sqlite3_finalize(ins);
				ins = NULL;
			}
		}
		if (!one_tx)
			sqlite3_exec(d, "COMMIT", NULL, NULL, NULL);
	}
	if (one_tx)
		sqlite3_exec(d, "COMMIT", NULL, NULL, NULL);
	t = now_s() - t0;
out:
	sqlite3_finalize(ins);
	sqlite3_finalize(up);
	sqlite3_finalize(sel);
	sqlite3_close(d);
	snprintf(sql, sizeof(sql), "%s-wal", path);
	unlink(sql);
	snprintf(sql, sizeof(sql), "%s-shm", path);
	unlink(sql);
	unlink(path);
	return bad || t <= 0 ? 0 : (double)n_jobs * per_job / t;
}

struct variant {
	enum design d;
	bool full, one_tx, per_row;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "per-job", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "dir", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	enum { N_VAR = 5 * 4 + 1, MAX_ROUNDS = 20 };
	struct variant var[N_VAR];
	static double rate[N_VAR][MAX_ROUNDS];
	const char *base = "/tmp";
	int c, n = 0, rounds = 3, r, k;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'j')
			n_jobs = atoi(optarg);
		else if (c == 's')
			per_job = atoi(optarg);
		else if (c == 'r')
			rounds = atoi(optarg);
		else if (c == 'd')
			base = optarg;
		else
			return 2;
	}
	if (n_jobs < 1 || n_jobs > 1000000 || per_job < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "sqlite_insert: --jobs 1..1000000, --per-job >= 1, "
			"--rounds 1..%d\n", MAX_ROUNDS);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/sqlite-insert-XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror("sqlite_insert: mkdtemp");
		return 1;
	}
	for (int d = D_CURRENT; d <= D_SERIES_WR; d++)
		for (int full = 0; full <= 1; full++)
			for (int one = 0; one <= 1; one++)
				var[n++] = (struct variant){ d, full, one, false };
	var[n++] = (struct variant){ D_CURRENT, false, false, true };
	printf("%d jobs x %d samples = %d rows, SQLite %s, WAL, foreign keys on; %d rounds, "
	       "every variant once a round (start rotated), median shown\n", n_jobs, per_job,
	       n_jobs * per_job, sqlite3_libversion(), rounds);
	/* rounds alternate all variants so that drift of a shared machine hits all alike */
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < n; k++) {
			int v = (k + r * 7) % n;

			rate[v][r] = run(var[v].d, var[v].full, var[v].one_tx, var[v].per_row);
		}
		fprintf(stderr, "round %d of %d done\n", r + 1, rounds);
	}
	for (k = 0; k < n; k++)
		qsort(rate[k], rounds, sizeof(double), cmp_double);
	printf("%-46s %-7s %-8s %12s %10s  %s\n", "design", "sync", "tx", "median r/s",
	       "x current", "range r/s");
	for (k = 0; k < n; k++) {
		/* baseline: the current design with the same sync and transactions */
		int b = var[k].per_row ? 0 : (var[k].full ? 2 : 0) + (var[k].one_tx ? 1 : 0);
		double med = rate[k][rounds / 2], bmed = rate[b][rounds / 2];

		printf("%-46s %-7s %-8s %12.0f %10.2f  %.0f..%.0f\n",
		       var[k].per_row ? "current, statement prepared per row" : design_name[var[k].d],
		       var[k].full ? "FULL" : "NORMAL", var[k].one_tx ? "one" : "per job", med,
		       bmed ? med / bmed : 0, rate[k][0], rate[k][rounds - 1]);
	}
	rmdir(dir);
	return 0;
}
