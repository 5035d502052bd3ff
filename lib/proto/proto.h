/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* proto.h - bpflab wire protocol: one JSON object per ZeroMQ frame.
 *
 * Every message is a JSON object with "v" (protocol version, PROTO_VERSION) and "type".
 * The coordinator's ROUTER sockets see [identity, payload]; agents and clients use DEALER
 * sockets and send/receive the payload frame alone. docs/protocol.md lists every message.
 * Messages above PROTO_MAX_BYTES are refused before they are parsed.
 *
 * Ownership: proto_recv* return a new reference the caller json_decref()s; proto_send*
 * do not steal the message.
 *
 * Folder contract (docs/architecture.md, "Layout"):
 * lib/proto/ is the wire: messages, their schema, a result's samples and the CURVE
 * keys; it includes lib/base/ and lib/plan/ (the job spec inside a job message).
 */
#ifndef BPFLAB_PROTO_H
#define BPFLAB_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <zmq.h>

#include "base/err.h"
#include "base/jget.h"	/* jget_*: every reader of a message uses them */

#define PROTO_VERSION 1
#define PROTO_MAX_BYTES (16u << 20)
/* A client's request or the coordinator's reply to it (an import or the result of a run
 * of 160,000 jobs is 17 to 50 MiB); agents' messages stay within PROTO_MAX_BYTES, which
 * their socket enforces. proto_decode takes up to this. */
#define PROTO_MAX_CLIENT_BYTES (256u << 20)
#define PROTO_HEARTBEAT_MS 1000
#define PROTO_LIVENESS 3
#define PROTO_MAX_IDENTITY 256

/* A new message {"v": PROTO_VERSION, "type": TYPE}. NULL on ENOMEM. */
json_t *proto_msg_new(const char *type);
/* The "type" of a message, or NULL. */
const char *proto_msg_type(const json_t *msg);
/* An error reply {"type":"error","message":MSG,"in_reply_to":TYPE}. */
json_t *proto_error_new(const char *in_reply_to, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parse BUF of LEN bytes as JSON text (an object or array), building what
 * json_loadb(JSON_REJECT_DUPLICATES) would, faster. NULL on failure with the problem and
 * its byte offset in WHY. */
json_t *proto_parse(const void *buf, size_t len, struct err *why);
/* Parse BUF of LEN bytes into a message. On failure returns NULL and writes a reason into
 * WHY: too large, not JSON, no version, wrong version, no type. */
json_t *proto_decode(const void *buf, size_t len, struct err *why);
/* proto_decode for bpflabd's agents socket: when the message is a `result` whose
 * "samples" array samples_scan takes (lib/proto/samples.h), the array is left out of the
 * message and its samples are in *SAMPLES (SAMPLES->taken; samples_release them);
 * otherwise *SAMPLES is empty and the message is the one proto_decode makes. Either way
 * what is refused, and why, is the same. */
struct samples;
json_t *proto_decode_samples(const void *buf, size_t len, struct samples *samples,
			     struct err *why);
/* Serialise compactly, the bytes json_dumps(MSG, JSON_COMPACT) would write; a heap string
 * (free()) with its length in *LEN (LEN may be NULL), or NULL on ENOMEM. */
char *proto_encode(const json_t *msg, size_t *len);

/* A text that proto_encode's writer builds piece by piece, for a message whose big part
 * is written straight from C values (msg_result_encode_text): zero-initialise, write,
 * then proto_text_finish, which frees it. The pieces give the bytes proto_encode gives
 * for the same values. A failure (out of memory, a value JSON cannot hold) is kept and
 * makes proto_text_finish return NULL. */
struct proto_text {
	char *p;
	size_t len, cap;
	bool failed;
	json_t *real;			/* proto_text_real's (owned) */
};
void proto_text_put(struct proto_text *o, const char *s, size_t n);	/* bytes as they are */
void proto_text_string(struct proto_text *o, const char *s, size_t n);	/* a JSON string */
void proto_text_real(struct proto_text *o, double v);			/* a real, as jansson */
void proto_text_value(struct proto_text *o, const json_t *v);		/* any value */
/* The text (heap, NUL-terminated, its length in *LEN), or NULL on a failure; *O empty. */
char *proto_text_finish(struct proto_text *o, size_t *len);

/* DEALER side: send one frame / receive one frame (blocking unless flags has ZMQ_DONTWAIT).
 * Return 0 or -errno; receive gives -EBADMSG (with WHY) for a malformed message. */
int proto_send(void *sock, const json_t *msg, int flags);
int proto_recv(void *sock, json_t **msg, int flags, struct err *why);

/* ROUTER side: identity frame then payload. Identity is copied into ID (up to
 * PROTO_MAX_IDENTITY bytes) with its length in *ID_LEN. */
int proto_send_to(void *sock, const void *id, size_t id_len, const json_t *msg, int flags);
/* proto_send_to of a message already encoded: TEXT of LEN bytes (heap, taken: freed
 * whether the send succeeds or not). */
int proto_send_text_to(void *sock, const void *id, size_t id_len, char *text, size_t len,
		       int flags);
int proto_recv_from(void *sock, void *id, size_t *id_len, json_t **msg, int flags,
		    struct err *why);
/* Who sent a message, as the connection's ZAP handler said (docs/security.md): its user
 * id (bpflabd's: the certificate's file name, on the agents socket the host its key
 * speaks for) and its "Role" property; "" when there is none (plaintext, or a handler
 * that set none). */
struct proto_peer {
	char user[256];
	char role[16];
};
/* proto_recv_from through proto_decode_samples (SAMPLES may be NULL: proto_recv_from),
 * filling *PEER unless NULL (also when the payload is malformed: -EBADMSG). */
int proto_recv_from_samples(void *sock, void *id, size_t *id_len, json_t **msg,
			    struct samples *samples, struct proto_peer *peer, int flags,
			    struct err *why);
/* proto_recv_from_samples without decoding: the payload into FRAME (initialised here,
 * empty on failure; the caller closes it), for a caller that decodes it elsewhere
 * (bpflabd's worker thread); *PEER as there. */
int proto_recv_frame_from(void *sock, void *id, size_t *id_len, zmq_msg_t *frame,
			  struct proto_peer *peer, int flags, struct err *why);

#endif
