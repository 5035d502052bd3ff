/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* proto_schema.h - the per-type schema of every protocol message (docs/protocol.md),
 * written once and used by the coordinator, the agent and the CLI.
 *
 * proto_decode() (proto.h) checks what every message has (size, JSON object, "v",
 * "type"); proto_validate() checks the members of one message type on one channel: the
 * required ones are present, every listed one has an allowed JSON type, strings and arrays
 * stay within their bounds, enumerated strings have a known value, and nested objects
 * (samples, the job, objects to attach) are checked member by member too. Members that
 * the schema does not list are allowed (newer peers may add some) and left alone, except
 * in a job's spec, which is checked by decoding it (jobspec.h): strictly, unknown members
 * refused.
 *
 * A handler can then read the members it needs without checking their types again.
 * Thread-safe (the tables are constant).
 */
#ifndef BPFLAB_PROTO_SCHEMA_H
#define BPFLAB_PROTO_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

#include "base/err.h"

/* Who sends to whom: the same type name can mean different things on two channels
 * ("result" from an agent, "result" to a client). */
enum proto_channel {
	PROTO_CH_AGENT_TO_COORD,
	PROTO_CH_COORD_TO_AGENT,
	PROTO_CH_CLIENT_TO_COORD,
	PROTO_CH_COORD_TO_CLIENT,
	PROTO_CH_COUNT,
};

/* Validate MSG (already through proto_decode) against its type's schema on channel CH.
 * Returns 0; -EINVAL with the first problem in WHY ("'job' must be an integer",
 * "samples[3]: 'metric' is required"); or -ENOENT with WHY when CH has no message of
 * that type. */
int proto_validate(const json_t *msg, enum proto_channel ch, struct err *why);

/* The I-th message type of channel CH (from 0), or NULL past the last (for tests). */
const char *proto_schema_type(enum proto_channel ch, size_t i);

#endif
