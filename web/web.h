/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* web.h - the dashboard (docs/dashboard.md): an HTTP server on libmicrohttpd that answers
 * GET and HEAD from a bpflab database opened read-only for each request, with the JSON
 * the CLI prints with -j (/api/...) and server-rendered pages (/runs, /runs/ID,
 * /history, /compare, /hosts, /bisect).
 *
 * Parts: web.c (the server: bind, Host and Origin, token, methods, dispatch; a thread per
 * connection), web_conn.c (the connections' deadlines), web_guard.c (pure checks: Host,
 * Origin, redirect target, UTF-8, --http-host names), web_api.c
 * (the JSON answers, from the store's query functions that `bpflab --db` uses),
 * web_page.c (the HTML pages from the same objects), web_bisect.c (the bisect pages),
 * web_html.c (every page's frame: head, style, error page), web_stream.c (the run page
 * streamed: its head before the report is built),
 * web_chart.c (the history's SVG), web_chart_cmp.c (the compare's), web_table.c (HTML
 * tables from the JSON, sortable), web_runs.c (/runs, the forms' pick lists), web_util.c (pure helpers: address, token, route and
 * parameter parsing, HTML escaping; unit-tested). Calls go one way: web -> web_bisect,
 * web_stream -> web_page -> web_runs -> web_table -> web_html -> web_api -> web_util (and the
 * charts).
 */
#ifndef BPFLAB_WEB_H
#define BPFLAB_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <jansson.h>

#include "base/err.h"

#define WEB_DEFAULT_ADDR "127.0.0.1:8080"
#define WEB_TOKEN_MAX 512
/* --http-host NAMEs at most */
#define WEB_NAMES_MAX 8
/* Connections served at once, and from one address (docs/dashboard.md, "Limits"). */
#define WEB_CONN_MAX 256
#define WEB_CONN_PER_ADDR 32
/* Seconds a connection has to send a whole request (request line, headers; the
 * dashboard reads no body), and to take a whole answer. */
#define WEB_REQUEST_DEADLINE_S 10
#define WEB_SEND_DEADLINE_S 60
/* Milliseconds web_destroy waits for answers being built before it leaves them. */
#define WEB_STOP_GRACE_MS 300

/* How web_new serves. */
struct web_opts {
	const char *db;			/* the database file (opened read-only per request) */
	const char *http;		/* ADDR:PORT, [ADDR6]:PORT, :PORT or PORT; NULL: default */
	const char *token;		/* the bearer token every request must carry, or NULL */
	bool public_ok;			/* --http-public: another address without a token */
	const char *const *names;	/* --http-host: more names of this site (N_NAMES) */
	size_t n_names;
};

struct web;

/* Check OPTS (address, bind rule, --http-host names, database) and start serving on
 * MHD's threads (one per connection, web.c).
 * Returns the server, or NULL with a message in ERR and *USAGE true when the mistake is
 * the caller's (a bad address or --http-host name, a non-loopback address without
 * --http-token or --http-public: exit 2), false otherwise (cannot bind, cannot open the database). */
struct web *web_new(const struct web_opts *opts, bool *usage, struct err *err);
/* The port bound (useful with port 0). */
unsigned web_port(const struct web *w);
/* "http://ADDR:PORT/" as bound. */
const char *web_url(const struct web *w);
/* Stop serving and free; *W becomes NULL. Takes NULL. Answers still being built after
 * WEB_STOP_GRACE_MS are left to finish on their threads (the server is then not freed:
 * the caller is about to exit), so that it returns within a second whatever runs. */
void web_destroy(struct web **w);

/* --- web_util.c: pure helpers --- */

/* Parse TEXT (ADDR:PORT, [ADDR6]:PORT, :PORT or PORT; an empty ADDR is 127.0.0.1) into
 * SA (*LEN its length) and *LOOPBACK (127.0.0.0/8 or ::1). Returns 0, or -EINVAL with
 * the reason in ERR. */
int web_parse_addr(const char *text, struct sockaddr_storage *sa, socklen_t *len,
		   bool *loopback, struct err *err);
/* The rule about where to listen: HTTP (as web_parse_addr takes it; NULL: the default)
 * must parse, and an address outside loopback needs a token (HAVE_TOKEN) or PUBLIC_OK.
 * Returns 0, or -EINVAL with the reason in ERR (the caller's mistake: exit 2). */
int web_check_bind(const char *http, bool have_token, bool public_ok, struct err *err);
/* Read the token from FILE into OUT (WEB_TOKEN_MAX bytes): the first line, without
 * surrounding white space, printable ASCII, 16 to WEB_TOKEN_MAX - 1 bytes. Returns 0 or
 * -errno with the reason in ERR. */
int web_read_token(const char *file, char *out, struct err *err);
/* True when the Authorization header value HEADER (may be NULL) is "Bearer TOKEN"; the
 * time taken does not depend on where they differ. */
bool web_auth_ok(const char *header, const char *token);
/* True when GIVEN (may be NULL) equals SECRET, in a time that does not depend on where
 * they differ. */
bool web_secret_equal(const char *given, const char *secret);

/* --- web_guard.c: what a request claims --- */

/* The site the dashboard is: what Host and Origin may name. */
struct web_site {
	char addr[64];			/* the bound address (IPv6 without brackets) */
	unsigned port;			/* the bound port */
	bool loopback, wildcard;	/* 127.0.0.0/8 or ::1; 0.0.0.0 or :: */
	const char *const *names;	/* --http-host names (any port) */
	size_t n_names;
};
/* True when the Host header HOST (NULL: none, HTTP/1.0) names SITE: a configured name
 * (any port); or with the bound port (80 when HOST has none) the bound address,
 * "localhost" when bound to loopback, any IP address when bound to a wildcard. A name
 * rebound to 127.0.0.1 by its DNS is none of them (DNS rebinding). */
bool web_host_ok(const struct web_site *site, const char *host);
/* True when the Origin header ORIGIN (NULL: none) is http://HOST or https://HOST (ports
 * 80 and 443 by default) with HOST as web_host_ok takes it; "null" is refused. */
bool web_origin_ok(const struct web_site *site, const char *origin);
/* True when PATH may be the Location after signing in: it starts with one '/' (not
 * "//" nor "/\\", which a browser takes for another site). */
bool web_local_path(const char *path);
/* True when S is UTF-8 without overlong forms, surrogates or code points past
 * U+10FFFF, and not cut mid-character. */
bool web_utf8_valid(const char *s);
/* Replace in S every byte that does not start a valid UTF-8 character with '?' (a
 * message cut mid-character by its buffer). */
void web_utf8_repair(char *s);
/* Check an --http-host NAME: 1 to 253 letters, digits, '-' and '.'. Returns 0, or
 * -EINVAL with the reason in ERR. */
int web_check_name(const char *name, struct err *err);

/* What a path names. */
enum web_route {
	WEB_NOT_FOUND,
	WEB_BAD_ID,		/* /api/runs/X, /runs/X, /bisect/X...: X not an id */
	WEB_API_RUNS,
	WEB_API_RUN,
	WEB_API_HOSTS,
	WEB_API_HISTORY,
	WEB_API_COMPARE,
	WEB_API_BISECT,
	WEB_API_BISECT_LOG,
	WEB_API_BISECTS,	/* /api/bisect/sessions */
	WEB_API_BISECT_ID,	/* /api/bisect/ID */
	WEB_API_BISECT_ID_LOG,	/* /api/bisect/ID/log */
	WEB_PAGE_RUNS,		/* also "/"; the pages from here on */
	WEB_PAGE_RUN,
	WEB_PAGE_HISTORY,
	WEB_PAGE_COMPARE,
	WEB_PAGE_HOSTS,
	WEB_PAGE_BISECT,
	WEB_PAGE_BISECT_ID,	/* /bisect/ID */
};
/* The route of PATH (no query string); *ID gets the run id of WEB_API_RUN and
 * WEB_PAGE_RUN, the session id of WEB_*_BISECT_ID*. */
enum web_route web_route(const char *path, int64_t *id);

/* A query parameter as the request carried it. */
struct web_param {
	const char *key, *value;	/* value NULL: "?key" without "=" */
};
/* Check the N parameters PARAMS against ALLOWED (NULL-terminated "key=v1|v2|..." specs:
 * the key and its values; "key" alone: any non-empty value) and put each given value into VALUES[i] for ALLOWED[i] (NULL
 * when absent). Returns 0, or -EINVAL with a message naming the parameter in ERR
 * (unknown, given twice, without a value or with a value not listed). */
int web_params_check(const struct web_param *params, size_t n, const char *const *allowed,
		     const char **values, struct err *err);

/* A growing text (heap); the web_buf_* functions do nothing more once one failed. */
struct web_buf {
	char *data;
	size_t len, cap;
	bool failed;		/* out of memory */
};
void web_buf_add(struct web_buf *b, const char *s, size_t n);
void web_buf_str(struct web_buf *b, const char *s);
void web_buf_printf(struct web_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* S percent-encoded for a URL: all but unreserved bytes and those in KEEP. */
void web_buf_url(struct web_buf *b, const char *s, const char *keep);
/* S (may be NULL: nothing) with & < > " ' as entities. */
void web_buf_html(struct web_buf *b, const char *s);
void web_buf_release(struct web_buf *b);

/* --- web_api.c: answers --- */

/* An answer: status, content type and body (heap, owned). */
struct web_reply {
	unsigned status;
	const char *type;
	char *body;
	size_t len;
	char filename[64];		/* not "": a download (Content-Disposition) */
	unsigned retry_after;		/* not 0: Retry-After in seconds (503 busy) */
};
/* How long a busy answer tells the client to wait: the store's busy timeout. */
#define WEB_RETRY_AFTER_S 5
/* REPLY becomes {"error": MESSAGE} with STATUS. */
void web_reply_error(struct web_reply *reply, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void web_reply_release(struct web_reply *reply);
/* REPLY becomes 503 "the database is busy..." with Retry-After WEB_RETRY_AFTER_S. */
void web_reply_busy(struct web_reply *reply);

struct store;
/* Open DB read-only for one request; on failure NULL with REPLY the error (503 when the
 * database is busy, else 500 with the store's message: newer schema, not a database). */
struct store *web_store_open(const char *db, struct web_reply *reply);
/* The objects of the CLI's -j output, from the functions `bpflab --db` uses; NULL with
 * REPLY the error (404 "no run ID", 503 busy, 500). */
json_t *web_runs(struct store *store, struct web_reply *reply);
json_t *web_hosts(struct store *store, struct web_reply *reply);
/* The result of run ID (store_query_result): RESULT, and the report of `result show -j`
 * (the result with the hosts' noise floors, report_build) in *REPORT if not NULL. */
json_t *web_result(struct store *store, int64_t id, json_t **report,
			  struct web_reply *reply);
/* The export of run ID in FORMAT ("kcidb" or "bmf") as `result export ID --format F`
 * prints it (export_run; flagged results left out); NULL with REPLY the error (404 no
 * results, 503, 500). */
json_t *web_export(struct store *store, int64_t id, const char *format,
		   struct web_reply *reply);
/* The report of `result history -j` (`result compare -j`) for the query parameters
 * PARAMS, named as the command's options (plan, metric, variant, subject, window, host,
 * by; compare also a, b, baseline, candidate, run_spread); NULL with REPLY the error (400
 * naming the parameter, 404 no values, 503, 500). */
json_t *web_history(struct store *store, const struct web_param *params, size_t n,
		    struct web_reply *reply);
json_t *web_compare(struct store *store, const struct web_param *params, size_t n,
		    struct web_reply *reply);
/* MSG (LEN bytes), a text of the analysis, with its first CLI option named as the query
 * parameter the dashboard takes instead (--include-flagged: include_flagged=1,
 * --run-spread: run_spread=PCT, --run-spread 0: run_spread=0); MSG itself. */
const char *web_cli_hint(char *msg, size_t len);
struct bisect;
/* Bisect session ID (0: the active one, else the latest) as `bisect status --session ID
 * -j` prints it, and its replayed engine in *ENGINE if not NULL (bisect_destroy); NULL
 * with REPLY the error (404 "no bisect session", 500 a session that cannot be
 * replayed, 503). */
json_t *web_bisect(struct store *store, int64_t id, struct bisect **engine,
		   struct web_reply *reply);
/* Every bisect session as `bisect list -j` prints it; NULL with REPLY the error. */
json_t *web_bisect_list(struct store *store, struct web_reply *reply);
/* Answer the JSON routes (WEB_API_*) with PARAMS into REPLY. */
void web_api(const char *db, enum web_route route, int64_t id,
	     const struct web_param *params, size_t n, struct web_reply *reply);

/* --- web_chart.c: the history chart --- */

/* Append to B an inline SVG of history REPORT (analysis_history): points with hover
 * titles, stddev bars, change points, groups, legend; nothing when it has no values. */
void web_chart_history(struct web_buf *b, const json_t *report);
/* Append to B the charts of RESULT (store_query_result of run RUN): per metric a dot per
 * repetition (records left out), their mean and min..max per host, variant, subject and
 * point, each dot a link to /runs/RUN?seconds=JOB#seconds; with JOB > 0 first the
 * traces of SECONDS (store_query_seconds of that job) in <div id="seconds">, and that
 * job's dots marked. At most 2000 dots (a note says how many were drawn). Nothing for a
 * run without values. */
void web_chart_run(struct web_buf *b, const json_t *result, long long run, long long job,
		   const json_t *seconds);

/* --- web_page.c: pages --- */

/* Answer the page routes (WEB_PAGE_*) into REPLY: a page, or a JSON error that web.c
 * turns into a page (web_page_error). */
void web_page(const char *db, enum web_route route, int64_t id,
	      const struct web_param *params, size_t n, struct web_reply *reply);
/* The live script of /runs (web_runs.c): /runs polls /api/runs every 2 s while a run is queued
 * or running (the page also reloads every 5 s without script). web.c puts its SHA-256
 * into the Content-Security-Policy's script-src. */
extern const char web_live_script[];
/* Check the N PARAMS of a run page (seconds=JOB, a positive integer: *JOB, else 0).
 * Returns 0, or -EINVAL with REPLY the 400 naming the parameter. */
int web_page_run_params(const struct web_param *params, size_t n, long long *job,
			struct web_reply *reply);
/* An error page with STATUS and MESSAGE. */
void web_page_error(struct web_reply *reply, unsigned status, const char *message);
/* web_html.c, for every page: the head of a page titled TITLE into B; REPLY the page in
 * B (taken; a 500 when B ran out of memory); a cell of O's string KEY. */
void web_page_head(struct web_buf *b, const char *title);
/* The same with LIVE: a reload every 5 s for a browser without script (/runs). */
void web_page_head_live(struct web_buf *b, const char *title, bool live);
void web_page_done(struct web_reply *reply, struct web_buf *b);
void web_td(struct web_buf *b, const json_t *o, const char *key);
/* MS as util_format_time writes it into OUT, "-" when not positive; returns OUT. */
const char *web_when(long long ms, char *out, size_t len);

/* --- web_runs.c: /runs and the pick lists --- */

/* What the forms offer, read from the database: the runs, hosts and metric names. */
struct web_picks {
	json_t *runs, *hosts, *metrics;
};
/* Fill P from STORE; 0, or -EIO with REPLY the error (503 busy, 500). */
int web_picks_load(struct store *store, struct web_picks *p, struct web_reply *reply);
void web_picks_release(struct web_picks *p);
/* Append to B a <select> for FIELD of the form to PATH (plan, metric, host, state, by, a
 * or b: a run) listing what P holds, VALUE (may be NULL) selected, an empty "any"
 * first. Returns false (nothing written) for another field. */
bool web_pick_field(struct web_buf *b, const struct web_picks *p, const char *path,
		    const char *field, const char *value);
/* The latest run of RUNS (the run list) older than ID with ID's plan, or 0. */
long long web_run_previous(const json_t *runs, long long id);
/* Answer /runs with PARAMS (plan, host, state, since, until, page) into REPLY. */
void web_page_runs(struct store *store, const struct web_param *params, size_t n,
		   struct web_reply *reply);

/* --- web_table.c: sortable tables from the API's JSON --- */

/* The dashboard's second script: every <table class="sort"> sorts by a clicked header.
 * web.c puts its SHA-256 into the Content-Security-Policy's script-src. */
extern const char web_sort_script[];
/* Append web_sort_script to B (once per page, after its tables). */
void web_table_script(struct web_buf *b);
/* A number cell of V (its exact value in data-v), then SUFFIX (may be NULL); "-" when
 * V is not a number. */
void web_num_td(struct web_buf *b, const json_t *v, const char *suffix);
/* The tables of `result show -j` REPORT: per host and kernel a table per metric. */
void web_table_run(struct web_buf *b, const json_t *report);
/* The rows of `result compare -j` REPORT, a table per comparison. */
void web_table_compare(struct web_buf *b, const json_t *report);
/* The points of `result history -j` REPORT, one table. */
void web_table_history(struct web_buf *b, const json_t *report);

/* --- web_chart_cmp.c: the compare chart --- */

/* Append to B an inline SVG of compare REPORT: a bar per row, its delta % with the
 * confidence interval, coloured by verdict, a hover title; nothing without rows. */
void web_chart_compare(struct web_buf *b, const json_t *report);

/* --- web_stream.c: the run page, its head sent at once --- */

/* A run page being answered in two steps: its head at once, the rest once built. */
struct web_stream;
/* Check the N PARAMS and that run ID exists in DB, then hold the page's head; NULL with
 * REPLY the error (400, 404 "no run ID", 503, 500): a status decided before the first
 * byte. */
struct web_stream *web_stream_run(const char *db, int64_t id, const struct web_param *params,
				  size_t n, struct web_reply *reply);
/* Up to MAX bytes of the page into BUF: the head first, then (built on the first call
 * after it, web_page) the rest; an error found while building (a locked database) ends
 * the page with its message. Returns the count, -1 at the end, -2 out of memory. */
long web_stream_read(struct web_stream *s, char *buf, size_t max);
/* Free *S; *S becomes NULL. Takes NULL. */
void web_stream_destroy(struct web_stream **s);

/* --- web_bisect.c: the bisect pages --- */

/* Answer WEB_PAGE_BISECT and WEB_PAGE_BISECT_ID (session ID) into REPLY. */
void web_page_bisect(const char *db, enum web_route route, int64_t id,
		     const struct web_param *params, size_t n, struct web_reply *reply);

#endif
