// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_web_more.c - the dashboard's downloads, bisect pages, error cases and token
 * cookie (web/, docs/dashboard.md), served for real by web_new on 127.0.0.1 with an
 * ephemeral port over SQLite files made by the real `bpflab --db FILE` (test_web.c has
 * the pages and the API's other answers):
 *
 * - downloads: /api/runs/ID?format=json|csv|kcidb|bmf byte-equal to `result show -j`,
 *   `result show --csv` and `result export --format kcidb|bmf`, each with its
 *   Content-Disposition; the run page links all four;
 * - bisect: /api/bisect/sessions, /api/bisect/ID and /api/bisect/ID/log byte-equal to
 *   `bisect list -j`, `bisect status --session ID -j` and `bisect log --session ID -j`;
 *   /bisect lists every session, /bisect/ID shows a past one; through bpflabd (its
 *   bisect_list request, its own --http) the same;
 * - errors: a database locked by a writer past the busy timeout (a write transaction
 *   held by another connection) 503 with Retry-After, JSON and page; a database newer
 *   than the build 500, page and JSON, the file unchanged; bad parameters 400 naming
 *   them; unknown paths and sessions 404;
 * - the token: ?token=TOKEN answers 303 with the other parameters and an HttpOnly
 *   SameSite=Strict cookie that authorizes later requests (the live script's fetch);
 *   a wrong token 401; without --http-token the parameter is unknown (400).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "base/util.h"
#include "web.h"
#include "helpers.h"
#include "web_test.h"

static char tmpdir[] = "/tmp/bpflab-test-web-more-XXXXXX";
static char db[300];
static struct web *srv;

/* The stdout of `bpflab --db DB ARGS...` (NULL-terminated), which must succeed. */
static char *cli(const char *const *args)
{
	return web_test_cli(tmpdir, (const char *[]){ "--db", db, NULL }, args);
}

static void get(const char *path, struct http *h)
{
	http_req(web_port(srv), "GET", path, NULL, h);
}

/* Runs 1 to 3 of plan k on kernels 6.1.0, 6.2.0<i> and 6.3.0 (web_test_kernel_csv);
 * job 2 of run 1 flagged unstable (left out of the exports). Bisect session 1 (three
 * steps, then reset) and session 2, active, with none. */
static int setup(void **state)
{
	const char *bis[] = { "bisect", "start", "--plan", "k", "--metric", "prog.ns_per_run",
			      "--good", "6.1.0", "--bad", "6.3.0", "--kernels", NULL, NULL };
	char file[400];
	int i;

	(void)state;
	if (web_test_setup_k(tmpdir, db, sizeof(db)))
		return -1;
	db_file_exec(db, "UPDATE jobs SET verdicts = '[\"unstable\"]' WHERE id = 2");
	snprintf(file, sizeof(file), "%s/kernels", tmpdir);
	file_put(file, "6.1.0\n6.2.0<i>\n6.3.0\n");
	bis[11] = file;
	free(cli(bis));
	for (i = 0; i < 3; i++)
		free(cli((const char *[]){ "bisect", "step", NULL }));
	free(cli((const char *[]){ "bisect", "reset", NULL }));
	free(cli(bis));
	srv = web_test_start(db, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	web_destroy(&srv);
	return tmpdir_remove(tmpdir);
}

/* Each download is the CLI's output for the run, byte for byte, named for saving. */
static void test_web_downloads(void **state)
{
	static const struct {
		const char *path, *args[8], *type, *file;
	} cases[] = {
		{ "/api/runs/1?format=json", { "-j", "result", "show", "1", NULL },
		  "application/json", "run-1.json" },
		{ "/api/runs/1?format=csv", { "result", "show", "1", "--csv", NULL },
		  "text/csv", "run-1.csv" },
		{ "/api/runs/1?format=kcidb", { "result", "export", "1", "--format", "kcidb",
		  NULL }, "application/json", "run-1.kcidb.json" },
		{ "/api/runs/2?format=bmf", { "result", "export", "2", "--format", "bmf", NULL },
		  "application/json", "run-2.bmf.json" },
		{ "/api/runs/1?format=bmf", { "result", "export", "1", "--format", "bmf", NULL },
		  "application/json", "run-1.bmf.json" },
	};
	char want_head[128];
	struct http h;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		web_test_same(web_port(srv), cases[i].path, cli(cases[i].args), &h);
		snprintf(want_head, sizeof(want_head), "Content-Type: %s", cases[i].type);
		assert_contains(h.head, want_head);
		snprintf(want_head, sizeof(want_head), "Content-Disposition: attachment; "
			 "filename=\"%s\"", cases[i].file);
		assert_contains(h.head, want_head);
		http_free(&h);
	}
	/* the flagged job of run 1 is left out as the CLI leaves it out: 3 repetitions */
	get("/api/runs/1?format=bmf", &h);
	assert_contains(h.body, "\"prog.ns_per_run\":{\"value\":10.1");
	http_free(&h);
	/* /api/runs/ID without format is for scripts: no download */
	get("/api/runs/1", &h);
	assert_int_equal(h.status, 200);
	assert_null(strstr(h.head, "Content-Disposition"));
	http_free(&h);
	get("/runs/1", &h);
	assert_contains(h.body, "Download: <a href=\"/api/runs/1?format=json\">JSON</a> <a "
			"href=\"/api/runs/1?format=csv\">CSV</a> <a href=\"/api/runs/1?format=kcidb\">"
			"KCIDB</a> <a href=\"/api/runs/1?format=bmf\">BMF</a>");
	/* the repetitions drawn: a chart per metric, a dot per repetition */
	assert_contains(h.body, "<h2>repetitions</h2>");
	assert_contains(h.body, "<h3>prog.ns_per_run</h3>\n<svg class=\"runchart\"");
	assert_contains(h.body, "<circle class=\"rep\"");
	assert_contains(h.body, "<a href=\"/runs/1?seconds=");
	http_free(&h);
	/* a dot's link: the page with that job's seconds (none stored here: said so) */
	get("/runs/1?seconds=1", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<div id=\"seconds\">\n<p>Job 1 has no per-second values.</p>");
	http_free(&h);
	get("/runs/1?seconds=x", &h);
	assert_int_equal(h.status, 400);
	assert_contains(h.body, "parameter &#39;seconds&#39;: &#39;x&#39; is not a job id (a "
			"positive integer)");
	http_free(&h);
	get("/runs/1?job=1", &h);
	assert_int_equal(h.status, 400);
	http_free(&h);
	get("/api/runs/99?format=kcidb", &h);
	assert_int_equal(h.status, 404);
	assert_text(h.body, "{\"error\":\"run 99 has no results to export\"}\n");
	assert_null(strstr(h.head, "Content-Disposition"));
	http_free(&h);
}

/* The sessions: the list, a past session and its steps as the CLI prints them. */
static void test_web_bisect_sessions(void **state)
{
	static const struct {
		const char *path, *args[8];
	} cases[] = {
		{ "/api/bisect/sessions", { "-j", "bisect", "list", NULL } },
		{ "/api/bisect/1", { "-j", "bisect", "status", "--session", "1", NULL } },
		{ "/api/bisect/1/log", { "-j", "bisect", "log", "--session", "1", NULL } },
		{ "/api/bisect/2", { "-j", "bisect", "status", "--session", "2", NULL } },
		{ "/api/bisect", { "-j", "bisect", "status", NULL } },
	};
	struct http h;
	char *want;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		web_test_same(web_port(srv), cases[i].path, cli(cases[i].args), &h);
		http_free(&h);
	}
	/* the CLI's text of the same list */
	want = cli((const char *[]){ "bisect", "list", NULL });
	assert_contains(want, "id  state   plan  metric           good   bad    kernels  steps  "
			"result\n 1  reset   k     prog.ns_per_run  6.1.0  6.3.0        3      3  -\n"
			" 2  active  k     prog.ns_per_run  6.1.0  6.3.0        3      0  -\n");
	free(want);
	get("/api/bisect/sessions", &h);
	assert_contains(h.body, "\"id\":1,\"plan\":\"k\",\"metric\":\"prog.ns_per_run\","
			"\"variant\":null,\"subject\":null,\"good\":\"6.1.0\",\"bad\":\"6.3.0\","
			"\"state\":\"reset\",\"result\":null");
	assert_contains(h.body, "\"n_kernels\":3,\"n_steps\":3}");
	assert_contains(h.body, "\"id\":2,");
	http_free(&h);
	/* the latest (active) session first, then every session with a link */
	get("/bisect", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<h1>bisect session 2</h1>");
	assert_contains(h.body, "<tr id=\"session-1\"><td><a href=\"/bisect/1\">1</a></td>"
			"<td>reset</td><td>k</td><td>prog.ns_per_run</td><td>6.1.0</td><td>6.3.0"
			"</td><td>3</td><td>3</td><td></td></tr>");
	assert_contains(h.body, "<tr id=\"session-2\"><td><a href=\"/bisect/2\">2</a></td>"
			"<td>active</td>");
	http_free(&h);
	/* a past session: its steps, and its own downloads */
	get("/bisect/1", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<h1>bisect session 1</h1>");
	assert_contains(h.body, "<tr><th>state</th><td>reset</td></tr>");
	assert_contains(h.body, "<tr><td>3</td><td>6.2.0&lt;i&gt;</td><td><a href=\"/runs/2\">2"
			"</a></td><td>4</td><td>bad</td>");
	assert_contains(h.body, "<a href=\"/api/bisect/1/log\">steps</a>");
	assert_null(strstr(h.body, "id=\"sessions\""));
	http_free(&h);
	get("/bisect/9", &h);
	assert_int_equal(h.status, 404);
	assert_contains(h.body, "<p>no bisect session 9</p>");
	http_free(&h);
	get("/api/bisect/9/log", &h);
	assert_int_equal(h.status, 404);
	assert_text(h.body, "{\"error\":\"no bisect session 9\"}\n");
	http_free(&h);
}

/* Bad parameters 400 naming them, unknown paths 404: JSON under /api/, else a page. */
static void test_web_bad_requests(void **state)
{
	static const struct {
		const char *path;
		int status;
		const char *body;
	} cases[] = {
		{ "/api/runs/1?format=pdf", 400, "{\"error\":\"parameter 'format': unknown value "
		  "'pdf' (expected json|csv|kcidb|bmf)\"}\n" },
		{ "/api/runs/1?format=", 400, "{\"error\":\"parameter 'format' needs a value\"}\n" },
		{ "/api/bisect/sessions?all=1", 400, "{\"error\":\"unknown parameter 'all'\"}\n" },
		{ "/api/bisect/0", 400, "{\"error\":\"bad session id in '/api/bisect/0' (expected "
		  "a positive integer)\"}\n" },
		{ "/api/bisect/x/log", 400, "{\"error\":\"bad session id in '/api/bisect/x/log' "
		  "(expected a positive integer)\"}\n" },
		{ "/api/bisect/1/steps", 404, "{\"error\":\"no such path '/api/bisect/1/steps' "
		  "(see docs/dashboard.md)\"}\n" },
		{ "/api/export", 404, NULL },
		{ "/runs?token=x", 400, NULL },
		{ "/bisect?session=1", 400, NULL },
		{ "/bisect/1/log", 404, NULL },
	};
	struct http h;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		get(cases[i].path, &h);
		if (h.status != cases[i].status)
			fail_msg("%s: status %d, want %d", cases[i].path, h.status,
				 cases[i].status);
		if (cases[i].body)
			assert_text(h.body, cases[i].body);
		assert_contains(h.head, strncmp(cases[i].path, "/api/", 5) ?
				"Content-Type: text/html" : "Content-Type: application/json");
		http_free(&h);
	}
	get("/runs?token=x", &h);
	assert_contains(h.body, "<p>unknown parameter &#39;token&#39;</p>");
	http_free(&h);
	get("/bisect?session=1", &h);
	assert_contains(h.body, "<p>unknown parameter &#39;session&#39;</p>");
	http_free(&h);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A writer holds the lock of a database in rollback-journal mode (BEGIN EXCLUSIVE from
 * another connection: no reader gets in): the API and a page answer 503 with
 * Retry-After after the store's busy timeout (5 s); once it commits, 200 again. */
static void test_web_busy(void **state)
{
	sqlite3 *writer = NULL;
	struct web *w;
	struct http h;
	double t0;

	(void)state;
	w = web_test_locked(tmpdir, db, &writer);
	t0 = now_s();
	http_req(web_port(w), "GET", "/api/runs", NULL, &h);
	assert_true(now_s() - t0 >= 4.5);
	assert_int_equal(h.status, 503);
	assert_text(h.body, "{\"error\":\"the database is busy: a writer has held its lock "
		    "for more than 5 s; try again\"}\n");
	assert_contains(h.head, "Retry-After: 5");
	http_free(&h);
	http_req(web_port(w), "GET", "/runs/1", NULL, &h);
	assert_int_equal(h.status, 503);
	assert_contains(h.head, "Content-Type: text/html");
	assert_contains(h.head, "Retry-After: 5");
	assert_contains(h.body, "<title>error 503 - bpflab</title>");
	assert_contains(h.body, "<p>the database is busy: a writer has held its lock for more "
			"than 5 s; try again</p>");
	http_free(&h);
	assert_int_equal(sqlite3_exec(writer, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(writer);
	http_req(web_port(w), "GET", "/api/runs", NULL, &h);
	assert_int_equal(h.status, 200);
	assert_null(strstr(h.head, "Retry-After"));
	assert_contains(h.body, "\"state\":\"cancelled\"");
	http_free(&h);
	web_destroy(&w);
}

/* A database migrated by a newer bpflab after the server started: 500 for a page and
 * for the API, a message that says what to do, and the file not touched. */
static void test_web_newer(void **state)
{
	char copy[400], cmd[900], *before, *after;
	struct web *w;
	struct http h;

	(void)state;
	snprintf(copy, sizeof(copy), "%s/newer.db", tmpdir);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \".backup '%s'\"", db, copy);
	assert_int_equal(system(cmd), 0);
	w = web_test_start(copy, NULL);
	db_file_exec(copy, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99");
	before = file_slurp(copy);
	http_req(web_port(w), "GET", "/bisect", NULL, &h);
	assert_int_equal(h.status, 500);
	assert_contains(h.head, "Content-Type: text/html");
	assert_contains(h.body, "schema version 99 is newer than this bpflab&#39;s");
	assert_contains(h.body, "use a newer bpflab");
	http_free(&h);
	http_req(web_port(w), "GET", "/api/runs/1?format=kcidb", NULL, &h);
	assert_int_equal(h.status, 500);
	assert_contains(h.body, "schema version 99 is newer than this bpflab's");
	http_free(&h);
	after = file_slurp(copy);
	assert_text(after, before);
	free(before);
	free(after);
	web_destroy(&w);
}

/* --http-token: a browser signs in once with ?token=, gets a cookie (the token's
 * SHA-256, HttpOnly, SameSite=Strict) and is sent on without the token; the cookie
 * authorizes the pages and /api/runs (the live script's fetch); a wrong one does not. */
static void test_web_token_cookie(void **state)
{
	static const char token[] = "0123456789abcdef-token";
	char cookie[128], hex[65], want[256];
	struct web *w = web_test_start(db, token);
	uint8_t sum[32];
	struct http h;
	size_t i;

	(void)state;
	util_sha256(token, strlen(token), sum);
	for (i = 0; i < sizeof(sum); i++)
		snprintf(hex + 2 * i, 3, "%02x", sum[i]);
	http_req(web_port(w), "GET", "/history?plan=k&token=0123456789abcdef-token&metric="
		 "prog.ns_per_run", NULL, &h);
	assert_int_equal(h.status, 303);
	assert_contains(h.head, "Location: /history?plan=k&metric=prog.ns_per_run\r\n");
	snprintf(want, sizeof(want), "Set-Cookie: bpflab_token=%s; Path=/; HttpOnly; "
		 "SameSite=Strict", hex);
	assert_contains(h.head, want);
	http_free(&h);
	http_req(web_port(w), "GET", "/runs?token=0123456789abcdef-tokeN", NULL, &h);
	assert_int_equal(h.status, 401);
	assert_null(strstr(h.head, "Set-Cookie"));
	http_free(&h);
	snprintf(cookie, sizeof(cookie), "Cookie: bpflab_token=%s", hex);
	http_req(web_port(w), "GET", "/api/runs", cookie, &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "\"plan\":\"k\"");
	http_free(&h);
	http_req(web_port(w), "GET", "/runs/1", cookie, &h);
	assert_int_equal(h.status, 200);
	http_free(&h);
	/* the token itself is not the cookie; a changed cookie is refused */
	http_req(web_port(w), "GET", "/api/runs", "Cookie: bpflab_token=0123456789abcdef-token",
		 &h);
	assert_int_equal(h.status, 401);
	http_free(&h);
	hex[0] = hex[0] == '0' ? '1' : '0';
	snprintf(cookie, sizeof(cookie), "Cookie: bpflab_token=%s", hex);
	http_req(web_port(w), "GET", "/api/runs", cookie, &h);
	assert_int_equal(h.status, 401);
	http_free(&h);
	/* a token and a cookie do not make a POST an answer */
	http_req(web_port(w), "POST", "/api/runs?token=0123456789abcdef-token", NULL, &h);
	assert_int_equal(h.status, 405);
	http_free(&h);
	web_destroy(&w);
}

/* bpflabd --http over a copy of the database: `bpflab bisect list -j` through the
 * coordinator (its bisect_list request) equals the list of `--db` and the list its own
 * dashboard serves; `bisect status --session 1 -j` too. SIGTERM stops it. */
static void test_web_bisect_coordinator(void **state)
{
	char cl[450], *text, *want;
	const char *via[] = { "-c", cl, "--plaintext", NULL };
	unsigned port;
	struct http h;
	pid_t pid;

	(void)state;
	pid = web_test_bpflabd(tmpdir, db, &port, cl, sizeof(cl));
	want = cli((const char *[]){ "-j", "bisect", "list", NULL });
	text = web_test_cli(tmpdir, via, (const char *[]){ "-j", "bisect", "list", NULL });
	assert_text(text, want);
	free(want);
	web_test_same(port, "/api/bisect/sessions", text, &h);
	http_free(&h);
	web_test_same(port, "/api/bisect/1", web_test_cli(tmpdir, via, (const char *[]){
		"-j", "bisect", "status", "--session", "1", NULL }), &h);
	http_free(&h);
	web_test_bpflabd_stop(pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_web_downloads),
		cmocka_unit_test(test_web_bisect_sessions),
		cmocka_unit_test(test_web_bisect_coordinator),
		cmocka_unit_test(test_web_bad_requests),
		cmocka_unit_test(test_web_busy),
		cmocka_unit_test(test_web_newer),
		cmocka_unit_test(test_web_token_cookie),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
