/* web.c - the dashboard's HTTP server (web.h, docs/dashboard.md) on libmicrohttpd: binds
 * only the address it is given, refuses an address outside loopback without a token or
 * --http-public, and on its one internal thread answers each request in order: the
 * token (401; a bearer header, the cookie a browser got for ?token=TOKEN, or that
 * parameter itself, answered by a redirect that sets the cookie), the method (GET and
 * HEAD only, else 405), the route (404, 400), then web_api.c, web_page.c or
 * web_bisect.c over the database opened read-only for that request.
 *
 * One MHD thread: the answers run one at a time, each with its own read-only store
 * connection, so nothing is shared with the caller's thread but the options.
 */
#include "web.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "store/store.h"

#define WEB_MAX_PARAMS 16

struct web {
	struct MHD_Daemon *mhd;
	char *db;
	char token[WEB_TOKEN_MAX];	/* "" when none */
	unsigned port;
	char url[INET6_ADDRSTRLEN + 32];	/* http://ADDR:PORT/ */
	char csp[192];			/* Content-Security-Policy: the live script's hash */
	char cookie[65];		/* the token cookie's value: SHA-256 of the token, hex */
};

/* The cookie a browser gets for ?token=TOKEN (docs/dashboard.md, "Security model"). */
#define WEB_COOKIE "bpflab_token"

/* What an answer carries besides its body. */
struct extra {
	const char *allow;		/* Allow (405) */
	bool bearer;			/* WWW-Authenticate (401) */
	char *location;			/* Location (303), heap */
	bool set_cookie;		/* Set-Cookie: the token cookie */
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

static enum MHD_Result send_reply(struct MHD_Connection *conn, struct web_reply *reply,
				  const struct web *w, const struct extra *x)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char h[160];

	resp = MHD_create_response_from_buffer(reply->len, reply->body ? reply->body : (void *)"",
					       reply->body ? MHD_RESPMEM_MUST_FREE :
					       MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		web_reply_release(reply);
		return MHD_NO;
	}
	reply->body = NULL;	/* MHD frees it */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, reply->type);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Content-Security-Policy", w->csp);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
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

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct web *w = cls;
	struct web_reply reply = { .status = 0 };
	struct params ps = { .n = 0 };
	struct extra x = { 0 };
	enum web_route route;
	enum MHD_Result ret;
	int64_t id = 0;
	bool login;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	route = web_route(url, &id);
	if (!authorized(w, conn, &login)) {
		web_reply_error(&reply, MHD_HTTP_UNAUTHORIZED,
				"missing or wrong token (Authorization: Bearer TOKEN)");
		x.bearer = true;
	} else if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		web_reply_error(&reply, MHD_HTTP_METHOD_NOT_ALLOWED,
				"method '%s' not allowed: the dashboard is read-only (GET, HEAD)",
				method);
		x.allow = "GET, HEAD";
	} else if (MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, param_cb, &ps),
		   ps.too_many) {
		web_reply_error(&reply, MHD_HTTP_BAD_REQUEST, "more than %d query parameters",
				WEB_MAX_PARAMS);
	} else if (login) {
		login_reply(url, &ps, &reply, &x);
	} else if (route == WEB_NOT_FOUND) {
		web_reply_error(&reply, MHD_HTTP_NOT_FOUND, "no such path '%s' (see "
				"docs/dashboard.md)", url);
	} else if (route == WEB_BAD_ID) {
		web_reply_error(&reply, MHD_HTTP_BAD_REQUEST, "bad %s id in '%s' (expected a "
				"positive integer)", strstr(url, "/bisect/") ? "session" : "run",
				url);
	} else if (route == WEB_PAGE_BISECT || route == WEB_PAGE_BISECT_ID) {
		web_page_bisect(w->db, route, id, ps.p, ps.n, &reply);
	} else if (route >= WEB_PAGE_RUNS) {
		web_page(w->db, route, id, ps.p, ps.n, &reply);
	} else {
		web_api(w->db, route, id, ps.p, ps.n, &reply);
	}
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
	return ret;
}

/* The Content-Security-Policy of every answer into OUT: nothing from elsewhere, inline
 * styles, the one inline script of /runs by its SHA-256 (no other script runs, also one
 * injected into a page), fetches to this server only. Returns 0 or -ENOMEM. */
static int web_csp(char *out, size_t len)
{
	uint8_t sum[32];
	char *b64;

	util_sha256(web_live_script, strlen(web_live_script), sum);
	b64 = util_base64_encode(sum, sizeof(sum));
	if (!b64)
		return -ENOMEM;
	snprintf(out, len, "default-src 'none'; style-src 'unsafe-inline'; script-src "
		 "'sha256-%s'; connect-src 'self'", b64);
	free(b64);
	return 0;
}

/* libmicrohttpd's own messages, through bpflab's log: while the daemon starts (W's mhd
 * still NULL) at debug level, since web_new's error says it better ("Failed to bind to
 * port 0" is MHD's word for a port it was given inside the address); later at info. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	const struct web *w = cls;
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	if (w->mhd)
		pr_info("dashboard: libmicrohttpd: %s", msg);
	else
		pr_debug("dashboard: libmicrohttpd: %s", msg);
}

struct web *web_new(const struct web_opts *opts, bool *usage, char *err, size_t err_len)
{
	const char *http = opts->http ? opts->http : WEB_DEFAULT_ADDR;
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage sa;
	struct store *store;
	socklen_t len;
	bool loopback;
	struct web *w;

	*usage = true;
	if (web_check_bind(http, opts->token, opts->public_ok, err, err_len))
		return NULL;
	web_parse_addr(http, &sa, &len, &loopback, err, err_len);
	if (opts->token && strlen(opts->token) >= WEB_TOKEN_MAX) {
		snprintf(err, err_len, "the token is longer than %d bytes", WEB_TOKEN_MAX - 1);
		return NULL;
	}
	*usage = false;
	/* refuse at start what every request would fail on: no file, newer schema */
	store = store_open(opts->db, true, err, err_len);
	if (!store) {
		char why[512];

		if (!strstr(err, opts->db)) {
			snprintf(why, sizeof(why), "%s", *err ? err : strerror(errno));
			snprintf(err, err_len, "cannot open database '%s': %s", opts->db, why);
		}
		return NULL;
	}
	store_close(&store);
	w = calloc(1, sizeof(*w));
	if (!w || !(w->db = strdup(opts->db))) {
		free(w);
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	if (opts->token) {
		uint8_t sum[32];
		size_t i;

		snprintf(w->token, sizeof(w->token), "%s", opts->token);
		util_sha256(w->token, strlen(w->token), sum);
		for (i = 0; i < sizeof(sum); i++)
			snprintf(w->cookie + 2 * i, 3, "%02x", sum[i]);
	}
	if (web_csp(w->csp, sizeof(w->csp))) {
		snprintf(err, err_len, "out of memory");
		web_destroy(&w);
		return NULL;
	}
	w->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
				  (sa.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				  0, NULL, NULL, handle, w,
				  /* first, or MHD prints what comes before it itself */
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, w,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
				  MHD_OPTION_END);
	if (!w->mhd) {
		snprintf(err, err_len, "cannot listen on '%s': %s", http, strerror(errno));
		web_destroy(&w);
		return NULL;
	}
	info = MHD_get_daemon_info(w->mhd, MHD_DAEMON_INFO_BIND_PORT);
	w->port = info ? info->port : 0;
	{
		char host[INET6_ADDRSTRLEN] = "?";
		const void *a = sa.ss_family == AF_INET6 ?
			(const void *)&((struct sockaddr_in6 *)&sa)->sin6_addr :
			(const void *)&((struct sockaddr_in *)&sa)->sin_addr;

		inet_ntop(sa.ss_family, a, host, sizeof(host));
		snprintf(w->url, sizeof(w->url), sa.ss_family == AF_INET6 ? "http://[%s]:%u/" :
			 "http://%s:%u/", host, w->port);
	}
	return w;
}

unsigned web_port(const struct web *w)
{
	return w->port;
}

const char *web_url(const struct web *w)
{
	return w->url;
}

void web_destroy(struct web **wp)
{
	struct web *w = *wp;

	if (!w)
		return;
	if (w->mhd)
		MHD_stop_daemon(w->mhd);
	free(w->db);
	memset(w->token, 0, sizeof(w->token));
	memset(w->cookie, 0, sizeof(w->cookie));
	free(w);
	*wp = NULL;
}
