// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* keygen.c - `bpflab keygen`: make a CURVE key pair for an agent, a client or the
 * coordinator (docs/security.md). Writes NAME.key (the public certificate, to copy into
 * the coordinator's --authorized folder) and NAME.key_secret (mode 0600, stays on the
 * machine that uses it), both with the key's role, and prints the public key. Never
 * replaces a key without --force. `--set-role ROLE FILE...` gives certificates made
 * before roles their role (the migration docs/security.md describes).
 */
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "proto/keys.h"
#include "base/util.h"

struct keygen_args {
	const char *out, *name;
	int role;			/* enum keys_role; KEYS_ROLE_NONE: not given */
	bool force, set_role;
};

enum { OPT_OUT = CLI_OPT_FIRST_LOCAL, OPT_NAME, OPT_FORCE, OPT_ROLE, OPT_SET_ROLE };

static int keygen_opt(int opt, const char *arg, void *ctx)
{
	struct keygen_args *k = ctx;

	switch (opt) {
	case OPT_OUT:
		k->out = arg;
		return 0;
	case OPT_NAME:
		k->name = arg;
		return 0;
	case OPT_FORCE:
		k->force = true;
		return 0;
	case OPT_ROLE:
	case OPT_SET_ROLE:
		k->role = keys_role_parse(arg);
		k->set_role = opt == OPT_SET_ROLE;
		if (k->role < 0)
			return cli_usage_error("keygen", "invalid role '%s': expected agent, client "
					       "or coordinator", arg);
		return 0;
	}
	return cli_usage_error("keygen", "unknown option");
}

static void keygen_usage(FILE *out)
{
	fprintf(out,
		"Usage: bpflab keygen --role ROLE [--out DIR] [--name NAME] [--force]\n"
		"       bpflab keygen --set-role ROLE [--force] FILE...\n"
		"\n"
		"Make a CURVE key pair: DIR/NAME.key (public certificate: copy it into the\n"
		"coordinator's --authorized folder) and DIR/NAME.key_secret (mode 0600: give it\n"
		"to --key). Prints the public key ({public_key, public_file, secret_file, role}\n"
		"with -j). Needs no coordinator.\n"
		"\n"
		"  --role ROLE           what the key may do: agent (register as an agent),\n"
		"                        client (send requests), coordinator (bpflabd's own)\n"
		"  --out DIR             where the two files go (default: .)\n"
		"  --name NAME           their name (default: the host name)\n"
		"  --force               replace an existing key (otherwise: exit 1), or\n"
		"                        change a role that a FILE has\n"
		"  --set-role ROLE       give each certificate FILE (public or secret, made\n"
		"                        before roles) the role ROLE, keeping its key\n"
		"\n%s", cli_options_grammar);
}

/* --set-role: each FILE gets the role; the first failure stops. */
static int set_roles(const struct keygen_args *k, int argc, char **argv, int first)
{
	struct err why;
	int i, rc;

	if (first >= argc)
		return cli_usage_error("keygen", "--set-role needs the certificate FILEs");
	for (i = first; i < argc; i++) {
		rc = keys_set_role(argv[i], k->role, k->force, &why);
		if (rc < 0)
			return cli_error("%s", why.msg);
		if (!cli.json)
			fprintf(stderr, "bpflab: '%s' %s the role %s\n", argv[i],
				rc ? "now has" : "already has", keys_role_name(k->role));
	}
	return CLI_EXIT_OK;
}

int cli_keygen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, OPT_OUT },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "role", required_argument, NULL, OPT_ROLE },
		{ "set-role", required_argument, NULL, OPT_SET_ROLE },
		{ NULL, 0, NULL, 0 },
	};
	struct keygen_args k = { .out = "." };
	struct err why;
	char host[256] = "", pub[4096 + 16], sec[4096 + 16];
	struct keys_pair kp;
	json_t *j;
	int first, ret, err;

	if (cli_wants_help(argc, argv)) {
		keygen_usage(stdout);
		return CLI_EXIT_OK;
	}
	ret = cli_parse_opts(argc, argv, "keygen", "", longopts, keygen_opt, &k, &first);
	if (ret)
		return ret;
	if (k.set_role)
		return set_roles(&k, argc, argv, first);
	if (first < argc)
		return cli_usage_error("keygen", "unexpected argument '%s'", argv[first]);
	if (k.role == KEYS_ROLE_NONE)
		return cli_usage_error("keygen", "give the key's --role: agent, client or "
				       "coordinator");
	if (!k.name) {
		gethostname(host, sizeof(host) - 1);
		k.name = *host ? host : "bpflab";
	}
	err = keys_generate(&kp);
	if (err)
		return cli_error("cannot make a key pair: %s", err == -ENOTSUP ?
				 "this libzmq has no CURVE support" : strerror(-err));
	kp.role = (enum keys_role)k.role;
	err = keys_save(k.out, k.name, &kp, k.force, &why);
	memset(kp.secret_z85, 0, sizeof(kp.secret_z85));
	if (err)
		return cli_error("%s", why.msg);
	snprintf(pub, sizeof(pub), "%s/%s.key", k.out, k.name);
	snprintf(sec, sizeof(sec), "%s/%s.key_secret", k.out, k.name);
	if (!cli.json) {
		printf("%s\n", kp.public_z85);
		fprintf(stderr, "bpflab: wrote %s key '%s' and '%s'\n", keys_role_name(kp.role),
			pub, sec);
		return CLI_EXIT_OK;
	}
	j = json_pack("{s:s, s:s, s:s, s:s}", "public_key", kp.public_z85, "public_file", pub,
		      "secret_file", sec, "role", keys_role_name(kp.role));
	ret = j ? cli_print_json(j) : cli_error("out of memory");
	json_decref(j);
	return ret;
}
