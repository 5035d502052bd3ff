// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_job_objects.c - libFuzzer target for the objects of a `job` message as the agent
 * completes them from the ones it keeps (objstore_complete() in agent/objstore.c,
 * docs/protocol.md, "Objects once a session"): the coordinator's bytes, after the
 * agent's own schema check (proto_validate, as agent/agent.c does).
 *
 * The input is one message, completed twice against a cache (lib/plan/objects.h) of 2
 * entries and 4 KiB (so that it evicts). Checked beyond "no crash":
 *  - the count returned is the size of the missing list, and each entry still without
 *    data afterwards names a sha256 in that list;
 *  - the store stays within its bounds;
 *  - completing the same objects again finds nothing more missing than the first time
 *    (what was carried is kept, unless it did not check or fit).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "objstore.h"
#include "base/err.h"
#include "proto/proto.h"
#include "proto/proto_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Complete OBJECTS (a copy) against S: the count, checked against the missing list. */
static int complete_checked(struct object_cache *s, json_t *objects)
{
	json_t *copy = json_deep_copy(objects), *missing = json_array(), *entry;
	const char *name, *sha;
	struct object_cache_stats st;
	size_t i;
	int n;
	bool named;

	if (!copy || !missing) {
		json_decref(copy);
		json_decref(missing);
		return -1;
	}
	n = objstore_complete(s, copy, missing);
	if (n >= 0 && (size_t)n != json_array_size(missing))
		abort();
	json_object_foreach(copy, name, entry) {
		if (n < 0 || json_object_get(entry, "data"))
			continue;
		sha = json_string_value(json_object_get(entry, "sha256"));
		named = false;
		for (i = 0; sha && i < json_array_size(missing); i++)
			named |= !strcmp(json_string_value(json_array_get(missing, i)), sha);
		if (!named)
			abort();
	}
	object_cache_get_stats(s, &st);
	if (st.entries > 2 || st.bytes > 4096)
		abort();
	json_decref(copy);
	json_decref(missing);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct object_cache *s;
	struct err why;
	json_t *msg = proto_decode((const char *)data, size, &why), *objects;
	int first, again;

	if (!msg)
		return 0;
	objects = json_object_get(msg, "objects");
	if (proto_validate(msg, PROTO_CH_COORD_TO_AGENT, &why) ||
	    strcmp(proto_msg_type(msg), "job") || !json_is_object(objects)) {
		json_decref(msg);
		return 0;
	}
	s = object_cache_new(2, 4096);
	if (s) {
		first = complete_checked(s, objects);
		again = complete_checked(s, objects);
		if (first >= 0 && again > first && json_object_size(objects) <= 2)
			abort();
	}
	object_cache_destroy(&s);
	json_decref(msg);
	return 0;
}
