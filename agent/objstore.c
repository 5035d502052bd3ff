// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* objstore.c - see objstore.h: the entries go through object_cache_get, whose loader
 * is the message's own base64 (or nothing, for an entry naming a sha256 alone). */
#include "objstore.h"

#include <errno.h>

#include "base/util.h"

/* object_cache loader: the bytes of the message's entry ARG; -ENOENT when it carries
 * none (a sha256 alone: kept, or missing). */
static int entry_load(void *arg, const char *sha256, void **data, size_t *len)
{
	const char *b64 = json_string_value(json_object_get(arg, "data"));

	return b64 ? util_base64_decode(b64, data, len) : -ENOENT;
}

int objstore_complete(struct object_cache *kept, json_t *objects, json_t *missing)
{
	json_t *entry, *got;
	void *iter;
	int n = 0;

	for (iter = json_object_iter(objects); iter;
	     iter = json_object_iter_next(objects, iter)) {
		const char *sha;

		entry = json_object_iter_value(iter);
		sha = json_string_value(json_object_get(entry, "sha256"));
		got = sha ? object_cache_get(kept, sha, entry_load, entry) : NULL;
		if (!got && errno == ENOMEM)
			return -ENOMEM;
		if (json_object_get(entry, "data")) {
			json_decref(got);	/* kept if it checked; else the job says why */
			continue;
		}
		if (got) {
			if (json_object_iter_set_new(objects, iter, got))
				return -ENOMEM;
			continue;
		}
		n++;
		if (json_array_append_new(missing, json_string(sha ? sha : "")))
			return -ENOMEM;
	}
	return n;
}
