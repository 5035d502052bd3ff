// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_proto.c - unit tests for lib/proto/proto.c over real ZeroMQ inproc sockets: encoding,
 * decoding, refusal of malformed, oversize and multi-frame messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "proto/proto.h"

struct pair {
	void *ctx, *router, *dealer;
};

static int pair_setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));

	p->ctx = zmq_ctx_new();
	p->router = zmq_socket(p->ctx, ZMQ_ROUTER);
	p->dealer = zmq_socket(p->ctx, ZMQ_DEALER);
	assert_int_equal(zmq_bind(p->router, "inproc://proto-test"), 0);
	assert_int_equal(zmq_setsockopt(p->dealer, ZMQ_ROUTING_ID, "agent-1", 7), 0);
	assert_int_equal(zmq_connect(p->dealer, "inproc://proto-test"), 0);
	*state = p;
	return 0;
}

static int pair_teardown(void **state)
{
	struct pair *p = *state;
	int zero = 0;

	zmq_setsockopt(p->router, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_setsockopt(p->dealer, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_close(p->router);
	zmq_close(p->dealer);
	zmq_ctx_term(p->ctx);
	free(p);
	return 0;
}

static void test_proto_decode_rejects(void **state)
{
	struct err why;
	json_t *m;

	assert_null(proto_decode("{", 1, &why));
	assert_non_null(strstr(why.msg, "not JSON"));
	assert_null(proto_decode("[1]", 3, &why));
	assert_string_equal(why.msg, "not a JSON object");
	assert_null(proto_decode("{\"type\":\"x\"}", 12, &why));
	assert_string_equal(why.msg, "no protocol version \"v\"");
	assert_null(proto_decode("{\"v\":2,\"type\":\"x\"}", 18, &why));
	assert_string_equal(why.msg, "protocol version 2, expected 1");
	assert_null(proto_decode("{\"v\":1}", 7, &why));
	assert_string_equal(why.msg, "no message \"type\"");
	assert_null(proto_decode("{\"v\":1,\"type\":\"a\",\"type\":\"b\"}", 29, &why));
	assert_null(proto_decode("x", (size_t)PROTO_MAX_CLIENT_BYTES + 1, &why));
	assert_non_null(strstr(why.msg, "exceeds the limit"));
	m = proto_decode("{\"v\":1,\"type\":\"hello\",\"agent\":\"h1\"}", 35, &why);
	assert_non_null(m);
	assert_string_equal(proto_msg_type(m), "hello");
	assert_string_equal(jget_str(m, "agent", "?"), "h1");
	assert_int_equal(jget_int(m, "missing", 42), 42);
	json_decref(m);
}

static void test_proto_roundtrip_router_dealer(void **state)
{
	struct pair *p = *state;
	struct err why;
	char id[PROTO_MAX_IDENTITY];
	size_t id_len;
	json_t *out, *in;

	out = proto_msg_new("heartbeat");
	json_object_set_new(out, "job", json_integer(17));
	assert_int_equal(proto_send(p->dealer, out, 0), 0);
	assert_int_equal(proto_recv_from(p->router, id, &id_len, &in, 0, &why), 0);
	assert_int_equal(id_len, 7);
	assert_memory_equal(id, "agent-1", 7);
	assert_string_equal(proto_msg_type(in), "heartbeat");
	assert_int_equal(jget_int(in, "job", 0), 17);
	json_decref(in);

	/* and back */
	assert_int_equal(proto_send_to(p->router, id, id_len, out, 0), 0);
	assert_int_equal(proto_recv(p->dealer, &in, 0, &why), 0);
	assert_true(json_equal(in, out));
	json_decref(in);
	json_decref(out);
}

static void test_proto_recv_malformed(void **state)
{
	struct pair *p = *state;
	struct err why;
	char id[PROTO_MAX_IDENTITY];
	size_t id_len;
	json_t *in, *err;

	/* garbage payload */
	zmq_send(p->dealer, "garbage", 7, 0);
	assert_int_equal(proto_recv_from(p->router, id, &id_len, &in, 0, &why),
			 -EBADMSG);
	assert_null(in);
	assert_non_null(strstr(why.msg, "not JSON"));
	/* two payload frames: drained and refused, the next message still arrives whole */
	zmq_send(p->dealer, "{\"v\":1,\"type\":\"a\"}", 18, ZMQ_SNDMORE);
	zmq_send(p->dealer, "{\"v\":1,\"type\":\"b\"}", 18, 0);
	assert_int_equal(proto_recv_from(p->router, id, &id_len, &in, 0, &why),
			 -EBADMSG);
	assert_string_equal(why.msg, "message has more than one payload frame");
	zmq_send(p->dealer, "{\"v\":1,\"type\":\"c\"}", 18, 0);
	assert_int_equal(proto_recv_from(p->router, id, &id_len, &in, 0, &why), 0);
	assert_string_equal(proto_msg_type(in), "c");
	json_decref(in);

	err = proto_error_new("frob", "unknown message type '%s'", "frob");
	assert_string_equal(proto_msg_type(err), "error");
	assert_string_equal(jget_str(err, "message", ""), "unknown message type 'frob'");
	assert_string_equal(jget_str(err, "in_reply_to", ""), "frob");
	json_decref(err);
}

/* proto_encode writes what json_dumps(JSON_COMPACT) writes, byte for byte. */
static void assert_encodes_like_jansson(const json_t *v)
{
	char *ours, *theirs = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	size_t len = 0;

	assert_non_null(theirs);
	ours = proto_encode(v, &len);
	assert_non_null(ours);
	assert_string_equal(ours, theirs);
	assert_int_equal(len, strlen(theirs));
	free(ours);
	free(theirs);
}

static void test_proto_encode_like_jansson(void **state)
{
	static const char *const texts[] = {
		"{}", "[]", "{\"v\":1,\"type\":\"ack\",\"job\":42}",
		"{\"a\":[1,-2,9223372036854775807,-9223372036854775808,true,false,null,{}]}",
		"[0.5,1.0,-0.0,1e300,-2.5e-300,123456789.123,0.1,1e22,3.0e-5,1234567890123456789.0]",
		"{\"s\":\"quote \\\" back \\\\ slash / tab\\t nl\\n cr\\r bs\\b ff\\f\"}",
		"{\"ctl\":\"\\u0001\\u001f\\u007f x\",\"nul\":\"a\\u0000b\"}",
		"{\"utf8\":\"h\\u00e9 \\u2028 \\u20ac \\ud83d\\ude00\",\"k\\\"ey\\n\":[\"\",\"\"]}",
		"{\"nested\":{\"samples\":[{\"metric\":\"port.rx_pps\",\"value\":12345678.5,"
		"\"seq\":null}],\"o\":{\"x.o\":{\"sha256\":\"ab\",\"data\":\"QUJD+/==\"}}}}",
	};
	json_error_t jerr;
	json_t *v, *big;
	char *data;
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		v = json_loads(texts[i], JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
		if (!v)
			fail_msg("test input %zu is not JSON: %s", i, jerr.text);
		assert_encodes_like_jansson(v);
		json_decref(v);
	}
	/* a job message's object: a long string, built member after member */
	data = malloc(100001);
	assert_non_null(data);
	for (i = 0; i < 100000; i++)
		data[i] = (char)(i % 97 == 0 ? '\n' : 32 + i % 95);
	data[100000] = '\0';
	big = json_pack("{s:i, s:s, s:{s:{s:s, s:s}}}", "v", 1, "type", "job", "objects",
			"xdp.o", "sha256", "00ff", "data", data);
	assert_non_null(big);
	json_object_set_new(big, "after", json_real(1.0 / 3));
	assert_encodes_like_jansson(big);
	json_decref(big);
	free(data);
}

/* proto_parse builds what json_loadb(JSON_REJECT_DUPLICATES) builds and refuses what it
 * refuses. */
static void test_proto_parse_like_jansson(void **state)
{
	static const char *const texts[] = {
		"{}", "[]", " \t\r\n{ \"a\" : [ 1 , 2 ] } \n", "[0,-0,1,-1,9223372036854775807,"
		"-9223372036854775808,0.5,-0.0,1e3,1E+3,1e-3,2.5e300,1e-400,123456789012345678901.5]",
		"{\"s\":\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\u20AC \\ud83d\\ude00\"}",
		"{\"utf8\":\"h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\",\"\":true,\"n\":null,"
		"\"f\":false,\"o\":{\"p\":{\"q\":[[],{}]}}}",
		/* refused by both */
		"", " ", "1", "\"s\"", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[01]", "[1.]",
		"[.5]", "[1e]", "[-]", "[+1]", "[1e400]", "[-1e400]", "[9223372036854775808]",
		"[-9223372036854775809]", "[tru]", "[nul]", "{\"a\":1,\"a\":2}", "{\"a\\u0000\":1}",
		"[\"\\u0000\"]", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]",
		"[\"\\x\"]", "[\"\\u12G4\"]", "[\"a\x01\"]", "[\"\xc3\"]", "[\"\xc0\xaf\"]",
		"[\"\xed\xa0\x80\"]", "[\"\xf4\x90\x80\x80\"]", "[\"\xff\"]", "{} x", "[1] [2]",
		"[\"abc", "[\"abc\\", "{\"a\":", "\xef\xbb\xbf{}",
	};
	json_error_t jerr;
	json_t *ours, *theirs;
	struct err why;
	char *deep;
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		ours = proto_parse(texts[i], strlen(texts[i]), &why);
		theirs = json_loadb(texts[i], strlen(texts[i]), JSON_REJECT_DUPLICATES, &jerr);
		if (!ours != !theirs)
			fail_msg("text %zu ('%s'): proto_parse %s, json_loadb %s (%s)", i, texts[i],
				 ours ? "accepts" : why.msg, theirs ? "accepts" : "refuses", jerr.text);
		if (ours && !json_equal(ours, theirs))
			fail_msg("text %zu ('%s'): different values", i, texts[i]);
		if (!ours)
			assert_non_null(strstr(why.msg, " at byte "));
		json_decref(ours);
		json_decref(theirs);
	}
	/* nesting: JSON_PARSER_MAX_DEPTH levels are fine, one more is refused by both */
	deep = malloc(2 * (JSON_PARSER_MAX_DEPTH + 1));
	assert_non_null(deep);
	for (i = 0; i <= 1; i++) {
		size_t d = JSON_PARSER_MAX_DEPTH + i;

		memset(deep, '[', d);
		memset(deep + d, ']', d);
		ours = proto_parse(deep, 2 * d, &why);
		theirs = json_loadb(deep, 2 * d, JSON_REJECT_DUPLICATES, &jerr);
		assert_int_equal(!ours, !theirs);
		assert_int_equal(!ours, i == 1);
		json_decref(ours);
		json_decref(theirs);
	}
	free(deep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proto_decode_rejects),
		cmocka_unit_test(test_proto_encode_like_jansson),
		cmocka_unit_test(test_proto_parse_like_jansson),
		cmocka_unit_test_setup_teardown(test_proto_roundtrip_router_dealer, pair_setup,
						pair_teardown),
		cmocka_unit_test_setup_teardown(test_proto_recv_malformed, pair_setup,
						pair_teardown),
	};

	return cmocka_run_group_tests_name("proto", tests, NULL, NULL);
}
