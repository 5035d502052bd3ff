/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* texttable.h - plain-text tables for every printer: how wide a string is on a terminal,
 * cells padded to a width, aligned tables, and CSV fields. The one place that decides
 * these, so that `result show`, `result compare`/`history` (lib/report/report_*.c) and the
 * cli/ lists (host, link, plan, run, bisect) line up
 * and quote alike. Prefix tt_ (text table).
 *
 * Contract:
 * - Width: one column per UTF-8 code point (every byte that is not 10xxxxxx), so "µ" and
 *   "±" take one column each. Wide (CJK) and combining characters are not told apart:
 *   what bpflab prints is ASCII names, numbers, "±" and "µ".
 * - Alignment: a right-aligned cell gets its padding on the left (numbers), any other on
 *   the right; a table never pads its last column on the right.
 * - CSV is RFC 4180: a field holding ',', '"', CR or LF is put in double quotes, with
 *   each '"' doubled; any other field is written as it is.
 * - Objects belong to the caller (on the stack, no global state); one object must not be
 *   used by two threads at once. Output goes to a FILE the caller owns; write errors are
 *   left on it for ferror().
 */
#ifndef BPFLAB_TEXTTABLE_H
#define BPFLAB_TEXTTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Columns S (UTF-8, NUL-terminated) takes on a terminal. */
int tt_width(const char *s);

/* A line built piece by piece, then printed without its trailing blanks. Start it as
 * `struct tt_line l = { .buf = NULL };`. On ENOMEM it stops growing and sets OOM (the
 * caller reports it); tt_line_put still prints what it holds. */
struct tt_line {
	char *buf;
	size_t len, cap;
	bool oom;
};

/* Append S; N blanks (none when N <= 0). */
void tt_line_add(struct tt_line *l, const char *s);
void tt_line_spaces(struct tt_line *l, int n);
/* Append S padded to WIDTH columns: blanks before it when RIGHT, after it otherwise. A
 * cell wider than WIDTH is not cut. */
void tt_line_cell(struct tt_line *l, const char *s, int width, bool right);
/* Print the line without trailing blanks and a newline to OUT, and empty it for the next. */
void tt_line_put(struct tt_line *l, FILE *out);
/* Free the buffer; the line can be used again. */
void tt_line_release(struct tt_line *l);

/* A table: rows of cells (copies) printed in columns as wide as their widest cell. */
struct tt_table {
	int n_cols, n_rows, cap;
	char **cells;			/* n_rows * n_cols heap strings, row after row */
	bool *right;			/* right-align column i (numbers) */
	const char *sep;		/* between columns; "  " when NULL */
	bool trim;			/* print each line without its trailing blanks */
};

/* Start a table of N_COLS columns, all left-aligned, separated by two blanks. With HEAD
 * (N_COLS cells) its first row is HEAD, where a leading '>' right-aligns the column and is
 * not printed; with HEAD NULL there is no header row and the caller may set right[]. Set
 * sep and trim after it. Returns 0 or -ENOMEM (nothing to release then). */
int tt_table_init(struct tt_table *t, int n_cols, const char *const *head);
/* Add a row of n_cols cells (copied as they are; NULL prints "-"). Returns 0 or -ENOMEM
 * (the row is not added). */
int tt_table_add(struct tt_table *t, const char *const *cells);
/* Print every row to OUT, each ending in a newline. */
void tt_table_print(const struct tt_table *t, FILE *out);
/* Free the cells; safe on a zeroed table and twice. */
void tt_table_release(struct tt_table *t);

/* Print TEXT to OUT as lines of at most WIDTH columns, broken at blanks (a word longer
 * than WIDTH gets a line of its own), each further line starting with INDENT; a '\n' in
 * TEXT ends a line there. Ends with a newline. */
void tt_wrap(FILE *out, const char *text, int width, const char *indent);

/* Write S (NULL as an empty field) to OUT as one CSV field, quoted as RFC 4180 asks; the
 * separator or line end is the caller's. A field a spreadsheet would run as a formula
 * (tt_csv_is_formula) is quoted with a leading "'": `=1+2` becomes `"'=1+2"`. Every CSV
 * bpflab writes (result show --csv, compare, history, the dashboard's downloads) goes
 * through here (docs/security.md, "CSV"). */
void tt_csv_field(FILE *out, const char *s);
/* True when S is a decimal number: [+-]DIGITS[.DIGITS][e[+-]DIGITS] (a digit at least,
 * before or after the point); "-3.2" and "+1e5" are, "-inf", "-0x1p3" and "" not. */
bool tt_csv_is_number(const char *s);
/* True when S (may be NULL) starts with '=', '+', '-', '@', a tab or a CR and is not a
 * number (tt_csv_is_number): a cell a spreadsheet would take for a formula. */
bool tt_csv_is_formula(const char *s);

#endif
