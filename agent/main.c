// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* main.c - bpflab-agent: command line, signals, and the choice between serving a
 * coordinator (agent.h) and running one job from a file (--once, for tests and
 * debugging).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "config.h"
#include "inventory.h"
#include "job.h"
#include "proto/keys.h"
#include "base/log.h"
#include "base/paths.h"
#include "proto/proto.h"
#include "provider.h"
#include "base/util.h"

#define MAX_JOB_FILE (PROTO_MAX_BYTES)

static atomic_int once_cancel;

static void usage(FILE *out)
{
	fprintf(out,
"usage: bpflab-agent --coordinator ENDPOINT [--name NAME] --port ROLE=IFNAME ...\n"
"                    [--label KEY=VALUE ...] [--config FILE] [--spool DIR]\n"
"                    [--bpf-dir DIR] [--timing wall|icount] [--pktgen-dir DIR]\n"
"                    [--log FILE] [-v ...]\n"
"                    { --key FILE --server-key FILE|Z85 | --plaintext }\n"
"       bpflab-agent --once JOB.json --port ROLE=IFNAME ... [--bpf-dir DIR]\n"
"                    [--pktgen-dir DIR] [-v ...]\n"
"       bpflab-agent { --help | --version }\n"
"\n"
"Serve jobs from a bpflab coordinator, or run the one job in JOB.json (a job\n"
"message body {\"job\": {\"id\", \"run\", \"spec\"}, \"objects\": {...}}) and print\n"
"its result.\n"
"\n"
"  --coordinator ENDPOINT  the coordinator's agent endpoint, e.g.\n"
"                          tcp://198.18.0.1:5555\n"
"  --name NAME             the agent's name in the lab (default: the host name)\n"
"  --port ROLE=IFNAME      map a plan's port role to a local interface\n"
"                          (repeatable)\n"
"  --label KEY=VALUE       a label in the inventory, for plan selectors\n"
"                          (repeatable)\n"
"  --config FILE           labels and the kernel provider from FILE (YAML, e.g.\n"
"                          'labels: {rack: r3}', 'kernel_provider: {command:\n"
"                          [PATH, ARG...]}'; docs/agent.md); a later --label of\n"
"                          the same name wins\n"
"  --key FILE              the agent's secret certificate (bpflab keygen --role\n"
"                          agent): CURVE\n"
"  --server-key FILE|Z85   the coordinator's public key or certificate file\n"
"  --plaintext             no CURVE (a coordinator on loopback or ipc only)\n"
"  --spool DIR             keep unacknowledged results in DIR (default: in\n"
"                          memory)\n"
"  --bpf-dir DIR           read objects a job does not carry from DIR\n"
"                          (default: ../bpf beside the binary, else\n"
"                          PREFIX/lib/bpflab/bpf when installed)\n"
"  --timing wall|icount    what time means on this host: wall (default) or\n"
"                          icount, a QEMU guest under -icount where a nanosecond\n"
"                          is an instruction\n"
"  --pktgen-dir DIR        the pktgen generator's control files (pgctrl,\n"
"                          kpktgend_N, devices) in DIR instead of\n"
"                          /proc/net/pktgen: for tests\n"
"  --once JOB.json         run one job, print the result JSON\n"
"  --log FILE              log to FILE instead of stderr\n"
"  -v, --verbose           log more, repeatable (serving: info, -v debug;\n"
"                          --once: warnings, -v info, -vv debug)\n"
"  -h, --help              this help\n"
"  -V, --version           print the version\n"
"\n"
"Exit status: 0 stopped by SIGINT or SIGTERM (--once: the job succeeded),\n"
"1 failure (--once: the job failed), 2 bad usage.\n");
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&once_cancel, 1);
}

static int run_once(const char *file, const struct inventory_config *inv, const char *bpf_dir,
		    const char *pktgen_dir)
{
	struct sigaction sa;
	char *text, why[256];
	json_t *msg, *result;
	size_t len;
	int err, rc;

	err = util_read_file(file, MAX_JOB_FILE, &text, &len);
	if (err) {
		pr_warn("cannot read job '%s': %s", file, util_strerror(err));
		return 1;
	}
	{
		json_error_t jerr;

		msg = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
		if (!msg)
			snprintf(why, sizeof(why), "%s at line %d", jerr.text, jerr.line);
	}
	free(text);
	if (!msg || !json_is_object(json_object_get(msg, "job"))) {
		pr_warn("job file '%s' is not a job message body: %s", file,
			msg ? "no \"job\" object" : why);
		json_decref(msg);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	{
		struct job_opts jo = {
			.inv = inv,
			.bpf_dir = bpf_dir,
			.pktgen_dir = pktgen_dir,
			.require_sha256 = false,
			.cancel = &once_cancel,
		};

		result = job_run(msg, &jo);
	}
	json_decref(msg);
	if (!result) {
		pr_warn("out of memory");
		return 1;
	}
	json_dumpf(result, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	fflush(stdout);
	rc = strcmp(jget_str(result, "status", ""), "ok") ? 1 : 0;
	json_decref(result);
	return rc;
}

/* CURVE keys from --key and --server-key (see docs/security.md) */
static struct keys_pair agent_key;
static char agent_server_key[KEYS_Z85_LEN + 1];
static bool agent_curve;

/* the kernel provider from --config (docs/agent.md, "Kernel provider") */
static struct provider_config agent_provider;

/* Run the provider's `list` once at start: {"command", "kernels": [...]} for the
 * inventory, with "error" when the list failed (the host then offers no kernel). */
static json_t *provider_inventory(void)
{
	json_t *kernels = NULL, *obj;
	struct err why;
	int64_t t0 = util_mono_ms();
	int err = provider_list(&agent_provider, &kernels, &why);

	if (err) {
		pr_warn("%s; offering no kernels", err_text(&why, err));
		kernels = json_array();
	} else {
		pr_info("kernel provider '%s': %zu kernel%s in %lld ms", agent_provider.argv[0],
			json_array_size(kernels), json_array_size(kernels) == 1 ? "" : "s",
			(long long)(util_mono_ms() - t0));
	}
	obj = json_pack("{s:s, s:o}", "command", agent_provider.argv[0], "kernels", kernels);
	if (obj && err)
		json_object_set_new(obj, "error", json_string(err_text(&why, err)));
	return obj;
}

static int run_agent(const char *endpoint, const struct inventory_config *inv,
		     const char *spool_dir, const char *bpf_dir, const char *pktgen_dir)
{
	struct agent *agent = NULL;
	sigset_t set;
	int sfd, err;

	/* Before any thread exists: every thread inherits the mask, the loop reads the
	 * signals from a signalfd. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		pr_warn("cannot create a signalfd: %s", strerror(errno));
		return 1;
	}
	{
		struct agent_opts ao = {
			.endpoint = endpoint,
			.inv = inv,
			.spool_dir = spool_dir,
			.bpf_dir = bpf_dir,
			.stop_fd = sfd,
			.key = agent_curve ? &agent_key : NULL,
			.server_key = agent_server_key,
			.pktgen_dir = pktgen_dir,
			.provider = agent_provider.argc ? &agent_provider : NULL,
			.warm_up = true,
		};

		agent = agent_new(&ao);
	}
	if (!agent) {
		pr_warn("cannot start the agent: %s", strerror(errno));
		close(sfd);
		return 1;
	}
	err = agent_run(agent);
	agent_destroy(&agent);
	close(sfd);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "coordinator", required_argument, NULL, 'c' },
		{ "name", required_argument, NULL, 'n' },
		{ "port", required_argument, NULL, 'p' },
		{ "label", required_argument, NULL, 'l' },
		{ "config", required_argument, NULL, 'C' },
		{ "spool", required_argument, NULL, 's' },
		{ "bpf-dir", required_argument, NULL, 'b' },
		{ "timing", required_argument, NULL, 'T' },
		{ "pktgen-dir", required_argument, NULL, 'G' },
		{ "once", required_argument, NULL, 'o' },
		{ "key", required_argument, NULL, 'K' },
		{ "server-key", required_argument, NULL, 'S' },
		{ "plaintext", no_argument, NULL, 'P' },
		{ "log", required_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct inventory_pair *ports = NULL, *labels = NULL;
	const char *endpoint = NULL, *name = NULL, *spool = NULL, *once = NULL, *logfile = NULL;
	const char *pktgen_dir = NULL;
	const char *timing = "wall", *key_file = NULL, *server_key = NULL;
	bool plaintext = false;
	char *bpf_dir = NULL, host[256] = "";
	int n_ports = 0, n_labels = 0, verbose = 0, rc = 2, opt, i;
	struct inventory_config inv;

	signal(SIGPIPE, SIG_IGN);
	log_init("bpflab-agent", LOG_INFO);
	while ((opt = getopt_long(argc, argv, "vhV", longopts, NULL)) != -1) {
		struct inventory_pair pair, **list = NULL, *nl;
		int *count = NULL;

		switch (opt) {
		case 'c':
			endpoint = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 'p':
		case 'l':
			list = opt == 'p' ? &ports : &labels;
			count = opt == 'p' ? &n_ports : &n_labels;
			if (inventory_pair_parse(optarg, &pair)) {
				fprintf(stderr, "bpflab-agent: invalid %s '%s': expected %s\n",
					opt == 'p' ? "port" : "label", optarg,
					opt == 'p' ? "ROLE=IFNAME" : "KEY=VALUE");
				goto out;
			}
			nl = realloc(*list, (*count + 1) * sizeof(**list));
			if (!nl) {
				inventory_pair_release(&pair);
				rc = 1;
				goto out;
			}
			nl[(*count)++] = pair;
			*list = nl;
			break;
		case 'C': {
			struct err why;
			int ret = agent_config_load(optarg, &labels, &n_labels, &agent_provider,
						    &why);

			/* a config that cannot be used, read or not: exit 2 */
			if (ret) {
				fprintf(stderr, "bpflab-agent: %s\n", err_text(&why, ret));
				goto out;
			}
			break;
		}
		case 's':
			spool = optarg;
			break;
		case 'b':
			free(bpf_dir);
			bpf_dir = strdup(optarg);
			break;
		case 'o':
			once = optarg;
			break;
		case 'G':
			pktgen_dir = optarg;
			break;
		case 'K':
			key_file = optarg;
			break;
		case 'S':
			server_key = optarg;
			break;
		case 'P':
			plaintext = true;
			break;
		case 'T':
			if (strcmp(optarg, "wall") && strcmp(optarg, "icount")) {
				fprintf(stderr, "bpflab-agent: invalid timing '%s': expected "
					"wall or icount\n", optarg);
				goto out;
			}
			timing = optarg;
			break;
		case 'L':
			logfile = optarg;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			usage(stdout);
			rc = 0;
			goto out;
		case 'V':
			printf("bpflab-agent %s\n", AGENT_VERSION);
			rc = 0;
			goto out;
		default:
			usage(stderr);
			goto out;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bpflab-agent: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		goto out;
	}
	if (endpoint && plaintext && (key_file || server_key)) {
		fprintf(stderr, "bpflab-agent: --plaintext excludes --key and --server-key\n");
		goto out;
	}
	if (endpoint && !plaintext) {
		struct err why;

		if (!key_file || !server_key) {
			fprintf(stderr, "bpflab-agent: give --key and --server-key for CURVE, or "
				"--plaintext\n");
			goto out;
		}
		if (keys_load(key_file, true, &agent_key, &why) ||
		    keys_parse_public(server_key, agent_server_key, &why)) {
			fprintf(stderr, "bpflab-agent: %s\n", why.msg);
			rc = 1;
			goto out;
		}
		/* the coordinator lets only agent keys in (docs/security.md, "Roles"); a key
		 * made before roles is for it to judge */
		if (agent_key.role != KEYS_ROLE_AGENT && agent_key.role != KEYS_ROLE_NONE) {
			fprintf(stderr, "bpflab-agent: key '%s' has the role %s; an agent needs an "
				"agent key (bpflab keygen --role agent)\n", key_file,
				keys_role_name(agent_key.role));
			rc = 1;
			goto out;
		}
		agent_curve = true;
	}
	if (!once && !endpoint) {
		fprintf(stderr, "bpflab-agent: --coordinator or --once is required\n");
		usage(stderr);
		goto out;
	}
	if (once && endpoint) {
		fprintf(stderr, "bpflab-agent: --once and --coordinator exclude each other\n");
		goto out;
	}
	for (i = 0; i < n_ports; i++) {
		int j;

		for (j = 0; j < i; j++) {
			if (!strcmp(ports[i].key, ports[j].key)) {
				fprintf(stderr, "bpflab-agent: port role '%s' given twice\n",
					ports[i].key);
				goto out;
			}
		}
	}
	/* --once keeps stderr quiet unless asked; the daemon logs what it does */
	verbose += once ? LOG_WARN : LOG_INFO;
	log_set_level(verbose > LOG_DEBUG ? LOG_DEBUG : (enum log_level)verbose);
	if (logfile && log_set_file(logfile)) {
		fprintf(stderr, "bpflab-agent: cannot open log '%s': %s\n", logfile, strerror(errno));
		rc = 1;
		goto out;
	}
	log_route_libbpf();
	if (!bpf_dir)
		bpf_dir = paths_find(PATHS_BPF);
	gethostname(host, sizeof(host) - 1);
	inv = (struct inventory_config){
		.agent = name ? name : host,
		.ports = ports,
		.n_ports = n_ports,
		.labels = labels,
		.n_labels = n_labels,
		.timing = timing,
	};
	if (!once && agent_provider.argc) {
		inv.provider = provider_inventory();
		if (!inv.provider) {
			rc = 1;
			goto out;
		}
	}
	if (once)
		rc = run_once(once, &inv, bpf_dir, pktgen_dir);
	else
		rc = run_agent(endpoint, &inv, spool, bpf_dir, pktgen_dir);
	json_decref(inv.provider);
out:
	for (i = 0; i < n_ports; i++)
		inventory_pair_release(&ports[i]);
	for (i = 0; i < n_labels; i++)
		inventory_pair_release(&labels[i]);
	free(ports);
	free(labels);
	free(bpf_dir);
	provider_config_release(&agent_provider);
	return rc;
}
