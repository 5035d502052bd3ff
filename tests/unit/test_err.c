// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_err.c - unit tests for lib/base/err.c (the one error convention,
 * docs/architecture.md "Errors"): messages with and without a place, the input mark the
 * CLI turns into exit 2, a message cut at the buffer, a prefix, NULL tolerated; and the
 * plan's refusals marked as input while a missing plan file or an unreadable object is
 * not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "base/err.h"
#include "plan/objects.h"
#include "plan/plan.h"

static void test_err_set_and_at(void **state)
{
	struct err e;

	(void)state;
	err_set(&e, "cannot open '%s'", "x");
	assert_string_equal(e.msg, "cannot open 'x'");
	assert_false(e.input);
	assert_int_equal(e.line, 0);

	assert_int_equal(err_at(&e, "p.yaml", 3, 7, "unknown key '%s'", "k"), -EINVAL);
	assert_string_equal(e.msg, "p.yaml:3:7: unknown key 'k'");
	assert_true(e.input);
	assert_string_equal(e.file, "p.yaml");
	assert_int_equal(e.line, 3);
	assert_int_equal(e.col, 7);

	err_at(&e, "a.conf", 4, 0, "unknown key 'x'");
	assert_string_equal(e.msg, "a.conf:4: unknown key 'x'");
	assert_int_equal(e.line, 4);
	err_at(&e, "p.yaml", 0, 9, "empty plan");
	assert_string_equal(e.msg, "p.yaml: empty plan");
	assert_int_equal(e.col, 0);	/* no column without a line */
	err_at(&e, NULL, 0, 0, "invalid override 'x'");
	assert_string_equal(e.msg, "invalid override 'x'");
	assert_true(e.input);
	assert_string_equal(e.file, "");

	assert_int_equal(err_ret(&e, -ENOMEM, "out of %s", "memory"), -ENOMEM);
	assert_string_equal(e.msg, "out of memory");
	assert_false(e.input);
	assert_int_equal(err_ret(NULL, -EIO, "x"), -EIO);
	err_set(&e, "plain again");
	assert_false(e.input);		/* a new message forgets the old kind */
}

static void test_err_cut_prefix_null(void **state)
{
	char big[3000];
	struct err e;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	err_at(&e, "f", 1, 1, "%s", big);
	assert_int_equal(strlen(e.msg), sizeof(e.msg) - 1);
	assert_string_equal(e.msg + sizeof(e.msg) - 4, "...");
	assert_true(e.input);

	err_at(&e, "f", 2, 3, "bad");
	err_prefix(&e, "submit %d", 7);
	assert_string_equal(e.msg, "submit 7: f:2:3: bad");
	assert_true(e.input);
	assert_int_equal(e.line, 2);

	err_clear(&e);
	assert_string_equal(err_text(&e, -ENOENT), strerror(ENOENT));
	assert_string_equal(err_text(NULL, -EIO), strerror(EIO));
	err_set(NULL, "nothing");
	err_prefix(NULL, "nothing");
	err_clear(NULL);
	assert_int_equal(err_at(NULL, "f", 1, 1, "x"), -EINVAL);
}

/* The plan library says which of its failures are the person's input. */
static void test_err_plan_kinds(void **state)
{
	static const char bad[] = "name: t\nports: [a]\ncolour: red\n";
	struct plan_objects objs;
	struct plan *p;
	struct err e;

	(void)state;
	p = plan_parse("t.yaml", bad, strlen(bad), NULL, 0, &e);
	assert_null(p);
	assert_int_equal(errno, EINVAL);
	assert_true(e.input);
	assert_string_equal(e.file, "t.yaml");
	assert_int_equal(e.line, 3);
	assert_non_null(strstr(e.msg, "t.yaml:3:1: "));

	p = plan_load("no/such/plan.yaml", NULL, 0, &e);
	assert_null(p);
	assert_int_equal(errno, ENOENT);
	assert_false(e.input);
	assert_string_equal(e.msg, "cannot open plan 'no/such/plan.yaml': No such file or "
			    "directory");

	p = plan_load(BPFLAB_SRCDIR "/plans/quickstart.yaml", NULL, 0, &e);
	if (!p)
		fail_msg("%s", e.msg);
	assert_int_equal(plan_objects_resolve(p, "/nonexistent-bpf-dir", &objs, &e), -ENOENT);
	assert_true(e.input);
	assert_non_null(strstr(e.msg, "cannot open object"));
	assert_int_not_equal(plan_objects_resolve(p, "/dev/null", &objs, &e), 0);
	assert_false(e.input);		/* a device where a file is read: the machine's */
	plan_destroy(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_err_set_and_at),
		cmocka_unit_test(test_err_cut_prefix_null),
		cmocka_unit_test(test_err_plan_kinds),
	};

	return cmocka_run_group_tests_name("err", tests, NULL, NULL);
}
