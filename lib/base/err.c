// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* err.c - struct err filled (err.h): the message once, and for a person's input its
 * place. Used by every folder; no state. The bottom of lib/base: it calls nothing of it
 * (util.c calls err_at).
 */
#include "base/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>


void err_clear(struct err *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}

/* Mark a message cut at the size of E's buffer (N: what vsnprintf wanted). */
static void mark_cut(struct err *e, int n)
{
	if (n >= (int)sizeof(e->msg))
		memcpy(e->msg + sizeof(e->msg) - 4, "...", 4);
}

/* E (not NULL) emptied, then its message from FMT and AP. */
static void verr(struct err *e, const char *fmt, va_list ap)
{
	err_clear(e);
	mark_cut(e, vsnprintf(e->msg, sizeof(e->msg), fmt, ap));
}

void err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	verr(e, fmt, ap);
	va_end(ap);
}

void err_vset(struct err *e, const char *fmt, va_list ap)
{
	if (e)
		verr(e, fmt, ap);
}

int err_ret(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	va_start(ap, fmt);
	verr(e, fmt, ap);
	va_end(ap);
	return code;
}

int err_at(struct err *e, const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	int n = 0, m;

	if (!e)
		return -EINVAL;
	err_clear(e);
	e->input = true;
	e->line = line > 0 ? line : 0;
	e->col = line > 0 && col > 0 ? col : 0;
	if (file) {
		snprintf(e->file, sizeof(e->file), "%s", file);
		if (e->col)
			n = snprintf(e->msg, sizeof(e->msg), "%s:%d:%d: ", file, e->line, e->col);
		else if (e->line)
			n = snprintf(e->msg, sizeof(e->msg), "%s:%d: ", file, e->line);
		else
			n = snprintf(e->msg, sizeof(e->msg), "%s: ", file);
		if (n >= (int)sizeof(e->msg)) {
			mark_cut(e, n);
			return -EINVAL;
		}
	}
	va_start(ap, fmt);
	m = vsnprintf(e->msg + n, sizeof(e->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	mark_cut(e, n + m);
	return -EINVAL;
}

void err_prefix(struct err *e, const char *fmt, ...)
{
	char pre[512], old[sizeof(e->msg)];
	va_list ap;
	int n;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	n = snprintf(e->msg, sizeof(e->msg), "%s: %s", pre, old);
	mark_cut(e, n);
}

const char *err_text(const struct err *e, int rc)
{
	if (e && *e->msg)
		return e->msg;
	return strerror(rc < 0 ? -rc : rc);
}
