// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* job_traffic.c - the traffic of a job (job_int.h): the spec's ports resolved to
 * interfaces, the generator chosen from gen_table by traffic.generator (gen.h) and
 * pointed at its destination, its threads' CPUs, and the receiving port. */
#include "job_int.h"

#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory.h"
#include "plan/plan.h"
#include "pktgen.h"
#include "udpgen.h"
#include "base/util.h"
#include "xdpgen.h"

/* Resolve the spec's port roles (and traffic.from) to interfaces. */
int job_resolve_ports(struct job_ctx *c)
{
	const struct inventory_config *inv = c->opts->inv;
	int i, j;

	if (!c->spec.n_ports) {
		err_at(&c->err, NULL, 0, 0, "job spec has no ports");
		return -EINVAL;
	}
	c->ports = calloc(c->spec.n_ports, sizeof(*c->ports));
	if (!c->ports) {
		err_set(&c->err, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < c->spec.n_ports; i++) {
		struct job_port *p = &c->ports[c->n_ports];

		p->role = c->spec.ports[i];
		for (j = 0; inv && j < inv->n_ports; j++) {
			if (!strcmp(inv->ports[j].key, p->role))
				p->ifname = inv->ports[j].value;
		}
		if (!p->ifname) {
			err_at(&c->err, NULL, 0, 0,
			       "port role '%s' is not mapped on this agent (--port %s=IFNAME)",
			       p->role, p->role);
			return -ENODEV;
		}
		p->ifindex = if_nametoindex(p->ifname);
		if (!p->ifindex) {
			err_at(&c->err, NULL, 0, 0, "port '%s': interface '%s' does not exist",
			       p->role, p->ifname);
			return -ENODEV;
		}
		c->n_ports++;
	}
	return 0;
}

const struct job_port *job_find_port(const struct job_ctx *c, const char *role)
{
	int i;

	for (i = 0; role && i < c->n_ports; i++) {
		if (!strcmp(c->ports[i].role, role))
			return &c->ports[i];
	}
	return NULL;
}

/* The destination of traffic leaving FROM: the port traffic.to names, else a veth's peer
 * (IFLA_LINK in this namespace), else the job's other port. Sets c->rx_role (when the
 * destination is a job port) and MAC: the job's packet.dst_mac, else the destination's
 * MAC, else broadcast. */
static int pick_dst(struct job_ctx *c, const struct job_port *from,
		    const struct ifstats_link *from_link, uint8_t mac[6])
{
	const char *text = c->spec.traffic.dst_mac, *to = c->spec.traffic.to;
	const struct job_port *dst = NULL;
	struct ifstats_link peer;
	char driver[32] = "";
	bool have_mac = false;
	int i;

	inventory_driver(from->ifname, driver, sizeof(driver));
	c->from_veth = !strcmp(driver, "veth");
	if (to) {
		dst = job_find_port(c, to);
		if (!dst) {
			err_at(&c->err, NULL, 0, 0, "traffic.to '%s' is not one of the job's ports",
			       to);
			return -EINVAL;
		}
	} else if (c->from_veth && from_link->link > 0 && !from_link->link_netns &&
		   !ifstats_get(c->rtnl, from_link->link, &peer) && peer.mac_len == 6) {
		memcpy(mac, peer.mac, 6);
		have_mac = true;
		for (i = 0; i < c->n_ports; i++) {
			if (c->ports[i].ifindex == from_link->link)
				dst = &c->ports[i];
		}
	} else {
		for (i = 0; i < c->n_ports && !dst; i++) {
			if (&c->ports[i] != from)
				dst = &c->ports[i];
		}
	}
	if (dst) {
		c->rx_role = dst->role;
		if (!have_mac && !ifstats_get(c->rtnl, dst->ifindex, &peer) && peer.mac_len == 6) {
			memcpy(mac, peer.mac, 6);
			have_mac = true;
		}
	}
	if (text) {
		if (ifstats_parse_mac(text, mac)) {
			err_at(&c->err, NULL, 0, 0, "invalid traffic.packet.dst_mac '%s'", text);
			return -EINVAL;
		}
		return 0;
	}
	if (!have_mac)
		memset(mac, 0xff, 6);
	return 0;
}

/* traffic.cpus into c->cpus: CPUs this process can name (the spec's limit is wider). */
static int get_cpus(struct job_ctx *c)
{
	const struct job_traffic *t = &c->spec.traffic;
	int i;

	for (i = 0; i < t->n_cpus && i < (int)ARRAY_SIZE(c->cpus); i++) {
		if (t->cpus[i] >= CPU_SETSIZE) {
			err_at(&c->err, NULL, 0, 0, "traffic.cpus[%d] is not a CPU number", i);
			return -EINVAL;
		}
		c->cpus[c->n_cpus++] = t->cpus[i];
	}
	return 0;
}

/* Where the THREADS threads of generator OPS run into c->gen_cpus; none when they are
 * not pinned (udp without traffic.cpus). */
static void gen_cpus_of(struct job_ctx *c, const struct gen_ops *ops, int threads)
{
	cpu_set_t set;
	int i, j, n_allowed = 0, allowed[64];

	c->n_gen_cpus = 0;
	if (!c->n_cpus && ops->unpinned == GEN_UNPINNED_ALLOWED &&
	    !sched_getaffinity(0, sizeof(set), &set)) {
		for (j = 0; j < CPU_SETSIZE && n_allowed < 64; j++) {
			if (CPU_ISSET(j, &set))
				allowed[n_allowed++] = j;
		}
	}
	for (i = 0; i < threads && i < 64; i++) {
		int cpu = c->n_cpus ? c->cpus[i % c->n_cpus] :
			  ops->unpinned == GEN_UNPINNED_INDEX ? i :
			  n_allowed ? allowed[i % n_allowed] : -1;

		if (cpu < 0)
			return;
		for (j = 0; j < c->n_gen_cpus && c->gen_cpus[j] != cpu; j++)
			;
		if (j == c->n_gen_cpus)
			c->gen_cpus[c->n_gen_cpus++] = cpu;
	}
}

/* The generators a spec can name (gen.h): a new generator is one entry here. */
static const struct gen_ops *const gen_table[] = {
	&xdpgen_ops,
	&udpgen_ops,
	&pktgen_ops,
};

/* The generator the spec's traffic.generator names, or NULL (none). */
static const struct gen_ops *gen_find(enum job_generator gen)
{
	const char *name = jobspec_generator_names[gen];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gen_table); i++) {
		if (!strcmp(gen_table[i]->name, name))
			return gen_table[i];
	}
	return NULL;
}

/* traffic.rate in frames/s into C->target_pps: rate_pps, or rate_share of port FROM's
 * line rate (its speed over frames of traffic.packet.size + 24 bytes: FCS, preamble,
 * gap). A share on a port that reports no speed, or a rate above the line rate, fails
 * the job: the plan asks for a load this port cannot be given. */
static int target_rate(struct job_ctx *c, const struct job_port *from)
{
	const struct job_traffic *t = &c->spec.traffic;
	uint32_t mbps;
	double line;

	if (!t->rate_pps && !(t->rate_share > 0))
		return 0;
	mbps = inventory_speed(from->ifname);
	line = plan_line_rate_pps(mbps, t->size);
	if (t->rate_share > 0 && !mbps) {
		err_at(&c->err, NULL, 0, 0, "traffic.rate: %g%% of the line rate, but port '%s' ('%s') reports no speed: give the rate in frames per second",
		       100 * t->rate_share, from->role, from->ifname);
		return -EINVAL;
	}
	if (t->rate_share > 0) {
		c->target_pps = (uint64_t)(t->rate_share * line + 0.5);
		c->target_pps = c->target_pps ? c->target_pps : 1;
	} else if (mbps && t->rate_pps > line) {
		err_at(&c->err, NULL, 0, 0, "traffic.rate: %lld frames/s is above the line rate of port '%s' ('%s'): %.0f frames/s of %d bytes at %u Mb/s",
		       (long long)t->rate_pps, from->role, from->ifname, line, t->size, mbps);
		return -EINVAL;
	} else {
		c->target_pps = (uint64_t)t->rate_pps;
	}
	return 0;
}

/* Make the plan's generator ready to send from traffic.from (job_traffic_start() starts
 * it): its program loaded, its frame built, its destination picked. */
int job_traffic_setup(struct job_ctx *c)
{
	const struct job_traffic *t = &c->spec.traffic;
	const struct gen_ops *ops = gen_find(t->generator);
	struct gen_config cfg;
	struct ifstats_link link;
	const struct job_port *from;
	int err;

	if (!ops)
		return 0;
	c->from = t->from;
	from = job_find_port(c, c->from);
	if (!from) {
		err_at(&c->err, NULL, 0, 0, "traffic.from '%s' is not one of the job's ports",
		       c->from ? c->from : "");
		return -EINVAL;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.ifname = from->ifname;
	cfg.ifindex = from->ifindex;
	cfg.ipv6 = t->proto == JOB_PROTO_UDP6;
	cfg.size = t->size;
	cfg.flows = t->flows;
	cfg.threads = t->threads;
	cfg.ctl_dir = c->opts->pktgen_dir;
	err = target_rate(c, from);
	if (err)
		return err;
	cfg.rate_pps = c->target_pps;
	cfg.burst = t->burst;
	cfg.stamp = c->stamp;
	err = get_cpus(c);
	if (err)
		return err;
	cfg.cpus = c->n_cpus ? c->cpus : NULL;
	cfg.n_cpus = c->n_cpus;
	gen_cpus_of(c, ops, cfg.threads);
	err = ifstats_get(c->rtnl, from->ifindex, &link);
	if (err) {
		err_set(&c->err, "cannot read port '%s' ('%s'): %s", from->role,
			from->ifname, strerror(-err));
		return err;
	}
	if (link.mac_len == 6)
		memcpy(cfg.src_mac, link.mac, 6);
	err = pick_dst(c, from, &link, cfg.dst_mac);
	if (err)
		return err;
	c->gen = ops->new(&cfg, &c->err);
	if (!c->gen)
		return -errno;
	c->gen_ops = ops;
	return 0;
}

int job_traffic_start(struct job_ctx *c)
{
	return c->gen ? c->gen_ops->start(c->gen, &c->err) : 0;
}

int job_traffic_stop(struct job_ctx *c)
{
	return c->gen ? c->gen_ops->stop(c->gen, &c->err) : 0;
}

void job_traffic_destroy(struct job_ctx *c)
{
	if (c->gen)
		c->gen_ops->destroy(c->gen);
	c->gen = NULL;
}

/* A veth refuses xdp-live frames (gen_ops.veth_needs_napi) unless its peer runs NAPI (a native XDP program, or
 * GRO on), and the kernel drops them without counting: the generator's count would then
 * be frames that went nowhere. Fail such a job rather than report them. */
int job_check_delivery(struct job_ctx *c)
{
	const struct job_port *from = job_find_port(c, c->from);

	if (!c->gen || !c->gen_ops->veth_needs_napi || !c->from_veth ||
	    c->rate_gen_frames < 10000 || c->rate_from_tx * 100 >= c->rate_gen_frames)
		return 0;
	err_set(&c->err,
		"port '%s' ('%s') took %llu of %llu %s frames: the veth peer needs a native "
		"XDP program or GRO on to receive them", c->from, from ? from->ifname : "?",
		(unsigned long long)c->rate_from_tx, (unsigned long long)c->rate_gen_frames,
		c->gen_ops->name);
	return -EPIPE;
}

/* Without a generator, the port that receives most over a short look (100 ms): the
 * receiving port for the verdicts. NULL when nothing arrives. */
const char *job_busiest_port(struct job_ctx *c)
{
	struct ifstats_counters a, b;
	uint64_t best = 0;
	const char *role = NULL;
	int i;

	for (i = 0; i < c->n_ports; i++) {
		if (ifstats_read(c->rtnl, c->ports[i].ifindex, &a))
			continue;
		job_sleep_until(c, util_mono_ns() + 100000000LL / (c->n_ports ? c->n_ports : 1));
		if (ifstats_read(c->rtnl, c->ports[i].ifindex, &b))
			continue;
		if (b.rx_packets - a.rx_packets > best) {
			best = b.rx_packets - a.rx_packets;
			role = c->ports[i].role;
		}
	}
	return role;
}

/* The DUT side of a pair receives on its end of the link (pair.link.dut): known, not
 * guessed by job_busiest_port() (which, with no warmup, would also start its rate window
 * 100 ms after the generator's). NULL when this is not a pair's DUT side. */
const char *job_pair_dut_port(struct job_ctx *c)
{
	const struct job_port *p;

	if (!c->spec.has_pair || c->spec.pair.role != JOB_PAIR_DUT)
		return NULL;
	p = job_find_port(c, c->spec.pair.link_dut);
	return p ? p->role : NULL;
}
