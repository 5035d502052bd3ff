/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* objstore.h - the BPF objects an agent keeps from the `job` messages of its session.
 *
 * The coordinator sends an object's bytes to an agent once a session; later `job`
 * messages name it by sha256 alone ({"NAME": {"sha256"}}, docs/protocol.md, `job`).
 * The agent keeps each entry that carries bytes, {"sha256", "data" (base64)}, once they
 * are checked against the sha256, by that sha256: at most OBJSTORE_OBJECTS entries and
 * OBJSTORE_BYTES of base64, the oldest going first (the coordinator assumes fewer,
 * coordinator/jobmsg.c). A message naming an object no longer kept is refused with the
 * object's sha256 in the error's `missing`, and the coordinator sends the bytes again.
 * The agent's hello says OBJSTORE_OBJECTS (`objects_kept`). Main loop thread only; the
 * entries are shared by reference with the job messages they complete.
 */
#ifndef BPFLAB_AGENT_OBJSTORE_H
#define BPFLAB_AGENT_OBJSTORE_H

#include <jansson.h>
#include <stddef.h>

#define OBJSTORE_OBJECTS 64
#define OBJSTORE_BYTES (64u << 20)

struct objstore;

/* A store of at most MAX entries (at least 1) and MAX_BYTES of base64; NULL (ENOMEM). */
struct objstore *objstore_new(int max, size_t max_bytes);
/* Frees the store (entries live on in messages that hold them); takes NULL. */
void objstore_destroy(struct objstore **sp);
/* A job message's OBJECTS ({NAME: {sha256, data?}}, changed in place): keeps each entry
 * that carries data whose base64 decodes to bytes of its sha256 (one that does not is
 * left to the job, which fails naming it), and puts the kept entry in place of each that
 * names a sha256 alone. Returns how many remain without data, their sha256 appended to
 * MISSING (an array); -ENOMEM. */
int objstore_complete(struct objstore *s, json_t *objects, json_t *missing);
/* How many entries and bytes of base64 it keeps. */
void objstore_usage(const struct objstore *s, int *entries, size_t *bytes);

#endif
