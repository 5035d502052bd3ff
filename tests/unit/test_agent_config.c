// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_config.c - unit tests for agent/config.c, the agent's --config file
 * (docs/agent.md): labels and the kernel provider read, every refusal with
 * FILE:LINE:COLUMN, the bound on nesting, and what tests/fuzz/fuzz_agent_config.c
 * checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "helpers.h"
#include "base/util.h"

struct cfg {
	struct inventory_pair *labels;
	int n_labels;
	struct provider_config pc;
	struct err why;
};

static int parse(struct cfg *c, const char *text)
{
	return agent_config_parse("a.yaml", text, strlen(text), &c->labels, &c->n_labels,
				  &c->pc, &c->why);
}

static void release(struct cfg *c)
{
	int i;

	for (i = 0; i < c->n_labels; i++)
		inventory_pair_release(&c->labels[i]);
	free(c->labels);
	provider_config_release(&c->pc);
	memset(c, 0, sizeof(*c));
}

static void test_config_ok(void **state)
{
	struct cfg c = { 0 };

	assert_int_equal(parse(&c, "labels: {rack: r3, nic: cx6}\n"
				   "kernel_provider:\n"
				   "  command: [/bin/sh, -c, 'exit 0']\n"
				   "  list_timeout: 10\n"
				   "  boot_timeout: 300\n"), 0);
	assert_int_equal(c.n_labels, 2);
	assert_string_equal(c.labels[1].key, "nic");
	assert_string_equal(c.labels[1].value, "cx6");
	assert_int_equal(c.pc.argc, 3);
	assert_string_equal(c.pc.argv[2], "exit 0");
	assert_null(c.pc.argv[3]);
	assert_int_equal(c.pc.list_timeout_ms, 10000);
	assert_int_equal(c.pc.boot_timeout_ms, 300000);
	release(&c);

	/* an empty file, and a command as one scalar */
	assert_int_equal(parse(&c, ""), 0);
	assert_int_equal(parse(&c, "kernel_provider: {command: /bin/true}\n"), 0);
	assert_int_equal(c.pc.argc, 1);
	release(&c);
}

static void test_config_refused(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "label: {rack: r3}\n", "a.yaml:1:1: unknown key 'label' (known: labels, "
		  "kernel_provider)" },
		{ "- labels\n", "a.yaml:1:1: the config must be a mapping" },
		{ "labels: [r3]\n", "a.yaml:1:9: 'labels' must map names to values" },
		{ "labels: {rack: ''}\n", "a.yaml:1:10: a label is NAME: VALUE" },
		/* a NUL escape made the label "r" silently; now refused */
		{ "labels: {rack: \"r\\0x\"}\n", "a.yaml:1:10: a label is NAME: VALUE" },
		{ "kernel_provider: {command: [sh, x]}\n", "a.yaml:1:29: 'kernel_provider.command' "
		  "must start with an absolute path, not 'sh'" },
		{ "kernel_provider: {command: [/bin/true], list_timeout: 0}\n",
		  "a.yaml:1:55: 'kernel_provider.list_timeout' must be seconds, 1 to 3600" },
		{ "kernel_provider: {list_timeout: 5}\n", "a.yaml:1:18: 'kernel_provider' needs a "
		  "'command'" },
		{ "kernel_provider: {command: /nonexistent/p}\n", "a.yaml:1:18: kernel provider "
		  "'/nonexistent/p' is not executable" },
		{ "labels: {a: b\n", "a.yaml:2:1: " },
	};
	struct cfg c = { 0 };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(&c, cases[i].text), -EINVAL);
		assert_contains(c.why.msg, cases[i].why);
		/* a person's input: its place in the file too */
		assert_true(c.why.input);
		assert_string_equal(c.why.file, "a.yaml");
		assert_true(c.why.line >= 1 && c.why.col >= 1);
		release(&c);
	}
}

/* libyaml's scanner is quadratic in the depth of flow collections: 80000 levels of '['
 * kept the agent from starting for a minute (1 MiB: half an hour); refused at once now. */
static void test_config_deep(void **state)
{
	size_t n = 80000, len = strlen("labels: ") + 2 * n;
	char *text = malloc(len + 1);
	struct cfg c = { 0 };
	int64_t t0;

	assert_non_null(text);
	strcpy(text, "labels: ");
	memset(text + 8, '[', n);
	memset(text + 8 + n, ']', n);
	text[len] = '\0';
	t0 = util_mono_ms();
	assert_int_equal(parse(&c, text), -EINVAL);
	assert_true(util_mono_ms() - t0 < 3000);	/* not exponential; room for a loaded CI */
	assert_contains(c.why.msg, "a.yaml:1:24: nested deeper than 16 levels");
	assert_true(c.why.input);
	assert_int_equal(c.why.line, 1);
	assert_int_equal(c.why.col, 24);
	release(&c);
	free(text);
}

static void test_config_load(void **state)
{
	char dir[64] = "/tmp/bpflab-test-config.XXXXXX", path[128];
	struct cfg c = { 0 };

	tmpdir_make(dir);
	snprintf(path, sizeof(path), "%s/agent.yaml", dir);
	assert_int_equal(agent_config_load(path, &c.labels, &c.n_labels, &c.pc, &c.why),
			 -ENOENT);
	assert_contains(c.why.msg, "cannot read config '");
	assert_false(c.why.input);	/* the file is missing, not wrong */
	file_put(path, "labels: {rack: r3}\n");
	assert_int_equal(agent_config_load(path, &c.labels, &c.n_labels, &c.pc, &c.why), 0);
	assert_int_equal(c.n_labels, 1);
	release(&c);
	assert_int_equal(tmpdir_remove(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_ok),
		cmocka_unit_test(test_config_refused),
		cmocka_unit_test(test_config_deep),
		cmocka_unit_test(test_config_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
