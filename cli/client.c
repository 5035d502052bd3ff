// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* client.c - the CLI's side of the client protocol (docs/protocol.md): one request, one
 * reply, over a ZeroMQ DEALER socket with a deadline; and the same queries answered from a
 * database file with --db, through the store's query functions (host_list with the
 * stored kernel switches, as coordinator/boot.c adds them), so that both paths give the
 * same JSON.
 *
 * A fresh socket per request: a reply that arrives after its deadline is dropped with
 * the socket rather than read as the answer to the next request (run submit --wait polls).
 */
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <zmq.h>

#include "proto/keys.h"
#include "base/log.h"
#include "proto/proto.h"
#include "proto/proto_schema.h"
#include "store/store.h"
#include "base/util.h"

static void *zctx;

/* CURVE keys of this process, loaded on the first request. */
static struct keys_pair client_key;
static char client_server_key[KEYS_Z85_LEN + 1];

/* Load the keys (once), or check that plaintext was asked for (*PLAIN). Returns 0, or
 * an exit status after the error. */
static int client_keys(bool *plain)
{
	struct err why;

	*plain = cli.plaintext;
	if (cli.plaintext)
		return 0;
	if (*client_key.secret_z85)
		return 0;
	if (!cli.key_file || !cli.server_key)
		return cli_error("no CURVE key for the coordinator at '%s': give --key and "
				 "--server-key (or BPFLAB_KEY and BPFLAB_SERVER_KEY), or "
				 "--plaintext", cli.coordinator);
	if (keys_load(cli.key_file, true, &client_key, &why) ||
	    keys_parse_public(cli.server_key, client_server_key, &why))
		return cli_error("%s", why.msg);
	return 0;
}

void cli_client_close(void)
{
	if (zctx) {
		zmq_ctx_term(zctx);
		zctx = NULL;
	}
}

int cli_request(const json_t *req, const char *want_type, json_t **reply)
{
	const char *ep = cli.coordinator, *type;
	int64_t deadline = util_mono_ms() + (int64_t)cli.timeout_s * 1000;
	int linger = 0, sndtimeo = cli.timeout_s * 1000, rc, ret = CLI_EXIT_FAIL;
	bool plain;
	int64_t maxsize = PROTO_MAX_CLIENT_BYTES;
	json_t *msg = NULL;
	void *sock = NULL;
	struct err why;

	*reply = NULL;
	rc = client_keys(&plain);
	if (rc)
		return rc;
	if (!zctx)
		zctx = zmq_ctx_new();
	if (!zctx)
		return cli_error("cannot create a ZeroMQ context: %s", zmq_strerror(zmq_errno()));
	sock = zmq_socket(zctx, ZMQ_DEALER);
	if (!sock) {
		ret = cli_error("cannot create a ZeroMQ socket: %s", zmq_strerror(zmq_errno()));
		goto out;
	}
	zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof(linger));
	zmq_setsockopt(sock, ZMQ_SNDTIMEO, &sndtimeo, sizeof(sndtimeo));
	zmq_setsockopt(sock, ZMQ_MAXMSGSIZE, &maxsize, sizeof(maxsize));
	if (!plain && keys_set_client(sock, &client_key, client_server_key)) {
		ret = cli_error("cannot set the CURVE keys: %s", zmq_strerror(zmq_errno()));
		goto out;
	}
	if (zmq_connect(sock, ep)) {
		ret = cli_error("cannot connect to coordinator at '%s': %s", ep,
				zmq_strerror(zmq_errno()));
		goto out;
	}
	pr_debug("request '%s' to '%s'", proto_msg_type(req), ep);
	rc = proto_send(sock, req, 0);
	if (rc && rc != -EAGAIN) {
		ret = cli_error("cannot send to coordinator at '%s': %s", ep, zmq_strerror(-rc));
		goto out;
	}
	while (!rc) {
		zmq_pollitem_t item = { .socket = sock, .events = ZMQ_POLLIN };
		int64_t left = deadline - util_mono_ms();

		if (left <= 0)
			break;
		rc = zmq_poll(&item, 1, (long)left);
		if (rc < 0) {
			ret = cli_error("cannot wait for coordinator at '%s': %s", ep,
					zmq_strerror(zmq_errno()));
			goto out;
		}
		rc = rc > 0 ? 1 : 0;
	}
	if (rc != 1) {
		/* the send timed out (no pipe) or the reply did not come */
		ret = cli_error("no reply from coordinator at '%s' after %d s "
				"(is bpflabd running%s?)", ep, cli.timeout_s,
				plain ? "" : ", and is this key in its allow list");
		goto out;
	}
	rc = proto_recv(sock, &msg, 0, &why);
	if (rc == -EBADMSG) {
		ret = cli_error("malformed reply from coordinator at '%s': %s", ep, why.msg);
		goto out;
	}
	if (rc) {
		ret = cli_error("cannot receive from coordinator at '%s': %s", ep,
				zmq_strerror(-rc));
		goto out;
	}
	type = proto_msg_type(msg);
	if (proto_validate(msg, PROTO_CH_COORD_TO_CLIENT, &why) == -EINVAL) {
		ret = cli_error("malformed reply from coordinator at '%s': %s", ep, why.msg);
		goto out;
	}
	if (!strcmp(type, "error")) {
		ret = cli_error("%s", jget_str(msg, "message", "coordinator refused the "
						    "request without a reason"));
		if (json_is_true(json_object_get(msg, "invalid")))
			ret = CLI_EXIT_USAGE;	/* an invalid plan, as one refused locally */
		goto out;
	}
	if (strcmp(type, want_type)) {
		ret = cli_error("unexpected reply '%s' from coordinator at '%s' (expected '%s')",
				type, ep, want_type);
		goto out;
	}
	*reply = msg;
	msg = NULL;
	ret = 0;
out:
	json_decref(msg);
	if (sock)
		zmq_close(sock);
	return ret;
}

/* The query types, their reply types and the member that holds the answer. */
static const struct {
	const char *type, *reply, *member;
	bool run;
} queries[] = {
	{ "host_list", "hosts", "hosts", false },
	{ "run_list", "runs", "runs", false },
	{ "run_show", "run", "run", true },
	{ "result_show", "result", "result", true },
	{ "result_seconds", "seconds", "seconds", true },
};

static int query_db(const char *type, long long run, json_t **out)
{
	struct store *store;
	struct err err;
	int ret = 0, rc;

	store = store_open(cli.db, true, &err);
	if (!store && *err.msg && strstr(err.msg, cli.db))
		return cli_error("%s", err.msg);
	if (!store)
		return cli_error("cannot open database '%s': %s", cli.db,
				 *err.msg ? err.msg : strerror(errno));
	if (!strcmp(type, "host_list"))
		*out = store_query_hosts(store);
	else if (!strcmp(type, "run_list"))
		*out = store_query_runs(store);
	else if (!strcmp(type, "run_show"))
		*out = store_query_run(store, run);
	else if (!strcmp(type, "result_seconds"))
		*out = store_query_seconds(store, run, 0);
	else
		*out = store_query_result(store, run);
	if (!*out && errno == ENOENT)
		ret = cli_error("unknown run %lld", run);
	else if (!*out)
		ret = cli_error("cannot query database '%s': %s", cli.db, store_err(store)->msg);
	else if (!strcmp(type, "host_list") && (rc = store_boot_attach(store, *out)))
		ret = cli_error("cannot query database '%s': %s", cli.db,
				rc == -EIO ? store_err(store)->msg : "out of memory");
	if (ret) {
		json_decref(*out);
		*out = NULL;
	}
	store_close(&store);
	return ret;
}

int cli_request_array(const json_t *req, const char *want_type, const char *member,
		      json_t **out, json_t **reply)
{
	json_t *r = NULL, *v;
	int ret;

	*out = NULL;
	if (reply)
		*reply = NULL;
	ret = cli_request(req, want_type, &r);
	if (ret)
		return ret;
	v = json_object_get(r, member);
	if (!json_is_array(v)) {
		json_decref(r);
		return cli_error("malformed '%s' reply from coordinator at '%s': no '%s' array",
				 want_type, cli.coordinator, member);
	}
	*out = json_incref(v);
	if (reply)
		*reply = r;
	else
		json_decref(r);
	return 0;
}

int cli_query(const char *type, long long run, json_t **out)
{
	json_t *req = NULL, *reply = NULL, *v;
	size_t i;
	int ret;

	*out = NULL;
	for (i = 0; i < ARRAY_SIZE(queries); i++)
		if (!strcmp(queries[i].type, type))
			break;
	if (i == ARRAY_SIZE(queries))
		return cli_error("unknown query '%s'", type);
	if (cli.db)
		return query_db(type, run, out);
	req = proto_msg_new(type);
	if (!req || (queries[i].run && json_object_set_new(req, "run", json_integer(run)))) {
		ret = cli_error("out of memory");
		goto out;
	}
	ret = cli_request(req, queries[i].reply, &reply);
	if (ret)
		goto out;
	v = json_object_get(reply, queries[i].member);
	if (queries[i].run ? !json_is_object(v) : !json_is_array(v)) {
		ret = cli_error("malformed '%s' reply from coordinator at '%s': no '%s'",
				queries[i].reply, cli.coordinator, queries[i].member);
		goto out;
	}
	*out = json_incref(v);
out:
	json_decref(req);
	json_decref(reply);
	return ret;
}
