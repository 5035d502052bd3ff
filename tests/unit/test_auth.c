// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_auth.c - CURVE keys and the coordinator's allow list (lib/proto/keys.c, the ZAP handler
 * in coordinator/zap.c), and the roles that keys cannot cross (an agent key's requests
 * refused, a client key kept off the agents socket, an agent key held to its own host:
 * docs/security.md, "Roles"), over real
 * ZeroMQ ipc:// sockets in a temporary folder.
 *
 * The coordinator runs in-process and the test drives its loop (coord_run_once) while it
 * waits for replies; agents run agent_run() in a thread of their own.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <cmocka.h>

#include "agent.h"
#include "coord.h"
#include "proto/keys.h"
#include "base/log.h"
#include "proto/proto.h"
#include "base/util.h"
#include "helpers.h"

struct tctx {
	struct coord_fix fx;
	char auth[96], log[96];
	struct keys_pair coord_key, good, bad, agent;	/* good, bad: clients' */
	void *socks[3];		/* a test's sockets, closed by teardown also when it fails */
};

static struct coord *volatile hup_coord;

static void on_hup(int sig)
{
	if (hup_coord)
		coord_request_reload(hup_coord);
}

static int setup(void **state)
{
	struct tctx *t = calloc(1, sizeof(*t));
	struct err why;

	assert_non_null(t);
	coord_fix_init(&t->fx, "auth");
	snprintf(t->auth, sizeof(t->auth), "%s/authorized", t->fx.dir);
	snprintf(t->log, sizeof(t->log), "%s/bpflabd.log", t->fx.dir);
	assert_int_equal(mkdir(t->auth, 0755), 0);
	assert_int_equal(keys_generate(&t->coord_key), 0);
	assert_int_equal(keys_generate(&t->good), 0);
	assert_int_equal(keys_generate(&t->bad), 0);
	assert_int_equal(keys_generate(&t->agent), 0);
	t->good.role = t->bad.role = KEYS_ROLE_CLIENT;
	t->agent.role = KEYS_ROLE_AGENT;
	/* the good key and the agent's are allowed; the bad one's certificate waits beside
	 * the folder */
	assert_int_equal(keys_save(t->auth, "good", &t->good, false, &why), 0);
	assert_int_equal(unlink(strcat(strcpy(why.msg, t->auth), "/good.key_secret")), 0);
	assert_int_equal(keys_save(t->auth, "h1", &t->agent, false, &why), 0);
	assert_int_equal(unlink(strcat(strcpy(why.msg, t->auth), "/h1.key_secret")), 0);
	assert_int_equal(keys_save(t->fx.dir, "bad", &t->bad, false, &why), 0);
	log_init("test_auth", LOG_INFO);
	assert_int_equal(log_set_file(t->log), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tctx *t = *state;

	hup_coord = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(t->socks); i++)
		if (t->socks[i])
			zmq_close(t->socks[i]);
	coord_fix_release(&t->fx);
	free(t);
	return 0;
}

static void start_coord(struct tctx *t)
{
	coord_fix_start(&t->fx, &COORD_OPTS(.key = &t->coord_key, .authorized = t->auth,
					    .tick_ms = 50));
}

/* A DEALER to ENDPOINT with key pair KP (NULL: plaintext). */
static void *dealer(struct tctx *t, const char *endpoint, const struct keys_pair *kp)
{
	void *s = zmq_socket(t->fx.ctx, ZMQ_DEALER);
	int zero = 0;

	assert_non_null(s);
	zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
	if (kp)
		assert_int_equal(keys_set_client(s, kp, t->coord_key.public_z85), 0);
	assert_int_equal(zmq_connect(s, endpoint), 0);
	return s;
}

/* Drive the coordinator until a reply comes on S or MS pass. Returns the reply (new
 * reference) or NULL. */
static json_t *await_reply(struct tctx *t, void *s, int ms)
{
	int64_t end = util_mono_ms() + ms;
	json_t *r = NULL;
	struct err why;

	while (!r && util_mono_ms() < end) {
		zmq_pollitem_t it = { .socket = s, .events = ZMQ_POLLIN };

		assert_int_equal(coord_run_once(t->fx.c, 20), 0);
		if (zmq_poll(&it, 1, 0) == 1)
			assert_int_equal(proto_recv(s, &r, 0, &why), 0);
	}
	return r;
}

/* Send REQ (taken) on S and await_reply. */
static json_t *ask(struct tctx *t, void *s, json_t *req, int ms)
{
	assert_non_null(req);
	assert_int_equal(proto_send(s, req, ZMQ_DONTWAIT) == 0 ||
			 proto_send(s, req, ZMQ_DONTWAIT) == -EAGAIN, 1);
	json_decref(req);
	return await_reply(t, s, ms);
}

/* A host_list on S (ask). */
static json_t *ask_hosts(struct tctx *t, void *s, int ms)
{
	return ask(t, s, proto_msg_new("host_list"), ms);
}

static bool log_has(struct tctx *t, const char *needle)
{
	return file_count(t->log, needle) > 0;
}

static void test_auth_keygen_files(void **state)
{
	struct tctx *t = *state;
	struct keys_pair kp, back;
	struct err why;
	char path[160], cmd[512], out[128] = "";
	struct stat st;
	FILE *p;

	assert_true(keys_have_curve());
	assert_int_equal(keys_generate(&kp), 0);
	assert_int_equal(strlen(kp.public_z85), KEYS_Z85_LEN);
	assert_int_equal(keys_save(t->fx.dir, "k", &kp, false, &why), 0);
	snprintf(path, sizeof(path), "%s/k.key", t->fx.dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* the public certificate has no secret and does not do for --key */
	assert_int_equal(keys_load(path, true, &back, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "no secret-key"));
	assert_int_equal(keys_load(path, false, &back, &why), 0);
	assert_string_equal(back.public_z85, kp.public_z85);
	assert_string_equal(back.secret_z85, "");
	snprintf(path, sizeof(path), "%s/k.key_secret", t->fx.dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(keys_load(path, true, &back, &why), 0);
	assert_string_equal(back.public_z85, kp.public_z85);
	assert_string_equal(back.secret_z85, kp.secret_z85);

	/* never overwritten without force; with force, replaced */
	assert_int_equal(keys_generate(&back), 0);
	assert_int_equal(keys_save(t->fx.dir, "k", &back, false, &why), -EEXIST);
	assert_non_null(strstr(why.msg, "--force"));
	assert_int_equal(keys_load(path, true, &kp, &why), 0);
	assert_string_not_equal(kp.public_z85, back.public_z85);
	assert_int_equal(keys_save(t->fx.dir, "k", &back, true, &why), 0);
	assert_int_equal(keys_load(path, true, &kp, &why), 0);
	assert_string_equal(kp.public_z85, back.public_z85);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(keys_save(t->fx.dir, "../x", &back, false, &why), -EINVAL);

	/* a server key as Z85 or as a file; a tampered file is refused */
	assert_int_equal(keys_parse_public(kp.public_z85, back.public_z85, &why), 0);
	assert_string_equal(back.public_z85, kp.public_z85);
	assert_int_equal(keys_parse_public("short", back.public_z85, &why), -ENOENT);
	{
		/* another pair's secret under this public key */
		char *text;
		size_t len;

		assert_int_equal(util_read_file(path, 4096, &text, &len), 0);
		memcpy(strstr(text, kp.secret_z85), t->bad.secret_z85, KEYS_Z85_LEN);
		assert_int_equal(util_write_file_atomic(path, text, len), 0);
		free(text);
	}
	assert_int_equal(keys_load(path, true, &back, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "does not belong"));

	/* the CLI prints the public key that it wrote */
	snprintf(cmd, sizeof(cmd),
		 "%s/bin/bpflab keygen --role client --out %s --name cli 2>/dev/null",
		 BPFLAB_BUILDDIR, t->fx.dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	assert_int_equal(pclose(p), 0);
	out[strcspn(out, "\n")] = '\0';
	snprintf(path, sizeof(path), "%s/cli.key", t->fx.dir);
	assert_int_equal(keys_load(path, false, &back, &why), 0);
	assert_string_equal(out, back.public_z85);
	/* a second run refuses: exit status 1 */
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_not_equal(pclose(p), 0);
}

static void test_auth_endpoint_local(void **state)
{
	assert_true(keys_endpoint_is_local("ipc:///tmp/x.sock"));
	assert_true(keys_endpoint_is_local("inproc://x"));
	assert_true(keys_endpoint_is_local("tcp://127.0.0.1:5555"));
	assert_true(keys_endpoint_is_local("tcp://127.1.2.3:*"));
	assert_true(keys_endpoint_is_local("tcp://localhost:5555"));
	assert_true(keys_endpoint_is_local("tcp://[::1]:5555"));
	assert_false(keys_endpoint_is_local("tcp://198.18.0.1:5555"));
	assert_false(keys_endpoint_is_local("tcp://*:5555"));
	assert_false(keys_endpoint_is_local("tcp://127.0.0.1.evil:5555"));
	assert_false(keys_endpoint_is_local("tcp://0.0.0.0:5555"));
	assert_false(keys_endpoint_is_local("pgm://eth0;239.1.1.1:5555"));
}

static void test_auth_plaintext_refused(void **state)
{
	struct tctx *t = *state;
	struct coord *c;

	/* plaintext on an address others can reach: refused before anything binds */
	c = coord_new(&COORD_OPTS(.agents = "tcp://198.18.0.1:5555", .clients = t->fx.clients_ep,
				  .db = t->fx.db));
	assert_null(c);
	assert_int_equal(errno, EPERM);
	assert_true(log_has(t, "refusing plaintext on 'tcp://198.18.0.1:5555'"));
	/* CURVE without an allow list: refused */
	c = coord_new(&COORD_OPTS(.agents = t->fx.agents_ep, .clients = t->fx.clients_ep,
				  .db = t->fx.db, .key = &t->coord_key));
	assert_null(c);
	assert_int_equal(errno, EINVAL);
}

static void test_auth_client_allowed_refused_reload(void **state)
{
	struct tctx *t = *state;
	struct coord_stats st;
	struct sigaction sa = { .sa_handler = on_hup };
	void *good, *bad, *plain;
	char src[160], dst[160];
	json_t *r;

	start_coord(t);
	good = dealer(t, t->fx.clients_ep, &t->good);
	r = ask_hosts(t, good, 5000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "hosts");
	json_decref(r);

	/* a key that is not allowed gets nothing, and the refusal is logged once */
	bad = dealer(t, t->fx.clients_ep, &t->bad);
	r = ask_hosts(t, bad, 1500);
	assert_null(r);
	coord_get_stats(t->fx.c, &st);
	assert_true(st.auth_refused >= 1);
	assert_true(st.auth_allowed >= 1);
	{
		char needle[64];

		snprintf(needle, sizeof(needle), "key '%.8s...' is not in the allow list",
			 t->bad.public_z85);
		assert_true(log_has(t, needle));
	}
	/* nor does a plaintext client */
	plain = dealer(t, t->fx.clients_ep, NULL);
	r = ask_hosts(t, plain, 1000);
	assert_null(r);
	zmq_close(plain);
	zmq_close(bad);

	/* SIGHUP after the certificate is added: the same key is let in */
	snprintf(src, sizeof(src), "%s/bad.key", t->fx.dir);
	snprintf(dst, sizeof(dst), "%s/bad.key", t->auth);
	assert_int_equal(link(src, dst), 0);
	hup_coord = t->fx.c;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGHUP, &sa, NULL), 0);
	assert_int_equal(raise(SIGHUP), 0);
	bad = dealer(t, t->fx.clients_ep, &t->bad);
	r = ask_hosts(t, bad, 5000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "hosts");
	json_decref(r);
	assert_true(log_has(t, "reloaded: 3 keys allowed"));
	signal(SIGHUP, SIG_DFL);
	zmq_close(bad);
	zmq_close(good);
}

struct agent_run {
	struct agent *agent;
	pthread_t thread;
	int stop_fd, rc;
};

static void *agent_thread(void *arg)
{
	struct agent_run *ar = arg;

	ar->rc = agent_run(ar->agent);
	return NULL;
}

static void agent_start(struct tctx *t, struct agent_run *ar, const char *name,
			const struct keys_pair *kp, const struct inventory_config *inv)
{
	struct agent_opts o = { 0 };

	ar->stop_fd = eventfd(0, EFD_CLOEXEC);
	o.endpoint = t->fx.agents_ep;
	o.inv = inv;
	o.stop_fd = ar->stop_fd;
	o.key = kp;
	o.server_key = t->coord_key.public_z85;
	ar->agent = agent_new(&o);
	assert_non_null(ar->agent);
	assert_int_equal(pthread_create(&ar->thread, NULL, agent_thread, ar), 0);
}

static void agent_stop(struct agent_run *ar)
{
	uint64_t one = 1;

	assert_int_equal(write(ar->stop_fd, &one, sizeof(one)), sizeof(one));
	pthread_join(ar->thread, NULL);
	agent_destroy(&ar->agent);
	close(ar->stop_fd);
}

static size_t host_count(struct tctx *t, void *client)
{
	json_t *r = ask_hosts(t, client, 3000);
	size_t n;

	assert_non_null(r);
	n = json_array_size(json_object_get(r, "hosts"));
	json_decref(r);
	return n;
}

/* An agent NAME with key KP runs for 2 s and is never registered (CLIENT asks). */
static void agent_kept_out(struct tctx *t, void *client, const char *name,
			   const struct keys_pair *kp)
{
	struct inventory_config inv = { .agent = name };
	struct agent_run ar;
	int64_t end;

	agent_start(t, &ar, name, kp, &inv);
	end = util_mono_ms() + 2000;
	while (util_mono_ms() < end)
		assert_int_equal(coord_run_once(t->fx.c, 20), 0);
	assert_int_equal(host_count(t, client), 0);
	agent_stop(&ar);
}

static void test_auth_agent_refused(void **state)
{
	struct tctx *t = *state;
	struct inventory_config good_inv = { .agent = "h1" };
	struct agent_run good_agent;
	struct coord_stats st;
	char needle[160];
	int64_t end;
	void *client;
	size_t n = 0;

	start_coord(t);
	client = dealer(t, t->fx.clients_ep, &t->good);
	agent_kept_out(t, client, "intruder", &t->bad);

	/* an allowed client key cannot register as an agent: refused at the handshake on
	 * the agents socket, and logged (bpflab-agent itself refuses such a key; this is
	 * an agent that does not) */
	agent_kept_out(t, client, "h1", &t->good);
	coord_get_stats(t->fx.c, &st);
	assert_true(st.role_refused >= 1);
	snprintf(needle, sizeof(needle), "to the agents socket: key '%.8s...' ('good.key') has "
		 "the role client; only agent keys may register as agents", t->good.public_z85);
	assert_true(log_has(t, needle));

	/* the same agent code with the agent's key registers */
	agent_start(t, &good_agent, "h1", &t->agent, &good_inv);
	end = util_mono_ms() + 5000;
	while (util_mono_ms() < end && (n = host_count(t, client)) == 0)
		;
	assert_int_equal(n, 1);
	agent_stop(&good_agent);
	zmq_close(client);
}

/* A hello for HOST on S (an agent's DEALER) and the coordinator's answer (await_reply). */
static json_t *say_hello(struct tctx *t, void *s, const char *host, int ms)
{
	json_t *hello = proto_msg_new("hello");

	assert_non_null(hello);
	json_object_set_new(hello, "agent", json_string(host));
	json_object_set_new(hello, "version", json_string("0.1.0"));
	json_object_set_new(hello, "inventory", json_object());
	return ask(t, s, hello, ms);
}

/* The key of host h1 (authorized/h1.key) says hello as h2: refused with an error naming
 * both, logged, counted, nothing stored; its own hello works. An agent key whose file is
 * not HOST.key names no host: warned at load, refused at the handshake. */
static void test_auth_agent_host_bound(void **state)
{
	struct tctx *t = *state;
	struct keys_pair old;
	struct coord_stats st;
	char path[160], needle[200];
	void **client = &t->socks[0], **agent = &t->socks[1], **unnamed = &t->socks[2];
	struct err why;
	json_t *r;

	assert_int_equal(keys_generate(&old), 0);
	old.role = KEYS_ROLE_AGENT;
	assert_int_equal(keys_save(t->fx.dir, "old", &old, false, &why), 0);
	snprintf(path, sizeof(path), "%s/old.key", t->fx.dir);
	snprintf(needle, sizeof(needle), "%s/old", t->auth);
	assert_int_equal(link(path, needle), 0);
	start_coord(t);
	assert_true(log_has(t, "agent key 'old' names no host (its file is not HOST.key)"));
	*client = dealer(t, t->fx.clients_ep, &t->good);
	*agent = dealer(t, t->fx.agents_ep, &t->agent);

	r = say_hello(t, *agent, "h2", 5000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "error");
	assert_string_equal(jget_str(r, "in_reply_to", ""), "hello");
	assert_contains(jget_str(r, "message", ""), "refused: this connection's key belongs to "
			"host 'h1', and it may not speak for host 'h2'");
	json_decref(r);
	assert_true(log_has(t, "refused an agent message 'hello' for host 'h2' from the key of "
			    "host 'h1': an agent key speaks only for its own host"));
	coord_get_stats(t->fx.c, &st);
	assert_int_equal(st.role_refused, 1);
	assert_int_equal(host_count(t, *client), 0);

	r = say_hello(t, *agent, "h1", 5000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "welcome");
	json_decref(r);
	assert_int_equal(host_count(t, *client), 1);

	/* the key without a host never gets a connection: no answer to its hello */
	*unnamed = dealer(t, t->fx.agents_ep, &old);
	assert_null(say_hello(t, *unnamed, "old", 1500));
	snprintf(needle, sizeof(needle), "agent key '%.8s...' ('old') names no host",
		 old.public_z85);
	assert_true(log_has(t, needle));
	assert_int_equal(host_count(t, *client), 1);
}

/* An agent's key (allowed, on the clients socket) sends client requests: each one is
 * refused with an error naming the rule, counted and logged, and nothing is done. */
static void test_auth_agent_key_as_client(void **state)
{
	static const char *const requests[] = {
		"{\"v\":1,\"type\":\"submit\",\"plan\":\"name: x\\n\"}",
		"{\"v\":1,\"type\":\"run_cancel\",\"run\":1}",
		"{\"v\":1,\"type\":\"bisect_start\",\"name\":\"b\"}",
		"{\"v\":1,\"type\":\"import\",\"plan\":\"p\",\"rows\":[]}",
		"{\"v\":1,\"type\":\"host_list\"}",
		"{\"v\":1,\"type\":\"link_discover\"}",
	};
	struct tctx *t = *state;
	struct coord_stats st;
	char want[256];
	void *rogue, *client;
	json_t *r;
	size_t i;

	start_coord(t);
	rogue = dealer(t, t->fx.clients_ep, &t->agent);
	for (i = 0; i < ARRAY_LEN(requests); i++) {
		json_t *req = json_of(requests[i]);
		const char *type = proto_msg_type(req);

		snprintf(want, sizeof(want), "refused: key 'h1.key' has the role agent, and only "
			 "client keys may send '%s'", type);
		r = ask(t, rogue, req, 5000);
		assert_non_null(r);
		assert_string_equal(proto_msg_type(r), "error");
		assert_contains(jget_str(r, "message", ""), want);
		json_decref(r);
		assert_true(log_has(t, "refused a client message"));
	}
	/* a payload that does not even decode: refused for the key all the same */
	assert_int_equal(zmq_send(rogue, "not json", 8, 0), 8);
	r = await_reply(t, rogue, 5000);
	assert_non_null(r);
	assert_contains(jget_str(r, "message", ""), "has the role agent");
	json_decref(r);
	coord_get_stats(t->fx.c, &st);
	assert_int_equal(st.role_refused, ARRAY_LEN(requests) + 1);
	assert_int_equal(st.runs_submitted, 0);
	assert_int_equal(st.bad_messages, 0);
	assert_true(log_has(t, "refused a client message 'submit' from key 'h1.key' (role "
			    "agent): only client keys may send to the clients socket"));
	assert_true(log_has(t, "refused a client message 'run_cancel' from key 'h1.key'"));
	assert_true(log_has(t, "refused a client message 'bisect_start' from key 'h1.key'"));

	/* a client key still gets its answers */
	client = dealer(t, t->fx.clients_ep, &t->good);
	r = ask_hosts(t, client, 5000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "hosts");
	json_decref(r);
	zmq_close(client);
	zmq_close(rogue);
}

/* A malformed message from an allowed peer is answered with an error and counted. */
static void test_auth_malformed_counted(void **state)
{
	struct tctx *t = *state;
	struct coord_stats st;
	json_t *req, *r;
	void *client;

	start_coord(t);
	client = dealer(t, t->fx.clients_ep, &t->good);
	req = json_pack("{s:i, s:s, s:s}", "v", 1, "type", "run_show", "run", "seven");
	r = ask(t, client, req, 5000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "'run' must be an integer"));
	json_decref(r);
	coord_get_stats(t->fx.c, &st);
	assert_int_equal(st.bad_messages, 1);
	/* and the coordinator still answers */
	r = ask_hosts(t, client, 3000);
	assert_non_null(r);
	json_decref(r);
	zmq_close(client);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_auth_keygen_files, setup, teardown),
		cmocka_unit_test(test_auth_endpoint_local),
		cmocka_unit_test_setup_teardown(test_auth_plaintext_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth_client_allowed_refused_reload, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_auth_agent_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth_agent_key_as_client, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth_agent_host_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth_malformed_counted, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
