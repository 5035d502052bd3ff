/* proto.c - see proto.h. The socket helpers hide multipart handling: a payload with more
 * frames than expected is drained and refused, so a confused peer cannot desynchronise
 * the framing. */
#include "proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

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

json_t *proto_decode(const void *buf, size_t len, char *why, size_t why_len)
{
	json_error_t jerr;
	json_t *msg, *v, *type;

	if (len > PROTO_MAX_BYTES) {
		snprintf(why, why_len, "message of %zu bytes exceeds the limit of %u", len,
			 PROTO_MAX_BYTES);
		return NULL;
	}
	msg = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!msg) {
		snprintf(why, why_len, "not JSON: %s at byte %d", jerr.text, jerr.position);
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

/* The encoded text goes to ZeroMQ as it is (zmq_msg_init_data): no copy. */
static int send_payload(void *sock, const json_t *msg, int flags)
{
	zmq_msg_t m;
	size_t len;
	char *s = proto_encode(msg, &len);
	int rc;

	if (!s)
		return -ENOMEM;
	if (zmq_msg_init_data(&m, s, len, free_payload, NULL)) {
		free(s);
		return -zmq_errno();
	}
	rc = zmq_msg_send(&m, sock, flags);
	if (rc < 0) {
		rc = -zmq_errno();
		zmq_msg_close(&m);	/* frees S */
		return rc;
	}
	return 0;
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

static int recv_payload(void *sock, json_t **msg, int flags, char *why, size_t why_len)
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
	*msg = proto_decode(zmq_msg_data(&m), zmq_msg_size(&m), why, why_len);
	zmq_msg_close(&m);
	return *msg ? 0 : -EBADMSG;
}

int proto_recv(void *sock, json_t **msg, int flags, char *why, size_t why_len)
{
	return recv_payload(sock, msg, flags, why, why_len);
}

int proto_recv_from(void *sock, void *id, size_t *id_len, json_t **msg, int flags,
		    char *why, size_t why_len)
{
	int more, rc;
	size_t sz = sizeof(more);

	*msg = NULL;
	rc = zmq_recv(sock, id, PROTO_MAX_IDENTITY, flags);
	if (rc < 0)
		return -zmq_errno();
	*id_len = (size_t)rc > PROTO_MAX_IDENTITY ? PROTO_MAX_IDENTITY : (size_t)rc;
	if (zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz) || !more) {
		snprintf(why, why_len, "message has no payload frame");
		return -EBADMSG;
	}
	return recv_payload(sock, msg, 0, why, why_len);
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
