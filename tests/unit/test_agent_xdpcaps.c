// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_xdpcaps.c - agent/xdpcaps.c: the decoding of the netdev family's XDP
 * feature bits into names and modes, and the JSON the inventory carries (no root); then
 * for real in a namespace with a veth pair and a generic-only device (dummy, or ifb
 * where the kernel has no dummy): the modes from netlink and from the probe agree, a
 * port with a program is never probed, the inventory's port entry has "xdp", and the
 * attach: mode auto goes native on veth and generic on the other, mode native there
 * fails naming port, driver and modes. Root for the second part. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "attach.h"
#include "inventory.h"
#include "xdpcaps.h"
#include "test_agent_lab.h"

static int ifx;			/* the generic-only device "xd" */
static char xd_kind[16];	/* dummy or ifb */

static int setup(void **state)
{
	int e = lab_setup_bpf(&lab, "xdpcaps");

	if (e || !lab.up)
		return e;
	/* the lab's thread is in the namespace: ip works on it without -n */
	snprintf(xd_kind, sizeof(xd_kind), "dummy");
	if (lab_sh("ip link add xd type dummy 2>/dev/null")) {
		snprintf(xd_kind, sizeof(xd_kind), "ifb");
		if (lab_sh("ip link add xd type ifb"))
			return -EIO;
	}
	lab_sh("ip link set xd up");
	ifx = if_nametoindex("xd");
	return ifx ? 0 : -ENODEV;
}

static char *dump(const json_t *j)
{
	return json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
}

static void assert_json(const json_t *j, const char *want)
{
	char *s = dump(j);

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

/* The bits in the kernel's order and names; unknown bits by number. */
static void test_xdpcaps_features(void **state)
{
	struct xdpcaps c;
	json_t *j;
	char buf[64];

	j = xdpcaps_features_json(0);
	assert_json(j, "[]");
	json_decref(j);
	j = xdpcaps_features_json(XDPCAPS_ACT_KNOWN);
	assert_json(j, "[\"basic\",\"redirect\",\"ndo-xmit\",\"xsk-zerocopy\",\"hw-offload\","
		       "\"rx-sg\",\"ndo-xmit-sg\"]");
	json_decref(j);
	j = xdpcaps_features_json(XDPCAPS_ACT_BASIC | XDPCAPS_ACT_REDIRECT | XDPCAPS_ACT_RX_SG |
				  (1ull << 9));
	assert_json(j, "[\"basic\",\"redirect\",\"rx-sg\",\"bit9\"]");
	json_decref(j);

	/* veth: native and generic */
	xdpcaps_from_features(0x23, &c);
	assert_true(c.native);
	assert_false(c.offload);
	j = xdpcaps_json(&c);
	assert_json(j, "{\"modes\":[\"native\",\"generic\"],\"features\":[\"basic\",\"redirect\","
		       "\"rx-sg\"],\"source\":\"netlink\"}");
	json_decref(j);
	assert_string_equal(xdpcaps_modes_text(&c, buf, sizeof(buf)), "native, generic");
	/* e1000e, dummy: nothing set, generic only */
	xdpcaps_from_features(0, &c);
	assert_false(c.native);
	j = xdpcaps_json(&c);
	assert_json(j, "{\"modes\":[\"generic\"],\"features\":[],\"source\":\"netlink\"}");
	json_decref(j);
	assert_string_equal(xdpcaps_modes_text(&c, buf, sizeof(buf)), "generic");
	/* a redirect target only (ndo-xmit without basic) runs no program natively */
	xdpcaps_from_features(XDPCAPS_ACT_NDO_XMIT, &c);
	assert_false(c.native);
	/* offload (netdevsim, nfp) */
	xdpcaps_from_features(XDPCAPS_ACT_BASIC | XDPCAPS_ACT_HW_OFFLOAD, &c);
	assert_true(c.native && c.offload);
	assert_string_equal(xdpcaps_modes_text(&c, buf, sizeof(buf)), "native, generic, offload");
	j = xdpcaps_json(&c);
	assert_json(json_object_get(j, "modes"), "[\"native\",\"generic\",\"offload\"]");
	json_decref(j);
	/* a probe: modes, no features */
	memset(&c, 0, sizeof(c));
	c.source = XDPCAPS_PROBE;
	j = xdpcaps_json(&c);
	assert_json(j, "{\"modes\":[\"generic\"],\"source\":\"probe\"}");
	json_decref(j);
	/* unknown: no modes, the reason */
	memset(&c, 0, sizeof(c));
	snprintf(c.reason, sizeof(c.reason), "not probed");
	j = xdpcaps_json(&c);
	assert_json(j, "{\"source\":\"unknown\",\"reason\":\"not probed\"}");
	json_decref(j);
	assert_string_equal(xdpcaps_modes_text(&c, buf, sizeof(buf)), "unknown");
}

/* Netlink (where the kernel has the family) and the probe say the same of veth and of
 * the generic-only device; a port with a program is not probed. */
static void test_xdpcaps_ports(void **state)
{
	struct xdpcaps c;
	uint64_t features;
	bool native;
	int e, fd;

	SKIP_UNLESS_LAB();
	assert_int_equal(xdpcaps_probe(lab.ifb, &native), 0);
	assert_true(native);
	assert_int_equal(xdpcaps_probe(ifx, &native), 0);
	assert_false(native);
	assert_nothing_attached();

	e = xdpcaps_netlink(lab.ifb, &features);
	if (e == -ENOENT) {
		fprintf(stderr, "  (no netdev netlink family here: the probe answers)\n");
	} else {
		assert_int_equal(e, 0);
		assert_true(features & XDPCAPS_ACT_BASIC);
		assert_int_equal(xdpcaps_netlink(ifx, &features), 0);
		assert_int_equal(features, 0);
		assert_int_equal(xdpcaps_netlink(999999, &features), -ENODEV);
	}
	assert_int_equal(xdpcaps_get(lab.ifb, "vb", &c), 0);
	assert_int_equal(c.source, e ? XDPCAPS_PROBE : XDPCAPS_NETLINK);
	assert_true(c.native);
	assert_int_equal(xdpcaps_get(ifx, "xd", &c), 0);
	assert_false(c.native);

	/* a port with a program: the probe does not touch it */
	{
		const struct bpf_insn insns[] = {
			{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
			{ .code = BPF_JMP | BPF_EXIT },
		};
		LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_SKB_MODE);
		int prog = bpf_prog_load(BPF_PROG_TYPE_XDP, "t_pass", "GPL", insns, 2, NULL);

		assert_true(prog >= 0);
		fd = bpf_link_create(prog, lab.ifa, BPF_XDP, &lo);
		assert_true(fd >= 0);
		assert_int_equal(xdpcaps_probe(lab.ifa, &native), -EBUSY);
		close(fd);
		close(prog);
	}
	assert_nothing_attached();
}

/* The inventory's port entries carry "xdp". */
static void test_xdpcaps_inventory(void **state)
{
	json_t *p, *x;

	SKIP_UNLESS_LAB();
	p = inventory_port("b", "vb");
	x = json_object_get(p, "xdp");
	assert_non_null(x);
	assert_json(json_object_get(x, "modes"), "[\"native\",\"generic\"]");
	json_decref(p);
	p = inventory_port("x", "xd");
	x = json_object_get(p, "xdp");
	assert_json(json_object_get(x, "modes"), "[\"generic\"]");
	assert_string_equal(json_string_value(json_object_get(p, "driver")), xd_kind);
	json_decref(p);
}

/* mode auto: native on veth, generic on the generic-only device, and says so; mode
 * native on that device: an error naming port, driver and modes, nothing attached. */
static void test_xdpcaps_attach_auto(void **state)
{
	struct attach_port ports[3];
	struct attach_opts o = { .bpf_dir = BPF_DIR, .ports = ports,
				 .n_ports = 3 };
	struct attach_set *set;
	char want[256];
	struct err err;
	json_t *attach;
	__u32 drv, skb;

	SKIP_UNLESS_LAB();
	ports[0] = lab.ports[0];
	ports[1] = lab.ports[1];
	ports[2] = (struct attach_port){ .role = "x", .ifname = "xd", .ifindex = ifx };
	attach = json_of("[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"auto\","
			 "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"},"
			 "{\"port\":\"x\",\"hook\":\"xdp\",\"mode\":\"auto\","
			 "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_pass\"}]");
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), 0);
	assert_int_equal(attach_links(set, &err), 0);
	assert_int_equal(attach_get(set, 0)->mode, JOB_XDP_AUTO);
	assert_int_equal(attach_get(set, 0)->mode_used, JOB_XDP_NATIVE);
	assert_int_equal(attach_get(set, 1)->mode_used, JOB_XDP_GENERIC);
	{
		LIBBPF_OPTS(bpf_xdp_query_opts, q);

		assert_int_equal(bpf_xdp_query(lab.ifb, 0, &q), 0);
		drv = q.drv_prog_id;
		assert_true(drv > 0);
		assert_int_equal(bpf_xdp_query(ifx, 0, &q), 0);
		skb = q.skb_prog_id;
		assert_true(skb > 0);
		assert_int_equal(q.drv_prog_id, 0);
	}
	attach_destroy(&set);
	json_decref(attach);

	attach = json_of("[{\"port\":\"x\",\"hook\":\"xdp\",\"mode\":\"native\","
			 "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"}]");
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), 0);
	assert_int_equal(attach_links(set, &err), -EOPNOTSUPP);
	snprintf(want, sizeof(want), "cannot attach 'xdp_drop' to port 'x' ('xd', driver %s) as "
		 "xdp native: Operation not supported (the port has XDP modes generic; mode auto "
		 "would attach generic)", xd_kind);
	assert_string_equal(err.msg, want);
	assert_false(err.input);	/* the port's driver, not the plan */
	attach_destroy(&set);
	json_decref(attach);
	assert_nothing_attached();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xdpcaps_features),
		cmocka_unit_test(test_xdpcaps_ports),
		cmocka_unit_test(test_xdpcaps_inventory),
		cmocka_unit_test(test_xdpcaps_attach_auto),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}
