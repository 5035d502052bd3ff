// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_web_query.c - libFuzzer target for what the dashboard reads from a request
 * (web/web_util.c, docs/dashboard.md): the path (web_route) and the query parameters
 * (web_params_check against the specs of /api/runs/ID and /api/history), and the HTML
 * escaping every page applies to the values it shows.
 *
 * The input: the path up to the first newline, then "key=value" parameters split at
 * '&' (at most 16, as web.c). Checked beyond "no crash":
 *  - a run or bisect session route's id is positive and its digits are the path's
 *    tail (before "/log");
 *  - accepted parameters: every value given, non-empty, and for "format" and
 *    "include_flagged" one listed;
 *    refused: a message naming a parameter;
 *  - the escaped text holds no < > " ' and no '&' that does not start an entity;
 *  - the path percent-encoded for a Location holds only unreserved bytes, '/' and %XX;
 *  - web_guard.c: the path repaired as UTF-8 is valid, and valid text is left as it
 *    was; the path as a Host or an Origin of a site on 127.0.0.1:8080 named also
 *    dash.example is accepted only when it is that address, localhost or that name
 *    (with the port, or any port for the name); a path accepted as the sign-in's
 *    target starts with one '/'.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "web.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The checks of web_guard.c on PATH (see the top of the file). */
static void fuzz_guard(const char *path)
{
	static const char *const names[] = { "dash.example" };
	static const struct web_site site = { .addr = "127.0.0.1", .port = 8080,
					      .loopback = true, .names = names,
					      .n_names = 1 };
	size_t n = strlen(path);
	char *copy = strdup(path);
	bool valid = web_utf8_valid(path);
	const char *host;

	if (!copy)
		return;
	web_utf8_repair(copy);
	if (!web_utf8_valid(copy) || strlen(copy) != n || (valid && strcmp(copy, path)))
		abort();
	free(copy);
	if (web_host_ok(&site, path) && strcasecmp(path, "127.0.0.1:8080") &&
	    strcasecmp(path, "localhost:8080") && strncasecmp(path, "dash.example", 12))
		abort();
	if (web_origin_ok(&site, path)) {
		host = !strncasecmp(path, "http://", 7) ? path + 7 :
		       !strncasecmp(path, "https://", 8) ? path + 8 : NULL;
		if (!host || strchr(host, '/') || (strcasecmp(host, "127.0.0.1:8080") &&
		    strcasecmp(host, "localhost:8080") && strncasecmp(host, "dash.example", 12)))
			abort();
	}
	if (web_local_path(path) && (path[0] != '/' || path[1] == '/' || path[1] == '\\'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const run_spec[] = { "format=json|csv|kcidb|bmf", NULL };
	static const char *const history_spec[] = {
		"plan", "metric", "variant", "subject", "window=rate|cost", "host", "by",
		"include_flagged=1", NULL,
	};
	struct web_param params[16];
	const char *values[9];
	struct web_buf b = { 0 };
	struct err err;
	char *text = malloc(size + 1), *path, *query, *tok, *save = NULL;
	enum web_route route;
	int64_t id = 0;
	size_t n = 0, i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	path = text;
	query = strchr(text, '\n');
	if (query)
		*query++ = '\0';
	fuzz_guard(path);
	route = web_route(path, &id);
	if (route == WEB_API_RUN || route == WEB_PAGE_RUN || route == WEB_API_BISECT_ID ||
	    route == WEB_PAGE_BISECT_ID || route == WEB_API_BISECT_ID_LOG) {
		char digits[32];

		if (id < 1)
			abort();
		snprintf(digits, sizeof(digits), "%lld%s", (long long)id,
			 route == WEB_API_BISECT_ID_LOG ? "/log" : "");
		if (strlen(path) < strlen(digits) ||
		    strcmp(path + strlen(path) - strlen(digits), digits))
			abort();
	}
	for (tok = query ? strtok_r(query, "&", &save) : NULL; tok && n < 16;
	     tok = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(tok, '=');

		if (eq)
			*eq++ = '\0';
		params[n++] = (struct web_param){ tok, eq };
	}
	if (!web_params_check(params, n, run_spec, values, &err)) {
		if (n && (!values[0] || (strcmp(values[0], "json") && strcmp(values[0], "csv") &&
					 strcmp(values[0], "kcidb") && strcmp(values[0], "bmf"))))
			abort();
	} else if (!strstr(err.msg, "parameter")) {
		abort();
	}
	if (!web_params_check(params, n, history_spec, values, &err)) {
		for (i = 0; i < n; i++)
			if (!params[i].value || !*params[i].value)
				abort();
		if (values[7] && strcmp(values[7], "1"))
			abort();
	} else if (!strstr(err.msg, "parameter")) {
		abort();
	}
	web_buf_html(&b, path);
	for (i = 0; i < n; i++)
		web_buf_html(&b, params[i].value);
	for (i = 0; !b.failed && i < b.len; i++) {
		if (strchr("<>\"'", b.data[i]))
			abort();
		if (b.data[i] == '&' && strncmp(b.data + i, "&amp;", 5) &&
		    strncmp(b.data + i, "&lt;", 4) && strncmp(b.data + i, "&gt;", 4) &&
		    strncmp(b.data + i, "&quot;", 6) && strncmp(b.data + i, "&#39;", 5))
			abort();
	}
	web_buf_release(&b);
	/* the redirect of ?token=: only unreserved bytes, '/' and %XX */
	web_buf_url(&b, path, "/");
	for (i = 0; !b.failed && i < b.len; i++) {
		char c = b.data[i];

		if (c == '%' && (i + 2 >= b.len || !strchr("0123456789ABCDEF", b.data[i + 1]) ||
				 !strchr("0123456789ABCDEF", b.data[i + 2])))
			abort();
		if (!strchr("-._~/%", c) && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9'))
			abort();
	}
	web_buf_release(&b);
	free(text);
	return 0;
}
