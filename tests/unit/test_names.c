// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_names.c - lib/base/names.c: a word means a name or the only name it starts;
 * an ambiguous prefix lists the candidates in table order; a slip suggests the names
 * it is near. And lib/base/version.c: every binary prints the one VERSION.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/names.h"
#include "base/util.h"
#include "base/version.h"

static const char *const objects[] = { "plan", "host", "run", "result", "bisect", "link",
				       "help", "version", "keygen", "serve" };

static void test_names_match(void **state)
{
	static const char *const cmds[] = { "start", "step", "status", "log", "list", "reset",
					    "run" };

	(void)state;
	assert_int_equal(names_match(objects, ARRAY_SIZE(objects), "run"), 2);
	assert_int_equal(names_match(objects, ARRAY_SIZE(objects), "ru"), 2);
	assert_int_equal(names_match(objects, ARRAY_SIZE(objects), "res"), 3);
	assert_int_equal(names_match(objects, ARRAY_SIZE(objects), "r"), NAMES_AMBIGUOUS);
	assert_int_equal(names_match(objects, ARRAY_SIZE(objects), "h"), NAMES_AMBIGUOUS);
	assert_int_equal(names_match(objects, ARRAY_SIZE(objects), "ho"), 1);
	assert_int_equal(names_match(objects, ARRAY_SIZE(objects), "runs"), NAMES_NONE);
	assert_int_equal(names_match(objects, ARRAY_SIZE(objects), ""), NAMES_NONE);
	/* an exact name wins over the longer names it starts */
	assert_int_equal(names_match(cmds, ARRAY_SIZE(cmds), "st"), NAMES_AMBIGUOUS);
	assert_int_equal(names_match(cmds, ARRAY_SIZE(cmds), "ste"), 1);
	assert_int_equal(names_match(cmds, ARRAY_SIZE(cmds), "l"), NAMES_AMBIGUOUS);
	assert_int_equal(names_match(cmds, ARRAY_SIZE(cmds), "lo"), 3);
}

static void test_names_candidates(void **state)
{
	char buf[128], small[12];

	(void)state;
	assert_int_equal(names_candidates(objects, ARRAY_SIZE(objects), "r", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "'run', 'result'");
	/* slips: a swap, a letter missing, one too many; five letters and more: two */
	assert_int_equal(names_candidates(objects, ARRAY_SIZE(objects), "reslut", buf,
					  sizeof(buf)), 1);
	assert_string_equal(buf, "'result'");
	assert_int_equal(names_candidates(objects, ARRAY_SIZE(objects), "hots", buf, sizeof(buf)),
			 1);
	assert_string_equal(buf, "'host'");
	assert_int_equal(names_candidates(objects, ARRAY_SIZE(objects), "rn", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "'run'");
	assert_int_equal(names_candidates(objects, ARRAY_SIZE(objects), "bisectt", buf,
					  sizeof(buf)), 1);
	assert_string_equal(buf, "'bisect'");
	assert_int_equal(names_candidates(objects, ARRAY_SIZE(objects), "frob", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "");
	/* what does not fit is left out whole */
	assert_int_equal(names_candidates(objects, ARRAY_SIZE(objects), "r", small, sizeof(small)),
			 1);
	assert_string_equal(small, "'run'");
}

/* bpflab, bpflabd and bpflab-agent --version: "NAME VERSION", VERSION the file's */
static void test_names_versions(void **state)
{
	static const char *const bins[] = { "bpflab", "bpflabd", "bpflab-agent" };
	char cmd[512], line[128], want[128], file[64] = "";
	FILE *f;
	size_t i;

	(void)state;
	f = fopen(BPFLAB_SRCDIR "/VERSION", "r");
	assert_non_null(f);
	assert_non_null(fgets(file, sizeof(file), f));
	fclose(f);
	file[strcspn(file, "\n")] = '\0';
	assert_string_equal(bpflab_version, file);
	for (i = 0; i < ARRAY_SIZE(bins); i++) {
		snprintf(cmd, sizeof(cmd), "%s/bin/%s --version", BPFLAB_BUILDDIR, bins[i]);
		f = popen(cmd, "r");
		assert_non_null(f);
		line[0] = '\0';
		assert_non_null(fgets(line, sizeof(line), f));
		assert_int_equal(pclose(f), 0);
		snprintf(want, sizeof(want), "%s %s\n", bins[i], file);
		assert_string_equal(line, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_match),
		cmocka_unit_test(test_names_candidates),
		cmocka_unit_test(test_names_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
