// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* kernel_list.c - see kernel_list.h. Lines of any length (a long comment is still one
 * comment); names checked byte by byte. Called by cli/bisect.c (kernel_list_parse) and
 * agent/provider.c (kernel_list_scan). */
#include "base/kernel_list.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* Whether the N bytes at S are a name of printable ASCII (the default of name_ok). */
static bool printable_name(const char *s, size_t n)
{
	size_t i;

	if (!n || n > KERNEL_LIST_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return false;
	return true;
}

/* Whether NAMES holds the N bytes at S. */
static bool listed(const json_t *names, const char *s, size_t n)
{
	const json_t *k;
	size_t i;

	json_array_foreach(names, i, k)
		if (json_string_length(k) == n && !memcmp(json_string_value(k), s, n))
			return true;
	return false;
}

/* ERR gets "WHAT:LINE: " (or "WHAT: ") and the message of FMT, as input; returns E. */
static int refuse(const struct kernel_list_opts *o, int line, struct err *err, int e,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int refuse(const struct kernel_list_opts *o, int line, struct err *err, int e,
		  const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_at(err, o->what, o->line_numbers ? line : 0, 0, "%s", msg);
	return e;
}

int kernel_list_scan(const char *text, size_t len, const struct kernel_list_opts *opts,
		     json_t *names, struct err *err)
{
	bool (*name_ok)(const char *, size_t) = opts->name_ok ? opts->name_ok : printable_name;
	const char *ends = opts->comments ? " \t\r#" : " \t\r";
	size_t pos = 0;
	int lineno = 0;

	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos), *w;
		size_t ll = nl ? (size_t)(nl - line) : len - pos, lead, n;

		pos += ll + 1;
		lineno++;
		if (memchr(line, '\0', ll))
			return refuse(opts, lineno, err, -EINVAL,
				      "a NUL byte: not a text file");
		for (lead = 0; lead < ll && (line[lead] == ' ' || line[lead] == '\t'); lead++)
			;
		w = line + lead;
		for (n = 0; lead + n < ll && !strchr(ends, w[n]); n++)
			;
		if (!n)
			continue;	/* blank or a comment */
		if (!name_ok(w, n))
			return refuse(opts, lineno, err, -EINVAL, "'%.*s' is not %s",
				      n > 64 ? 64 : (int)n, w, opts->name_is);
		if (listed(names, w, n)) {
			if (opts->drop_repeats)
				continue;
			return refuse(opts, lineno, err, -EINVAL, "'%.*s' is listed twice",
				      (int)n, w);
		}
		if (json_array_size(names) >= opts->max_names)
			return refuse(opts, lineno, err, opts->too_many,
				      "more than %zu kernels", opts->max_names);
		if (json_array_append_new(names, json_stringn(w, n))) {
			err_set(err, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

json_t *kernel_list_parse(const char *text, size_t len, const char *file, struct err *err)
{
	const struct kernel_list_opts opts = {
		.what = file,
		.line_numbers = true,
		.comments = true,
		.name_is = "a kernel release or commit id (1 to " STR(KERNEL_LIST_NAME_MAX)
			   " printable ASCII characters)",
		.max_names = KERNEL_LIST_MAX,
		.too_many = -EINVAL,
	};
	json_t *out = json_array();
	int e;

	e = -ENOMEM;
	if (out)
		e = kernel_list_scan(text, len, &opts, out, err);
	else
		err_set(err, "out of memory");
	if (e) {
		json_decref(out);
		errno = -e;
		return NULL;
	}
	return out;
}
