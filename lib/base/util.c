// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* util.c - see util.h. */
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int util_open_regular(const char *path)
{
	struct stat st;
	int fd, flags;

	/* O_NONBLOCK: opening a FIFO would wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -UTIL_ENOTREG;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

const char *util_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err == UTIL_ENOTREG)
		return "not a regular file (a FIFO, device or socket)";
	return strerror(err);
}

size_t util_strcopy(char *out, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	memcpy(out, src ? src : "", n);
	out[n] = '\0';
	return n;
}

size_t util_utf8_len(const char *s, size_t avail)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int c = p[0], v;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, v = c & 0x07;
	else
		return 0;	/* a continuation byte, 0xc0, 0xc1, 0xf5.. */
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
	    (n == 4 && (v < 0x10000 || v > 0x10ffff)))
		return 0;
	return n;
}

bool util_utf8_valid(const char *text, size_t len, size_t *bad)
{
	size_t i = 0, n;

	while (i < len) {
		n = text[i] ? util_utf8_len(text + i, len - i) : 0;
		if (!n) {
			if (bad)
				*bad = i;
			return false;
		}
		i += n;
	}
	return true;
}

int util_text_check(const char *text, size_t len, const char *file, struct err *err)
{
	const char *p = text, *end;
	size_t bad;
	int line = 1;

	if (!len || util_utf8_valid(text, len, &bad))
		return 0;
	for (end = text + bad; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		line++;
	return err_at(err, file, line, 0, "%s",
		      text[bad] ? "not UTF-8 text" : "a NUL byte (not a text file?)");
}

bool util_name_ok(const char *s, const char *extra, size_t max)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		char ch = s[i];

		if (i >= max || !((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
				  (ch >= '0' && ch <= '9') || strchr(extra, ch)))
			return false;
	}
	return i > 0;
}

int util_read_file(const char *path, size_t max_len, char **bufp, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, err = 0;

	fd = util_open_regular(path);
	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t n;

		if (cap - len < 4097) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *nbuf = realloc(buf, ncap);

			if (!nbuf) {
				err = -ENOMEM;
				goto out;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += n;
		if (len > max_len) {
			err = -EFBIG;
			goto out;
		}
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return err;
}

int util_write_file_atomic(const char *path, const void *buf, size_t len)
{
	char tmp[PATH_MAX];
	const char *p = buf;
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		p += n;
		len -= n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* SHA-256 per FIPS 180-4. */
static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

#define ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ROR32(w[i - 15], 7) ^ ROR32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR32(w[i - 2], 17) ^ ROR32(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (i = 0; i < 64; i++) {
		uint32_t s1 = ROR32(e, 6) ^ ROR32(e, 11) ^ ROR32(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = hh + s1 + ch + sha256_k[i] + w[i];
		uint32_t s0 = ROR32(a, 2) ^ ROR32(a, 13) ^ ROR32(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = s0 + maj;

		hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void util_sha256(const void *buf, size_t len, uint8_t out[32])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	const uint8_t *p = buf;
	uint8_t tail[128];
	uint64_t bits = (uint64_t)len * 8;
	size_t rest, tail_len;
	int i;

	while (len >= 64) {
		sha256_block(h, p);
		p += 64;
		len -= 64;
	}
	rest = len;
	memset(tail, 0, sizeof(tail));
	if (rest)
		memcpy(tail, p, rest);
	tail[rest] = 0x80;
	tail_len = rest + 1 + 8 <= 64 ? 64 : 128;
	for (i = 0; i < 8; i++)
		tail[tail_len - 1 - i] = (uint8_t)(bits >> (8 * i));
	sha256_block(h, tail);
	if (tail_len == 128)
		sha256_block(h, tail + 64);
	for (i = 0; i < 8; i++) {
		out[4 * i] = h[i] >> 24;
		out[4 * i + 1] = h[i] >> 16;
		out[4 * i + 2] = h[i] >> 8;
		out[4 * i + 3] = h[i];
	}
}

void util_sha256_hex(const void *buf, size_t len, char out[SHA256_HEX_LEN])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t d[32];
	int i;

	util_sha256(buf, len, d);
	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[64] = '\0';
}

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *util_base64_encode(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i, o = 0;
	char *out = malloc((len + 2) / 3 * 4 + 1);

	if (!out)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		out[o++] = b64_alphabet[v >> 18];
		out[o++] = b64_alphabet[(v >> 12) & 63];
		out[o++] = b64_alphabet[(v >> 6) & 63];
		out[o++] = b64_alphabet[v & 63];
	}
	if (i < len) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);

		out[o++] = b64_alphabet[v >> 18];
		out[o++] = b64_alphabet[(v >> 12) & 63];
		out[o++] = i + 1 < len ? b64_alphabet[(v >> 6) & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
	return out;
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64_alphabet, c) : NULL;

	return p ? (int)(p - b64_alphabet) : -1;
}

int util_base64_decode(const char *text, void **bufp, size_t *lenp)
{
	size_t len = strlen(text), i, o = 0;
	uint8_t *out;

	if (len % 4)
		return -EINVAL;
	out = malloc(len / 4 * 3 + 1);
	if (!out)
		return -ENOMEM;
	for (i = 0; i < len; i += 4) {
		int a = b64_value(text[i]), b = b64_value(text[i + 1]);
		int c = text[i + 2] == '=' ? 0 : b64_value(text[i + 2]);
		int d = text[i + 3] == '=' ? 0 : b64_value(text[i + 3]);
		int pad = (text[i + 2] == '=') + (text[i + 3] == '=');
		uint32_t v;

		if (a < 0 || b < 0 || c < 0 || d < 0 || (pad && i + 4 != len) ||
		    (text[i + 2] == '=' && text[i + 3] != '=')) {
			free(out);
			return -EINVAL;
		}
		v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
		out[o++] = v >> 16;
		if (pad < 2)
			out[o++] = v >> 8;
		if (pad < 1)
			out[o++] = v;
	}
	*bufp = out;
	*lenp = o;
	return 0;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t util_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int64_t util_mono_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1000000;
}

int64_t util_wall_ms(void)
{
	return clock_ns(CLOCK_REALTIME) / 1000000;
}

void util_format_time(int64_t wall_ms, char *out, size_t out_len)
{
	time_t t = wall_ms / 1000;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, out_len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int util_parse_int(const char *text, long long *out)
{
	char *end;
	long long v;

	if (!text || !*text)
		return -EINVAL;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno)
		return -errno;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int util_parse_duration_ms(const char *text, int64_t *ms)
{
	static const struct { const char *suffix; int64_t mult; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "", 1000 },
	};
	char *end;
	double v;
	size_t i;

	if (!text || !*text || *text == '-' || *text == '+')
		return -EINVAL;
	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || v < 0 || v > 86400.0 * 1000)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].suffix)) {
			*ms = (int64_t)(v * units[i].mult + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

void *util_grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c;

	if (need <= *cap)
		return p;
	c = *cap ? *cap * 2 : 16;
	if (c < need)
		c = need;
	if (c > SIZE_MAX / size)
		return NULL;
	p = realloc(p, c * size);
	if (p)
		*cap = c;
	return p;
}

const char *util_json_type_name(const json_t *v)
{
	if (!v)
		return "nothing";
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}
