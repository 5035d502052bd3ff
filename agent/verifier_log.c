// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* verifier_log.c - see verifier_log.h: the summary lines of a verifier log, and the last
 * lines of a refused program's log. Plain scanning of bounded bytes; no allocation. */
#include "verifier_log.h"

#include <errno.h>
#include <string.h>

/* A decimal number at *P (bounded by END), into *V; advances *P. False when there is none
 * or it overflows. */
static bool number(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0;

	if (s >= end || *s < '0' || *s > '9')
		return false;
	while (s < end && *s >= '0' && *s <= '9') {
		if (n > (UINT64_MAX - 9) / 10)
			return false;
		n = n * 10 + (uint64_t)(*s - '0');
		s++;
	}
	*p = s;
	*v = n;
	return true;
}

/* Whether [P, END) starts with WORD; advances *P past it. */
static bool word(const char **p, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - *p) < n || memcmp(*p, w, n))
		return false;
	*p += n;
	return true;
}

/* "processed N insns (limit L) max_states_per_insn M total_states T peak_states P
 * mark_read R" (the limit and the states are absent on kernels before 5.2: then 0). */
static bool processed_line(const char *p, const char *end, struct verifier_log_stats *s)
{
	struct verifier_log_stats t = { .has_processed = true };

	if (!word(&p, end, "processed ") || !number(&p, end, &t.processed_insns) ||
	    !word(&p, end, " insns"))
		return false;
	if (word(&p, end, " (limit ") && (!number(&p, end, &t.insn_limit) || !word(&p, end, ")")))
		return false;
	if (word(&p, end, " max_states_per_insn ") && !number(&p, end, &t.max_states_per_insn))
		return false;
	if (word(&p, end, " total_states ") && !number(&p, end, &t.total_states))
		return false;
	if (word(&p, end, " peak_states ") && !number(&p, end, &t.peak_states))
		return false;
	if (word(&p, end, " mark_read ") && !number(&p, end, &t.mark_read))
		return false;
	t.has_time = s->has_time;
	t.time_us = s->time_us;
	*s = t;
	return true;
}

int verifier_log_parse(const char *log, size_t len, struct verifier_log_stats *out)
{
	const char *end = log ? memchr(log, '\0', len) : NULL;
	const char *p = log, *nl;

	memset(out, 0, sizeof(*out));
	if (!log)
		return -ENOENT;
	if (!end)
		end = log + len;
	for (; p < end; p = nl + 1) {
		const char *q = p;
		uint64_t v;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (word(&q, nl, "verification time ") && number(&q, nl, &v) &&
		    word(&q, nl, " usec")) {
			out->has_time = true;
			out->time_us = v;
		} else {
			processed_line(p, nl, out);	/* the last one wins */
		}
	}
	return out->has_processed ? 0 : -ENOENT;
}

size_t verifier_log_tail(const char *log, size_t len, int n_lines, char *out, size_t out_len)
{
	const char *end = log ? memchr(log, '\0', len) : NULL;
	const char *start, *p;
	size_t o = 0;
	int n = 0;

	if (!out_len)
		return 0;
	out[0] = '\0';
	if (!log || n_lines <= 0)
		return 0;
	if (!end)
		end = log + len;
	/* back from the end over N_LINES non-empty lines */
	p = end;
	while (p > log && n < n_lines) {
		const char *e = p;

		while (e > log && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' '))
			e--;
		if (e == log)
			break;
		p = e;
		while (p > log && p[-1] != '\n')
			p--;
		n++;
	}
	start = p;
	for (p = start; p < end && o + 1 < out_len; p++) {
		char ch = *p;

		if (ch == '\n') {
			while (p + 1 < end && (p[1] == '\n' || p[1] == '\r'))
				p++;
			if (p + 1 >= end)
				break;
			if (o + 4 >= out_len)
				break;
			memcpy(out + o, " | ", 3);
			o += 3;
			continue;
		}
		out[o++] = (unsigned char)ch < 0x20 || ch == 0x7f ? '?' : ch;
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	return o;
}
