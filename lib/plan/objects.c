// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* objects.c - see objects.h. Finding the BPF objects a plan names, hashing them, and
 * checking their programs with libbpf (open only: no load, no privileges).
 *
 * libbpf prints its own complaints about odd ELF files through its global print
 * callback; while an object is opened here that callback is swapped for one that sends
 * them to pr_debug and is restored afterwards, so a plan check stays quiet unless -vv.
 * That swap is process-wide: open objects from one thread at a time (the CLI and the
 * coordinator's main loop do).
 *
 * The object cache at the end (object_cache_*) holds the base64 entries of `job`
 * messages by sha256 (objects.h): the coordinator's, and the agent's kept objects.
 */
#include "plan/objects.h"
#include "base/log.h"
#include "base/util.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BPF_DIR "build/bpf"

static int objects_quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	pr_debug("%s", line);
	return 0;
}

static void object_release(struct plan_object *o)
{
	int i;

	for (i = 0; i < o->n_programs; i++)
		free(o->programs[i]);
	free(o->programs);
	free(o->program_types);
	for (i = 0; i < o->n_maps; i++)
		free(o->maps[i]);
	free(o->maps);
	free(o->map_types);
	free(o->map_value_sizes);
	free(o->map_max_entries);
	free(o->name);
	free(o->path);
	free(o->data);
	memset(o, 0, sizeof(*o));
}

void plan_objects_release(struct plan_objects *objs)
{
	int i;

	if (!objs)
		return;
	for (i = 0; i < objs->n; i++)
		object_release(&objs->objs[i]);
	free(objs->objs);
	objs->objs = NULL;
	objs->n = 0;
}

const struct plan_object *plan_objects_find(const struct plan_objects *objs,
					    const char *name)
{
	int i;

	for (i = 0; objs && name && i < objs->n; i++) {
		if (!strcmp(objs->objs[i].name, name))
			return &objs->objs[i];
	}
	return NULL;
}

/* List the programs of DATA into O with libbpf. Returns 0, -EINVAL for bytes libbpf
 * cannot open as a BPF object, -ENOMEM. */
static int object_scan(struct plan_object *o)
{
	const char *base = strrchr(o->name, '/');
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = base ? base + 1 : o->name);
	libbpf_print_fn_t old_print;
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *map;
	int n = 0, ret = 0;

	old_print = libbpf_set_print(objects_quiet_print);
	obj = bpf_object__open_mem(o->data, o->len, &opts);
	ret = obj ? 0 : -errno;
	libbpf_set_print(old_print);
	if (!obj) {
		char why[128];

		libbpf_strerror(ret, why, sizeof(why));
		pr_debug("cannot open '%s' as a BPF object: %s", o->name, why);
		return ret == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	bpf_object__for_each_program(prog, obj)
		n++;
	o->programs = calloc(n ? n : 1, sizeof(*o->programs));
	o->program_types = calloc(n ? n : 1, sizeof(*o->program_types));
	if (!o->programs || !o->program_types) {
		ret = -ENOMEM;
		goto out;
	}
	bpf_object__for_each_program(prog, obj) {
		char *name = strdup(bpf_program__name(prog));

		if (!name) {
			ret = -ENOMEM;
			goto out;
		}
		o->programs[o->n_programs] = name;
		o->program_types[o->n_programs++] = (int)bpf_program__type(prog);
	}
	n = 0;
	bpf_object__for_each_map(map, obj)
		n++;
	o->maps = calloc(n ? n : 1, sizeof(*o->maps));
	o->map_types = calloc(n ? n : 1, sizeof(*o->map_types));
	o->map_value_sizes = calloc(n ? n : 1, sizeof(*o->map_value_sizes));
	o->map_max_entries = calloc(n ? n : 1, sizeof(*o->map_max_entries));
	if (!o->maps || !o->map_types || !o->map_value_sizes || !o->map_max_entries) {
		ret = -ENOMEM;
		goto out;
	}
	bpf_object__for_each_map(map, obj) {
		char *name;

		if (bpf_map__is_internal(map))	/* .rodata, .bss, .kconfig */
			continue;
		name = strdup(bpf_map__name(map));
		if (!name) {
			ret = -ENOMEM;
			goto out;
		}
		o->maps[o->n_maps] = name;
		o->map_types[o->n_maps] = (int)bpf_map__type(map);
		o->map_value_sizes[o->n_maps] = bpf_map__value_size(map);
		o->map_max_entries[o->n_maps++] = bpf_map__max_entries(map);
	}
out:
	bpf_object__close(obj);
	return ret;
}

/* Add NAME (read from PATH, or NULL) with DATA of LEN bytes, taking DATA over. */
static int objects_add_owned(struct plan_objects *objs, const char *name, const char *path,
			     void *data, size_t len)
{
	struct plan_object *nobjs, *o;
	int ret;

	if (plan_objects_find(objs, name)) {
		free(data);
		return -EEXIST;
	}
	if (len > PLAN_OBJECT_MAX_BYTES) {
		free(data);
		return -EFBIG;
	}
	nobjs = realloc(objs->objs, (objs->n + 1) * sizeof(*nobjs));
	if (!nobjs) {
		free(data);
		return -ENOMEM;
	}
	objs->objs = nobjs;
	o = &objs->objs[objs->n];
	memset(o, 0, sizeof(*o));
	o->data = data;
	o->len = len;
	o->name = strdup(name);
	o->path = strdup(path ? path : name);
	if (!o->name || !o->path) {
		ret = -ENOMEM;
		goto fail;
	}
	util_sha256_hex(data, len, o->sha256);
	ret = object_scan(o);
	if (ret)
		goto fail;
	objs->n++;
	return 0;
fail:
	object_release(o);
	return ret;
}

int plan_objects_add(struct plan_objects *objs, const char *name, const void *data,
		     size_t len)
{
	void *copy;

	if (!objs || !name || (!data && len))
		return -EINVAL;
	if (len > PLAN_OBJECT_MAX_BYTES)
		return -EFBIG;
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, data, len);
	return objects_add_owned(objs, name, NULL, copy, len);
}

static int obj_error(struct err *err, const struct plan *plan, int line, int col,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* "FILE:LINE:COL: message" into ERR, a fault of the plan (err_at). Returns -EINVAL. */
static int obj_error(struct err *err, const struct plan *plan, int line, int col,
		     const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_at(err, plan->file, line, col, "%s", msg);
}

/* "an xdp", "a tc", "a kprobe" */
static const char *prog_kind(int type, char *buf, size_t len)
{
	const char *name;

	if (type == BPF_PROG_TYPE_XDP)
		return "an xdp";
	if (type == BPF_PROG_TYPE_SCHED_CLS)
		return "a tc";
	name = libbpf_bpf_prog_type_str((enum bpf_prog_type)type);
	if (!name)
		name = "unknown";
	snprintf(buf, len, "%s %s", strchr("aeiou", name[0]) ? "an" : "a", name);
	return buf;
}

/* "a, b, c" of N names, cut short with ", ..." */
static const char *name_list(char *const *names, int n, char *list, size_t len)
{
	size_t off = 0;
	int i;

	list[0] = '\0';
	for (i = 0; i < n; i++) {
		size_t need = strlen(names[i]) + 2;

		if (off + need + 6 >= len) {
			snprintf(list + off, len - off, ", ...");
			break;
		}
		off += (size_t)snprintf(list + off, len - off, "%s%s", i ? ", " : "", names[i]);
	}
	return list;
}

/* Index of map NAME in O, or an error at LINE:COL (-EINVAL). */
static int find_map(const struct plan *plan, const struct plan_object *o, const char *name,
		    int line, int col, struct err *err)
{
	char list[600];
	int i;

	for (i = 0; i < o->n_maps; i++) {
		if (!strcmp(o->maps[i], name))
			return i;
	}
	if (!o->n_maps)
		return obj_error(err, plan, line, col, "unknown map '%s' in '%s' (it has no maps)",
				 name, o->name);
	return obj_error(err, plan, line, col, "unknown map '%s' in '%s' (it has: %s)", name,
			 o->name, name_list(o->maps, o->n_maps, list, sizeof(list)));
}

static const char *map_type_text(int type)
{
	const char *name = libbpf_bpf_map_type_str((enum bpf_map_type)type);

	return name ? name : "unknown";
}

/* The maps and counters of attach entry A against its object O. */
static int check_fills(const struct plan *plan, const struct plan_attach *a,
		       const struct plan_object *o, struct err *err)
{
	char list[600], kind[64];
	int i, m, j;

	for (i = 0; i < a->n_fills; i++) {
		const struct plan_map_fill *f = &a->fills[i];
		int t;

		m = find_map(plan, o, f->map, f->map_line, f->map_col, err);
		if (m < 0)
			return m;
		t = o->map_types[m];
		if (f->port && t != BPF_MAP_TYPE_DEVMAP && t != BPF_MAP_TYPE_DEVMAP_HASH)
			return obj_error(err, plan, f->line, f->col,
					 "map '%s' is a %s map: port slots need a devmap or devmap_hash",
					 f->map, map_type_text(t));
		if (f->qsize && t != BPF_MAP_TYPE_CPUMAP)
			return obj_error(err, plan, f->line, f->col,
					 "map '%s' is a %s map: qsize slots need a cpumap", f->map,
					 map_type_text(t));
		if (f->has_value && t != BPF_MAP_TYPE_ARRAY && t != BPF_MAP_TYPE_HASH &&
		    t != BPF_MAP_TYPE_LRU_HASH)
			return obj_error(err, plan, f->line, f->col,
					 "map '%s' is a %s map: value slots need an array, hash or lru_hash",
					 f->map, map_type_text(t));
		if ((t == BPF_MAP_TYPE_ARRAY || t == BPF_MAP_TYPE_DEVMAP ||
		     t == BPF_MAP_TYPE_CPUMAP) && (unsigned long long)f->key >= o->map_max_entries[m])
			return obj_error(err, plan, f->line, f->col,
					 "key %lld is out of map '%s' (max_entries %u)", f->key, f->map,
					 o->map_max_entries[m]);
		if (!f->program)
			continue;
		for (j = 0; j < o->n_programs; j++) {
			if (!strcmp(o->programs[j], f->program))
				break;
		}
		if (j == o->n_programs)
			return obj_error(err, plan, f->program_line, f->program_col,
					 "unknown program '%s' in '%s' (it has: %s)", f->program,
					 o->name, name_list(o->programs, o->n_programs, list,
							    sizeof(list)));
		if (o->program_types[j] != BPF_PROG_TYPE_XDP)
			return obj_error(err, plan, f->program_line, f->program_col,
					 "program '%s' is %s program but a %s slot needs an xdp program (SEC(\"xdp/%s\"))",
					 f->program, prog_kind(o->program_types[j], kind, sizeof(kind)),
					 f->port ? "devmap" : "cpumap", f->port ? "devmap" : "cpumap");
	}
	for (i = 0; i < a->n_counters; i++) {
		const struct plan_counter *ct = &a->counters[i];

		m = find_map(plan, o, ct->map, ct->map_line, ct->map_col, err);
		if (m < 0)
			return m;
		if (o->map_types[m] != BPF_MAP_TYPE_PERCPU_ARRAY || o->map_value_sizes[m] != 8)
			return obj_error(err, plan, ct->map_line, ct->map_col,
					 "counters map '%s' must be a percpu_array of 8-byte values, not a %s map of %u-byte values",
					 ct->map, map_type_text(o->map_types[m]),
					 o->map_value_sizes[m]);
		if (ct->key >= o->map_max_entries[m])
			return obj_error(err, plan, ct->line, ct->col,
					 "key %u is out of map '%s' (max_entries %u)", ct->key, ct->map,
					 o->map_max_entries[m]);
	}
	return 0;
}

/* Check one attach entry against its object. */
static int check_attach(const struct plan *plan, const struct plan_attach *a,
			const struct plan_object *o, struct err *err)
{
	int want = a->hook == JOB_HOOK_XDP ? BPF_PROG_TYPE_XDP : BPF_PROG_TYPE_SCHED_CLS;
	char list[600], kind[64];
	size_t off = 0;
	int i;

	for (i = 0; i < o->n_programs; i++) {
		if (strcmp(o->programs[i], a->program))
			continue;
		if (o->program_types[i] == want)
			return check_fills(plan, a, o, err);
		return obj_error(err, plan, a->program_line, a->program_col,
				 "program '%s' is %s program but hook is %s", a->program,
				 prog_kind(o->program_types[i], kind, sizeof(kind)),
				 jobspec_hook_name(a->hook));
	}
	list[0] = '\0';
	for (i = 0; i < o->n_programs; i++) {
		size_t need = strlen(o->programs[i]) + 2;

		if (off + need + 4 >= sizeof(list)) {
			snprintf(list + off, sizeof(list) - off, ", ...");
			break;
		}
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					o->programs[i]);
	}
	if (!o->n_programs)
		return obj_error(err, plan, a->program_line, a->program_col,
				 "unknown program '%s' in '%s' (it has no programs)", a->program,
				 o->name);
	return obj_error(err, plan, a->program_line, a->program_col,
			 "unknown program '%s' in '%s' (it has: %s)", a->program, o->name, list);
}

int plan_objects_check(const struct plan *plan, const struct plan_objects *objs,
		       struct err *err)
{
	int v, i, ret;

	for (v = 0; v < plan->n_variants; v++) {
		for (i = 0; i < plan->variants[v].n_attach; i++) {
			const struct plan_attach *a = &plan->variants[v].attach[i];
			const struct plan_object *o = plan_objects_find(objs, a->object);

			if (!o)
				return obj_error(err, plan, a->object_line, a->object_col,
						 "object '%s' was not supplied with the plan",
						 a->object);
			ret = check_attach(plan, a, o, err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Where NAME is looked for: BPF_DIR/NAME for a bare name, else relative to the plan
 * file's directory (or as is when absolute). Heap string in *PATHP and the directory
 * looked in (for messages) in *DIRP. */
static int object_path(const struct plan *plan, const char *bpf_dir, const char *name,
		       char **pathp, char **dirp)
{
	const char *slash;
	char *dir;

	if (!strchr(name, '/')) {
		dir = strdup(bpf_dir);
	} else if (name[0] == '/') {
		dir = strdup("/");
	} else {
		slash = strrchr(plan->file, '/');
		dir = slash ? strndup(plan->file, (size_t)(slash - plan->file) + (slash == plan->file))
			    : strdup(".");
	}
	if (!dir)
		return -ENOMEM;
	if (name[0] == '/') {
		*pathp = strdup(name);
	} else if (asprintf(pathp, "%s%s%s", dir,
			    dir[strlen(dir) - 1] == '/' ? "" : "/", name) < 0) {
		*pathp = NULL;
	}
	if (!*pathp) {
		free(dir);
		return -ENOMEM;
	}
	*dirp = dir;
	return 0;
}

int plan_objects_resolve(const struct plan *plan, const char *bpf_dir,
			 struct plan_objects *out, struct err *err)
{
	char *path = NULL, *dir = NULL;
	int v, i, ret = 0;

	memset(out, 0, sizeof(*out));
	if (!bpf_dir || !*bpf_dir)
		bpf_dir = DEFAULT_BPF_DIR;
	for (v = 0; v < plan->n_variants && !ret; v++) {
		for (i = 0; i < plan->variants[v].n_attach && !ret; i++) {
			const struct plan_attach *a = &plan->variants[v].attach[i];
			const struct plan_object *o = plan_objects_find(out, a->object);
			char *data = NULL;
			size_t len = 0;

			if (o) {
				ret = check_attach(plan, a, o, err);
				continue;
			}
			ret = object_path(plan, bpf_dir, a->object, &path, &dir);
			if (ret) {
				err_set(err, "%s: out of memory", plan->file);
				break;
			}
			ret = util_read_file(path, PLAN_OBJECT_MAX_BYTES, &data, &len);
			if (ret == -EFBIG) {
				obj_error(err, plan, a->object_line, a->object_col,
					  "object '%s' is larger than %u bytes", a->object,
					  PLAN_OBJECT_MAX_BYTES);
				if (err)
					err->input = false;	/* exit 1, as a read error */
			} else if (ret) {
				if (strchr(a->object, '/'))
					obj_error(err, plan, a->object_line, a->object_col,
						  "cannot open object '%s': %s (looked for %s)",
						  a->object, util_strerror(ret), path);
				else
					obj_error(err, plan, a->object_line, a->object_col,
						  "cannot open object '%s': %s (looked in %s)",
						  a->object, util_strerror(ret), dir);
				/* a missing object is the plan's fault; one that
				 * cannot be read (a FIFO, no permission) the machine's */
				if (err && ret != -ENOENT)
					err->input = false;
			} else {
				ret = objects_add_owned(out, a->object, path, data, len);
				if (ret == -ENOMEM)
					err_set(err, "%s: out of memory", plan->file);
				else if (ret)
					obj_error(err, plan, a->object_line, a->object_col,
						  "cannot open object '%s': %s is not a BPF object file",
						  a->object, path);
				else
					ret = check_attach(plan, a, &out->objs[out->n - 1], err);
			}
			free(path);
			free(dir);
			path = dir = NULL;
		}
	}
	if (ret)
		plan_objects_release(out);
	return ret;
}

/* --- encoded objects for `job` messages --- */

struct cache_entry {
	char sha256[SHA256_HEX_LEN];	/* "" when the slot is free */
	json_t *entry;			/* {"sha256", "data"} (a reference) */
	size_t bytes;			/* base64 length */
	unsigned long used;		/* the cache's clock at the latest hit */
};

struct object_cache {
	struct cache_entry *slots;
	int n_slots;
	size_t max_bytes;
	unsigned long clock;
	struct object_cache_stats stats;
};

struct object_cache *object_cache_new(int slots, size_t max_bytes)
{
	struct object_cache *c = calloc(1, sizeof(*c));

	if (slots < 1)
		slots = 1;
	if (c)
		c->slots = calloc(slots, sizeof(*c->slots));
	if (!c || !c->slots) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->n_slots = slots;
	c->max_bytes = max_bytes;
	return c;
}

static void cache_drop(struct object_cache *c, struct cache_entry *e)
{
	json_decref(e->entry);
	c->stats.bytes -= e->bytes;
	c->stats.entries--;
	memset(e, 0, sizeof(*e));
}

void object_cache_destroy(struct object_cache **cp)
{
	struct object_cache *c = cp ? *cp : NULL;
	int i;

	if (!c)
		return;
	for (i = 0; i < c->n_slots; i++)
		if (c->slots[i].entry)
			cache_drop(c, &c->slots[i]);
	free(c->slots);
	free(c);
	*cp = NULL;
}

void object_cache_get_stats(const struct object_cache *c, struct object_cache_stats *out)
{
	*out = c->stats;
}

static bool sha256_hex_ok(const char *sha)
{
	size_t i;

	for (i = 0; i < SHA256_HEX_LEN - 1; i++)
		if (!sha[i] || !strchr("0123456789abcdef", sha[i]))
			return false;
	return !sha[i];
}

/* Read object SHA256 with LOAD, check it against its hash and make its entry. */
static json_t *entry_make(const char *sha256, object_load_fn load, void *arg, size_t *bytes)
{
	char got[SHA256_HEX_LEN], *b64;
	json_t *entry = NULL;
	void *data = NULL;
	size_t len = 0;
	int err;

	err = load(arg, sha256, &data, &len);
	if (err) {
		free(data);
		errno = -err;
		return NULL;
	}
	util_sha256_hex(data, len, got);
	if (strcmp(got, sha256)) {
		free(data);
		errno = EBADMSG;
		return NULL;
	}
	b64 = util_base64_encode(data, len);
	free(data);
	if (b64) {
		*bytes = strlen(b64);
		entry = json_pack("{s:s, s:s%}", "sha256", sha256, "data", b64, *bytes);
	}
	free(b64);
	if (!entry)
		errno = ENOMEM;
	return entry;
}

/* The slot for a new entry of BYTES: a free one, else the least recently used, after
 * dropping entries until BYTES more fit under the cache's limit. */
static struct cache_entry *cache_room(struct object_cache *c, size_t bytes)
{
	struct cache_entry *lru;
	int i;

	for (;;) {
		lru = NULL;
		for (i = 0; i < c->n_slots; i++) {
			struct cache_entry *e = &c->slots[i];

			if (!e->entry && c->stats.bytes + bytes <= c->max_bytes)
				return e;
			if (e->entry && (!lru || e->used < lru->used))
				lru = e;
		}
		if (!lru)		/* empty, and still too large: asserted by the caller */
			return NULL;
		cache_drop(c, lru);
		c->stats.evictions++;
	}
}

json_t *object_cache_get(struct object_cache *c, const char *sha256, object_load_fn load,
			 void *arg)
{
	struct cache_entry *e;
	json_t *entry;
	size_t bytes = 0;
	int i;

	if (!c || !sha256 || !load || !sha256_hex_ok(sha256)) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < c->n_slots; i++) {
		e = &c->slots[i];
		if (e->entry && !strcmp(e->sha256, sha256)) {
			c->stats.hits++;
			e->used = ++c->clock;
			return json_incref(e->entry);
		}
	}
	c->stats.misses++;
	entry = entry_make(sha256, load, arg, &bytes);
	if (!entry || bytes > c->max_bytes)
		return entry;		/* an error, or too large to keep */
	e = cache_room(c, bytes);
	if (!e)
		return entry;
	memcpy(e->sha256, sha256, SHA256_HEX_LEN);
	e->entry = json_incref(entry);
	e->bytes = bytes;
	e->used = ++c->clock;
	c->stats.bytes += bytes;
	c->stats.entries++;
	return entry;
}
