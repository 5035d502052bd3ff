// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_inventory.c - agent/inventory.c: KEY=VALUE parsing, debug option scanning,
 * the kernel config hash against zcat, and a whole inventory with veth ports (root) or
 * without (otherwise). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sys/utsname.h>

#include "inventory.h"
#include "agent.h"
#include "base/log.h"
#include "base/util.h"
#include "test_agent_lab.h"

static int setup(void **state)
{
	int err;

	log_init("test_agent_inventory", LOG_WARN);
	err = lab_up(&lab, "inv");
	if (err == -EPERM) {
		fprintf(stderr, "test_agent_inventory: not root, port checks skipped\n");
		return 0;
	}
	/* as root the port checks run: a lab that cannot come up fails the setup */
	if (err)
		lab_down(&lab);
	return err;
}

static void test_inventory_pairs(void **state)
{
	struct inventory_pair p;

	assert_int_equal(inventory_pair_parse("a=veth0", &p), 0);
	assert_string_equal(p.key, "a");
	assert_string_equal(p.value, "veth0");
	inventory_pair_release(&p);
	assert_int_equal(inventory_pair_parse("rack=r3=x", &p), 0);
	assert_string_equal(p.value, "r3=x");
	inventory_pair_release(&p);
	assert_int_equal(inventory_pair_parse("novalue=", &p), -EINVAL);
	assert_int_equal(inventory_pair_parse("=nokey", &p), -EINVAL);
	assert_int_equal(inventory_pair_parse("none", &p), -EINVAL);
	inventory_pair_release(&p);
}

static void test_inventory_debug_options(void **state)
{
	const char *config =
		"CONFIG_LOCKDEP_SUPPORT=y\n"
		"CONFIG_LOCKDEP=y\n"
		"# CONFIG_KASAN is not set\n"
		"CONFIG_KCSAN=y\n"
		"CONFIG_DEBUG_NET_SMALL_RTNL=y\n"
		"CONFIG_XDEBUG_PAGEALLOC=y\n"
		"CONFIG_DEBUG_ATOMIC_SLEEP=y\n";
	json_t *list = inventory_debug_options(config);
	char *text = json_dumps(list, JSON_COMPACT);

	assert_string_equal(text, "[\"LOCKDEP\",\"KCSAN\",\"DEBUG_ATOMIC_SLEEP\"]");
	free(text);
	json_decref(list);
	list = inventory_debug_options("");
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
}

static void test_inventory_config_hash(void **state)
{
	char *config, hex[SHA256_HEX_LEN], cmd[256], want[128] = "";
	struct utsname u;
	size_t len;
	FILE *p;

	if (inventory_kernel_config(&config, &len))
		skip_host("no kernel config readable (/proc/config.gz, /boot/config-RELEASE)");
	util_sha256_hex(config, len, hex);
	free(config);
	uname(&u);
	snprintf(cmd, sizeof(cmd),
		 "(zcat /proc/config.gz 2>/dev/null || cat /boot/config-%s) | sha256sum",
		 u.release);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(want, sizeof(want), p));
	pclose(p);
	assert_memory_equal(hex, want, 64);
}

static void test_inventory_build(void **state)
{
	struct inventory_pair ports[] = { { "a", "va" }, { "b", "vb" }, { "c", "nosuch0" } };
	struct inventory_pair labels[] = { { "rack", "r3" } };
	struct inventory_config cfg = {
		.agent = "h1", .ports = ports, .n_ports = 3, .labels = labels, .n_labels = 1,
	};
	json_t *inv = inventory_build(&cfg), *k, *port;
	struct utsname u;

	assert_non_null(inv);
	uname(&u);
	assert_string_equal(json_string_value(json_object_get(inv, "agent")), "h1");
	assert_true(json_is_string(json_object_get(inv, "hostname")));
	assert_string_equal(json_string_value(json_object_get(inv, "agent_version")), AGENT_VERSION);
	k = json_object_get(inv, "kernel");
	assert_string_equal(json_string_value(json_object_get(k, "release")), u.release);
	assert_string_equal(json_string_value(json_object_get(k, "version")), u.version);
	assert_true(json_is_array(json_object_get(k, "debug_options")));
	assert_true(json_is_string(json_object_get(k, "config_sha256")) ||
		    json_is_null(json_object_get(k, "config_sha256")));
	assert_true(json_is_string(json_object_get(k, "cmdline")));
	assert_true(json_integer_value(json_object_get(json_object_get(inv, "cpu"), "count")) >= 1);
	assert_non_null(json_object_get(json_object_get(inv, "bpf"), "jit_enable"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(inv, "labels"),
							      "rack")), "r3");
	assert_int_equal(json_array_size(json_object_get(inv, "ports")), 3);
	port = json_array_get(json_object_get(inv, "ports"), 2);
	assert_string_equal(json_string_value(json_object_get(port, "error")),
			    "interface 'nosuch0' does not exist");
	if (lab.up) {
		char driver[32];

		port = json_array_get(json_object_get(inv, "ports"), 0);
		assert_string_equal(json_string_value(json_object_get(port, "role")), "a");
		assert_string_equal(json_string_value(json_object_get(port, "name")), "va");
		assert_int_equal(json_integer_value(json_object_get(port, "ifindex")), lab.ifa);
		assert_string_equal(json_string_value(json_object_get(port, "driver")), "veth");
		assert_int_equal(json_integer_value(json_object_get(port, "mtu")), 1500);
		assert_int_equal(strlen(json_string_value(json_object_get(port, "mac"))), 17);
		assert_int_equal(inventory_driver("vb", driver, sizeof(driver)), 0);
		assert_string_equal(driver, "veth");
	}
	json_decref(inv);
}

/* The machine: machine-id and boot id of this machine, or the `machine` label (the last
 * one given wins, as labels do). */
static void test_inventory_machine(void **state)
{
	struct inventory_pair labels[] = { { "machine", "box0" }, { "rack", "r3" },
					   { "machine", "box1" } };
	struct inventory_config cfg = { .agent = "h1", .labels = labels, .n_labels = 1 };
	char boot[64] = "", mid[64] = "", want[160];
	json_t *inv, *m;
	FILE *f;

	(void)state;
	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	assert_non_null(f);
	assert_non_null(fgets(boot, sizeof(boot), f));
	fclose(f);
	boot[strcspn(boot, "\n")] = '\0';
	f = fopen("/etc/machine-id", "r");
	if (f) {
		if (!fgets(mid, sizeof(mid), f))
			mid[0] = '\0';
		fclose(f);
		mid[strcspn(mid, "\n")] = '\0';
	}
	cfg.n_labels = 0;
	inv = inventory_build(&cfg);
	m = json_object_get(inv, "machine");
	snprintf(want, sizeof(want), "%s:%s", mid, boot);
	assert_string_equal(json_string_value(json_object_get(m, "id")), want);
	assert_string_equal(json_string_value(json_object_get(m, "source")), "boot");
	assert_string_equal(json_string_value(json_object_get(m, "boot_id")), boot);
	json_decref(inv);

	cfg.n_labels = 3;
	inv = inventory_build(&cfg);
	m = json_object_get(inv, "machine");
	assert_string_equal(json_string_value(json_object_get(m, "id")), "box1");
	assert_string_equal(json_string_value(json_object_get(m, "source")), "label");
	assert_string_equal(json_string_value(json_object_get(m, "boot_id")), boot);
	json_decref(inv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inventory_pairs),
		cmocka_unit_test(test_inventory_debug_options),
		cmocka_unit_test(test_inventory_config_hash),
		cmocka_unit_test(test_inventory_build),
		cmocka_unit_test(test_inventory_machine),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}
