// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_paths.c - unit tests for lib/base/paths.c: the BPF and plan directories found
 * from an executable's place in a build tree, in an installed PREFIX (bin and sbin), the
 * build tree winning over an installed place beside it, and nothing found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"

struct tree {
	char root[64];
};

static void mkdirs(const char *root, const char *rel)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static int tree_setup(void **state)
{
	static struct tree t;

	snprintf(t.root, sizeof(t.root), "/tmp/test_paths.XXXXXX");
	if (!mkdtemp(t.root))
		return -1;
	*state = &t;
	return 0;
}

static int tree_teardown(void **state)
{
	struct tree *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	return system(cmd) ? -1 : 0;
}

/* assert that paths_find_from(ROOT/EXE, KIND) is ROOT/WANT (resolved) */
static void expect_found(const char *root, const char *exe, enum paths_kind kind,
			 const char *want)
{
	char e[PATH_MAX], w[PATH_MAX], *rw, *got;

	snprintf(e, sizeof(e), "%s/%s", root, exe);
	snprintf(w, sizeof(w), "%s/%s", root, want);
	rw = realpath(w, NULL);
	assert_non_null(rw);
	got = paths_find_from(e, kind);
	assert_non_null(got);
	assert_string_equal(got, rw);
	free(got);
	free(rw);
}

static void test_paths_build_tree(void **state)
{
	struct tree *t = *state;

	mkdirs(t->root, "src/build/bin");
	mkdirs(t->root, "src/build/bpf");
	mkdirs(t->root, "src/plans");
	expect_found(t->root, "src/build/bin/bpflab", PATHS_BPF, "src/build/bpf");
	expect_found(t->root, "src/build/bin/bpflab-agent", PATHS_PLANS, "src/plans");
}

static void test_paths_installed(void **state)
{
	struct tree *t = *state;

	mkdirs(t->root, "usr/bin");
	mkdirs(t->root, "usr/sbin");
	mkdirs(t->root, "usr/lib/bpflab/bpf");
	mkdirs(t->root, "usr/share/bpflab/plans");
	expect_found(t->root, "usr/bin/bpflab", PATHS_BPF, "usr/lib/bpflab/bpf");
	expect_found(t->root, "usr/sbin/bpflab-agent", PATHS_BPF, "usr/lib/bpflab/bpf");
	expect_found(t->root, "usr/bin/bpflab", PATHS_PLANS, "usr/share/bpflab/plans");
	/* a build tree's bpf/ beside the installed place wins: the binary next to it is
	 * the one just built */
	mkdirs(t->root, "usr/bpf");
	expect_found(t->root, "usr/bin/bpflab", PATHS_BPF, "usr/bpf");
}

static void test_paths_missing(void **state)
{
	struct tree *t = *state;
	char exe[PATH_MAX];

	mkdirs(t->root, "opt/bin");
	snprintf(exe, sizeof(exe), "%s/opt/bin/bpflab", t->root);
	errno = 0;
	assert_null(paths_find_from(exe, PATHS_BPF));
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_null(paths_find_from("bpflab", PATHS_BPF));
	assert_int_equal(errno, EINVAL);
	assert_null(paths_find_from(NULL, PATHS_PLANS));
	assert_null(paths_find_from(exe, (enum paths_kind)7));
}

static void test_paths_self(void **state)
{
	/* this test binary is build/tests/test_paths: build/bpf is the build tree's */
	char *got = paths_find(PATHS_BPF);

	assert_non_null(got);
	assert_string_equal(got, BPFLAB_BUILDDIR "/bpf");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_build_tree),
		cmocka_unit_test(test_paths_installed),
		cmocka_unit_test(test_paths_missing),
		cmocka_unit_test(test_paths_self),
	};

	return cmocka_run_group_tests_name("paths", tests, tree_setup, tree_teardown);
}
