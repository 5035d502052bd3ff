// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web_guard.c - the dashboard's checks of what a request claims (web.h, docs/security.md,
 * "Dashboard"): the Host and Origin headers against the site it is (its bound address,
 * localhost on loopback, any IP address when bound to a wildcard, the --http-host names:
 * a DNS name rebound to 127.0.0.1 is none of them), the path a sign-in may redirect to
 * (on this site only), strict UTF-8 of paths and parameters, and the --http-host names
 * themselves. Pure functions, called from the server's threads (web.c) and from
 * tests/unit/test_web_guard.c and tests/fuzz/fuzz_web_query.c.
 */
#include "web.h"

#include "base/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool web_utf8_valid(const char *s)
{
	return util_utf8_valid(s, strlen(s), NULL);
}

void web_utf8_repair(char *s)
{
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		n = util_utf8_len(s + i, len - i);
		if (!n) {
			s[i] = '?';
			n = 1;
		}
		i += n;
	}
}

/* HOSTPORT ("NAME", "NAME:PORT", "[ADDR6]" or "[ADDR6]:PORT") split into NAME (without
 * brackets, NAME_LEN bytes) and *PORT (DEFAULT_PORT when not given). Returns false when
 * it is none of these. */
static bool split_host(const char *hostport, char *name, size_t name_len, unsigned *port,
		       unsigned default_port)
{
	const char *end, *colon;
	unsigned long v;
	char *stop;
	size_t n;

	if (*hostport == '[') {
		end = strchr(hostport, ']');
		if (!end)
			return false;
		n = (size_t)(end - hostport - 1);
		colon = end[1] ? end + 1 : NULL;
		if (colon && *colon != ':')
			return false;
		hostport++;
	} else {
		colon = strchr(hostport, ':');
		n = colon ? (size_t)(colon - hostport) : strlen(hostport);
	}
	if (!n || n >= name_len)
		return false;
	memcpy(name, hostport, n);
	name[n] = '\0';
	*port = default_port;
	if (!colon)
		return true;
	if (colon[1] < '0' || colon[1] > '9' || strlen(colon + 1) > 5)
		return false;
	v = strtoul(colon + 1, &stop, 10);
	if (*stop || v > 65535)
		return false;
	*port = (unsigned)v;
	return true;
}

static bool is_ip(const char *name)
{
	unsigned char a[16];

	return inet_pton(AF_INET, name, a) == 1 || inet_pton(AF_INET6, name, a) == 1;
}

/* Whether HOSTPORT (DEFAULT_PORT when it has none) names SITE. */
static bool host_match(const struct web_site *site, const char *hostport,
		       unsigned default_port)
{
	char name[256];
	unsigned port;
	size_t i;

	if (!split_host(hostport, name, sizeof(name), &port, default_port))
		return false;
	for (i = 0; i < site->n_names; i++)
		if (!strcasecmp(name, site->names[i]))
			return true;	/* a configured name: any port (a proxy's) */
	if (port != site->port)
		return false;
	if (!strcasecmp(name, site->addr))
		return true;
	if (site->loopback && !strcasecmp(name, "localhost"))
		return true;
	/* bound to 0.0.0.0 or ::: the address a person typed (no name to rebind) */
	return site->wildcard && is_ip(name);
}

bool web_host_ok(const struct web_site *site, const char *host)
{
	/* no Host: HTTP/1.0 without one (MHD refuses HTTP/1.1 without); a browser sends it */
	return !host || host_match(site, host, 80);
}

bool web_origin_ok(const struct web_site *site, const char *origin)
{
	if (!origin)
		return true;
	if (!strncasecmp(origin, "http://", 7))
		return !strchr(origin + 7, '/') && host_match(site, origin + 7, 80);
	if (!strncasecmp(origin, "https://", 8))
		return !strchr(origin + 8, '/') && host_match(site, origin + 8, 443);
	return false;	/* "null" (a sandboxed frame, a file: page) and anything else */
}

bool web_local_path(const char *path)
{
	/* "//host/" and "/\host/" are another site to a browser; "http:..." is not a path */
	return path[0] == '/' && path[1] != '/' && path[1] != '\\';
}

int web_check_name(const char *name, struct err *err)
{
	size_t n = strlen(name), i;

	if (!n || n > 253) {
		err_set(err, "bad --http-host '%s' (expected a DNS name or an IPv4 "
			 "address, 1 to 253 bytes)", name);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '.')) {
			err_set(err, "bad --http-host '%s': byte %zu is not a letter, "
				 "digit, '-' or '.' (a name without port or scheme)", name,
				 i + 1);
			return -EINVAL;
		}
	}
	return 0;
}
