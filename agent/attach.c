/* attach.c - see attach.h. Called by the job runner's thread; one attach_set per job. */
#include "attach.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "rtnl.h"
#include "util.h"

/* Debian 12's uapi headers predate tcx (Linux 6.6); the values are fixed ABI. */
#define ATTACH_BPF_TCX_INGRESS 46
#define ATTACH_BPF_TCX_EGRESS 47

#define ATTACH_MAX_OBJECT (64u << 20)
#define ATTACH_LOG_SIZE (1u << 20)

struct attach_inst {
	char *name;			/* object name as the job writes it */
	int instance;			/* 0 for the first, 1 for a program's second use ... */
	struct bpf_object *obj;
	char *log_buf;			/* verifier log (ATTACH_LOG_SIZE) */
};

struct attach_bytes {
	char *name;
	void *data;
	size_t len;
};

struct attach_set {
	struct attach_prog *progs;
	int *prog_inst;			/* instance index of each prog */
	const struct job_attach *entries; /* each prog's attach entry, during attach_load */
	int n;
	struct attach_counter *counters;
	int n_counters;
	int n_cpus;			/* possible CPUs, for per-CPU values */
	uint64_t *percpu;		/* n_cpus values, scratch for attach_counter_read */
	struct attach_inst *insts;
	int n_insts;
	struct attach_bytes *bytes;	/* object bytes, kept while objects live */
	int n_bytes;
};

const char *attach_hook_name(enum attach_hook hook)
{
	return jobspec_name(jobspec_hook_names, hook);
}

const char *attach_tc_name(enum attach_tc tc)
{
	return jobspec_name(jobspec_tc_mode_names, tc);
}

const char *attach_mode_name(enum attach_mode mode)
{
	return jobspec_name(jobspec_xdp_mode_names, mode);
}

struct attach_set *attach_new(void)
{
	struct attach_set *set = calloc(1, sizeof(*set));
	int n = libbpf_num_possible_cpus();

	if (!set)
		return NULL;
	set->n_cpus = n > 0 ? n : 1;
	set->percpu = calloc(set->n_cpus, sizeof(*set->percpu));
	if (!set->percpu) {
		free(set);
		errno = ENOMEM;
		return NULL;
	}
	return set;
}

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

static enum bpf_tc_attach_point tc_point(enum attach_hook hook)
{
	return hook == ATTACH_TC_INGRESS ? BPF_TC_INGRESS : BPF_TC_EGRESS;
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

int attach_tc_cleanup(const struct attach_port *ports, int n_ports, char *err,
		      size_t err_len)
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
			snprintf(err, err_len, "cannot list the qdiscs of port '%s' ('%s'): %s",
				 ports[i].role, ifname, strerror(-e));
			return e;
		}
		for (j = 0; j < 2; j++) {
			const char *where = j ? "egress" : "ingress";

			e = tc_filters(ports[i].ifindex, parents[j], &c);
			if (e) {
				snprintf(err, err_len, "cannot list the clsact %s filters of port '%s' ('%s'): %s",
					 where, ports[i].role, ifname, strerror(-e));
				return e;
			}
			for (k = 0; k < 2; k++) {
				if (!c.ours[k])
					continue;
				e = tc_filter_remove(ports[i].ifindex,
						     j ? BPF_TC_EGRESS : BPF_TC_INGRESS, handles[k]);
				if (e) {
					snprintf(err, err_len, "cannot remove a clsact filter that a killed agent left on port '%s' ('%s', %s, handle %#x): %s",
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

void attach_destroy(struct attach_set **setp)
{
	struct attach_set *set = *setp;
	int i;

	if (!set)
		return;
	attach_detach(set);
	for (i = 0; i < set->n; i++) {
		free(set->progs[i].subject);
		free(set->progs[i].program);
		free(set->progs[i].object);
		free(set->progs[i].role);
	}
	for (i = 0; i < set->n_counters; i++) {
		free(set->counters[i].name);
		free(set->counters[i].map);
	}
	free(set->counters);
	free(set->percpu);
	for (i = 0; i < set->n_insts; i++) {
		bpf_object__close(set->insts[i].obj);
		free(set->insts[i].name);
		free(set->insts[i].log_buf);
	}
	for (i = 0; i < set->n_bytes; i++) {
		free(set->bytes[i].name);
		free(set->bytes[i].data);
	}
	free(set->progs);
	free(set->prog_inst);
	free(set->insts);
	free(set->bytes);
	free(set);
	*setp = NULL;
}

int attach_count(const struct attach_set *set)
{
	return set->n;
}

const struct attach_prog *attach_get(const struct attach_set *set, int i)
{
	return i >= 0 && i < set->n ? &set->progs[i] : NULL;
}

/* The bytes of object NAME: from the job message, else from the BPF directory. */
static int object_bytes(struct attach_set *set, const char *name, const struct attach_opts *o,
			struct attach_bytes **out, char *err, size_t err_len)
{
	struct attach_bytes *b, *nb;
	json_t *entry = o->objects ? json_object_get(o->objects, name) : NULL;
	char path[PATH_MAX];
	void *data = NULL;
	size_t len = 0;
	int i, e;

	for (i = 0; i < set->n_bytes; i++) {
		if (!strcmp(set->bytes[i].name, name)) {
			*out = &set->bytes[i];
			return 0;
		}
	}
	if (entry) {
		const char *b64 = json_string_value(json_object_get(entry, "data"));
		const char *sha = json_string_value(json_object_get(entry, "sha256"));
		char hex[SHA256_HEX_LEN];

		if (!b64) {
			snprintf(err, err_len, "object '%s' in the job message has no data", name);
			return -EINVAL;
		}
		e = util_base64_decode(b64, &data, &len);
		if (e) {
			snprintf(err, err_len, "object '%s' in the job message is not base64", name);
			return e;
		}
		util_sha256_hex(data, len, hex);
		if (sha && strcmp(sha, hex)) {
			snprintf(err, err_len, "object '%s' has sha256 %s, the job message says %s",
				 name, hex, sha);
			free(data);
			return -EBADMSG;
		}
	} else {
		char *buf;

		if (strchr(name, '/')) {
			snprintf(path, sizeof(path), "%s", name);
		} else if (o->bpf_dir) {
			snprintf(path, sizeof(path), "%s/%s", o->bpf_dir, name);
		} else {
			snprintf(err, err_len,
				 "object '%s' is not in the job message and no bpf directory is set",
				 name);
			return -ENOENT;
		}
		e = util_read_file(path, ATTACH_MAX_OBJECT, &buf, &len);
		if (e) {
			snprintf(err, err_len, "cannot read object '%s': %s", path, strerror(-e));
			return e;
		}
		data = buf;
	}
	nb = realloc(set->bytes, (set->n_bytes + 1) * sizeof(*nb));
	if (!nb) {
		free(data);
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	set->bytes = nb;
	b = &set->bytes[set->n_bytes];
	b->name = strdup(name);
	if (!b->name) {
		free(data);
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	b->data = data;
	b->len = len;
	set->n_bytes++;
	*out = b;
	return 0;
}

/* Check entry I of the attach array, A (decoded: jobspec.h), against this host and the
 * job's ports, into set->progs[I]. */
static int parse_entry(struct attach_set *set, int i, const struct job_attach *a,
		       const struct attach_opts *o, char *err, size_t err_len)
{
	struct attach_prog *p = &set->progs[i];
	const char *port = a->port, *want = a->sha256;
	struct attach_bytes *bytes;
	char hex[SHA256_HEX_LEN];
	int j, e;

	p->hook = a->hook;
	p->mode = a->mode;
	if (p->hook == ATTACH_XDP && p->mode == ATTACH_OFFLOAD) {
		snprintf(err, err_len, "xdp mode 'offload' is not supported yet");
		return -EOPNOTSUPP;
	}
	p->tc_mode = a->tc_mode;
	p->ifindex = 0;
	for (j = 0; j < o->n_ports; j++) {
		if (!strcmp(o->ports[j].role, port)) {
			p->ifindex = o->ports[j].ifindex;
			snprintf(p->ifname, sizeof(p->ifname), "%s",
				 o->ports[j].ifname ? o->ports[j].ifname : "?");
		}
	}
	if (p->ifindex <= 0) {
		snprintf(err, err_len, "port role '%s' is not one of the job's ports", port);
		return -ENODEV;
	}
	p->program = strdup(a->program);
	p->object = strdup(a->object);
	p->role = strdup(port);
	if (!p->program || !p->object || !p->role) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	if (!want && o->require_sha256) {
		snprintf(err, err_len, "attach entry %d ('%s') has no sha256", i, a->object);
		return -EINVAL;
	}
	e = object_bytes(set, a->object, o, &bytes, err, err_len);
	if (e)
		return e;
	if (want) {
		util_sha256_hex(bytes->data, bytes->len, hex);
		if (strcmp(hex, want)) {
			snprintf(err, err_len, "object '%s' has sha256 %s, the job wants %s",
				 a->object, hex, want);
			return -EBADMSG;
		}
	}
	return 0;
}

/* Give every prog its object instance (see attach.h) and its subject. */
static int plan_instances(struct attach_set *set, char *err, size_t err_len)
{
	int i, j;

	for (i = 0; i < set->n; i++) {
		struct attach_prog *p = &set->progs[i];
		int uses = 0, names = 0, k = -1;

		for (j = 0; j < set->n; j++) {
			if (!strcmp(set->progs[j].program, p->program))
				names++;
			if (j < i && !strcmp(set->progs[j].program, p->program) &&
			    !strcmp(set->progs[j].object, p->object))
				uses++;
		}
		for (j = 0; j < set->n_insts; j++) {
			if (!strcmp(set->insts[j].name, p->object) && set->insts[j].instance == uses)
				k = j;
		}
		if (k < 0) {
			struct attach_inst *ni;

			ni = realloc(set->insts, (set->n_insts + 1) * sizeof(*ni));
			if (!ni)
				goto nomem;
			set->insts = ni;
			k = set->n_insts;
			memset(&ni[k], 0, sizeof(ni[k]));
			ni[k].name = strdup(p->object);
			ni[k].instance = uses;
			set->n_insts++;
			if (!ni[k].name)
				goto nomem;
		}
		set->prog_inst[i] = k;
		if (names > 1) {
			if (asprintf(&p->subject, "%s@%s", p->program, p->role) < 0)
				p->subject = NULL;
		} else {
			p->subject = strdup(p->program);
		}
		if (!p->subject)
			goto nomem;
	}
	return 0;
nomem:
	snprintf(err, err_len, "out of memory");
	return -ENOMEM;
}

static const char *prog_type_want(enum attach_hook hook)
{
	return hook == ATTACH_XDP ? "an xdp" : "a tc (sched_cls)";
}

/* Turn autoload on for the programs that ENTRY's map slots name (devmap and cpumap
 * programs: loaded, never attached). libbpf takes their expected attach type
 * (BPF_XDP_DEVMAP, BPF_XDP_CPUMAP) from the section name, SEC("xdp/devmap") or
 * SEC("xdp/cpumap"); a program without one is loaded as a plain XDP program and the
 * kernel refuses it when the slot is filled. */
static int autoload_slot_programs(struct attach_inst *in, const struct job_attach *a,
				  char *err, size_t err_len)
{
	int m, j;

	for (m = 0; m < a->n_maps; m++) {
		const char *map = a->maps[m].name;

		for (j = 0; j < a->maps[m].n_slots; j++) {
			const char *name = a->maps[m].slots[j].program;
			struct bpf_program *prog;

			if (!name)
				continue;
			prog = bpf_object__find_program_by_name(in->obj, name);
			if (!prog) {
				snprintf(err, err_len, "map '%s': object '%s' has no program '%s'", map,
					 in->name, name);
				return -ENOENT;
			}
			if (bpf_program__type(prog) != BPF_PROG_TYPE_XDP) {
				snprintf(err, err_len, "map '%s': program '%s' in '%s' is not an xdp program",
					 map, name, in->name);
				return -EINVAL;
			}
			bpf_program__set_autoload(prog, true);
		}
	}
	return 0;
}

/* Open instance K, set autoload and attach types, load. */
static int load_instance(struct attach_set *set, int k, char **verifier_log, char *err,
			 size_t err_len)
{
	struct attach_inst *in = &set->insts[k];
	struct attach_bytes *bytes = NULL;
	struct bpf_program *prog;
	const char *base;
	int i, e;

	for (i = 0; i < set->n_bytes; i++) {
		if (!strcmp(set->bytes[i].name, in->name))
			bytes = &set->bytes[i];
	}
	if (!bytes) {
		snprintf(err, err_len, "object '%s' has no bytes", in->name);
		return -EINVAL;
	}
	in->log_buf = calloc(1, ATTACH_LOG_SIZE);
	if (!in->log_buf) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	base = strrchr(in->name, '/') ? strrchr(in->name, '/') + 1 : in->name;
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo,
			.object_name = base,
			.kernel_log_buf = in->log_buf,
			.kernel_log_size = ATTACH_LOG_SIZE,
			.kernel_log_level = 0,	/* libbpf retries with level 1 on failure */
		);

		in->obj = bpf_object__open_mem(bytes->data, bytes->len, &oo);
	}
	if (!in->obj) {
		e = -errno;
		in->obj = NULL;
		snprintf(err, err_len, "cannot open object '%s': %s", in->name, strerror(-e));
		return e;
	}
	bpf_object__for_each_program(prog, in->obj)
		bpf_program__set_autoload(prog, false);
	for (i = 0; i < set->n; i++) {
		struct attach_prog *p = &set->progs[i];
		enum bpf_prog_type type;

		if (set->prog_inst[i] != k)
			continue;
		prog = bpf_object__find_program_by_name(in->obj, p->program);
		if (!prog) {
			snprintf(err, err_len, "object '%s' has no program '%s'", in->name,
				 p->program);
			return -ENOENT;
		}
		type = bpf_program__type(prog);
		if (p->hook != ATTACH_XDP && type == BPF_PROG_TYPE_UNSPEC) {
			/* a section name libbpf 1.1 does not know, such as "tcx/ingress" */
			bpf_program__set_type(prog, BPF_PROG_TYPE_SCHED_CLS);
			type = BPF_PROG_TYPE_SCHED_CLS;
		}
		if ((p->hook == ATTACH_XDP && type != BPF_PROG_TYPE_XDP) ||
		    (p->hook != ATTACH_XDP && type != BPF_PROG_TYPE_SCHED_CLS)) {
			snprintf(err, err_len, "program '%s' in '%s' is not %s program",
				 p->program, in->name, prog_type_want(p->hook));
			return -EINVAL;
		}
		if (p->hook == ATTACH_TC_INGRESS)
			bpf_program__set_expected_attach_type(
				prog, (enum bpf_attach_type)ATTACH_BPF_TCX_INGRESS);
		else if (p->hook == ATTACH_TC_EGRESS)
			bpf_program__set_expected_attach_type(
				prog, (enum bpf_attach_type)ATTACH_BPF_TCX_EGRESS);
		bpf_program__set_autoload(prog, true);
		e = autoload_slot_programs(in, &set->entries[i], err, err_len);
		if (e)
			return e;
	}
	e = bpf_object__load(in->obj);
	if (e) {
		const char *failed = NULL;

		for (i = 0; i < set->n; i++) {
			prog = set->prog_inst[i] == k ?
				bpf_object__find_program_by_name(in->obj, set->progs[i].program) :
				NULL;
			if (prog && bpf_program__fd(prog) < 0) {
				failed = set->progs[i].program;
				break;
			}
		}
		if (failed)
			snprintf(err, err_len, "cannot load program '%s' of object '%s': %s", failed,
				 in->name, strerror(-e));
		else
			snprintf(err, err_len, "cannot load object '%s': %s", in->name,
				 strerror(-e));
		if (in->log_buf[0] && verifier_log)
			*verifier_log = strdup(in->log_buf);
		return e;
	}
	for (i = 0; i < set->n; i++) {
		if (set->prog_inst[i] != k)
			continue;
		prog = bpf_object__find_program_by_name(in->obj, set->progs[i].program);
		set->progs[i].prog_fd = bpf_program__fd(prog);
	}
	/* the log buffer is only needed while loading */
	free(in->log_buf);
	in->log_buf = NULL;
	return 0;
}

/* V as LEN little-endian bytes into OUT (zero-padded); -ERANGE when it does not fit
 * (as unsigned, or as signed when SIGNED_OK and negative). */
static int put_le(long long v, bool signed_ok, unsigned char *out, size_t len)
{
	unsigned long long u = (unsigned long long)v;
	size_t i;

	if (v < 0 && !signed_ok)
		return -ERANGE;
	if (len < 8) {
		long long lo = signed_ok ? -(1LL << (len * 8 - 1)) : 0;
		unsigned long long hi = (1ULL << (len * 8)) - 1;

		if (v < lo || (v >= 0 && u > hi))
			return -ERANGE;
	}
	memset(out, 0, len);
	for (i = 0; i < len && i < 8; i++)
		out[i] = (unsigned char)(u >> (8 * i));
	return 0;
}

/* Fill the map slots of prog I's attach entry (docs/plans.md, "maps"). */
static int fill_maps(struct attach_set *set, int i, const struct attach_opts *o, char *err,
		     size_t err_len)
{
	const struct attach_prog *p = &set->progs[i];
	struct bpf_object *obj = set->insts[set->prog_inst[i]].obj;
	const struct job_attach *a = &set->entries[i];
	unsigned char key[64], value[64];
	int e, k, m, j;

	for (m = 0; m < a->n_maps; m++) {
		const char *name = a->maps[m].name;
		struct bpf_map *map = bpf_object__find_map_by_name(obj, name);
		enum bpf_map_type type;
		size_t ks, vs;

		if (!map) {
			snprintf(err, err_len, "object '%s' has no map '%s'", p->object, name);
			return -ENOENT;
		}
		type = bpf_map__type(map);
		ks = bpf_map__key_size(map);
		vs = bpf_map__value_size(map);
		if (ks > sizeof(key) || vs > sizeof(value)) {
			snprintf(err, err_len, "map '%s' has a %zu-byte key and a %zu-byte value: too large to fill from a plan",
				 name, ks, vs);
			return -E2BIG;
		}
		for (j = 0; j < a->maps[m].n_slots; j++) {
			const struct job_slot *slot = &a->maps[m].slots[j];
			const char *port = slot->port, *prog_name = slot->program;
			long long kv = slot->key;
			int prog_fd = -1;

			if (put_le(kv, false, key, ks)) {
				snprintf(err, err_len, "map '%s': key %lld does not fit its %zu-byte key",
					 name, kv, ks);
				return -ERANGE;
			}
			if (prog_name) {
				struct bpf_program *sp = bpf_object__find_program_by_name(obj, prog_name);

				prog_fd = sp ? bpf_program__fd(sp) : -1;
				if (prog_fd < 0) {
					snprintf(err, err_len, "map '%s': program '%s' is not loaded", name,
						 prog_name);
					return -ENOENT;
				}
				if (vs < 8) {
					snprintf(err, err_len, "map '%s' has %zu-byte values: no room for program '%s' (use struct bpf_%s_val)",
						 name, vs, prog_name,
						 type == BPF_MAP_TYPE_CPUMAP ? "cpumap" : "devmap");
					return -EINVAL;
				}
			}
			memset(value, 0, sizeof(value));
			if (port && (type == BPF_MAP_TYPE_DEVMAP || type == BPF_MAP_TYPE_DEVMAP_HASH)) {
				struct bpf_devmap_val dv = { 0 };

				for (k = 0; k < o->n_ports && strcmp(o->ports[k].role, port); k++)
					;
				if (k == o->n_ports) {
					snprintf(err, err_len, "map '%s': port role '%s' is not one of the job's ports",
						 name, port);
					return -ENODEV;
				}
				dv.ifindex = (__u32)o->ports[k].ifindex;
				dv.bpf_prog.fd = prog_fd;
				memcpy(value, &dv, vs < sizeof(dv) ? vs : sizeof(dv));
			} else if (slot->qsize && type == BPF_MAP_TYPE_CPUMAP) {
				struct bpf_cpumap_val cv = { 0 };

				if (kv >= set->n_cpus) {
					snprintf(err, err_len, "map '%s': cpumap key %lld is not a CPU of this host (it has %d)",
						 name, kv, set->n_cpus);
					return -ERANGE;
				}
				cv.qsize = (__u32)slot->qsize;
				cv.bpf_prog.fd = prog_fd;
				memcpy(value, &cv, vs < sizeof(cv) ? vs : sizeof(cv));
			} else if (slot->has_value && (type == BPF_MAP_TYPE_ARRAY ||
							type == BPF_MAP_TYPE_HASH ||
							type == BPF_MAP_TYPE_LRU_HASH)) {
				if (put_le(slot->value, true, value, vs)) {
					snprintf(err, err_len, "map '%s': value %lld does not fit its %zu-byte value",
						 name, slot->value, vs);
					return -ERANGE;
				}
			} else {
				snprintf(err, err_len, "map '%s' (%s) cannot take slot %d (port for devmap, qsize for cpumap, value for array and hash)",
					 name, libbpf_bpf_map_type_str(type) ?: "?", j);
				return -EINVAL;
			}
			e = bpf_map_update_elem(bpf_map__fd(map), key, value, BPF_ANY);
			if (e) {
				e = -errno;
				snprintf(err, err_len, "cannot fill map '%s' key %lld of '%s': %s", name,
					 kv, p->object, strerror(-e));
				return e;
			}
			pr_debug("filled map '%s' key %lld of '%s'%s%s", name, kv, p->object,
				 prog_name ? " with program " : "", prog_name ? prog_name : "");
		}
	}
	return 0;
}

/* Record the counters of prog I's attach entry. */
static int add_counters(struct attach_set *set, int i, char *err, size_t err_len)
{
	struct bpf_object *obj = set->insts[set->prog_inst[i]].obj;
	const struct job_attach *a = &set->entries[i];
	int j, k;

	for (j = 0; j < a->n_counters; j++) {
		const struct job_counters *c = &a->counters[j];
		const char *mname = c->map;
		struct bpf_map *map = mname ? bpf_object__find_map_by_name(obj, mname) : NULL;

		if (!map) {
			snprintf(err, err_len, "object '%s' has no counters map '%s'",
				 set->progs[i].object, mname ? mname : "?");
			return -ENOENT;
		}
		if (bpf_map__type(map) != BPF_MAP_TYPE_PERCPU_ARRAY ||
		    bpf_map__value_size(map) != 8) {
			snprintf(err, err_len, "counters map '%s' is not a percpu_array of u64", mname);
			return -EINVAL;
		}
		for (k = 0; k < c->n_keys; k++) {
			const struct job_counter_key *key = &c->keys[k];
			struct attach_counter *nc;

			if (key->index >= bpf_map__max_entries(map)) {
				snprintf(err, err_len, "counters map '%s': bad key '%u'", mname,
					 key->index);
				return -EINVAL;
			}
			nc = realloc(set->counters, (set->n_counters + 1) * sizeof(*nc));
			if (!nc) {
				snprintf(err, err_len, "out of memory");
				return -ENOMEM;
			}
			set->counters = nc;
			nc = &set->counters[set->n_counters];
			memset(nc, 0, sizeof(*nc));
			nc->name = strdup(key->name);
			nc->map = strdup(mname);
			nc->map_fd = bpf_map__fd(map);
			nc->key = key->index;
			set->n_counters++;
			if (!nc->name || !nc->map) {
				snprintf(err, err_len, "out of memory");
				return -ENOMEM;
			}
		}
	}
	return 0;
}

int attach_counter_count(const struct attach_set *set)
{
	return set ? set->n_counters : 0;
}

const struct attach_counter *attach_counter_get(const struct attach_set *set, int i)
{
	return set && i >= 0 && i < set->n_counters ? &set->counters[i] : NULL;
}

int attach_counter_read(struct attach_set *set, int i, uint64_t *sum)
{
	const struct attach_counter *c = attach_counter_get(set, i);
	int cpu;

	if (!c)
		return -EINVAL;
	if (bpf_map_lookup_elem(c->map_fd, &c->key, set->percpu))
		return -errno;
	*sum = 0;
	for (cpu = 0; cpu < set->n_cpus; cpu++)
		*sum += set->percpu[cpu];
	return 0;
}

/* attach_load_spec() while set->entries is ATTACH. */
static int load_entries(struct attach_set *set, int n, const struct attach_opts *opts,
			char **verifier_log, char *err, size_t err_len)
{
	int i, e;

	set->progs = calloc(n, sizeof(*set->progs));
	set->prog_inst = calloc(n, sizeof(*set->prog_inst));
	if (!set->progs || !set->prog_inst) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		set->progs[i].link_fd = -1;
		set->progs[i].prog_fd = -1;
	}
	set->n = n;
	for (i = 0; i < n; i++) {
		e = parse_entry(set, i, &set->entries[i], opts, err, err_len);
		if (e)
			return e;
	}
	e = plan_instances(set, err, err_len);
	if (e)
		return e;
	for (i = 0; i < set->n_insts; i++) {
		e = load_instance(set, i, verifier_log, err, err_len);
		if (e)
			return e;
	}
	for (i = 0; i < set->n; i++) {
		e = fill_maps(set, i, opts, err, err_len);
		if (!e)
			e = add_counters(set, i, err, err_len);
		if (e)
			return e;
	}
	return 0;
}

int attach_load_spec(struct attach_set *set, const struct job_attach *attach, int n,
		     const struct attach_opts *opts, char **verifier_log, char *err,
		     size_t err_len)
{
	int e;

	if (verifier_log)
		*verifier_log = NULL;
	if (set->n) {
		snprintf(err, err_len, "attach set already loaded");
		return -EALREADY;
	}
	if (!n)
		return 0;
	set->entries = attach;
	e = load_entries(set, n, opts, verifier_log, err, err_len);
	set->entries = NULL;
	return e;
}

int attach_load(struct attach_set *set, const json_t *attach, const struct attach_opts *opts,
		char **verifier_log, char *err, size_t err_len)
{
	struct job_attach *entries;
	int n, e;

	if (verifier_log)
		*verifier_log = NULL;
	if (!json_is_array(attach)) {
		snprintf(err, err_len, "job spec has no attach array");
		return -EINVAL;
	}
	e = jobspec_decode_attach(attach, &entries, &n, err, err_len);
	if (e)
		return e;
	e = attach_load_spec(set, entries, n, opts, verifier_log, err, err_len);
	jobspec_attach_free(entries, n);
	return e;
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
			 char *err, size_t err_len)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = p->ifindex,
			    .attach_point = tc_point(p->hook));
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, o, .priority = ATTACH_TC_PRIO, .prog_fd = p->prog_fd);
	const char *where = p->hook == ATTACH_TC_INGRESS ? "ingress" : "egress";
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
		snprintf(err, err_len, "cannot attach '%s' to port '%s' ('%s') as clsact %s%s: cannot create the clsact qdisc: %s%s",
			 p->program, p->role, p->ifname, where, why, strerror(-e),
			 e == -ENOENT ? " (the kernel has no clsact: load sch_ingress)" : "");
		return e;
	}
	/* the handle records whether this agent created the qdisc (attach_tc_cleanup) */
	o.handle = created || set_owns_qdisc(set, p) ? ATTACH_TC_HANDLE_OWNER : ATTACH_TC_HANDLE;
	e = bpf_tc_attach(&h, &o);	/* no BPF_TC_F_REPLACE: never replaces a filter */
	if (e) {
		snprintf(err, err_len, "cannot attach '%s' to port '%s' ('%s') as clsact %s%s: cannot add the cls_bpf filter (priority %u, handle %#x): %s%s",
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
	p->tc_attached = ATTACH_TC_CLSACT;
	pr_debug("attached '%s' to port '%s' ('%s') as clsact %s, handle %#x, priority %u%s",
		 p->program, p->role, p->ifname, where, o.handle, ATTACH_TC_PRIO,
		 created ? ", qdisc created" : "");
	return 0;
}

/* Attach tc entry P: a tcx link unless tc_mode says clsact; clsact when tc_mode says so
 * or, in auto, when the kernel does not know tcx (EINVAL: attach types 46/47 unknown). */
static int attach_tc_hook(struct attach_set *set, struct attach_prog *p, char *err,
			  size_t err_len)
{
	int type = p->hook == ATTACH_TC_INGRESS ? ATTACH_BPF_TCX_INGRESS : ATTACH_BPF_TCX_EGRESS;
	const char *where = p->hook == ATTACH_TC_INGRESS ? "ingress" : "egress";
	int fd;

	if (p->tc_mode == ATTACH_TC_CLSACT)
		return attach_clsact(set, p, " (tc_mode clsact)", err, err_len);
	fd = bpf_link_create(p->prog_fd, p->ifindex, (enum bpf_attach_type)type, NULL);
	if (fd >= 0) {
		p->link_fd = fd;
		p->tc_attached = ATTACH_TC_TCX;
		pr_debug("attached '%s' to port '%s' ('%s') as tcx %s, link fd %d", p->program,
			 p->role, p->ifname, where, fd);
		return 0;
	}
	if (fd == -EINVAL && p->tc_mode == ATTACH_TC_AUTO) {
		pr_debug("no tcx on this kernel (%s): '%s' on port '%s' goes to clsact",
			 strerror(-fd), p->program, p->role);
		return attach_clsact(set, p, " (no tcx on this kernel)", err, err_len);
	}
	snprintf(err, err_len, "cannot attach '%s' to port '%s' ('%s') as tcx %s: %s%s",
		 p->program, p->role, p->ifname, where, strerror(-fd),
		 fd == -EINVAL ? " (tcx needs Linux 6.6 or later; tc_mode auto or clsact would use a clsact qdisc)" : "");
	return fd;
}

int attach_links(struct attach_set *set, char *err, size_t err_len)
{
	int i, fd, e;

	for (i = 0; i < set->n; i++) {
		struct attach_prog *p = &set->progs[i];
		const char *how = p->mode == ATTACH_GENERIC ? "xdp generic" : "xdp native";

		if (p->link_fd >= 0 || p->tc_handle)
			continue;
		if (p->hook != ATTACH_XDP) {
			e = attach_tc_hook(set, p, err, err_len);
			if (e) {
				attach_detach(set);
				return e;
			}
			continue;
		}
		{
			LIBBPF_OPTS(bpf_link_create_opts, lo,
				.flags = p->mode == ATTACH_GENERIC ? XDP_FLAGS_SKB_MODE :
								    XDP_FLAGS_DRV_MODE,
			);

			fd = bpf_link_create(p->prog_fd, p->ifindex, BPF_XDP, &lo);
		}
		if (fd < 0) {
			snprintf(err, err_len, "cannot attach '%s' to port '%s' ('%s') as %s: %s",
				 p->program, p->role, p->ifname, how, strerror(-fd));
			attach_detach(set);
			return fd;
		}
		p->link_fd = fd;
		pr_debug("attached '%s' to port '%s' ('%s') as %s, link fd %d", p->program,
			 p->role, p->ifname, how, fd);
	}
	return 0;
}
