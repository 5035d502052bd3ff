/* main.c - bpflab-agent: command line, signals, and the choice between serving a
 * coordinator (agent.h) and running one job from a file (--once, for tests and
 * debugging).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "agent.h"
#include "inventory.h"
#include "job.h"
#include "keys.h"
#include "log.h"
#include "proto.h"
#include "provider.h"
#include "util.h"

#define MAX_JOB_FILE (PROTO_MAX_BYTES)

static atomic_int once_cancel;

static void usage(FILE *out)
{
	fprintf(out,
"usage: bpflab-agent --coordinator ENDPOINT [--name NAME] --port ROLE=IFNAME ...\n"
"                    [--label KEY=VALUE ...] [--config FILE] [--spool DIR] [--bpf-dir DIR]\n"
"                    [--timing wall|icount] [--pktgen-dir DIR] [--log FILE] [-v ...]\n"
"                    { --key FILE --server-key FILE|Z85 | --plaintext }\n"
"       bpflab-agent --once JOB.json --port ROLE=IFNAME ... [--bpf-dir DIR]\n"
"                    [--pktgen-dir DIR] [-v ...]\n"
"       bpflab-agent --help\n"
"\n"
"Serve jobs from a bpflab coordinator, or run the one job in JOB.json (a job message\n"
"body {\"job\": {\"id\", \"run\", \"spec\"}, \"objects\": {...}}) and print its result.\n"
"\n"
"  --coordinator ENDPOINT  the coordinator's agent endpoint, e.g. tcp://198.18.0.1:7701\n"
"  --name NAME             the agent's name in the lab (default: the host name)\n"
"  --port ROLE=IFNAME      map a plan's port role to a local interface (repeatable)\n"
"  --label KEY=VALUE       a label in the inventory, for plan selectors (repeatable)\n"
"  --config FILE           labels and the kernel provider from FILE (YAML, e.g.\n"
"                          'labels: {rack: r3}', 'kernel_provider: {command:\n"
"                          [PATH, ARG...]}'; docs/agent.md); a later --label of\n"
"                          the same name wins\n"
"  --key FILE              the agent's secret certificate (bpflab keygen): CURVE\n"
"  --server-key FILE|Z85   the coordinator's public key or certificate file\n"
"  --plaintext             no CURVE (a coordinator on loopback or ipc only)\n"
"  --spool DIR             keep unacknowledged results in DIR (default: in memory)\n"
"  --bpf-dir DIR           read objects a job does not carry from DIR\n"
"                          (default: ../bpf beside the binary)\n"
"  --timing wall|icount    what time means on this host: wall (default) or icount, a\n"
"                          QEMU guest under -icount where a nanosecond is an instruction\n"
"  --pktgen-dir DIR        the pktgen generator's control files (pgctrl, kpktgend_N,\n"
"                          devices) in DIR instead of /proc/net/pktgen: for tests\n"
"  --once JOB.json         run one job, print the result JSON; exit 0 if it succeeded\n"
"  --log FILE              log to FILE instead of stderr\n"
"  -v, --verbose           log more (repeatable)\n"
"  -h, --help              this help\n");
}

/* Append pair KEY=VALUE to *LIST (*N entries). Returns 0 or -ENOMEM. */
static int pair_add(struct inventory_pair **list, int *n, const char *key, const char *value)
{
	struct inventory_pair *nl = realloc(*list, (*n + 1) * sizeof(**list));

	if (!nl)
		return -ENOMEM;
	*list = nl;
	nl[*n].key = strdup(key);
	nl[*n].value = strdup(value);
	if (!nl[*n].key || !nl[*n].value) {
		inventory_pair_release(&nl[*n]);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

/* A YAML error at node N of FILE: "FILE:LINE:COLUMN: MESSAGE". Returns 2. */
static int config_error(const char *file, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int config_error(const char *file, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%zu:%zu: ", file, n->start_mark.line + 1, n->start_mark.column + 1);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static const char *scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* `labels: {NAME: VALUE, ...}`, appended to *LABELS. Returns 0 or 2 after the error. */
static int config_labels(const char *file, yaml_document_t *doc, yaml_node_t *v,
			 struct inventory_pair **labels, int *n_labels)
{
	yaml_node_t *lk, *lv;
	yaml_node_pair_t *q;

	if (v->type != YAML_MAPPING_NODE)
		return config_error(file, v, "'labels' must map names to values");
	for (q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
		lk = yaml_document_get_node(doc, q->key);
		lv = yaml_document_get_node(doc, q->value);
		if (!scalar(lk) || !scalar(lv) || !lk->data.scalar.length ||
		    !lv->data.scalar.length)
			return config_error(file, lk, "a label is NAME: VALUE, both non-empty "
					    "scalars");
		if (pair_add(labels, n_labels, scalar(lk), scalar(lv))) {
			fprintf(stderr, "bpflab-agent: out of memory\n");
			return 2;
		}
	}
	return 0;
}

/* One argv word of the provider's command into PC. Returns 0 or 2 after the error. */
static int provider_word(const char *file, const yaml_node_t *n, struct provider_config *pc)
{
	const char *w = scalar(n);

	if (!w || !*w)
		return config_error(file, n, "'kernel_provider.command' words must be non-empty "
				    "scalars");
	if (pc->argc >= PROVIDER_MAX_ARGS)
		return config_error(file, n, "'kernel_provider.command' has more than %d words",
				    PROVIDER_MAX_ARGS);
	if (!pc->argc && w[0] != '/')
		return config_error(file, n, "'kernel_provider.command' must start with an "
				    "absolute path, not '%s' (no PATH search, no shell)", w);
	pc->argv[pc->argc] = strdup(w);
	if (!pc->argv[pc->argc]) {
		fprintf(stderr, "bpflab-agent: out of memory\n");
		return 2;
	}
	pc->argc++;
	return 0;
}

/* A timeout in whole seconds (1..3600) into *MS. Returns 0 or 2 after the error. */
static int provider_timeout(const char *file, const yaml_node_t *n, const char *what, int *ms)
{
	long long s;

	if (!scalar(n) || util_parse_int(scalar(n), &s) || s < 1 || s > 3600)
		return config_error(file, n, "'kernel_provider.%s' must be seconds, 1 to 3600",
				    what);
	*ms = (int)s * 1000;
	return 0;
}

/* `kernel_provider: {command: PATH | [PATH, ARG...], list_timeout: S, boot_timeout: S}`
 * into PC (docs/agent.md). Returns 0 or 2 after the error. */
static int config_provider(const char *file, yaml_document_t *doc, yaml_node_t *v,
			   struct provider_config *pc)
{
	yaml_node_item_t *it;
	yaml_node_pair_t *q;
	yaml_node_t *k, *x;
	int rc;

	if (v->type != YAML_MAPPING_NODE)
		return config_error(file, v, "'kernel_provider' must be a mapping, e.g. "
				    "'kernel_provider: {command: [/usr/local/sbin/provider]}'");
	provider_config_release(pc);
	for (q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
		k = yaml_document_get_node(doc, q->key);
		x = yaml_document_get_node(doc, q->value);
		if (scalar(k) && !strcmp(scalar(k), "command")) {
			if (x->type == YAML_SCALAR_NODE) {
				rc = provider_word(file, x, pc);
			} else if (x->type == YAML_SEQUENCE_NODE) {
				rc = 0;
				for (it = x->data.sequence.items.start;
				     !rc && it < x->data.sequence.items.top; it++)
					rc = provider_word(file, yaml_document_get_node(doc, *it), pc);
			} else {
				rc = config_error(file, x, "'kernel_provider.command' is a path or "
						  "a list of argv words");
			}
		} else if (scalar(k) && !strcmp(scalar(k), "list_timeout")) {
			rc = provider_timeout(file, x, "list_timeout", &pc->list_timeout_ms);
		} else if (scalar(k) && !strcmp(scalar(k), "boot_timeout")) {
			rc = provider_timeout(file, x, "boot_timeout", &pc->boot_timeout_ms);
		} else {
			rc = config_error(file, k, "unknown key 'kernel_provider.%s' (known: "
					  "command, list_timeout, boot_timeout)",
					  scalar(k) ? scalar(k) : "?");
		}
		if (rc)
			return rc;
	}
	if (!pc->argc)
		return config_error(file, v, "'kernel_provider' needs a 'command'");
	if (access(pc->argv[0], X_OK))
		return config_error(file, v, "kernel provider '%s' is not executable: %s",
				    pc->argv[0], strerror(errno));
	return 0;
}

/* Read the agent's config FILE, a YAML mapping with `labels` (label names to scalar
 * values, `labels: {rack: r3}`) and `kernel_provider` (docs/agent.md); other members are
 * refused so that a typo is noticed. The labels are appended to *LABELS (--label given
 * later overrides them), the provider goes to *PC. Returns 0, or 2 after printing
 * FILE:LINE:COLUMN: message. */
static int load_config(const char *file, struct inventory_pair **labels, int *n_labels,
		       struct provider_config *pc)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *k, *v;
	yaml_node_pair_t *p;
	FILE *f = fopen(file, "r");
	int rc = 2;

	if (!f) {
		fprintf(stderr, "bpflab-agent: cannot open config '%s': %s\n", file,
			strerror(errno));
		return 2;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		fprintf(stderr, "%s:%zu:%zu: %s\n", file, parser.problem_mark.line + 1,
			parser.problem_mark.column + 1, parser.problem ? parser.problem : "bad YAML");
		goto out_parser;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		rc = 0;		/* an empty file */
		goto out;
	}
	if (root->type != YAML_MAPPING_NODE) {
		config_error(file, root, "the config must be a mapping, e.g. 'labels: {rack: r3}'");
		goto out;
	}
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(&doc, p->key);
		v = yaml_document_get_node(&doc, p->value);
		if (scalar(k) && !strcmp(scalar(k), "labels"))
			rc = config_labels(file, &doc, v, labels, n_labels);
		else if (scalar(k) && !strcmp(scalar(k), "kernel_provider"))
			rc = config_provider(file, &doc, v, pc);
		else
			rc = config_error(file, k, "unknown key '%s' (known: labels, "
					  "kernel_provider)", scalar(k) ? scalar(k) : "?");
		if (rc)
			goto out;
	}
	rc = 0;
out:
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&parser);
	fclose(f);
	return rc;
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&once_cancel, 1);
}

/* ../bpf beside the binary (build/bin -> build/bpf) when it exists. */
static char *default_bpf_dir(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 8];
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	snprintf(dir, sizeof(dir), "%s/../bpf", dirname(exe));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return NULL;
	return realpath(dir, NULL);
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
		pr_warn("cannot read job '%s': %s", file, strerror(-err));
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
			.sz = sizeof(jo),
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
	rc = strcmp(proto_get_str(result, "status", ""), "ok") ? 1 : 0;
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
	char why[512] = "";
	int64_t t0 = util_mono_ms();
	int err = provider_list(&agent_provider, &kernels, why, sizeof(why));

	if (err) {
		pr_warn("%s; offering no kernels", why);
		kernels = json_array();
	} else {
		pr_info("kernel provider '%s': %zu kernel%s in %lld ms", agent_provider.argv[0],
			json_array_size(kernels), json_array_size(kernels) == 1 ? "" : "s",
			(long long)(util_mono_ms() - t0));
	}
	obj = json_pack("{s:s, s:o}", "command", agent_provider.argv[0], "kernels", kernels);
	if (obj && err)
		json_object_set_new(obj, "error", json_string(why));
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
			.sz = sizeof(ao),
			.endpoint = endpoint,
			.inv = inv,
			.spool_dir = spool_dir,
			.bpf_dir = bpf_dir,
			.stop_fd = sfd,
			.key = agent_curve ? &agent_key : NULL,
			.server_key = agent_server_key,
			.pktgen_dir = pktgen_dir,
			.provider = agent_provider.argc ? &agent_provider : NULL,
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
	while ((opt = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
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
		case 'C':
			if (load_config(optarg, &labels, &n_labels, &agent_provider))
				goto out;
			break;
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
		char why[512];

		if (!key_file || !server_key) {
			fprintf(stderr, "bpflab-agent: give --key and --server-key for CURVE, or "
				"--plaintext\n");
			goto out;
		}
		if (keys_load(key_file, true, &agent_key, why, sizeof(why)) ||
		    keys_parse_public(server_key, agent_server_key, why, sizeof(why))) {
			fprintf(stderr, "bpflab-agent: %s\n", why);
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
		bpf_dir = default_bpf_dir();
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
