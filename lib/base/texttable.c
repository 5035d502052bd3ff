// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* texttable.c - see texttable.h. Widths, padded cells, aligned tables and CSV fields for
 * lib/report/report_*.c and the cli/ lists.
 *
 * A table is printed straight to its FILE: blanks (padding, and those of the separator
 * and of cells) are held back until something else follows on the line, so that a
 * trimmed line ends without them and no line has to be built in memory first.
 */
#include "base/texttable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tt_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* ---- lines ---- */

void tt_line_add(struct tt_line *l, const char *s)
{
	size_t n = strlen(s);

	if (l->len + n + 1 > l->cap) {
		size_t cap = (l->len + n + 1) * 2;
		char *buf = realloc(l->buf, cap);

		if (!buf) {
			l->oom = true;
			return;
		}
		l->buf = buf;
		l->cap = cap;
	}
	memcpy(l->buf + l->len, s, n + 1);
	l->len += n;
}

void tt_line_spaces(struct tt_line *l, int n)
{
	while (n-- > 0)
		tt_line_add(l, " ");
}

void tt_line_cell(struct tt_line *l, const char *s, int width, bool right)
{
	int pad = width - tt_width(s);

	if (right)
		tt_line_spaces(l, pad);
	tt_line_add(l, s);
	if (!right)
		tt_line_spaces(l, pad);
}

void tt_line_put(struct tt_line *l, FILE *out)
{
	while (l->len && l->buf[l->len - 1] == ' ')
		l->buf[--l->len] = '\0';
	fprintf(out, "%s\n", l->buf ? l->buf : "");
	l->len = 0;
	if (l->buf)
		l->buf[0] = '\0';
}

void tt_line_release(struct tt_line *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

/* ---- tables ---- */

int tt_table_init(struct tt_table *t, int n_cols, const char *const *head)
{
	const char *cells[n_cols > 0 ? n_cols : 1];
	int i, err;

	memset(t, 0, sizeof(*t));
	t->right = calloc(n_cols > 0 ? n_cols : 1, sizeof(*t->right));
	if (!t->right)
		return -ENOMEM;
	t->n_cols = n_cols;
	if (!head)
		return 0;
	for (i = 0; i < n_cols; i++) {
		t->right[i] = head[i][0] == '>';
		cells[i] = head[i] + t->right[i];
	}
	err = tt_table_add(t, cells);
	if (err)
		tt_table_release(t);
	return err;
}

int tt_table_add(struct tt_table *t, const char *const *cells)
{
	char **row;
	int i;

	if (t->n_rows == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		char **n = realloc(t->cells, (size_t)cap * t->n_cols * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->cells = n;
		t->cap = cap;
	}
	row = t->cells + (size_t)t->n_rows * t->n_cols;
	for (i = 0; i < t->n_cols; i++) {
		row[i] = strdup(cells[i] ? cells[i] : "-");
		if (!row[i]) {
			while (i-- > 0)
				free(row[i]);
			return -ENOMEM;
		}
	}
	t->n_rows++;
	return 0;
}

/* Write S to OUT, adding its blanks to *HELD instead of writing them; held blanks are
 * written first when something else follows. */
static void put_held(FILE *out, const char *s, int *held)
{
	for (; *s; s++) {
		if (*s == ' ') {
			(*held)++;
			continue;
		}
		for (; *held > 0; (*held)--)
			fputc(' ', out);
		fputc(*s, out);
	}
}

void tt_table_print(const struct tt_table *t, FILE *out)
{
	const char *sep = t->sep ? t->sep : "  ";
	int w[t->n_cols > 0 ? t->n_cols : 1], r, c, held;

	for (c = 0; c < t->n_cols; c++) {
		w[c] = 0;
		for (r = 0; r < t->n_rows; r++)
			if (tt_width(t->cells[r * t->n_cols + c]) > w[c])
				w[c] = tt_width(t->cells[r * t->n_cols + c]);
	}
	for (r = 0; r < t->n_rows; r++) {
		held = 0;
		for (c = 0; c < t->n_cols; c++) {
			const char *s = t->cells[r * t->n_cols + c];
			int pad = w[c] - tt_width(s);

			if (c)
				put_held(out, sep, &held);
			if (t->right[c])
				held += pad;
			put_held(out, s, &held);
			if (!t->right[c] && c < t->n_cols - 1)
				held += pad;
		}
		for (; !t->trim && held > 0; held--)
			fputc(' ', out);
		fputc('\n', out);
	}
}

void tt_table_release(struct tt_table *t)
{
	int i;

	for (i = 0; t->cells && i < t->n_rows * t->n_cols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->right);
	memset(t, 0, sizeof(*t));
}

/* ---- CSV ---- */

bool tt_csv_is_number(const char *s)
{
	bool digits = false;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits = true;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits = true;
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return !*s;
}

bool tt_csv_is_formula(const char *s)
{
	return s && *s && strchr("=+-@\t\r", *s) && !tt_csv_is_number(s);
}

void tt_csv_field(FILE *out, const char *s)
{
	bool formula = tt_csv_is_formula(s);

	if (!s)
		return;
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	if (formula)
		fputc('\'', out);	/* a spreadsheet shows the text, runs no formula */
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* ---- wrapped text ---- */

void tt_wrap(FILE *out, const char *text, int width, const char *indent)
{
	int col = 0, iw = tt_width(indent), w;
	const char *p = text, *q;
	bool bol = true;		/* nothing on this line yet but the indent */
	size_t n;

	while (*p) {
		if (*p == '\n') {
			fprintf(out, "\n%s", indent);
			col = iw;
			bol = true;
			p++;
			continue;
		}
		n = strcspn(p, " \n");
		if (!n) {
			p++;
			continue;
		}
		for (w = 0, q = p; q < p + n; q++)
			w += ((unsigned char)*q & 0xc0) != 0x80;
		if (!bol && col + 1 + w > width) {
			fprintf(out, "\n%s", indent);
			col = iw;
			bol = true;
		}
		if (!bol) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, n, out);
		col += w;
		bol = false;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}
