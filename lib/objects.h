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

#include "plan.h"

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
 * -errno with ERR set (-ENOENT for a missing object, -EINVAL for an unknown program or a
 * program of the wrong type). OUT is filled on success and must be released. */
int plan_objects_resolve(const struct plan *plan, const char *bpf_dir,
			 struct plan_objects *out, struct plan_error *err);
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
 * with the right type). Returns 0 or -EINVAL with ERR set. */
int plan_objects_check(const struct plan *plan, const struct plan_objects *objs,
		       struct plan_error *err);
void plan_objects_release(struct plan_objects *objs);

#endif
