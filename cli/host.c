// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* host.c - `bpflab host list`: the lab hosts the coordinator knows (or a database file
 * records), their state, kernel, ports, current job and noise floor; `bpflab host boot
 * HOST KERNEL`: switch a host to another kernel through its agent's kernel provider;
 * `bpflab host calibrate HOST`: measure a host's noise floor; `bpflab host show HOST`: its
 * ports with the XDP modes and features their drivers have (docs/cli.md).
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/noise.h"
#include "proto/proto.h"
#include "report/report_compare.h"
#include "base/texttable.h"
#include "base/util.h"

/* "a=veth-a veth, b=veth-b veth" from an inventory's ports: role=ifname driver. */
static char *ports_text(const json_t *inventory)
{
	const json_t *p;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	json_array_foreach(json_object_get(inventory, "ports"), i, p) {
		const char *role = json_string_value(json_object_get(p, "role"));
		const char *name = json_string_value(json_object_get(p, "name"));
		const char *driver = json_string_value(json_object_get(p, "driver"));

		fprintf(f, "%s%s%s%s%s%s", i ? ", " : "", role ? role : "", role ? "=" : "",
			name ? name : "?", driver ? " " : "", driver ? driver : "");
	}
	if (!json_array_size(json_object_get(inventory, "ports")))
		fputs("-", f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* One table row per metric of each host's noise floor (HOSTS as cli_hosts_noise gives
 * them); nothing when no host has one. */
static int print_noise(const json_t *hosts, FILE *out)
{
	static const char *const head[] = { "host", "kernel", ">run", "metric", "subject",
					    "window", ">n", ">mean", ">CV" };
	struct tt_table t = { 0 };
	const json_t *h, *noise, *m;
	size_t i, k;
	int ret = 0, rows = 0;

	if (tt_table_init(&t, 9, head))
		return cli_error("out of memory");
	json_array_foreach(hosts, i, h) {
		noise = json_object_get(h, "noise");
		json_array_foreach(json_object_get(noise, "metrics"), k, m) {
			char run[32], n[32], mean[32], cv[32];
			const char *cells[9] = {
				jget_str(h, "name", "?"),
				jget_str(noise, "kernel_release", "?"), run,
				jget_str(m, "metric", "?"), jget_str(m, "subject", ""),
				jget_str(m, "window", "-"), n,
				report_compare_num(json_number_value(json_object_get(m, "mean")),
						   mean, sizeof(mean)),
				noise_cv_text(json_number_value(json_object_get(m, "cv")), cv, sizeof(cv)),
			};

			snprintf(run, sizeof(run), "%lld", jget_int(noise, "run", 0));
			snprintf(n, sizeof(n), "%lld", jget_int(m, "n", 0));
			if (!*cells[4])
				cells[4] = "-";
			if (tt_table_add(&t, cells)) {
				ret = cli_error("out of memory");
				goto out;
			}
			rows++;
		}
	}
	if (rows) {
		fprintf(out, "\nnoise floor (run-to-run CV = stddev / mean; bpflab host calibrate)\n");
		tt_table_print(&t, out);
	}
out:
	tt_table_release(&t);
	return ret;
}

static int do_list(int argc, char **argv)
{
	static const char *const head[] = { "name", "state", "kernel", "ports", ">job" };
	struct tt_table t = { 0 };
	json_t *hosts = NULL, *h;
	int first, ret;
	size_t i;

	ret = cli_parse_opts(argc, argv, "host list", "", NULL, NULL, NULL, &first);
	if (ret)
		return ret;
	if (first < argc)
		return cli_usage_error("host list", "unexpected argument '%s'", argv[first]);
	ret = cli_hosts_noise(&hosts);
	if (ret)
		return ret;
	if (cli.json) {
		ret = cli_print_json(hosts);
		goto out;
	}
	if (tt_table_init(&t, 5, head)) {
		ret = cli_error("out of memory");
		goto out;
	}
	json_array_foreach(hosts, i, h) {
		char job[32] = "-", *ports = ports_text(json_object_get(h, "inventory"));
		json_t *j = json_object_get(h, "job");
		const char *cells[5] = {
			json_string_value(json_object_get(h, "name")),
			json_string_value(json_object_get(h, "state")),
			json_string_value(json_object_get(h, "kernel_release")), ports, job,
		};

		if (json_is_integer(j))
			snprintf(job, sizeof(job), "%lld", (long long)json_integer_value(j));
		if (!ports || tt_table_add(&t, cells)) {
			free(ports);
			ret = cli_error("out of memory");
			goto out;
		}
		free(ports);
	}
	if (json_array_size(hosts))
		tt_table_print(&t, stdout);
	else
		printf("no hosts\n");
	/* kernel switches that went wrong (the coordinator's "boot" object) */
	json_array_foreach(hosts, i, h) {
		const json_t *b = json_object_get(h, "boot");
		const char *bs = jget_str(b, "state", "");

		if (!strcmp(bs, "failed") || !strcmp(bs, "mismatch"))
			printf("host %s: switch to kernel %s %s: %s\n", jget_str(h, "name", "?"),
			       jget_str(b, "kernel", "?"), bs, jget_str(b, "error", "?"));
	}
	ret = print_noise(hosts, stdout);
out:
	tt_table_release(&t);
	json_decref(hosts);
	return ret;
}

/* --- host show --- */

/* The strings of array A joined by ", " into BUF; "-" when none or no array. */
static const char *join_strings(const json_t *a, char *buf, size_t len)
{
	const json_t *v;
	size_t i, used = 0;

	buf[0] = '\0';
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || used + 1 >= len)
			continue;
		used += snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
				 json_string_value(v));
	}
	if (!buf[0])
		snprintf(buf, len, "-");
	return buf;
}

/* Host H's ports, a row each: role, interface, driver, MTU, speed, and the XDP modes and
 * features the agent found (inventory "xdp", agent/xdpcaps.h); "?" where the agent did
 * not say (an older one), "unknown" where it could not tell. */
static int print_host_ports(const json_t *h, FILE *out)
{
	static const char *const head[] = { "port", "interface", "driver", ">mtu", ">speed",
					    "xdp modes", "xdp features", "source" };
	struct tt_table t = { 0 };
	const json_t *p;
	size_t i;
	int ret = 0;

	if (tt_table_init(&t, 8, head))
		return cli_error("out of memory");
	json_array_foreach(json_object_get(json_object_get(h, "inventory"), "ports"), i, p) {
		const json_t *x = json_object_get(p, "xdp");
		const char *src = jget_str(x, "source", "?");
		char mtu[24] = "-", speed[24] = "-", modes[96], feats[256];
		const char *cells[8];

		if (json_is_integer(json_object_get(p, "mtu")))
			snprintf(mtu, sizeof(mtu), "%lld", (long long)jget_int(p, "mtu", 0));
		if (json_is_integer(json_object_get(p, "speed")))
			snprintf(speed, sizeof(speed), "%lld", (long long)jget_int(p, "speed", 0));
		if (!x)
			snprintf(modes, sizeof(modes), "?");
		else if (!json_is_array(json_object_get(x, "modes")))
			snprintf(modes, sizeof(modes), "unknown");
		else
			join_strings(json_object_get(x, "modes"), modes, sizeof(modes));
		join_strings(json_object_get(x, "features"), feats, sizeof(feats));
		cells[0] = jget_str(p, "role", "?");
		cells[1] = jget_str(p, "name", "?");
		cells[2] = jget_str(p, "driver", jget_str(p, "error", "-"));
		cells[3] = mtu;
		cells[4] = speed;
		cells[5] = modes;
		cells[6] = feats;
		cells[7] = src;
		if (tt_table_add(&t, cells)) {
			ret = cli_error("out of memory");
			goto out;
		}
	}
	tt_table_print(&t, out);
	/* why the modes are unknown */
	json_array_foreach(json_object_get(json_object_get(h, "inventory"), "ports"), i, p) {
		const json_t *x = json_object_get(p, "xdp");

		if (x && json_object_get(x, "reason"))
			fprintf(out, "port %s: xdp modes unknown: %s\n", jget_str(p, "role", "?"),
				jget_str(x, "reason", "?"));
	}
out:
	tt_table_release(&t);
	return ret;
}

static int do_show(int argc, char **argv)
{
	json_t *hosts = NULL, *h, *found = NULL;
	const char *name;
	int first, ret;
	size_t i;

	ret = cli_parse_opts(argc, argv, "host show", "HOST", NULL, NULL, NULL, &first);
	if (ret)
		return ret;
	if (first >= argc)
		return cli_usage_error("host show", "missing HOST");
	if (first + 1 < argc)
		return cli_usage_error("host show", "unexpected argument '%s'", argv[first + 1]);
	name = argv[first];
	ret = cli_query("host_list", 0, &hosts);
	if (ret)
		return ret;
	json_array_foreach(hosts, i, h)
		if (!strcmp(jget_str(h, "name", ""), name))
			found = h;
	if (!found) {
		ret = cli_error("no host '%s' (bpflab host list names them)", name);
		goto out;
	}
	if (cli.json) {
		ret = cli_print_json(found);
		goto out;
	}
	printf("host %s  state %s  kernel %s\n", name, jget_str(found, "state", "?"),
	       jget_str(found, "kernel_release", "?"));
	ret = print_host_ports(found, stdout);
out:
	json_decref(hosts);
	return ret;
}

/* --- host boot --- */

#define HOST_BOOT_POLL_MS 1000

/* Host NAME's entry in the coordinator's host list (new reference), NULL when it has
 * none; *ERR gets an exit status when the list could not be had (error printed). */
static json_t *host_entry(const char *name, int *err)
{
	json_t *hosts = NULL, *h, *found = NULL;
	size_t i;

	*err = cli_query("host_list", 0, &hosts);
	if (*err)
		return NULL;
	json_array_foreach(hosts, i, h)
		if (!strcmp(jget_str(h, "name", ""), name))
			found = json_incref(h);
	json_decref(hosts);
	return found;
}

/* Wait up to WAIT_S seconds until HOST is connected with KERNEL, progress on stderr.
 * Returns 0, or an exit status after the error: the switch failed, the host came back
 * with another kernel, or the time ran out. */
static int boot_wait(const char *host, const char *kernel, int wait_s)
{
	int64_t t0 = util_mono_ms(), deadline = t0 + (int64_t)wait_s * 1000;
	char last[512] = "", line[512];
	const char *state = "?", *rel = "?", *bs;
	json_t *h = NULL;
	int err;

	for (;;) {
		json_decref(h);
		h = host_entry(host, &err);
		if (err)
			return err;
		if (!h)
			return cli_error("host '%s' is no longer in the coordinator's host list",
					 host);
		state = jget_str(h, "state", "?");
		rel = jget_str(h, "kernel_release", "?");
		bs = jget_str(json_object_get(h, "boot"), "state", "");
		if (!strcmp(bs, "failed") || !strcmp(bs, "mismatch")) {
			err = cli_error("host '%s' did not switch to kernel '%s': %s", host, kernel,
					jget_str(json_object_get(h, "boot"), "error", bs));
			json_decref(h);
			return err;
		}
		if (strcmp(bs, "booting") && !strcmp(rel, kernel) &&
		    (!strcmp(state, "idle") || !strcmp(state, "busy")))
			break;
		snprintf(line, sizeof(line), "host %s: %s, kernel %s", host, state, rel);
		if (strcmp(line, last)) {
			fprintf(stderr, "%s (%.0f s)\n", line, (util_mono_ms() - t0) / 1000.0);
			snprintf(last, sizeof(last), "%s", line);
		}
		if (util_mono_ms() >= deadline) {
			err = cli_error("host '%s' did not come back with kernel '%s' within %d s "
					"(it is %s, kernel %s)", host, kernel, wait_s, state, rel);
			json_decref(h);
			return err;
		}
		usleep(HOST_BOOT_POLL_MS * 1000);
	}
	fprintf(stderr, "host %s: %s with kernel %s after %.1f s\n", host, state, kernel,
		(util_mono_ms() - t0) / 1000.0);
	json_decref(h);
	return 0;
}

int cli_host_boot(const char *host, const char *kernel, int wait_s, char *from,
		  size_t from_len)
{
	json_t *req = proto_msg_new("host_boot"), *reply = NULL;
	int ret;

	if (!req || json_object_set_new(req, "host", json_string(host)) ||
	    json_object_set_new(req, "kernel", json_string(kernel))) {
		json_decref(req);
		return cli_error("out of memory");
	}
	ret = cli_request(req, "booting", &reply);
	json_decref(req);
	if (ret)
		return ret;
	if (from)
		snprintf(from, from_len, "%s", jget_str(reply, "from", "?"));
	if (wait_s > 0)
		fprintf(stderr, "host %s: switching from kernel %s to %s\n", host,
			jget_str(reply, "from", "?"), kernel);
	json_decref(reply);
	return wait_s > 0 ? boot_wait(host, kernel, wait_s) : 0;
}

int cli_host_offering(const char *kernel, const char *const *skip, int n_skip, char *out,
		       size_t len)
{
	json_t *hosts = NULL, *h, *k;
	size_t i, j;
	int ret = -ENOENT, s;

	if (cli_query("host_list", 0, &hosts))
		return -EIO;
	json_array_foreach(hosts, i, h) {
		bool skipped = false;

		for (s = 0; s < n_skip; s++)
			skipped |= !strcmp(skip[s], jget_str(h, "name", ""));
		if (skipped || strcmp(jget_str(h, "state", ""), "idle"))
			continue;
		json_array_foreach(json_object_get(json_object_get(json_object_get(h, "inventory"),
								   "provider"), "kernels"), j, k) {
			if (ret && json_is_string(k) && !strcmp(json_string_value(k), kernel)) {
				snprintf(out, len, "%s", jget_str(h, "name", ""));
				ret = 0;
			}
		}
		if (!ret)
			break;
	}
	json_decref(hosts);
	return ret;
}

struct boot_opts {
	long long wait_s;
};

enum { OPT_BOOT_WAIT = CLI_OPT_FIRST_LOCAL };

static int boot_opt(int opt, const char *arg, void *ctx)
{
	struct boot_opts *o = ctx;

	if (opt == OPT_BOOT_WAIT) {
		if (util_parse_int(arg, &o->wait_s) || o->wait_s < 1 || o->wait_s > 86400)
			return cli_usage_error("host boot", "invalid --wait '%s': expected seconds, "
					       "1 to 86400", arg);
		return 0;
	}
	return CLI_EXIT_USAGE;
}

static int do_boot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "wait", required_argument, NULL, OPT_BOOT_WAIT },
		{ NULL, 0, NULL, 0 },
	};
	struct boot_opts o = { 0 };
	int64_t t0 = util_mono_ms();
	char from[256] = "?";
	const char *host, *kernel;
	json_t *out;
	int first, ret;

	ret = cli_parse_opts(argc, argv, "host boot", "", longopts, boot_opt, &o, &first);
	if (ret)
		return ret;
	if (argc - first != 2)
		return first + 2 < argc ?
		       cli_usage_error("host boot", "unexpected argument '%s'", argv[first + 2]) :
		       cli_usage_error("host boot", "missing %s", first < argc ? "KERNEL" :
				       "HOST and KERNEL");
	if (cli.db)
		return cli_usage_error("host boot", "cannot boot with --db: a database file "
				       "answers queries only");
	host = argv[first];
	kernel = argv[first + 1];
	ret = cli_host_boot(host, kernel, (int)o.wait_s, from, sizeof(from));
	if (ret)
		return ret;
	if (!cli.json) {
		if (o.wait_s)
			printf("host %s runs kernel %s (was %s; switched in %.1f s)\n", host, kernel,
			       from, (util_mono_ms() - t0) / 1000.0);
		else
			printf("host %s: switching from kernel %s to %s\n", host, from, kernel);
		return 0;
	}
	out = json_pack("{s:s, s:s, s:s, s:b}", "host", host, "kernel", kernel, "from", from,
			"waited", o.wait_s > 0);
	if (out && o.wait_s)
		json_object_set_new(out, "seconds", json_real((util_mono_ms() - t0) / 1000.0));
	ret = out ? cli_print_json(out) : cli_error("out of memory");
	json_decref(out);
	return ret;
}

/* --- host calibrate --- */

struct calibrate_opts {
	const char *plan;		/* --plan FILE, or NULL: the built-in plan */
	json_t *overrides;
};

enum { OPT_CAL_PLAN = CLI_OPT_FIRST_LOCAL + 10 };

static int calibrate_opt(int opt, const char *arg, void *ctx)
{
	struct calibrate_opts *o = ctx;

	if (opt == OPT_CAL_PLAN) {
		o->plan = arg;
		return 0;
	}
	return cli_plan_opt(opt, arg, o->overrides);
}

/* The noise floor just recorded: ROWS of run RUN of PLAN on HOST as a table, then the
 * advice for a 2 % change in the plan's metrics. */
static int print_calibration(const char *host, long long run, const struct plan *plan,
			     const json_t *rows)
{
	/* no "id": noise_hosts_attach takes the rows by the host's name */
	json_t *hosts = json_pack("[{s:s}]", "name", host);
	struct noise_advice a;
	char text[512];
	int ret;

	if (!hosts)
		return cli_error("out of memory");
	if (noise_hosts_attach(hosts, rows)) {
		json_decref(hosts);
		return cli_error("out of memory");
	}
	printf("host %s: noise floor from run %lld\n", host, run);
	ret = print_noise(hosts, stdout);
	if (!ret && !noise_advise(hosts, plan->metrics, plan->n_metrics, 0.02, 0, &a)) {
		noise_advice_text(&a, text, sizeof(text));
		printf("a plan on it %s\n", text);
	}
	json_decref(hosts);
	return ret;
}

static int do_calibrate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "plan", required_argument, NULL, OPT_CAL_PLAN },
		{ "set", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct calibrate_opts o = { .overrides = json_array() };
	struct cli_plan cp = { 0 };
	json_t *names = NULL, *msg = NULL, *reply = NULL, *final = NULL, *out = NULL;
	const char *host, *file;
	long long run, failed;
	int first, ret;

	if (!o.overrides)
		return cli_error("out of memory");
	ret = cli_parse_opts(argc, argv, "host calibrate", "s:", longopts, calibrate_opt, &o,
			     &first);
	if (ret)
		goto out;
	if (argc - first != 1) {
		ret = first < argc ? cli_usage_error("host calibrate", "unexpected argument '%s'",
						     argv[first + 1]) :
		      cli_usage_error("host calibrate", "missing HOST");
		goto out;
	}
	if (cli.db) {
		ret = cli_usage_error("host calibrate", "cannot calibrate with --db: the "
				      "calibration runs through the coordinator");
		goto out;
	}
	host = argv[first];
	cp.overrides = json_incref(o.overrides);
	file = o.plan ? o.plan : "calibrate (built-in)";
	ret = o.plan ? cli_plan_prepare(o.plan, &cp) :
	      cli_plan_prepare_text(file, noise_calibrate_plan, strlen(noise_calibrate_plan),
				    &cp);
	if (ret)
		goto out;
	names = json_pack("[s]", host);
	ret = names ? cli_submit(file, &cp, names, &reply) : cli_error("out of memory");
	if (ret)
		goto out;
	run = jget_int(reply, "run", 0);
	fprintf(stderr, "run %lld submitted: %lld jobs of plan '%s' on host %s\n", run,
		jget_int(reply, "jobs", 0), cp.plan->name, host);
	ret = cli_run_wait(run, &final);
	if (ret)
		goto out;
	failed = jget_int(final, "jobs_failed", 0);
	if (failed)
		fprintf(stderr, "bpflab: %lld job%s of run %lld failed; the noise floor is of the "
			"others\n", failed, failed == 1 ? "" : "s", run);
	json_decref(reply);
	reply = NULL;
	msg = proto_msg_new("noise_record");
	if (!msg || json_object_set_new(msg, "run", json_integer(run))) {
		ret = cli_error("out of memory");
		goto out;
	}
	ret = cli_request(msg, "noise", &reply);
	if (ret)
		goto out;
	if (cli.json) {
		out = json_pack("{s:s, s:I, s:I, s:O}", "host", host, "run", (json_int_t)run,
				"jobs_failed", (json_int_t)failed, "noise",
				json_object_get(reply, "noise"));
		ret = out ? cli_print_json(out) : cli_error("out of memory");
	} else {
		ret = print_calibration(host, run, cp.plan, json_object_get(reply, "noise"));
	}
out:
	json_decref(out);
	json_decref(final);
	json_decref(reply);
	json_decref(msg);
	json_decref(names);
	json_decref(o.overrides);
	cli_plan_release(&cp);
	return ret;
}

static const struct cli_cmd host_cmds[] = {
	{ "list", do_list, "",
	  "List the hosts: name, state (idle, busy, gone, or booting while it switches\n"
	  "its kernel: host boot), kernel release, ports (role=ifname driver) and the job\n"
	  "running now. 'bpflab host' means the same. A host whose latest kernel switch\n"
	  "failed is named below the table. With -j, the host query objects, with\n"
	  "\"boot\" {kernel, from, state, since_ms, error} on each host asked to switch.\n"
	  "With --db FILE the same from the database (the stored switches too). Hosts\n"
	  "calibrated (host calibrate) have their latest noise floor in a second table\n"
	  "(-j: \"noise\" {run, env_id, kernel_release, measured_ms, metrics}).\n" },
	{ "show", do_show, "HOST",
	  "Show HOST: state, kernel and a row per port: role, interface, driver, MTU,\n"
	  "speed (Mb/s) and the XDP modes (native, generic, offload) and features its\n"
	  "driver has, as the agent found them (source netlink: the kernel's netdev\n"
	  "family; probe: a driver-mode attach tried; unknown: neither could tell, the\n"
	  "reason below the table; '?': an agent that does not say). A plan asking\n"
	  "mode native on a port without it is refused at run submit. With -j, the\n"
	  "host's query object (inventory.ports[].xdp). With --db FILE the same from\n"
	  "the database.\n" },
	{ "boot", do_boot, "HOST KERNEL [--wait SECONDS]",
	  "Switch HOST to kernel release KERNEL through its agent's kernel provider\n"
	  "('kernel_provider' in the agent's --config; 'bpflab host list -j' shows\n"
	  "what each host offers under inventory.provider.kernels). The coordinator\n"
	  "refuses a host it does not know, one that is gone, switching already, busy\n"
	  "or with jobs queued, one without a provider or whose provider does not list\n"
	  "KERNEL, and the kernel it runs already; otherwise the host gets no job until\n"
	  "it is back. Not with --db. With -j: {host, kernel, from, waited, seconds}.\n"
	  "\n"
	  "  --wait SECONDS        wait (1 to 86400 s) until HOST is connected again with\n"
	  "                        KERNEL (progress on stderr); fail when the provider\n"
	  "                        fails, HOST comes back with another kernel, or time\n"
	  "                        is up\n" },
	{ "calibrate", do_calibrate, "HOST [--plan FILE] [-s KEY=VALUE]...",
	  "Measure HOST's noise floor: run a plan on HOST through the coordinator (the\n"
	  "built-in one: 10 repetitions of XDP_DROP on port b, plans/calibrate.yaml),\n"
	  "then have the coordinator store, per metric and subject, the run-to-run\n"
	  "coefficient of variation (stddev / mean) of the values with the host's\n"
	  "environment. Prints it and the repetitions a plan needs for a 2 % change;\n"
	  "'host list' shows it, 'plan check' and 'run submit' use it. Progress on\n"
	  "stderr. Not with --db. With -j: {host, run, jobs_failed, noise}.\n"
	  "\n"
	  "  --plan FILE           run FILE instead of the built-in plan\n"
	  "  -s, --set KEY=VALUE   override a plan value, e.g. -s repeat=20\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct cli_object cli_host_object = {
	.name = "host",
	.cmds = host_cmds,
	.default_cmd = "list",
	.help = NULL,
};
