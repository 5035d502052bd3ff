/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* objects.h - finding, hashing and checking the BPF objects a plan names.
 *
 * A plan's attach entries name an object either by file name (looked up in the BPF
 * object directory, build/bpf by default) or by a path containing '/' (relative to the
 * plan file's directory). Resolution reads each object once, records its SHA-256, opens it
 * with libbpf without loading it (no privileges needed) and checks that every named
 * program exists and is of the right type for its hook (XDP for xdp, SCHED_CLS for tc).
 * Maps filled from the plan must exist with a type that fits the slot (devmap for port,
 * cpumap for qsize, array or hash for value), a slot's program must be an XDP program of
 * the object, and a counters map must be a per-CPU array of u64 with the named slots.
 * Errors point at the plan: "FILE:LINE:COLUMN: unknown program 'x' in 'o.bpf.o' ...".
 *
 * The CLI resolves objects before submitting and ships their bytes with the run, so an
 * agent runs exactly the object that was checked (the job spec carries the sha256).
 */
#ifndef BPFLAB_OBJECTS_H
#define BPFLAB_OBJECTS_H

#include <jansson.h>
#include <stddef.h>

#include "plan/plan.h"

struct plan_object {
	char *name;			/* as written in the plan */
	char *path;			/* where it was read from */
	char sha256[65];
	void *data;			/* the object file's bytes (owned) */
	size_t len;
	char **programs;		/* program names in the object */
	int *program_types;		/* enum bpf_prog_type of each program (libbpf's guess
					 * from the section name) */
	int n_programs;
	char **maps;			/* map names (those of .maps; not .rodata and the like) */
	int *map_types;			/* enum bpf_map_type of each map */
	unsigned int *map_value_sizes;
	unsigned int *map_max_entries;
	int n_maps;
};

#define PLAN_OBJECT_MAX_BYTES (8u << 20)	/* larger object files are refused */

struct plan_objects {
	struct plan_object *objs;
	int n;
};

/* Resolve every object PLAN names, looking up bare names in BPF_DIR. Returns 0, or
 * -errno with ERR set, marked input for the plan's faults (a missing object, an unknown
 * program, a program of the wrong type) but not for an object that cannot be read or is
 * too large. OUT is filled on success and must be released. */
int plan_objects_resolve(const struct plan *plan, const char *bpf_dir,
			 struct plan_objects *out, struct err *err);
/* Build from bytes already at hand (the coordinator, from a submit message): NAME ->
 * DATA. Computes sha256 and the program list. Returns 0 or -errno (-EEXIST for a name
 * already in OBJS, -EFBIG above PLAN_OBJECT_MAX_BYTES, -EINVAL for bytes that libbpf cannot
 * open as a BPF object). DATA is copied. libbpf's messages while opening go to pr_debug
 * (libbpf_set_print is swapped for the call, so do not open objects from two threads). */
int plan_objects_add(struct plan_objects *objs, const char *name, const void *data,
		     size_t len);
const struct plan_object *plan_objects_find(const struct plan_objects *objs,
					    const char *name);
/* Check PLAN against objects already in OBJS (every name present, every program exists
 * with the right type). Returns 0 or -EINVAL with ERR set (input). */
int plan_objects_check(const struct plan *plan, const struct plan_objects *objs,
		       struct err *err);
void plan_objects_release(struct plan_objects *objs);

/* --- encoded objects for `job` messages (the coordinator; the agent, agent/objstore.h) ---
 *
 * A `job` message carries each object it attaches as {"sha256": HEX, "data": BASE64}
 * (docs/protocol.md), and every job of a run carries the same objects. A struct
 * object_cache keeps the latest few such entries by sha256, so that an object is read
 * and encoded once per run rather than once per job: at most SLOTS entries and MAX_BYTES
 * of base64 in all, the least recently used going first; an object larger than MAX_BYTES
 * is encoded for each message and not kept. An entry cannot go stale: an object's bytes
 * are stored under their sha256 and the entry is checked against it when it is made, so
 * other bytes (an object file rebuilt and submitted again) are another sha256, a miss.
 * One thread; an entry is an immutable jansson object shared by reference. */

#define OBJECT_CACHE_SLOTS 8
#define OBJECT_CACHE_BYTES (32u << 20)

struct object_cache;

/* Reads the bytes of the object whose hex sha256 is SHA256 into *DATA (heap; the cache
 * frees it) and *LEN. Returns 0 or -errno. */
typedef int (*object_load_fn)(void *arg, const char *sha256, void **data, size_t *len);

struct object_cache_stats {
	unsigned long hits, misses, evictions;
	int entries;			/* kept now */
	size_t bytes;			/* of base64 kept now */
};

/* A cache of SLOTS entries (at least 1) and MAX_BYTES of base64, or NULL (ENOMEM). */
struct object_cache *object_cache_new(int slots, size_t max_bytes);
/* Frees the cache (the entries live on in messages that hold a reference); takes NULL,
 * sets *CP to NULL. */
void object_cache_destroy(struct object_cache **cp);
/* The entry {"sha256", "data"} of object SHA256 (64 lowercase hex digits), a new
 * reference: kept, or read with LOAD(ARG, ...) and encoded. NULL with errno set: the
 * loader's error (ENOENT: no such object), EBADMSG when the bytes read do not hash to
 * SHA256 (nothing kept), EINVAL for a malformed SHA256, ENOMEM. */
json_t *object_cache_get(struct object_cache *c, const char *sha256, object_load_fn load,
			 void *arg);
void object_cache_get_stats(const struct object_cache *c, struct object_cache_stats *out);

#endif
