/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* samples.h - the samples of a `result` (docs/protocol.md) as the store takes them, read
 * in one of two ways:
 *
 * - samples_from_json: from the jansson array of a parsed message, with every check the
 *   store makes (the full path; store_ingest_result);
 * - samples_scan: straight from the message text, without a jansson value per sample
 *   (bpflabd's agents socket, through proto_decode_samples). It takes only the shape
 *   agents send: an array of flat objects with the members metric, subject, value, unit,
 *   window, seq and outlier (true or false) in any order, strings of printable ASCII without escapes, numbers
 *   that parse exactly as proto_parse parses them, and values that both the schema
 *   (lib/proto/proto_schema.c) and the store accept. Anything else is left to the full path,
 *   which refuses or takes it as before: the two never disagree on what they both take
 *   (tests/unit/test_samples.c, tests/fuzz/fuzz_samples.c).
 *
 * Not thread-bound; no global state.
 */
#ifndef BPFLAB_SAMPLES_H
#define BPFLAB_SAMPLES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define SAMPLE_NAME_MAX 255		/* bytes of a metric or subject */
#define SAMPLE_UNIT_MAX 32		/* bytes of a unit */

/* One sample. The texts are NUL-terminated; they belong to the array they came from. */
struct sample {
	const char *metric;		/* not empty */
	const char *subject;		/* "" when none */
	const char *unit;		/* NULL when none */
	const char *window;		/* "rate" or "cost" */
	int64_t seq;			/* second >= 0, or -1: the whole window */
	double value;
	bool outlier;			/* "outlier": true (a second outside Tukey's fences) */
};

struct samples_chunk;

/* The samples of one result: V[0..N). TAKEN when samples_scan read them from the text
 * (their texts then live in TEXT, owned); built by samples_add, their texts live in
 * CHUNKS (owned); otherwise the texts are borrowed from the jansson array they were read
 * from. Zero-initialise; samples_release frees. */
struct samples {
	struct sample *v;
	size_t n;
	char *text;
	bool taken;
	size_t cap;			/* of V, samples_add */
	struct samples_chunk *chunks;	/* samples_add's copies of the texts */
};

void samples_release(struct samples *s);

/* Append a sample to *S (zero-initialised or built by samples_add only), its texts
 * copied: METRIC and WINDOW not NULL, SUBJECT NULL or "" for none, UNIT NULL for none,
 * SEQ -1 for the whole window. The way the agent builds a result's samples (agent/
 * job_sample.c). Returns 0 or -ENOMEM (*S unchanged). */
int samples_add(struct samples *s, const char *metric, const char *subject, double value,
		const char *unit, const char *window, int64_t seq);

/* Read and check the JSON array SAMPLES (NULL: no samples) into *OUT as the store takes
 * them. Returns 0; -EINVAL with the problem in WHY ("sample 3 has no 'metric'"); or
 * -ENOMEM. On failure *OUT is empty. */
int samples_from_json(const json_t *samples, struct samples *out, struct err *why);

/* The JSON array that starts at P (its '[') and ends before END, read into *OUT: returns
 * 1 with *OUT->taken set and *NEXT just after the closing ']'; 0 when the array is not
 * of the shape described above (*OUT empty: parse it as JSON instead); -ENOMEM. */
int samples_scan(const char *p, const char *end, struct samples *out, const char **next);

#endif
