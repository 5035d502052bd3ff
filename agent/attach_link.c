// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* attach_link.c - the links of a loaded attach_set (attach.h): XDP and tcx through
 * bpf_link, clsact cls_bpf filters (and the qdisc when this agent creates it) where tcx
 * is not there or not wanted, their removal, and the cleanup of filters a killed agent
 * left. tc state is read with rtnetlink dumps (rtnl.h). */
#include "attach.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "attach_int.h"
#include "base/log.h"
#include "inventory.h"
#include "rtnl.h"
#include "xdpcaps.h"

/* Send the rtnetlink dump request REQ and call EACH on every reply (rtnl.h) on a socket
 * of its own. Returns 0 or -errno. Used instead of libbpf's bpf_tc_query(), which
 * answers for one (handle, priority) only and logs the kernel's message for every
 * filter or qdisc that is not there. */
static int nl_dump(struct nlmsghdr *req, rtnl_each_fn each, void *ctx)
{
	struct rtnl *nl = rtnl_open();
	int e;

	if (!nl)
		return -errno;
	e = rtnl_request(nl, req, req->nlmsg_len, each, ctx);
	rtnl_close(&nl);
	return e;
}

struct tc_dump_req {
	struct nlmsghdr n;
	struct tcmsg t;
};

static void tc_dump_req_init(struct tc_dump_req *r, int type, int ifindex, uint32_t parent)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	r->n.nlmsg_type = type;
	r->n.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	r->t.tcm_family = AF_UNSPEC;
	r->t.tcm_ifindex = ifindex;
	r->t.tcm_parent = parent;
}

struct tc_clsact_ctx {
	int ifindex;
	bool found;
};

static int tc_clsact_each(const struct nlmsghdr *h, void *ctx)
{
	struct tc_clsact_ctx *c = ctx;
	const struct tcmsg *t = NLMSG_DATA(h);
	const struct rtattr *a = (const struct rtattr *)((const char *)t + NLMSG_ALIGN(sizeof(*t)));
	int len = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(*t));

	if (h->nlmsg_type != RTM_NEWQDISC || t->tcm_ifindex != c->ifindex)
		return 0;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == TCA_KIND && !strcmp(RTA_DATA(a), "clsact"))
			c->found = true;
	}
	return 0;
}

/* 1 when IFINDEX has a clsact qdisc, 0 when not, -errno. */
static int tc_has_clsact(int ifindex)
{
	struct tc_clsact_ctx c = { .ifindex = ifindex };
	struct tc_dump_req r;
	int e;

	tc_dump_req_init(&r, RTM_GETQDISC, ifindex, 0);
	e = nl_dump(&r.n, tc_clsact_each, &c);
	return e ? e : c.found;
}

struct tc_filter_ctx {
	int count;			/* filter messages (chain heads included) */
	bool ours[2];			/* ATTACH_TC_HANDLE, ATTACH_TC_HANDLE_OWNER at our prio */
};

static int tc_filter_each(const struct nlmsghdr *h, void *ctx)
{
	struct tc_filter_ctx *c = ctx;
	const struct tcmsg *t = NLMSG_DATA(h);

	if (h->nlmsg_type != RTM_NEWTFILTER)
		return 0;
	c->count++;
	if (TC_H_MAJ(t->tcm_info) >> 16 != ATTACH_TC_PRIO)
		return 0;
	if (t->tcm_handle == ATTACH_TC_HANDLE)
		c->ours[0] = true;
	else if (t->tcm_handle == ATTACH_TC_HANDLE_OWNER)
		c->ours[1] = true;
	return 0;
}

/* The filters on the clsact hook PARENT (TC_H_MIN_INGRESS or TC_H_MIN_EGRESS) of
 * IFINDEX into *C. An empty dump when there is no clsact qdisc. */
static int tc_filters(int ifindex, uint32_t parent, struct tc_filter_ctx *c)
{
	struct tc_dump_req r;

	memset(c, 0, sizeof(*c));
	tc_dump_req_init(&r, RTM_GETTFILTER, ifindex, TC_H_MAKE(TC_H_CLSACT, parent));
	return nl_dump(&r.n, tc_filter_each, c);
}

/* Remove IFINDEX's clsact qdisc (which this agent created) when no filter is left on
 * it; else leave it and say why. */
static void tc_qdisc_release(int ifindex, const char *ifname)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = ifindex,
			    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	struct tc_filter_ctx in, out;
	int e;

	e = tc_filters(ifindex, TC_H_MIN_INGRESS, &in) ?: tc_filters(ifindex, TC_H_MIN_EGRESS, &out);
	if (e) {
		pr_warn("left the clsact qdisc on '%s': cannot list its filters: %s", ifname,
			strerror(-e));
		return;
	}
	if (in.count + out.count) {
		pr_warn("left the clsact qdisc on '%s': someone else added filters to it", ifname);
		return;
	}
	e = bpf_tc_hook_destroy(&h);
	if (e)
		pr_warn("cannot remove the clsact qdisc on '%s': %s", ifname, strerror(-e));
	else
		pr_debug("removed the clsact qdisc on '%s'", ifname);
}

static enum bpf_tc_attach_point tc_point(enum job_hook hook)
{
	return hook == JOB_HOOK_TC_INGRESS ? BPF_TC_INGRESS : BPF_TC_EGRESS;
}

/* Remove the filter (IFINDEX, POINT, HANDLE at ATTACH_TC_PRIO). Returns 0 or -errno. */
static int tc_filter_remove(int ifindex, enum bpf_tc_attach_point point, uint32_t handle)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = ifindex, .attach_point = point);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, o, .handle = handle, .priority = ATTACH_TC_PRIO);

	return bpf_tc_detach(&h, &o);
}

void attach_detach(struct attach_set *set)
{
	int i, e;

	if (!set)
		return;
	for (i = 0; i < set->n; i++) {
		struct attach_prog *p = &set->progs[i];

		if (p->link_fd >= 0) {
			close(p->link_fd);
			p->link_fd = -1;
		}
		if (p->tc_handle) {
			e = tc_filter_remove(p->ifindex, tc_point(p->hook), p->tc_handle);
			if (e)
				pr_warn("cannot remove the clsact filter of '%s' on port '%s' ('%s'): %s",
					p->program, p->role, p->ifname, strerror(-e));
			p->tc_handle = 0;
		}
	}
	/* qdiscs last: both hooks of a port share one */
	for (i = 0; i < set->n; i++) {
		struct attach_prog *p = &set->progs[i];

		if (p->tc_own_qdisc) {
			tc_qdisc_release(p->ifindex, p->ifname);
			p->tc_own_qdisc = false;
		}
	}
}

int attach_tc_cleanup(const struct attach_port *ports, int n_ports, struct err *err)
{
	static const uint32_t parents[] = { TC_H_MIN_INGRESS, TC_H_MIN_EGRESS };
	static const uint32_t handles[] = { ATTACH_TC_HANDLE, ATTACH_TC_HANDLE_OWNER };
	int i, j, k, e, removed = 0;

	for (i = 0; i < n_ports; i++) {
		const char *ifname = ports[i].ifname ? ports[i].ifname : "?";
		struct tc_filter_ctx c;
		bool owned = false;

		e = tc_has_clsact(ports[i].ifindex);
		if (e <= 0) {
			if (!e)
				continue;
			err_set(err, "cannot list the qdiscs of port '%s' ('%s'): %s",
				ports[i].role, ifname, strerror(-e));
			return e;
		}
		for (j = 0; j < 2; j++) {
			const char *where = j ? "egress" : "ingress";

			e = tc_filters(ports[i].ifindex, parents[j], &c);
			if (e) {
				err_set(err, "cannot list the clsact %s filters of port '%s' ('%s'): %s",
					where, ports[i].role, ifname, strerror(-e));
				return e;
			}
			for (k = 0; k < 2; k++) {
				if (!c.ours[k])
					continue;
				e = tc_filter_remove(ports[i].ifindex,
						     j ? BPF_TC_EGRESS : BPF_TC_INGRESS, handles[k]);
				if (e) {
					err_set(err, "cannot remove a clsact filter that a killed agent left on port '%s' ('%s', %s, handle %#x): %s",
						ports[i].role, ifname, where, handles[k],
						strerror(-e));
					return e;
				}
				pr_warn("removed a clsact filter (priority %u, handle %#x) that a killed agent left on port '%s' ('%s', %s)",
					ATTACH_TC_PRIO, handles[k], ports[i].role, ifname, where);
				owned |= k == 1;
				removed++;
			}
		}
		if (owned)
			tc_qdisc_release(ports[i].ifindex, ifname);
	}
	return removed;
}

/* True when an entry of SET before P created P's port's clsact qdisc. */
static bool set_owns_qdisc(const struct attach_set *set, const struct attach_prog *p)
{
	int i;

	for (i = 0; i < set->n && &set->progs[i] != p; i++) {
		if (set->progs[i].ifindex == p->ifindex && set->progs[i].tc_own_qdisc)
			return true;
	}
	return false;
}

/* Attach P as a direct-action cls_bpf filter on the port's clsact qdisc, creating the
 * qdisc when there is none. WHY says why not tcx, for the error. */
static int attach_clsact(struct attach_set *set, struct attach_prog *p, const char *why,
			 struct err *err)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = p->ifindex,
			    .attach_point = tc_point(p->hook));
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, o, .priority = ATTACH_TC_PRIO, .prog_fd = p->prog_fd);
	const char *where = p->hook == JOB_HOOK_TC_INGRESS ? "ingress" : "egress";
	bool created = false;
	int e;

	/* create the qdisc only when there is none (libbpf would log the kernel's
	 * "exclusivity flag on" for one that is there) */
	e = tc_has_clsact(p->ifindex);
	if (!e) {
		e = bpf_tc_hook_create(&h);
		created = !e;
		if (e == -EEXIST)
			e = 0;
	}
	if (e < 0) {
		err_set(err, "cannot attach '%s' to port '%s' ('%s') as clsact %s%s: cannot create the clsact qdisc: %s%s",
			p->program, p->role, p->ifname, where, why, strerror(-e),
			e == -ENOENT ? " (the kernel has no clsact: load sch_ingress)" : "");
		return e;
	}
	/* the handle records whether this agent created the qdisc (attach_tc_cleanup) */
	o.handle = created || set_owns_qdisc(set, p) ? ATTACH_TC_HANDLE_OWNER : ATTACH_TC_HANDLE;
	e = bpf_tc_attach(&h, &o);	/* no BPF_TC_F_REPLACE: never replaces a filter */
	if (e) {
		err_set(err, "cannot attach '%s' to port '%s' ('%s') as clsact %s%s: cannot add the cls_bpf filter (priority %u, handle %#x): %s%s",
			p->program, p->role, p->ifname, where, why, ATTACH_TC_PRIO, o.handle,
			strerror(-e),
			e == -EEXIST ? " (the port already has a filter there)" :
			e == -ENOENT ? " (the kernel has no cls_bpf: load it)" : "");
		if (created)
			tc_qdisc_release(p->ifindex, p->ifname);
		return e;
	}
	p->tc_handle = o.handle;
	p->tc_own_qdisc = created;
	p->tc_attached = JOB_TC_CLSACT;
	pr_debug("attached '%s' to port '%s' ('%s') as clsact %s, handle %#x, priority %u%s",
		 p->program, p->role, p->ifname, where, o.handle, ATTACH_TC_PRIO,
		 created ? ", qdisc created" : "");
	return 0;
}

/* Attach tc entry P: a tcx link unless tc_mode says clsact; clsact when tc_mode says so
 * or, in auto, when the kernel does not know tcx (EINVAL: attach types 46/47 unknown). */
static int attach_tc_hook(struct attach_set *set, struct attach_prog *p, struct err *err)
{
	int type = p->hook == JOB_HOOK_TC_INGRESS ? ATTACH_BPF_TCX_INGRESS : ATTACH_BPF_TCX_EGRESS;
	const char *where = p->hook == JOB_HOOK_TC_INGRESS ? "ingress" : "egress";
	int fd;

	if (p->tc_mode == JOB_TC_CLSACT)
		return attach_clsact(set, p, " (tc_mode clsact)", err);
	fd = bpf_link_create(p->prog_fd, p->ifindex, (enum bpf_attach_type)type, NULL);
	if (fd >= 0) {
		p->link_fd = fd;
		p->tc_attached = JOB_TC_TCX;
		pr_debug("attached '%s' to port '%s' ('%s') as tcx %s, link fd %d", p->program,
			 p->role, p->ifname, where, fd);
		return 0;
	}
	if (fd == -EINVAL && p->tc_mode == JOB_TC_AUTO) {
		pr_debug("no tcx on this kernel (%s): '%s' on port '%s' goes to clsact",
			 strerror(-fd), p->program, p->role);
		return attach_clsact(set, p, " (no tcx on this kernel)", err);
	}
	err_set(err, "cannot attach '%s' to port '%s' ('%s') as tcx %s: %s%s",
		p->program, p->role, p->ifname, where, strerror(-fd),
		fd == -EINVAL ? " (tcx needs Linux 6.6 or later; tc_mode auto or clsact would use a clsact qdisc)" : "");
	return fd;
}

/* A bpf_link of P's program on its port in MODE (native or generic): the fd or -errno. */
static int xdp_link(const struct attach_prog *p, enum job_xdp_mode mode)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo,
		.flags = mode == JOB_XDP_GENERIC ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE,
	);

	return bpf_link_create(p->prog_fd, p->ifindex, BPF_XDP, &lo);
}

/* Attach XDP entry P: native or generic as asked; auto: native where the port's driver
 * has it (xdpcaps.h), generic where it has not, and where nobody knows native tried
 * first. A native attach the driver refuses names the driver and its modes. */
static int attach_xdp(struct attach_prog *p, struct err *err)
{
	enum job_xdp_mode mode = p->mode == JOB_XDP_GENERIC ? JOB_XDP_GENERIC : JOB_XDP_NATIVE;
	struct xdpcaps caps;
	bool known = false;
	int fd;

	if (p->mode == JOB_XDP_AUTO) {
		known = !xdpcaps_get(p->ifindex, p->ifname, &caps);
		if (known && !caps.native)
			mode = JOB_XDP_GENERIC;
	}
	fd = xdp_link(p, mode);
	if (fd < 0 && p->mode == JOB_XDP_AUTO && !known && mode == JOB_XDP_NATIVE &&
	    (fd == -EOPNOTSUPP || fd == -EINVAL)) {
		pr_debug("port '%s' ('%s') refused native XDP (%s): '%s' goes generic (mode auto)",
			 p->role, p->ifname, strerror(-fd), p->program);
		mode = JOB_XDP_GENERIC;
		fd = xdp_link(p, mode);
	}
	if (fd < 0) {
		char driver[64] = "", modes[64];

		if (inventory_driver(p->ifname, driver, sizeof(driver)))
			snprintf(driver, sizeof(driver), "?");
		if (mode == JOB_XDP_NATIVE && p->mode == JOB_XDP_NATIVE)	/* asked only now */
			known = !xdpcaps_get(p->ifindex, p->ifname, &caps);
		if (mode == JOB_XDP_NATIVE)
			err_set(err, "cannot attach '%s' to port '%s' ('%s', driver %s) as xdp native: %s (the port has XDP modes %s%s)",
				p->program, p->role, p->ifname, driver, strerror(-fd),
				known ? xdpcaps_modes_text(&caps, modes, sizeof(modes)) : "unknown",
				known && !caps.native ? "; mode auto would attach generic" : "");
		else
			err_set(err, "cannot attach '%s' to port '%s' ('%s', driver %s) as xdp generic%s: %s",
				p->program, p->role, p->ifname, driver,
				p->mode == JOB_XDP_AUTO ? " (mode auto)" : "", strerror(-fd));
		return fd;
	}
	p->link_fd = fd;
	p->mode_used = mode;
	pr_debug("attached '%s' to port '%s' ('%s') as xdp %s%s, link fd %d", p->program,
		 p->role, p->ifname, jobspec_xdp_mode_name(mode),
		 p->mode == JOB_XDP_AUTO ? " (mode auto)" : "", fd);
	return 0;
}

int attach_links(struct attach_set *set, struct err *err)
{
	int i, e;

	for (i = 0; i < set->n; i++) {
		struct attach_prog *p = &set->progs[i];

		if (p->link_fd >= 0 || p->tc_handle)
			continue;
		e = p->hook == JOB_HOOK_XDP ? attach_xdp(p, err) :
					    attach_tc_hook(set, p, err);
		if (e) {
			attach_detach(set);
			return e;
		}
	}
	return 0;
}
