// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* zap.c - CURVE in the coordinator (docs/security.md): the allow list loaded and the
 * ZAP handler (ZeroMQ RFC 27) bound at start, each handshake's key answered from the
 * allow list, refusals logged at most once a minute a key, and the list reloaded on
 * request (SIGHUP).
 *
 * Roles: the request's domain names the socket (KEYS_ZAP_AGENTS, KEYS_ZAP_CLIENTS). Only
 * agent keys are let in on the agents' one, so a client key never gets a pipe there (nor
 * takes over an agent's routing id). Every key let in has its role attached to the
 * connection as the property "Role" (ZAP metadata, which libzmq puts before anything the
 * peer sends), which coord_recv checks on each message (core.c). On the agents socket
 * the connection's user id is the host the key speaks for (authorized/h1.key: "h1"), to
 * which coord_agent_recv holds every message (agents.c); an agent key whose file names no
 * host is refused there. On the clients socket it is the certificate's file name.
 *
 * Event loop thread only, but coord_request_reload, which only sets a flag.
 */
#include "coord_zap.h"
#include "coord_core.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "proto/keys.h"
#include "base/log.h"
#include "base/util.h"

/* Whether to log a refusal of KEY now: at most once a minute per key, since a refused
 * peer reconnects every few hundred milliseconds. Writes KEY's first characters into Z85. */
static bool refusal_due(struct coord *c, const uint8_t key[32], char z85[KEYS_Z85_LEN + 1])
{
	int64_t now = util_mono_ms();
	struct coord_refusal *r, *oldest = &c->refusals[0];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c->refusals); i++) {
		r = &c->refusals[i];
		if (r->logged_mono && !memcmp(r->key, key, 32)) {
			if (now - r->logged_mono < 60000)
				return false;
			oldest = r;
			break;
		}
		if (r->logged_mono < oldest->logged_mono)
			oldest = r;
	}
	memcpy(oldest->key, key, 32);
	oldest->logged_mono = now;
	zmq_z85_encode(z85, key, 32);
	return true;
}

/* Log a refused KEY from ADDRESS (refusal_due): not in the allow list (NAME NULL), of
 * ROLE on the agents socket, or an agent key that names no host. */
static void log_refusal(struct coord *c, const uint8_t key[32], const char *address,
			const char *name, enum keys_role role)
{
	char z85[KEYS_Z85_LEN + 1];

	if (!refusal_due(c, key, z85))
		return;
	if (*address == 0)
		address = "an unknown address";
	if (!name)
		pr_warn("refused a connection from %s: key '%.8s...' is not in the allow list "
			"'%s'", address, z85, c->authorized);
	else if (role == KEYS_ROLE_AGENT)
		pr_warn("refused a connection from %s to the agents socket: agent key '%.8s...' "
			"('%s') names no host; name its file in '%s' HOST.key after its agent "
			"(docs/deploy.md, \"Keys\")", address, z85, name, c->authorized);
	else
		pr_warn("refused a connection from %s to the agents socket: key '%.8s...' ('%s') "
			"has the role %s; only agent keys may register as agents", address, z85,
			name, keys_role_name(role));
}

/* The ZAP reply's metadata (ZMTP property format: name length, name, 4-byte big-endian
 * value length, value): "Role" = ROLE. Returns its length in OUT. */
static size_t role_metadata(enum keys_role role, unsigned char out[32])
{
	const char *v = keys_role_name(role);
	size_t len = strlen(v);

	out[0] = 4;
	memcpy(out + 1, "Role", 4);
	out[5] = out[6] = out[7] = 0;
	out[8] = (unsigned char)len;
	memcpy(out + 9, v, len);
	return 9 + len;
}

void coord_zap_handle(struct coord *c)
{
	enum { F_VERSION, F_REQID, F_DOMAIN, F_ADDRESS, F_IDENTITY, F_MECH, F_CRED, F_N };
	zmq_msg_t f[F_N + 1];
	char address[64] = "", mech[16] = "", domain[32] = "";
	const char *status = "400", *text = "not allowed", *user = "", *host;
	unsigned char meta[32];
	size_t n = 0, i, sz, meta_len = 0;
	int more = 1;

	while (more && n <= F_N) {
		zmq_msg_init(&f[n]);
		if (zmq_msg_recv(&f[n], c->zap_sock, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&f[n]);
			goto out;
		}
		more = zmq_msg_more(&f[n]);
		n++;
	}
	if (more) {			/* more frames than a CURVE request has */
		zmq_msg_t m;

		while (more) {
			zmq_msg_init(&m);
			zmq_msg_recv(&m, c->zap_sock, 0);
			more = zmq_msg_more(&m);
			zmq_msg_close(&m);
		}
	}
	if (n < F_MECH)
		goto out;		/* cannot even answer: no request id */
	sz = zmq_msg_size(&f[F_ADDRESS]);
	memcpy(address, zmq_msg_data(&f[F_ADDRESS]), sz < sizeof(address) - 1 ? sz :
	       sizeof(address) - 1);
	sz = zmq_msg_size(&f[F_DOMAIN]);
	memcpy(domain, zmq_msg_data(&f[F_DOMAIN]), sz < sizeof(domain) - 1 ? sz :
	       sizeof(domain) - 1);
	sz = zmq_msg_size(&f[F_MECH]);
	memcpy(mech, zmq_msg_data(&f[F_MECH]), sz < sizeof(mech) - 1 ? sz : sizeof(mech) - 1);
	if (n == F_N && !strcmp(mech, "CURVE") && zmq_msg_size(&f[F_CRED]) == 32) {
		const uint8_t *key = zmq_msg_data(&f[F_CRED]);
		enum keys_role role = keys_allow_role(c->allow, key);
		bool agents = !strcmp(domain, KEYS_ZAP_AGENTS);

		/* user id: the certificate's file name; on the agents socket the host the
		 * key speaks for, which every agent message is held to (agents.c) */
		user = keys_allow_name(c->allow, key);
		host = keys_allow_host(c->allow, key);
		if (user && (agents ? role == KEYS_ROLE_AGENT && host :
				      !strcmp(domain, KEYS_ZAP_CLIENTS))) {
			if (agents)
				user = host;
			status = "200";
			text = "OK";
			meta_len = role_metadata(role, meta);
			c->stats.auth_allowed++;
			pr_debug("allowed a connection from %s with key '%s' (%s)", address, user,
				 keys_role_name(role));
		} else {
			c->stats.auth_refused++;
			if (user && agents)
				coord_count_role_refused(c);
			log_refusal(c, key, address, agents ? user : NULL, role);
			user = "";
		}
	} else {
		c->stats.auth_refused++;
		pr_warn("refused a connection from %s: mechanism '%s' instead of CURVE",
			*address ? address : "an unknown address", mech);
	}
	/* reply: version, request id, status code, status text, user id, metadata */
	zmq_send(c->zap_sock, "1.0", 3, ZMQ_SNDMORE);
	zmq_send(c->zap_sock, zmq_msg_data(&f[F_REQID]), zmq_msg_size(&f[F_REQID]), ZMQ_SNDMORE);
	zmq_send(c->zap_sock, status, 3, ZMQ_SNDMORE);
	zmq_send(c->zap_sock, text, strlen(text), ZMQ_SNDMORE);
	zmq_send(c->zap_sock, user, strlen(user), ZMQ_SNDMORE);
	zmq_send(c->zap_sock, meta, meta_len, 0);
out:
	for (i = 0; i < n; i++)
		zmq_msg_close(&f[i]);
}

void coord_reload_keys(struct coord *c)
{
	struct keys_allow *allow;
	struct err why;

	c->reload = 0;
	if (!c->curve) {
		pr_info("reload: plaintext coordinator, no allow list");
		return;
	}
	allow = keys_allow_load(c->authorized, &why);
	if (!allow) {
		pr_warn("%s; keeping the %zu allowed key%s", why.msg, keys_allow_count(c->allow),
			keys_allow_count(c->allow) == 1 ? "" : "s");
		return;
	}
	keys_allow_destroy(&c->allow);
	c->allow = allow;
	pr_info("allow list '%s' reloaded: %zu key%s allowed", c->authorized,
		keys_allow_count(allow), keys_allow_count(allow) == 1 ? "" : "s");
}

int coord_zap_server(struct coord *c, void *sock, const char *domain)
{
	return c->curve ? keys_set_server(sock, &c->key, domain) : 0;
}

void coord_zap_release(struct coord *c)
{
	if (c->zap_sock)
		zmq_close(c->zap_sock);
	c->zap_sock = NULL;
	keys_allow_destroy(&c->allow);
	free(c->authorized);
	c->authorized = NULL;
	memset(&c->key, 0, sizeof(c->key));
}

void coord_request_reload(struct coord *c)
{
	c->reload = 1;
}

int coord_zap_init(struct coord *c, const struct coord_opts *opts)
{
	int64_t max = 4096;
	struct err why;
	int zero = 0;

	if (!opts->key) {		/* endpoints checked by coord_new */
		pr_info("plaintext: no CURVE, every local peer is accepted");
		return 0;
	}
	if (!keys_have_curve()) {
		pr_warn("this libzmq has no CURVE support");
		errno = ENOTSUP;
		return -1;
	}
	if (!opts->authorized || !*opts->key->secret_z85) {
		pr_warn("CURVE needs the coordinator's secret key and an --authorized folder");
		errno = EINVAL;
		return -1;
	}
	c->curve = true;
	c->key = *opts->key;
	c->authorized = strdup(opts->authorized);
	if (!c->authorized)
		return -1;
	c->allow = keys_allow_load(opts->authorized, &why);
	if (!c->allow) {
		pr_warn("%s", why.msg);
		return -1;
	}
	c->zap_sock = zmq_socket(c->ctx, ZMQ_REP);
	if (!c->zap_sock || zmq_setsockopt(c->zap_sock, ZMQ_LINGER, &zero, sizeof(zero)) ||
	    zmq_setsockopt(c->zap_sock, ZMQ_MAXMSGSIZE, &max, sizeof(max)) ||
	    zmq_bind(c->zap_sock, "inproc://zeromq.zap.01")) {
		pr_warn("cannot start the ZAP handler: %s", zmq_strerror(zmq_errno()));
		errno = zmq_errno();
		return -1;
	}
	pr_info("CURVE on, public key %s; allow list '%s': %zu key%s allowed",
		c->key.public_z85, c->authorized, keys_allow_count(c->allow),
		keys_allow_count(c->allow) == 1 ? "" : "s");
	return 0;
}
