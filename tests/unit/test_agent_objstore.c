// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_objstore.c - the objects an agent keeps from job messages (agent/objstore.h,
 * in lib/plan/objects.h's cache): an entry with bytes is kept when they hash to its
 * sha256, an entry naming a sha256 alone is filled from the kept ones or reported
 * missing, and the least recently used go first when the count or the bytes run out.
 * Objects here are short strings, their sha256 computed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "objstore.h"
#include "base/jget.h"
#include "base/util.h"

/* The entry {"sha256", "data"} of bytes TEXT; its sha256 also into HEX. */
static json_t *entry_of(const char *text, char hex[SHA256_HEX_LEN])
{
	char *b64 = util_base64_encode(text, strlen(text));
	json_t *e;

	util_sha256_hex(text, strlen(text), hex);
	e = json_pack("{s:s, s:s}", "sha256", hex, "data", b64);
	free(b64);
	return e;
}

/* Job objects {NAME: {"sha256": HEX}}: named by sha256 alone. */
static json_t *by_sha(const char *name, const char *hex)
{
	return json_pack("{s:{s:s}}", name, "sha256", hex);
}

/* complete() on OBJECTS (taken): how many are missing; MISSING (new) holds their sha256. */
static int complete(struct object_cache *s, json_t *objects, json_t **missing)
{
	int n;

	*missing = json_array();
	n = objstore_complete(s, objects, *missing);
	json_decref(objects);
	return n;
}

static void test_objstore_keep_and_fill(void **state)
{
	struct object_cache *s = object_cache_new(4, 1 << 20);
	char hex[SHA256_HEX_LEN], other[SHA256_HEX_LEN];
	json_t *objects, *missing, *e = entry_of("object one", hex);
	struct object_cache_stats st;

	(void)state;
	assert_non_null(s);
	/* not kept yet: missing, named */
	assert_int_equal(complete(s, by_sha("a.o", hex), &missing), 1);
	assert_string_equal(json_string_value(json_array_get(missing, 0)), hex);
	json_decref(missing);
	/* carried: kept, and the message is left as it was */
	objects = json_pack("{s:O}", "a.o", e);
	missing = json_array();
	assert_int_equal(objstore_complete(s, objects, missing), 0);
	assert_int_equal(json_array_size(missing), 0);
	assert_ptr_equal(json_object_get(objects, "a.o"), e);
	json_decref(objects);
	json_decref(missing);
	object_cache_get_stats(s, &st);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.bytes, json_string_length(json_object_get(e, "data")));
	/* named by sha256 alone, under any name: filled with the kept entry */
	objects = by_sha("b.o", hex);
	missing = json_array();
	assert_int_equal(objstore_complete(s, objects, missing), 0);
	assert_string_equal(jget_str(json_object_get(objects, "b.o"), "data", ""),
			    jget_str(e, "data", "?"));
	json_decref(objects);
	json_decref(missing);
	/* one kept, one not: one missing, the kept one filled */
	json_decref(entry_of("object two", other));
	objects = json_pack("{s:{s:s}, s:{s:s}}", "a.o", "sha256", hex, "c.o", "sha256", other);
	missing = json_array();
	assert_int_equal(objstore_complete(s, objects, missing), 1);
	assert_string_equal(json_string_value(json_array_get(missing, 0)), other);
	assert_non_null(json_object_get(json_object_get(objects, "a.o"), "data"));
	json_decref(objects);
	json_decref(missing);
	json_decref(e);
	object_cache_destroy(&s);
	assert_null(s);
	object_cache_destroy(&s);		/* takes NULL */
}

/* Bytes that do not hash to the entry's sha256 are not kept (the job fails on them,
 * agent/attach.c), nor is data that is not base64. */
static void test_objstore_bad_bytes_not_kept(void **state)
{
	struct object_cache *s = object_cache_new(4, 1 << 20);
	char hex[SHA256_HEX_LEN], wrong[SHA256_HEX_LEN];
	json_t *e = entry_of("object one", hex), *missing;
	struct object_cache_stats st;

	(void)state;
	json_decref(entry_of("something else", wrong));
	json_object_set_new(e, "sha256", json_string(wrong));
	assert_int_equal(complete(s, json_pack("{s:O}", "a.o", e), &missing), 0);
	json_decref(missing);
	assert_int_equal(complete(s, json_pack("{s:{s:s, s:s}}", "b.o", "sha256", hex,
					       "data", "%%% not base64"), &missing), 0);
	json_decref(missing);
	object_cache_get_stats(s, &st);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(complete(s, by_sha("a.o", wrong), &missing), 1);
	json_decref(missing);
	json_decref(e);
	object_cache_destroy(&s);
}

/* A job message carrying TEXT as x.o: nothing missing. */
static void keep_one(struct object_cache *s, const char *text, char hex[SHA256_HEX_LEN])
{
	json_t *missing;

	assert_int_equal(complete(s, json_pack("{s:o}", "x.o", entry_of(text, hex)), &missing),
			 0);
	json_decref(missing);
}

/* At most MAX entries and MAX_BYTES of base64: the oldest go first; an entry larger than
 * the bytes allowed is not kept at all. */
static void test_objstore_bounds(void **state)
{
	struct object_cache *s = object_cache_new(2, 40);	/* base64 of 12 bytes: 16 */
	char hex[3][SHA256_HEX_LEN], big[SHA256_HEX_LEN];
	const char *text[] = { "object 0 ...", "object 1 ...", "object 2 ..." };
	json_t *missing;
	struct object_cache_stats st;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		keep_one(s, text[i], hex[i]);
	object_cache_get_stats(s, &st);
	assert_int_equal(st.entries, 2);			/* by count: object 0 went */
	assert_int_equal(st.bytes, 32);
	assert_int_equal(complete(s, by_sha("x.o", hex[0]), &missing), 1);
	json_decref(missing);
	assert_int_equal(complete(s, by_sha("x.o", hex[1]), &missing), 0);
	json_decref(missing);
	/* 44 bytes of base64: over MAX_BYTES, not kept, nothing dropped for it */
	assert_int_equal(complete(s, json_pack("{s:o}", "y.o", entry_of(
		"an object of thirty-three bytes..", big)), &missing), 0);
	json_decref(missing);
	object_cache_get_stats(s, &st);
	assert_int_equal(st.entries, 2);
	assert_int_equal(complete(s, by_sha("y.o", big), &missing), 1);
	json_decref(missing);
	/* object 1 was named (used) after object 2 was kept: keeping object 0 again makes
	 * object 2 go, the least recently used, not object 1, the older */
	keep_one(s, text[0], hex[0]);
	object_cache_get_stats(s, &st);
	assert_int_equal(st.entries, 2);
	assert_int_equal(complete(s, by_sha("x.o", hex[2]), &missing), 1);
	json_decref(missing);
	assert_int_equal(complete(s, by_sha("x.o", hex[1]), &missing), 0);
	json_decref(missing);
	object_cache_destroy(&s);
	/* by bytes: two of 16 fit in 40, a third makes the least recently used go */
	s = object_cache_new(8, 40);
	for (i = 0; i < 3; i++)
		keep_one(s, text[i], hex[i]);
	object_cache_get_stats(s, &st);
	assert_int_equal(st.entries, 2);
	assert_int_equal(complete(s, by_sha("x.o", hex[0]), &missing), 1);
	json_decref(missing);
	assert_int_equal(complete(s, by_sha("x.o", hex[2]), &missing), 0);
	json_decref(missing);
	object_cache_destroy(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_objstore_keep_and_fill),
		cmocka_unit_test(test_objstore_bad_bytes_not_kept),
		cmocka_unit_test(test_objstore_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
