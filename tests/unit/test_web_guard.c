// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_web_guard.c - the dashboard under hostile requests (issue 23; web/web_guard.c,
 * web/web.c, docs/security.md "Dashboard"):
 *
 * - pure checks: strict UTF-8 and its repair, Host against the bound address,
 *   localhost, a wildcard's IP addresses and --http-host names, Origin, the sign-in
 *   redirect's target, --http-host names themselves;
 * - served for real (web_new on 127.0.0.1, port 0): a rebound Host 421 and an Origin
 *   of another site 403 before anything else (no data, token or not); /%ff and a
 *   parameter with invalid UTF-8 400 naming it; a 404 path cut mid-character by the
 *   message buffer still a 404; ?token= with "//evil.example/" refused, with "/runs"
 *   303 to /runs; Referrer-Policy and frame-ancestors on every answer;
 * - a page waiting 5 s for a locked database does not hold another request (answered
 *   within 1 s), and the CSV download of a variant named like a formula is
 *   neutralised the same as `result show --csv`.
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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "web.h"
#include "helpers.h"
#include "web_test.h"

static char tmpdir[] = "/tmp/bpflab-test-web-guard-XXXXXX";
static char db[300];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs 1 to 3 of plan k (web_test_kernel_csv); run 1's variant renamed to a formula. */
static int setup(void **state)
{
	(void)state;
	if (web_test_setup_k(tmpdir, db, sizeof(db)))
		return -1;
	db_file_exec(db, "UPDATE jobs SET variant = '=HYPERLINK(\"http://x/\",\"y\")' "
		     "WHERE run_id = 1");
	db_file_exec(db, "UPDATE runs SET variants = json_array('=HYPERLINK(\"http://x/\","
		     "\"y\")') WHERE id = 1");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(tmpdir);
}

static void test_web_guard_utf8(void **state)
{
	static const char *const good[] = {
		"", "/runs", "µs ± 1", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xbf\xbf",
		"\xf4\x8f\xbf\xbf",
	};
	static const char *const bad[] = {
		"\xff", "/\xff", "\x80", "\xc3", "a\xe2\x82", "\xc0\xaf", "\xe0\x80\xaf",
		"\xf0\x80\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80",
		"\xc3\x28",
	};
	char fix[] = "ab\xff\xc3\xa9\xe2\x82";
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(good); i++)
		if (!web_utf8_valid(good[i]))
			fail_msg("'%s' refused", good[i]);
	for (i = 0; i < ARRAY_LEN(bad); i++)
		if (web_utf8_valid(bad[i]))
			fail_msg("bad case %zu accepted", i);
	/* a stray byte and a character cut at the end become '?'; é stays */
	web_utf8_repair(fix);
	assert_string_equal(fix, "ab?\xc3\xa9??");
}

static void test_web_guard_host(void **state)
{
	const char *names[] = { "dash.example", "10.0.0.9" };
	struct web_site lo = { .addr = "127.0.0.1", .port = 8080, .loopback = true,
			       .names = names, .n_names = 2 };
	struct web_site any = { .addr = "0.0.0.0", .port = 80, .wildcard = true };
	struct web_site v6 = { .addr = "::1", .port = 8080, .loopback = true };
	static const char *const lo_ok[] = {
		"127.0.0.1:8080", "localhost:8080", "LocalHost:8080", "dash.example",
		"DASH.example:443", "10.0.0.9:1",
	};
	static const char *const lo_bad[] = {
		"attacker.example:8080", "attacker.example", "127.0.0.1:8081", "127.0.0.1",
		"localhost", "localhost.:8080", "127.0.0.1:8080x", "127.0.0.1:", "", ":8080",
		"[::1]:8080", "127.0.0.2:8080", "127.0.0.1:99999", "dash.example.evil",
		"127.0.0.1:8080/x",
	};
	size_t i;

	(void)state;
	assert_true(web_host_ok(&lo, NULL));	/* HTTP/1.0: no Host */
	for (i = 0; i < ARRAY_LEN(lo_ok); i++)
		if (!web_host_ok(&lo, lo_ok[i]))
			fail_msg("Host '%s' refused", lo_ok[i]);
	for (i = 0; i < ARRAY_LEN(lo_bad); i++)
		if (web_host_ok(&lo, lo_bad[i]))
			fail_msg("Host '%s' accepted", lo_bad[i]);
	/* bound to 0.0.0.0: any address typed in, no name */
	assert_true(web_host_ok(&any, "192.0.2.7"));
	assert_true(web_host_ok(&any, "[2001:db8::1]:80"));
	assert_false(web_host_ok(&any, "192.0.2.7:8080"));
	assert_false(web_host_ok(&any, "evil.example"));
	assert_false(web_host_ok(&any, "localhost"));
	/* IPv6: in brackets */
	assert_true(web_host_ok(&v6, "[::1]:8080"));
	assert_true(web_host_ok(&v6, "localhost:8080"));
	assert_false(web_host_ok(&v6, "::1:8080"));
	assert_false(web_host_ok(&v6, "[::1]8080"));
	assert_false(web_host_ok(&v6, "[::1"));
	/* Origin */
	assert_true(web_origin_ok(&lo, NULL));
	assert_true(web_origin_ok(&lo, "http://127.0.0.1:8080"));
	assert_true(web_origin_ok(&lo, "http://localhost:8080"));
	assert_true(web_origin_ok(&lo, "https://dash.example"));
	assert_false(web_origin_ok(&lo, "null"));
	assert_false(web_origin_ok(&lo, "http://evil.example:8080"));
	assert_false(web_origin_ok(&lo, "http://127.0.0.1:8080/"));
	assert_false(web_origin_ok(&lo, "ftp://127.0.0.1:8080"));
	assert_false(web_origin_ok(&lo, "http://127.0.0.1"));
	assert_false(web_origin_ok(&lo, ""));
}

static void test_web_guard_redirect_and_names(void **state)
{
	struct err err;

	(void)state;
	assert_true(web_local_path("/"));
	assert_true(web_local_path("/runs"));
	assert_true(web_local_path("/history/x//y"));
	assert_false(web_local_path("//evil.example/"));
	assert_false(web_local_path("/\\evil.example/"));
	assert_false(web_local_path("http://evil.example/"));
	assert_false(web_local_path(""));
	assert_int_equal(web_check_name("dash.example", &err), 0);
	assert_int_equal(web_check_name("10.1.2.3", &err), 0);
	assert_int_equal(web_check_name("", &err), -EINVAL);
	assert_int_equal(web_check_name("dash.example:8080", &err), -EINVAL);
	assert_contains(err.msg, "byte 13 is not a letter");
	assert_int_equal(web_check_name("http://x", &err), -EINVAL);
}

/* A connected socket to PORT that sent "GET PATH". */
static int send_get(unsigned port, const char *path)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	char req[8192];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
		 "Connection: close\r\n\r\n", path, port);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	return fd;
}

/* The whole answer on FD (heap), which is closed. */
static char *read_all(int fd)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	ssize_t n;

	assert_non_null(buf);
	while (len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fd);
	return buf;
}

/* A request to a server and what its answer must be. */
struct guard_case {
	const char *path, *extra;	/* extra: header lines; "%u" the port */
	int status;
	const char *head, *body;	/* in the answer's head, body (NULL: no check) */
	const char *not_head, *not_body;	/* not in them */
};

/* Ask W each of the N CASES. */
static void guard_cases(struct web *w, const struct guard_case *cases, size_t n)
{
	char extra[256];
	struct http h;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct guard_case *c = &cases[i];

		if (c->extra)
			snprintf(extra, sizeof(extra), c->extra, web_port(w));
		http_req(web_port(w), "GET", c->path, c->extra ? extra : NULL, &h);
		if (h.status != c->status)
			fail_msg("%s (%s): status %d, want %d: %s", c->path,
				 c->extra ? extra : "", h.status, c->status, h.body);
		if (c->head)
			assert_contains(h.head, c->head);
		if (c->body)
			assert_contains(h.body, c->body);
		if (c->not_head)
			assert_null(strstr(h.head, c->not_head));
		if (c->not_body)
			assert_null(strstr(h.body, c->not_body));
		http_free(&h);
	}
}

static void test_web_guard_served(void **state)
{
	static const struct guard_case open[] = {
		/* DNS rebinding: another name for 127.0.0.1 gets nothing */
		{ "/api/runs", "Host: attacker.example:8080", 421, NULL, "--http-host", NULL,
		  "\"plan\"" },
		{ "/runs", "Host: attacker.example:%u", 421, "Content-Type: text/html",
		  "--http-host", NULL, "\"plan\"" },
		{ "/api/runs", "Host: localhost:%u", 200, NULL, "\"plan\"", NULL, NULL },
		{ "/api/runs", "Origin: http://attacker.example", 403, NULL, "Origin", NULL,
		  "\"plan\"" },
		{ "/api/runs", "Origin: http://127.0.0.1:%u", 200, NULL, NULL, NULL, NULL },
		/* the headers of every answer */
		{ "/api/runs", NULL, 200, "Referrer-Policy: no-referrer", NULL, NULL, NULL },
		{ "/nope", NULL, 404, "frame-ancestors 'none'", NULL, NULL, NULL },
		/* invalid UTF-8: 400 naming what, not 500 "out of memory" */
		{ "/%ff", NULL, 400, NULL, "the path is not valid UTF-8", NULL, NULL },
		{ "/api/history?metric=x&plan=%ff", NULL, 400, NULL, "{\"error\":\"parameter "
		  "'plan': the value is not valid UTF-8\"}\n", NULL, NULL },
		{ "/api/history?metric=x&%c3=1", NULL, 400, NULL, "parameter 2: the name is "
		  "not valid UTF-8", NULL, NULL },
	};
	static const struct guard_case token[] = {
		/* the redirect after signing in stays on the site */
		{ "//evil.example/?token=0123456789abcdef-token", NULL, 400, NULL,
		  "not a path on this site", "Location:", NULL },
		{ "/runs?token=0123456789abcdef-token", NULL, 303, "Location: /runs\r\n", NULL,
		  NULL, NULL },
		/* Host before the token: a rebound name learns not even that one is needed */
		{ "/api/runs", "Host: attacker.example", 421, NULL, NULL, "WWW-Authenticate",
		  NULL },
	};
	struct web *w = web_test_start(db, NULL);
	char path[4000], *text;
	size_t i;

	(void)state;
	guard_cases(w, open, ARRAY_LEN(open));
	/* a long path: the message is cut mid-character, still a 404 */
	strcpy(path, "/api/x");
	for (i = 0; i < 600; i++)
		strcat(path, "%C3%A9");
	text = read_all(send_get(web_port(w), path));
	assert_contains(text, "HTTP/1.1 404");
	assert_contains(text, "no such path");
	free(text);
	web_destroy(&w);
	w = web_test_start(db, "0123456789abcdef-token");
	guard_cases(w, token, ARRAY_LEN(token));
	web_destroy(&w);
}

static void test_web_guard_slow_page(void **state)
{
	sqlite3 *writer = NULL;
	struct web *w;
	struct http h;
	char *text;
	double t0;
	int fd;

	(void)state;
	w = web_test_locked(tmpdir, db, &writer);
	/* a page that waits 5 s for the lock... */
	fd = send_get(web_port(w), "/runs/1");
	usleep(200 * 1000);
	/* ...does not hold this one */
	t0 = now_s();
	http_req(web_port(w), "GET", "/nope", NULL, &h);
	assert_int_equal(h.status, 404);
	if (now_s() - t0 > 1.0)
		fail_msg("a 404 took %.1f s behind a slow page", now_s() - t0);
	http_free(&h);
	text = read_all(fd);
	assert_contains(text, "HTTP/1.1 503");
	free(text);
	assert_int_equal(sqlite3_exec(writer, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(writer);
	web_destroy(&w);
}

/* The download of run 1 (its variant a formula) is `result show 1 --csv`, with the
 * variant neutralised. */
static void test_web_guard_csv(void **state)
{
	struct web *w = web_test_start(db, NULL);
	char *want = web_test_cli(tmpdir, (const char *[]){ "--db", db, NULL },
				  (const char *[]){ "result", "show", "1", "--csv", NULL });
	struct http h;

	(void)state;
	assert_contains(want, ",\"'=HYPERLINK(\"\"http://x/\"\",\"\"y\"\")\",");
	web_test_same(web_port(w), "/api/runs/1?format=csv", want, &h);
	http_free(&h);
	web_destroy(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_web_guard_utf8),
		cmocka_unit_test(test_web_guard_host),
		cmocka_unit_test(test_web_guard_redirect_and_names),
		cmocka_unit_test(test_web_guard_served),
		cmocka_unit_test(test_web_guard_slow_page),
		cmocka_unit_test(test_web_guard_csv),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
