// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_samples.c - unit tests for lib/proto/samples.c: the fast decoder of a result's samples
 * (samples_scan through proto_decode_samples) takes the shape agents send and gives what
 * the full path (proto_decode, then samples_from_json) gives; everything else it leaves
 * to the full path, so that what is accepted, refused and stored never changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"
#include "proto/proto_schema.h"
#include "proto/samples.h"

#define HEAD "{\"v\":1,\"type\":\"result\",\"job\":7,\"status\":\"ok\",\"samples\":"

static void assert_same_sample(const struct sample *a, const struct sample *b)
{
	assert_string_equal(a->metric, b->metric);
	assert_string_equal(a->subject, b->subject);
	assert_string_equal(a->window, b->window);
	if (!a->unit || !b->unit) {
		assert_null(a->unit);
		assert_null(b->unit);
	} else {
		assert_string_equal(a->unit, b->unit);
	}
	assert_int_equal(a->seq, b->seq);
	assert_int_equal(a->outlier, b->outlier);
	assert_memory_equal(&a->value, &b->value, sizeof(double));	/* bit for bit */
}

/* Decode TEXT both ways; the fast path must take its samples when TAKEN, and either way
 * the two must agree: the same refusal, or the same message and samples. */
static void check(const char *text, bool taken)
{
	struct samples fast, full;
	struct err why_fast = { 0 }, why_full = { 0 }, v1 = { 0 }, v2 = { 0 };
	json_t *a, *b, *rest;
	size_t i;

	a = proto_decode_samples(text, strlen(text), &fast, &why_fast);
	b = proto_decode(text, strlen(text), &why_full);
	if (fast.taken != taken)
		fail_msg("samples %s by the fast path: %s", fast.taken ? "taken" : "not taken",
			 text);
	assert_true(!a == !b);
	if (!a) {
		assert_string_equal(why_fast.msg, why_full.msg);
		assert_false(fast.taken);
		return;
	}
	/* the schema says the same of both */
	assert_int_equal(proto_validate(a, PROTO_CH_AGENT_TO_COORD, &v1),
			 proto_validate(b, PROTO_CH_AGENT_TO_COORD, &v2));
	assert_string_equal(v1.msg, v2.msg);
	if (!fast.taken) {
		assert_true(json_equal(a, b));
	} else {
		assert_null(json_object_get(a, "samples"));
		assert_int_equal(samples_from_json(json_object_get(b, "samples"), &full, &v1), 0);
		assert_int_equal(fast.n, full.n);
		for (i = 0; i < fast.n; i++)
			assert_same_sample(&fast.v[i], &full.v[i]);
		samples_release(&full);
		rest = json_deep_copy(b);
		json_object_del(rest, "samples");
		assert_true(json_equal(a, rest));
		json_decref(rest);
	}
	samples_release(&fast);
	json_decref(a);
	json_decref(b);
}

static void test_samples_agent_shape(void **state)
{
	const char *text = HEAD "[{\"metric\":\"port.rx_pps\",\"subject\":\"b\","
			   "\"value\":1000000.5,\"unit\":\"pps\",\"window\":\"rate\",\"seq\":0},"
			   "{\"metric\":\"port.rx_pps\",\"subject\":\"b\",\"value\":999.25,"
			   "\"unit\":\"pps\",\"window\":\"rate\",\"seq\":null},"
			   "{\"metric\":\"prog.ns\",\"subject\":\"xdp_drop\",\"value\":-12,"
			   "\"unit\":\"ns\",\"window\":\"cost\",\"seq\":3}],"
			   "\"started_ms\":1,\"finished_ms\":2}";
	struct samples s;
	struct err why;
	json_t *msg;

	check(text, true);
	msg = proto_decode_samples(text, strlen(text), &s, &why);
	assert_non_null(msg);
	assert_true(s.taken);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.v[0].metric, "port.rx_pps");
	assert_string_equal(s.v[0].subject, "b");
	assert_string_equal(s.v[0].unit, "pps");
	assert_string_equal(s.v[0].window, "rate");
	assert_int_equal(s.v[0].seq, 0);
	assert_true(s.v[0].value == 1000000.5);
	assert_int_equal(s.v[1].seq, -1);
	assert_string_equal(s.v[2].window, "cost");
	assert_true(s.v[2].value == -12.0);
	assert_int_equal(json_integer_value(json_object_get(msg, "finished_ms")), 2);
	samples_release(&s);
	json_decref(msg);
}

static void test_samples_other_shapes_taken(void **state)
{
	/* any order, spaces, members left out or null, integers and reals of every form */
	check(HEAD "[]}", true);
	check(HEAD " [ ] }", true);
	check(HEAD "[ { \"window\" : \"cost\" ,\n\t\"value\" : 0 , \"metric\" : \"m\" } ]}",
	      true);
	check(HEAD "[{\"metric\":\"m\",\"value\":-0,\"window\":\"rate\",\"subject\":null,"
	      "\"unit\":null,\"seq\":null}]}", true);
	check(HEAD "[{\"metric\":\"m\",\"value\":1e3,\"window\":\"rate\",\"unit\":\"\"},"
	      "{\"metric\":\"m\",\"value\":-2.5E-3,\"window\":\"rate\",\"subject\":\"\"},"
	      "{\"metric\":\"m\",\"value\":123456789012345678,\"window\":\"rate\"},"
	      "{\"metric\":\"m\",\"value\":4.9e-330,\"window\":\"rate\",\"seq\":0},"
	      "{\"metric\":\"n\",\"value\":0.1,\"window\":\"rate\",\"seq\":99}]}", true);
	/* outlier seconds as the agent marks them */
	check(HEAD "[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"seq\":2,"
	      "\"outlier\":true},{\"outlier\":false,\"metric\":\"m\",\"value\":2,"
	      "\"window\":\"rate\",\"seq\":3}]}", true);
	/* the samples first, other members after them, or nothing else after them */
	check("{\"samples\":[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\"}],\"v\":1,"
	      "\"type\":\"result\",\"job\":1,\"status\":\"failed\",\"error\":\"x\"}", true);
	/* many samples: the array grows */
	{
		size_t cap = 200 * 100 + 256, n;
		char *t = malloc(cap);
		int i;

		n = (size_t)snprintf(t, cap, HEAD "[");
		for (i = 0; i < 200; i++)
			n += (size_t)snprintf(t + n, cap - n, "%s{\"metric\":\"m%d\",\"value\":%d.5,"
					      "\"window\":\"rate\",\"seq\":%d}", i ? "," : "",
					      i % 3, i, i);
		snprintf(t + n, cap - n, "]}");
		check(t, true);
		free(t);
	}
}

/* What the fast path leaves to the full path, which then accepts or refuses it as
 * before. */
static void test_samples_fallback(void **state)
{
	static const char *const arrays[] = {
		/* texts it does not read */
		"[{\"metric\":\"a\\\"b\",\"value\":1,\"window\":\"rate\"}]",
		"[{\"metric\":\"m\\u0041\",\"value\":1,\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"subject\":\"\xc3\xa9th0\",\"value\":1,\"window\":\"rate\"}]",
		"[{\"metr\\u0069c\":\"m\",\"value\":1,\"window\":\"rate\"}]",
		/* members it does not know, or twice */
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"extra\":1}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"value\":2}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"outlier\":1}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"outlier\":null}]",
		/* values the store or the schema refuses */
		"[{\"value\":1,\"window\":\"rate\"}]",
		"[{\"metric\":\"\",\"value\":1,\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"value\":\"1\",\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"value\":1}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":null}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"wall\"}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"seq\":-1}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"seq\":1.0}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"seq\":\"1\"}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"subject\":1}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"unit\":true}]",
		"[{\"metric\":\"m\",\"value\":null,\"window\":\"rate\"}]",
		"[{}]",
		"[1]",
		"[[]]",
		"{}",
		"null",
		/* numbers it leaves to proto_parse */
		"[{\"metric\":\"m\",\"value\":1234567890123456789,\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"value\":99999999999999999999,\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"value\":1e999,\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"value\":0.00000000000000000000000000000000000000000000000"
		"000000000000001,\"window\":\"rate\"}]",
		/* not JSON: refused the same way */
		"[{\"metric\":\"m\",\"value\":01,\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"value\":1.,\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"value\":-,\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",}]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\"},]",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\"}",
		"[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\"",
		"[{\"metric\":\"m\",\"value\":nul,\"window\":\"rate\"}]",
		"[{\"metric\":\"m\",\"value\":1,\"seq\":nullx,\"window\":\"rate\"}]",
	};
	char t[512];
	size_t i;

	for (i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		snprintf(t, sizeof(t), HEAD "%s}", arrays[i]);
		check(t, false);
	}
	/* texts at their limits: metric and subject 255 bytes, unit 32; one more is not
	 * taken (and refused by the schema) */
	{
		char big[300], m[1024];

		memset(big, 'x', sizeof(big));
		snprintf(m, sizeof(m), HEAD "[{\"metric\":\"%.255s\",\"subject\":\"%.255s\","
			 "\"unit\":\"%.32s\",\"value\":1,\"window\":\"rate\"}]}", big, big, big);
		check(m, true);
		snprintf(m, sizeof(m), HEAD "[{\"metric\":\"%.256s\",\"value\":1,\"window\":"
			 "\"rate\"}]}", big);
		check(m, false);
		snprintf(m, sizeof(m), HEAD "[{\"metric\":\"m\",\"unit\":\"%.33s\",\"value\":1,"
			 "\"window\":\"rate\"}]}", big);
		check(m, false);
	}
}

/* Whole messages: the same refusals, and samples taken only from a result's own
 * "samples". */
static void test_samples_messages(void **state)
{
	static const struct {
		const char *fmt;	/* %s: a samples array the fast path takes */
		bool taken;
	} msgs[] = {
		/* a second "samples" after a taken one: the duplicate key is refused as before */
		{ HEAD "%s,\"samples\":[]}", false },
		/* broken after the samples, or cut short */
		{ HEAD "%s,\"partial\":tru}", false },
		{ HEAD "%s", false },
		/* not a result (or no message at all): its "samples" stay in the message */
		{ "{\"v\":1,\"type\":\"progress\",\"job\":1,\"samples\":%s}", false },
		{ "{\"v\":1,\"samples\":%s}", false },
		{ "{\"v\":2,\"type\":\"result\",\"samples\":%s}", false },
		/* nested "samples" are nobody's business */
		{ HEAD "[],\"env\":{\"samples\":%s}}", true },
		/* a result the schema refuses for another member: the same message */
		{ "{\"v\":1,\"type\":\"result\",\"job\":0,\"status\":\"ok\",\"samples\":%s}",
		  true },
		{ HEAD "%s,\"partial\":1}", true },
	};
	const char *ok = "[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\"}]";
	char t[512];
	size_t i;

	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		snprintf(t, sizeof(t), msgs[i].fmt, ok);
		check(t, msgs[i].taken);
	}
}

/* The full path's checks and messages, as the store reports them. */
static void test_samples_from_json(void **state)
{
	static const struct {
		const char *json, *why;
	} bad[] = {
		{ "{}", "'samples' is not an array" },
		{ "[1]", "sample 0 is not an object" },
		{ "[{\"value\":1}]", "sample 0 has no 'metric'" },
		{ "[{\"metric\":\"m\"}]", "sample 0 ('m') has no numeric 'value'" },
		{ "[{\"metric\":\"m\",\"value\":1}]",
		  "sample 0 ('m'): 'window' must be 'rate' or 'cost'" },
		{ "[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"seq\":-2}]",
		  "sample 0 ('m'): 'seq' must be null or a second >= 0" },
		{ "[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"unit\":2}]",
		  "sample 0 ('m'): 'subject' and 'unit' must be strings" },
	};
	struct samples s;
	json_error_t jerr;
	struct err why;
	json_t *v;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = json_loads(bad[i].json, 0, &jerr);
		assert_non_null(v);
		assert_int_equal(samples_from_json(v, &s, &why), -EINVAL);
		assert_string_equal(why.msg, bad[i].why);
		assert_null(s.v);
		json_decref(v);
	}
	assert_int_equal(samples_from_json(NULL, &s, &why), 0);
	assert_int_equal(s.n, 0);
	samples_release(&s);
	samples_release(NULL);
}

/* samples_add, the agent's way of building a result's samples: texts copied (equal
 * ones of consecutive samples shared), NULL subject "", and many or long ones. */
static void test_samples_add(void **state)
{
	struct samples s = { 0 };
	char metric[16], *big;
	int i;

	(void)state;
	assert_int_equal(samples_add(&s, "port.rx_pps", "b", 1.5, "pps", "rate", 0), 0);
	assert_int_equal(samples_add(&s, "port.rx_pps", "b", 2.5, "pps", "rate", -7), 0);
	assert_int_equal(samples_add(&s, "prog.ns_per_run", NULL, 3, NULL, "cost", 2), 0);
	assert_int_equal(s.n, 3);
	assert_false(s.taken);
	assert_string_equal(s.v[0].metric, "port.rx_pps");
	assert_string_equal(s.v[0].subject, "b");
	assert_string_equal(s.v[0].unit, "pps");
	assert_int_equal(s.v[0].seq, 0);
	assert_true(s.v[1].metric == s.v[0].metric);	/* shared */
	assert_int_equal(s.v[1].seq, -1);
	assert_true(s.v[1].value == 2.5);
	assert_string_equal(s.v[2].subject, "");
	assert_null(s.v[2].unit);
	assert_string_equal(s.v[2].window, "cost");
	assert_false(s.v[2].outlier);
	/* more than one chunk, and a text longer than one */
	for (i = 0; i < 3000; i++) {
		snprintf(metric, sizeof(metric), "m%d", i);
		assert_int_equal(samples_add(&s, metric, metric, i, "u", "rate", i), 0);
	}
	big = malloc(10000);
	assert_non_null(big);
	memset(big, 'x', 9999);
	big[9999] = '\0';
	assert_int_equal(samples_add(&s, big, "s", 1, "u", "rate", -1), 0);
	free(big);
	assert_int_equal(s.n, 3004);
	assert_string_equal(s.v[3 + 2999].metric, "m2999");
	assert_string_equal(s.v[3 + 2999].subject, "m2999");
	assert_int_equal(strlen(s.v[3003].metric), 9999);
	assert_string_equal(s.v[3003].subject, "s");
	samples_release(&s);
	assert_int_equal(s.n, 0);
	assert_null(s.chunks);
	samples_release(&s);	/* twice */
}

/* samples_scan alone: where it stops, and what it refuses to start on. */
static void test_samples_scan(void **state)
{
	const char *text = "[{\"metric\":\"m\",\"value\":2,\"window\":\"rate\"}] ,rest";
	const char *next = NULL;
	struct samples s;

	assert_int_equal(samples_scan(text, text + strlen(text), &s, &next), 1);
	assert_ptr_equal(next, strchr(text, ' '));
	assert_int_equal(s.n, 1);
	assert_true(s.v[0].value == 2.0);
	samples_release(&s);
	/* cut short anywhere: never read past the end, never taken */
	for (size_t len = 0; len < strlen(text) - 6; len++) {
		assert_int_equal(samples_scan(text, text + len, &s, &next), 0);
		assert_false(s.taken);
	}
	text = "{}";
	assert_int_equal(samples_scan(text, text + 2, &s, &next), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_agent_shape),
		cmocka_unit_test(test_samples_other_shapes_taken),
		cmocka_unit_test(test_samples_fallback),
		cmocka_unit_test(test_samples_messages),
		cmocka_unit_test(test_samples_from_json),
		cmocka_unit_test(test_samples_scan),
		cmocka_unit_test(test_samples_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
