// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_maps.c - map slots filled from a plan (agent/attach.c), read back from the
 * kernel after the job's load: a devmap slot holds the ifindex of its port role and the
 * id of its devmap program, a cpumap slot its queue size and program, an array slot its
 * value; slots the plan does not name stay empty. Then frames from the xdp-live
 * generator go through the filled devmap and run the slot's program (the counters move).
 * The maps are found the way bpftool would: from the program's map ids. Needs root and a
 * veth pair (tests/unit/test_agent_lab.h); bpf/test_agent_maps.bpf.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "attach.h"
#include "ifstats.h"
#include "base/log.h"
#include "base/util.h"
#include "xdpgen.h"
#include "test_agent_lab.h"

static int setup(void **state)
{
	return lab_setup_bpf(&lab, "maps");
}

static struct attach_set *load(const char *text)
{
	struct attach_opts o = { .bpf_dir = BPF_DIR, .ports = lab.ports,
				 .n_ports = 2 };
	struct attach_set *set = attach_new();
	char *log = NULL;
	json_t *attach = json_of(text);
	struct err err;

	assert_non_null(set);
	if (attach_load(set, attach, &o, &log, &err))
		fail_msg("attach_load: %s\n%s", err.msg, log ? log : "");
	json_decref(attach);
	return set;
}

/* An fd of the map called NAME that program PROG_FD uses; the caller closes it. */
static int map_of(int prog_fd, const char *name)
{
	struct bpf_prog_info info;
	__u32 ids[16], len = sizeof(info), i;
	int fd = -1;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = 16;
	info.map_ids = (__u64)(unsigned long)ids;
	assert_int_equal(bpf_obj_get_info_by_fd(prog_fd, &info, &len), 0);
	for (i = 0; i < info.nr_map_ids && i < 16 && fd < 0; i++) {
		struct bpf_map_info mi;
		__u32 mlen = sizeof(mi);
		int m = bpf_map_get_fd_by_id(ids[i]);

		assert_true(m >= 0);
		memset(&mi, 0, sizeof(mi));
		assert_int_equal(bpf_obj_get_info_by_fd(m, &mi, &mlen), 0);
		if (!strcmp(mi.name, name))
			fd = m;
		else
			close(m);
	}
	if (fd < 0)
		fail_msg("program has no map '%s'", name);
	return fd;
}

/* The name of the program with id ID. */
static void prog_name(__u32 id, char *out, size_t len)
{
	struct bpf_prog_info info;
	__u32 ilen = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	assert_true(fd >= 0);
	memset(&info, 0, sizeof(info));
	assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &ilen), 0);
	snprintf(out, len, "%s", info.name);
	close(fd);
}

static void test_maps_devmap_and_array(void **state)
{
	struct attach_set *set;
	struct bpf_devmap_val dv;
	__u32 key, value;
	char name[64];
	struct err err;
	int fd, i;
	uint64_t ran = 0, slot_prog = 0;

	SKIP_UNLESS_LAB();
	/* on b: redirect every frame through tx_port slot 1 (config[0] = 1) out of b itself,
	 * the slot's program running first, into a, which drops it */
	set = load("[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		   "\"object\":\"test_agent_maps.bpf.o\",\"program\":\"xdp_redirect_dev\","
		   "\"maps\":{\"tx_port\":[{\"key\":1,\"port\":\"b\",\"program\":\"xdp_devmap_prog\"},"
		   "                       {\"key\":3,\"port\":\"a\"}],"
		   "         \"config\":[{\"key\":0,\"value\":1}]},"
		   "\"counters\":[{\"map\":\"stats\",\"keys\":{\"0\":\"ran\",\"1\":\"slot_prog\"}}]},"
		   "{\"port\":\"a\",\"hook\":\"xdp\",\"mode\":\"native\","
		   "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"}]");
	assert_int_equal(attach_count(set), 2);

	/* read back before any link exists */
	fd = map_of(attach_get(set, 0)->prog_fd, "tx_port");
	key = 1;
	memset(&dv, 0, sizeof(dv));
	assert_int_equal(bpf_map_lookup_elem(fd, &key, &dv), 0);
	assert_int_equal(dv.ifindex, lab.ifb);
	assert_int_not_equal(dv.bpf_prog.id, 0);
	prog_name(dv.bpf_prog.id, name, sizeof(name));
	assert_string_equal(name, "xdp_devmap_prog");
	key = 3;
	memset(&dv, 0, sizeof(dv));
	assert_int_equal(bpf_map_lookup_elem(fd, &key, &dv), 0);
	assert_int_equal(dv.ifindex, lab.ifa);
	assert_int_equal(dv.bpf_prog.id, 0);		/* no program named */
	for (key = 0; key < 4; key += 2)		/* slots the plan did not name */
		assert_int_not_equal(bpf_map_lookup_elem(fd, &key, &dv), 0);
	close(fd);
	fd = map_of(attach_get(set, 0)->prog_fd, "config");
	key = 0;
	assert_int_equal(bpf_map_lookup_elem(fd, &key, &value), 0);
	assert_int_equal(value, 1);
	key = 1;
	assert_int_equal(bpf_map_lookup_elem(fd, &key, &value), 0);
	assert_int_equal(value, 0);
	close(fd);

	/* frames a -> b go back out of b through slot 1, its program running, into a */
	assert_int_equal(attach_links(set, &err), 0);
	{
		struct xdpgen_config cfg = { .ifindex = lab.ifa, .size = 64, .flows = 1,
					     .threads = 1 };
		struct xdpgen *gen;
		struct ifstats *rtnl = ifstats_new();
		struct ifstats_link l;

		assert_non_null(rtnl);
		assert_int_equal(ifstats_get(rtnl, lab.ifb, &l), 0);
		memcpy(cfg.dst_mac, l.mac, 6);
		assert_int_equal(ifstats_get(rtnl, lab.ifa, &l), 0);
		memcpy(cfg.src_mac, l.mac, 6);
		gen = xdpgen_new(&cfg, &err);
		assert_non_null(gen);
		assert_int_equal(xdpgen_start(gen, &err), 0);
		usleep(200000);
		assert_int_equal(xdpgen_stop(gen, &err), 0);
		xdpgen_destroy(&gen);
		ifstats_destroy(&rtnl);
	}
	for (i = 0; i < attach_counter_count(set); i++) {
		uint64_t v;

		assert_int_equal(attach_counter_read(set, i, &v), 0);
		if (!strcmp(attach_counter_get(set, i)->name, "ran"))
			ran = v;
		else
			slot_prog = v;
	}
	assert_true(ran > 1000);
	assert_true(slot_prog >= ran - ran / 100);	/* every redirected frame, give or take
							 * the ones in flight at the stop */
	assert_true(slot_prog <= ran);
	attach_destroy(&set);
}

static void test_maps_cpumap(void **state)
{
	struct attach_set *set;
	struct bpf_cpumap_val cv;
	__u32 key, value;
	char name[64];
	int fd;

	SKIP_UNLESS_LAB();
	if (libbpf_num_possible_cpus() < 2)
		skip_host("fewer than 2 possible CPUs (a cpumap entry for CPU 1)");
	set = load("[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		   "\"object\":\"test_agent_maps.bpf.o\",\"program\":\"xdp_redirect_cpu\","
		   "\"maps\":{\"cpu_map\":[{\"key\":1,\"qsize\":512,\"program\":\"xdp_cpumap_prog\"},"
		   "                       {\"key\":0,\"qsize\":64}],"
		   "         \"config\":[{\"key\":1,\"value\":1}]}}]");
	fd = map_of(attach_get(set, 0)->prog_fd, "cpu_map");
	key = 1;
	memset(&cv, 0, sizeof(cv));
	assert_int_equal(bpf_map_lookup_elem(fd, &key, &cv), 0);
	assert_int_equal(cv.qsize, 512);
	assert_int_not_equal(cv.bpf_prog.id, 0);
	prog_name(cv.bpf_prog.id, name, sizeof(name));
	assert_string_equal(name, "xdp_cpumap_prog");
	key = 0;
	memset(&cv, 0, sizeof(cv));
	assert_int_equal(bpf_map_lookup_elem(fd, &key, &cv), 0);
	assert_int_equal(cv.qsize, 64);
	assert_int_equal(cv.bpf_prog.id, 0);
	close(fd);
	fd = map_of(attach_get(set, 0)->prog_fd, "config");
	key = 1;
	assert_int_equal(bpf_map_lookup_elem(fd, &key, &value), 0);
	assert_int_equal(value, 1);
	close(fd);
	attach_destroy(&set);
}

/* A plan's map slot that the object or this host cannot take: refused before any link,
 * naming the map, and marked as the plan's (input), not the machine's. */
static void test_maps_refused(void **state)
{
	static const struct {
		const char *maps;
		int err;
		const char *msg;
	} cases[] = {
		{ "\"config\":[{\"key\":0,\"value\":4294967296}]", -ERANGE,
		  "map 'config': value 4294967296 does not fit its 4-byte value" },
		{ "\"nomap\":[{\"key\":0,\"value\":1}]", -ENOENT,
		  "object 'test_agent_maps.bpf.o' has no map 'nomap'" },
		{ "\"config\":[{\"key\":0,\"port\":\"a\"}]", -EINVAL,
		  "map 'config' (array) cannot take slot 0" },
		{ "\"cpu_map\":[{\"key\":100000,\"qsize\":64}]", -ERANGE,
		  "map 'cpu_map': cpumap key 100000 is not a CPU of this host" },
	};
	struct attach_opts o = { .bpf_dir = BPF_DIR, .ports = lab.ports, .n_ports = 2 };
	char text[512];
	size_t i;

	SKIP_UNLESS_LAB();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct attach_set *set = attach_new();
		json_t *attach;
		struct err err;

		snprintf(text, sizeof(text), "[{\"port\":\"b\",\"hook\":\"xdp\","
			 "\"object\":\"test_agent_maps.bpf.o\",\"program\":\"xdp_redirect_cpu\","
			 "\"maps\":{%s}}]", cases[i].maps);
		attach = json_of(text);
		assert_non_null(set);
		assert_int_equal(attach_load(set, attach, &o, NULL, &err), cases[i].err);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].msg);
		if (!err.input)
			fail_msg("case %zu: '%s' is not marked input", i, err.msg);
		attach_destroy(&set);
		json_decref(attach);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_devmap_and_array),
		cmocka_unit_test(test_maps_cpumap),
		cmocka_unit_test(test_maps_refused),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}
