/* export.c - see export.h. KCIDB and BMF from value rows.
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

#include "analysis/stats.h"

static const char *sget(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

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

/* Group ROWS by (run, plan, variant, point, metric, subject) into an object
 * key -> {"first": row, "values": [...]} in order of first appearance. */
static json_t *reduce(const json_t *rows)
{
	json_t *groups = json_object(), *r, *g;
	char key[1024], pt[512];
	size_t i;

	json_array_foreach(rows, i, r) {
		point_text(json_object_get(r, "point"), pt, sizeof(pt));
		snprintf(key, sizeof(key), "%lld\n%s\n%s\n%s\n%s\n%s",
			 (long long)json_integer_value(json_object_get(r, "run")), sget(r, "plan"),
			 sget(r, "variant"), pt, sget(r, "metric"), sget(r, "subject"));
		g = json_object_get(groups, key);
		if (!g) {
			g = json_pack("{s:O, s:[], s:s}", "first", r, "values", "point", pt);
			if (!g || json_object_set_new(groups, key, g))
				goto fail;
		}
		if (json_array_append(json_object_get(g, "values"), json_object_get(r, "value")))
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
	*mean = stats_kind_mean(stats_kind_for_unit(sget(json_object_get(g, "first"), "unit")),
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

/* One group of reduce(): its first row, its point text ("k=v k=v") and its values
 * reduced by summary(). */
struct export_group {
	const json_t *first;
	const char *point;
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
			.point = sget(g, "point"),
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

struct kcidb_ctx {
	const char *origin;
	json_t *tests;
};

/* The KCIDB test of group EG, appended to CTX's tests. */
static int kcidb_add_test(const struct export_group *eg, void *vctx)
{
	struct kcidb_ctx *ctx = vctx;
	const json_t *first = eg->first;
	char id[1200], path[1024], a[128], b[128], c[128], d[128], e[256], when[40];
	time_t secs;
	struct tm tm;
	json_t *t;

	slug(sget(first, "plan"), a, sizeof(a));
	slug(sget(first, "variant"), b, sizeof(b));
	slug(sget(first, "metric"), c, sizeof(c));
	slug(sget(first, "subject"), d, sizeof(d));
	slug(eg->point, e, sizeof(e));
	snprintf(path, sizeof(path), "bpflab.%s.%s.%s%s%s.%s", a, b, *e ? e : "", *e ? "." : "",
		 c, *d ? d : "all");
	snprintf(id, sizeof(id), "%s:run%lld.%s", ctx->origin,
		 (long long)json_integer_value(json_object_get(first, "run")), path);
	secs = (time_t)(json_integer_value(json_object_get(first, "time_ms")) / 1000);
	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S+00:00", &tm);
	t = json_pack("{s:s, s:s++, s:s, s:s, s:s}",
		      "id", id, "build_id", ctx->origin, ":kernel-",
		      *sget(first, "kernel_release") ? sget(first, "kernel_release") : "unknown",
		      "origin", ctx->origin, "path", path,
		      "status", isfinite(eg->mean) ? "DONE" : "MISS");
	if (!t || json_array_append_new(ctx->tests, t))
		return -ENOMEM;
	if (secs > 0) /* no time: left out (KCIDB allows no nulls) */
		json_object_set_new(t, "start_time", json_string(when));
	if (isfinite(eg->mean))
		json_object_set_new(t, "number", kcidb_number(eg->mean, sget(first, "unit")));
	json_object_set_new(t, "environment", json_pack("{s:s, s:{s:O, s:O, s:O, s:O, s:O}}",
			    "comment", sget(first, "host"), "misc",
			    "host", opt(first, "host"),
			    "kernel_release", opt(first, "kernel_release"),
			    "cpu", opt(first, "cpu"),
			    "governor", opt(first, "governor"),
			    "timing", opt(first, "timing")));
	json_object_set_new(t, "misc", json_pack("{s:O, s:s, s:O, s:I, s:f, s:f, s:O, s:s}",
			    "run", opt(first, "run"), "unit", sget(first, "unit"),
			    "plan_sha256", opt(first, "plan_sha256"), "n", (json_int_t)eg->n,
			    "min", isfinite(eg->lo) ? eg->lo : 0.0,
			    "max", isfinite(eg->hi) ? eg->hi : 0.0,
			    "flags", opt(first, "flags"), "window", sget(first, "window")));
	drop_nulls(json_object_get(json_object_get(t, "environment"), "misc"));
	drop_nulls(json_object_get(t, "misc"));
	return 0;
}

json_t *export_kcidb(const json_t *rows, const char *origin)
{
	struct kcidb_ctx ctx = { .origin = origin ? origin : "bpflab" };
	json_t *out = NULL;

	if (!export_origin_valid(ctx.origin)) {
		errno = EINVAL;
		return NULL;
	}
	ctx.tests = json_array();
	if (ctx.tests && !each_group(rows, kcidb_add_test, &ctx))
		out = json_pack("{s:{s:i, s:i}, s:O}", "version", "major", 4, "minor", 4, "tests",
				ctx.tests);
	json_decref(ctx.tests);
	if (!out)
		errno = ENOMEM;
	return out;
}

/* The BMF measure of group EG (none without a mean) in its benchmark of object OUT. */
static int bmf_add_measure(const struct export_group *eg, void *out)
{
	const json_t *first = eg->first;
	json_t *bench, *m;
	char name[1024];

	if (!isfinite(eg->mean))
		return 0;
	snprintf(name, sizeof(name), "%s/%s/%s%s%s", sget(first, "plan"),
		 sget(first, "variant"), *sget(first, "subject") ? sget(first, "subject") : "all",
		 *eg->point ? "/" : "", eg->point);
	bench = json_object_get(out, name);
	if (!bench) {
		bench = json_object();
		if (!bench || json_object_set_new(out, name, bench))
			return -ENOMEM;
	}
	m = json_pack("{s:f, s:f, s:f}", "value", eg->mean, "lower_value", eg->lo, "upper_value",
		      eg->hi);
	if (!m || json_object_set_new(bench, sget(first, "metric"), m))
		return -ENOMEM;
	return 0;
}

json_t *export_bmf(const json_t *rows)
{
	json_t *out = json_object();

	if (out && each_group(rows, bmf_add_measure, out)) {
		json_decref(out);
		out = NULL;
	}
	if (!out)
		errno = ENOMEM;
	return out;
}
