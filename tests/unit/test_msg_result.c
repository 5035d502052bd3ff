// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_msg_result.c - unit tests for lib/proto/msg_result.c: the `result` and `progress`
 * messages decoded into structs and encoded back (decode -> encode -> decode -> encode
 * gives the same bytes), the samples taken from the text moved into the struct (and left
 * where they were on a refusal), and a bad member refused with its path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg_result.h"
#include "proto/proto.h"

#define RESULT "{\"v\":1,\"type\":\"result\",\"job\":7,\"status\":\"failed\"," \
	"\"error\":\"boom\",\"verifier_log\":\"log\",\"env\":{\"hostname\":\"h1\"}," \
	"\"started_ms\":10,\"finished_ms\":20,\"partial\":true,\"warmup\":{\"rounds\":1}," \
	"\"verdicts\":[\"unstable\"],\"verdict_details\":{\"unstable\":\"cv 9 %\"}," \
	"\"samples\":[{\"metric\":\"port.rx_pps\",\"subject\":\"a\",\"value\":1.5," \
	"\"unit\":\"pps\",\"window\":\"rate\",\"seq\":0},{\"metric\":\"prog.ns_per_run\"," \
	"\"value\":3,\"window\":\"cost\"}]}"

static json_t *parse(const char *text)
{
	struct err why;
	json_t *msg = proto_decode(text, strlen(text), &why);

	assert_non_null(msg);
	return msg;
}

/* R written straight as text and through its jansson message: the same bytes. */
static void assert_same_text(const struct msg_result *r)
{
	json_t *msg = msg_result_encode(r);
	char *one = proto_encode(msg, NULL), *two;
	size_t len;

	two = msg_result_encode_text(r, &len);
	assert_non_null(one);
	assert_non_null(two);
	assert_string_equal(one, two);
	assert_int_equal(len, strlen(two));
	json_decref(msg);
	free(one);
	free(two);
}

/* MSG's text through decode -> encode, as compact JSON with sorted keys (heap). */
static char *round_trip(const json_t *msg)
{
	struct msg_result r;
	struct err why;
	char *text;
	json_t *enc;

	assert_int_equal(msg_result_decode(msg, NULL, &r, &why), 0);
	assert_same_text(&r);
	enc = msg_result_encode(&r);
	assert_non_null(enc);
	text = json_dumps(enc, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(enc);
	msg_result_release(&r);
	return text;
}

static void test_msg_result_decode(void **state)
{
	json_t *msg = parse(RESULT);
	struct msg_result r;
	struct err why;

	(void)state;
	assert_int_equal(msg_result_decode(msg, NULL, &r, &why), 0);
	assert_int_equal(r.job, 7);
	assert_true(r.failed);
	assert_true(r.partial);
	assert_string_equal(r.error, "boom");
	assert_string_equal(r.verifier_log, "log");
	assert_true(json_is_object(r.env));
	assert_true(r.has_started && r.has_finished);
	assert_int_equal(r.started_ms, 10);
	assert_int_equal(r.finished_ms, 20);
	assert_int_equal(json_array_size(r.verdicts), 1);
	assert_int_equal(r.samples.n, 2);
	assert_string_equal(r.samples.v[0].subject, "a");
	assert_string_equal(r.samples.v[1].subject, "");
	assert_null(r.samples.v[1].unit);
	assert_int_equal(r.samples.v[1].seq, -1);
	msg_result_release(&r);
	json_decref(msg);
}

static void test_msg_result_round_trip(void **state)
{
	const char *texts[] = {
		RESULT,
		"{\"v\":1,\"type\":\"result\",\"job\":1,\"status\":\"ok\"}",
		"{\"v\":1,\"type\":\"result\",\"job\":2,\"status\":\"ok\",\"env\":null,"
		"\"error\":null,\"samples\":[]}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		json_t *msg = parse(texts[i]), *again;
		char *one = round_trip(msg), *two;

		again = parse(one);
		two = round_trip(again);
		assert_string_equal(one, two);
		free(one);
		free(two);
		json_decref(again);
		json_decref(msg);
	}
}

/* Samples taken from the text move into the struct; on a refusal they stay. */
static void test_msg_result_scanned(void **state)
{
	const char *ok = "{\"v\":1,\"type\":\"result\",\"job\":3,\"status\":\"ok\",\"samples\":"
			 "[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"seq\":0}]}";
	const char *bad = "{\"v\":1,\"type\":\"result\",\"job\":3,\"status\":\"ok\","
			  "\"verdicts\":[\"\"],\"samples\":"
			  "[{\"metric\":\"m\",\"value\":1,\"window\":\"rate\",\"seq\":0}]}";
	struct msg_result r;
	struct samples s;
	struct err why;
	json_t *msg;

	(void)state;
	msg = proto_decode_samples(ok, strlen(ok), &s, &why);
	assert_non_null(msg);
	assert_true(s.taken);
	assert_int_equal(msg_result_decode(msg, &s, &r, &why), 0);
	assert_false(s.taken);
	assert_int_equal(r.samples.n, 1);
	assert_string_equal(r.samples.v[0].metric, "m");
	msg_result_release(&r);
	samples_release(&s);
	json_decref(msg);

	msg = proto_decode_samples(bad, strlen(bad), &s, &why);
	assert_non_null(msg);
	assert_true(s.taken);
	assert_int_equal(msg_result_decode(msg, &s, &r, &why), -EINVAL);
	assert_true(s.taken);
	assert_int_equal(s.n, 1);
	assert_int_equal(r.samples.n, 0);
	samples_release(&s);
	json_decref(msg);
}

static void test_msg_result_bad_path(void **state)
{
	static const struct {
		const char *members, *why;
	} cases[] = {
		{ "\"status\":\"ok\"", "result.job: must be a positive integer, not nothing" },
		{ "\"job\":0,\"status\":\"ok\"", "result.job: must be a positive integer" },
		{ "\"job\":1,\"status\":\"maybe\"", "result.status: must be 'ok' or 'failed'" },
		{ "\"job\":1,\"status\":\"ok\",\"verdicts\":[\"unstable\",3]",
		  "result.verdicts[1]: must be a name of 1 to 64 bytes, not an integer" },
		{ "\"job\":1,\"status\":\"ok\",\"verdict_details\":{\"x\":1}",
		  "result.verdict_details: 'x' must be a string, not an integer" },
		{ "\"job\":1,\"status\":\"ok\",\"started_ms\":\"now\"",
		  "result.started_ms: must be an integer, not a string" },
		{ "\"job\":1,\"status\":\"ok\",\"env\":[]",
		  "result.env: must be an object or null, not an array" },
		{ "\"job\":1,\"status\":\"ok\",\"partial\":1",
		  "result.partial: must be a boolean, not an integer" },
		{ "\"job\":1,\"status\":\"ok\",\"samples\":[{\"value\":1}]",
		  "sample 0 has no 'metric'" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err why;
		char text[512];
		struct msg_result r;
		json_t *msg;

		snprintf(text, sizeof(text), "{\"v\":1,\"type\":\"result\",%s}", cases[i].members);
		msg = parse(text);
		assert_int_equal(msg_result_decode(msg, NULL, &r, &why), -EINVAL);
		assert_non_null(strstr(why.msg, cases[i].why));
		assert_int_equal(r.samples.n, 0);
		json_decref(msg);
	}
}

/* A result of job 1 with MEMBERS (besides job) is refused with a reason saying WHY. */
static void refused(const char *members, const char *why)
{
	size_t len = strlen(members) + 64;
	struct err reason;
	char *text = malloc(len);
	struct msg_result r;
	json_t *msg;

	assert_non_null(text);
	snprintf(text, len, "{\"v\":1,\"type\":\"result\",\"job\":1,%s}", members);
	msg = parse(text);
	assert_int_equal(msg_result_decode(msg, NULL, &r, &reason), -EINVAL);
	if (!strstr(reason.msg, why))
		fail_msg("'%.200s' does not say '%s'", reason.msg, why);
	assert_int_equal(r.samples.n, 0);
	json_decref(msg);
	free(text);
}

/* The bounds the schema's table gives a result, held by the decoder (its only check in
 * bpflabd); outlier seconds and a null verdict_details through a round trip. */
static void test_msg_result_bounds(void **state)
{
	const char *ok = "{\"v\":1,\"type\":\"result\",\"job\":3,\"status\":\"ok\","
			 "\"verdict_details\":null,\"samples\":[{\"metric\":\"m\",\"subject\":\"\","
			 "\"value\":2.5,\"unit\":\"ns\",\"window\":\"cost\",\"seq\":4,"
			 "\"outlier\":true},{\"metric\":\"m\",\"subject\":\"\",\"value\":1.0,"
			 "\"unit\":\"ns\",\"window\":\"cost\",\"seq\":null}]}";
	struct err why;
	char *text, *once, *twice;
	struct msg_result r;
	json_t *msg;
	size_t i, n;


	(void)state;
	msg = parse(ok);
	assert_int_equal(msg_result_decode(msg, NULL, &r, &why), 0);
	assert_null(r.verdict_details);
	assert_true(r.samples.v[0].outlier);
	assert_false(r.samples.v[1].outlier);
	msg_result_release(&r);
	once = round_trip(msg);
	json_decref(msg);
	assert_non_null(strstr(once, "\"outlier\":true"));
	assert_non_null(strstr(once, "\"seq\":null"));
	msg = parse(once);
	twice = round_trip(msg);
	assert_string_equal(once, twice);
	json_decref(msg);
	free(once);
	free(twice);

	/* an error of 65537 bytes; 17 verdicts; a metric of 256 bytes, a unit of 33 */
	text = malloc(70000);
	assert_non_null(text);
	n = (size_t)sprintf(text, "\"status\":\"failed\",\"error\":\"");
	for (i = 0; i < 65537; i++)
		text[n++] = 'e';
	strcpy(text + n, "\"");
	refused(text, "result.error: is longer than 65536 bytes");
	n = (size_t)sprintf(text, "\"status\":\"ok\",\"verdicts\":[");
	for (i = 0; i < 17; i++)
		n += (size_t)sprintf(text + n, "%s\"v%zu\"", i ? "," : "", i);
	strcpy(text + n, "]");
	refused(text, "result.verdicts: has more than 16 names");
	n = (size_t)sprintf(text, "\"status\":\"ok\",\"samples\":[{\"metric\":\"");
	for (i = 0; i < 256; i++)
		text[n++] = 'm';
	strcpy(text + n, "\",\"value\":1,\"window\":\"rate\"}]");
	refused(text, "'metric' and 'subject' take at most 255 bytes, 'unit' 32");
	refused("\"status\":\"ok\",\"samples\":[{\"metric\":\"m\",\"value\":1,\"window\":"
		"\"rate\",\"unit\":\"uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\"}]",
		"sample 0 ('m'): 'metric' and 'subject' take at most 255 bytes, 'unit' 32");
	free(text);
}

static void test_msg_progress(void **state)
{
	const char *text = "{\"v\":1,\"type\":\"progress\",\"job\":4,\"phase\":\"rate\","
			   "\"second\":2,\"of\":10,\"rates\":{\"a\":100}}";
	json_t *msg = parse(text), *enc;
	struct msg_progress p;
	struct err why;

	(void)state;
	assert_int_equal(msg_progress_decode(msg, &p, &why), 0);
	assert_int_equal(p.job, 4);
	assert_string_equal(p.phase, "rate");
	assert_true(p.has_second && p.has_of);
	assert_int_equal(p.second, 2);
	assert_int_equal(p.of, 10);
	enc = msg_progress_encode(&p);
	assert_true(json_equal(enc, msg));
	json_decref(enc);
	json_decref(msg);

	msg = parse("{\"v\":1,\"type\":\"progress\",\"job\":4,\"phase\":\"nap\"}");
	assert_int_equal(msg_progress_decode(msg, &p, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "progress.phase: unknown phase"));
	json_decref(msg);
	msg = parse("{\"v\":1,\"type\":\"progress\",\"job\":4,\"of\":1.5}");
	assert_int_equal(msg_progress_decode(msg, &p, &why), -EINVAL);
	assert_string_equal(why.msg, "progress.of: must be an integer, not a number");
	json_decref(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msg_result_decode),
		cmocka_unit_test(test_msg_result_round_trip),
		cmocka_unit_test(test_msg_result_scanned),
		cmocka_unit_test(test_msg_result_bad_path),
		cmocka_unit_test(test_msg_result_bounds),
		cmocka_unit_test(test_msg_progress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
