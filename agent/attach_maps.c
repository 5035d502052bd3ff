// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* attach_maps.c - the maps of a loaded attach entry (attach_int.h): its map slots
 * filled from the plan (devmap, cpumap, array and hash values) and its counters
 * (per-CPU u64 slots, summed when read: attach_counter_read()). */
#include "attach.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attach_int.h"
#include "base/log.h"

/* V as LEN little-endian bytes into OUT (zero-padded); -ERANGE when it does not fit
 * (as unsigned, or as signed when SIGNED_OK and negative). */
static int put_le(long long v, bool signed_ok, unsigned char *out, size_t len)
{
	unsigned long long u = (unsigned long long)v;
	size_t i;

	if (v < 0 && !signed_ok)
		return -ERANGE;
	if (len < 8) {
		long long lo = signed_ok ? -(1LL << (len * 8 - 1)) : 0;
		unsigned long long hi = (1ULL << (len * 8)) - 1;

		if (v < lo || (v >= 0 && u > hi))
			return -ERANGE;
	}
	memset(out, 0, len);
	for (i = 0; i < len && i < 8; i++)
		out[i] = (unsigned char)(u >> (8 * i));
	return 0;
}

/* Fill the map slots of prog I's attach entry (docs/plans.md, "maps"). */
int attach_fill_maps(struct attach_set *set, int i, const struct attach_opts *o,
		     struct err *err)
{
	const struct attach_prog *p = &set->progs[i];
	struct bpf_object *obj = set->insts[set->prog_inst[i]].obj;
	const struct job_attach *a = &set->entries[i];
	unsigned char key[64], value[64];
	int e, k, m, j;

	for (m = 0; m < a->n_maps; m++) {
		const char *name = a->maps[m].name;
		struct bpf_map *map = bpf_object__find_map_by_name(obj, name);
		enum bpf_map_type type;
		size_t ks, vs;

		if (!map) {
			err_at(err, NULL, 0, 0, "object '%s' has no map '%s'", p->object, name);
			return -ENOENT;
		}
		type = bpf_map__type(map);
		ks = bpf_map__key_size(map);
		vs = bpf_map__value_size(map);
		if (ks > sizeof(key) || vs > sizeof(value)) {
			err_at(err, NULL, 0, 0, "map '%s' has a %zu-byte key and a %zu-byte value: too large to fill from a plan",
			       name, ks, vs);
			return -E2BIG;
		}
		for (j = 0; j < a->maps[m].n_slots; j++) {
			const struct job_slot *slot = &a->maps[m].slots[j];
			const char *port = slot->port, *prog_name = slot->program;
			long long kv = slot->key;
			int prog_fd = -1;

			if (put_le(kv, false, key, ks)) {
				err_at(err, NULL, 0, 0, "map '%s': key %lld does not fit its %zu-byte key",
				       name, kv, ks);
				return -ERANGE;
			}
			if (prog_name) {
				struct bpf_program *sp = bpf_object__find_program_by_name(obj, prog_name);

				prog_fd = sp ? bpf_program__fd(sp) : -1;
				if (prog_fd < 0) {
					err_at(err, NULL, 0, 0, "map '%s': program '%s' is not loaded", name,
					       prog_name);
					return -ENOENT;
				}
				if (vs < 8) {
					err_at(err, NULL, 0, 0, "map '%s' has %zu-byte values: no room for program '%s' (use struct bpf_%s_val)",
					       name, vs, prog_name,
					       type == BPF_MAP_TYPE_CPUMAP ? "cpumap" : "devmap");
					return -EINVAL;
				}
			}
			memset(value, 0, sizeof(value));
			if (port && (type == BPF_MAP_TYPE_DEVMAP || type == BPF_MAP_TYPE_DEVMAP_HASH)) {
				struct bpf_devmap_val dv = { 0 };

				for (k = 0; k < o->n_ports && strcmp(o->ports[k].role, port); k++)
					;
				if (k == o->n_ports) {
					err_at(err, NULL, 0, 0, "map '%s': port role '%s' is not one of the job's ports",
					       name, port);
					return -ENODEV;
				}
				dv.ifindex = (__u32)o->ports[k].ifindex;
				dv.bpf_prog.fd = prog_fd;
				memcpy(value, &dv, vs < sizeof(dv) ? vs : sizeof(dv));
			} else if (slot->qsize && type == BPF_MAP_TYPE_CPUMAP) {
				struct bpf_cpumap_val cv = { 0 };

				if (kv >= set->n_cpus) {
					err_at(err, NULL, 0, 0, "map '%s': cpumap key %lld is not a CPU of this host (it has %d)",
					       name, kv, set->n_cpus);
					return -ERANGE;
				}
				cv.qsize = (__u32)slot->qsize;
				cv.bpf_prog.fd = prog_fd;
				memcpy(value, &cv, vs < sizeof(cv) ? vs : sizeof(cv));
			} else if (slot->has_value && (type == BPF_MAP_TYPE_ARRAY ||
							type == BPF_MAP_TYPE_HASH ||
							type == BPF_MAP_TYPE_LRU_HASH)) {
				if (put_le(slot->value, true, value, vs)) {
					err_at(err, NULL, 0, 0, "map '%s': value %lld does not fit its %zu-byte value",
					       name, slot->value, vs);
					return -ERANGE;
				}
			} else {
				err_at(err, NULL, 0, 0, "map '%s' (%s) cannot take slot %d (port for devmap, qsize for cpumap, value for array and hash)",
				       name, libbpf_bpf_map_type_str(type) ?: "?", j);
				return -EINVAL;
			}
			e = bpf_map_update_elem(bpf_map__fd(map), key, value, BPF_ANY);
			if (e) {
				e = -errno;
				err_set(err, "cannot fill map '%s' key %lld of '%s': %s", name,
					kv, p->object, strerror(-e));
				return e;
			}
			pr_debug("filled map '%s' key %lld of '%s'%s%s", name, kv, p->object,
				 prog_name ? " with program " : "", prog_name ? prog_name : "");
		}
	}
	return 0;
}

/* Record the counters of prog I's attach entry. */
int attach_add_counters(struct attach_set *set, int i, struct err *err)
{
	struct bpf_object *obj = set->insts[set->prog_inst[i]].obj;
	const struct job_attach *a = &set->entries[i];
	int j, k;

	for (j = 0; j < a->n_counters; j++) {
		const struct job_counters *c = &a->counters[j];
		const char *mname = c->map;
		struct bpf_map *map = mname ? bpf_object__find_map_by_name(obj, mname) : NULL;

		if (!map) {
			err_at(err, NULL, 0, 0, "object '%s' has no counters map '%s'",
			       set->progs[i].object, mname ? mname : "?");
			return -ENOENT;
		}
		if (bpf_map__type(map) != BPF_MAP_TYPE_PERCPU_ARRAY ||
		    bpf_map__value_size(map) != 8) {
			err_at(err, NULL, 0, 0, "counters map '%s' is not a percpu_array of u64", mname);
			return -EINVAL;
		}
		for (k = 0; k < c->n_keys; k++) {
			const struct job_counter_key *key = &c->keys[k];
			struct attach_counter *nc;

			if (key->index >= bpf_map__max_entries(map)) {
				err_at(err, NULL, 0, 0, "counters map '%s': bad key '%u'", mname,
				       key->index);
				return -EINVAL;
			}
			nc = realloc(set->counters, (set->n_counters + 1) * sizeof(*nc));
			if (!nc) {
				err_set(err, "out of memory");
				return -ENOMEM;
			}
			set->counters = nc;
			nc = &set->counters[set->n_counters];
			memset(nc, 0, sizeof(*nc));
			nc->name = strdup(key->name);
			nc->map = strdup(mname);
			nc->map_fd = bpf_map__fd(map);
			nc->key = key->index;
			set->n_counters++;
			if (!nc->name || !nc->map) {
				err_set(err, "out of memory");
				return -ENOMEM;
			}
		}
	}
	return 0;
}

int attach_counter_count(const struct attach_set *set)
{
	return set ? set->n_counters : 0;
}

const struct attach_counter *attach_counter_get(const struct attach_set *set, int i)
{
	return set && i >= 0 && i < set->n_counters ? &set->counters[i] : NULL;
}

int attach_counter_read(struct attach_set *set, int i, uint64_t *sum)
{
	const struct attach_counter *c = attach_counter_get(set, i);
	int cpu;

	if (!c)
		return -EINVAL;
	if (bpf_map_lookup_elem(c->map_fd, &c->key, set->percpu))
		return -errno;
	*sum = 0;
	for (cpu = 0; cpu < set->n_cpus; cpu++)
		*sum += set->percpu[cpu];
	return 0;
}
