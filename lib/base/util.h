/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* util.h - small helpers shared by every bpflab program: whole-file reads, atomic
 * writes, SHA-256, base64 and clocks.
 *
 * SHA-256 is hand-written (FIPS 180-4) because it is the only digest bpflab needs and the
 * alternative is pulling libcrypto into every binary; it is checked against the FIPS test
 * vectors in tests/unit/test_util.c.
 *
 * Folder contract (docs/architecture.md, "Layout"):
 * lib/base/ is the bottom of the tree: small helpers every part uses (util, log,
 * texttable, kernel_list, jget); it includes nothing else of lib/.
 */
#ifndef BPFLAB_UTIL_H
#define BPFLAB_UTIL_H

#include <jansson.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* -UTIL_ENOTREG: PATH names a FIFO, a device or a socket where a file is read (above the
 * kernel's errno values; util_strerror() names it). */
#define UTIL_ENOTREG 200

/* Open PATH read-only (O_CLOEXEC, through symbolic links) if it is a regular file. A FIFO,
 * a device or a socket is refused with -UTIL_ENOTREG and a directory with -EISDIR, without
 * blocking on them (opened O_NONBLOCK, then fstat). Returns the fd or -errno. */
int util_open_regular(const char *path);

/* The text of -errno ERR (or errno ERR) as util_* functions return it: strerror(), and
 * "not a regular file (a FIFO, device or socket)" for UTIL_ENOTREG. */
const char *util_strerror(int err);

/* Copy string SRC (NULL: "") into OUT of SIZE bytes (at least 1), cut to SIZE - 1 bytes
 * and NUL-terminated: what snprintf(OUT, SIZE, "%s", SRC) writes, without its cost (on
 * the coordinator's paths a job). Returns the bytes copied. */
size_t util_strcopy(char *out, size_t size, const char *src);

/* Read all of regular file PATH (util_open_regular) into a NUL-terminated heap buffer
 * (*bufp, caller frees) of *lenp bytes (not counting the NUL). Files above max_len bytes
 * are refused with -EFBIG. Returns 0 or -errno (util_strerror). */
int util_read_file(const char *path, size_t max_len, char **bufp, size_t *lenp);

/* The length (1 to 4) of the valid UTF-8 character at S, of which AVAIL (at least 1) bytes
 * may be read; 0 when S does not start one (a continuation byte, an overlong form, a
 * surrogate, above U+10FFFF, cut short). An ASCII byte, NUL included, is 1. */
size_t util_utf8_len(const char *s, size_t avail);

/* Whether the LEN bytes at S are UTF-8 as jansson takes it in strings and keys: no NUL,
 * no overlong form, no surrogate, nothing above U+10FFFF. When not, *BAD (if not NULL)
 * is the offset of the first byte that is not. */
bool util_utf8_valid(const char *s, size_t len, size_t *bad);

/* Whether the LEN bytes of TEXT read from FILE are text (util_utf8_valid): 0, or -EINVAL
 * with ERR (input) "FILE:LINE: a NUL byte (not a text file?)" or "FILE:LINE: not UTF-8
 * text". */
int util_text_check(const char *text, size_t len, const char *file, struct err *err);

/* Whether S is a name as plans name things (plan names, hosts): 1 to MAX letters,
 * digits and characters of EXTRA, ASCII only (the plan's rule, docs/plans.md). */
bool util_name_ok(const char *s, const char *extra, size_t max);

/* Write LEN bytes to PATH through PATH.tmp, fsync and rename, so that readers see either
 * the old or the whole new file. Returns 0 or -errno. */
int util_write_file_atomic(const char *path, const void *buf, size_t len);

/* Hex SHA-256 of BUF into OUT (65 bytes with the NUL). */
#define SHA256_HEX_LEN 65
void util_sha256_hex(const void *buf, size_t len, char out[SHA256_HEX_LEN]);
void util_sha256(const void *buf, size_t len, uint8_t out[32]);

/* Base64 (RFC 4648, with padding). Encode returns a heap string or NULL; decode returns
 * 0 and a heap buffer, or -EINVAL on bad input, -ENOMEM. */
char *util_base64_encode(const void *buf, size_t len);
int util_base64_decode(const char *text, void **bufp, size_t *lenp);

/* Clocks in milliseconds / nanoseconds. */
int64_t util_mono_ms(void);
int64_t util_mono_ns(void);
int64_t util_wall_ms(void);
/* "2026-11-29T22:39:00Z" for a wall time in ms into OUT (at least 32 bytes). */
void util_format_time(int64_t wall_ms, char *out, size_t out_len);

/* Parse a duration such as "10s", "500ms", "2m", "3" (seconds) into milliseconds.
 * Returns 0 or -EINVAL. */
int util_parse_duration_ms(const char *text, int64_t *ms);

/* strtoll over the whole string; 0 or -EINVAL/-ERANGE. */
int util_parse_int(const char *text, long long *out);

/* Room for NEED (at least 1) elements of SIZE bytes in the heap array P of *CAP: P when
 * it has room, else P reallocated to twice its capacity (at least NEED, at least 16) with
 * *CAP updated, or NULL when out of memory (P is then untouched and still the caller's). */
void *util_grow(void *p, size_t *cap, size_t need, size_t size);

/* V's JSON type as decoders name it in their refusals: "an object", "a string", ...,
 * "nothing" for NULL (lib/plan/jobspec_decode.c, lib/proto/msg_result.c). */
const char *util_json_type_name(const json_t *v);

#endif
