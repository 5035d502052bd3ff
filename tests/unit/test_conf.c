// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_conf.c - unit tests for lib/base/conf.c: KEY = VALUE files checked against a
 * getopt table (comments, blanks, yes/no options, errors at FILE:LINE), conf_argv()
 * putting the file before the command line so that flags win, and conf_apply_args()
 * finding --config in a daemon's arguments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/conf.h"

static const struct option keys[] = {
	{ "agents", required_argument, NULL, 'a' },
	{ "db", required_argument, NULL, 'd' },
	{ "http-host", required_argument, NULL, 'N' },
	{ "plaintext", no_argument, NULL, 'P' },
	{ "config", required_argument, NULL, 'C' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static struct conf *parse_ok(const char *text)
{
	struct conf *c = NULL;
	struct err why = { 0 };

	assert_int_equal(conf_parse("t.conf", text, strlen(text), keys, &c, &why), 0);
	assert_non_null(c);
	return c;
}

static void expect_error_n(const char *text, size_t len, const char *want)
{
	struct conf *c = (struct conf *)1;
	struct err why = { 0 };

	assert_int_equal(conf_parse("t.conf", text, len, keys, &c, &why), -EINVAL);
	assert_null(c);
	assert_string_equal(why.msg, want);
}

static void expect_error(const char *text, const char *want)
{
	expect_error_n(text, strlen(text), want);
}

static void test_conf_parse(void **state)
{
	struct conf *c = parse_ok("# a comment\n\n  agents = tcp://0.0.0.0:5555  \r\n"
				  "db=/var/lib/bpflab/bpflab.db\n\tplaintext = yes\n"
				  "plaintext = no\nhttp-host = a b # not a comment\n");

	assert_int_equal(c->n, 4);
	assert_string_equal(c->e[0].opt->name, "agents");
	assert_string_equal(c->e[0].value, "tcp://0.0.0.0:5555");
	assert_int_equal(c->e[0].line, 3);
	assert_string_equal(c->e[1].value, "/var/lib/bpflab/bpflab.db");
	assert_string_equal(c->e[2].opt->name, "plaintext");
	assert_null(c->e[2].value);
	assert_int_equal(c->e[2].line, 5);
	assert_string_equal(c->e[3].value, "a b # not a comment");
	assert_int_equal(c->e[3].line, 7);
	conf_destroy(&c);
	assert_null(c);
	conf_destroy(&c);
	conf_destroy(NULL);
	c = parse_ok("");
	assert_int_equal(c->n, 0);
	conf_destroy(&c);
}

static void test_conf_errors(void **state)
{
	expect_error("db = x\nfrob = 1\n", "t.conf:2: unknown key 'frob'");
	expect_error("agents\n", "t.conf:1: expected 'KEY = VALUE', got 'agents'");
	expect_error("\n\ndb =   \n", "t.conf:3: 'db' needs a value");
	expect_error("plaintext = maybe\n", "t.conf:1: 'plaintext' takes yes or no, not 'maybe'");
	expect_error("--db = x\n", "t.conf:1: unknown key '--db'");
	expect_error_n("db = a\0b\n", 9, "t.conf:1: a NUL byte");
}

static void test_conf_argv(void **state)
{
	char *argv[] = { "bpflabd", "--db", "flag.db", "-v", NULL }, **av = NULL;
	struct conf *c = parse_ok("db = file.db\nplaintext = yes\n");
	int ac = 0, opt;
	const char *db = NULL;
	int plain = 0;

	assert_int_equal(conf_argv(c, 4, argv, &ac, &av), 0);
	assert_int_equal(ac, 6);
	assert_string_equal(av[0], "bpflabd");
	assert_string_equal(av[1], "--db=file.db");
	assert_string_equal(av[2], "--plaintext");
	assert_string_equal(av[3], "--db");
	assert_null(av[6]);
	/* getopt reads the file first: the flag's --db wins */
	optind = 1;
	while ((opt = getopt_long(ac, av, "v", keys, NULL)) != -1) {
		if (opt == 'd')
			db = optarg;
		if (opt == 'P')
			plain = 1;
	}
	assert_string_equal(db, "flag.db");
	assert_true(plain);
	free(av);
	conf_destroy(&c);
}

static void test_conf_apply_args(void **state)
{
	char path[] = "/tmp/test_conf.XXXXXX", arg[64];
	char *argv[] = { "bpflabd", "--config", path, "--agents", "ipc:///x", NULL };
	char **av, **block = NULL;
	struct conf *c = NULL;
	struct err why = { 0 };
	int fd = mkstemp(path), ac = 5;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "db = a.db\n", 10), 10);
	av = argv;
	assert_int_equal(conf_apply_args(&ac, &av, keys, &c, &block, &why), 0);
	assert_int_equal(ac, 6);
	assert_ptr_equal(av, block);
	assert_string_equal(av[1], "--db=a.db");
	assert_string_equal(av[2], "--config");
	free(block);
	conf_destroy(&c);

	/* "config" and "help" are not for a file */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, "db = a\nconfig = b\n", 18, 0), 18);
	av = argv;
	ac = 5;
	assert_int_equal(conf_apply_args(&ac, &av, keys, &c, &block, &why), -EINVAL);
	snprintf(arg, sizeof(arg), "%s:2: 'config' cannot be set in a file", path);
	assert_string_equal(why.msg, arg);
	assert_ptr_equal(av, argv);
	assert_null(c);
	close(fd);
	unlink(path);

	/* a missing file, and no --config at all */
	assert_int_equal(conf_apply_args(&ac, &av, keys, &c, &block, &why), -ENOENT);
	ac = 1;
	assert_int_equal(conf_apply_args(&ac, &av, keys, &c, &block, &why), 0);
	assert_null(c);
	assert_null(block);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_parse),
		cmocka_unit_test(test_conf_errors),
		cmocka_unit_test(test_conf_argv),
		cmocka_unit_test(test_conf_apply_args),
	};

	return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
