// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web.c - how long the dashboard takes for the page of a big run, beside the CLI's
 * `bpflab result show` of the same run (bench/README.md, "web"; issue 14's goal: the
 * page of a 10,000-job run in under 1 s).
 *
 * Builds a database in a temporary directory with the store's own functions
 * (store_open, store_import): one run of J jobs (default 10,000: 10 variants x 10
 * matrix points x J/100 repetitions), each with two samples (prog.ns_per_run of the
 * variant's program, port.rx_pps of port b). Serves it with web_new on 127.0.0.1 (an
 * ephemeral port, MHD's own thread, as `bpflab serve --db` does), then for R rounds
 * (default 5), in turn:
 *   page      curl /runs/1: time to first byte (time_starttransfer), complete
 *             (time_total), bytes
 *   api       curl /api/runs/1 (the JSON of `result show -j`)
 *   cli       `bpflab --db FILE result show 1` (wall clock, stdout to /dev/null)
 *   cli -j    `bpflab --db FILE -j result show 1`
 * and prints each round and the medians. Asserts nothing; exits 1 when something
 * cannot be set up or a request fails.
 *
 *   build/bench/web [--jobs J] [--rounds R] [--bpflab PATH]
 *
 * PATH defaults to bin/bpflab beside this program's directory (build/bin/bpflab).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "base/util.h"
#include "web.h"

enum { M_PAGE_TTFB, M_PAGE_TOTAL, M_API_TTFB, M_API_TOTAL, M_CLI, M_CLI_JSON, M__N };

static const char *const m_names[M__N] = {
	"page first byte", "page complete", "api first byte", "api complete",
	"cli result show", "cli -j result show",
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The import of one run of N jobs (store_import's object). NULL when out of memory. */
static json_t *big_run(int n)
{
	json_t *jobs = json_array(), *imp;
	int j;

	for (j = 0; jobs && j < n; j++) {
		char variant[16], prog[32];
		int v = j % 10, pt = (j / 10) % 10, rep = j / 100 + 1;
		/* deterministic values: a level per variant and point, a small wobble */
		double wobble = ((j * 7919) % 101 - 50) / 1000.0;
		json_t *job;

		snprintf(variant, sizeof(variant), "v%d", v);
		snprintf(prog, sizeof(prog), "xdp_v%d", v);
		job = json_pack("{s:s, s:i, s:{s:i}, s:[{s:s, s:s, s:f, s:s, s:s}, "
				"{s:s, s:s, s:f, s:s, s:s}]}", "variant", variant, "rep", rep,
				"point", "frame_size", 64 << (pt % 5), "samples",
				"metric", "prog.ns_per_run", "subject", prog,
				"value", (20 + v + pt) * (1 + wobble), "unit", "ns", "window", "cost",
				"metric", "port.rx_pps", "subject", "b",
				"value", 1e6 * (10 - v) * (1 + wobble), "unit", "pps", "window", "rate");
		if (!job || json_array_append_new(jobs, job)) {
			json_decref(jobs);
			return NULL;
		}
	}
	imp = jobs ? json_pack("{s:s, s:s, s:s, s:{s:s, s:s}, s:o}", "plan", "bench-web",
			       "source", "bench/web.c", "host", "h1", "kernel", "release", "6.18.0",
			       "version", "#1 SMP", "jobs", jobs) : NULL;
	return imp;
}

/* curl URL: seconds to the first byte and in all into T[0], T[1]; bytes into *SIZE.
 * Returns 0, or -1 when curl fails or the status is not 200. */
static int curl_time(const char *url, double t[2], long *size)
{
	char cmd[600], line[256];
	int status = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "curl -s -o /dev/null -w '%%{http_code} "
		 "%%{time_starttransfer} %%{time_total} %%{size_download}\\n' '%s'", url);
	fflush(stdout);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(line, sizeof(line), p) ||
	    sscanf(line, "%d %lf %lf %ld", &status, &t[0], &t[1], size) != 4)
		status = 0;
	if (pclose(p) || status != 200) {
		fprintf(stderr, "web: curl '%s' failed (status %d)\n", url, status);
		return -1;
	}
	return 0;
}

/* Seconds `BPFLAB --db DB [-j] result show RUN` takes, stdout to /dev/null; -1 on
 * failure. */
static double cli_time(const char *bpflab, const char *db, bool json)
{
	double t0;
	int status, fd;
	pid_t pid;

	fflush(stdout);	/* the child must not write out what this process buffered */
	t0 = now_s();
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(127);
		if (json)
			execl(bpflab, bpflab, "--db", db, "-j", "result", "show", "1", (char *)NULL);
		else
			execl(bpflab, bpflab, "--db", db, "result", "show", "1", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "web: %s --db %s result show 1 failed\n", bpflab, db);
		return -1;
	}
	return now_s() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "bpflab", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	char dir[] = "/tmp/bpflab-bench-web-XXXXXX", db[PATH_MAX], bpflab[PATH_MAX] = "";
	struct err err;
	char url[256], self[PATH_MAX];
	int jobs = 10000, rounds = 5, opt, r, m, rc = 1;
	double *t[M__N] = { NULL }, t0, build_s, two[2];
	struct web *w = NULL;
	struct store *st;
	int64_t run = 0;
	long page_bytes = 0, api_bytes = 0;
	json_t *imp;
	bool usage;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (opt == 'j')
			jobs = atoi(optarg);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'b')
			snprintf(bpflab, sizeof(bpflab), "%s", optarg);
		else
			return 2;
	}
	if (jobs < 1 || rounds < 1) {
		fprintf(stderr, "web: --jobs and --rounds take a positive number\n");
		return 2;
	}
	if (!*bpflab) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		self[n > 0 ? n : 0] = '\0';
		snprintf(bpflab, sizeof(bpflab), "%s/../bin/bpflab", dirname(self));
	}
	if (access(bpflab, X_OK)) {
		fprintf(stderr, "web: no bpflab at '%s' (make, or --bpflab PATH)\n", bpflab);
		return 1;
	}
	if (!mkdtemp(dir)) {
		perror("web: mkdtemp");
		return 1;
	}
	snprintf(db, sizeof(db), "%s/web.db", dir);
	t0 = now_s();
	imp = big_run(jobs);
	st = imp ? store_open(db, false, &err) : NULL;
	if (!st || store_import(st, imp, util_wall_ms(), &run)) {
		fprintf(stderr, "web: cannot make the database: %s\n", st ? store_err(st)->msg :
			imp ? err.msg : "out of memory");
		store_close(&st);
		json_decref(imp);
		goto out;
	}
	store_close(&st);
	json_decref(imp);
	build_s = now_s() - t0;
	w = web_new(&(struct web_opts){ .db = db, .http = "127.0.0.1:0" }, &usage, &err);
	if (!w) {
		fprintf(stderr, "web: %s\n", err.msg);
		goto out;
	}
	for (m = 0; m < M__N; m++) {
		t[m] = calloc((size_t)rounds, sizeof(double));
		if (!t[m])
			goto out;
	}
	printf("run %lld: %d jobs, %d samples; database made in %.2f s (%s)\n",
	       (long long)run, jobs, 2 * jobs, build_s, db);
	printf("round  page ttfb  page total  api ttfb  api total  cli show  cli -j show\n");
	for (r = 0; r < rounds; r++) {
		snprintf(url, sizeof(url), "%sruns/%lld", web_url(w), (long long)run);
		if (curl_time(url, two, &page_bytes))
			goto out;
		t[M_PAGE_TTFB][r] = two[0];
		t[M_PAGE_TOTAL][r] = two[1];
		snprintf(url, sizeof(url), "%sapi/runs/%lld", web_url(w), (long long)run);
		if (curl_time(url, two, &api_bytes))
			goto out;
		t[M_API_TTFB][r] = two[0];
		t[M_API_TOTAL][r] = two[1];
		t[M_CLI][r] = cli_time(bpflab, db, false);
		t[M_CLI_JSON][r] = cli_time(bpflab, db, true);
		if (t[M_CLI][r] < 0 || t[M_CLI_JSON][r] < 0)
			goto out;
		printf("%5d  %9.3f  %10.3f  %8.3f  %9.3f  %8.3f  %11.3f\n", r + 1,
		       t[M_PAGE_TTFB][r], t[M_PAGE_TOTAL][r], t[M_API_TTFB][r], t[M_API_TOTAL][r],
		       t[M_CLI][r], t[M_CLI_JSON][r]);
	}
	printf("medians of %d rounds (s); page %ld bytes, api %ld bytes:\n", rounds, page_bytes,
	       api_bytes);
	for (m = 0; m < M__N; m++) {
		qsort(t[m], (size_t)rounds, sizeof(double), cmp_double);
		printf("  %-20s %.3f\n", m_names[m], rounds % 2 ? t[m][rounds / 2] :
		       (t[m][rounds / 2 - 1] + t[m][rounds / 2]) / 2);
	}
	rc = 0;
out:
	web_destroy(&w);
	for (m = 0; m < M__N; m++)
		free(t[m]);
	for (m = 0; m < 3; m++) {
		snprintf(self, sizeof(self), "%s%s", db, (const char *[]){ "", "-wal", "-shm" }[m]);
		unlink(self);
	}
	rmdir(dir);
	return rc;
}
