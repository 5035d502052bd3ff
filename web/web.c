// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web.c - the dashboard's HTTP server (web.h, docs/dashboard.md) on libmicrohttpd: binds
 * only the address it is given, refuses an address outside loopback without a token or
 * --http-public, and answers each request in order: Host (421) and Origin (403) must
 * name this site (web_guard.c: no DNS rebinding), the token (401; a bearer header, the
 * cookie a browser got for ?token=TOKEN, or that parameter itself, answered by a
 * redirect on this site that sets the cookie), the method (GET and HEAD only, else
 * 405), the path and parameters (400: too many, not UTF-8), the route (404, 400), then
 * web_api.c, web_page.c or web_bisect.c over the database opened read-only for that
 * request; a run page (GET) through web_stream.c: its head sent at once, the rest from
 * MHD's content reader, on the same connection thread, once built.
 *
 * Threads: one per connection (MHD_USE_THREAD_PER_CONNECTION), at most WEB_CONN_MAX and
 * WEB_CONN_PER_ADDR from one address, each with deadlines (web_conn.c), so neither a
 * slow page nor slow clients hold the others. Each answer opens its own read-only store
 * connection; the page builders keep no state between calls; the server's own fields
 * are written before MHD starts, then only read, but for the atomic counters of
 * web_destroy. The signals stay with the caller's thread.
 */
#include "web.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"
#include "store/store.h"
#include "web_conn.h"

#define WEB_MAX_PARAMS 16

struct web {
	struct MHD_Daemon *mhd;
	struct web_conns *conns;	/* the deadlines */
	char *db;
	char token[WEB_TOKEN_MAX];	/* "" when none */
	unsigned port;
	char url[INET6_ADDRSTRLEN + 32];	/* http://ADDR:PORT/ */
	char csp[320];			/* Content-Security-Policy: the scripts' hashes */
	char cookie[65];		/* the token cookie's value: SHA-256 of the token, hex */
	struct web_site site;		/* what Host and Origin may name */
	char *names[WEB_NAMES_MAX];	/* site.names: --http-host, copied */
	atomic_bool stopping;		/* web_destroy began: new requests get 503 */
	atomic_int busy;		/* requests in handle() */
};

/* The cookie a browser gets for ?token=TOKEN (docs/dashboard.md, "Security model"). */
#define WEB_COOKIE "bpflab_token"

/* What an answer carries besides its body. */
struct extra {
	const char *allow;		/* Allow (405) */
	bool bearer;			/* WWW-Authenticate (401) */
	char *location;			/* Location (303), heap */
	bool set_cookie;		/* Set-Cookie: the token cookie */
	struct web_stream *stream;	/* a 200 page sent as it is built (web_stream.c) */
};

/* The query parameters of a request, gathered by MHD_get_connection_values. */
struct params {
	struct web_param p[WEB_MAX_PARAMS];
	size_t n;
	bool too_many;
};

static enum MHD_Result param_cb(void *cls, enum MHD_ValueKind kind, const char *key,
				const char *value)
{
	struct params *ps = cls;

	(void)kind;
	if (ps->n == WEB_MAX_PARAMS) {
		ps->too_many = true;
		return MHD_NO;
	}
	ps->p[ps->n++] = (struct web_param){ key, value };
	return MHD_YES;
}

/* A streamed page's response: the server (for its busy count) and the page. */
struct stream_ctx {
	struct web *w;
	struct web_stream *s;
};

/* MHD's content reader of a streamed page, on the connection's thread: counted busy
 * while it builds (web_destroy waits for it as for handle()), cut short once stopping. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream_ctx *c = cls;
	long n;

	(void)pos;
	atomic_fetch_add(&c->w->busy, 1);
	n = atomic_load(&c->w->stopping) ? -2 : web_stream_read(c->s, buf, max);
	atomic_fetch_sub(&c->w->busy, 1);
	if (n == -1)
		return MHD_CONTENT_READER_END_OF_STREAM;
	return n < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : (ssize_t)n;
}

static void stream_free(void *cls)
{
	struct stream_ctx *c = cls;

	web_stream_destroy(&c->s);
	free(c);
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, struct web_reply *reply,
				  struct web *w, struct extra *x)
{
	struct MHD_Response *resp;
	struct stream_ctx *c = NULL;
	enum MHD_Result ret;
	char h[160];

	if (x->stream && (c = malloc(sizeof(*c)))) {
		*c = (struct stream_ctx){ w, x->stream };
		x->stream = NULL;	/* the response's */
		resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024,
							 stream_read, c, stream_free);
		if (!resp)
			stream_free(c);
		web_reply_release(reply);
	} else {
		web_stream_destroy(&x->stream);
		resp = MHD_create_response_from_buffer(reply->len, reply->body ? reply->body :
						       (void *)"", reply->body ?
						       MHD_RESPMEM_MUST_FREE :
						       MHD_RESPMEM_PERSISTENT);
	}
	if (!resp) {
		web_reply_release(reply);
		return MHD_NO;
	}
	reply->body = NULL;	/* MHD frees it */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, reply->type);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Content-Security-Policy", w->csp);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	if (*reply->filename) {
		snprintf(h, sizeof(h), "attachment; filename=\"%s\"", reply->filename);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION, h);
	}
	if (reply->retry_after) {
		snprintf(h, sizeof(h), "%u", reply->retry_after);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, h);
	}
	if (x->allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, x->allow);
	if (x->bearer)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"bpflab\"");
	if (x->location)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, x->location);
	if (x->set_cookie) {
		snprintf(h, sizeof(h), WEB_COOKIE "=%s; Path=/; HttpOnly; SameSite=Strict",
			 w->cookie);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, h);
	}
	ret = MHD_queue_response(conn, reply->status, resp);
	MHD_destroy_response(resp);
	web_conns_sending(w->conns, conn);
	return ret;
}

/* Whether the request may be answered: no token set, or the bearer header, the token
 * cookie or (*LOGIN) a ?token= parameter carries it. */
static bool authorized(const struct web *w, struct MHD_Connection *conn, bool *login)
{
	const char *q = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token");

	*login = false;
	if (!*w->token)
		return true;
	if (q) {
		*login = web_secret_equal(q, w->token);
		return *login;
	}
	return web_auth_ok(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_AUTHORIZATION), w->token) ||
	       web_secret_equal(MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, WEB_COOKIE),
				w->cookie);
}

/* The answer to URL?token=TOKEN: 303 to URL with the other parameters PS, and the token
 * cookie, so that the token leaves the address bar and every later request of the
 * browser (the live script's too) carries the cookie. */
static void login_reply(const char *url, const struct params *ps, struct web_reply *reply,
			struct extra *x)
{
	struct web_buf b = { 0 };
	size_t i;
	bool first = true;

	web_buf_url(&b, url, "/");
	for (i = 0; i < ps->n; i++) {
		if (!strcmp(ps->p[i].key, "token"))
			continue;
		web_buf_str(&b, first ? "?" : "&");
		first = false;
		web_buf_url(&b, ps->p[i].key, "");
		if (ps->p[i].value) {
			web_buf_str(&b, "=");
			web_buf_url(&b, ps->p[i].value, "");
		}
	}
	if (b.failed) {
		web_buf_release(&b);
		web_reply_error(reply, 500, "out of memory");
		return;
	}
	web_reply_release(reply);
	reply->status = MHD_HTTP_SEE_OTHER;
	reply->type = "text/plain; charset=utf-8";
	reply->body = strdup("the token is kept in a cookie: see Location\n");
	reply->len = reply->body ? strlen(reply->body) : 0;
	x->location = b.data;
	x->set_cookie = true;
}

/* The first parameter of PS whose name or value is not UTF-8 into ERR; false when all
 * are. */
static bool params_bad_utf8(const struct params *ps, struct err *err)
{
	size_t i;

	for (i = 0; i < ps->n; i++) {
		if (!web_utf8_valid(ps->p[i].key)) {
			err_set(err, "parameter %zu: the name is not valid UTF-8", i + 1);
			return true;
		}
		if (ps->p[i].value && !web_utf8_valid(ps->p[i].value)) {
			err_set(err, "parameter '%s': the value is not valid UTF-8",
				 ps->p[i].key);
			return true;
		}
	}
	return false;
}

/* The answer to a request that carries all its headers: REPLY and X as the file's
 * comment orders the checks. */
static void answer(struct web *w, struct MHD_Connection *conn, const char *url,
		   const char *method, struct web_reply *reply, struct extra *x)
{
	struct params ps = { .n = 0 };
	enum web_route route;
	struct err err;
	int64_t id = 0;
	bool login;

	if (!web_host_ok(&w->site, MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_HOST))) {
		web_reply_error(reply, 421, "this server does not answer for that Host (its "
				"address, or a name given with --http-host)");
		return;
	}
	if (!web_origin_ok(&w->site, MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							       MHD_HTTP_HEADER_ORIGIN))) {
		web_reply_error(reply, MHD_HTTP_FORBIDDEN, "requests from another site's page "
				"are refused (Origin)");
		return;
	}
	if (!authorized(w, conn, &login)) {
		web_reply_error(reply, MHD_HTTP_UNAUTHORIZED,
				"missing or wrong token (Authorization: Bearer TOKEN)");
		x->bearer = true;
		return;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		web_reply_error(reply, MHD_HTTP_METHOD_NOT_ALLOWED,
				"method '%s' not allowed: the dashboard is read-only (GET, HEAD)",
				web_utf8_valid(method) ? method : "?");
		x->allow = "GET, HEAD";
		return;
	}
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, param_cb, &ps);
	if (ps.too_many) {
		web_reply_error(reply, MHD_HTTP_BAD_REQUEST, "more than %d query parameters",
				WEB_MAX_PARAMS);
		return;
	}
	if (!web_utf8_valid(url)) {
		web_reply_error(reply, MHD_HTTP_BAD_REQUEST, "the path is not valid UTF-8");
		return;
	}
	if (params_bad_utf8(&ps, &err)) {
		web_reply_error(reply, MHD_HTTP_BAD_REQUEST, "%s", err.msg);
		return;
	}
	if (login) {
		if (web_local_path(url))
			login_reply(url, &ps, reply, x);
		else
			web_reply_error(reply, MHD_HTTP_BAD_REQUEST, "'%s' is not a path on this "
					"site: signing in leads only to one", url);
		return;
	}
	route = web_route(url, &id);
	if (route == WEB_NOT_FOUND)
		web_reply_error(reply, MHD_HTTP_NOT_FOUND, "no such path '%s' (see "
				"docs/dashboard.md)", url);
	else if (route == WEB_BAD_ID)
		web_reply_error(reply, MHD_HTTP_BAD_REQUEST, "bad %s id in '%s' (expected a "
				"positive integer)", strstr(url, "/bisect/") ? "session" : "run",
				url);
	else if (route == WEB_PAGE_BISECT || route == WEB_PAGE_BISECT_ID)
		web_page_bisect(w->db, route, id, ps.p, ps.n, reply);
	else if (route == WEB_PAGE_RUN && !strcmp(method, MHD_HTTP_METHOD_GET)) {
		/* the head at once, the rest as built: the status decided first */
		x->stream = web_stream_run(w->db, id, ps.p, ps.n, reply);
		if (x->stream) {
			web_reply_release(reply);
			reply->status = MHD_HTTP_OK;
			reply->type = "text/html; charset=utf-8";
		}
	}
	else if (route >= WEB_PAGE_RUNS)
		web_page(w->db, route, id, ps.p, ps.n, reply);
	else
		web_api(w->db, route, id, ps.p, ps.n, reply);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct web *w = cls;
	struct web_reply reply = { .status = 0 };
	struct extra x = { 0 };
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	web_conns_answering(w->conns, conn);
	atomic_fetch_add(&w->busy, 1);
	if (atomic_load(&w->stopping))
		web_reply_error(&reply, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is stopping");
	else
		answer(w, conn, url, method, &reply, &x);
	/* an error outside /api/ is a page for a person: the same status and message */
	if (reply.status != MHD_HTTP_OK && strncmp(url, "/api/", 5) && strcmp(url, "/api") &&
	    !strcmp(reply.type, "application/json")) {
		char msg[1024];
		json_t *e = json_loadb(reply.body ? reply.body : "", reply.len, 0, NULL);

		snprintf(msg, sizeof(msg), "%s", json_string_value(json_object_get(e, "error")) ?
			 json_string_value(json_object_get(e, "error")) : "error");
		json_decref(e);
		web_page_error(&reply, reply.status, msg);
	}
	ret = send_reply(conn, &reply, w, &x);
	free(x.location);
	atomic_fetch_sub(&w->busy, 1);
	return ret;
}

/* The Content-Security-Policy of every answer into OUT: nothing from elsewhere, inline
 * styles, the two inline scripts (the live one of /runs, the table sorter) by their
 * SHA-256 (no other script runs, also one injected into a page), fetches to this server
 * only, in no other site's frame. Returns 0 or -ENOMEM. */
static int web_csp(char *out, size_t len)
{
	const char *scripts[] = { web_live_script, web_sort_script };
	char *b64[2] = { NULL, NULL };
	uint8_t sum[32];
	int err = 0;
	size_t i;

	for (i = 0; i < 2; i++) {
		util_sha256(scripts[i], strlen(scripts[i]), sum);
		b64[i] = util_base64_encode(sum, sizeof(sum));
		if (!b64[i])
			err = -ENOMEM;
	}
	if (!err)
		snprintf(out, len, "default-src 'none'; style-src 'unsafe-inline'; script-src "
			 "'sha256-%s' 'sha256-%s'; connect-src 'self'; frame-ancestors 'none'; "
			 "base-uri 'none'", b64[0], b64[1]);
	free(b64[0]);
	free(b64[1]);
	return err;
}

/* MHD's own messages (a full connection table, a client that went) at debug level:
 * a client must not fill the log. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	pr_debug("dashboard: %s", msg);
}

/* A socket listening on SA (LEN) into *FD, the port bound into W's site and url.
 * Returns 0 or -errno. */
static int web_listen(struct web *w, const struct sockaddr_storage *sa, socklen_t len,
		      bool loopback, int *fd)
{
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	const void *a;
	int one = 1, e;

	*fd = socket(sa->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return -errno;
	setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->ss_family == AF_INET6)
		setsockopt(*fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(*fd, (const struct sockaddr *)sa, len) || listen(*fd, 128) ||
	    getsockname(*fd, (struct sockaddr *)&bound, &blen)) {
		e = errno;
		close(*fd);
		*fd = -1;
		return -e;
	}
	if (sa->ss_family == AF_INET6) {
		a = &((const struct sockaddr_in6 *)&bound)->sin6_addr;
		w->site.port = ntohs(((const struct sockaddr_in6 *)&bound)->sin6_port);
		w->site.wildcard = IN6_IS_ADDR_UNSPECIFIED((const struct in6_addr *)a);
	} else {
		a = &((const struct sockaddr_in *)&bound)->sin_addr;
		w->site.port = ntohs(((const struct sockaddr_in *)&bound)->sin_port);
		w->site.wildcard = ((const struct in_addr *)a)->s_addr == htonl(INADDR_ANY);
	}
	w->site.loopback = loopback;
	inet_ntop(sa->ss_family, a, w->site.addr, sizeof(w->site.addr));
	w->port = w->site.port;
	snprintf(w->url, sizeof(w->url), sa->ss_family == AF_INET6 ? "http://[%s]:%u/" :
		 "http://%s:%u/", w->site.addr, w->port);
	return 0;
}

/* W's --http-host names from OPTS, checked and copied. Returns 0, or -EINVAL (*USAGE)
 * or -ENOMEM with the reason in ERR. */
static int web_names(struct web *w, const struct web_opts *opts, bool *usage, struct err *err)
{
	size_t i;

	if (opts->n_names > WEB_NAMES_MAX) {
		err_set(err, "more than %d --http-host names", WEB_NAMES_MAX);
		*usage = true;
		return -EINVAL;
	}
	for (i = 0; i < opts->n_names; i++) {
		if (web_check_name(opts->names[i], err)) {
			*usage = true;
			return -EINVAL;
		}
		w->names[i] = strdup(opts->names[i]);
		if (!w->names[i]) {
			err_set(err, "out of memory");
			return -ENOMEM;
		}
	}
	w->site.names = (const char *const *)w->names;
	w->site.n_names = opts->n_names;
	return 0;
}

struct web *web_new(const struct web_opts *opts, bool *usage, struct err *err)
{
	const char *http = opts->http ? opts->http : WEB_DEFAULT_ADDR;
	struct sockaddr_storage sa;
	struct store *store;
	socklen_t len;
	bool loopback;
	struct web *w;
	struct err serr;
	int fd, e;

	*usage = true;
	if (web_check_bind(http, opts->token, opts->public_ok, err))
		return NULL;
	web_parse_addr(http, &sa, &len, &loopback, err);
	if (opts->token && strlen(opts->token) >= WEB_TOKEN_MAX) {
		err_set(err, "the token is longer than %d bytes", WEB_TOKEN_MAX - 1);
		return NULL;
	}
	*usage = false;
	w = calloc(1, sizeof(*w));
	if (!w) {
		err_set(err, "out of memory");
		return NULL;
	}
	if (web_names(w, opts, usage, err))
		goto fail;
	/* refuse at start what every request would fail on: no file, newer schema */
	store = store_open(opts->db, true, &serr);
	if (!store) {
		if (strstr(serr.msg, opts->db))
			err_set(err, "%s", serr.msg);
		else
			err_set(err, "cannot open database '%s': %s", opts->db,
				err_text(&serr, -errno));
		goto fail;
	}
	store_close(&store);
	if (!(w->db = strdup(opts->db)) || web_csp(w->csp, sizeof(w->csp))) {
		err_set(err, "out of memory");
		goto fail;
	}
	if (opts->token) {
		uint8_t sum[32];
		size_t i;

		snprintf(w->token, sizeof(w->token), "%s", opts->token);
		util_sha256(w->token, strlen(w->token), sum);
		for (i = 0; i < sizeof(sum); i++)
			snprintf(w->cookie + 2 * i, 3, "%02x", sum[i]);
	}
	w->conns = web_conns_new(WEB_REQUEST_DEADLINE_S, WEB_SEND_DEADLINE_S);
	if (!w->conns) {
		err_set(err, "cannot start the dashboard's timer thread: %s",
			 strerror(errno));
		goto fail;
	}
	/* bound before MHD starts: the port is in the site before a request can come */
	e = web_listen(w, &sa, len, loopback, &fd);
	if (e) {
		err_set(err, "cannot listen on '%s': %s", http, strerror(-e));
		goto fail;
	}
	w->mhd = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL | MHD_USE_ITC |
				  MHD_USE_ERROR_LOG |
				  (sa.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				  0, NULL, NULL, handle, w,
				  MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)WEB_CONN_MAX,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)WEB_CONN_PER_ADDR,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)WEB_SEND_DEADLINE_S,
				  MHD_OPTION_NOTIFY_CONNECTION, web_conns_notify, w->conns,
				  MHD_OPTION_NOTIFY_COMPLETED, web_conns_completed, w->conns,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_END);
	if (!w->mhd) {
		err_set(err, "cannot serve on '%s': %s", http, strerror(errno));
		close(fd);
		goto fail;
	}
	return w;
fail:
	web_destroy(&w);
	return NULL;
}

unsigned web_port(const struct web *w)
{
	return w->port;
}

const char *web_url(const struct web *w)
{
	return w->url;
}

/* Wait up to WEB_STOP_GRACE_MS for W's answers being built; true when none is left. */
static bool web_drain(struct web *w)
{
	struct timespec tick = { .tv_nsec = 10 * 1000000L };
	int waited;

	for (waited = 0; atomic_load(&w->busy) > 0; waited += 10) {
		if (waited >= WEB_STOP_GRACE_MS)
			return false;
		nanosleep(&tick, NULL);
	}
	return true;
}

void web_destroy(struct web **wp)
{
	struct web *w = *wp;
	size_t i;
	int fd;

	if (!w)
		return;
	*wp = NULL;
	if (w->mhd) {
		atomic_store(&w->stopping, true);
		/* no new connection; the listening socket is ours again */
		fd = MHD_quiesce_daemon(w->mhd);
		if (fd >= 0)
			close(fd);
		if (!web_drain(w)) {
			/* MHD_stop_daemon would join a thread still building (a page of a
			 * huge run, a database locked): leave it, and W, to the exit */
			pr_warn("dashboard: stopped with %d answers still being built",
				atomic_load(&w->busy));
			return;
		}
		MHD_stop_daemon(w->mhd);
	}
	web_conns_destroy(&w->conns);
	free(w->db);
	for (i = 0; i < WEB_NAMES_MAX; i++)
		free(w->names[i]);
	memset(w->token, 0, sizeof(w->token));
	memset(w->cookie, 0, sizeof(w->cookie));
	free(w);
}
