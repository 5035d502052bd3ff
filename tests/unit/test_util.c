// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_util.c - unit tests for lib/base/util.c: SHA-256 against the FIPS 180-4 vectors,
 * base64 round trips and rejects, durations, atomic writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

static void test_util_sha256_vectors(void **state)
{
	char hex[SHA256_HEX_LEN];
	char *million;

	util_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	util_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	util_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	million = malloc(1000000);
	assert_non_null(million);
	memset(million, 'a', 1000000);
	util_sha256_hex(million, 1000000, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
}

/* util_strcopy writes what snprintf(out, size, "%s", src) writes, NULL as "" */
static void test_util_strcopy(void **state)
{
	static const char *const srcs[] = { "", "busy", "running", "a longer text", NULL };
	char got[8], want[8];
	size_t i, size;

	(void)state;
	for (i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++)
		for (size = 1; size <= sizeof(got); size++) {
			memset(got, 'x', sizeof(got));
			memset(want, 'x', sizeof(want));
			snprintf(want, size, "%s", srcs[i] ? srcs[i] : "");
			assert_int_equal(util_strcopy(got, size, srcs[i]), strlen(want));
			assert_memory_equal(got, want, sizeof(got));
		}
}

static void test_util_base64_roundtrip(void **state)
{
	const char *inputs[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	const char *expect[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(inputs); i++) {
		char *enc = util_base64_encode(inputs[i], strlen(inputs[i]));
		void *dec;
		size_t len;

		assert_string_equal(enc, expect[i]);
		assert_int_equal(util_base64_decode(enc, &dec, &len), 0);
		assert_int_equal(len, strlen(inputs[i]));
		assert_memory_equal(dec, inputs[i], len);
		free(enc);
		free(dec);
	}
}

static void test_util_base64_rejects(void **state)
{
	const char *bad[] = { "Zg=", "Z===", "Zm9v!", "=Zm9", "Zg==Zg==", "Zm=v" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		void *dec = NULL;
		size_t len;

		assert_int_equal(util_base64_decode(bad[i], &dec, &len), -EINVAL);
		assert_null(dec);
	}
}

static void test_util_durations(void **state)
{
	int64_t ms;

	assert_int_equal(util_parse_duration_ms("10s", &ms), 0);
	assert_int_equal(ms, 10000);
	assert_int_equal(util_parse_duration_ms("500ms", &ms), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(util_parse_duration_ms("2m", &ms), 0);
	assert_int_equal(ms, 120000);
	assert_int_equal(util_parse_duration_ms("1.5s", &ms), 0);
	assert_int_equal(ms, 1500);
	assert_int_equal(util_parse_duration_ms("3", &ms), 0);
	assert_int_equal(ms, 3000);
	assert_int_equal(util_parse_duration_ms("-1s", &ms), -EINVAL);
	assert_int_equal(util_parse_duration_ms("10h", &ms), -EINVAL);
	assert_int_equal(util_parse_duration_ms("s", &ms), -EINVAL);
	assert_int_equal(util_parse_duration_ms("", &ms), -EINVAL);
}

static void test_util_write_atomic(void **state)
{
	char dir[] = "/tmp/bpflab-test-util-XXXXXX";
	char path[256], tmp[300];
	char *buf;
	size_t len;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f.json", dir);
	assert_int_equal(util_write_file_atomic(path, "one", 3), 0);
	assert_int_equal(util_write_file_atomic(path, "second", 6), 0);
	assert_int_equal(util_read_file(path, 100, &buf, &len), 0);
	assert_int_equal(len, 6);
	assert_string_equal(buf, "second");
	free(buf);
	assert_int_equal(util_read_file(path, 3, &buf, &len), -EFBIG);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(access(tmp, F_OK), -1);
	unlink(path);
	assert_int_equal(util_read_file(path, 100, &buf, &len), -ENOENT);
	/* a directory that does not exist: error, nothing written */
	assert_int_equal(util_write_file_atomic("/nonexistent-bpflab/x", "a", 1), -ENOENT);
	rmdir(dir);
}

/* A FIFO, a directory and a device are refused where a file is read, at once: opening
 * the FIFO for reading used to wait for a writer forever (`plan check FIFO`). */
static void test_util_open_regular(void **state)
{
	char dir[] = "/tmp/bpflab-test-util-XXXXXX";
	char fifo[256], file[256], link[256];
	char *buf = NULL;
	size_t len = 0;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(file, sizeof(file), "%s/file", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(util_write_file_atomic(file, "text", 4), 0);
	assert_int_equal(symlink(file, link), 0);

	assert_int_equal(util_open_regular(fifo), -UTIL_ENOTREG);
	assert_int_equal(util_read_file(fifo, 100, &buf, &len), -UTIL_ENOTREG);
	assert_null(buf);
	assert_int_equal(util_read_file(dir, 100, &buf, &len), -EISDIR);
	assert_int_equal(util_read_file("/dev/null", 100, &buf, &len), -UTIL_ENOTREG);
	assert_int_equal(util_read_file("/dev/zero", 100, &buf, &len), -UTIL_ENOTREG);
	assert_int_equal(util_open_regular("/nonexistent-bpflab/x"), -ENOENT);
	/* a regular file, also through a link, opens blocking as before */
	fd = util_open_regular(link);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	assert_int_equal(util_read_file(link, 100, &buf, &len), 0);
	assert_string_equal(buf, "text");
	free(buf);

	assert_string_equal(util_strerror(-UTIL_ENOTREG),
			    "not a regular file (a FIFO, device or socket)");
	assert_string_equal(util_strerror(UTIL_ENOTREG), util_strerror(-UTIL_ENOTREG));
	assert_string_equal(util_strerror(-ENOENT), strerror(ENOENT));
	unlink(link);
	unlink(file);
	unlink(fifo);
	rmdir(dir);
}

static void test_util_utf8(void **state)
{
	static const struct {
		const char *s;
		size_t len;
		bool ok;
		size_t bad;
	} cases[] = {
		{ "", 0, true, 0 },
		{ "plain", 5, true, 0 },
		{ "caf\xc3\xa9 \xf0\x9f\x90\x9d \xe2\x82\xac", 14, true, 0 },
		{ "a\0b", 3, false, 1 },		/* NUL */
		{ "ab\x96", 3, false, 2 },		/* Latin-1, a lone continuation */
		{ "\xc0\xaf", 2, false, 0 },		/* overlong '/' */
		{ "x\xe0\x80\xaf", 4, false, 1 },	/* overlong, 3 bytes */
		{ "\xed\xa0\x80", 3, false, 0 },	/* UTF-16 surrogate */
		{ "\xf4\x90\x80\x80", 4, false, 0 },	/* above U+10FFFF */
		{ "ok\xe2\x82", 4, false, 2 },		/* cut mid-character at the end */
		{ "\xc3\xa9\xc3", 3, false, 2 },
	};
	size_t i, bad;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		bad = 999;
		assert_int_equal(util_utf8_valid(cases[i].s, cases[i].len, &bad), cases[i].ok);
		if (!cases[i].ok)
			assert_int_equal(bad, cases[i].bad);
	}
	assert_false(util_utf8_valid("a\0", 2, NULL));
}

static void test_util_text_check(void **state)
{
	static const char nul[] = "one\ntwo\nth\0ree\nfour\n";
	static const char latin[] = "one\n\ncaf\xe9\n";
	struct err err = { 0 };

	(void)state;
	assert_int_equal(util_text_check("a\nb\n", 4, "f.csv", &err), 0);
	assert_string_equal(err.msg, "");
	assert_int_equal(util_text_check(NULL, 0, "f.csv", &err), 0);
	assert_int_equal(util_text_check(nul, sizeof(nul) - 1, "f.csv", &err),
			 -EINVAL);
	assert_string_equal(err.msg, "f.csv:3: a NUL byte (not a text file?)");
	assert_int_equal(util_text_check(latin, sizeof(latin) - 1, "g.json", &err),
			 -EINVAL);
	assert_string_equal(err.msg, "g.json:3: not UTF-8 text");
	/* a NUL as the very first byte, and at the end */
	assert_int_equal(util_text_check("\0", 1, "h", &err), -EINVAL);
	assert_string_equal(err.msg, "h:1: a NUL byte (not a text file?)");
	assert_int_equal(util_text_check("a\n\0", 3, "h", &err), -EINVAL);
	assert_string_equal(err.msg, "h:2: a NUL byte (not a text file?)");
}

/* The plan-name rule every name shares (plans, imported plans and hosts). */
static void test_util_name_ok(void **state)
{
	char *huge;

	(void)state;
	assert_true(util_name_ok("lab-1.a_b", "._-", 128));
	assert_true(util_name_ok("x", "", 1));
	assert_false(util_name_ok("", "._-", 128));
	assert_false(util_name_ok("ab", "", 1));
	assert_false(util_name_ok("a b", "._-", 128));
	assert_false(util_name_ok("<script>", "._-", 128));
	assert_false(util_name_ok("a.b", "_-", 128));
	assert_false(util_name_ok("caf\xc3\xa9", "._-", 128));
	assert_false(util_name_ok("\xff", "._-", 128));
	assert_false(util_name_ok("a\nb", "._-", 128));
	huge = malloc(100001);
	assert_non_null(huge);
	memset(huge, 'a', 100000);
	huge[100000] = '\0';
	assert_false(util_name_ok(huge, "._-", 128));
	huge[128] = '\0';
	assert_true(util_name_ok(huge, "._-", 128));
	free(huge);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_sha256_vectors),
		cmocka_unit_test(test_util_strcopy),
		cmocka_unit_test(test_util_base64_roundtrip),
		cmocka_unit_test(test_util_base64_rejects),
		cmocka_unit_test(test_util_durations),
		cmocka_unit_test(test_util_write_atomic),
		cmocka_unit_test(test_util_open_regular),
		cmocka_unit_test(test_util_utf8),
		cmocka_unit_test(test_util_text_check),
		cmocka_unit_test(test_util_name_ok),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
