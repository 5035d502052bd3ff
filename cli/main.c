// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* main.c - bpflab, the command line a kernel developer types:
 *
 *     bpflab [OPTIONS] OBJECT COMMAND [ARGS]
 *
 * Parses the global options (which the commands accept after their name too), fills in
 * the defaults from the environment, and dispatches OBJECT through a table to its file
 * in cli/. See docs/cli.md for every command; exit status 0 ok, 1 failure, 2 bad usage or
 * a plan that does not validate.
 */
#include <limits.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/log.h"
#include "base/names.h"
#include "base/paths.h"
#include "base/util.h"
#include "base/version.h"

static const struct cli_object *const objects[] = {
	&cli_plan_object, &cli_host_object, &cli_run_object, &cli_result_object,
	&cli_bisect_object, &cli_link_object,
};

static void usage(FILE *out)
{
	const struct cli_cmd *c;
	char lead[128];
	size_t i;

	fprintf(out,
		"Usage: bpflab [OPTIONS] OBJECT { COMMAND | help }\n"
		"       bpflab help\n"
		"       bpflab { --version | version }\n"
		"\n"
		"       bpflab keygen [OPTIONS]\n"
		"       bpflab serve [OPTIONS]\n"
		"\n"
		"       OBJECT := { plan | host | run | result | bisect | link }\n"
		"       (objects and commands: any unambiguous prefix, 'bpflab res s 3')\n"
		"%s"
		"\n"
		"Commands:\n", cli_options_grammar);
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		for (c = objects[i]->cmds; c->name; c++) {
			snprintf(lead, sizeof(lead), "       bpflab %s %s", objects[i]->name,
				 c->name);
			cli_print_grammar(out, lead, c->args);
		}
	fprintf(out, "       bpflab keygen --role ROLE [--out DIR] [--name NAME] [--force]\n");
	cli_print_grammar(out, "       bpflab serve", CLI_SERVE_ARGS);
	fprintf(out,
		"\n"
		"Options:\n"
		"  -c, --coordinator ENDPOINT  bpflabd's client socket (default:\n"
		"                              $BPFLAB_COORDINATOR, else\n"
		"                              " CLI_DEFAULT_COORDINATOR ")\n"
		"      --db FILE               answer queries from database FILE, no coordinator\n"
		"  -j, --json                  JSON output; errors as {\"error\": ...} on stdout\n"
		"  -p, --pretty                indented JSON (implies --json)\n"
		"  -v, --verbose               more logging (repeat for more)\n"
		"      --bpf-dir DIR           where plans' bare object names are looked up\n"
		"                              (default: $BPFLAB_BPF_DIR, else ../bpf from the\n"
		"                              bpflab executable, else PREFIX/lib/bpflab/bpf)\n"
		"      --timeout SECONDS       how long to wait for the coordinator (default: %d)\n"
		"      --key FILE              own secret certificate for CURVE (default:\n"
		"                              $BPFLAB_KEY); make one with 'bpflab keygen'\n"
		"      --server-key FILE|Z85   the coordinator's public key (default:\n"
		"                              $BPFLAB_SERVER_KEY)\n"
		"      --plaintext             no CURVE (a coordinator on loopback or ipc only)\n"
		"      --ascii                 text in ASCII: '+-' for '±', 'u' for 'µ'\n"
		"  -h, --help                  this text; 'bpflab OBJECT --help' and\n"
		"                              'bpflab OBJECT COMMAND --help' for the others\n"
		"  -V, --version               print the version\n"
		"\n"
		"Exit status: 0 ok, 1 failure, 2 bad usage or a plan that does not validate;\n"
		"'bisect run': 0 good, 1 bad, 125 cannot tell or cannot run, 129 bad usage.\n",
		CLI_DEFAULT_TIMEOUT_S);
}

static int version(void)
{
	json_t *v;
	int ret;

	if (!cli.json) {
		printf("bpflab %s\n", bpflab_version);
		return CLI_EXIT_OK;
	}
	v = json_pack("{s:s}", "version", bpflab_version);
	ret = v ? cli_print_json(v) : cli_error("out of memory");
	json_decref(v);
	return ret;
}

/* Run ARGV[0] (an object or top-level command, or an unambiguous prefix of one; an
 * ambiguous prefix or a typo is bad usage naming the candidates). */
static int dispatch(int argc, char **argv)
{
	enum { N_TOP = 4 };
	static const char *const top[N_TOP] = { "help", "version", "keygen", "serve" };
	const char *names[ARRAY_SIZE(objects) + N_TOP];
	char cand[256];
	size_t i;
	int k;

	for (i = 0; i < ARRAY_SIZE(objects); i++)
		names[i] = objects[i]->name;
	for (i = 0; i < N_TOP; i++)
		names[ARRAY_SIZE(objects) + i] = top[i];
	k = names_match(names, ARRAY_SIZE(names), argv[0]);
	if (k < 0) {
		bool some = names_candidates(names, ARRAY_SIZE(names), argv[0], cand, sizeof(cand));

		if (k == NAMES_AMBIGUOUS)
			return cli_usage_error(NULL, "ambiguous object '%s': %s", argv[0], cand);
		return cli_usage_error(NULL, "unknown object '%s'%s%s%s", argv[0],
				       some ? " (did you mean " : "", some ? cand : "",
				       some ? "?)" : "");
	}
	if ((size_t)k < ARRAY_SIZE(objects))
		return cli_object_dispatch(objects[k], argc - 1, argv + 1);
	switch (k - (int)ARRAY_SIZE(objects)) {
	case 0:
		usage(stdout);
		return CLI_EXIT_OK;
	case 1:
		return version();
	case 2:
		return cli_keygen(argc, argv);
	default:
		return cli_serve(argc, argv);
	}
}

int main(int argc, char **argv)
{
	static const struct option own[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
	};
	struct option longopts[32];
	char shortopts[64];
	const char *env;
	size_t i, n = 0;
	int opt, ret = CLI_EXIT_USAGE;
	bool want_version = false;

	log_init("bpflab", LOG_WARN);
	log_route_libbpf();
	/* the configuration file, then the environment, then the flags: each overrides */
	ret = cli_config_load();
	if (ret)
		return ret;
	ret = CLI_EXIT_USAGE;
	env = getenv("BPFLAB_COORDINATOR");
	if (env && *env)
		cli.coordinator = env;
	env = getenv("BPFLAB_BPF_DIR");
	if (env && *env)
		cli.bpf_dir = env;
	env = getenv("BPFLAB_KEY");
	if (env && *env)
		cli.key_file = env;
	env = getenv("BPFLAB_SERVER_KEY");
	if (env && *env)
		cli.server_key = env;

	for (i = 0; cli_global_longopts[i].name; i++)
		longopts[n++] = cli_global_longopts[i];
	for (i = 0; i < ARRAY_SIZE(own); i++)
		longopts[n++] = own[i];
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	/* '+': stop at OBJECT; the commands parse the rest */
	snprintf(shortopts, sizeof(shortopts), "+:%shV", cli_global_shortopts);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const char *text = argv[optind - 1];

		switch (opt) {
		case 'h':
			usage(stdout);
			return CLI_EXIT_OK;
		case 'V':
			want_version = true;
			continue;
		case '?':
			if (optopt && strncmp(text, "--", 2))
				return cli_usage_error(NULL, "unknown option '-%c'", optopt);
			return cli_usage_error(NULL, "unknown option '%.*s'",
					       (int)strcspn(text, "="), text);
		case ':':
			return cli_usage_error(NULL, "option '%.*s' needs a value",
					       (int)strcspn(text, "="), text);
		}
		ret = cli_global_opt(opt, optarg);
		if (ret)
			return ret;
	}
	if (!cli.bpf_dir) {
		/* the build tree's build/bpf or the installed PREFIX/lib/bpflab/bpf; kept
		 * until exit */
		char *found = paths_find(PATHS_BPF);

		cli.bpf_dir = found ? found : "bpf";
	}
	if (want_version)
		return version();

	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	ret = dispatch(argc, argv);
	cli_client_close();
	cli_ascii_close();
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "bpflab: cannot write output\n");
		ret = CLI_EXIT_FAIL;
	}
	return ret;
}
