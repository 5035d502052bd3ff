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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_sha256_vectors),
		cmocka_unit_test(test_util_base64_roundtrip),
		cmocka_unit_test(test_util_base64_rejects),
		cmocka_unit_test(test_util_durations),
		cmocka_unit_test(test_util_write_atomic),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
