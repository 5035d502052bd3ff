// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_texttable.c - unit tests for lib/base/texttable.c: display widths of UTF-8 text, padded
 * cells, aligned and trimmed tables, and RFC 4180 CSV fields. Every expected text is
 * worked out by hand ("µ" is 2 bytes and "±" 2 bytes, one column each). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/texttable.h"

/* Output written to a memory stream, read back as a heap string. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *capture_start(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	return c->f;
}

static char *capture_end(struct capture *c)
{
	assert_int_equal(fclose(c->f), 0);
	return c->buf;
}

static void test_texttable_width(void **state)
{
	assert_int_equal(tt_width(""), 0);
	assert_int_equal(tt_width("abc"), 3);
	assert_int_equal(strlen("µs"), 3);
	assert_int_equal(tt_width("µs"), 2);
	assert_int_equal(tt_width("±"), 1);
	assert_int_equal(strlen("1.5 ± 0.2"), 10);
	assert_int_equal(tt_width("1.5 ± 0.2"), 9);
	assert_int_equal(tt_width("€"), 1);		/* 3 bytes */
	assert_int_equal(tt_width("😀"), 1);		/* 4 bytes: a code point, not 2 columns */
}

static void test_texttable_line_cells(void **state)
{
	struct tt_line l = { .buf = NULL };
	struct capture c;
	FILE *f = capture_start(&c);
	char *out;

	/* "µs" is 2 columns: 3 blanks before it right-aligned in 5, after it left-aligned */
	tt_line_cell(&l, "µs", 5, true);
	tt_line_add(&l, "|");
	tt_line_cell(&l, "µs", 5, false);
	tt_line_add(&l, "|");
	tt_line_cell(&l, "toolong", 3, true);	/* not cut */
	tt_line_put(&l, f);
	/* trailing blanks go, inner ones stay; the line is empty again after a put */
	tt_line_cell(&l, "a ± b", 8, false);
	tt_line_spaces(&l, 4);
	tt_line_put(&l, f);
	tt_line_put(&l, f);
	assert_false(l.oom);
	tt_line_release(&l);
	tt_line_release(&l);
	out = capture_end(&c);
	assert_string_equal(out, "   µs|µs   |toolong\n"
				 "a ± b\n"
				 "\n");
	free(out);
}

static void test_texttable_aligned(void **state)
{
	static const char *const head[] = { "name", ">mean ± sd", "unit" };
	const char *r1[] = { "a", "1.5 ± 0.2", "µs" };
	const char *r2[] = { "long", "10 ± 1", NULL };
	const char *r3[] = { ">x", "±", "" };
	struct tt_table t = { .cells = NULL };
	struct capture c;
	FILE *f = capture_start(&c);
	char *out;

	assert_int_equal(tt_table_init(&t, 3, head), 0);
	assert_true(t.right[1]);
	assert_false(t.right[0]);
	assert_int_equal(tt_table_add(&t, r1), 0);
	assert_int_equal(tt_table_add(&t, r2), 0);
	assert_int_equal(tt_table_add(&t, r3), 0);
	tt_table_print(&t, f);
	tt_table_release(&t);
	tt_table_release(&t);
	out = capture_end(&c);
	/* widths 4, 9 ("mean ± sd", "1.5 ± 0.2"), 4; the header's '>' is not printed, a
	 * cell's is; NULL prints "-"; the last column is not padded, and an empty last cell
	 * keeps the separator's blanks when not trimmed */
	assert_string_equal(out, "name  mean ± sd  unit\n"
				 "a     1.5 ± 0.2  µs\n"
				 "long     10 ± 1  -\n"
				 ">x            ±  \n");
	free(out);
}

static void test_texttable_trimmed(void **state)
{
	const char *r1[] = { "Version", "Test", "x" };
	const char *r2[] = { "v1", "", "" };
	const char *r3[] = { "v2", "µ", "9.1M*" };
	struct tt_table t;
	struct capture c;
	FILE *f = capture_start(&c);
	char *out;

	/* no header row; separator " | "; widths 7, 4, 5 */
	assert_int_equal(tt_table_init(&t, 3, NULL), 0);
	t.sep = " | ";
	assert_int_equal(tt_table_add(&t, r1), 0);
	assert_int_equal(tt_table_add(&t, r2), 0);
	assert_int_equal(tt_table_add(&t, r3), 0);
	tt_table_print(&t, f);
	t.trim = true;
	tt_table_print(&t, f);
	t.right[2] = true;
	tt_table_print(&t, f);
	tt_table_release(&t);
	out = capture_end(&c);
	assert_string_equal(out,
			    /* untrimmed: the blanks after the last '|' stay */
			    "Version | Test | x\n"
			    "v1      |      | \n"
			    "v2      | µ    | 9.1M*\n"
			    /* trimmed */
			    "Version | Test | x\n"
			    "v1      |      |\n"
			    "v2      | µ    | 9.1M*\n"
			    /* trimmed, last column right-aligned: padded on the left */
			    "Version | Test |     x\n"
			    "v1      |      |\n"
			    "v2      | µ    | 9.1M*\n");
	free(out);
}

static void test_texttable_csv(void **state)
{
	static const char *const in[] = {
		"plain", "", "a,b", "say \"hi\"", "cr\r", "lf\n", "µs ± 1", "\"", " x ",
	};
	struct capture c;
	FILE *f = capture_start(&c);
	char *out;
	size_t i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		tt_csv_field(f, in[i]);
		fputc('|', f);
	}
	tt_csv_field(f, NULL);
	fputc('|', f);
	out = capture_end(&c);
	/* quoted only for , " CR LF (RFC 4180), a '"' doubled; NULL is an empty field */
	assert_string_equal(out, "plain||\"a,b\"|\"say \"\"hi\"\"\"|\"cr\r\"|\"lf\n\"|µs ± 1|"
				 "\"\"\"\"| x ||");
	free(out);
}

/* Notes under a table: broken at blanks to a width, continued under an indent; a word
 * longer than the width keeps a line; a newline in the text starts one; µ and ± one
 * column each. */
static void test_texttable_wrap(void **state)
{
	struct capture c;
	FILE *f;
	char *out;

	(void)state;
	f = capture_start(&c);
	tt_wrap(f, "only in 3: port.rx_pps pass a, port.rx_pps pass b, gen.tx_pps pass a", 30,
		"  ");
	tt_wrap(f, "short", 30, "  ");
	tt_wrap(f, "a verylongwordthatdoesnotfitatall b", 10, "    ");
	tt_wrap(f, "µµµµ ±±±± cc\nnext  line", 9, "");
	out = capture_end(&c);
	assert_string_equal(out,
		"only in 3: port.rx_pps pass a,\n"
		"  port.rx_pps pass b,\n"
		"  gen.tx_pps pass a\n"
		"short\n"
		"a\n"
		"    verylongwordthatdoesnotfitatall\n"
		"    b\n"
		"µµµµ ±±±±\n"
		"cc\n"
		"next line\n");
	free(out);
}

/* Cells a spreadsheet would run as formulas get a leading "'" inside RFC 4180 quotes;
 * numbers, also negative ones, stay numbers (docs/security.md, "CSV"). */
static void test_texttable_csv_formula(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "=1+2", "\"'=1+2\"" }, { "+cmd", "\"'+cmd\"" }, { "-x", "\"'-x\"" },
		{ "@SUM(A1)", "\"'@SUM(A1)\"" }, { "\tx", "\"'\tx\"" }, { "\r=1", "\"'\r=1\"" },
		{ "=a,\"b\"", "\"'=a,\"\"b\"\"\"" }, { "-", "\"'-\"" }, { "+", "\"'+\"" },
		{ "-inf", "\"'-inf\"" }, { "-0x1p3", "\"'-0x1p3\"" }, { "-1-1", "\"'-1-1\"" },
		{ "-3.2", "-3.2" }, { "+5", "+5" }, { "-.5", "-.5" }, { "-7.", "-7." },
		{ "-1e-05", "-1e-05" }, { "+2E+10", "+2E+10" }, { "-1e", "\"'-1e\"" },
		{ "a=b", "a=b" }, { " =1", " =1" }, { "12", "12" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct capture c;
		FILE *f = capture_start(&c);
		char *out;

		tt_csv_field(f, cases[i].in);
		out = capture_end(&c);
		if (strcmp(out, cases[i].out))
			fail_msg("'%s': got '%s', want '%s'", cases[i].in, out, cases[i].out);
		free(out);
	}
	assert_true(tt_csv_is_number("0"));
	assert_false(tt_csv_is_number(""));
	assert_false(tt_csv_is_number("."));
	assert_false(tt_csv_is_formula(NULL));
	assert_false(tt_csv_is_formula(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_texttable_width),
		cmocka_unit_test(test_texttable_line_cells),
		cmocka_unit_test(test_texttable_aligned),
		cmocka_unit_test(test_texttable_trimmed),
		cmocka_unit_test(test_texttable_csv),
		cmocka_unit_test(test_texttable_wrap),
		cmocka_unit_test(test_texttable_csv_formula),
	};

	return cmocka_run_group_tests_name("texttable", tests, NULL, NULL);
}
