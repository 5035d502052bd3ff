/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* export_schema.h - the rules of the formats `bpflab result export` writes, checked on its
 * output by test_export.c and test_export_store.c. Written here from the formats'
 * documentation (the project keeps no copy of other projects' schema files):
 *
 *  - KCIDB I/O schema v4.4 (kcidb-io, kcidb_io/schema/v04_04.py): top level version,
 *    checkouts, builds, tests (issues, incidents); no member null anywhere; every object
 *    "additionalProperties": false with the members below; origin ^[a-z0-9_]+$; ids
 *    ^[a-z0-9_]+:.*$ (an object's own id starts with its origin); required: checkout id,
 *    origin; build checkout_id, id, origin; test id, build_id, origin; test path
 *    ^[.a-zA-Z0-9_-]*$; status one of FAIL ERROR MISS PASS DONE SKIP; number {value,
 *    unit, prefix metric|binary}; valid boolean; misc objects; times RFC 3339 date-time;
 *    checkout git_commit_hash ^[0-9a-f]{40}$, git_repository_url ^(https|git)://.*$.
 *    Data is complete (what a dashboard shows) when every test's build and every build's
 *    checkout is present: checked when the export has builds.
 *  - Bencher Metric Format (bencher.dev, "Bencher Metric Format"): an object of
 *    benchmarks (names 1 to 1024 characters) of measures (names 1 to 64 characters) of
 *    {value (required), lower_value, upper_value}, all numbers.
 *
 * Include after <cmocka.h>. Static inline: each test file uses what it needs.
 */
#ifndef BPFLAB_TEST_EXPORT_SCHEMA_H
#define BPFLAB_TEST_EXPORT_SCHEMA_H

#include <stdbool.h>
#include <string.h>
#include <jansson.h>

/* Whether every member of OBJ is one of the NULL-terminated NAMES. */
static inline bool only_members(const json_t *obj, const char *const *names)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)obj, k, v) {
		const char *const *n;

		for (n = names; *n && strcmp(*n, k); n++)
			;
		if (!*n) {
			print_error("unexpected member '%s'\n", k);
			return false;
		}
	}
	return true;
}

static inline bool no_nulls(const json_t *v)
{
	const char *k;
	json_t *e;
	size_t i;

	if (json_is_null(v))
		return false;
	if (json_is_object(v))
		json_object_foreach((json_t *)v, k, e)
			if (!no_nulls(e))
				return false;
	if (json_is_array(v))
		json_array_foreach(v, i, e)
			if (!no_nulls(e))
				return false;
	return true;
}

/* Whether S has only [a-z0-9] and the characters of EXTRA. */
static inline bool matches_chars(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return false;
	return true;
}

/* ^[a-z0-9_]+:.*$, and when ORIGIN is not NULL, starting with "ORIGIN:". */
static inline bool kcidb_id_ok(const char *id, const char *origin)
{
	const char *colon = id ? strchr(id, ':') : NULL;
	char head[256];

	if (!colon || colon == id || (size_t)(colon - id) >= sizeof(head))
		return false;
	memcpy(head, id, (size_t)(colon - id));
	head[colon - id] = '\0';
	return matches_chars(head, "_") && (!origin || !strcmp(head, origin));
}

/* RFC 3339 date-time: YYYY-MM-DDTHH:MM:SS, optional fraction, then Z or +HH:MM/-HH:MM. */
static inline bool date_time_ok(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	size_t i;

	for (i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != shape[i])
			return false;
	s += i;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	if (!strcmp(s, "Z"))
		return true;
	return (s[0] == '+' || s[0] == '-') && s[1] >= '0' && s[1] <= '9' && s[2] >= '0' &&
	       s[2] <= '9' && s[3] == ':' && s[4] >= '0' && s[4] <= '9' && s[5] >= '0' &&
	       s[5] <= '9' && !s[6];
}

/* The members every KCIDB object has in common: origin, its own id, misc, valid, times. */
static inline void assert_kcidb_object(const json_t *o, const char *const *members)
{
	const char *origin = json_string_value(json_object_get(o, "origin"));
	static const char *const times[] = { "start_time", "_timestamp", NULL };
	const char *const *t;

	assert_true(json_is_object(o));
	assert_true(only_members(o, members));
	assert_non_null(origin);
	assert_true(*origin && matches_chars(origin, "_"));
	assert_true(kcidb_id_ok(json_string_value(json_object_get(o, "id")), origin));
	assert_true(!json_object_get(o, "misc") || json_is_object(json_object_get(o, "misc")));
	assert_true(!json_object_get(o, "valid") || json_is_boolean(json_object_get(o, "valid")));
	assert_true(!json_object_get(o, "comment") ||
		    json_is_string(json_object_get(o, "comment")));
	for (t = times; *t; t++)
		assert_true(!json_object_get(o, *t) ||
			    date_time_ok(json_string_value(json_object_get(o, *t)) ?: ""));
}

/* Whether array ARR has an object whose "id" is ID. */
static inline bool kcidb_has_id(const json_t *arr, const char *id)
{
	json_t *o;
	size_t i;

	json_array_foreach(arr, i, o)
		if (!strcmp(json_string_value(json_object_get(o, "id")) ?: "", id))
			return true;
	return false;
}

static inline void assert_kcidb_v4_4(const json_t *k)
{
	static const char *const top[] = { "version", "checkouts", "builds", "tests", "issues",
					   "incidents", NULL };
	static const char *const version[] = { "major", "minor", NULL };
	static const char *const checkout[] = { "_timestamp", "id", "origin", "tree_name",
		"git_repository_url", "git_commit_hash", "git_commit_name",
		"git_repository_branch", "patchset_files", "patchset_hash", "message_id",
		"comment", "start_time", "contacts", "log_url", "log_excerpt", "valid", "misc",
		NULL };
	static const char *const build[] = { "_timestamp", "checkout_id", "id", "origin",
		"comment", "start_time", "duration", "architecture", "command", "compiler",
		"input_files", "output_files", "config_name", "config_url", "log_url",
		"log_excerpt", "valid", "misc", NULL };
	static const char *const test[] = { "build_id", "id", "origin", "environment", "path",
					    "comment", "log_url", "log_excerpt", "status",
					    "number", "waived", "start_time", "duration",
					    "output_files", "misc", "_timestamp", NULL };
	static const char *const env[] = { "compatible", "comment", "misc", NULL };
	static const char *const number[] = { "value", "unit", "prefix", NULL };
	static const char *const statuses[] = { "FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP",
						NULL };
	const json_t *builds = json_object_get(k, "builds");
	const json_t *checkouts = json_object_get(k, "checkouts");
	json_t *o;
	size_t i;

	assert_true(only_members(k, top));
	assert_true(only_members(json_object_get(k, "version"), version));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(k, "version"),
							    "major")), 4);
	assert_true(json_is_integer(json_object_get(json_object_get(k, "version"), "minor")));
	assert_true(no_nulls(k));
	json_array_foreach(checkouts, i, o) {
		const char *hash = json_string_value(json_object_get(o, "git_commit_hash"));
		const char *url = json_string_value(json_object_get(o, "git_repository_url"));

		assert_kcidb_object(o, checkout);
		/* ^[0-9a-f]{40}$ and ^(https|git)://.*$ */
		assert_true(!json_object_get(o, "git_commit_hash") ||
			    (hash && strlen(hash) == 40 && strspn(hash, "0123456789abcdef") == 40));
		assert_true(!json_object_get(o, "git_repository_url") ||
			    (url && (!strncmp(url, "https://", 8) || !strncmp(url, "git://", 6))));
		assert_true(!json_object_get(o, "tree_name") ||
			    json_is_string(json_object_get(o, "tree_name")));
		assert_true(!json_object_get(o, "git_commit_name") ||
			    json_is_string(json_object_get(o, "git_commit_name")));
	}
	json_array_foreach(builds, i, o) {
		const char *arch = json_string_value(json_object_get(o, "architecture"));

		assert_kcidb_object(o, build);
		assert_true(kcidb_id_ok(json_string_value(json_object_get(o, "checkout_id")),
					NULL));
		assert_true(!arch || matches_chars(arch, "_"));
		if (checkouts)
			assert_true(kcidb_has_id(checkouts, json_string_value(json_object_get(
				o, "checkout_id"))));
	}
	json_array_foreach(json_object_get(k, "tests"), i, o) {
		const json_t *num = json_object_get(o, "number");
		const char *prefix = json_string_value(json_object_get(num, "prefix"));
		const char *status = json_string_value(json_object_get(o, "status"));
		const char *const *s;

		assert_kcidb_object(o, test);
		assert_true(kcidb_id_ok(json_string_value(json_object_get(o, "build_id")), NULL));
		if (builds)
			assert_true(kcidb_has_id(builds, json_string_value(json_object_get(
				o, "build_id"))));
		assert_true(matches_chars(json_string_value(json_object_get(o, "path")) ?: "",
					  ".ABCDEFGHIJKLMNOPQRSTUVWXYZ_-"));
		for (s = statuses; *s && (!status || strcmp(*s, status)); s++)
			;
		assert_non_null(*s);
		assert_true(only_members(json_object_get(o, "environment"), env));
		if (num) {
			assert_true(only_members(num, number));
			assert_true(json_is_number(json_object_get(num, "value")));
			assert_true(!prefix || !strcmp(prefix, "metric") || !strcmp(prefix, "binary"));
		}
	}
}

static inline void assert_bmf(const json_t *b)
{
	static const char *const metric[] = { "value", "lower_value", "upper_value", NULL };
	const char *bench, *measure;
	json_t *ms, *v;

	assert_true(json_is_object(b));
	json_object_foreach((json_t *)b, bench, ms) {
		assert_true(*bench && strlen(bench) <= 1024);
		assert_true(json_is_object(ms));
		json_object_foreach(ms, measure, v) {
			assert_true(*measure && strlen(measure) <= 64);
			assert_true(json_is_object(v));
			assert_true(only_members(v, metric));
			assert_true(json_is_number(json_object_get(v, "value")));
			assert_true(!json_object_get(v, "lower_value") ||
				    json_is_number(json_object_get(v, "lower_value")));
			assert_true(!json_object_get(v, "upper_value") ||
				    json_is_number(json_object_get(v, "upper_value")));
		}
	}
}

#endif
