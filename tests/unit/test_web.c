// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_web.c - the dashboard (web/, docs/dashboard.md) served for real: web_new on
 * 127.0.0.1 with an ephemeral port over a database made by `bpflab result import`, asked
 * by a small HTTP/1.1 client over a socket:
 *
 * - /api/runs/ID, /api/runs and /api/hosts byte-equal to `bpflab --db FILE -j result show
 *   ID`, `run list` and `host list` (the real binary);
 * - errors: unknown path and unknown run 404, bad run id and bad parameters 400 naming
 *   the parameter, POST 405 with Allow, a token enforced (401 without or wrong, 200
 *   right), a database newer than the build 500 (and refused at start);
 * - a plan named <script>...: escaped on both pages, verdict details on the run page;
 * - the start rule: an address outside loopback without token or --http-public refused
 *   (web_new, `bpflab serve` and `bpflabd --http`, exit 2, nothing bound);
 * - /api/history, /api/compare, /api/bisect(/log) byte-equal to `result history -j`,
 *   `result compare -j`, `bisect status -j` and `bisect log -j`; the /history chart
 *   (point titles, the change point where hand-computed), /compare, /hosts (noise floor),
 *   /bisect; the live script of /runs and its hash in the CSP;
 * - `bpflabd --http`: the coordinator serves its own database while it runs;
 * - web_util.c's pure parsers: routes, parameters, addresses, tokens, escaping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include "base/util.h"
#include "web.h"
#include "helpers.h"
#include "web_test.h"


static char tmpdir[] = "/tmp/bpflab-test-web-XXXXXX";
static char db[300];
static struct web *srv;

static const char csv[] =
	"variant,prog,set,value\n"
	"drop,xdp_drop,1,35.9\n"
	"drop,xdp_drop,2,35.6\n"
	"pass,xdp_pass,1,20.1\n"
	"pass,xdp_pass,2,20.3\n";


/* GET PATH on the test's server. */
static void get(const char *path, struct http *h)
{
	http_req(web_port(srv), "GET", path, NULL, h);
}

/* The stdout of `bpflab ARGS...` (NULL-terminated), which must succeed. */
static char *cli_out(const char *const *args)
{
	return web_test_cli(tmpdir, NULL, args);
}

/* Run 1 of plan <script>... from the CSV (imported as 'xss', then renamed in the database:
 * import takes plan names only; the pages must still escape what a database holds), job 2 unstable with a detail; run 2 of 'b';
 * runs 3 to 5 of plan 'k' on kernels 6.1.0, 6.2.0<i> and 6.3.0 (kernel_csv). */
static int setup(void **state)
{
	char file[400];

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	unsetenv("BPFLAB_COORDINATOR");
	snprintf(db, sizeof(db), "%s/lab.db", tmpdir);
	snprintf(file, sizeof(file), "%s/a.csv", tmpdir);
	file_put(file, csv);
	free(cli_out((const char *[]){ "--db", db, "result", "import", file, "--plan",
				       "xss", NULL }));
	db_file_exec(db, "UPDATE plans SET name = '<script>alert(''x'')</script>' "
		     "WHERE name = 'xss'");
	free(cli_out((const char *[]){ "--db", db, "result", "import", file, "--plan", "b",
				       NULL }));
	web_test_import_k(tmpdir, db);
	db_file_exec(db, "UPDATE jobs SET verdicts = '[\"unstable\"]', verdict_details = "
		"'{\"unstable\": \"varied 8.1 % <b>\"}' WHERE id = 2");
	srv = web_test_start(db, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	web_destroy(&srv);
	return tmpdir_remove(tmpdir);
}

/* The API answers are the CLI's -j output, byte for byte. */
static void test_web_api_equals_cli(void **state)
{
	static const struct {
		const char *path;
		const char *args[16];
	} cases[] = {
		{ "/api/runs/1", { "-j", "result", "show", "1", NULL } },
		{ "/api/runs/2", { "-j", "result", "show", "2", NULL } },
		{ "/api/runs", { "-j", "run", "list", NULL } },
		{ "/api/hosts", { "-j", "host", "list", NULL } },
		{ "/api/history?plan=k&metric=prog.ns_per_run",
		  { "-j", "result", "history", "--plan", "k", "--metric", "prog.ns_per_run",
		    NULL } },
		{ "/api/history?plan=k&metric=prog.ns_per_run&by=day&variant=drop&host=imported",
		  { "-j", "result", "history", "--plan", "k", "--metric", "prog.ns_per_run",
		    "--by", "day", "--variant", "drop", "--host", "imported", NULL } },
		{ "/api/compare?a=3&b=4", { "-j", "result", "compare", "3", "4", NULL } },
		{ "/api/compare?a=1&b=2&metric=prog.ns_per_run",
		  { "-j", "result", "compare", "1", "2", "--metric", "prog.ns_per_run", NULL } },
		{ "/api/compare?plan=k&by=kernel.release",
		  { "-j", "result", "compare", "--plan", "k", "--by", "kernel.release", NULL } },
		{ "/api/compare?plan=k&by=kernel.release&baseline=6.3.0&candidate=6.1.0",
		  { "-j", "result", "compare", "--plan", "k", "--by", "kernel.release",
		    "--baseline", "6.3.0", "--candidate", "6.1.0", NULL } },
	};
	struct http h;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		web_test_same(web_port(srv), cases[i].path, web_test_cli(tmpdir, (const char *[]){
			"--db", db, NULL }, cases[i].args), &h);
		assert_contains(h.head, "Content-Type: application/json");
		http_free(&h);
	}
	/* the CSV download is `result show --csv` */
	{
		char *want = cli_out((const char *[]){ "--db", db, "result", "show", "1", "--csv",
						       NULL });

		get("/api/runs/1?format=csv", &h);
		assert_int_equal(h.status, 200);
		assert_text(h.body, want);
		free(want);
		http_free(&h);
	}
}

/* Each wrong request: its status and a JSON error (a page for a page path). */
static void test_web_errors(void **state)
{
	static const struct {
		const char *method, *path;
		int status;
		const char *body;
	} cases[] = {
		{ "GET", "/api/nope", 404, "{\"error\":\"no such path '/api/nope' (see "
		  "docs/dashboard.md)\"}\n" },
		{ "GET", "/api/runs/99", 404, "{\"error\":\"no run 99\"}\n" },
		{ "GET", "/api/runs/0", 400, "{\"error\":\"bad run id in '/api/runs/0' (expected a "
		  "positive integer)\"}\n" },
		{ "GET", "/api/runs/1x", 400, NULL },
		{ "GET", "/api/runs/1?format=xml", 400, "{\"error\":\"parameter 'format': unknown "
		  "value 'xml' (expected json|csv|kcidb|bmf)\"}\n" },
		{ "GET", "/api/runs/1?format=csv&format=json", 400, "{\"error\":\"parameter "
		  "'format' given twice\"}\n" },
		{ "GET", "/api/runs?limit=3", 400, "{\"error\":\"unknown parameter 'limit'\"}\n" },
		{ "GET", "/api/history?plan=k", 400, "{\"error\":\"parameter 'metric' is needed "
		  "(plan and metric)\"}\n" },
		{ "GET", "/api/history?plan=k&metric=m&by=host", 400, "{\"error\":\"parameter "
		  "'by': a history goes by kernel.release, kernel.build, kernel.version, "
		  "kernel.config, day or port.driver, or two or three of them joined by ',', "
		  "not 'host'\"}\n" },
		{ "GET", "/api/history?plan=k&metric=m&window=x", 400, "{\"error\":\"parameter "
		  "'window': unknown value 'x' (expected rate|cost)\"}\n" },
		{ "GET", "/api/history?plan=k&metric=m&a=1", 400, "{\"error\":\"unknown "
		  "parameter 'a'\"}\n" },
		{ "GET", "/api/history?plan=k&metric=nope", 404, "{\"error\":\"plan 'k', metric "
		  "'nope': no results for this history\"}\n" },
		{ "GET", "/api/compare?a=1", 400, "{\"error\":\"parameter 'b' is needed (two "
		  "runs: a and b)\"}\n" },
		{ "GET", "/api/compare?a=1&b=x", 400, "{\"error\":\"parameter 'b': 'x' is not a "
		  "run id (a positive integer)\"}\n" },
		{ "GET", "/api/compare?a=1&b=1", 400, "{\"error\":\"parameters 'a' and 'b' are "
		  "the same run\"}\n" },
		{ "GET", "/api/compare?a=1&b=2&by=host", 400, NULL },
		{ "GET", "/api/compare?plan=k", 400, "{\"error\":\"parameter 'by' is needed "
		  "(two runs a and b, or plan and by)\"}\n" },
		{ "GET", "/api/compare?plan=k&by=colour", 400, NULL },
		{ "GET", "/api/compare?a=3&b=99", 404, NULL },
		{ "POST", "/api/runs", 405, "{\"error\":\"method 'POST' not allowed: the dashboard "
		  "is read-only (GET, HEAD)\"}\n" },
		{ "DELETE", "/api/runs/1", 405, NULL },
	};
	struct http h;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		http_req(web_port(srv), cases[i].method, cases[i].path, NULL, &h);
		if (h.status != cases[i].status)
			fail_msg("%s %s: status %d, want %d", cases[i].method, cases[i].path,
				 h.status, cases[i].status);
		assert_contains(h.head, "Content-Type: application/json");
		if (cases[i].body)
			assert_text(h.body, cases[i].body);
		if (cases[i].status == 405)
			assert_contains(h.head, "Allow: GET, HEAD");
		http_free(&h);
	}
	/* a page path: an error page with the status */
	for (i = 0; i < 2; i++) {
		get(i ? "/runs?x=%3Cb%3E" : "/runs/99", &h);
		assert_int_equal(h.status, i ? 400 : 404);
		assert_contains(h.head, "Content-Type: text/html");
		assert_contains(h.body, i ? "<p>unknown parameter &#39;x&#39;</p>" :
				"<p>no run 99</p>");
		http_free(&h);
	}
	/* HEAD: the status and length of GET, no body */
	http_req(web_port(srv), "HEAD", "/api/runs", NULL, &h);
	assert_int_equal(h.status, 200);
	assert_text(h.body, "");
	http_free(&h);
}

/* With a token: 401 without it or with a wrong one, 200 with it. */
static void test_web_token(void **state)
{
	static const char token[] = "0123456789abcdef-token";
	struct web *w = web_test_start(db, token);
	struct http h;

	(void)state;
	http_req(web_port(w), "GET", "/api/runs", NULL, &h);
	assert_int_equal(h.status, 401);
	assert_text(h.body, "{\"error\":\"missing or wrong token (Authorization: Bearer "
		    "TOKEN)\"}\n");
	assert_contains(h.head, "WWW-Authenticate: Bearer");
	http_free(&h);
	http_req(web_port(w), "GET", "/runs", "Authorization: Bearer 0123456789abcdef-tokeN",
		 &h);
	assert_int_equal(h.status, 401);
	assert_contains(h.head, "Content-Type: text/html");
	assert_contains(h.body, "<p>missing or wrong token (Authorization: Bearer TOKEN)</p>");
	http_free(&h);
	http_req(web_port(w), "GET", "/api/runs", "Authorization: Bearer 0123456789abcdef",
		 &h);
	assert_int_equal(h.status, 401);
	http_free(&h);
	/* the token comes before the method: a stranger learns nothing */
	http_req(web_port(w), "POST", "/api/runs", NULL, &h);
	assert_int_equal(h.status, 401);
	http_free(&h);
	http_req(web_port(w), "GET", "/api/runs", "Authorization: Bearer 0123456789abcdef-token",
		 &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "\"plan\":\"b\"");
	http_free(&h);
	web_destroy(&w);
}

/* /runs with run 5 running: the polling script, allowed by its SHA-256 in the CSP (as a
 * browser computes it over the element's text), a <noscript> reload; none once done. */
static void test_web_live(void)
{
	char *start, *end, *b64[2], want[256];
	uint8_t sum[2][32];
	struct http h;
	int i;

	db_file_exec(db, "UPDATE runs SET state = 'running' WHERE id = 5");
	get("/runs", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<noscript><meta http-equiv=\"refresh\" content=\"5\">"
			"</noscript>");
	assert_contains(h.body, "<tr id=\"run-5\"><td data-v=\"5\"><a href=\"/runs/5\">5</a></td>"
			"<td>k</td><td class=\"state-running\">running</td><td>4/4</td><td>0</td>");
	/* the sorter, then the live script: each allowed by its SHA-256 as a browser
	 * computes it over the element's text */
	start = h.body;
	for (i = 0; i < 2; i++) {
		const char *script = i ? web_live_script : web_sort_script;

		start = strstr(start, "<script>");
		assert_non_null(start);
		start += strlen("<script>");
		end = strstr(start, "</script>");
		assert_non_null(end);
		assert_int_equal((size_t)(end - start), strlen(script));
		assert_true(!strncmp(start, script, (size_t)(end - start)));
		util_sha256(start, (size_t)(end - start), sum[i]);
	}
	assert_contains(web_live_script, "fetch('/api/runs'");
	b64[0] = util_base64_encode(sum[1], sizeof(sum[1]));
	b64[1] = util_base64_encode(sum[0], sizeof(sum[0]));
	snprintf(want, sizeof(want), "Content-Security-Policy: default-src 'none'; style-src "
		 "'unsafe-inline'; script-src 'sha256-%s' 'sha256-%s'; connect-src 'self'",
		 b64[0], b64[1]);
	free(b64[0]);
	free(b64[1]);
	assert_contains(h.head, want);
	http_free(&h);
	db_file_exec(db, "UPDATE runs SET state = 'done' WHERE id = 5");
	get("/runs", &h);
	assert_int_equal(web_test_count(h.body, "<script"), 1);
	assert_null(strstr(h.body, "fetch('/api/runs'"));
	assert_null(strstr(h.body, "<noscript"));
	http_free(&h);
}

/* Bisect: none yet (404 under /api/, a page that says so), then a session over plan k's
 * three kernels stepped three times by the CLI: /api/bisect and /api/bisect/log are
 * `bisect status -j` and `bisect log -j`; the page shows the result and the steps. */
static void test_web_bisect(void **state)
{
	const char *start[] = { "--db", db, "bisect", "start", "--plan", "k", "--metric",
				"prog.ns_per_run", "--good", "6.1.0", "--bad", "6.3.0",
				"--kernels", NULL, NULL };
	char file[400], *want;
	struct http h;
	int i;

	(void)state;
	get("/api/bisect", &h);
	assert_int_equal(h.status, 404);
	assert_text(h.body, "{\"error\":\"no bisect session\"}\n");
	http_free(&h);
	get("/bisect", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<p>no bisect session (bpflab bisect start)</p>");
	http_free(&h);

	snprintf(file, sizeof(file), "%s/kernels", tmpdir);
	file_put(file, "6.1.0\n6.2.0<i>\n6.3.0\n");
	start[13] = file;
	free(cli_out(start));
	for (i = 0; i < 3; i++)
		free(cli_out((const char *[]){ "--db", db, "bisect", "step", NULL }));
	want = cli_out((const char *[]){ "--db", db, "-j", "bisect", "status", NULL });
	get("/api/bisect", &h);
	assert_int_equal(h.status, 200);
	assert_contains(want, "\"engine_state\":\"confirming\"");
	assert_text(h.body, want);
	free(want);
	http_free(&h);
	want = cli_out((const char *[]){ "--db", db, "-j", "bisect", "log", NULL });
	get("/api/bisect/log", &h);
	assert_int_equal(h.status, 200);
	assert_text(h.body, want);
	free(want);
	http_free(&h);
	get("/api/bisect?x=1", &h);
	assert_int_equal(h.status, 400);
	http_free(&h);

	get("/bisect", &h);
	assert_int_equal(h.status, 200);
	assert_null(strstr(h.body, "<i>"));
	assert_contains(h.body, "<h1>bisect session 1</h1>");
	assert_contains(h.body, "<tr><th>engine</th><td>confirming</td></tr>");
	assert_contains(h.body, "<tr><th>next</th><td>6.1.0</td></tr>");
	assert_contains(h.body, "<td id=\"result\">first bad kernel <b>6.2.0&lt;i&gt;</b> (good "
			"neighbour 6.1.0): 10.15 (n 4) -&gt; 20.15 (n 4), +98.52 %, p 0.0286</td>");
	assert_contains(h.body, "<tr><td>3</td><td>6.2.0&lt;i&gt;</td><td><a href=\"/runs/4\">4"
			"</a></td><td>4</td><td>bad</td><td>0.0286</td><td>2.5 %</td>");
	http_free(&h);
}

/* The pages: every text from the database escaped, the verdict details shown. */
static void test_web_pages(void **state)
{
	struct http h;

	(void)state;
	get("/runs", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.head, "Content-Type: text/html; charset=utf-8");
	assert_contains(h.body, "<td>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</td>");
	assert_contains(h.body, "<a href=\"/runs/2\">2</a>");
	assert_contains(h.body, "<td>imported</td>");
	/* no live run: only the table sorter, no script from the database */
	assert_int_equal(web_test_count(h.body, "<script>"), 1);
	assert_contains(h.body, web_sort_script);
	assert_null(strstr(h.body, "fetch('/api/runs'"));
	http_free(&h);

	get("/runs/1", &h);
	assert_int_equal(h.status, 200);
	assert_int_equal(web_test_count(h.body, "<script>"), 1);
	assert_contains(h.body, "plan <b>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</b>");
	/* the tables of result show, the verdict with its detail, the downloads */
	assert_contains(h.body, "<tr><td>drop</td><td>xdp_drop</td>");
	assert_null(strstr(h.body, "--all-rows"));
	assert_null(strstr(h.body, "<pre id=\"tables\">"));
	assert_contains(h.body, "<td>unstable</td><td>varied 8.1 % &lt;b&gt;</td>");
	assert_contains(h.body, "<a href=\"/api/runs/1?format=csv\">CSV</a>");
	http_free(&h);

	/* history: the chart (a point per kernel with its hover title, the change point
	 * between 6.1.0 and 6.2.0<i>, halfway), the text of result history, kernels escaped */
	get("/history?plan=k&metric=prog.ns_per_run&variant=&subject=", &h);
	assert_int_equal(h.status, 200);
	assert_null(strstr(h.body, "<i>"));
	assert_contains(h.body, "<svg id=\"chart\"");
	assert_contains(h.body, "<title>6.2.0&lt;i&gt;: n 4, mean 20.15 ± 0.129, spread 0.15, "
			"delta 98.52 %</title>");
	assert_contains(h.body, "<title>change point: 6.1.0 -&gt; 6.2.0&lt;i&gt;</title>");
	/* three groups over 670 px: 6.2.0<i> at 70 + 223.3 * 1.5, the change 111.7 before */
	assert_contains(h.body, "<path class=\"change\" d=\"M293.3 20.0V250.0\"");
	assert_contains(h.body, "change point between 6.1.0 and 6.2.0&lt;i&gt;, p = 0.002");
	assert_contains(h.body, "<a href=\"/api/history?plan=k&amp;metric=prog.ns_per_run\">"
			"JSON</a>");
	assert_contains(h.body, "<option value=\"k\" selected>k</option>");
	assert_contains(h.body, "<select name=\"metric\" id=\"pick-metric\">");
	assert_contains(h.body, "<option value=\"prog.ns_per_run\" selected>");
	assert_contains(h.body, "<table class=\"sort\" id=\"history-points\">");
	http_free(&h);
	get("/history", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "pick a plan and a metric");
	assert_null(strstr(h.body, "<svg"));
	http_free(&h);
	/* a bad value: 400, the form kept with the values sent, markup escaped */
	get("/history?plan=%3Cb%3E&metric=m&by=x", &h);
	assert_int_equal(h.status, 400);
	assert_contains(h.head, "Content-Type: text/html");
	assert_contains(h.body, "<title>error 400 - bpflab</title>");
	assert_contains(h.body, "<p>parameter &#39;by&#39;: a history goes by kernel.release");
	assert_contains(h.body, "not &#39;x&#39;");
	assert_contains(h.body, "<option value=\"&lt;b&gt;\" selected>&lt;b&gt;</option>");
	assert_contains(h.body, "<option value=\"x\" selected>x</option>");
	assert_null(strstr(h.body, "<b>"));
	http_free(&h);

	/* compare: the table of result compare with its verdict */
	get("/compare?a=3&b=4", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "DIFFERENT worse");
	assert_contains(h.body, "<td>6.2.0&lt;i&gt;</td><td>imported</td>");
	assert_contains(h.body, "<a href=\"/api/compare?a=3&amp;b=4\">JSON</a>");
	assert_contains(h.body, "<svg id=\"compare-chart\"");
	/* the run pickers, a and b selected */
	assert_contains(h.body, "<select name=\"a\" id=\"pick-a\">");
	assert_contains(h.body, "<option value=\"3\" selected>3 ");
	assert_contains(h.body, "<option value=\"4\" selected>4 ");
	http_free(&h);
	get("/compare?plan=k&by=kernel.release&baseline=%3C%3E", &h);
	assert_int_equal(h.status, 404);
	assert_null(strstr(h.body, "<>"));
	http_free(&h);

	/* hosts: a port and a kernel with markup, a noise floor on run 3 (as `host list`) */
	get("/hosts", &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<tr><td>imported</td><td>gone</td><td data-v=\"");
	assert_contains(h.body, "</td><td></td><td></td><td></td><td></td></tr>");
	assert_contains(h.body, "<p>no noise floor measured</p>");
	http_free(&h);
	db_file_exec(db, "UPDATE hosts SET kernel_release = '6.1<x>', inventory = '{\"ports\": "
		"[{\"role\": \"a\", \"name\": \"veth<a>\", \"driver\": \"veth\"}]}'");
	db_file_exec(db, "INSERT INTO host_noise (run_id, host_id, env_id, metric, subject, window, n, "
		"mean, cv, measured_ms) SELECT 3, 1, MIN(id), 'prog.ns_per_run', 'xdp_drop', "
		"'cost', 4, 10.15, 0.0127, 1 FROM host_envs");
	get("/hosts", &h);
	assert_int_equal(h.status, 200);
	assert_null(strstr(h.body, "<x>"));
	assert_null(strstr(h.body, "<a>"));
	assert_contains(h.body, "<td>6.1&lt;x&gt;</td><td>a=veth&lt;a&gt; veth</td>");
	assert_contains(h.body, "<td><a href=\"/runs/3\">3</a></td><td>prog.ns_per_run</td>"
			"<td>xdp_drop</td><td>cost</td><td>4</td><td>10.15</td><td>1.3 %</td>");
	http_free(&h);
	{
		char *want = cli_out((const char *[]){ "--db", db, "-j", "host", "list", NULL });

		get("/api/hosts", &h);
		assert_contains(want, "\"cv\":0.0127");
		assert_text(h.body, want);
		free(want);
		http_free(&h);
	}
	test_web_live();
}

/* A database migrated by a newer bpflab: refused at start, 500 on a request. */
static void test_web_newer_database(void **state)
{
	struct err err;
	char copy[400], cmd[900];
	struct web_opts o = { .http = "127.0.0.1:0" };
	struct web *w;
	struct http h;
	bool usage;

	(void)state;
	snprintf(copy, sizeof(copy), "%s/copy.db", tmpdir);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \".backup '%s'\"", db, copy);
	assert_int_equal(system(cmd), 0);
	w = web_test_start(copy, NULL);
	db_file_exec(copy, "PRAGMA user_version = 999");
	http_req(web_port(w), "GET", "/api/runs", NULL, &h);
	assert_int_equal(h.status, 500);
	assert_contains(h.body, "schema version 999 is newer than this bpflab");
	http_free(&h);
	web_destroy(&w);
	o.db = copy;
	assert_null(web_new(&o, &usage, &err));
	assert_false(usage);
	assert_contains(err.msg, "schema version 999 is newer");
	/* nothing written: the version is still the one set */
	snprintf(cmd, sizeof(cmd), "test \"$(sqlite3 '%s' 'PRAGMA user_version')\" = 999", copy);
	assert_int_equal(system(cmd), 0);
}

/* bpflabd --http 127.0.0.1:0 over a copy of the test's database: the address it logs
 * serves the same JSON as `bpflab --db` on that file while the coordinator runs; SIGTERM
 * stops both, exit 0. */
static void test_web_bpflabd(void **state)
{
	char cl[450], copy[400], *want;
	unsigned port;
	struct http h;
	pid_t pid;

	(void)state;
	pid = web_test_bpflabd(tmpdir, db, &port, cl, sizeof(cl));
	snprintf(copy, sizeof(copy), "%s/coord.db", tmpdir);
	want = cli_out((const char *[]){ "--db", copy, "-j", "result", "show", "1", NULL });
	web_test_same(port, "/api/runs/1", want, &h);
	http_free(&h);
	http_req(port, "GET", "/runs", NULL, &h);
	assert_int_equal(h.status, 200);
	assert_contains(h.body, "<a href=\"/runs/2\">2</a>");
	http_free(&h);
	web_test_bpflabd_stop(pid);
}

/* Another address without a token or --http-public: refused before binding, exit 2. */
static void test_web_bind_rule(void **state)
{
	struct web_opts o = { .db = db, .http = "192.0.2.1:0" };
	const char *argv[] = { BPFLAB, "--db", db, "serve", "--http", "0.0.0.0:0", NULL };
	struct prog_out p;
	struct err err;
	bool usage = false;

	(void)state;
	assert_null(web_new(&o, &usage, &err));
	assert_true(usage);
	assert_text(err.msg, "--http '192.0.2.1:0' is not a loopback address: give --http-token "
		    "FILE (every request must carry the token) or --http-public (anyone who "
		    "reaches it can read the results)");
	prog_run(&p, argv, tmpdir);
	assert_int_equal(p.status, 2);
	assert_contains(p.err, "is not a loopback address");
	prog_out_free(&p);
	prog_run(&p, (const char *[]){ BPFLABD, "--agents", "ipc:///nonexistent/a", "--clients",
				       "ipc:///nonexistent/c", "--db", db, "--plaintext", "--http",
				       "10.0.0.1:8080", NULL }, tmpdir);
	assert_int_equal(p.status, 2);
	assert_contains(p.err, "bpflabd: --http '10.0.0.1:8080' is not a loopback address");
	prog_out_free(&p);
	o.http = "127.0.0.1:http";
	assert_null(web_new(&o, &usage, &err));
	assert_true(usage);
	assert_contains(err.msg, "bad --http address '127.0.0.1:http'");
}

static void test_web_route(void **state)
{
	static const struct {
		const char *path;
		enum web_route route;
		int64_t id;
	} cases[] = {
		{ "/", WEB_PAGE_RUNS, 0 }, { "/runs", WEB_PAGE_RUNS, 0 },
		{ "/runs/7", WEB_PAGE_RUN, 7 }, { "/api/runs", WEB_API_RUNS, 0 },
		{ "/api/runs/9223372036854775807", WEB_API_RUN, INT64_MAX },
		{ "/api/runs/9223372036854775808", WEB_BAD_ID, 0 },
		{ "/api/runs/-1", WEB_BAD_ID, 0 }, { "/api/runs/+1", WEB_BAD_ID, 0 },
		{ "/api/runs/0", WEB_BAD_ID, 0 }, { "/api/runs/1/x", WEB_NOT_FOUND, 0 },
		{ "/api/runs/", WEB_NOT_FOUND, 0 }, { "/api/hosts", WEB_API_HOSTS, 0 },
		{ "/runs/", WEB_NOT_FOUND, 0 }, { "/api", WEB_NOT_FOUND, 0 },
		{ "/runsx", WEB_NOT_FOUND, 0 },
		{ "/bisect/3", WEB_PAGE_BISECT_ID, 3 }, { "/api/bisect/4", WEB_API_BISECT_ID, 4 },
		{ "/api/bisect/5/log", WEB_API_BISECT_ID_LOG, 5 },
		{ "/api/bisect/log", WEB_API_BISECT_LOG, 0 },
		{ "/api/bisect/sessions", WEB_API_BISECTS, 0 },
		{ "/api/bisect/5/log/", WEB_NOT_FOUND, 0 }, { "/bisect/5/log", WEB_NOT_FOUND, 0 },
		{ "/api/bisect/0/log", WEB_BAD_ID, 0 },
		{ "/api/bisect/123456789012345678901234567890123/log", WEB_BAD_ID, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		int64_t id = 0;

		if (web_route(cases[i].path, &id) != cases[i].route)
			fail_msg("'%s': route %d, want %d", cases[i].path,
				 web_route(cases[i].path, &id), cases[i].route);
		if (cases[i].id)
			assert_true(id == cases[i].id);
	}
}

static void test_web_params(void **state)
{
	static const char *const allowed[] = { "format=json|csv", "plan=", NULL };
	const char *values[2];
	struct err err;

	(void)state;
	assert_int_equal(web_params_check(NULL, 0, allowed, values, &err), 0);
	assert_null(values[0]);
	assert_int_equal(web_params_check((struct web_param[]){ { "format", "csv" } }, 1,
					  allowed, values, &err), 0);
	assert_text(values[0], "csv");
	assert_null(values[1]);
	/* "plan=": any value but an empty one */
	assert_int_equal(web_params_check((struct web_param[]){ { "plan", "a|b" } }, 1,
					  allowed, values, &err), -EINVAL);
	assert_text(err.msg, "parameter 'plan': unknown value 'a|b' (expected )");
	assert_int_equal(web_params_check((struct web_param[]){ { "format", NULL } }, 1,
					  allowed, values, &err), -EINVAL);
	assert_text(err.msg, "parameter 'format' needs a value");
	assert_int_equal(web_params_check((struct web_param[]){ { "format", "" } }, 1,
					  allowed, values, &err), -EINVAL);
	assert_text(err.msg, "parameter 'format' needs a value");
	assert_int_equal(web_params_check((struct web_param[]){ { "form", "csv" } }, 1,
					  allowed, values, &err), -EINVAL);
	assert_text(err.msg, "unknown parameter 'form'");
	assert_int_equal(web_params_check((struct web_param[]){ { "format", "cs" } }, 1,
					  allowed, values, &err), -EINVAL);
	assert_text(err.msg, "parameter 'format': unknown value 'cs' (expected json|csv)");
	assert_int_equal(web_params_check((struct web_param[]){ { "format", "json" },
								{ "format", "json" } }, 2,
					  allowed, values, &err), -EINVAL);
	assert_text(err.msg, "parameter 'format' given twice");
	/* "metric" alone: any value but an empty one */
	{
		static const char *const any[] = { "metric", NULL };

		assert_int_equal(web_params_check((struct web_param[]){ { "metric", "a|<b>" } },
						  1, any, values, &err), 0);
		assert_text(values[0], "a|<b>");
		assert_int_equal(web_params_check((struct web_param[]){ { "metric", "" } }, 1, any,
						  values, &err), -EINVAL);
		assert_text(err.msg, "parameter 'metric' needs a value");
	}
}

static void test_web_addr(void **state)
{
	static const struct {
		const char *text;
		int ok;
		bool loopback;
		unsigned port;
	} cases[] = {
		{ "127.0.0.1:8080", 1, true, 8080 }, { "127.9.9.9:1", 1, true, 1 },
		{ ":80", 1, true, 80 }, { "8081", 1, true, 8081 },
		{ "0.0.0.0:80", 1, false, 80 }, { "10.1.2.3:65535", 1, false, 65535 },
		{ "[::1]:8080", 1, true, 8080 }, { "[::]:8080", 1, false, 8080 },
		{ "128.0.0.1:80", 1, false, 80 },
		{ "127.0.0.1:65536", 0, false, 0 }, { "127.0.0.1:", 0, false, 0 },
		{ "127.0.0.1:-1", 0, false, 0 }, { "localhost:80", 0, false, 0 },
		{ "[::1]8080", 0, false, 0 }, { "1.2.3:80", 0, false, 0 }, { "", 0, false, 0 },
	};
	struct sockaddr_storage sa;
	socklen_t len;
	bool lo;
	struct err err;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		int rc = web_parse_addr(cases[i].text, &sa, &len, &lo, &err);

		if ((rc == 0) != cases[i].ok)
			fail_msg("'%s': rc %d", cases[i].text, rc);
		if (!cases[i].ok)
			continue;
		assert_int_equal(lo, cases[i].loopback);
		assert_int_equal(ntohs(sa.ss_family == AF_INET ?
				       ((struct sockaddr_in *)&sa)->sin_port :
				       ((struct sockaddr_in6 *)&sa)->sin6_port), cases[i].port);
	}
	assert_int_equal(web_parse_addr("host:1", &sa, &len, &lo, &err), -EINVAL);
	assert_text(err.msg, "bad --http address 'host:1' (expected ADDR:PORT, [ADDR6]:PORT or "
		    "PORT: an IP address and a port 0-65535)");
}

static void test_web_token_file(void **state)
{
	struct err err;
	char file[400], tok[WEB_TOKEN_MAX];

	(void)state;
	snprintf(file, sizeof(file), "%s/token", tmpdir);
	file_put(file, "  0123456789abcdef \nsecond line\n");
	assert_int_equal(web_read_token(file, tok, &err), 0);
	assert_text(tok, "0123456789abcdef");
	file_put(file, "short\n");
	assert_int_equal(web_read_token(file, tok, &err), -EINVAL);
	assert_contains(err.msg, "the token (first line) has 5 bytes; give at least 16");
	file_put(file, "0123456789 abcdef\n");
	assert_int_equal(web_read_token(file, tok, &err), -EINVAL);
	assert_contains(err.msg, "at column 11");
	snprintf(file, sizeof(file), "%s/none", tmpdir);
	assert_int_equal(web_read_token(file, tok, &err), -ENOENT);
	assert_contains(err.msg, "cannot read token file");

	assert_true(web_auth_ok("Bearer 0123456789abcdef", "0123456789abcdef"));
	assert_false(web_auth_ok("Bearer 0123456789abcdeF", "0123456789abcdef"));
	assert_false(web_auth_ok("Bearer 0123456789abcdef0", "0123456789abcdef"));
	assert_false(web_auth_ok("Bearer 0123456789abcde", "0123456789abcdef"));
	assert_false(web_auth_ok("bearer 0123456789abcdef", "0123456789abcdef"));
	assert_false(web_auth_ok(NULL, "0123456789abcdef"));
}

static void test_web_html_escape(void **state)
{
	struct web_buf b = { 0 };

	(void)state;
	web_buf_html(&b, "a<b>&\"c'd\"");
	web_buf_html(&b, NULL);
	web_buf_printf(&b, "|%0600d|", 7);
	assert_false(b.failed);
	assert_int_equal(b.len, strlen(b.data));
	assert_true(!strncmp(b.data, "a&lt;b&gt;&amp;&quot;c&#39;d&quot;|000", 38));
	assert_int_equal(b.len, 34 + 602);
	web_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_web_api_equals_cli),
		cmocka_unit_test(test_web_errors),
		cmocka_unit_test(test_web_token),
		cmocka_unit_test(test_web_pages),
		cmocka_unit_test(test_web_newer_database),
		cmocka_unit_test(test_web_bpflabd),
		cmocka_unit_test(test_web_bind_rule),
		cmocka_unit_test(test_web_bisect),
		cmocka_unit_test(test_web_route),
		cmocka_unit_test(test_web_params),
		cmocka_unit_test(test_web_addr),
		cmocka_unit_test(test_web_token_file),
		cmocka_unit_test(test_web_html_escape),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
