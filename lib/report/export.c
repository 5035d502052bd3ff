// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* export.c - see export.h. KCIDB and BMF from value rows, one entry per host and kernel
 * build; the CLI's --host and --kernel selection (cli/result_analysis.c).
 *
 * Values are reduced in the order the rows come (time order) with a small linear table;
 * exports are of one run or a filtered history, hundreds of keys at most.
 */
#include "report/export.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/kbuild.h"
#include "analysis/stats.h"
#include "base/jget.h"

#define LABEL_LEN 320			/* a kernel build's label (a release is <= 64 bytes) */

/* "k=v k=v" of a matrix point, keys in their stored (sorted) order. */
static void point_text(const json_t *point, char *out, size_t len)
{
	const char *k;
	size_t off = 0;
	json_t *v;

	out[0] = '\0';
	json_object_foreach((json_t *)point, k, v)
		if (off < len)
			off += snprintf(out + off, len - off, "%s%s=%s", off ? " " : "", k,
					json_is_string(v) ? json_string_value(v) : "?");
}

/* Group ROWS by (run, host, kernel build, plan, variant, point, metric, subject) into an
 * object key -> {"first": row, "values": [...], "point": text, "build": identity,
 * "start_ms": the earliest job start, when any is known} in order of first appearance. */
static json_t *reduce(const json_t *rows)
{
	json_t *groups = json_object(), *r, *g, *start;
	char key[1400], pt[512], build[SHA256_HEX_LEN];
	size_t i;

	if (!groups)
		goto fail;
	json_array_foreach(rows, i, r) {
		point_text(json_object_get(r, "point"), pt, sizeof(pt));
		kbuild_id_of_row(r, build);
		snprintf(key, sizeof(key), "%lld\n%s\n%s\n%s\n%s\n%s\n%s\n%s",
			 (long long)json_integer_value(json_object_get(r, "run")), jget_str(r, "host", ""),
			 build, jget_str(r, "plan", ""), jget_str(r, "variant", ""), pt, jget_str(r, "metric", ""),
			 jget_str(r, "subject", ""));
		g = json_object_get(groups, key);
		if (!g) {
			g = json_pack("{s:O, s:[], s:s, s:s}", "first", r, "values", "point", pt,
				      "build", build);
			if (!g || json_object_set_new(groups, key, g))
				goto fail;
		}
		if (json_array_append(json_object_get(g, "values"), json_object_get(r, "value")))
			goto fail;
		start = json_object_get(r, "started_ms");
		if (json_is_integer(start) && json_integer_value(start) > 0 &&
		    (!json_object_get(g, "start_ms") ||
		     json_integer_value(start) < json_integer_value(json_object_get(g, "start_ms"))) &&
		    json_object_set(g, "start_ms", start))
			goto fail;
	}
	return groups;
fail:
	json_decref(groups);
	errno = ENOMEM;
	return NULL;
}

/* Mean by kind, min and max of the values of group G. */
static void summary(const json_t *g, double *mean, double *lo, double *hi, size_t *n)
{
	json_t *vals = json_object_get(g, "values"), *v;
	double buf[4096];
	size_t i;

	*n = 0;
	json_array_foreach(vals, i, v)
		if (*n < sizeof(buf) / sizeof(buf[0]))
			buf[(*n)++] = json_number_value(v);
	*mean = stats_kind_mean(stats_kind_for_unit(jget_str(json_object_get(g, "first"), "unit", "")),
				buf, *n);
	*lo = stats_min(buf, *n);
	*hi = stats_max(buf, *n);
}

/* O[K], or null when absent (json_pack's "O" refuses NULL). */
static json_t *opt(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return v ? v : json_null();
}

/* S with every character outside [A-Za-z0-9_-] as '_' (KCIDB path components). */
static void slug(const char *s, char *out, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		out[i] = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			 (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' ? s[i] : '_';
	out[i] = '\0';
}

bool export_origin_valid(const char *origin)
{
	const char *c;

	if (!origin || !*origin)
		return false;
	for (c = origin; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

bool export_id_valid(const char *id)
{
	const char *colon = id ? strchr(id, ':') : NULL;
	char origin[256];

	if (!colon || !colon[1] || (size_t)(colon - id) >= sizeof(origin))
		return false;
	memcpy(origin, id, (size_t)(colon - id));
	origin[colon - id] = '\0';
	return export_origin_valid(origin);
}

/* KCIDB's "number" for MEAN in UNIT: {value, unit, prefix}. Time units that carry an SI
 * prefix become seconds with prefix "metric" (25 ns -> 2.5e-08 s, shown as 25 ns, as the
 * schema's own example does), rates keep their unit with prefix "metric" (shown as
 * 12.5 Mpps); "ratio" and no unit are dimensionless (no unit, no prefix). */
static json_t *kcidb_number(double mean, const char *unit)
{
	static const struct { const char *unit; double scale; } times[] = {
		{ "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(unit, times[i].unit))
			return json_pack("{s:f, s:s, s:s}", "value", mean * times[i].scale, "unit",
					 "s", "prefix", "metric");
	if (!*unit || !strcmp(unit, "ratio"))
		return json_pack("{s:f}", "value", mean);
	return json_pack("{s:f, s:s, s:s}", "value", mean, "unit", unit, "prefix", "metric");
}

/* One group of reduce(): its first row, its point text ("k=v k=v"), its kernel build's
 * identity, the earliest start of its jobs (0: unknown) and its values reduced by
 * summary(). */
struct export_group {
	const json_t *first;
	const char *point, *build;
	long long start_ms;
	double mean, lo, hi;
	size_t n;
};

/* ADD(group, CTX) for each group of ROWS in order of first appearance. Returns 0 or the
 * first error ADD returns (-ENOMEM also when the rows cannot be grouped). */
static int each_group(const json_t *rows, int (*add)(const struct export_group *eg, void *ctx),
		      void *ctx)
{
	json_t *groups = reduce(rows), *g;
	const char *key;
	int err = groups ? 0 : -ENOMEM;

	json_object_foreach(groups, key, g) {
		struct export_group eg = {
			.first = json_object_get(g, "first"),
			.point = jget_str(g, "point", ""),
			.build = jget_str(g, "build", ""),
			.start_ms = json_integer_value(json_object_get(g, "start_ms")),
		};

		summary(g, &eg.mean, &eg.lo, &eg.hi, &eg.n);
		if ((err = add(&eg, ctx)))
			break;
	}
	json_decref(groups);
	return err;
}

/* OBJ without its members that are null (KCIDB allows no nulls). */
static void drop_nulls(json_t *obj)
{
	const char *k;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(obj, tmp, k, v)
		if (json_is_null(v))
			json_object_del(obj, k);
}

/* The label of EG's kernel build, always with its short hash: an id or name that stays
 * the same whatever else an export holds. */
static void group_label(const struct export_group *eg, char *out, size_t len)
{
	kbuild_label_hashed(json_string_value(json_object_get(eg->first, "kernel_release")),
			    eg->build, out, len);
}

struct kcidb_ctx {
	const char *origin, *db_id, *build_id;
	json_t *checkouts, *builds, *tests;
	json_t *build_ids;		/* kernel build identity -> our KCIDB build id */
};

/* Checkout C of the kernel build of row FIRST with what is known of its source, when
 * lab/kbuild/build.sh built it from a git tree (kbuild_commit_of_release): git_commit_name
 * (HEX12, "-dirty" with changes on top), and from the kernel cache's record
 * (export_rows_add_source: the row's "kernel_commit", "kernel_tree") git_commit_hash
 * (40 hex digits starting HEX12), tree_name (the tree directory's name) and misc.tree
 * (its path). Returns 0 or -ENOMEM. */
static int checkout_source(json_t *c, const json_t *first)
{
	const char *full = jget_str(first, "kernel_commit", ""), *tree = jget_str(first, "kernel_tree", "");
	const char *base = strrchr(tree, '/') ? strrchr(tree, '/') + 1 : tree;
	char name[KBUILD_COMMIT_LEN];
	int err = 0;
	size_t i;

	if (!kbuild_commit_of_release(jget_str(first, "kernel_release", ""), name))
		return 0;
	err |= json_object_set_new(c, "git_commit_name", json_string(name));
	for (i = 0; i < 40 && ((full[i] >= '0' && full[i] <= '9') ||
			       (full[i] >= 'a' && full[i] <= 'f')); i++)
		;
	if (i == 40 && !full[40] && !strncmp(full, name, 12))
		err |= json_object_set_new(c, "git_commit_hash", json_string(full));
	if (*tree && *base) {
		err |= json_object_set_new(c, "tree_name", json_string(base));
		err |= json_object_set_new(json_object_get(c, "misc"), "tree", json_string(tree));
	}
	return err ? -ENOMEM : 0;
}

/* The KCIDB build id of EG's kernel build: the caller's, or ours, adding the build and
 * its checkout the first time. NULL when out of memory. */
static const char *kcidb_build(struct kcidb_ctx *ctx, const struct export_group *eg)
{
	const json_t *first = eg->first;
	const char *rel = jget_str(first, "kernel_release", ""), *have;
	char id[LABEL_LEN + 160], checkout[LABEL_LEN + 160];
	char label[LABEL_LEN], comment[400];
	json_t *c, *b;
	int failed;

	if (ctx->build_id)
		return ctx->build_id;
	have = json_string_value(json_object_get(ctx->build_ids, eg->build));
	if (have)
		return have;
	group_label(eg, label, sizeof(label));
	snprintf(checkout, sizeof(checkout), "%s:checkout.%s@%s", ctx->origin,
		 *rel ? rel : "unknown", eg->build);
	snprintf(id, sizeof(id), "%s:build.%s@%s", ctx->origin, *rel ? rel : "unknown",
		 eg->build);
	snprintf(comment, sizeof(comment), "kernel %s%s%s", *rel ? rel : "unknown",
		 *jget_str(first, "kernel_version", "") ? " " : "", jget_str(first, "kernel_version", ""));
	c = json_pack("{s:s, s:s, s:s, s:b, s:{s:O}}", "id", checkout, "origin", ctx->origin,
		      "comment", comment, "valid", 1, "misc",
		      "kernel_release", opt(first, "kernel_release"));
	b = json_pack("{s:s, s:s, s:s, s:s, s:b, s:{s:O, s:O, s:O, s:s}}", "id", id,
		      "checkout_id", checkout, "origin", ctx->origin, "comment", comment,
		      "valid", 1, "misc", "kernel_release", opt(first, "kernel_release"),
		      "kernel_version", opt(first, "kernel_version"),
		      "config_sha256", opt(first, "config_sha256"), "kernel_build", label);
	if (!c || !b) {
		json_decref(c);
		json_decref(b);
		return NULL;
	}
	if (checkout_source(c, first)) {
		json_decref(c);
		json_decref(b);
		return NULL;
	}
	drop_nulls(json_object_get(c, "misc"));
	drop_nulls(json_object_get(b, "misc"));
	/* append_new takes the reference also when it fails: both run */
	failed = json_array_append_new(ctx->checkouts, c);
	failed |= json_array_append_new(ctx->builds, b);
	if (failed || json_object_set_new(ctx->build_ids, eg->build, json_string(id)))
		return NULL;
	return json_string_value(json_object_get(ctx->build_ids, eg->build));
}

/* The KCIDB test of group EG, appended to CTX's tests (with its build, when new). */
static int kcidb_add_test(const struct export_group *eg, void *vctx)
{
	struct kcidb_ctx *ctx = vctx;
	const json_t *first = eg->first;
	char id[1400], path[1024], a[128], b[128], c[128], d[128], e[256], h[128], when[48];
	char label[LABEL_LEN];
	const char *build_id = kcidb_build(ctx, eg);
	time_t secs = (time_t)(eg->start_ms / 1000);
	struct tm tm;
	json_t *t;

	if (!build_id)
		return -ENOMEM;
	slug(jget_str(first, "plan", ""), a, sizeof(a));
	slug(jget_str(first, "variant", ""), b, sizeof(b));
	slug(jget_str(first, "metric", ""), c, sizeof(c));
	slug(jget_str(first, "subject", ""), d, sizeof(d));
	slug(eg->point, e, sizeof(e));
	slug(jget_str(first, "host", ""), h, sizeof(h));
	snprintf(path, sizeof(path), "bpflab.%s.%s.%s%s%s.%s", a, b, *e ? e : "", *e ? "." : "",
		 c, *d ? d : "all");
	snprintf(id, sizeof(id), "%s:%s.run%lld.%s.%.16s.%s", ctx->origin, ctx->db_id,
		 (long long)json_integer_value(json_object_get(first, "run")), h, eg->build,
		 path);
	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03lld+00:00",
		 eg->start_ms % 1000);
	group_label(eg, label, sizeof(label));
	t = json_pack("{s:s, s:s, s:s, s:s, s:s}", "id", id, "build_id", build_id,
		      "origin", ctx->origin, "path", path,
		      "status", isfinite(eg->mean) ? "DONE" : "MISS");
	if (!t || json_array_append_new(ctx->tests, t))
		return -ENOMEM;
	if (eg->start_ms > 0) /* no start: left out (KCIDB allows no nulls) */
		json_object_set_new(t, "start_time", json_string(when));
	if (isfinite(eg->mean))
		json_object_set_new(t, "number", kcidb_number(eg->mean, jget_str(first, "unit", "")));
	json_object_set_new(t, "environment", json_pack("{s:s, s:{s:O, s:O, s:O, s:O, s:s, "
			    "s:O, s:O, s:O}}", "comment", jget_str(first, "host", ""), "misc",
			    "host", opt(first, "host"),
			    "kernel_release", opt(first, "kernel_release"),
			    "kernel_version", opt(first, "kernel_version"),
			    "config_sha256", opt(first, "config_sha256"),
			    "kernel_build", label,
			    "cpu", opt(first, "cpu"),
			    "governor", opt(first, "governor"),
			    "timing", opt(first, "timing")));
	json_object_set_new(t, "misc", json_pack("{s:O, s:s, s:O, s:I, s:f, s:f, s:O, s:s}",
			    "run", opt(first, "run"), "unit", jget_str(first, "unit", ""),
			    "plan_sha256", opt(first, "plan_sha256"), "n", (json_int_t)eg->n,
			    "min", isfinite(eg->lo) ? eg->lo : 0.0,
			    "max", isfinite(eg->hi) ? eg->hi : 0.0,
			    "flags", opt(first, "flags"), "window", jget_str(first, "window", "")));
	if (!json_object_get(t, "environment") || !json_object_get(t, "misc"))
		return -ENOMEM;
	drop_nulls(json_object_get(json_object_get(t, "environment"), "misc"));
	drop_nulls(json_object_get(t, "misc"));
	return 0;
}

json_t *export_kcidb(const json_t *rows, const struct export_kcidb_opts *opts)
{
	struct kcidb_ctx ctx = {
		.origin = opts && opts->origin ? opts->origin : "bpflab",
		.db_id = opts ? opts->db_id : NULL,
		.build_id = opts ? opts->build_id : NULL,
	};
	json_t *out = NULL;
	int err = -ENOMEM;

	if (!export_origin_valid(ctx.origin) || !ctx.db_id || !*ctx.db_id ||
	    (ctx.build_id && !export_id_valid(ctx.build_id))) {
		errno = EINVAL;
		return NULL;
	}
	ctx.checkouts = json_array();
	ctx.builds = json_array();
	ctx.tests = json_array();
	ctx.build_ids = json_object();
	if (ctx.checkouts && ctx.builds && ctx.tests && ctx.build_ids)
		err = each_group(rows, kcidb_add_test, &ctx);
	if (!err)
		out = json_pack("{s:{s:i, s:i}, s:O, s:O, s:O}", "version", "major", 4, "minor", 4,
				"checkouts", ctx.checkouts, "builds", ctx.builds,
				"tests", ctx.tests);
	if (out && ctx.build_id) {	/* the caller's CI has them */
		json_object_del(out, "checkouts");
		json_object_del(out, "builds");
	}
	json_decref(ctx.checkouts);
	json_decref(ctx.builds);
	json_decref(ctx.tests);
	json_decref(ctx.build_ids);
	if (!out)
		errno = ENOMEM;
	return out;
}

/* The BMF measure of group EG (none without a mean) in its benchmark of object OUT: a
 * name of plan, variant, subject and point only, the same from run to run (the host is
 * Bencher's testbed, the kernel build its branch: one of each per document). */
static int bmf_add_measure(const struct export_group *eg, void *out)
{
	const json_t *first = eg->first;
	char name[1200];
	json_t *bench, *m;

	if (!isfinite(eg->mean))
		return 0;
	snprintf(name, sizeof(name), "%s/%s/%s%s%s", jget_str(first, "plan", ""),
		 jget_str(first, "variant", ""), *jget_str(first, "subject", "") ? jget_str(first, "subject", "") : "all",
		 *eg->point ? "/" : "", eg->point);
	bench = json_object_get(out, name);
	if (!bench) {
		bench = json_object();
		if (!bench || json_object_set_new(out, name, bench))
			return -ENOMEM;
	}
	m = json_pack("{s:f, s:f, s:f}", "value", eg->mean, "lower_value", eg->lo, "upper_value",
		      eg->hi);
	if (!m || json_object_set_new(bench, jget_str(first, "metric", ""), m))
		return -ENOMEM;
	return 0;
}

json_t *export_bmf(const json_t *rows)
{
	json_t *out;

	if (export_n_pairs(rows, NULL, 0) > 1) {
		errno = EINVAL;
		return NULL;
	}
	out = json_object();

	if (out && each_group(rows, bmf_add_measure, out)) {
		json_decref(out);
		out = NULL;
	}
	if (!out)
		errno = ENOMEM;
	return out;
}

/* "A, B, C": the distinct labels LABEL(row) of ROWS in order of first appearance, into
 * OUT (LEN bytes, cut to fit). */
static void distinct_list(const json_t *rows, const char *(*label)(const json_t *row),
			  char *out, size_t len)
{
	json_t *seen = json_object(), *r;
	size_t i, off = 0;

	out[0] = '\0';
	json_array_foreach(rows, i, r) {
		const char *v = label(r);

		if (!seen || json_object_get(seen, v) || json_object_set_new(seen, v, json_true()))
			continue;
		if (off < len)
			off += snprintf(out + off, len - off, "%s%s", off ? ", " : "", v);
	}
	json_decref(seen);
}

static const char *host_of(const json_t *row)
{
	return jget_str(row, "host", "");
}

/* The row's kernel build as the value queries label it (kbuild_label_rows), else its
 * release; "unknown" for none. */
static const char *kernel_of(const json_t *row)
{
	const char *k = jget_str(row, "kernel_build", "");

	if (!*k)
		k = jget_str(row, "kernel_release", "");
	return *k ? k : "unknown";
}

json_t *export_select(const json_t *rows, const char *host, const char *kernel,
		      struct err *err)
{
	json_t *on_host = json_array(), *out = json_array(), *r;
	char list[512], id[SHA256_HEX_LEN];
	size_t i;

	if (!on_host || !out)
		goto nomem;
	json_array_foreach(rows, i, r)
		if ((!host || !strcmp(jget_str(r, "host", ""), host)) && json_array_append(on_host, r))
			goto nomem;
	json_array_foreach(on_host, i, r) {
		if (kernel) {
			kbuild_id_of_row(r, id);
			if (!kbuild_matches(kernel, json_string_value(json_object_get(
					r, "kernel_release")), id) && strcmp(kernel, kernel_of(r)))
				continue;
		}
		if (json_array_append(out, r))
			goto nomem;
	}
	if (!json_array_size(rows)) {
		err_set(err, "no results");
	} else if (!json_array_size(on_host)) {
		distinct_list(rows, host_of, list, sizeof(list));
		err_set(err, "host '%s' has no results (hosts: %s)", host, list);
	} else if (!json_array_size(out)) {
		distinct_list(on_host, kernel_of, list, sizeof(list));
		err_set(err, "kernel '%s' has no results%s%s%s (kernels: %s)", kernel,
			 host ? " on host '" : "", host ? host : "", host ? "'" : "", list);
	}
	json_decref(on_host);
	if (!json_array_size(out)) {
		json_decref(out);
		errno = ENOENT;
		return NULL;
	}
	return out;
nomem:
	json_decref(on_host);
	json_decref(out);
	err_set(err, "out of memory");
	errno = ENOMEM;
	return NULL;
}

size_t export_n_builds(const json_t *rows)
{
	json_t *seen = json_object(), *r;
	char id[SHA256_HEX_LEN];
	size_t i, n = 0;

	json_array_foreach(rows, i, r) {
		kbuild_id_of_row(r, id);
		if (seen && !json_object_get(seen, id) && !json_object_set_new(seen, id, json_true()))
			n++;
	}
	json_decref(seen);
	return n;
}

size_t export_n_pairs(const json_t *rows, char *list, size_t len)
{
	json_t *seen = json_object(), *r;
	char id[SHA256_HEX_LEN], key[SHA256_HEX_LEN + 256];
	size_t i, n = 0, off = 0;

	if (list && len)
		list[0] = '\0';
	json_array_foreach(rows, i, r) {
		kbuild_id_of_row(r, id);
		snprintf(key, sizeof(key), "%s\n%.200s", id, jget_str(r, "host", ""));
		if (!seen || json_object_get(seen, key) ||
		    json_object_set_new(seen, key, json_true()))
			continue;
		n++;
		if (list && off < len)
			off += snprintf(list + off, len - off, "%s--host %s --kernel '%s'",
					off ? ", " : "", jget_str(r, "host", ""), kernel_of(r));
	}
	json_decref(seen);
	return n;
}
