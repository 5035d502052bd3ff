/* proto.c - see proto.h. The socket helpers hide multipart handling: a payload with more
 * frames than expected is drained and refused, so a confused peer cannot desynchronise
 * the framing. */
#include "proto.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "samples.h"

json_t *proto_msg_new(const char *type)
{
	return json_pack("{s:i, s:s}", "v", PROTO_VERSION, "type", type);
}

const char *proto_msg_type(const json_t *msg)
{
	return json_string_value(json_object_get(msg, "type"));
}

json_t *proto_error_new(const char *in_reply_to, const char *fmt, ...)
{
	char text[1024];
	json_t *msg;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	msg = proto_msg_new("error");
	if (msg) {
		json_object_set_new(msg, "message", json_string(text));
		if (in_reply_to)
			json_object_set_new(msg, "in_reply_to", json_string(in_reply_to));
	}
	return msg;
}

/* --- decoding ---
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

/* Length of the valid UTF-8 sequence at P (before END) that starts with a byte >= 0x80,
 * or 0: no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	size_t n, i;
	uint32_t cp;

	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3F);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return n;
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
			n = utf8_len(ps->p, ps->end);
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
		} else if ((u = utf8_len(ps->p, ps->end))) {
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

static json_t *parse_text(const void *buf, size_t len, struct samples *samples, char *why,
			  size_t why_len)
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
		snprintf(why, why_len, "%s at byte %zu", ps.err ? ps.err : "out of memory",
			 ps.err_pos);
	return v;
}

json_t *proto_parse(const void *buf, size_t len, char *why, size_t why_len)
{
	return parse_text(buf, len, NULL, why, why_len);
}

static json_t *decode(const void *buf, size_t len, struct samples *samples, char *why,
		      size_t why_len)
{
	char perr[128];
	json_t *msg, *v, *type;

	if (len > PROTO_MAX_BYTES) {
		snprintf(why, why_len, "message of %zu bytes exceeds the limit of %u", len,
			 PROTO_MAX_BYTES);
		return NULL;
	}
	msg = parse_text(buf, len, samples, perr, sizeof(perr));
	if (!msg) {
		snprintf(why, why_len, "not JSON: %s", perr);
		return NULL;
	}
	if (!json_is_object(msg)) {
		snprintf(why, why_len, "not a JSON object");
		goto bad;
	}
	v = json_object_get(msg, "v");
	if (!json_is_integer(v)) {
		snprintf(why, why_len, "no protocol version \"v\"");
		goto bad;
	}
	if (json_integer_value(v) != PROTO_VERSION) {
		snprintf(why, why_len, "protocol version %lld, expected %d",
			 (long long)json_integer_value(v), PROTO_VERSION);
		goto bad;
	}
	type = json_object_get(msg, "type");
	if (!json_is_string(type) || !json_string_length(type)) {
		snprintf(why, why_len, "no message \"type\"");
		goto bad;
	}
	return msg;
bad:
	json_decref(msg);
	return NULL;
}

json_t *proto_decode(const void *buf, size_t len, char *why, size_t why_len)
{
	return decode(buf, len, NULL, why, why_len);
}

json_t *proto_decode_samples(const void *buf, size_t len, struct samples *samples,
			     char *why, size_t why_len)
{
	json_t *msg;

	memset(samples, 0, sizeof(*samples));
	msg = decode(buf, len, samples, why, why_len);
	if (samples->taken && (!msg || strcmp(proto_msg_type(msg), "result"))) {
		/* not a valid result: what proto_decode makes of it, its refusal included */
		json_decref(msg);
		samples_release(samples);
		msg = decode(buf, len, NULL, why, why_len);
	}
	return msg;
}

/* --- encoding ---
 *
 * The same bytes as json_dumps(msg, JSON_COMPACT) (members in insertion order, the same
 * escapes, reals formatted by jansson itself), written straight into one growing buffer:
 * jansson's dumper walks every string one UTF-8 code point at a time and copies the
 * result once more, which made it a tenth of bpflabd's time when a job message carries
 * a base64 object (bench/README.md). tests/unit/test_proto.c compares the two. */

#define ENCODE_MAX_DEPTH 2048		/* jansson's parser refuses deeper input too */

struct outbuf {
	char *p;
	size_t len, cap;
	bool failed;			/* out of memory, or a value that cannot be encoded */
};

static void put(struct outbuf *o, const char *s, size_t n)
{
	if (o->failed)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 256;
		char *p;

		while (cap < o->len + n + 1)
			cap *= 2;
		p = realloc(o->p, cap);
		if (!p) {
			o->failed = true;
			return;
		}
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

/* A JSON string: runs of bytes that need no escape are copied whole. Texts in jansson
 * values are valid UTF-8 (checked when they were made), so bytes >= 0x80 pass as they
 * are, as json_dumps does without JSON_ENSURE_ASCII. */
static void put_string(struct outbuf *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, run = 0;

	put(o, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		char esc[6] = { '\\', 0 };
		size_t elen = 2;

		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		put(o, s + run, i - run);
		run = i + 1;
		switch (ch) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[ch >> 4];
			esc[5] = hex[ch & 15];
			elen = 6;
		}
		put(o, esc, elen);
	}
	put(o, s + run, n - run);
	put(o, "\"", 1);
}

static void put_value(struct outbuf *o, const json_t *v, int depth)
{
	char num[64];
	const char *key;
	json_t *item;
	size_t i, n, klen;
	int len;

	if (depth > ENCODE_MAX_DEPTH) {
		o->failed = true;
		return;
	}
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		put(o, "{", 1);
		n = 0;
		json_object_keylen_foreach((json_t *)v, key, klen, item) {
			if (n++)
				put(o, ",", 1);
			put_string(o, key, klen);
			put(o, ":", 1);
			put_value(o, item, depth + 1);
		}
		put(o, "}", 1);
		break;
	case JSON_ARRAY:
		put(o, "[", 1);
		json_array_foreach(v, i, item) {
			if (i)
				put(o, ",", 1);
			put_value(o, item, depth + 1);
		}
		put(o, "]", 1);
		break;
	case JSON_STRING:
		put_string(o, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		len = snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		put(o, num, (size_t)len);
		break;
	case JSON_REAL:	/* jansson's own format: %.17g, ".0" added, exponent trimmed */
		n = json_dumpb(v, num, sizeof(num), JSON_ENCODE_ANY);
		if (!n || n >= sizeof(num))
			o->failed = true;
		else
			put(o, num, n);
		break;
	case JSON_TRUE:
		put(o, "true", 4);
		break;
	case JSON_FALSE:
		put(o, "false", 5);
		break;
	case JSON_NULL:
		put(o, "null", 4);
		break;
	}
}

char *proto_encode(const json_t *msg, size_t *len)
{
	struct outbuf o = { 0 };

	if (!msg)
		return NULL;
	put_value(&o, msg, 0);
	if (o.failed) {
		free(o.p);
		return NULL;
	}
	o.p[o.len] = '\0';	/* put() always leaves room for it */
	if (len)
		*len = o.len;
	return o.p;
}

static void free_payload(void *data, void *hint)
{
	free(data);
}

/* TEXT (heap, taken) goes to ZeroMQ as it is (zmq_msg_init_data): no copy. */
static int send_text(void *sock, char *text, size_t len, int flags)
{
	zmq_msg_t m;
	int rc;

	if (zmq_msg_init_data(&m, text, len, free_payload, NULL)) {
		rc = -zmq_errno();
		free(text);
		return rc;
	}
	rc = zmq_msg_send(&m, sock, flags);
	if (rc < 0) {
		rc = -zmq_errno();
		zmq_msg_close(&m);	/* frees TEXT */
		return rc;
	}
	return 0;
}

static int send_payload(void *sock, const json_t *msg, int flags)
{
	size_t len;
	char *s = proto_encode(msg, &len);

	return s ? send_text(sock, s, len, flags) : -ENOMEM;
}

int proto_send(void *sock, const json_t *msg, int flags)
{
	return send_payload(sock, msg, flags);
}

int proto_send_to(void *sock, const void *id, size_t id_len, const json_t *msg, int flags)
{
	if (zmq_send(sock, id, id_len, ZMQ_SNDMORE | (flags & ZMQ_DONTWAIT)) < 0)
		return -zmq_errno();
	return send_payload(sock, msg, flags);
}

int proto_send_text_to(void *sock, const void *id, size_t id_len, char *text, size_t len,
		       int flags)
{
	int rc;

	if (zmq_send(sock, id, id_len, ZMQ_SNDMORE | (flags & ZMQ_DONTWAIT)) < 0) {
		rc = -zmq_errno();
		free(text);
		return rc;
	}
	return send_text(sock, text, len, flags);
}

static void drain(void *sock)
{
	int more;
	size_t sz = sizeof(more);
	zmq_msg_t m;

	for (;;) {
		if (zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz) || !more)
			return;
		zmq_msg_init(&m);
		zmq_msg_recv(&m, sock, 0);
		zmq_msg_close(&m);
	}
}

static int recv_payload(void *sock, json_t **msg, struct samples *samples, int flags,
			char *why, size_t why_len)
{
	zmq_msg_t m;
	int rc, more;
	size_t sz = sizeof(more);

	*msg = NULL;
	zmq_msg_init(&m);
	rc = zmq_msg_recv(&m, sock, flags);
	if (rc < 0) {
		rc = -zmq_errno();
		zmq_msg_close(&m);
		return rc;
	}
	if (!zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz) && more) {
		zmq_msg_close(&m);
		drain(sock);
		snprintf(why, why_len, "message has more than one payload frame");
		return -EBADMSG;
	}
	*msg = samples ? proto_decode_samples(zmq_msg_data(&m), zmq_msg_size(&m), samples,
					      why, why_len) :
			 proto_decode(zmq_msg_data(&m), zmq_msg_size(&m), why, why_len);
	zmq_msg_close(&m);
	return *msg ? 0 : -EBADMSG;
}

int proto_recv(void *sock, json_t **msg, int flags, char *why, size_t why_len)
{
	return recv_payload(sock, msg, NULL, flags, why, why_len);
}

int proto_recv_from_samples(void *sock, void *id, size_t *id_len, json_t **msg,
			    struct samples *samples, int flags, char *why, size_t why_len)
{
	int more, rc;
	size_t sz = sizeof(more);

	*msg = NULL;
	if (samples)
		memset(samples, 0, sizeof(*samples));
	rc = zmq_recv(sock, id, PROTO_MAX_IDENTITY, flags);
	if (rc < 0)
		return -zmq_errno();
	*id_len = (size_t)rc > PROTO_MAX_IDENTITY ? PROTO_MAX_IDENTITY : (size_t)rc;
	if (zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz) || !more) {
		snprintf(why, why_len, "message has no payload frame");
		return -EBADMSG;
	}
	return recv_payload(sock, msg, samples, 0, why, why_len);
}

int proto_recv_from(void *sock, void *id, size_t *id_len, json_t **msg, int flags,
		    char *why, size_t why_len)
{
	return proto_recv_from_samples(sock, id, id_len, msg, NULL, flags, why, why_len);
}

const char *proto_type_name(const json_t *v)
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

const char *proto_get_str(const json_t *obj, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : def;
}

long long proto_get_int(const json_t *obj, const char *key, long long def)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

double proto_get_real(const json_t *obj, const char *key, double def)
{
	json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : def;
}
