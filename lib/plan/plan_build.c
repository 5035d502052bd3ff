// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_build.c - see plan_int.h. plan_build(): a whole plan tree checked against the plan
 * format (docs/plans.md) into a struct plan, with the small sections it reads itself
 * (hosts, ports, traffic, metrics, link, repeat); variants and matrix are built by
 * plan_attach.c and plan_matrix.c. The struct's strings point into the tree; only its
 * arrays are allocated here (plan_fields_release frees them).
 */
#include "plan/plan_int.h"
#include "plan/jobspec.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const root_keys[] = {
	"name", "description", "hosts", "ports", "traffic", "variants", "matrix", "repeat",
	"metrics", "link", "min_effect", "share_machine", "verifier", "search",
	"latency", NULL,
};
static const char *const repeat_keys[] = { "min", "max", "until", "on", NULL };
static const char *const link_keys[] = { "generator", "dut", NULL };
static const char *const hosts_keys[] = { "match", "count", NULL };
static const char *const traffic_keys[] = {
	"generator", "from", "to", "packet", "threads", "cpus", "duration", "warmup", "rate",
	"burst", NULL,
};
static const char *const packet_keys[] = { "size", "proto", "flows", NULL };

static const char *const known_metrics[] = {
	"port.rx_pps", "port.tx_pps", "port.drop_pps", "gen.tx_pps", "prog.ns_per_run",
	"prog.run_pps", "cpu.softirq", "cpu.busy", "counter.pps",
	"gen.offered_pps",	/* with traffic.rate, always */
	/* the receive path's poll time per frame (tracepoints; only when listed) */
	"rx.ns_per_frame", "rx.softirq_ns_per_frame",
	/* what each load cost (docs/agent.md, "Metrics"), the verifier's with `verifier: stats` */
	"verifier.insns", "prog.jited_bytes", "prog.xlated_insns", "verifier.processed_insns",
	"verifier.total_states", "verifier.peak_states", "verifier.time_us", NULL,
};
static const char *const default_metrics[] = {
	"port.rx_pps", "port.tx_pps", "port.drop_pps", "gen.tx_pps", "prog.ns_per_run",
	"prog.run_pps",
};

/* nic.NAME: a port's driver counter as the agent names it (agent/ethstats.h: the
 * driver's string in [A-Za-z0-9_.-], "#K" after a name the driver repeats), at most
 * PLAN_MAX_NIC_NAME characters; whether a port exports it is the agent's to say */
static bool nic_metric(const char *name)
{
	const char *n = name + 4, *hash = strchr(n, '#');
	size_t len = strlen(n);

	if (strncmp(name, "nic.", 4) || !len || len > PLAN_MAX_NIC_NAME)
		return false;
	if (strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
	    (size_t)(hash ? hash - n : (ptrdiff_t)len) || hash == n)
		return false;
	return !hash || (hash[1] && strspn(hash + 1, "0123456789") == strlen(hash + 1));
}

bool plan_metric_known(const char *name)
{
	const char *const *m;

	if (name && nic_metric(name))
		return true;
	for (m = known_metrics; name && *m; m++) {
		if (!strcmp(*m, name))
			return true;
	}
	return false;
}

static int build_hosts(struct vctx *c, const struct plan_node *hosts, struct plan *p)
{
	const struct plan_node *match, *count;
	char buf[400];
	int i, ret;

	if ((ret = plan_want_map(c, hosts, "hosts")) ||
	    (ret = plan_check_keys(c, hosts, hosts_keys, "hosts")))
		return ret;
	match = plan_opt(hosts, "match");
	if (match) {
		if ((ret = plan_want_map(c, match, "hosts.match")))
			return ret;
		if (match->n / 2 > PLAN_MAX_MATCH)
			return plan_vfail(c, match,
					  "hosts.match: at most %d selectors are supported",
					  PLAN_MAX_MATCH);
		p->match = calloc(match->n / 2 + 1, sizeof(*p->match));
		if (!p->match)
			return plan_oom(c);
		for (i = 0; i + 1 < match->n; i += 2) {
			const struct plan_node *k = match->kids[i], *v = match->kids[i + 1];
			struct plan_match *m = &p->match[p->n_match];

			if (!util_name_ok(k->text, "._-", PLAN_MAX_NAME))
				return plan_vfail(c, k, "hosts.match: expected an inventory key such as port.driver or kernel.release, got '%s'",
						  plan_shown(k->text, buf, sizeof(buf)));
			if ((ret = plan_want_text(c, v, "hosts.match", "a value", PLAN_MAX_VALUE)))
				return ret;
			m->key = k->text;
			m->value = v->text;
			m->line = k->line;
			m->col = k->col;
			p->n_match++;
		}
	}
	count = plan_opt(hosts, "count");
	p->host_count = 0;
	if (count && !(count->kind == PLAN_NODE_SCALAR && !strcmp(count->text, "all"))) {
		long long v;

		if (!plan_parse_int(count, &v) || v < 1 || v > PLAN_MAX_HOSTS)
			return plan_vfail(c, count, "hosts.count: expected 'all' or an integer from 1 to %d, got %s",
					  PLAN_MAX_HOSTS, plan_got(count, buf, sizeof(buf)));
		p->host_count = (int)v;
	}
	return 0;
}

static int build_ports(struct vctx *c, const struct plan_node *ports, struct plan *p)
{
	char buf[400];
	int i, j, ret;

	if ((ret = plan_want_list(c, ports, "ports", "port roles", PLAN_MAX_PORTS)))
		return ret;
	p->ports = calloc(ports->n, sizeof(*p->ports));
	if (!p->ports)
		return plan_oom(c);
	for (i = 0; i < ports->n; i++) {
		const struct plan_node *role = ports->kids[i];

		if ((ret = plan_want_name(c, role, "ports", "_-",
					  "a port role of letters, digits, '_' and '-'")))
			return ret;
		for (j = 0; j < i; j++) {
			if (!strcmp(ports->kids[j]->text, role->text))
				return plan_vfail(c, role,
						  "ports: duplicate port '%s' (first at %d:%d)",
						  plan_shown(role->text, buf, sizeof(buf)),
						  ports->kids[j]->line, ports->kids[j]->col);
		}
		p->ports[p->n_ports++] = role->text;
	}
	return 0;
}

/* traffic.cpus: a list of CPU numbers (or one number, so that a matrix can vary it). */
static int build_cpus(struct vctx *c, const struct plan_node *node, struct plan_traffic *t)
{
	const struct plan_node *one[1] = { node };
	const struct plan_node *const *kids = one;
	int n = 1, i, j, ret;

	if (node->kind != PLAN_NODE_SCALAR) {
		if ((ret = plan_want_list(c, node, "traffic.cpus", "CPU numbers", JOBSPEC_MAX_CPUS)))
			return ret;
		kids = (const struct plan_node *const *)node->kids;
		n = node->n;
	}
	t->cpus = calloc(n, sizeof(*t->cpus));
	if (!t->cpus)
		return plan_oom(c);
	for (i = 0; i < n; i++) {
		if ((ret = plan_want_int(c, kids[i], "traffic.cpus", 0, JOBSPEC_MAX_CPU,
					 &t->cpus[i])))
			return ret;
		t->n_cpus++;
		for (j = 0; j < i; j++) {
			if (t->cpus[j] == t->cpus[i])
				return plan_vfail(c, kids[i], "traffic.cpus: duplicate CPU %d (first at %d:%d)",
						  t->cpus[i], kids[j]->line, kids[j]->col);
		}
	}
	return 0;
}

/* `rate: 200000` (frames/s, 1..JOBSPEC_MAX_RATE_PPS) or `rate: 10%` (a share of the
 * sending port's line rate, above 0 and at most 100 %), only with a generator. Whether
 * the port has a line rate, and the rate is below it, only the hosts know: submit checks
 * each chosen host (plan_rate_check), the agent the job. */
static int build_rate(struct vctx *c, const struct plan_node *node, struct plan_traffic *t)
{
	char buf[400], *end;
	long long pps;
	double v;

	if (t->generator == JOB_GEN_NONE)
		return plan_vfail(c, node, "traffic.rate: needs a generator (traffic.generator is none)");
	t->rate_line = node->line;
	t->rate_col = node->col;
	if (plan_parse_int(node, &pps) && pps >= 1 && pps <= JOBSPEC_MAX_RATE_PPS) {
		t->rate_pps = pps;
		return 0;
	}
	if (node->kind == PLAN_NODE_SCALAR && node->text[0] && node->text[0] != ' ') {
		errno = 0;
		v = strtod(node->text, &end);
		if (!errno && end != node->text && end[0] == '%' && !end[1] && v > 0 && v <= 100) {
			t->rate_share = v / 100;
			return 0;
		}
	}
	return plan_vfail(c, node, "traffic.rate: expected frames per second from 1 to %lld (such as 200000) or a share of the port's line rate above 0%% and at most 100%% (such as 10%%), got %s",
			  JOBSPEC_MAX_RATE_PPS, plan_got(node, buf, sizeof(buf)));
}

/* `burst: 16`: frames a generator sends back to back at most (docs/plans.md), 1 to what
 * one of its calls can send: JOBSPEC_MAX_BURST_UDP with udp (one sendmmsg()), else
 * JOBSPEC_MAX_BURST; only with a generator. */
static int build_burst(struct vctx *c, const struct plan_node *node, struct plan_traffic *t)
{
	int max = t->generator == JOB_GEN_UDP ? JOBSPEC_MAX_BURST_UDP : JOBSPEC_MAX_BURST;
	char buf[400];
	long long v;

	if (t->generator == JOB_GEN_NONE)
		return plan_vfail(c, node, "traffic.burst: needs a generator (traffic.generator is none)");
	if (!plan_parse_int(node, &v) || v < 1 || v > max)
		return plan_vfail(c, node, "traffic.burst: expected frames from 1 to %d (what one %s call sends at most), got %s",
				  max, t->generator == JOB_GEN_UDP ? "udp (sendmmsg)" :
				  t->generator == JOB_GEN_PKTGEN ? "pktgen" : "xdp-live",
				  plan_got(node, buf, sizeof(buf)));
	t->burst = (int)v;
	return 0;
}

static int build_traffic(struct vctx *c, const struct plan_node *traffic, struct plan *p)
{
	struct plan_traffic *t = &p->traffic;
	const struct plan_node *packet, *node, *size = NULL;
	int v, ret;

	if ((ret = plan_want_map(c, traffic, "traffic")) ||
	    (ret = plan_check_keys(c, traffic, traffic_keys, "traffic")))
		return ret;
	if ((node = plan_opt(traffic, "generator"))) {
		if ((ret = plan_want_enum(c, node, "traffic.generator", jobspec_generator_names,
					  &v)))
			return ret;
		t->generator = v;
	}
	node = plan_opt(traffic, "from");
	if (t->generator != JOB_GEN_NONE && !node &&
	    (ret = plan_need(c, traffic, "from", "traffic", (struct plan_node **)&node)))
		return ret;
	if (node) {
		if ((ret = plan_want_port(c, p, node, "traffic.from")))
			return ret;
		t->from = t->generator == JOB_GEN_NONE ? NULL : node->text;
	}
	if ((node = plan_opt(traffic, "to"))) {
		if ((ret = plan_want_port(c, p, node, "traffic.to")))
			return ret;
		if (t->from && !strcmp(t->from, node->text))
			return plan_vfail(c, node, "traffic.to: the destination must differ from traffic.from '%s'",
					  t->from);
		t->to = node->text;
	}
	if ((node = plan_opt(traffic, "cpus")) && (ret = build_cpus(c, node, t)))
		return ret;
	packet = plan_opt(traffic, "packet");
	if (packet) {
		if ((ret = plan_want_map(c, packet, "traffic.packet")) ||
		    (ret = plan_check_keys(c, packet, packet_keys, "traffic.packet")))
			return ret;
		if ((node = plan_opt(packet, "proto"))) {
			if ((ret = plan_want_enum(c, node, "traffic.packet.proto",
						  jobspec_proto_names, &v)))
				return ret;
			t->proto = v;
		}
		if ((size = plan_opt(packet, "size")) &&
		    (ret = plan_want_int(c, size, "traffic.packet.size", 60, 9000, &t->size)))
			return ret;
		if ((node = plan_opt(packet, "flows")) &&
		    (ret = plan_want_int(c, node, "traffic.packet.flows", 1, JOBSPEC_MAX_FLOWS,
					 &t->flows)))
			return ret;
	}
	if (t->proto == JOB_PROTO_UDP6 && t->size < 62)
		return plan_vfail(c, size, "traffic.packet.size: udp6 frames need at least 62 bytes, got %d",
				  t->size);
	if ((node = plan_opt(traffic, "threads")) &&
	    (ret = plan_want_int(c, node, "traffic.threads", 1, JOBSPEC_MAX_THREADS, &t->threads)))
		return ret;
	if ((ret = plan_need(c, traffic, "duration", "traffic", (struct plan_node **)&node)) ||
	    (ret = plan_want_duration(c, node, "traffic.duration", 1, JOBSPEC_MAX_DURATION_MS,
				      "1ms to 60m", &t->duration_ms)))
		return ret;
	if ((node = plan_opt(traffic, "warmup")) &&
	    (ret = plan_want_duration(c, node, "traffic.warmup", 0, PLAN_MAX_WARMUP_MS, "0s to 10m",
				      &t->warmup_ms)))
		return ret;
	if ((node = plan_opt(traffic, "rate")) && (ret = build_rate(c, node, t)))
		return ret;
	if ((node = plan_opt(traffic, "burst")) && (ret = build_burst(c, node, t)))
		return ret;
	return 0;
}

static int build_metrics(struct vctx *c, const struct plan_node *metrics, struct plan *p)
{
	char buf[400], list[512];
	int i, j, ret;

	if ((ret = plan_want_list(c, metrics, "metrics", "metric names",
				  (int)ARRAY_SIZE(known_metrics) - 1 + PLAN_MAX_NIC_METRICS)))
		return ret;
	p->metrics = calloc(metrics->n, sizeof(*p->metrics));
	if (!p->metrics)
		return plan_oom(c);
	for (i = 0; i < metrics->n; i++) {
		const struct plan_node *m = metrics->kids[i];

		if (m->kind != PLAN_NODE_SCALAR || !plan_metric_known(m->text))
			return plan_vfail(c, m, "metrics: unknown metric %s (known: %s, nic.NAME: a driver counter of ethtool -S)",
					  plan_got(m, buf, sizeof(buf)),
					  plan_joined(known_metrics, -1, list, sizeof(list)));
		for (j = 0; j < i; j++) {
			if (!strcmp(p->metrics[j], m->text))
				return plan_vfail(c, m, "metrics: duplicate metric '%s' (first at %d:%d)",
						  m->text, metrics->kids[j]->line, metrics->kids[j]->col);
		}
		p->metrics[p->n_metrics++] = m->text;
	}
	return 0;
}

void plan_fields_release(struct plan *p)
{
	int i, j;

	free(p->match);
	free(p->ports);
	for (i = 0; p->variants && i < p->n_variants; i++) {
		for (j = 0; p->variants[i].attach && j < p->variants[i].n_attach; j++) {
			free(p->variants[i].attach[j].fills);
			free(p->variants[i].attach[j].counters);
		}
		free(p->variants[i].attach);
	}
	free(p->traffic.cpus);
	free(p->variants);
	for (i = 0; p->matrix && i < p->n_axes; i++)
		free(p->matrix[i].values);
	free(p->matrix);
	free(p->metrics);
	free(p->repeat_on);
	p->repeat_on = NULL;
	p->n_repeat_on = 0;
	p->name = p->description = NULL;
	p->match = NULL;
	p->n_match = 0;
	p->host_count = 0;
	p->ports = NULL;
	p->n_ports = 0;
	memset(&p->traffic, 0, sizeof(p->traffic));
	p->variants = NULL;
	p->n_variants = 0;
	p->matrix = NULL;
	p->n_axes = 0;
	p->repeat = 0;
	p->metrics = NULL;
	p->n_metrics = 0;
	p->has_search = false;
	p->has_latency = false;
}

/* Whether any attach entry of P exports counters. */
static bool plan_has_counters(const struct plan *p)
{
	int v, i;

	for (v = 0; v < p->n_variants; v++) {
		for (i = 0; i < p->variants[v].n_attach; i++) {
			if (p->variants[v].attach[i].n_counters)
				return true;
		}
	}
	return false;
}

/* link: {generator: X, dut: Y}: two distinct port roles of the plan. */
static int build_link(struct vctx *c, const struct plan_node *link, struct plan *p)
{
	struct plan_node *gen, *dut;
	int ret;

	if ((ret = plan_want_map(c, link, "link")) ||
	    (ret = plan_check_keys(c, link, link_keys, "link")) ||
	    (ret = plan_need(c, link, "generator", "link", &gen)) ||
	    (ret = plan_want_port(c, p, gen, "link.generator")) ||
	    (ret = plan_need(c, link, "dut", "link", &dut)) ||
	    (ret = plan_want_port(c, p, dut, "link.dut")))
		return ret;
	if (!strcmp(gen->text, dut->text))
		return plan_vfail(c, dut, "link.dut: the device under test's port must differ from the generator's '%s'",
				  gen->text);
	p->link_generator = gen->text;
	p->link_dut = dut->text;
	p->link_line = link->line;
	p->link_col = link->col;
	return 0;
}

/* A two-host plan: exactly the link's two ports, traffic out of the generator's. */
static int check_link(struct vctx *c, const struct plan_node *root, struct plan *p)
{
	struct plan_node *node = NULL;

	if (p->n_ports != 2) {
		plan_node_get(root, "ports", &node);
		return plan_vfail(c, node, "ports: a plan with a link has exactly its two ports ('%s' and '%s')",
				  p->link_generator, p->link_dut);
	}
	if (p->traffic.to) {
		plan_node_get(root, "traffic", &node);
		return plan_vfail(c, node, "traffic.to: a plan with a link sends to the device under test's port '%s'; leave 'to' out",
				  p->link_dut);
	}
	if (p->traffic.from && strcmp(p->traffic.from, p->link_generator)) {
		plan_node_get(root, "traffic", &node);
		return plan_vfail(c, node, "traffic.from: a plan with a link sends out of the generator's port '%s', not '%s'",
				  p->link_generator, p->traffic.from);
	}
	return 0;
}

/* A percentage "2%", "0.5 %" or a bare number of percent ("2"), strictly inside
 * (LO, HI) percent, into *OUT as a fraction (0.02). */
static int want_bool(struct vctx *c, const struct plan_node *node, const char *path,
		     bool *out)
{
	static const char *const names[] = { "false", "true", NULL };
	int v;
	int ret = plan_want_enum(c, node, path, names, &v);

	if (!ret)
		*out = v == 1;
	return ret;
}

/* `repeat: N` or `repeat: {min: 3, max: 20, until: 2%, on: [prog.ns_per_run]}`. The
 * metrics of `on` are checked against the plan's metrics by check_repeat_on, once those
 * are known. */
static int build_repeat(struct vctx *c, const struct plan_node *node, struct plan *p)
{
	const struct plan_node *min, *max, *until, *on;
	char buf[400];
	int ret, i;

	p->repeat_line = node->line;
	p->repeat_col = node->col;
	if (node->kind != PLAN_NODE_MAP) {
		ret = plan_want_int(c, node, "repeat", 1, PLAN_MAX_REPEAT, &p->repeat);
		p->repeat_max = p->repeat;
		return ret;
	}
	if ((ret = plan_check_keys(c, node, repeat_keys, "repeat")))
		return ret;
	min = plan_node_get(node, "min", NULL);
	max = plan_node_get(node, "max", NULL);
	until = plan_node_get(node, "until", NULL);
	on = plan_node_get(node, "on", NULL);
	if (!max || plan_node_is_null(max))
		return plan_vfail(c, node, "repeat: missing required key 'max' (the most repetitions to add up to)");
	if ((ret = plan_want_int(c, max, "repeat.max", 1, PLAN_MAX_REPEAT, &p->repeat_max)))
		return ret;
	/* 5: below it compare takes a rank test, which cannot reach p < 0.05 with 3 + 3
	 * values (docs/analysis.md); a side settled at 3 could never show a change */
	p->repeat = p->repeat_max < 5 ? p->repeat_max : 5;
	if (min && !plan_node_is_null(min) &&
	    (ret = plan_want_int(c, min, "repeat.min", 1, PLAN_MAX_REPEAT, &p->repeat)))
		return ret;
	if (p->repeat > p->repeat_max)
		return plan_vfail(c, min ? min : node, "repeat: min %d is more than max %d",
				  p->repeat, p->repeat_max);
	p->repeat_until = 0.02;
	if (until && !plan_node_is_null(until) &&
	    (ret = plan_want_percent(c, until, "repeat.until", 0, 100, &p->repeat_until)))
		return ret;
	if (!on || plan_node_is_null(on))
		return 0;
	if ((ret = plan_want_list(c, on, "repeat.on", "metric names",
				  (int)ARRAY_SIZE(known_metrics) - 1 + PLAN_MAX_NIC_METRICS)))
		return ret;
	p->repeat_on = calloc((size_t)on->n + 1, sizeof(*p->repeat_on));
	if (!p->repeat_on)
		return plan_oom(c);
	for (i = 0; i < on->n; i++) {
		const struct plan_node *m = on->kids[i];

		if (m->kind != PLAN_NODE_SCALAR || !plan_metric_known(m->text))
			return plan_vfail(c, m, "repeat.on: unknown metric %s",
					  plan_got(m, buf, sizeof(buf)));
		p->repeat_on[p->n_repeat_on++] = m->text;
	}
	return 0;
}

/* Every metric of repeat.on must be measured: one of the plan's metrics. */
static int check_repeat_on(struct vctx *c, const struct plan_node *root, struct plan *p)
{
	const struct plan_node *on = NULL, *rep = plan_node_get(root, "repeat", NULL);
	char list[400];
	int i, j;

	if (rep && rep->kind == PLAN_NODE_MAP)
		on = plan_node_get(rep, "on", NULL);
	for (i = 0; i < p->n_repeat_on; i++) {
		for (j = 0; j < p->n_metrics; j++)
			if (!strcmp(p->repeat_on[i], p->metrics[j]))
				break;
		if (j == p->n_metrics)
			return plan_vfail(c, on && i < on->n ? on->kids[i] : rep,
					  "repeat.on: '%s' is not among the plan's metrics (%s)",
					  p->repeat_on[i],
					  plan_joined((const char *const *)p->metrics, p->n_metrics, list,
						      sizeof(list)));
	}
	return 0;
}

int plan_build(struct vctx *c, const struct plan_node *root, struct plan *p)
{
	struct plan_node *node;
	long long jobs, attach;
	char buf[400];
	int i, ret;

	p->traffic.size = JOBSPEC_DEFAULT_SIZE;
	p->traffic.proto = JOB_PROTO_UDP4;
	p->traffic.flows = JOBSPEC_DEFAULT_FLOWS;
	p->traffic.threads = JOBSPEC_DEFAULT_THREADS;
	p->traffic.warmup_ms = 1000;
	p->traffic.generator = JOB_GEN_XDP_LIVE;
	p->repeat = 1;
	p->repeat_max = 1;
	p->min_effect = 0.02;

	if (!root || plan_node_is_null(root))
		return plan_vfail(c, NULL, "empty plan");
	if (root->kind != PLAN_NODE_MAP)
		return plan_vfail(c, root, "a plan must be a map of keys (name, ports, traffic, ...), got %s",
				  plan_got(root, buf, sizeof(buf)));
	if ((ret = plan_check_keys(c, root, root_keys, "the plan")))
		return ret;
	if ((ret = plan_need(c, root, "name", NULL, &node)) ||
	    (ret = plan_need(c, root, "ports", NULL, &node)) ||
	    (ret = plan_need(c, root, "traffic", NULL, &node)) ||
	    (ret = plan_need(c, root, "variants", NULL, &node)))
		return ret;
	if ((ret = build_ports(c, plan_node_get(root, "ports", NULL), p)))
		return ret;
	for (i = 0; i + 1 < root->n; i += 2) {
		const char *key = root->kids[i]->text;

		node = root->kids[i + 1];
		if (!strcmp(key, "name")) {
			ret = plan_want_name(c, node, "name", PLAN_NAME_EXTRA,
					     "a plan name of letters, digits, '.', '_' and '-'");
			p->name = node->text;
		} else if (!strcmp(key, "description")) {
			if (plan_node_is_null(node))
				continue;
			ret = node->kind == PLAN_NODE_SCALAR ? 0 :
			      plan_vfail(c, node, "description: expected a text, got %s",
					 plan_got(node, buf, sizeof(buf)));
			p->description = node->text;
		} else if (!strcmp(key, "hosts")) {
			ret = plan_node_is_null(node) ? 0 : build_hosts(c, node, p);
		} else if (!strcmp(key, "traffic")) {
			ret = build_traffic(c, node, p);
		} else if (!strcmp(key, "variants")) {
			/* Nor the variants: a point can change neither them nor the ports
			 * they refer to, so share the plan's (see plan_point_release). */
			if (c->base) {
				p->variants = c->base->variants;
				p->n_variants = c->base->n_variants;
				continue;
			}
			ret = plan_build_variants(c, node, p);
		} else if (!strcmp(key, "matrix")) {
			/* A point cannot change the matrix (it was checked with the plan). */
			ret = plan_node_is_null(node) || c->point ? 0 :
			      plan_build_matrix(c, node, p);
		} else if (!strcmp(key, "repeat")) {
			ret = plan_node_is_null(node) || c->point ? 0 : build_repeat(c, node, p);
		} else if (!strcmp(key, "min_effect")) {
			ret = plan_node_is_null(node) ? 0 :
			      plan_want_percent(c, node, "min_effect", 0, 100, &p->min_effect);
		} else if (!strcmp(key, "share_machine")) {
			ret = plan_node_is_null(node) ? 0 :
			      want_bool(c, node, "share_machine", &p->share_machine);
		} else if (!strcmp(key, "verifier")) {
			ret = plan_node_is_null(node) ? 0 :
			      plan_want_enum(c, node, "verifier", jobspec_verifier_names,
					     &p->verifier);
		} else if (!strcmp(key, "metrics")) {
			ret = plan_node_is_null(node) ? 0 : build_metrics(c, node, p);
		} else if (!strcmp(key, "link")) {
			ret = build_link(c, node, p);
		} else if (!strcmp(key, "search")) {
			ret = plan_node_is_null(node) ? 0 : plan_build_search(c, node, p);
		} else if (!strcmp(key, "latency")) {
			ret = plan_node_is_null(node) ? 0 : plan_build_latency(c, node, p);
		}
		if (ret)
			return ret;
	}
	if (p->link_generator && (ret = check_link(c, root, p)))
		return ret;
	if (p->has_search && (ret = plan_check_search(c, root, p)))
		return ret;
	if (p->has_latency && (ret = plan_check_latency(c, root, p)))
		return ret;
	if (!p->metrics) {
		p->metrics = calloc(ARRAY_SIZE(default_metrics) + 1, sizeof(*p->metrics));
		if (!p->metrics)
			return plan_oom(c);
		for (i = 0; i < (int)ARRAY_SIZE(default_metrics); i++)
			p->metrics[i] = (char *)default_metrics[i];
		p->n_metrics = (int)ARRAY_SIZE(default_metrics);
		if (plan_has_counters(p))
			p->metrics[p->n_metrics++] = "counter.pps";
	}
	if (c->point)
		return 0;		/* sizes were checked with the plan */
	if ((ret = check_repeat_on(c, root, p)))
		return ret;
	if (p->repeat_until > 0 && p->link_generator)
		return plan_vfail(c, plan_node_get(root, "repeat", NULL),
				  "repeat: adaptive repetitions (until) are not supported with link (two-host plans) yet; give repeat a number");
	/* adaptive repetitions may add jobs up to repeat.max */
	jobs = plan_points(p) * p->repeat_max * p->n_variants;
	if (jobs > PLAN_MAX_JOBS) {
		/* at the key that makes it large: the matrix, else repeat */
		node = NULL;
		if (!p->n_axes || !plan_node_get(root, "matrix", &node))
			plan_node_get(root, "repeat", &node);
		if (!node)
			plan_node_get(root, "variants", &node);
		if (plan_points(p) > PLAN_MAX_JOBS)
			return plan_vfail(c, node, "the matrix has more than %d points",
					  PLAN_MAX_JOBS);
		return plan_vfail(c, node, "the plan expands to %lld jobs (repeat %d x %lld matrix points x %d variants), more than %d",
				  jobs, p->repeat_max, plan_points(p), p->n_variants, PLAN_MAX_JOBS);
	}
	for (i = 0, attach = 0; i < p->n_variants; i++)
		attach += p->variants[i].n_attach;
	attach *= plan_points(p) * p->repeat_max;
	if (attach > PLAN_MAX_ATTACH_TOTAL) {
		node = NULL;
		plan_node_get(root, "variants", &node);
		return plan_vfail(c, node, "the plan expands to %lld attach entries over its jobs, more than %d",
				  attach, PLAN_MAX_ATTACH_TOTAL);
	}
	return 0;
}

