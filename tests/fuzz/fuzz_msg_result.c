// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_msg_result.c - libFuzzer target over lib/proto/msg_result.c, the `result` and
 * `progress` messages decoded into structs: on any input, a result decoded with its
 * samples taken from the text (proto_decode_samples, as bpflabd does) and one decoded
 * from the full message (proto_decode) are both refused with the same reason or both
 * taken with the same samples; what is taken encodes, decodes again and encodes to the
 * same bytes; a progress likewise. Any crash, leak, sanitizer report or disagreement is a
 * bug. Seeds: tests/fuzz/corpus/msg_result/. Run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg_result.h"
#include "proto/proto.h"

/* The text written straight from R is the one proto_encode writes for its message. */
static void same_text(const struct msg_result *r)
{
	json_t *msg = msg_result_encode(r);
	char *one = proto_encode(msg, NULL), *two = msg_result_encode_text(r, NULL);

	if (!one || !two || strcmp(one, two))
		abort();
	json_decref(msg);
	free(one);
	free(two);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ENC as text, decoded again and encoded again: the same text. Frees ENC. */
static void same_again(json_t *enc, bool result)
{
	struct err why;
	char *one, *two;
	json_t *msg, *again = NULL;
	struct msg_result r;
	struct msg_progress p;

	if (!enc)
		abort();
	one = json_dumps(enc, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(enc);
	msg = one ? proto_decode(one, strlen(one), &why) : NULL;
	if (!msg)
		abort();
	if (result) {
		if (msg_result_decode(msg, NULL, &r, &why))
			abort();
		again = msg_result_encode(&r);
		msg_result_release(&r);
	} else {
		if (msg_progress_decode(msg, &p, &why))
			abort();
		again = msg_progress_encode(&p);
	}
	two = again ? json_dumps(again, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (!two || strcmp(one, two))
		abort();
	json_decref(again);
	json_decref(msg);
	free(one);
	free(two);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err why_a = { 0 }, why_b = { 0 }, wa = { 0 }, wb = { 0 };
	struct msg_result ra, rb;
	struct msg_progress p;
	struct samples fast;
	json_t *a, *b;
	int ea, eb;
	size_t i;

	a = proto_decode_samples(data, size, &fast, &why_a);
	b = proto_decode(data, size, &why_b);
	if (!a || !b)
		goto out;
	if (!strcmp(proto_msg_type(b), "progress")) {
		if (!msg_progress_decode(b, &p, &wb))
			same_again(msg_progress_encode(&p), false);
		goto out;
	}
	if (strcmp(proto_msg_type(b), "result"))
		goto out;
	ea = msg_result_decode(a, &fast, &ra, &wa);
	eb = msg_result_decode(b, NULL, &rb, &wb);
	if (ea != eb || (ea && strcmp(wa.msg, wb.msg)))
		abort();
	if (ea)
		goto out;
	if (ra.samples.n != rb.samples.n)
		abort();
	for (i = 0; i < ra.samples.n; i++) {
		const struct sample *x = &ra.samples.v[i], *y = &rb.samples.v[i];

		if (strcmp(x->metric, y->metric) || strcmp(x->subject, y->subject) ||
		    strcmp(x->window, y->window) || !x->unit != !y->unit ||
		    (x->unit && strcmp(x->unit, y->unit)) || x->seq != y->seq ||
		    x->outlier != y->outlier || memcmp(&x->value, &y->value, sizeof(double)))
			abort();
	}
	same_text(&ra);
	same_again(msg_result_encode(&rb), true);
	msg_result_release(&ra);
	msg_result_release(&rb);
out:
	samples_release(&fast);
	json_decref(a);
	json_decref(b);
	return 0;
}
