// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_samples.c - libFuzzer target over bpflabd's fast path for a result's samples
 * (lib/proto/samples.c through proto_decode_samples): on any input it must agree with the full
 * path, proto_decode then samples_from_json. Both refuse it with the same reason, or both
 * make the same message; when the fast path took the samples, the full path's message
 * has the same members besides "samples", its samples are accepted by the store's checks
 * and equal the fast path's bit for bit, and the schema says the same of both messages.
 * Any crash, leak, sanitizer report or disagreement is a bug. Seeds:
 * tests/fuzz/corpus/samples/. Run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"
#include "proto/proto_schema.h"
#include "proto/samples.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err why_a = { 0 }, why_b = { 0 }, va = { 0 }, vb = { 0 };
	struct samples fast, full;
	json_t *a, *b, *rest;
	size_t i;

	a = proto_decode_samples(data, size, &fast, &why_a);
	b = proto_decode(data, size, &why_b);
	if (!a != !b || (!a && (strcmp(why_a.msg, why_b.msg) || fast.taken)))
		abort();
	if (!a)
		return 0;
	if (proto_validate(a, PROTO_CH_AGENT_TO_COORD, &va) !=
	    proto_validate(b, PROTO_CH_AGENT_TO_COORD, &vb) || strcmp(va.msg, vb.msg))
		abort();
	if (!fast.taken) {
		if (!json_equal(a, b))
			abort();
		goto out;
	}
	if (json_object_get(a, "samples") ||
	    samples_from_json(json_object_get(b, "samples"), &full, &va))
		abort();
	if (full.n != fast.n)
		abort();
	for (i = 0; i < fast.n; i++) {
		const struct sample *x = &fast.v[i], *y = &full.v[i];

		if (strcmp(x->metric, y->metric) || strcmp(x->subject, y->subject) ||
		    strcmp(x->window, y->window) || !same_text(x->unit, y->unit) ||
		    x->seq != y->seq || x->outlier != y->outlier ||
		    memcmp(&x->value, &y->value, sizeof(double)))
			abort();
	}
	samples_release(&full);
	rest = json_deep_copy(b);
	json_object_del(rest, "samples");
	if (!json_equal(a, rest))
		abort();
	json_decref(rest);
out:
	samples_release(&fast);
	json_decref(a);
	json_decref(b);
	return 0;
}
