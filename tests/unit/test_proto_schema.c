// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_proto_schema.c - unit tests for lib/proto/proto_schema.c: every message type has a
 * schema that its valid example passes, and missing, mistyped, out-of-range and nested
 * members are refused with a message naming the member. The valid examples are the fuzz
 * seeds in tests/fuzz/corpus/proto/, so the corpus stays valid too.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proto/proto.h"
#include "proto/proto_schema.h"
#include "base/util.h"

#define CORPUS BPFLAB_SRCDIR "/tests/fuzz/corpus/proto"

/* Decode TEXT and validate it on CH; returns what proto_validate returns, WHY filled. */
static int check(const char *text, enum proto_channel ch, struct err *why)
{
	json_t *msg = proto_decode(text, strlen(text), why);
	int rc;

	if (!msg) {
		print_error("not decodable: %s: %s\n", text, why->msg);
		fail();
	}
	rc = proto_validate(msg, ch, why);
	json_decref(msg);
	return rc;
}

static void expect_bad(const char *text, enum proto_channel ch, const char *needle)
{
	struct err why;
	int rc = check(text, ch, &why);

	if (rc != -EINVAL || !strstr(why.msg, needle)) {
		print_error("%s: got %d '%s', expected -EINVAL with '%s'\n", text, rc, why.msg, needle);
		fail();
	}
}

/* The seed corpus has one valid example per message type and channel, named
 * CHANNEL-TYPE.json (a2c, c2a, cl2c, c2cl); each must pass, and every type of every
 * channel must have one. */
static void test_proto_schema_corpus(void **state)
{
	static const char *const prefixes[PROTO_CH_COUNT] = {
		[PROTO_CH_AGENT_TO_COORD] = "a2c", [PROTO_CH_COORD_TO_AGENT] = "c2a",
		[PROTO_CH_CLIENT_TO_COORD] = "cl2c", [PROTO_CH_COORD_TO_CLIENT] = "c2cl",
	};
	int ch;
	size_t i, seen = 0;

	for (ch = 0; ch < PROTO_CH_COUNT; ch++) {
		const char *type;

		for (i = 0; (type = proto_schema_type(ch, i)); i++) {
			struct err why;
			char path[512];
			char *text;
			size_t len;
			int rc;

			snprintf(path, sizeof(path), "%s/%s-%s.json", CORPUS, prefixes[ch], type);
			rc = util_read_file(path, 1 << 20, &text, &len);
			if (rc) {
				print_error("no seed '%s' for type '%s'\n", path, type);
				fail();
			}
			rc = check(text, ch, &why);
			if (rc) {
				print_error("%s: %s\n", path, why.msg);
				fail();
			}
			free(text);
			seen++;
		}
	}
	assert_true(seen >= 20);
}

static void test_proto_schema_refusals(void **state)
{
	const enum proto_channel a2c = PROTO_CH_AGENT_TO_COORD, cl2c = PROTO_CH_CLIENT_TO_COORD,
				 c2a = PROTO_CH_COORD_TO_AGENT;
	struct err why;

	expect_bad("{\"v\":1,\"type\":\"hello\",\"inventory\":{}}", a2c, "'agent' is required");
	expect_bad("{\"v\":1,\"type\":\"hello\",\"agent\":7,\"inventory\":{}}", a2c,
		   "'agent' must be a string");
	expect_bad("{\"v\":1,\"type\":\"hello\",\"agent\":\"h1\",\"inventory\":[]}", a2c,
		   "'inventory' must be an object");
	expect_bad("{\"v\":1,\"type\":\"accept\",\"job\":0}", a2c, "'job' must be a positive");
	expect_bad("{\"v\":1,\"type\":\"accept\",\"job\":\"3\"}", a2c, "'job' must be an integer");
	expect_bad("{\"v\":1,\"type\":\"result\",\"job\":3,\"status\":\"meh\",\"samples\":[]}",
		   a2c, "'status' has an unknown value 'meh'");
	expect_bad("{\"v\":1,\"type\":\"result\",\"job\":3,\"status\":\"ok\",\"samples\":"
		   "[{\"metric\":\"m\",\"value\":1},{\"metric\":\"m\",\"value\":\"x\"}]}", a2c,
		   "result: 'samples[1].value' must be a number");
	expect_bad("{\"v\":1,\"type\":\"result\",\"job\":3,\"status\":\"ok\",\"samples\":[1]}",
		   a2c, "'samples[0]' must be an object");
	expect_bad("{\"v\":1,\"type\":\"result\",\"job\":3,\"status\":\"ok\",\"samples\":"
		   "[{\"value\":1}]}", a2c, "'samples[0].metric' is required");
	expect_bad("{\"v\":1,\"type\":\"progress\",\"job\":3,\"phase\":\"dance\"}", a2c,
		   "'phase' has an unknown value");
	expect_bad("{\"v\":1,\"type\":\"run_show\",\"run\":\"seven\"}", cl2c,
		   "'run' must be an integer");
	expect_bad("{\"v\":1,\"type\":\"run_show\"}", cl2c, "'run' is required");
	expect_bad("{\"v\":1,\"type\":\"submit\",\"plan_text\":\"x\",\"overrides\":[\"a=1\",2]}",
		   cl2c, "'overrides[1]' must be a string");
	expect_bad("{\"v\":1,\"type\":\"submit\",\"plan_text\":\"x\",\"objects\":"
		   "{\"a.o\":{\"sha256\":\"ab\"}}}", cl2c, "'objects.a.o.data' is required");
	expect_bad("{\"v\":1,\"type\":\"job\",\"job\":{\"id\":1}}", c2a, "'job.spec' is required");
	expect_bad("{\"v\":1,\"type\":\"job\",\"job\":{\"id\":1,\"spec\":{}},\"objects\":"
		   "{\"x\":\"y\"}}", c2a, "'objects.x' must be an object");
	/* objects named by sha256 alone (docs/protocol.md, `job`): in a job, not a submit */
	assert_int_equal(check("{\"v\":1,\"type\":\"job\",\"job\":{\"id\":1,\"spec\":{}},"
			       "\"objects\":{\"a.o\":{\"sha256\":\"ab\"}}}", c2a, &why), 0);
	expect_bad("{\"v\":1,\"type\":\"job\",\"job\":{\"id\":1,\"spec\":{}},\"objects\":"
		   "{\"a.o\":{\"data\":\"ab\"}}}", c2a, "'objects.a.o.sha256' is required");
	expect_bad("{\"v\":1,\"type\":\"hello\",\"agent\":\"h1\",\"inventory\":{},"
		   "\"objects_kept\":\"64\"}", a2c, "'objects_kept' must be an integer");
	expect_bad("{\"v\":1,\"type\":\"error\",\"in_reply_to\":\"job\",\"job\":3,"
		   "\"missing\":[\"ab\",7]}", a2c, "'missing[1]' must be a string");
	/* members added for reconnects, cancels, --hosts and the query/import requests */
	expect_bad("{\"v\":1,\"type\":\"hello\",\"agent\":\"h1\",\"inventory\":{},"
		   "\"spooled\":[7,{}]}", a2c, "'spooled[1]' must be a string or an integer");
	expect_bad("{\"v\":1,\"type\":\"hello\",\"agent\":\"h1\",\"inventory\":{},"
		   "\"job\":[1]}", a2c, "'job' must be");
	expect_bad("{\"v\":1,\"type\":\"result\",\"job\":3,\"status\":\"failed\","
		   "\"partial\":\"yes\"}", a2c, "'partial' must be a boolean");
	expect_bad("{\"v\":1,\"type\":\"submit\",\"plan_text\":\"x\",\"hosts\":[\"h1\",3]}",
		   cl2c, "'hosts[1]' must be a string");
	expect_bad("{\"v\":1,\"type\":\"query\",\"filter\":\"plan=q\"}", cl2c,
		   "query: 'filter' must be an object");
	expect_bad("{\"v\":1,\"type\":\"import\"}", cl2c, "import: 'import' is required");
	expect_bad("{\"v\":1,\"type\":\"run_attempts\",\"run\":0}", cl2c,
		   "'run' must be a positive");
	expect_bad("{\"v\":1,\"type\":\"attempts\",\"attempts\":[{\"attempt\":1}]}",
		   PROTO_CH_COORD_TO_CLIENT, "'attempts[0].job' is required");
	expect_bad("{\"v\":1,\"type\":\"cancelled\",\"run\":2,\"running\":{}}",
		   PROTO_CH_COORD_TO_CLIENT, "'running' must be an array");
	expect_bad("{\"v\":1,\"type\":\"watch\",\"run\":{}}", PROTO_CH_COORD_TO_CLIENT,
		   "'hosts' is required");
	expect_bad("{\"v\":1,\"type\":\"imported\"}", PROTO_CH_COORD_TO_CLIENT,
		   "'run' is required");
	assert_int_equal(check("{\"v\":1,\"type\":\"hello\",\"agent\":\"h1\",\"inventory\":{},"
			       "\"job\":12,\"spooled\":[\"11\",\"12\"]}", a2c, &why), 0);
	assert_int_equal(check("{\"v\":1,\"type\":\"result\",\"job\":3,\"status\":\"failed\","
			       "\"error\":\"cancelled\",\"partial\":true,\"samples\":[]}", a2c, &why), 0);

	/* proto_decode already refuses NUL in strings (jansson without JSON_ALLOW_NUL) */
	{
		static const char nul[] = "{\"v\":1,\"type\":\"error\",\"message\":\"a\\u0000b\"}";

		assert_null(proto_decode(nul, strlen(nul), &why));
		assert_non_null(strstr(why.msg, "NUL"));
	}

	/* a name longer than its bound */
	{
		char text[600];

		snprintf(text, sizeof(text), "{\"v\":1,\"type\":\"hello\",\"agent\":\"%0300d\","
			 "\"inventory\":{}}", 0);
		expect_bad(text, a2c, "'agent' is longer than 255 bytes");
	}

	/* the type decides: unknown on this channel, known on another */
	assert_int_equal(check("{\"v\":1,\"type\":\"frob\"}", a2c, &why), -ENOENT);
	assert_non_null(strstr(why.msg, "unknown message type 'frob'"));
	assert_int_equal(check("{\"v\":1,\"type\":\"submit\",\"plan_text\":\"x\"}", a2c, &why), -ENOENT);
	assert_int_equal(check("{\"v\":1,\"type\":\"result\",\"result\":{}}",
			       PROTO_CH_COORD_TO_CLIENT, &why), 0);
	assert_int_equal(check("{\"v\":1,\"type\":\"result\",\"result\":{}}", a2c, &why), -EINVAL);
	/* members the schema does not list are allowed (newer peers) */
	assert_int_equal(check("{\"v\":1,\"type\":\"heartbeat\",\"load\":[1,2]}", a2c, &why), 0);
	assert_int_equal(proto_validate(NULL, a2c, &why), -EINVAL);
	assert_null(proto_schema_type(PROTO_CH_COUNT, 0));
}

/* Every request the coordinator answers and every reply the CLI waits for has a schema,
 * so none passes unchecked (proto_validate's -ENOENT lets a message through). The lists
 * are the handler tables of coordinator/coord.c and the cli_request() reply types. */
static void test_proto_schema_every_type(void **state)
{
	static const char *const requests[] = {
		"submit", "host_list", "run_list", "run_show", "result_show", "result_seconds",
		"run_cancel",
		"run_watch", "run_attempts", "query", "import", "link_list", "link_discover",
		"host_boot", "bisect_get", "bisect_start", "bisect_add_step", "bisect_finish",
		"bisect_reset",
	};
	static const char *const replies[] = {
		"submitted", "hosts", "runs", "run", "result", "links", "cancelled", "watch",
		"attempts", "values", "imported", "error", "booting", "bisect", "seconds",
	};
	static const char *const agent_msgs[] = {
		"hello", "heartbeat", "accept", "progress", "result", "error", "ready",
		"probe_report", "boot_report",
	};
	const struct { enum proto_channel ch; const char *const *types; size_t n; } sets[] = {
		{ PROTO_CH_CLIENT_TO_COORD, requests, ARRAY_SIZE(requests) },
		{ PROTO_CH_COORD_TO_CLIENT, replies, ARRAY_SIZE(replies) },
		{ PROTO_CH_AGENT_TO_COORD, agent_msgs, ARRAY_SIZE(agent_msgs) },
	};
	size_t s, i, j;

	for (s = 0; s < ARRAY_SIZE(sets); s++)
		for (i = 0; i < sets[s].n; i++) {
			const char *t;

			for (j = 0; (t = proto_schema_type(sets[s].ch, j)); j++)
				if (!strcmp(t, sets[s].types[i]))
					break;
			if (!t) {
				print_error("no schema for '%s' on channel %d\n", sets[s].types[i],
					    (int)sets[s].ch);
				fail();
			}
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proto_schema_corpus),
		cmocka_unit_test(test_proto_schema_refusals),
		cmocka_unit_test(test_proto_schema_every_type),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
