// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_objects.c - resolving and checking the BPF objects a plan names, against the real
 * build/bpf/xdp_basic.bpf.o (programs xdp_drop, xdp_pass, xdp_tx). libbpf only opens the
 * objects, so this needs no privileges. Also the coordinator's cache of encoded objects
 * (object_cache_*), over a fake store that counts its reads: a hit reads nothing, other
 * bytes (another sha256) are a miss, the least recently used entry goes first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/objects.h"
#include "plan/plan.h"
#include "base/util.h"
#include "helpers.h"

#define BASIC BPF_DIR "/xdp_basic.bpf.o"

static struct plan *plan_with(const char *file, const char *variants)
{
	struct err err;
	struct plan *p;
	char text[2048];

	snprintf(text, sizeof(text),
		 "name: obj\nports: [a, b]\ntraffic: {from: a, duration: 1s}\nvariants:\n%s",
		 variants);
	p = plan_parse(file, text, strlen(text), NULL, 0, &err);
	if (!p)
		fail_msg("plan refused: %s", err.msg);
	return p;
}

static void read_basic(char **data, size_t *len)
{
	int ret = util_read_file(BASIC, 1 << 24, data, len);

	if (ret)
		fail_msg("cannot read %s (run make build/bpf/xdp_basic.bpf.o): %s", BASIC,
			 strerror(-ret));
}

static int counting_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static void test_objects_resolve(void **state)
{
	struct plan *p = plan_with("plans/x.yaml",
		"  drop:\n"
		"    - {port: b, object: xdp_basic.bpf.o, program: xdp_drop}\n"
		"  tx:\n"
		"    - {port: b, object: xdp_basic.bpf.o, program: xdp_tx}\n"
		"    - {port: a, object: xdp_basic.bpf.o, program: xdp_pass}\n");
	struct plan_objects objs;
	struct err err;
	const struct plan_object *o;
	char sha[SHA256_HEX_LEN];
	char *data;
	size_t len;
	int i;

	(void)state;
	read_basic(&data, &len);
	util_sha256_hex(data, len, sha);

	/* The caller's libbpf print function is put back after the quiet open. */
	libbpf_set_print(counting_print);
	assert_int_equal(plan_objects_resolve(p, BPF_DIR, &objs, &err), 0);
	assert_ptr_equal(libbpf_set_print(NULL), counting_print);

	assert_int_equal(objs.n, 1);		/* read once for three entries */
	o = plan_objects_find(&objs, "xdp_basic.bpf.o");
	assert_non_null(o);
	assert_ptr_equal(o, &objs.objs[0]);
	assert_string_equal(o->name, "xdp_basic.bpf.o");
	assert_string_equal(o->path, BASIC);
	assert_string_equal(o->sha256, sha);
	assert_int_equal(o->len, len);
	assert_memory_equal(o->data, data, len);
	assert_int_equal(o->n_programs, 3);
	assert_string_equal(o->programs[0], "xdp_drop");
	assert_string_equal(o->programs[1], "xdp_pass");
	assert_string_equal(o->programs[2], "xdp_tx");
	for (i = 0; i < 3; i++)
		assert_int_equal(o->program_types[i], BPF_PROG_TYPE_XDP);
	assert_null(plan_objects_find(&objs, "other.bpf.o"));
	assert_int_equal(plan_objects_check(p, &objs, &err), 0);

	plan_objects_release(&objs);
	assert_int_equal(objs.n, 0);
	assert_null(objs.objs);
	plan_objects_release(&objs);
	plan_objects_release(NULL);
	free(data);
	plan_destroy(&p);
}

static void test_objects_unknown_program(void **state)
{
	struct plan *p = plan_with("plans/x.yaml",
		"  drop:\n"
		"    - {port: b, object: xdp_basic.bpf.o, program: xdp_foo}\n");
	struct plan_objects objs;
	struct err err;

	(void)state;
	assert_int_equal(plan_objects_resolve(p, BPF_DIR, &objs, &err), -EINVAL);
	assert_string_equal(err.msg, "plans/x.yaml:6:51: unknown program 'xdp_foo' in 'xdp_basic.bpf.o' (it has: xdp_drop, xdp_pass, xdp_tx)");
	assert_int_equal(err.line, p->variants[0].attach[0].program_line);
	assert_int_equal(err.col, p->variants[0].attach[0].program_col);
	assert_int_equal(objs.n, 0);		/* nothing left on failure */
	assert_null(objs.objs);
	plan_destroy(&p);
}

static void test_objects_missing(void **state)
{
	struct plan *p = plan_with("plans/x.yaml",
		"  drop:\n"
		"    - {port: b, object: xdp_basic.bpf.o, program: xdp_drop}\n"
		"    - {port: a, object: nope.bpf.o, program: xdp_drop}\n");
	struct plan_objects objs;
	struct err err;

	(void)state;
	assert_int_equal(plan_objects_resolve(p, BPF_DIR, &objs, &err), -ENOENT);
	assert_string_equal(err.msg, "plans/x.yaml:7:25: cannot open object 'nope.bpf.o': No such file or directory (looked in " BPF_DIR ")");
	assert_int_equal(err.line, 7);
	assert_int_equal(err.col, 25);
	assert_int_equal(objs.n, 0);
	plan_destroy(&p);

	/* A path is relative to the plan file's directory. */
	p = plan_with(BPFLAB_BUILDDIR "/x.yaml",
		      "  drop:\n    - {port: b, object: bpf/xdp_basic.bpf.o, program: xdp_drop}\n");
	assert_int_equal(plan_objects_resolve(p, "/nonexistent", &objs, &err), 0);
	assert_string_equal(objs.objs[0].path, BASIC);
	assert_string_equal(objs.objs[0].name, "bpf/xdp_basic.bpf.o");
	plan_objects_release(&objs);
	plan_destroy(&p);

	p = plan_with("plans/x.yaml",
		      "  drop:\n    - {port: b, object: sub/nope.bpf.o, program: xdp_drop}\n");
	assert_int_equal(plan_objects_resolve(p, BPF_DIR, &objs, &err), -ENOENT);
	assert_string_equal(err.msg, "plans/x.yaml:6:25: cannot open object 'sub/nope.bpf.o': No such file or directory (looked for plans/sub/nope.bpf.o)");
	plan_destroy(&p);

	/* A file that is not a BPF object. */
	p = plan_with(BPFLAB_SRCDIR "/tests/data/x.yaml",
		      "  drop:\n    - {port: b, object: ./plans/full.yaml, program: xdp_drop}\n");
	assert_int_equal(plan_objects_resolve(p, BPF_DIR, &objs, &err), -EINVAL);
	assert_string_equal(err.msg, BPFLAB_SRCDIR "/tests/data/x.yaml:6:25: cannot open object './plans/full.yaml': " BPFLAB_SRCDIR "/tests/data/./plans/full.yaml is not a BPF object file");
	plan_destroy(&p);
}

static void test_objects_wrong_type(void **state)
{
	struct plan *p = plan_with("plans/x.yaml",
		"  drop:\n"
		"    - {port: b, hook: tc-ingress, object: xdp_basic.bpf.o, program: xdp_drop}\n");
	struct plan_objects objs;
	struct err err;

	(void)state;
	assert_int_equal(plan_objects_resolve(p, BPF_DIR, &objs, &err), -EINVAL);
	assert_string_equal(err.msg, "plans/x.yaml:6:69: program 'xdp_drop' is an xdp program but hook is tc-ingress");
	plan_destroy(&p);
}

/* A tc program on an xdp hook, with whatever object of the build has one. */
static void test_objects_tc_on_xdp(void **state)
{
	static const char *const candidates[] = { "test_agent.bpf.o", "tc_count.bpf.o" };
	struct plan_objects objs = { 0 };
	struct err err;
	char variants[512], want[512];
	const char *name = NULL, *prog = NULL;
	struct plan *p;
	size_t i;
	int j;

	(void)state;
	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]) && !prog; i++) {
		char path[512], *data;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s", BPF_DIR, candidates[i]);
		if (util_read_file(path, 1 << 24, &data, &len))
			continue;
		assert_int_equal(plan_objects_add(&objs, candidates[i], data, len), 0);
		free(data);
		for (j = 0; j < objs.objs[objs.n - 1].n_programs && !prog; j++) {
			if (objs.objs[objs.n - 1].program_types[j] == BPF_PROG_TYPE_SCHED_CLS) {
				name = candidates[i];
				prog = objs.objs[objs.n - 1].programs[j];
			}
		}
	}
	if (!prog) {
		plan_objects_release(&objs);
		skip_because("no object of the build has a tc program");
	}
	snprintf(variants, sizeof(variants),
		 "  v:\n    - {port: b, object: %s, program: %s}\n", name, prog);
	p = plan_with("plans/x.yaml", variants);
	assert_int_equal(plan_objects_check(p, &objs, &err), -EINVAL);
	snprintf(want, sizeof(want), "plans/x.yaml:6:%d: program '%s' is a tc program but hook is xdp",
		 p->variants[0].attach[0].program_col, prog);
	assert_string_equal(err.msg, want);
	plan_destroy(&p);
	plan_objects_release(&objs);
}

static void test_objects_add_check(void **state)
{
	struct plan *p = plan_with("plans/x.yaml",
		"  drop:\n"
		"    - {port: b, object: xdp_basic.bpf.o, program: xdp_drop}\n"
		"  other:\n"
		"    - {port: b, object: other.bpf.o, program: xdp_drop}\n");
	struct plan_objects objs = { 0 };
	struct err err;
	char sha[SHA256_HEX_LEN];
	char *data;
	size_t len;

	(void)state;
	read_basic(&data, &len);
	util_sha256_hex(data, len, sha);
	assert_int_equal(plan_objects_add(&objs, "xdp_basic.bpf.o", data, len), 0);
	assert_int_equal(objs.n, 1);
	assert_string_equal(objs.objs[0].sha256, sha);
	assert_ptr_not_equal(objs.objs[0].data, data);	/* a copy */
	assert_int_equal(objs.objs[0].n_programs, 3);
	assert_string_equal(objs.objs[0].path, "xdp_basic.bpf.o");
	assert_int_equal(plan_objects_add(&objs, "xdp_basic.bpf.o", data, len), -EEXIST);
	assert_int_equal(plan_objects_add(&objs, "junk.bpf.o", "not an ELF file", 15), -EINVAL);
	assert_int_equal(plan_objects_add(&objs, "empty.bpf.o", "", 0), -EINVAL);
	assert_int_equal(objs.n, 1);

	assert_int_equal(plan_objects_check(p, &objs, &err), -EINVAL);
	assert_string_equal(err.msg, "plans/x.yaml:8:25: object 'other.bpf.o' was not supplied with the plan");

	assert_int_equal(plan_objects_add(&objs, "other.bpf.o", data, len), 0);
	assert_int_equal(plan_objects_check(p, &objs, &err), 0);
	assert_string_equal(plan_objects_find(&objs, "other.bpf.o")->sha256, sha);
	plan_objects_release(&objs);
	free(data);
	plan_destroy(&p);
}

/* Maps filled from the plan and counters, against build/bpf/test_agent_maps.bpf.o. */
static void expect_maps_error(const char *variants, const char *expect)
{
	struct plan *p = plan_with("plans/x.yaml", variants);
	struct plan_objects objs;
	struct err err;

	assert_int_equal(plan_objects_resolve(p, BPF_DIR, &objs, &err), -EINVAL);
	assert_string_equal(err.msg, expect);
	plan_destroy(&p);
}

#define MAPS_ENTRY "  v:\n    - port: a\n      object: test_agent_maps.bpf.o\n" \
		   "      program: xdp_redirect_dev\n"

static void test_objects_maps(void **state)
{
	struct plan *p = plan_with("plans/x.yaml", MAPS_ENTRY
		"      maps:\n"
		"        tx_port: [{key: 0, port: b}, {key: 1, port: b, program: xdp_devmap_prog}]\n"
		"        tx_hash: [{key: 7, port: a}]\n"
		"        cpu_map: [{key: 1, qsize: 2048, program: xdp_cpumap_prog}]\n"
		"        config: [{key: 0, value: 1}]\n"
		"        cfg_hash: [{key: 99, value: 3}]\n"
		"      counters: [{map: stats, keys: {0: rx, 3: dropped}}]\n");
	struct plan_objects objs;
	struct err err;
	const struct plan_object *o;
	int i;

	(void)state;
	if (plan_objects_resolve(p, BPF_DIR, &objs, &err))
		fail_msg("refused: %s", err.msg);
	o = plan_objects_find(&objs, "test_agent_maps.bpf.o");
	assert_non_null(o);
	assert_int_equal(o->n_maps, 6);		/* no .bss or .rodata */
	for (i = 0; i < o->n_maps && strcmp(o->maps[i], "stats"); i++)
		;
	assert_true(i < o->n_maps);
	assert_int_equal(o->map_types[i], BPF_MAP_TYPE_PERCPU_ARRAY);
	assert_int_equal(o->map_value_sizes[i], 8);
	assert_int_equal(o->map_max_entries[i], 4);
	plan_objects_release(&objs);
	plan_destroy(&p);

	expect_maps_error(MAPS_ENTRY "      maps: {tx_prot: [{key: 0, port: b}]}\n",
			  "plans/x.yaml:9:14: unknown map 'tx_prot' in 'test_agent_maps.bpf.o' (it has: tx_port, cpu_map, stats, config, cfg_hash, tx_hash)");
	expect_maps_error(MAPS_ENTRY "      maps: {cpu_map: [{key: 0, port: b}]}\n",
			  "plans/x.yaml:9:24: map 'cpu_map' is a cpumap map: port slots need a devmap or devmap_hash");
	expect_maps_error(MAPS_ENTRY "      maps: {tx_port: [{key: 0, qsize: 64}]}\n",
			  "plans/x.yaml:9:24: map 'tx_port' is a devmap map: qsize slots need a cpumap");
	expect_maps_error(MAPS_ENTRY "      maps: {stats: [{key: 0, value: 1}]}\n",
			  "plans/x.yaml:9:22: map 'stats' is a percpu_array map: value slots need an array, hash or lru_hash");
	expect_maps_error(MAPS_ENTRY "      maps: {tx_port: [{key: 4, port: b}]}\n",
			  "plans/x.yaml:9:24: key 4 is out of map 'tx_port' (max_entries 4)");
	expect_maps_error(MAPS_ENTRY "      maps: {tx_port: [{key: 0, port: b, program: xdp_2nd}]}\n",
			  "plans/x.yaml:9:51: unknown program 'xdp_2nd' in 'test_agent_maps.bpf.o' (it has: xdp_redirect_dev, xdp_redirect_cpu, xdp_count_drop, xdp_devmap_prog, xdp_cpumap_prog, tc_not_xdp)");
	expect_maps_error(MAPS_ENTRY "      maps: {cpu_map: [{key: 0, qsize: 8, program: tc_not_xdp}]}\n",
			  "plans/x.yaml:9:52: program 'tc_not_xdp' is a tc program but a cpumap slot needs an xdp program (SEC(\"xdp/cpumap\"))");
	expect_maps_error(MAPS_ENTRY "      counters: [{map: config, keys: {0: x}}]\n",
			  "plans/x.yaml:9:24: counters map 'config' must be a percpu_array of 8-byte values, not a array map of 4-byte values");
	expect_maps_error(MAPS_ENTRY "      counters: [{map: stats, keys: {4: x}}]\n",
			  "plans/x.yaml:9:38: key 4 is out of map 'stats' (max_entries 4)");
}

/* --- the coordinator's cache of encoded objects --- */

/* A store of objects for the cache's loader: bytes by sha256, and how often each was
 * read. */
struct fake_store {
	struct {
		char sha[SHA256_HEX_LEN];
		const char *bytes;
		size_t len;
		int reads;
	} obj[8];
	int n;
	int fail;			/* -errno for every read, or 0 */
	const char *lie;		/* bytes handed out instead of the stored ones */
};

static const char *fake_add(struct fake_store *fs, const char *bytes)
{
	int i = fs->n++;

	fs->obj[i].bytes = bytes;
	fs->obj[i].len = strlen(bytes);
	util_sha256_hex(bytes, fs->obj[i].len, fs->obj[i].sha);
	return fs->obj[i].sha;
}

static int fake_reads(const struct fake_store *fs, const char *sha)
{
	int i;

	for (i = 0; i < fs->n; i++)
		if (!strcmp(fs->obj[i].sha, sha))
			return fs->obj[i].reads;
	return -1;
}

static int fake_load(void *arg, const char *sha, void **data, size_t *len)
{
	struct fake_store *fs = arg;
	const char *bytes;
	int i;

	if (fs->fail)
		return fs->fail;
	for (i = 0; i < fs->n; i++) {
		if (strcmp(fs->obj[i].sha, sha))
			continue;
		fs->obj[i].reads++;
		bytes = fs->lie ? fs->lie : fs->obj[i].bytes;
		*len = strlen(bytes);
		*data = malloc(*len + 1);
		memcpy(*data, bytes, *len + 1);
		return 0;
	}
	return -ENOENT;
}

/* ENTRY is {"sha256": SHA, "data": base64 of BYTES}. */
static void assert_entry(const json_t *entry, const char *sha, const char *bytes)
{
	void *raw = NULL;
	size_t len = 0;

	assert_non_null(entry);
	assert_string_equal(json_string_value(json_object_get(entry, "sha256")), sha);
	assert_int_equal(util_base64_decode(json_string_value(json_object_get(entry, "data")),
					    &raw, &len), 0);
	assert_int_equal(len, strlen(bytes));
	assert_memory_equal(raw, bytes, len);
	free(raw);
}

static void assert_stats(const struct object_cache *c, unsigned long hits,
			 unsigned long misses, unsigned long evictions, int entries)
{
	struct object_cache_stats st;

	object_cache_get_stats(c, &st);
	assert_int_equal(st.hits, hits);
	assert_int_equal(st.misses, misses);
	assert_int_equal(st.evictions, evictions);
	assert_int_equal(st.entries, entries);
}

static void test_objects_cache_hit(void **state)
{
	struct fake_store fs = { 0 };
	struct object_cache *c = object_cache_new(4, 1 << 20);
	const char *sha = fake_add(&fs, "an object of a run");
	json_t *e1, *e2;

	(void)state;
	assert_non_null(c);
	e1 = object_cache_get(c, sha, fake_load, &fs);
	assert_entry(e1, sha, "an object of a run");
	e2 = object_cache_get(c, sha, fake_load, &fs);
	/* the second job of the run: the same entry, not read or encoded again */
	assert_ptr_equal(e2, e1);
	assert_int_equal(fake_reads(&fs, sha), 1);
	assert_stats(c, 1, 1, 0, 1);
	json_decref(e2);

	/* an entry outlives the cache in the messages that hold it */
	object_cache_destroy(&c);
	assert_null(c);
	object_cache_destroy(&c);
	assert_entry(e1, sha, "an object of a run");
	json_decref(e1);
}

static void test_objects_cache_sha_change(void **state)
{
	struct fake_store fs = { 0 };
	struct object_cache *c = object_cache_new(4, 1 << 20);
	const char *old = fake_add(&fs, "xdp_basic.bpf.o as built first");
	const char *rebuilt = fake_add(&fs, "xdp_basic.bpf.o as built again");
	json_t *e;

	(void)state;
	json_decref(object_cache_get(c, old, fake_load, &fs));
	/* the file changed and was submitted again: another sha256, a miss with its bytes */
	e = object_cache_get(c, rebuilt, fake_load, &fs);
	assert_entry(e, rebuilt, "xdp_basic.bpf.o as built again");
	json_decref(e);
	assert_int_equal(fake_reads(&fs, rebuilt), 1);
	assert_stats(c, 0, 2, 0, 2);
	/* the old run's entry still is the old bytes */
	e = object_cache_get(c, old, fake_load, &fs);
	assert_entry(e, old, "xdp_basic.bpf.o as built first");
	json_decref(e);
	assert_int_equal(fake_reads(&fs, old), 1);
	assert_stats(c, 1, 2, 0, 2);

	/* bytes that do not hash to the key are refused and not kept */
	fs.lie = "other bytes under that sha256";
	fs.obj[0].sha[0] = fs.obj[0].sha[0] == 'a' ? 'b' : 'a';
	assert_null(object_cache_get(c, fs.obj[0].sha, fake_load, &fs));
	assert_int_equal(errno, EBADMSG);
	assert_null(object_cache_get(c, fs.obj[0].sha, fake_load, &fs));
	assert_int_equal(fs.obj[0].reads, 3);
	assert_stats(c, 1, 4, 0, 2);
	object_cache_destroy(&c);
}

static void test_objects_cache_eviction(void **state)
{
	struct fake_store fs = { 0 };
	struct object_cache *c = object_cache_new(2, 1 << 20);
	const char *a = fake_add(&fs, "object a");
	const char *b = fake_add(&fs, "object b");
	const char *d = fake_add(&fs, "object d");
	const char *big = fake_add(&fs, "an object of more than forty base64 characters");
	struct object_cache_stats st;

	(void)state;
	json_decref(object_cache_get(c, a, fake_load, &fs));
	json_decref(object_cache_get(c, b, fake_load, &fs));
	json_decref(object_cache_get(c, a, fake_load, &fs));	/* a is the latest used */
	json_decref(object_cache_get(c, d, fake_load, &fs));	/* b goes */
	assert_stats(c, 1, 3, 1, 2);
	json_decref(object_cache_get(c, a, fake_load, &fs));
	assert_int_equal(fake_reads(&fs, a), 1);
	json_decref(object_cache_get(c, b, fake_load, &fs));	/* read again; d goes */
	assert_int_equal(fake_reads(&fs, b), 2);
	json_decref(object_cache_get(c, d, fake_load, &fs));
	assert_int_equal(fake_reads(&fs, d), 2);
	assert_stats(c, 2, 5, 3, 2);
	object_cache_destroy(&c);

	/* the byte limit: 12 base64 characters an object above, 40 in all */
	c = object_cache_new(8, 40);
	json_decref(object_cache_get(c, a, fake_load, &fs));
	json_decref(object_cache_get(c, b, fake_load, &fs));
	json_decref(object_cache_get(c, d, fake_load, &fs));
	assert_stats(c, 0, 3, 0, 3);
	json_decref(object_cache_get(c, b, fake_load, &fs));
	json_decref(object_cache_get(c, big, fake_load, &fs));	/* larger than all: not kept */
	assert_int_equal(fake_reads(&fs, big), 1);
	assert_stats(c, 1, 4, 0, 3);
	fs.obj[3].bytes = fs.obj[3].bytes + 30;			/* 16 bytes: 24 characters */
	util_sha256_hex(fs.obj[3].bytes, strlen(fs.obj[3].bytes), fs.obj[3].sha);
	json_decref(object_cache_get(c, fs.obj[3].sha, fake_load, &fs));
	/* 36 + 24 > 40: a and d (least recently used first) go, b stays */
	assert_stats(c, 1, 5, 2, 2);
	object_cache_get_stats(c, &st);
	assert_int_equal(st.bytes, 12 + 24);
	json_decref(object_cache_get(c, b, fake_load, &fs));
	assert_int_equal(fake_reads(&fs, b), 3);
	assert_stats(c, 2, 5, 2, 2);
	object_cache_destroy(&c);
}

static void test_objects_cache_errors(void **state)
{
	struct fake_store fs = { 0 };
	struct object_cache *c = object_cache_new(2, 1 << 20);
	char sha[SHA256_HEX_LEN];

	(void)state;
	util_sha256_hex("nowhere", 7, sha);
	assert_null(object_cache_get(c, sha, fake_load, &fs));
	assert_int_equal(errno, ENOENT);
	fake_add(&fs, "here");
	fs.fail = -EIO;
	assert_null(object_cache_get(c, fs.obj[0].sha, fake_load, &fs));
	assert_int_equal(errno, EIO);
	assert_null(object_cache_get(c, "0123", fake_load, &fs));
	assert_int_equal(errno, EINVAL);
	sha[3] = 'A';		/* hex digits are lowercase, as the store keeps them */
	assert_null(object_cache_get(c, sha, fake_load, &fs));
	assert_int_equal(errno, EINVAL);
	assert_stats(c, 0, 2, 0, 0);
	object_cache_destroy(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_objects_resolve),
		cmocka_unit_test(test_objects_unknown_program),
		cmocka_unit_test(test_objects_missing),
		cmocka_unit_test(test_objects_wrong_type),
		cmocka_unit_test(test_objects_tc_on_xdp),
		cmocka_unit_test(test_objects_add_check),
		cmocka_unit_test(test_objects_maps),
		cmocka_unit_test(test_objects_cache_hit),
		cmocka_unit_test(test_objects_cache_sha_change),
		cmocka_unit_test(test_objects_cache_eviction),
		cmocka_unit_test(test_objects_cache_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
