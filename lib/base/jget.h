/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* jget.h - the one family of JSON member getters: OBJ[KEY] as a string, an integer or a
 * number, or DEF when OBJ lacks KEY, holds another type there, or is not an object (NULL
 * included). Every folder reads members of decoded JSON through these rather than a copy
 * of its own; each caller names its default at the call ("" or NULL, 0, NAN).
 *
 * The returned string is borrowed from OBJ: valid while OBJ holds it. Inline: they sit on
 * bpflabd's per-sample path. Thread-safe as far as jansson's reads are.
 */
#ifndef BPFLAB_BASE_JGET_H
#define BPFLAB_BASE_JGET_H

#include <jansson.h>

/* OBJ[KEY] as a string, DEF when absent or not a string. */
static inline const char *jget_str(const json_t *obj, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : def;
}

/* OBJ[KEY] as an integer, DEF when absent or not an integer (a real is not one). */
static inline long long jget_int(const json_t *obj, const char *key, long long def)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

/* OBJ[KEY] as a number (integer or real), DEF when absent or not a number. */
static inline double jget_num(const json_t *obj, const char *key, double def)
{
	json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : def;
}

#endif
