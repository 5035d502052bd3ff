// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_kernel_list.c - unit tests for lib/base/kernel_list.c, the --kernels FILE of
 * `bpflab bisect start` (docs/bisect.md), including what cli/bisect.c's fgets loop got
 * wrong before it moved there (tests/fuzz/fuzz_kernel_list.c checks the rest), and the
 * scanner's other options, those of a kernel provider's list (agent/provider.c; its
 * own tests are in test_agent_provider.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kernel_list.h"
#include "helpers.h"

static json_t *parse(const char *text, size_t len, struct err *err)
{
	return kernel_list_parse(text, len, "k.txt", err);
}

static void test_kernel_list_ok(void **state)
{
	const char *text = "# oldest first\n"
			   "6.1.0-47-cloud-amd64\n"
			   "\t6.1.0-53-cloud-amd64   # the suspect\r\n"
			   "\n"
			   "v6.12#comment\n"
			   "3f2a9c1 fix xdp";
	struct err err;
	json_t *k = parse(text, strlen(text), &err);

	assert_non_null(k);
	assert_int_equal(json_array_size(k), 4);
	assert_string_equal(json_string_value(json_array_get(k, 1)), "6.1.0-53-cloud-amd64");
	assert_string_equal(json_string_value(json_array_get(k, 2)), "v6.12");
	assert_string_equal(json_string_value(json_array_get(k, 3)), "3f2a9c1");
	json_decref(k);

	k = parse("", 0, &err);
	assert_non_null(k);
	assert_int_equal(json_array_size(k), 0);
	json_decref(k);
}

static void test_kernel_list_bad(void **state)
{
	struct err err;
	char *text;
	json_t *k;

	/* a comment longer than fgets' 256 bytes: its tail became a "kernel" */
	assert_true(asprintf(&text, "# %0300d 6.0\n6.1\n6.2\n", 0) > 0);
	k = parse(text, strlen(text), &err);
	free(text);
	assert_non_null(k);
	assert_int_equal(json_array_size(k), 2);
	assert_string_equal(json_string_value(json_array_get(k, 0)), "6.1");
	json_decref(k);

	/* a name twice: the session refused it later without saying which */
	assert_null(parse("6.1\n6.2\n 6.1\n", 13, &err));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.msg, "k.txt:3: '6.1' is listed twice");

	/* not UTF-8: json_string() gave NULL and the name was dropped silently */
	assert_null(parse("6.1\ncaf\xe9\n", 9, &err));
	assert_contains(err.msg, "k.txt:2: 'caf\xe9' is not a kernel release or commit id");

	/* a NUL byte cut the line short */
	assert_null(parse("6.1\0-rc\n", 8, &err));
	assert_string_equal(err.msg, "k.txt:1: a NUL byte: not a text file");

	/* a name too long for a session */
	assert_true(asprintf(&text, "6.%0250d\n", 1) > 0);
	assert_null(parse(text, strlen(text), &err));
	free(text);
	assert_contains(err.msg, "k.txt:1: '6.000");
}

static void test_kernel_list_max(void **state)
{
	size_t len = 0;
	char *text = NULL;
	struct err err;
	FILE *f = open_memstream(&text, &len);
	json_t *k;
	int i;

	for (i = 0; i <= KERNEL_LIST_MAX; i++)
		fprintf(f, "6.%d\n", i);
	fclose(f);
	k = parse(text, len, &err);
	assert_null(k);
	assert_string_equal(err.msg, "k.txt:1025: more than 1024 kernels");
	k = parse(text, len - strlen("6.1024\n"), &err);
	assert_non_null(k);
	assert_int_equal(json_array_size(k), KERNEL_LIST_MAX);
	json_decref(k);
	free(text);
}

/* Whether the N bytes at S are digits (a name_ok of the test's own). */
static bool digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

/* kernel_list_scan with the other options (those of agent/provider.c): names appended
 * to those already there, a repeat of any dropped, '#' part of a word, the caller's
 * name check, limit and errno, messages without a line number. */
static void test_kernel_list_scan(void **state)
{
	const struct kernel_list_opts opts = {
		.what = "list", .drop_repeats = true, .name_ok = digits, .name_is = "a number",
		.max_names = 3, .too_many = -E2BIG,
	};
	json_t *k = json_pack("[s]", "1");
	struct err err = { 0 };

	assert_non_null(k);
	assert_int_equal(kernel_list_scan("2\n1\n\t2 x\r\n\n", 11, &opts, k, &err),
			 0);
	assert_int_equal(json_array_size(k), 2);
	assert_string_equal(json_string_value(json_array_get(k, 1)), "2");
	assert_int_equal(kernel_list_scan("3#x\n", 4, &opts, k, &err), -EINVAL);
	assert_string_equal(err.msg, "list: '3#x' is not a number");
	/* the lines before the refused one stay appended */
	assert_int_equal(kernel_list_scan("3\n2\n4\n", 6, &opts, k, &err), -E2BIG);
	assert_string_equal(err.msg, "list: more than 3 kernels");
	assert_int_equal(json_array_size(k), 3);
	assert_string_equal(json_string_value(json_array_get(k, 2)), "3");
	json_decref(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_list_ok),
		cmocka_unit_test(test_kernel_list_bad),
		cmocka_unit_test(test_kernel_list_max),
		cmocka_unit_test(test_kernel_list_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
