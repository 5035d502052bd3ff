// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web_util.c - the dashboard's pure helpers (web.h): the listen address and the rule
 * about it, the bearer token (read from a file, compared in constant time), the routes,
 * the query parameters, and a growing text buffer with HTML escaping. No I/O but the
 * token file; tests/unit/test_web.c checks each.
 */
#include "web.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

int web_parse_addr(const char *text, struct sockaddr_storage *sa, socklen_t *len,
		   bool *loopback, struct err *err)
{
	char host[INET6_ADDRSTRLEN + 1] = "";
	const char *port_s, *close, *hs = text;
	struct sockaddr_in *in4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	unsigned long port;
	char *end;
	size_t n;

	memset(sa, 0, sizeof(*sa));
	if (text[0] == '[') {
		close = strchr(text, ']');
		if (!close || close[1] != ':')
			goto bad;
		hs = text + 1;
		n = (size_t)(close - hs);
		port_s = close + 2;
	} else if ((port_s = strrchr(text, ':'))) {
		n = (size_t)(port_s - text);
		port_s++;
	} else {
		n = 0;
		port_s = text;
	}
	if (n >= sizeof(host))
		goto bad;
	if (n)
		memcpy(host, hs, n);
	errno = 0;
	port = strtoul(port_s, &end, 10);
	if (!*port_s || *end || *port_s == '-' || *port_s == '+' || errno || port > 65535)
		goto bad;
	if (!*host || inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		if (!*host)
			in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		*len = sizeof(*in4);
		*loopback = (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		*loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
		return 0;
	}
bad:
	err_set(err, "bad --http address '%s' (expected ADDR:PORT, [ADDR6]:PORT "
		 "or PORT: an IP address and a port 0-65535)", text);
	return -EINVAL;
}

int web_check_bind(const char *http, bool have_token, bool public_ok, struct err *err)
{
	struct sockaddr_storage sa;
	socklen_t len;
	bool loopback;

	if (!http)
		http = WEB_DEFAULT_ADDR;
	if (web_parse_addr(http, &sa, &len, &loopback, err))
		return -EINVAL;
	if (!loopback && !have_token && !public_ok) {
		err_set(err, "--http '%s' is not a loopback address: give "
			 "--http-token FILE (every request must carry the token) or "
			 "--http-public (anyone who reaches it can read the results)", http);
		return -EINVAL;
	}
	return 0;
}

int web_read_token(const char *file, char *out, struct err *err)
{
	char line[WEB_TOKEN_MAX + 2];
	size_t n, i, start = 0;
	int e = util_open_regular(file);
	FILE *f = e >= 0 ? fdopen(e, "r") : NULL;

	if (!f) {
		if (e >= 0) {
			int fd = e;

			e = -errno;
			close(fd);
		}
		err_set(err, "cannot read token file '%s': %s", file, util_strerror(e));
		return e;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	n = strcspn(line, "\r\n");
	if (n > WEB_TOKEN_MAX - 1) {
		err_set(err, "token file '%s': the token is longer than %d bytes",
			 file, WEB_TOKEN_MAX - 1);
		return -EINVAL;
	}
	while (start < n && (line[start] == ' ' || line[start] == '\t'))
		start++;
	while (n > start && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	for (i = start; i < n; i++) {
		if (line[i] <= ' ' || line[i] > '~') {
			err_set(err, "token file '%s': the token has a space or a "
				 "non-printable byte at column %zu", file, i + 1);
			return -EINVAL;
		}
	}
	if (n - start < 16) {
		err_set(err, "token file '%s': the token (first line) has %zu bytes; "
			 "give at least 16", file, n - start);
		return -EINVAL;
	}
	memcpy(out, line + start, n - start);
	out[n - start] = '\0';
	return 0;
}

bool web_secret_equal(const char *given, const char *secret)
{
	size_t want = strlen(secret), got = given ? strlen(given) : 0, i;
	unsigned char diff = 0;

	if (!given)
		return false;
	/* every byte of the secret is looked at whatever was given */
	for (i = 0; i < want; i++)
		diff |= (unsigned char)secret[i] ^ (unsigned char)(i < got ? given[i] : 0);
	return !diff && got == want;
}

bool web_auth_ok(const char *header, const char *token)
{
	static const char scheme[] = "Bearer ";

	if (!header || strncmp(header, scheme, sizeof(scheme) - 1))
		return false;
	return web_secret_equal(header + sizeof(scheme) - 1, token);
}

void web_buf_url(struct web_buf *b, const char *s, const char *keep)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p) || strchr(keep, *p))
			web_buf_add(b, (const char *)p, 1);
		else
			web_buf_printf(b, "%%%02X", *p);
	}
}

/* A run id: 1 to INT64_MAX in decimal digits. */
static bool parse_id(const char *s, int64_t *id)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno || v < 1 || v > INT64_MAX)
		return false;
	*id = (int64_t)v;
	return true;
}

enum web_route web_route(const char *path, int64_t *id)
{
	static const struct {
		const char *path;
		enum web_route route;
	} fixed[] = {
		{ "/", WEB_PAGE_RUNS }, { "/runs", WEB_PAGE_RUNS },
		{ "/api/runs", WEB_API_RUNS }, { "/api/hosts", WEB_API_HOSTS },
		{ "/api/history", WEB_API_HISTORY }, { "/api/compare", WEB_API_COMPARE },
		{ "/history", WEB_PAGE_HISTORY }, { "/compare", WEB_PAGE_COMPARE },
		{ "/hosts", WEB_PAGE_HOSTS }, { "/bisect", WEB_PAGE_BISECT },
		{ "/api/bisect", WEB_API_BISECT }, { "/api/bisect/log", WEB_API_BISECT_LOG },
		{ "/api/bisect/sessions", WEB_API_BISECTS },
	};
	static const struct {
		const char *prefix;
		enum web_route route;
	} with_id[] = {
		{ "/runs/", WEB_PAGE_RUN }, { "/api/runs/", WEB_API_RUN },
		{ "/bisect/", WEB_PAGE_BISECT_ID }, { "/api/bisect/", WEB_API_BISECT_ID },
	};
	size_t i, n;
	const char *log;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(path, fixed[i].path))
			return fixed[i].route;
	for (i = 0; i < sizeof(with_id) / sizeof(with_id[0]); i++) {
		n = strlen(with_id[i].prefix);
		if (strncmp(path, with_id[i].prefix, n) || !path[n])
			continue;
		/* /api/bisect/ID/log: the steps of session ID */
		log = strchr(path + n, '/');
		if (log && (with_id[i].route != WEB_API_BISECT_ID || strcmp(log, "/log")))
			continue;
		if (log) {
			char text[32];

			if ((size_t)(log - path - n) >= sizeof(text))
				return WEB_BAD_ID;
			memcpy(text, path + n, (size_t)(log - path - n));
			text[log - path - n] = '\0';
			return parse_id(text, id) ? WEB_API_BISECT_ID_LOG : WEB_BAD_ID;
		}
		return parse_id(path + n, id) ? with_id[i].route : WEB_BAD_ID;
	}
	return WEB_NOT_FOUND;
}

int web_params_check(const struct web_param *params, size_t n, const char *const *allowed,
		     const char **values, struct err *err)
{
	size_t i, k, klen, vlen;
	const char *vals, *p;

	for (k = 0; allowed[k]; k++)
		values[k] = NULL;
	for (i = 0; i < n; i++) {
		const char *key = params[i].key, *value = params[i].value;

		for (k = 0; allowed[k]; k++) {
			klen = strcspn(allowed[k], "=");
			if (strlen(key) == klen && !strncmp(key, allowed[k], klen))
				break;
		}
		if (!allowed[k]) {
			err_set(err, "unknown parameter '%s'", key);
			return -EINVAL;
		}
		if (values[k]) {
			err_set(err, "parameter '%s' given twice", key);
			return -EINVAL;
		}
		if (!value || !*value) {
			err_set(err, "parameter '%s' needs a value", key);
			return -EINVAL;
		}
		/* "key" without "=": any value */
		if (!allowed[k][klen]) {
			values[k] = value;
			continue;
		}
		vals = allowed[k] + klen + 1;
		for (p = vals; *p; p += vlen + (p[vlen] == '|')) {
			vlen = strcspn(p, "|");
			if (strlen(value) == vlen && !strncmp(value, p, vlen))
				break;
		}
		if (!*p) {
			err_set(err, "parameter '%s': unknown value '%s' (expected %s)",
				 key, value, vals);
			return -EINVAL;
		}
		values[k] = value;
	}
	return 0;
}

void web_buf_add(struct web_buf *b, const char *s, size_t n)
{
	size_t cap;
	char *d;

	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d) {
			b->failed = true;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void web_buf_str(struct web_buf *b, const char *s)
{
	web_buf_add(b, s, strlen(s));
}

void web_buf_printf(struct web_buf *b, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		web_buf_add(b, small, (size_t)n);
		return;
	}
	va_start(ap, fmt);
	n = vasprintf(&big, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	web_buf_add(b, big, (size_t)n);
	free(big);
}

void web_buf_html(struct web_buf *b, const char *s)
{
	const char *run;

	if (!s)
		return;
	while (*s) {
		run = s;
		s += strcspn(s, "&<>\"'");
		web_buf_add(b, run, (size_t)(s - run));
		switch (*s) {
		case '&': web_buf_str(b, "&amp;"); break;
		case '<': web_buf_str(b, "&lt;"); break;
		case '>': web_buf_str(b, "&gt;"); break;
		case '"': web_buf_str(b, "&quot;"); break;
		case '\'': web_buf_str(b, "&#39;"); break;
		default: return;
		}
		s++;
	}
}

void web_buf_release(struct web_buf *b)
{
	free(b->data);
	*b = (struct web_buf){ 0 };
}
