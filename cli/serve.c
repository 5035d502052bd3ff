// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* serve.c - `bpflab serve --db FILE [--http ADDR:PORT] [--http-token FILE |
 * --http-public] [--http-host NAME]...`: the dashboard (web/, docs/dashboard.md) over a database file, read-only,
 * until SIGINT or SIGTERM (within a second, web_destroy). Prints the address it serves on stdout ({"url"} with -j).
 */
#include "cli.h"

#include <signal.h>
#include <string.h>

#include "web.h"

struct serve_args {
	const char *http, *token_file;
	bool public_ok;
	const char *names[WEB_NAMES_MAX + 1];	/* --http-host; one more to say "too many" */
	size_t n_names;
};

enum { OPT_HTTP = CLI_OPT_FIRST_LOCAL, OPT_TOKEN, OPT_PUBLIC, OPT_HOST };

static int serve_opt(int opt, const char *arg, void *ctx)
{
	struct serve_args *a = ctx;

	switch (opt) {
	case OPT_HTTP:
		a->http = arg;
		return 0;
	case OPT_TOKEN:
		a->token_file = arg;
		return 0;
	case OPT_PUBLIC:
		a->public_ok = true;
		return 0;
	case OPT_HOST:
		if (a->n_names == WEB_NAMES_MAX)
			return cli_usage_error("serve", "more than %d --http-host names",
					       WEB_NAMES_MAX);
		a->names[a->n_names++] = arg;
		return 0;
	}
	return cli_usage_error("serve", "unknown option");
}

static void serve_usage(FILE *out)
{
	cli_print_grammar(out, "Usage: bpflab serve", CLI_SERVE_ARGS);
	fprintf(out,
		"\n"
		"Serve the dashboard (docs/dashboard.md) over database FILE, read-only: pages at\n"
		"/runs and /runs/ID, the JSON of -j under /api/. Prints the address; runs until\n"
		"SIGINT or SIGTERM.\n"
		"\n"
		"  --http ADDR:PORT      where to listen (default: " WEB_DEFAULT_ADDR "; port 0:\n"
		"                        any free one)\n"
		"  --http-token FILE     every request must carry 'Authorization: Bearer TOKEN'\n"
		"                        or the cookie a browser gets for ?token=TOKEN, TOKEN\n"
		"                        the first line of FILE (16 bytes or more)\n"
		"  --http-public         allow an address outside loopback without a token\n"
		"  --http-host NAME      also answer for Host NAME (a DNS name, any port; up\n"
		"                        to %d): without it only for the bound address\n"
		"                        (localhost too on loopback), so that no other\n"
		"                        name can be rebound to it\n"
		"\n%s", WEB_NAMES_MAX, cli_options_grammar);
}

int cli_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "http", required_argument, NULL, OPT_HTTP },
		{ "http-token", required_argument, NULL, OPT_TOKEN },
		{ "http-public", no_argument, NULL, OPT_PUBLIC },
		{ "http-host", required_argument, NULL, OPT_HOST },
		{ NULL, 0, NULL, 0 },
	};
	struct serve_args a = { .http = NULL };
	struct err err;
	char token[WEB_TOKEN_MAX];
	struct web_opts wo = { .db = NULL };
	struct web *w;
	sigset_t set;
	json_t *j;
	bool usage;
	int first, ret, sig;

	if (cli_wants_help(argc, argv)) {
		serve_usage(stdout);
		return CLI_EXIT_OK;
	}
	ret = cli_parse_opts(argc, argv, "serve", "", longopts, serve_opt, &a, &first);
	if (ret)
		return ret;
	if (first < argc)
		return cli_usage_error("serve", "unexpected argument '%s'", argv[first]);
	if (!cli.db)
		return cli_usage_error("serve", "missing --db FILE (serve reads a database file)");
	if (a.token_file && a.public_ok)
		return cli_usage_error("serve", "--http-token and --http-public exclude each other");
	if (a.token_file && web_read_token(a.token_file, token, &err))
		return cli_usage_error("serve", "%s", err.msg);
	wo = (struct web_opts){ .db = cli.db, .http = a.http,
				.token = a.token_file ? token : NULL, .public_ok = a.public_ok,
				.names = a.names, .n_names = a.n_names };
	/* the server's thread inherits the mask: the signals come to sigwait below */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	w = web_new(&wo, &usage, &err);
	memset(token, 0, sizeof(token));
	if (!w)
		return usage ? cli_usage_error("serve", "%s", err.msg) : cli_error("%s", err.msg);
	if (cli.json) {
		j = json_pack("{s:s, s:s}", "url", web_url(w), "db", cli.db);
		ret = j ? cli_print_json(j) : cli_error("out of memory");
		json_decref(j);
	} else {
		printf("%s\n", web_url(w));
		fprintf(stderr, "bpflab: serving database '%s' read-only at %s; Ctrl-C stops\n",
			cli.db, web_url(w));
	}
	fflush(stdout);
	if (!ret)
		sigwait(&set, &sig);
	web_destroy(&w);
	return ret;
}
