// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* proto_encode.c - see proto.h. proto_encode(): a message into its compact JSON text.
 *
 * The same bytes as json_dumps(msg, JSON_COMPACT) (members in insertion order, the same
 * escapes, reals formatted by jansson itself), written straight into one growing buffer:
 * jansson's dumper walks every string one UTF-8 code point at a time and copies the
 * result once more, which made it a tenth of bpflabd's time when a job message carries
 * a base64 object (bench/README.md). tests/unit/test_proto.c compares the two. */
#include "proto/proto.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENCODE_MAX_DEPTH 2048		/* jansson's parser refuses deeper input too */

void proto_text_put(struct proto_text *o, const char *s, size_t n)
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
void proto_text_string(struct proto_text *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, run = 0;

	proto_text_put(o, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		char esc[6] = { '\\', 0 };
		size_t elen = 2;

		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		proto_text_put(o, s + run, i - run);
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
		proto_text_put(o, esc, elen);
	}
	proto_text_put(o, s + run, n - run);
	proto_text_put(o, "\"", 1);
}

/* A JSON real in jansson's own format: %.17g, ".0" added, exponent trimmed. */
static void put_real(struct proto_text *o, const json_t *v)
{
	char num[64];
	size_t n = json_dumpb(v, num, sizeof(num), JSON_ENCODE_ANY);

	if (!n || n >= sizeof(num))
		o->failed = true;
	else
		proto_text_put(o, num, n);
}

static void put_value(struct proto_text *o, const json_t *v, int depth)
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
		proto_text_put(o, "{", 1);
		n = 0;
		json_object_keylen_foreach((json_t *)v, key, klen, item) {
			if (n++)
				proto_text_put(o, ",", 1);
			proto_text_string(o, key, klen);
			proto_text_put(o, ":", 1);
			put_value(o, item, depth + 1);
		}
		proto_text_put(o, "}", 1);
		break;
	case JSON_ARRAY:
		proto_text_put(o, "[", 1);
		json_array_foreach(v, i, item) {
			if (i)
				proto_text_put(o, ",", 1);
			put_value(o, item, depth + 1);
		}
		proto_text_put(o, "]", 1);
		break;
	case JSON_STRING:
		proto_text_string(o, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		len = snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		proto_text_put(o, num, (size_t)len);
		break;
	case JSON_REAL:
		put_real(o, v);
		break;
	case JSON_TRUE:
		proto_text_put(o, "true", 4);
		break;
	case JSON_FALSE:
		proto_text_put(o, "false", 5);
		break;
	case JSON_NULL:
		proto_text_put(o, "null", 4);
		break;
	}
}

void proto_text_value(struct proto_text *o, const json_t *v)
{
	put_value(o, v, 0);
}

void proto_text_real(struct proto_text *o, double v)
{
	/* one value of jansson's for the text's reals: no allocation a number */
	if (!o->real)
		o->real = json_real(0);
	if (!o->real || json_real_set(o->real, v))
		o->failed = true;
	else
		put_real(o, o->real);
}

char *proto_text_finish(struct proto_text *o, size_t *len)
{
	char *p = o->p;

	json_decref(o->real);
	if (o->failed || !p) {
		free(p);
		memset(o, 0, sizeof(*o));
		return NULL;
	}
	p[o->len] = '\0';	/* put() always leaves room for it */
	if (len)
		*len = o->len;
	memset(o, 0, sizeof(*o));
	return p;
}

char *proto_encode(const json_t *msg, size_t *len)
{
	struct proto_text o = { 0 };

	if (!msg)
		return NULL;
	put_value(&o, msg, 0);
	return proto_text_finish(&o, len);
}
