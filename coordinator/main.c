// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* main.c - bpflabd, the bpflab coordinator: command line, logging and signals around
 * coord.c's event loop. SIGINT and SIGTERM stop the loop (the handler only sets a flag;
 * zmq_poll returns with EINTR) and bpflabd exits 0 after closing its sockets and the
 * database. SIGHUP reloads the allow list of agent and client keys (--authorized).
 *
 * --http ADDR:PORT also serves the dashboard (web/, docs/dashboard.md) over the same
 * database file: on libmicrohttpd's threads (one per connection), which open the file
 * read-only for each request (WAL: readers never block the loop's writes), so the event
 * loop and its store are untouched. Those threads block the signals: they reach the
 * loop's thread; on stop, web_destroy leaves a page still being built after 0.3 s.
 */
#include <errno.h>
#include <pthread.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord.h"
#include "proto/keys.h"
#include "base/conf.h"
#include "base/log.h"
#include "base/version.h"
#include "web.h"

static struct coord *volatile the_coord;
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = 1;
	if (the_coord)
		coord_stop(the_coord);
}

static void on_hup(int sig)
{
	if (the_coord)
		coord_request_reload(the_coord);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: bpflabd --agents ENDPOINT --clients ENDPOINT --db FILE\n"
		"               { --key FILE --authorized DIR | --plaintext } [--log FILE] [-v]\n"
		"               [--http ADDR:PORT [--http-token FILE | --http-public]\n"
		"                [--http-host NAME]...] [--config FILE]\n"
		"       bpflabd { --help | --version }\n"
		"\n"
		"The bpflab coordinator: hands the jobs of submitted plans to bpflab-agent on\n"
		"lab hosts and stores their results in an SQLite database.\n"
		"\n"
		"  --agents ENDPOINT   ZeroMQ endpoint agents connect to, e.g.\n"
		"                      tcp://198.18.0.1:5555 (required)\n"
		"  --clients ENDPOINT  ZeroMQ endpoint the bpflab CLI connects to, e.g.\n"
		"                      ipc:///run/bpflab/clients.sock (required)\n"
		"  --db FILE           database file, created and migrated when needed\n"
		"                      (required)\n"
		"  --key FILE          the coordinator's secret certificate (bpflab keygen):\n"
		"                      CURVE on both endpoints\n"
		"  --authorized DIR    public certificates of the agents and clients allowed\n"
		"                      to connect, each with its role (agent: registers,\n"
		"                      client: sends requests); reloaded on SIGHUP\n"
		"  --plaintext         no CURVE; only when both endpoints are loopback or ipc\n"
		"  --log FILE          append the log to FILE instead of stderr\n"
		"  --http ADDR:PORT    also serve the dashboard (docs/dashboard.md) over the\n"
		"                      database, read-only; port 0: any free one (logged)\n"
		"  --http-token FILE   every HTTP request must carry 'Authorization: Bearer\n"
		"                      TOKEN' or the cookie a browser gets for ?token=TOKEN,\n"
		"                      TOKEN the first line of FILE\n"
		"  --http-public       allow an --http address outside loopback without a\n"
		"                      token\n"
		"  --http-host NAME    also answer for Host NAME (any port; up to 8): else\n"
		"                      only for the --http address (localhost on loopback)\n"
		"  --config FILE       the options above as 'KEY = VALUE' lines (KEY without\n"
		"                      '--'; 'yes' for one without a value); the command\n"
		"                      line's override them (docs/deploy.md)\n"
		"  -v, --verbose       debug log, libbpf's too (default: info)\n"
		"  -h, --help          this help\n"
		"  -V, --version       print the version\n"
		"\n"
		"Runs until SIGINT or SIGTERM (then exit 0); SIGHUP reloads --authorized.\n"
		"Exit status: 0 stopped by a signal, 1 failure (a key, the log file, the\n"
		"database, an endpoint or the --http address), 2 bad usage.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "agents", required_argument, NULL, 'a' },
		{ "clients", required_argument, NULL, 'c' },
		{ "db", required_argument, NULL, 'd' },
		{ "log", required_argument, NULL, 'l' },
		{ "key", required_argument, NULL, 'k' },
		{ "authorized", required_argument, NULL, 'A' },
		{ "plaintext", no_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "http", required_argument, NULL, 'H' },
		{ "http-token", required_argument, NULL, 'T' },
		{ "http-public", no_argument, NULL, 'U' },
		{ "http-host", required_argument, NULL, 'N' },
		{ "config", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	const char *names[WEB_NAMES_MAX];
	struct coord_opts opts = COORD_OPTS();
	const char *log_path = NULL, *key_path = NULL, *token_path = NULL;
	struct web_opts wo = { .http = NULL };
	struct err why;
	char token[WEB_TOKEN_MAX];
	struct err cerr;
	struct web *web = NULL;
	sigset_t block, old;
	struct keys_pair key;
	bool plaintext = false;
	struct sigaction sa;
	struct coord *c;
	int verbose = 0, opt, err;
	/* kept to exit: getopt's optarg points into them */
	static struct conf *conf;
	static char **conf_block;

	/* --config FILE: its options before the command line's, which override them */
	err = conf_apply_args(&argc, &argv, longopts, &conf, &conf_block, &cerr);
	if (err) {
		fprintf(stderr, "bpflabd: %s\n", err_text(&cerr, err));
		return 2;
	}
	while ((opt = getopt_long(argc, argv, "vhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'C':
			break;	/* read above */
		case 'a':
			opts.agents = optarg;
			break;
		case 'c':
			opts.clients = optarg;
			break;
		case 'd':
			opts.db = optarg;
			break;
		case 'l':
			log_path = optarg;
			break;
		case 'k':
			key_path = optarg;
			break;
		case 'A':
			opts.authorized = optarg;
			break;
		case 'P':
			plaintext = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'H':
			wo.http = optarg;
			break;
		case 'T':
			token_path = optarg;
			break;
		case 'U':
			wo.public_ok = true;
			break;
		case 'N':
			if (wo.n_names == WEB_NAMES_MAX) {
				fprintf(stderr, "bpflabd: more than %d --http-host names\n",
					WEB_NAMES_MAX);
				return 2;
			}
			names[wo.n_names++] = optarg;
			wo.names = names;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("bpflabd %s\n", bpflab_version);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !opts.agents || !opts.clients || !opts.db) {
		fprintf(stderr, "bpflabd: %s\n", optind < argc ? "unexpected argument" :
			"--agents, --clients and --db are required");
		usage(stderr);
		return 2;
	}
	if (plaintext && (key_path || opts.authorized)) {
		fprintf(stderr, "bpflabd: --plaintext excludes --key and --authorized\n");
		return 2;
	}
	if (!plaintext && (!key_path || !opts.authorized)) {
		const char *ep = !keys_endpoint_is_local(opts.agents) ? opts.agents :
				 !keys_endpoint_is_local(opts.clients) ? opts.clients : NULL;

		if (ep)
			fprintf(stderr, "bpflabd: refusing plaintext on '%s'; give --key and "
				"--authorized, or --plaintext on loopback/ipc only\n", ep);
		else
			fprintf(stderr, "bpflabd: give --key and --authorized for CURVE, or "
				"--plaintext (loopback/ipc only)\n");
		return 2;
	}
	if ((token_path || wo.public_ok || wo.n_names) && !wo.http) {
		fprintf(stderr, "bpflabd: --http-token, --http-public and --http-host go with "
			"--http\n");
		return 2;
	}
	if (token_path && wo.public_ok) {
		fprintf(stderr, "bpflabd: --http-token and --http-public exclude each other\n");
		return 2;
	}
	if (wo.http && !strcmp(opts.db, ":memory:")) {
		fprintf(stderr, "bpflabd: --http needs a database file, not ':memory:'\n");
		return 2;
	}
	if (token_path && web_read_token(token_path, token, &why)) {
		fprintf(stderr, "bpflabd: %s\n", why.msg);
		return 2;
	}
	if (wo.http && web_check_bind(wo.http, token_path, wo.public_ok, &why)) {
		fprintf(stderr, "bpflabd: %s\n", why.msg);
		return 2;
	}
	for (size_t i = 0; i < wo.n_names; i++) {
		if (web_check_name(names[i], &why)) {
			fprintf(stderr, "bpflabd: %s\n", why.msg);
			return 2;
		}
	}
	if (key_path) {
		if (keys_load(key_path, true, &key, &why)) {
			fprintf(stderr, "bpflabd: %s\n", why.msg);
			return 1;
		}
		opts.key = &key;
	}
	log_init("bpflabd", verbose >= 1 ? LOG_DEBUG : LOG_INFO);
	if (verbose >= 2)
		log_set_level(LOG_DEBUG);
	if (log_path) {
		err = log_set_file(log_path);
		if (err) {
			fprintf(stderr, "bpflabd: cannot open log file '%s': %s\n", log_path,
				strerror(-err));
			return 1;
		}
	}
	log_route_libbpf();
	log_flush_on_fatal();	/* a crashed turn's held lines are the ones wanted */

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: zmq_poll returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	c = coord_new(&opts);
	memset(&key, 0, sizeof(key));
	if (!c)
		return 1;
	if (wo.http) {
		bool usage;

		wo.db = opts.db;
		wo.token = token_path ? token : NULL;
		/* the server's thread inherits the mask: signals go to the loop's thread */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		web = web_new(&wo, &usage, &why);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		memset(token, 0, sizeof(token));
		if (!web) {
			pr_warn("cannot serve the dashboard: %s", why.msg);
			coord_destroy(&c);
			return usage ? 2 : 1;
		}
		pr_info("dashboard at %s (database '%s', read-only%s)", web_url(web), opts.db,
			wo.token ? ", token required" : "");
	}
	the_coord = c;
	if (stop_requested)	/* a signal came while starting */
		coord_stop(c);
	err = coord_run(c);
	pr_info("stopping");
	the_coord = NULL;
	web_destroy(&web);
	coord_destroy(&c);
	return err ? 1 : 0;
}
