// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* ascii.c - `--ascii`: bpflab's text in plain ASCII, for mail clients and terminals that
 * mangle UTF-8. stdout is replaced by a glibc cookie stream that writes through to the
 * original one, with the few non-ASCII characters the printers use spelled out ("±"
 * -> "+-", "µ" -> "u", "×" -> "x", "→" -> "->", "…" -> "...") and any other as "?".
 * JSON (-j) passes through untouched: it is data, not text. Main thread only.
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static FILE *real_out;
static const bool *json_mode;		/* cli.json, read at each write */
static unsigned char pend[4];		/* an incomplete UTF-8 sequence, across writes */
static size_t npend;

static const struct {
	const char *utf8, *ascii;
} spell[] = {
	{ "\xc2\xb1", "+-" }, { "\xc2\xb5", "u" }, { "\xce\xbc", "u" }, { "\xc3\x97", "x" },
	{ "\xe2\x86\x92", "->" }, { "\xe2\x80\xa6", "..." }, { "\xe2\x80\x94", "-" },
	{ "\xe2\x80\x93", "-" }, { "\xc2\xb0", "deg" },
};

/* Bytes in the UTF-8 sequence that starts with C (1 for a stray continuation byte). */
static size_t seq_len(unsigned char c)
{
	if (c >= 0xf0)
		return 4;
	if (c >= 0xe0)
		return 3;
	if (c >= 0xc0)
		return 2;
	return 1;
}

static void put_seq(const unsigned char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(spell) / sizeof(spell[0]); i++)
		if (strlen(spell[i].utf8) == n && !memcmp(spell[i].utf8, s, n)) {
			fputs(spell[i].ascii, real_out);
			return;
		}
	fputc('?', real_out);
}

static ssize_t ascii_write(void *cookie, const char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, n;

	(void)cookie;
	if (*json_mode)
		return (ssize_t)fwrite(buf, 1, size, real_out);
	while (i < size) {
		if (npend) {
			pend[npend++] = p[i++];
			if (npend == seq_len(pend[0]) || npend == sizeof(pend)) {
				put_seq(pend, npend);
				npend = 0;
			}
			continue;
		}
		if (p[i] < 0x80) {
			n = i;
			while (n < size && p[n] < 0x80)
				n++;
			fwrite(p + i, 1, n - i, real_out);
			i = n;
			continue;
		}
		pend[0] = p[i++];
		npend = 1;
		if (seq_len(pend[0]) == 1) {
			put_seq(pend, 1);
			npend = 0;
		}
	}
	return ferror(real_out) ? -1 : (ssize_t)size;
}

static int ascii_close(void *cookie)
{
	(void)cookie;
	if (npend)
		put_seq(pend, npend);
	npend = 0;
	return fflush(real_out) ? -1 : 0;
}

int cli_ascii_stdout(const bool *json)
{
	static const cookie_io_functions_t io = { .write = ascii_write, .close = ascii_close };
	FILE *f;

	if (real_out)
		return 0;
	f = fopencookie(NULL, "w", io);
	if (!f)
		return -errno;
	json_mode = json;
	fflush(stdout);
	real_out = stdout;
	stdout = f;
	return 0;
}

void cli_ascii_close(void)
{
	if (!real_out)
		return;
	fclose(stdout);
	stdout = real_out;
	real_out = NULL;
}
