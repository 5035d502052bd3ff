/* keygen.c - `bpflab keygen`: make a CURVE key pair for an agent, a client or the
 * coordinator (docs/security.md). Writes NAME.key (the public certificate, to copy into
 * the coordinator's --authorized folder) and NAME.key_secret (mode 0600, stays on the
 * machine that uses it), and prints the public key. Never replaces a key without --force.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "proto/keys.h"
#include "base/util.h"

struct keygen_args {
	const char *out, *name;
	bool force;
};

enum { OPT_OUT = CLI_OPT_FIRST_LOCAL, OPT_NAME, OPT_FORCE };

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
	}
	return cli_usage_error("keygen", "unknown option");
}

static void keygen_usage(FILE *out)
{
	fprintf(out,
		"Usage: bpflab keygen [--out DIR] [--name NAME] [--force]\n"
		"\n"
		"Make a CURVE key pair: DIR/NAME.key (public certificate: copy it into the\n"
		"coordinator's --authorized folder) and DIR/NAME.key_secret (mode 0600: give it\n"
		"to --key). Prints the public key ({public_key, public_file, secret_file}\n"
		"with -j). Needs no coordinator.\n"
		"\n"
		"  --out DIR             where the two files go (default: .)\n"
		"  --name NAME           their name (default: the host name)\n"
		"  --force               replace an existing key (otherwise: exit 1)\n"
		"\n%s", cli_options_grammar);
}

int cli_keygen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, OPT_OUT },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ NULL, 0, NULL, 0 },
	};
	struct keygen_args k = { .out = "." };
	char host[256] = "", why[1024], pub[4096 + 16], sec[4096 + 16];
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
	if (first < argc)
		return cli_usage_error("keygen", "unexpected argument '%s'", argv[first]);
	if (!k.name) {
		gethostname(host, sizeof(host) - 1);
		k.name = *host ? host : "bpflab";
	}
	err = keys_generate(&kp);
	if (err)
		return cli_error("cannot make a key pair: %s", err == -ENOTSUP ?
				 "this libzmq has no CURVE support" : strerror(-err));
	err = keys_save(k.out, k.name, &kp, k.force, why, sizeof(why));
	memset(kp.secret_z85, 0, sizeof(kp.secret_z85));
	if (err)
		return cli_error("%s", why);
	snprintf(pub, sizeof(pub), "%s/%s.key", k.out, k.name);
	snprintf(sec, sizeof(sec), "%s/%s.key_secret", k.out, k.name);
	if (!cli.json) {
		printf("%s\n", kp.public_z85);
		fprintf(stderr, "bpflab: wrote '%s' and '%s'\n", pub, sec);
		return CLI_EXIT_OK;
	}
	j = json_pack("{s:s, s:s, s:s}", "public_key", kp.public_z85, "public_file", pub,
		      "secret_file", sec);
	ret = j ? cli_print_json(j) : cli_error("out of memory");
	json_decref(j);
	return ret;
}
