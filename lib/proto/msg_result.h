/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* msg_result.h - the messages that carry data back from an agent, `result` and
 * `progress` (docs/protocol.md), as C types: decoded once where bpflabd receives them
 * (coordinator/coord.c) and read as structs by the store's ingest (lib/store/store_ingest.c)
 * and the coordinator, not picked apart by key on their way.
 *
 * The agent fills a struct msg_result (samples included, built with samples_add) and
 * encodes it once (agent/job.c, agent/agent.c): the same bytes go to its spool and to
 * bpflabd.
 *
 * Decoding takes one pass over the message's members and checks everything bpflabd and
 * the store need (types, bounds, the status, the samples, the verdicts): for a `result`
 * it is the only check (lib/proto/proto_schema.c's table for it documents the members and
 * serves the tests). Members it does not know are left alone. A value of the wrong type is
 * refused with its path, e.g. "result.verdicts[1]: must be a name of 1 to 64 bytes, not
 * an integer"; a bad sample with lib/proto/samples.h's reason ("sample 2 ('m'): 'window' must
 * be 'rate' or 'cost'").
 *
 * Ownership: the strings and JSON values of a decoded struct are borrowed from the
 * message it was decoded from, which must outlive it; its samples are its own (moved
 * from the ones proto_decode_samples took, or read from the message) and freed by
 * msg_result_release(). Encoding writes the members in one fixed order, so decode ->
 * encode -> decode -> encode gives the same bytes (tests/unit/test_msg_result.c,
 * tests/fuzz/fuzz_msg_result.c). Thread-safe per object.
 */
#ifndef BPFLAB_MSG_RESULT_H
#define BPFLAB_MSG_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/samples.h"

#define MSG_VERDICT_MAX_LEN 64		/* bytes of a verdict name */
#define MSG_VERDICTS_MAX 16		/* names in "verdicts" */
#define MSG_ERROR_MAX_LEN 65536		/* bytes of "error" */

/* A `result`. */
struct msg_result {
	int64_t job;			/* >= 1 */
	bool failed;			/* status "failed" (else "ok") */
	bool partial;			/* stopped by a cancel */
	const char *error;		/* NULL when absent or null */
	const char *verifier_log;	/* NULL when absent or null */
	const json_t *env;		/* an object, or NULL: none (null or absent) */
	bool has_started, has_finished;
	int64_t started_ms, finished_ms;/* wall clock, when has_* */
	const json_t *verdicts;		/* array of names, or NULL: absent */
	const json_t *verdict_details;	/* object of texts, or NULL: absent */
	struct samples samples;		/* owned */
};

/* A `progress`. */
struct msg_progress {
	int64_t job;			/* >= 1 */
	const char *phase;		/* prepare, warmup, rate, cost or cleanup; NULL: absent */
	bool has_second, has_of;
	int64_t second, of;
	const json_t *rates;		/* object or JSON null as sent; NULL: absent */
};

/* Decode result MSG (not stolen; it must outlive *OUT) into *OUT. SCANNED (may be NULL):
 * the samples proto_decode_samples took from MSG's text; when taken, they move into
 * *OUT (SCANNED is left empty) and MSG has no "samples"; else the samples are read from
 * MSG. Returns 0; -EINVAL with the member's path in WHY; or -ENOMEM. On failure *OUT
 * holds nothing to release (its job is set when MSG had a valid one, else -1) and
 * SCANNED keeps its samples. */
int msg_result_decode(const json_t *msg, struct samples *scanned, struct msg_result *out,
		      struct err *why);
/* Free what *R owns; *R is empty after. */
void msg_result_release(struct msg_result *r);
/* R as a `result` message (new reference), or NULL when out of memory. */
json_t *msg_result_encode(const struct msg_result *r);
/* R as the text of its `result` message, written straight from the struct (no jansson
 * value a sample): the bytes proto_encode(msg_result_encode(R)) gives (tests/unit/
 * test_msg_result.c, tests/fuzz/fuzz_msg_result.c). Heap (free()), its length in *LEN;
 * NULL when out of memory or a text is not valid UTF-8. */
char *msg_result_encode_text(const struct msg_result *r, size_t *len);

/* Decode progress MSG (not stolen; it must outlive *OUT) into *OUT. Returns 0 or -EINVAL
 * with the member's path in WHY. */
int msg_progress_decode(const json_t *msg, struct msg_progress *out, struct err *why);
/* P as a `progress` message (new reference), or NULL when out of memory. */
json_t *msg_progress_encode(const struct msg_progress *p);

#endif
