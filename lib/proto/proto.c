// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* proto.c - see proto.h. Messages (new, error reply, typed getters) and the socket
 * helpers; the bytes are made by proto_encode.c and read by proto_decode.c.
 *
 * The socket helpers hide multipart handling: a payload with more frames than expected
 * is drained and refused, so a confused peer cannot desynchronise the framing. */
#include "proto/proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "proto/samples.h"
#include "base/util.h"

json_t *proto_msg_new(const char *type)
{
	return json_pack("{s:i, s:s}", "v", PROTO_VERSION, "type", type);
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

/* Copy the property NAME of message M (or "") into OUT. */
static void get_property(zmq_msg_t *m, const char *name, char *out, size_t len)
{
	/* not snprintf: it was a tenth of a frame's receive, two a frame */
	util_strcopy(out, len, zmq_msg_gets(m, name));
}

/* The payload frame of a message into M (initialised here; the caller closes it), one
 * frame only (-EBADMSG with WHY for more), and its sender into *PEER unless NULL. */
static int recv_frame(void *sock, zmq_msg_t *m, struct proto_peer *peer, int flags,
		      struct err *why)
{
	int rc, more;
	size_t sz = sizeof(more);

	zmq_msg_init(m);
	rc = zmq_msg_recv(m, sock, flags);
	if (rc < 0)
		return -zmq_errno();
	if (peer) {
		get_property(m, "User-Id", peer->user, sizeof(peer->user));
		get_property(m, "Role", peer->role, sizeof(peer->role));
	}
	if (!zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz) && more) {
		drain(sock);
		err_set(why, "message has more than one payload frame");
		return -EBADMSG;
	}
	return 0;
}

static int recv_payload(void *sock, json_t **msg, struct samples *samples,
			struct proto_peer *peer, int flags, struct err *why)
{
	zmq_msg_t m;
	int rc;

	*msg = NULL;
	rc = recv_frame(sock, &m, peer, flags, why);
	if (rc) {
		zmq_msg_close(&m);
		return rc;
	}
	*msg = samples ? proto_decode_samples(zmq_msg_data(&m), zmq_msg_size(&m), samples,
					      why) :
			 proto_decode(zmq_msg_data(&m), zmq_msg_size(&m), why);
	zmq_msg_close(&m);
	return *msg ? 0 : -EBADMSG;
}

int proto_recv(void *sock, json_t **msg, int flags, struct err *why)
{
	return recv_payload(sock, msg, NULL, NULL, flags, why);
}

/* The identity frame of a ROUTER's message into ID; -EBADMSG when no payload follows. */
static int recv_identity(void *sock, void *id, size_t *id_len, int flags, struct err *why)
{
	int more, rc;
	size_t sz = sizeof(more);

	rc = zmq_recv(sock, id, PROTO_MAX_IDENTITY, flags);
	if (rc < 0)
		return -zmq_errno();
	*id_len = (size_t)rc > PROTO_MAX_IDENTITY ? PROTO_MAX_IDENTITY : (size_t)rc;
	if (zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz) || !more) {
		err_set(why, "message has no payload frame");
		return -EBADMSG;
	}
	return 0;
}

int proto_recv_from_samples(void *sock, void *id, size_t *id_len, json_t **msg,
			    struct samples *samples, struct proto_peer *peer, int flags,
			    struct err *why)
{
	int rc;

	*msg = NULL;
	if (peer)
		memset(peer, 0, sizeof(*peer));
	if (samples)
		memset(samples, 0, sizeof(*samples));
	rc = recv_identity(sock, id, id_len, flags, why);
	return rc ? rc : recv_payload(sock, msg, samples, peer, 0, why);
}

int proto_recv_from(void *sock, void *id, size_t *id_len, json_t **msg, int flags,
		    struct err *why)
{
	return proto_recv_from_samples(sock, id, id_len, msg, NULL, NULL, flags, why);
}

int proto_recv_frame_from(void *sock, void *id, size_t *id_len, zmq_msg_t *frame,
			  struct proto_peer *peer, int flags, struct err *why)
{
	int rc;

	if (peer)
		memset(peer, 0, sizeof(*peer));
	rc = recv_identity(sock, id, id_len, flags, why);
	if (rc) {
		zmq_msg_init(frame);
		return rc;
	}
	rc = recv_frame(sock, frame, peer, 0, why);
	if (rc) {
		zmq_msg_close(frame);
		zmq_msg_init(frame);
	}
	return rc;
}
