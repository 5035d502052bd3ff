// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_keys.c - the roles of CURVE keys (lib/proto/keys.c, docs/security.md "Roles"):
 * the `role` line of a certificate parsed and refused, written by keys_save and by
 * `bpflab keygen --role`, given to old certificates by keys_set_role and `keygen
 * --set-role`, and the allow list that refuses keys without an agent or client role.
 * Real files in a temporary folder; the CLI is the built binary.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zmq.h>

#include <cmocka.h>

#include "proto/keys.h"
#include "base/log.h"
#include "helpers.h"

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"

struct kctx {
	char dir[64];
	struct keys_pair kp;
};

static int setup(void **state)
{
	struct kctx *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	snprintf(t->dir, sizeof(t->dir), "/tmp/bpflab-keys-XXXXXX");
	tmpdir_make(t->dir);
	assert_int_equal(keys_generate(&t->kp), 0);
	log_init("test_keys", LOG_WARN);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct kctx *t = *state;

	assert_int_equal(tmpdir_remove(t->dir), 0);
	free(t);
	return 0;
}

/* A public certificate of T's key with METADATA as its metadata lines. */
static void cert_with(const struct kctx *t, const char *metadata, char *out, size_t len)
{
	snprintf(out, len, "metadata\n%scurve\n    public-key = \"%s\"\n", metadata,
		 t->kp.public_z85);
}

static void test_keys_role_parse(void **state)
{
	static const struct {
		const char *metadata;
		enum keys_role role;
	} good[] = {
		{ "", KEYS_ROLE_NONE },
		{ "    role = \"agent\"\n", KEYS_ROLE_AGENT },
		{ "    role = client\n", KEYS_ROLE_CLIENT },
		{ "\trole=\"coordinator\"\r\n", KEYS_ROLE_COORDINATOR },
		{ "    role = \"client\"   \n    name = \"x\"\n", KEYS_ROLE_CLIENT },
		{ "#   role = \"admin\"\n    role = \"agent\"\n", KEYS_ROLE_AGENT },
		{ "    roles = \"admin\"\n", KEYS_ROLE_NONE },
	};
	static const struct refusal bad[] = {
		{ "    role = \"admin\"\n", "invalid role 'admin\"'" },
		{ "    role = \"\"\n", "invalid role '\"'" },
		{ "    role = \"agent\n", "invalid role 'agent'" },
		{ "    role = \"agent\" x\n", "invalid role 'agent\" x'" },
		{ "    role = agentx\n", "invalid role 'agentx'" },
		{ "    role = Agent\n", "invalid role 'Agent'" },
		{ "    role =\n", "invalid role ''" },
		{ "    role = \"agent\x01\"\n", "invalid role 'agent?\"'" },
	};
	struct kctx *t = *state;
	struct keys_pair kp;
	struct err why;
	char text[512];
	size_t i;

	for (i = 0; i < ARRAY_LEN(good); i++) {
		cert_with(t, good[i].metadata, text, sizeof(text));
		if (keys_parse_cert(text, strlen(text), "k.key", false, &kp, &why))
			fail_msg("case %zu refused: %s", i, why.msg);
		assert_int_equal(kp.role, good[i].role);
		assert_string_equal(kp.public_z85, t->kp.public_z85);
	}
	for (i = 0; i < ARRAY_LEN(bad); i++) {
		cert_with(t, bad[i].input, text, sizeof(text));
		if (keys_parse_cert(text, strlen(text), "k.key", false, &kp, &why) != -EINVAL)
			fail_msg("case %zu accepted", i);
		assert_contains(why.msg, bad[i].expect);
		assert_contains(why.msg, "key 'k.key'");
		assert_int_equal(kp.role, KEYS_ROLE_NONE);
		assert_string_equal(kp.public_z85, "");
	}
	assert_string_equal(keys_role_name(KEYS_ROLE_AGENT), "agent");
	assert_string_equal(keys_role_name((enum keys_role)42), "none");
	assert_int_equal(keys_role_parse("client"), KEYS_ROLE_CLIENT);
	assert_int_equal(keys_role_parse("none"), -EINVAL);
	assert_int_equal(keys_role_parse(""), -EINVAL);
}

static void test_keys_role_saved_and_set(void **state)
{
	struct kctx *t = *state;
	struct keys_pair back;
	struct err why;
	char pub[128], sec[128];
	struct stat st;

	/* keys_save writes the role into both files */
	t->kp.role = KEYS_ROLE_AGENT;
	assert_int_equal(keys_save(t->dir, "h1", &t->kp, false, &why), 0);
	snprintf(pub, sizeof(pub), "%s/h1.key", t->dir);
	snprintf(sec, sizeof(sec), "%s/h1.key_secret", t->dir);
	assert_int_equal(keys_load(pub, false, &back, &why), 0);
	assert_int_equal(back.role, KEYS_ROLE_AGENT);
	assert_int_equal(keys_load(sec, true, &back, &why), 0);
	assert_int_equal(back.role, KEYS_ROLE_AGENT);

	/* the same role again: nothing changes; another one only with force */
	assert_int_equal(keys_set_role(pub, KEYS_ROLE_AGENT, false, &why), 0);
	assert_int_equal(keys_set_role(pub, KEYS_ROLE_CLIENT, false, &why), -EEXIST);
	assert_contains(why.msg, "has the role 'agent'; give --force");
	assert_int_equal(keys_set_role(sec, KEYS_ROLE_CLIENT, true, &why), 1);
	assert_int_equal(keys_load(sec, true, &back, &why), 0);
	assert_int_equal(back.role, KEYS_ROLE_CLIENT);
	assert_string_equal(back.secret_z85, t->kp.secret_z85);
	assert_int_equal(stat(sec, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(keys_set_role(sec, KEYS_ROLE_NONE, true, &why), -EINVAL);

	/* a certificate made before roles gets one, keeping its key and mode */
	t->kp.role = KEYS_ROLE_NONE;
	assert_int_equal(keys_save(t->dir, "old", &t->kp, false, &why), 0);
	snprintf(pub, sizeof(pub), "%s/old.key", t->dir);
	assert_int_equal(keys_load(pub, false, &back, &why), 0);
	assert_int_equal(back.role, KEYS_ROLE_NONE);
	assert_int_equal(keys_set_role(pub, KEYS_ROLE_CLIENT, false, &why), 1);
	assert_int_equal(keys_load(pub, false, &back, &why), 0);
	assert_int_equal(back.role, KEYS_ROLE_CLIENT);
	assert_string_equal(back.public_z85, t->kp.public_z85);
	assert_string_equal(back.secret_z85, "");
	assert_int_equal(stat(pub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	snprintf(pub, sizeof(pub), "%s/missing.key", t->dir);
	assert_int_equal(keys_set_role(pub, KEYS_ROLE_CLIENT, false, &why), -ENOENT);
	assert_contains(why.msg, "missing.key");
}

/* Save a public certificate of a new key as DIR/NAME.key with ROLE. */
static void allow_key(const char *dir, const char *name, enum keys_role role,
		      struct keys_pair *kp)
{
	struct err why;
	char path[160];

	assert_int_equal(keys_generate(kp), 0);
	kp->role = role;
	assert_int_equal(keys_save(dir, name, kp, false, &why), 0);
	snprintf(path, sizeof(path), "%s/%s.key_secret", dir, name);
	assert_int_equal(unlink(path), 0);
}

static void test_keys_allow_roles(void **state)
{
	struct kctx *t = *state;
	struct keys_pair agent, client, old, coord;
	struct keys_allow *allow;
	struct err why;
	char dir[96];
	uint8_t bin[32];

	snprintf(dir, sizeof(dir), "%s/authorized", t->dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	allow_key(dir, "h1", KEYS_ROLE_AGENT, &agent);
	allow_key(dir, "client", KEYS_ROLE_CLIENT, &client);
	allow = keys_allow_load(dir, &why);
	assert_non_null(allow);
	assert_int_equal(keys_allow_count(allow), 2);
	zmq_z85_decode(bin, agent.public_z85);
	assert_int_equal(keys_allow_role(allow, bin), KEYS_ROLE_AGENT);
	assert_string_equal(keys_allow_host(allow, bin), "h1");
	zmq_z85_decode(bin, client.public_z85);
	assert_int_equal(keys_allow_role(allow, bin), KEYS_ROLE_CLIENT);
	assert_string_equal(keys_allow_host(allow, bin), "client");
	zmq_z85_decode(bin, t->kp.public_z85);
	assert_int_equal(keys_allow_role(allow, bin), KEYS_ROLE_NONE);
	assert_null(keys_allow_host(allow, bin));
	assert_int_equal(keys_allow_role(NULL, bin), KEYS_ROLE_NONE);
	keys_allow_destroy(&allow);

	/* the host a key speaks for is its file's name without ".key"; a file named
	 * otherwise names none (and still lets the key in) */
	{
		char from[160], to[160];

		snprintf(from, sizeof(from), "%s/h1.key", dir);
		snprintf(to, sizeof(to), "%s/h1.pub", dir);
		assert_int_equal(rename(from, to), 0);
		allow = keys_allow_load(dir, &why);
		assert_non_null(allow);
		zmq_z85_decode(bin, agent.public_z85);
		assert_int_equal(keys_allow_role(allow, bin), KEYS_ROLE_AGENT);
		assert_string_equal(keys_allow_name(allow, bin), "h1.pub");
		assert_null(keys_allow_host(allow, bin));
		keys_allow_destroy(&allow);
		assert_int_equal(rename(to, from), 0);
	}

	/* a key made before roles: the whole list is refused, saying what to do */
	allow_key(dir, "h2", KEYS_ROLE_NONE, &old);
	errno = 0;
	assert_null(keys_allow_load(dir, &why));
	assert_int_equal(errno, EINVAL);
	assert_contains(why.msg, "key 'h2.key' has no role");
	assert_contains(why.msg, "bpflab keygen --set-role agent|client FILE");
	assert_contains(why.msg, dir);
	/* ... until it has one */
	{
		char path[160];

		snprintf(path, sizeof(path), "%s/h2.key", dir);
		assert_int_equal(keys_set_role(path, KEYS_ROLE_AGENT, false, &why), 1);
	}
	allow = keys_allow_load(dir, &why);
	assert_non_null(allow);
	assert_int_equal(keys_allow_count(allow), 3);
	keys_allow_destroy(&allow);

	/* the coordinator's own key has no place in it */
	allow_key(dir, "coordinator", KEYS_ROLE_COORDINATOR, &coord);
	assert_null(keys_allow_load(dir, &why));
	assert_contains(why.msg, "key 'coordinator.key' has the role 'coordinator'");
}

static void test_keys_keygen_cli(void **state)
{
	struct kctx *t = *state;
	struct keys_pair back;
	struct prog_out o;
	char path[160];
	struct err why;

	/* no role: bad usage, nothing written */
	prog_run_args(&o, BPFLAB, (const char *[]){ "keygen", "--out", t->dir, "--name", "x",
						    NULL }, t->dir);
	assert_int_equal(o.status, 2);
	assert_contains(o.err, "give the key's --role: agent, client or coordinator");
	prog_out_free(&o);
	snprintf(path, sizeof(path), "%s/x.key", t->dir);
	assert_int_equal(access(path, F_OK), -1);
	prog_run_args(&o, BPFLAB, (const char *[]){ "keygen", "--role", "admin", "--out",
						    t->dir, NULL }, t->dir);
	assert_int_equal(o.status, 2);
	assert_contains(o.err, "invalid role 'admin'");
	prog_out_free(&o);

	/* --role agent: both files have it; -j says it */
	prog_run_args(&o, BPFLAB, (const char *[]){ "-j", "keygen", "--role", "agent", "--out",
						    t->dir, "--name", "x", NULL }, t->dir);
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "\"role\":\"agent\"");
	prog_out_free(&o);
	assert_int_equal(keys_load(path, false, &back, &why), 0);
	assert_int_equal(back.role, KEYS_ROLE_AGENT);

	/* --set-role on an old certificate; a different role needs --force */
	t->kp.role = KEYS_ROLE_NONE;
	assert_int_equal(keys_save(t->dir, "old", &t->kp, false, &why), 0);
	snprintf(path, sizeof(path), "%s/old.key", t->dir);
	prog_run_args(&o, BPFLAB, (const char *[]){ "keygen", "--set-role", "client", path,
						    NULL }, t->dir);
	assert_int_equal(o.status, 0);
	assert_contains(o.err, "now has the role client");
	prog_out_free(&o);
	assert_int_equal(keys_load(path, false, &back, &why), 0);
	assert_int_equal(back.role, KEYS_ROLE_CLIENT);
	prog_run_args(&o, BPFLAB, (const char *[]){ "keygen", "--set-role", "agent", path,
						    NULL }, t->dir);
	assert_int_equal(o.status, 1);
	assert_contains(o.err, "has the role 'client'; give --force");
	prog_out_free(&o);
	prog_run_args(&o, BPFLAB, (const char *[]){ "keygen", "--set-role", "agent", NULL },
		      t->dir);
	assert_int_equal(o.status, 2);
	assert_contains(o.err, "--set-role needs the certificate FILEs");
	prog_out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_keys_role_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keys_role_saved_and_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keys_allow_roles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keys_keygen_cli, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
