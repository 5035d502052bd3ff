// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* export_rows.c - value rows made ready for an export (export.h, export_run.c): the rate
 * values that are zero by design left out, and a kernel build's source (full commit and
 * tree) read from the kernel cache's record. Called by export_run for `result export`
 * and the dashboard's download alike; the cache read is the exports' only file access.
 */
#include "report/export.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kbuild.h"
#include "analysis/stats.h"
#include "base/jget.h"

/* A value's share of the largest of its metric below which it is zero: it prints as 0 at
 * three significant digits beside that largest, as `result show` leaves such rows out. */
#define ZERO_SHARE 5e-4

/* Row R's key of the parts PARTS of (run, host, build, plan, variant, point, metric,
 * subject) into OUT: 'r' run, 'h' host, 'b' build, 'p' plan, 'v' variant, 'x' point,
 * 'm' metric, 's' subject. */
static void key_of(const json_t *r, const char *parts, char *out, size_t len)
{
	char id[SHA256_HEX_LEN], *pt = NULL;
	size_t off = 0;

	out[0] = '\0';
	for (; *parts && off < len; parts++) {
		const char *v = "";

		switch (*parts) {
		case 'r':
			off += snprintf(out + off, len - off, "%lld\n",
					(long long)json_integer_value(json_object_get(r, "run")));
			continue;
		case 'b':
			kbuild_id_of_row(r, id);
			v = id;
			break;
		case 'x':
			free(pt);
			pt = json_dumps(json_object_get(r, "point"), JSON_COMPACT | JSON_SORT_KEYS |
					JSON_ENCODE_ANY);
			v = pt ? pt : "";
			break;
		case 'h': v = jget_str(r, "host", ""); break;
		case 'p': v = jget_str(r, "plan", ""); break;
		case 'v': v = jget_str(r, "variant", ""); break;
		case 'm': v = jget_str(r, "metric", ""); break;
		case 's': v = jget_str(r, "subject", ""); break;
		}
		off += snprintf(out + off, len - off, "%s\n", v);
	}
	free(pt);
}

/* OBJ[KEY] = max(OBJ[KEY], V) (absent counts as -1). Returns 0 or -ENOMEM. */
static int keep_max(json_t *obj, const char *key, double v)
{
	json_t *have = json_object_get(obj, key);

	if (have && json_real_value(have) >= v)
		return 0;
	return json_object_set_new(obj, key, json_real(v)) ? -ENOMEM : 0;
}

json_t *export_rows_nonzero(const json_t *rows, size_t *n_left_out)
{
	json_t *grp = json_object(), *ref = json_object(), *live = json_object();
	json_t *gone = json_object(), *out = json_array(), *r;
	char g[2048], m[2048], v[2048];
	size_t i;

	*n_left_out = 0;
	if (!grp || !ref || !live || !gone || !out)
		goto nomem;
	/* the largest |value| of each group (rates only), and of each metric */
	json_array_foreach(rows, i, r) {
		double x = fabs(json_number_value(json_object_get(r, "value")));

		if (stats_kind_for_unit(jget_str(r, "unit", "")) != STATS_KIND_RATE || !isfinite(x))
			continue;
		key_of(r, "rhbpvxms", g, sizeof(g));
		key_of(r, "rhbpm", m, sizeof(m));
		if (keep_max(grp, g, x) || keep_max(ref, m, x))
			goto nomem;
	}
	/* a variant (at a point) with a rate that is not zero: its zero ones are by design */
	json_array_foreach(rows, i, r) {
		key_of(r, "rhbpvxms", g, sizeof(g));
		key_of(r, "rhbpm", m, sizeof(m));
		key_of(r, "rhbpvx", v, sizeof(v));
		if (json_object_get(grp, g) && json_real_value(json_object_get(grp, g)) >
		    ZERO_SHARE * json_real_value(json_object_get(ref, m)) &&
		    json_object_set_new(live, v, json_true()))
			goto nomem;
	}
	json_array_foreach(rows, i, r) {
		key_of(r, "rhbpvxms", g, sizeof(g));
		key_of(r, "rhbpm", m, sizeof(m));
		key_of(r, "rhbpvx", v, sizeof(v));
		if (json_object_get(grp, g) && json_object_get(live, v) &&
		    json_real_value(json_object_get(grp, g)) <=
		    ZERO_SHARE * json_real_value(json_object_get(ref, m))) {
			if (json_object_set_new(gone, g, json_true()))
				goto nomem;
			continue;
		}
		if (json_array_append(out, r))
			goto nomem;
	}
	*n_left_out = json_object_size(gone);
	goto out;
nomem:
	json_decref(out);
	out = NULL;
	errno = ENOMEM;
out:
	json_decref(grp);
	json_decref(ref);
	json_decref(live);
	json_decref(gone);
	return out;
}

/* The first line of file DIR/NAME/FILE into OUT (LEN bytes), or "" when unreadable. */
static void read_line(const char *dir, const char *name, const char *file, char *out,
		      size_t len)
{
	char path[4096];
	FILE *f;

	out[0] = '\0';
	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, name, file) >= sizeof(path))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(out, (int)len, f))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

int export_rows_add_source(json_t *rows, const char *cache_dir)
{
	char abbrev[KBUILD_COMMIT_LEN], commit[128], tree[4096];
	json_t *seen, *src, *r;
	const char *rel;
	int err = 0;
	size_t i;

	if (!cache_dir || !*cache_dir)
		return 0;
	seen = json_object();
	if (!seen)
		return -ENOMEM;
	json_array_foreach(rows, i, r) {
		if (err)
			break;
		rel = jget_str(r, "kernel_release", "");
		/* a release is a directory's name there: never a path */
		if (!kbuild_commit_of_release(rel, abbrev) || strchr(rel, '/') || rel[0] == '.')
			continue;
		src = json_object_get(seen, rel);
		if (!src) {	/* once per release: {"kernel_commit", "kernel_tree"} or {} */
			read_line(cache_dir, rel, "commit", commit, sizeof(commit));
			read_line(cache_dir, rel, "tree", tree, sizeof(tree));
			src = json_object();
			if (!src || json_object_set_new(seen, rel, src)) {
				err = -ENOMEM;
				break;
			}
			/* only the record of this build: its commit starts as the release says */
			if (strlen(commit) == 40 && !strncmp(commit, abbrev, 12) &&
			    (json_object_set_new(src, "kernel_commit", json_string(commit)) ||
			     (*tree && json_object_set_new(src, "kernel_tree", json_string(tree)))))
				err = -ENOMEM;
		}
		if (!err && json_object_update(r, src))
			err = -ENOMEM;
	}
	json_decref(seen);
	return err;
}

const char *export_kernel_cache(void)
{
	const char *dir = getenv("BPFLAB_KERNEL_CACHE");

	return dir && *dir ? dir : "/var/cache/bpflab/kernels";
}
