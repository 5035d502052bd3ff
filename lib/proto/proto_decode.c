// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* proto_decode.c - see proto.h. A message's bytes into jansson values: proto_parse(),
 * proto_decode() (the checks every message passes: size, JSON, version, type) and
 * proto_decode_samples() for results whose samples go to lib/proto/samples.h instead; and
 * proto_msg_type(), the type of a decoded message.
 *
 * A JSON parser that builds the same jansson values as json_loadb(buf, len,
 * JSON_REJECT_DUPLICATES), several times faster: jansson's lexer reads one byte at a
 * time through a stream and copies every token, which made parsing a `result` a fifth
 * of bpflabd's time (bench/README.md). RFC 8259; refused as there: a duplicate key, a
 * NUL character in a string or key, invalid UTF-8, an integer beyond json_int_t, a real
 * beyond double, nesting deeper than JSON_PARSER_MAX_DEPTH, a top level other than an
 * object or array. A NUL byte outside a string is refused too (jansson skips one right
 * after a number or literal). The values are made with jansson's own constructors, so
 * handlers see no difference; tests/unit/test_proto.c and the fuzz target compare the
 * two parsers. */
#include "proto/proto.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "proto/samples.h"

const char *proto_msg_type(const json_t *msg)
{
	return json_string_value(json_object_get(msg, "type"));
}

struct parser {
	const unsigned char *p, *start, *end;
	int depth;
	const char *err;		/* the first problem, NULL while there is none */
	size_t err_pos;
	struct samples *samples;	/* proto_decode_samples: a top-level "samples" */
};

static json_t *parse_value(struct parser *ps);

static void *parse_fail(struct parser *ps, const char *why)
{
	if (!ps->err) {
		ps->err = why;
		ps->err_pos = (size_t)(ps->p - ps->start);
	}
	return NULL;
}

static void skip_space(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
				   *ps->p == '\r'))
		ps->p++;
}

static int hex4(const unsigned char *p)
{
	int v = 0, i, d;

	for (i = 0; i < 4; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			d = p[i] - '0';
		else if ((p[i] | 0x20) >= 'a' && (p[i] | 0x20) <= 'f')
			d = (p[i] | 0x20) - 'a' + 10;
		else
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static void put_utf8(char *out, size_t *len, uint32_t cp)
{
	if (cp < 0x80) {
		out[(*len)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*len)++] = (char)(0xC0 | cp >> 6);
		out[(*len)++] = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		out[(*len)++] = (char)(0xE0 | cp >> 12);
		out[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[(*len)++] = (char)(0x80 | (cp & 0x3F));
	} else {
		out[(*len)++] = (char)(0xF0 | cp >> 18);
		out[(*len)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
		out[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[(*len)++] = (char)(0x80 | (cp & 0x3F));
	}
}

/* The escape at ps->p (after the backslash) into OUT; 0 or -1 (failed). */
static int parse_escape(struct parser *ps, char *out, size_t *len)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	int hi, lo;

	if (ps->p >= ps->end)
		return parse_fail(ps, "premature end of input"), -1;
	if (*ps->p != 'u') {
		e = *ps->p ? strchr(from, *ps->p) : NULL;
		if (!e)
			return parse_fail(ps, "invalid escape"), -1;
		out[(*len)++] = to[e - from];
		ps->p++;
		return 0;
	}
	if (ps->end - ps->p < 5 || (hi = hex4(ps->p + 1)) < 0)
		return parse_fail(ps, "invalid escape"), -1;
	ps->p += 5;
	if (hi >= 0xDC00 && hi <= 0xDFFF)
		return parse_fail(ps, "invalid Unicode escape"), -1;
	if (hi >= 0xD800 && hi <= 0xDBFF) {
		if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
		    (lo = hex4(ps->p + 2)) < 0xDC00 || lo > 0xDFFF)
			return parse_fail(ps, "invalid Unicode escape"), -1;
		ps->p += 6;
		put_utf8(out, len, 0x10000 + (((uint32_t)hi - 0xD800) << 10) +
				   ((uint32_t)lo - 0xDC00));
		return 0;
	}
	if (!hi)
		return parse_fail(ps, "\\u0000 (a NUL character) is not allowed"), -1;
	put_utf8(out, len, (uint32_t)hi);
	return 0;
}

/* The string at ps->p (after its opening quote): its text in *OUT (a pointer into the
 * input when it has no escape, else into *HEAP, which the caller frees) and length. */
static int parse_string(struct parser *ps, const char **out, size_t *len, char **heap)
{
	const unsigned char *s = ps->p, *q;
	size_t n;
	char *buf;

	*heap = NULL;
	while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\\') {
		if (*ps->p < 0x20)
			return parse_fail(ps, "control character in a string"), -1;
		if (*ps->p < 0x80) {
			ps->p++;
		} else {
			n = util_utf8_len((const char *)ps->p, (size_t)(ps->end - ps->p));
			if (!n)
				return parse_fail(ps, "invalid UTF-8 in a string"), -1;
			ps->p += n;
		}
	}
	if (ps->p >= ps->end)
		return parse_fail(ps, "premature end of input"), -1;
	if (*ps->p == '"') {
		*out = (const char *)s;
		*len = (size_t)(ps->p++ - s);
		return 0;
	}
	/* escapes: the text never grows (an escape of 2 to 12 bytes gives at most 4), so the
	 * raw length up to the closing quote is enough */
	for (q = ps->p; q < ps->end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < ps->end)
			q++;
	buf = malloc((size_t)(q - s) + 1);
	if (!buf)
		return parse_fail(ps, "out of memory"), -1;
	n = (size_t)(ps->p - s);
	memcpy(buf, s, n);
	while (ps->p < ps->end && *ps->p != '"') {
		size_t u;

		if (*ps->p == '\\') {
			ps->p++;
			if (parse_escape(ps, buf, &n))
				goto bad;
		} else if (*ps->p < 0x20) {
			parse_fail(ps, "control character in a string");
			goto bad;
		} else if (*ps->p < 0x80) {
			buf[n++] = (char)*ps->p++;
		} else if ((u = util_utf8_len((const char *)ps->p, (size_t)(ps->end - ps->p)))) {
			memcpy(buf + n, ps->p, u);
			n += u;
			ps->p += u;
		} else {
			parse_fail(ps, "invalid UTF-8 in a string");
			goto bad;
		}
	}
	if (ps->p >= ps->end) {
		parse_fail(ps, "premature end of input");
		goto bad;
	}
	ps->p++;
	*out = buf;
	*len = n;
	*heap = buf;
	return 0;
bad:
	free(buf);
	return -1;
}

static json_t *parse_number(struct parser *ps)
{
	const unsigned char *s = ps->p;
	bool real = false;
	char small[64], *text;
	size_t n;
	json_t *v = NULL;

#define DIGITS(ps) ((ps)->p < (ps)->end && *(ps)->p >= '0' && *(ps)->p <= '9')
	if (*ps->p == '-')
		ps->p++;
	if (!DIGITS(ps))
		return parse_fail(ps, "invalid number");
	if (*ps->p++ == '0' && DIGITS(ps))
		return parse_fail(ps, "invalid number: a leading zero");
	while (DIGITS(ps))
		ps->p++;
	if (ps->p < ps->end && *ps->p == '.') {
		real = true;
		ps->p++;
		if (!DIGITS(ps))
			return parse_fail(ps, "invalid number");
		while (DIGITS(ps))
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		real = true;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!DIGITS(ps))
			return parse_fail(ps, "invalid number");
		while (DIGITS(ps))
			ps->p++;
	}
#undef DIGITS
	/* strtoll/strtod need a terminated copy; the C locale's '.' (bpflab sets none) */
	n = (size_t)(ps->p - s);
	text = n < sizeof(small) ? small : malloc(n + 1);
	if (!text)
		return parse_fail(ps, "out of memory");
	memcpy(text, s, n);
	text[n] = '\0';
	errno = 0;
	if (!real) {
		long long i = strtoll(text, NULL, 10);

		if (errno == ERANGE)
			parse_fail(ps, "too big integer");
		else
			v = json_integer((json_int_t)i);
	} else {
		double d = strtod(text, NULL);

		if (errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL))
			parse_fail(ps, "real number overflow");
		else
			v = json_real(d);
	}
	if (text != small)
		free(text);
	if (!v && !ps->err)
		parse_fail(ps, "out of memory");
	return v;
}

/* The value of the message's "samples", which samples_scan reads when it can (left out
 * of the message, then); else an ordinary member of OBJ. A second "samples" after a taken
 * one fails: proto_decode_samples then parses the whole text again as proto_decode. */
static int parse_samples(struct parser *ps, json_t *obj)
{
	const char *next;
	json_t *v;
	int rc;

	if (ps->samples->taken)
		return parse_fail(ps, "duplicate object key"), -1;
	skip_space(ps);
	rc = samples_scan((const char *)ps->p, (const char *)ps->end, ps->samples, &next);
	if (rc < 0)
		return parse_fail(ps, "out of memory"), -1;
	if (rc) {
		ps->p = (const unsigned char *)next;
		return 0;
	}
	v = parse_value(ps);
	if (!v || json_object_setn_new_nocheck(obj, "samples", 7, v))
		return parse_fail(ps, "out of memory"), -1;
	return 0;
}

static int parse_member(struct parser *ps, json_t *obj)
{
	const char *key;
	char *heap;
	size_t klen;
	json_t *v;

	if (ps->p >= ps->end || *ps->p != '"')
		return parse_fail(ps, "string or '}' expected"), -1;
	ps->p++;
	if (parse_string(ps, &key, &klen, &heap))
		return -1;
	if (memchr(key, '\0', klen) || json_object_getn(obj, key, klen)) {
		parse_fail(ps, memchr(key, '\0', klen) ? "NUL byte in object key" :
			   "duplicate object key");
		free(heap);
		return -1;
	}
	skip_space(ps);
	if (ps->p >= ps->end || *ps->p != ':') {
		free(heap);
		return parse_fail(ps, "':' expected"), -1;
	}
	ps->p++;
	if (ps->samples && ps->depth == 1 && klen == 7 && !memcmp(key, "samples", 7)) {
		free(heap);
		return parse_samples(ps, obj);
	}
	v = parse_value(ps);
	if (!v || json_object_setn_new_nocheck(obj, key, klen, v)) {
		free(heap);
		return parse_fail(ps, "out of memory"), -1;
	}
	free(heap);
	return 0;
}

/* An object or array at ps->p (its opening bracket). */
static json_t *parse_container(struct parser *ps, bool object)
{
	char close = object ? '}' : ']';
	json_t *c = object ? json_object() : json_array(), *v;

	if (!c)
		return parse_fail(ps, "out of memory");
	if (++ps->depth > JSON_PARSER_MAX_DEPTH) {
		json_decref(c);
		return parse_fail(ps, "maximum parsing depth reached");
	}
	ps->p++;
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return c;
	}
	for (;;) {
		if (object) {
			skip_space(ps);
			if (parse_member(ps, c))
				break;
		} else {
			v = parse_value(ps);
			if (!v || json_array_append_new(c, v)) {
				parse_fail(ps, "out of memory");
				break;
			}
		}
		skip_space(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			ps->depth--;
			return c;
		}
		parse_fail(ps, object ? "',' or '}' expected" : "',' or ']' expected");
		break;
	}
	json_decref(c);
	return NULL;
}

static json_t *parse_literal(struct parser *ps, const char *word, json_t *v)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return parse_fail(ps, "invalid token");
	ps->p += n;
	return v;
}

static json_t *parse_value(struct parser *ps)
{
	const char *s;
	char *heap;
	size_t len;
	json_t *v;

	skip_space(ps);
	if (ps->p >= ps->end)
		return parse_fail(ps, "premature end of input");
	switch (*ps->p) {
	case '{':
		return parse_container(ps, true);
	case '[':
		return parse_container(ps, false);
	case '"':
		ps->p++;
		if (parse_string(ps, &s, &len, &heap))
			return NULL;
		v = json_stringn_nocheck(s, len);	/* checked above */
		free(heap);
		return v ? v : parse_fail(ps, "out of memory");
	case 't':
		return parse_literal(ps, "true", json_true());
	case 'f':
		return parse_literal(ps, "false", json_false());
	case 'n':
		return parse_literal(ps, "null", json_null());
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return parse_number(ps);
		return parse_fail(ps, "invalid token");
	}
}

static json_t *parse_text(const void *buf, size_t len, struct samples *samples, struct err *why)
{
	struct parser ps = { .p = buf, .start = buf, .end = (const unsigned char *)buf + len,
			     .samples = samples };
	json_t *v = NULL;

	skip_space(&ps);
	if (ps.p < ps.end && (*ps.p == '{' || *ps.p == '['))
		v = parse_value(&ps);
	else
		parse_fail(&ps, "'[' or '{' expected");
	if (v) {
		skip_space(&ps);
		if (ps.p != ps.end) {
			json_decref(v);
			v = parse_fail(&ps, "end of file expected");
		}
	}
	if (!v)
		err_set(why, "%s at byte %zu", ps.err ? ps.err : "out of memory",
			 ps.err_pos);
	return v;
}

json_t *proto_parse(const void *buf, size_t len, struct err *why)
{
	return parse_text(buf, len, NULL, why);
}

static json_t *decode(const void *buf, size_t len, struct samples *samples, struct err *why)
{
	struct err perr;
	json_t *msg, *v, *type;

	if (len > PROTO_MAX_CLIENT_BYTES) {
		err_set(why, "message of %zu bytes exceeds the limit of %u", len,
			 PROTO_MAX_CLIENT_BYTES);
		return NULL;
	}
	msg = parse_text(buf, len, samples, &perr);
	if (!msg) {
		err_set(why, "not JSON: %.127s", perr.msg);
		return NULL;
	}
	if (!json_is_object(msg)) {
		err_set(why, "not a JSON object");
		goto bad;
	}
	v = json_object_get(msg, "v");
	if (!json_is_integer(v)) {
		err_set(why, "no protocol version \"v\"");
		goto bad;
	}
	if (json_integer_value(v) != PROTO_VERSION) {
		err_set(why, "protocol version %lld, expected %d",
			 (long long)json_integer_value(v), PROTO_VERSION);
		goto bad;
	}
	type = json_object_get(msg, "type");
	if (!json_is_string(type) || !json_string_length(type)) {
		err_set(why, "no message \"type\"");
		goto bad;
	}
	return msg;
bad:
	json_decref(msg);
	return NULL;
}

json_t *proto_decode(const void *buf, size_t len, struct err *why)
{
	return decode(buf, len, NULL, why);
}

json_t *proto_decode_samples(const void *buf, size_t len, struct samples *samples,
			     struct err *why)
{
	json_t *msg;

	memset(samples, 0, sizeof(*samples));
	msg = decode(buf, len, samples, why);
	if (samples->taken && (!msg || strcmp(proto_msg_type(msg), "result"))) {
		/* not a valid result: what proto_decode makes of it, its refusal included */
		json_decref(msg);
		samples_release(samples);
		msg = decode(buf, len, NULL, why);
	}
	return msg;
}
