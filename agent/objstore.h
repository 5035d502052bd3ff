/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* objstore.h - a `job` message's objects completed from those the agent keeps.
 *
 * The coordinator sends an object's bytes to an agent once a session; later `job`
 * messages name it by sha256 alone ({"NAME": {"sha256"}}, docs/protocol.md, "Objects
 * once a session"). The agent keeps the entries {"sha256", "data" (base64)} in a struct
 * object_cache (lib/plan/objects.h) of OBJSTORE_OBJECTS entries and OBJSTORE_BYTES of
 * base64, the least recently used going first: only bytes that hash to their sha256 are
 * kept. A message naming an object no longer kept is refused with its sha256 in the
 * error's `missing`, and the coordinator sends the bytes again. The agent's hello says
 * OBJSTORE_OBJECTS (`objects_kept`); the coordinator assumes fewer (coordinator/jobmsg.c).
 * Main loop thread only.
 */
#ifndef BPFLAB_AGENT_OBJSTORE_H
#define BPFLAB_AGENT_OBJSTORE_H

#include <jansson.h>

#include "plan/objects.h"

#define OBJSTORE_OBJECTS 64
#define OBJSTORE_BYTES (64u << 20)

/* A job message's OBJECTS ({NAME: {sha256, data?}}, changed in place): KEPT keeps each
 * entry that carries data whose base64 decodes to bytes of its sha256 (one that does not
 * is left to the job, which fails naming it), and each entry that names a sha256 alone
 * is replaced by the kept one. Returns how many remain without data, their sha256
 * appended to MISSING (an array); -ENOMEM. */
int objstore_complete(struct object_cache *kept, json_t *objects, json_t *missing);

#endif
