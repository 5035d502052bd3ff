// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* objstore.c - see objstore.h: {"sha256", "data"} entries, oldest first, searched
 * linearly (a job message names a few objects, and the store keeps OBJSTORE_OBJECTS). */
#include "objstore.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct objstore {
	int max, n;			/* ENTRIES[0..N): kept, the oldest first */
	size_t max_bytes, bytes;
	json_t **entries;		/* owned references */
};

struct objstore *objstore_new(int max, size_t max_bytes)
{
	struct objstore *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->max = max < 1 ? 1 : max;
	s->max_bytes = max_bytes;
	s->entries = calloc((size_t)s->max, sizeof(*s->entries));
	if (!s->entries) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void objstore_destroy(struct objstore **sp)
{
	struct objstore *s = sp ? *sp : NULL;
	int i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		json_decref(s->entries[i]);
	free(s->entries);
	free(s);
	*sp = NULL;
}

void objstore_usage(const struct objstore *s, int *entries, size_t *bytes)
{
	*entries = s->n;
	*bytes = s->bytes;
}

static const char *entry_sha(const json_t *entry)
{
	return json_string_value(json_object_get(entry, "sha256"));
}

static size_t entry_bytes(const json_t *entry)
{
	return json_string_length(json_object_get(entry, "data"));
}

/* The kept entry of SHA, or NULL. */
static json_t *find(const struct objstore *s, const char *sha)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(entry_sha(s->entries[i]), sha))
			return s->entries[i];
	return NULL;
}

/* Whether ENTRY's data is base64 of bytes whose sha256 is SHA. */
static bool entry_checks(const json_t *entry, const char *sha)
{
	const char *b64 = json_string_value(json_object_get(entry, "data"));
	char hex[SHA256_HEX_LEN];
	void *data = NULL;
	size_t len = 0;

	if (!b64 || util_base64_decode(b64, &data, &len))
		return false;
	util_sha256_hex(data, len, hex);
	free(data);
	return !strcmp(hex, sha);
}

/* Keep ENTRY of SHA if it checks, the oldest entries going while it does not fit. */
static void keep(struct objstore *s, json_t *entry, const char *sha)
{
	size_t len = entry_bytes(entry);

	if (find(s, sha) || len > s->max_bytes || !entry_checks(entry, sha))
		return;
	while (s->n && (s->n == s->max || s->bytes + len > s->max_bytes)) {
		s->bytes -= entry_bytes(s->entries[0]);
		json_decref(s->entries[0]);
		memmove(s->entries, s->entries + 1, (size_t)--s->n * sizeof(*s->entries));
	}
	s->entries[s->n++] = json_incref(entry);
	s->bytes += len;
}

int objstore_complete(struct objstore *s, json_t *objects, json_t *missing)
{
	const char *name;
	json_t *entry, *kept;
	void *iter;
	int n = 0;

	json_object_foreach(objects, name, entry) {
		const char *sha = entry_sha(entry);

		if (sha && json_object_get(entry, "data"))
			keep(s, entry, sha);
	}
	for (iter = json_object_iter(objects); iter;
	     iter = json_object_iter_next(objects, iter)) {
		entry = json_object_iter_value(iter);
		if (json_object_get(entry, "data"))
			continue;
		kept = entry_sha(entry) ? find(s, entry_sha(entry)) : NULL;
		if (kept) {
			if (json_object_iter_set(objects, iter, kept))
				return -ENOMEM;
			continue;
		}
		n++;
		if (json_array_append_new(missing, json_string(entry_sha(entry) ?: "")))
			return -ENOMEM;
	}
	return n;
}
