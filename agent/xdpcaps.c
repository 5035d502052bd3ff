// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* xdpcaps.c - see xdpcaps.h: a port's XDP modes and features from the kernel's "netdev"
 * generic-netlink family (6.3+), else from a driver-mode attach tried and undone at once.
 * The generic-netlink client is its own (a NETLINK_GENERIC socket per question; rtnl.h
 * speaks NETLINK_ROUTE only). */
#include "xdpcaps.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"

/* include/uapi/linux/netdev.h */
#define NETDEV_FAMILY_NAME "netdev"
#define NETDEV_CMD_DEV_GET 1
#define NETDEV_A_DEV_IFINDEX 1
#define NETDEV_A_DEV_XDP_FEATURES 3

static const char *const feature_names[] = {
	"basic", "redirect", "ndo-xmit", "xsk-zerocopy", "hw-offload", "rx-sg", "ndo-xmit-sg",
};

json_t *xdpcaps_features_json(uint64_t features)
{
	json_t *a = json_array();
	int bit;

	for (bit = 0; a && bit < 64; bit++) {
		char name[16];

		if (!(features & (1ull << bit)))
			continue;
		if ((size_t)bit < ARRAY_SIZE(feature_names))
			json_array_append_new(a, json_string(feature_names[bit]));
		else {
			snprintf(name, sizeof(name), "bit%d", bit);
			json_array_append_new(a, json_string(name));
		}
	}
	return a;
}

void xdpcaps_from_features(uint64_t features, struct xdpcaps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->source = XDPCAPS_NETLINK;
	caps->features = features;
	caps->native = !!(features & XDPCAPS_ACT_BASIC);
	caps->offload = !!(features & XDPCAPS_ACT_HW_OFFLOAD);
}

static const char *source_name(enum xdpcaps_source s)
{
	return s == XDPCAPS_NETLINK ? "netlink" : s == XDPCAPS_PROBE ? "probe" : "unknown";
}

json_t *xdpcaps_json(const struct xdpcaps *caps)
{
	json_t *o = json_object(), *modes;

	if (!o)
		return NULL;
	if (caps->source == XDPCAPS_UNKNOWN) {
		json_object_set_new(o, "source", json_string("unknown"));
		json_object_set_new(o, "reason", json_string(caps->reason));
		return o;
	}
	modes = json_array();
	if (caps->native)
		json_array_append_new(modes, json_string("native"));
	json_array_append_new(modes, json_string("generic"));
	if (caps->offload)
		json_array_append_new(modes, json_string("offload"));
	json_object_set_new(o, "modes", modes);
	if (caps->source == XDPCAPS_NETLINK)
		json_object_set_new(o, "features", xdpcaps_features_json(caps->features));
	json_object_set_new(o, "source", json_string(source_name(caps->source)));
	return o;
}

const char *xdpcaps_modes_text(const struct xdpcaps *caps, char *buf, size_t len)
{
	if (caps->source == XDPCAPS_UNKNOWN)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%s%s%s", caps->native ? "native, " : "", "generic",
			 caps->offload ? ", offload" : "");
	return buf;
}

/* ---- generic netlink ---- */

struct genl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[64];
};

/* Append attribute TYPE of LEN bytes DATA to R. */
static void put_attr(struct genl_req *r, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Called for each attribute of a reply. */
typedef void (*attr_fn)(const struct nlattr *a, void *ctx);

/* Send R on a fresh NETLINK_GENERIC socket, call EACH on the attributes of its one
 * reply. Returns 0 or -errno (the kernel's). */
static int genl_ask(struct genl_req *r, attr_fn each, void *ctx)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	int fd, e = -EPROTO;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r->n.nlmsg_flags = NLM_F_REQUEST;
	r->n.nlmsg_seq = 1;
	if (sendto(fd, r, r->n.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = -errno;
		goto out;
	}
	for (;;) {
		struct nlmsghdr *h;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			e = errno == EAGAIN ? -ETIMEDOUT : -errno;
			goto out;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != 1)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *ne = NLMSG_DATA(h);

				e = ne->error;
				goto out;
			}
			if (h->nlmsg_type == r->n.nlmsg_type) {
				const char *p = (const char *)NLMSG_DATA(h) + GENL_HDRLEN;
				int left = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

				while (left >= NLA_HDRLEN) {
					const struct nlattr *a = (const struct nlattr *)p;

					if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
						break;
					each(a, ctx);
					left -= NLA_ALIGN(a->nla_len);
					p += NLA_ALIGN(a->nla_len);
				}
				e = 0;
				goto out;
			}
		}
	}
out:
	close(fd);
	return e;
}

static void family_attr(const struct nlattr *a, void *ctx)
{
	if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID &&
	    a->nla_len >= NLA_HDRLEN + sizeof(uint16_t))
		memcpy(ctx, (const char *)a + NLA_HDRLEN, sizeof(uint16_t));
}

struct dev_reply {
	bool has;
	uint64_t features;
};

static void dev_attr(const struct nlattr *a, void *ctx)
{
	struct dev_reply *d = ctx;

	if ((a->nla_type & NLA_TYPE_MASK) == NETDEV_A_DEV_XDP_FEATURES &&
	    a->nla_len >= NLA_HDRLEN + sizeof(uint64_t)) {
		memcpy(&d->features, (const char *)a + NLA_HDRLEN, sizeof(uint64_t));
		d->has = true;
	}
}

int xdpcaps_netlink(int ifindex, uint64_t *features)
{
	struct genl_req r;
	struct dev_reply d = { 0 };
	uint16_t family = 0;
	uint32_t idx = (uint32_t)ifindex;
	int e;

	memset(&r, 0, sizeof(r));
	r.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r.n.nlmsg_type = GENL_ID_CTRL;
	r.g.cmd = CTRL_CMD_GETFAMILY;
	r.g.version = 1;
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, NETDEV_FAMILY_NAME, sizeof(NETDEV_FAMILY_NAME));
	e = genl_ask(&r, family_attr, &family);
	if (e)
		return e;	/* -ENOENT: no such family */
	if (!family)
		return -EPROTO;
	memset(&r, 0, sizeof(r));
	r.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r.n.nlmsg_type = family;
	r.g.cmd = NETDEV_CMD_DEV_GET;
	r.g.version = 1;
	put_attr(&r, NETDEV_A_DEV_IFINDEX, &idx, sizeof(idx));
	e = genl_ask(&r, dev_attr, &d);
	if (e)
		return e;
	if (!d.has)
		return -EPROTO;
	*features = d.features;
	return 0;
}

/* ---- the probe ---- */

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static int probe_prog_fd = -1;		/* the XDP_PASS program, loaded once */

#define PROBE_CACHE 64
static struct {
	int ifindex;
	char ifname[32];
	bool native;
} probe_cache[PROBE_CACHE];
static int probe_cached;

/* The probe program's fd (under probe_lock), or -errno. */
static int probe_prog(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	if (probe_prog_fd >= 0)
		return probe_prog_fd;
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "bpflab_xdpcaps", "GPL", insns,
			   ARRAY_SIZE(insns), NULL);
	if (fd < 0)
		return fd;
	probe_prog_fd = fd;
	return fd;
}

int xdpcaps_probe(int ifindex, bool *native)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_DRV_MODE);
	int prog, fd, e;

	e = bpf_xdp_query(ifindex, 0, &q);
	if (e)
		return e;
	if (q.attach_mode != XDP_ATTACHED_NONE)
		return -EBUSY;
	pthread_mutex_lock(&probe_lock);
	prog = probe_prog();
	pthread_mutex_unlock(&probe_lock);
	if (prog < 0)
		return prog;
	/* a link: fails with EBUSY where a program is (UPDATE_IF_NOEXIST is implied), and
	 * goes with its fd should this process die before the close */
	fd = bpf_link_create(prog, ifindex, BPF_XDP, &lo);
	if (fd >= 0) {
		close(fd);
		*native = true;
		return 0;
	}
	if (fd == -EOPNOTSUPP || fd == -EINVAL) {
		*native = false;
		return 0;
	}
	return fd;
}

int xdpcaps_get(int ifindex, const char *ifname, struct xdpcaps *caps)
{
	uint64_t features;
	bool native = false;
	int e, i;

	e = xdpcaps_netlink(ifindex, &features);
	if (!e) {
		xdpcaps_from_features(features, caps);
		return 0;
	}
	memset(caps, 0, sizeof(*caps));
	if (e != -ENOENT && e != -EOPNOTSUPP) {
		/* the family is there but did not answer for this port */
		snprintf(caps->reason, sizeof(caps->reason), "netdev netlink: %s", strerror(-e));
		return e;
	}
	pthread_mutex_lock(&probe_lock);
	for (i = 0; i < probe_cached; i++) {
		if (probe_cache[i].ifindex == ifindex &&
		    !strncmp(probe_cache[i].ifname, ifname ? ifname : "",
			     sizeof(probe_cache[i].ifname))) {
			caps->source = XDPCAPS_PROBE;
			caps->native = probe_cache[i].native;
			pthread_mutex_unlock(&probe_lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&probe_lock);
	e = xdpcaps_probe(ifindex, &native);
	if (e) {
		snprintf(caps->reason, sizeof(caps->reason), "%s",
			 e == -EBUSY ? "no netdev netlink family and the port has an XDP program: not probed" :
				       strerror(-e));
		return e;
	}
	caps->source = XDPCAPS_PROBE;
	caps->native = native;
	pthread_mutex_lock(&probe_lock);
	if (probe_cached < PROBE_CACHE) {
		probe_cache[probe_cached].ifindex = ifindex;
		snprintf(probe_cache[probe_cached].ifname, sizeof(probe_cache[0].ifname), "%s",
			 ifname ? ifname : "");
		probe_cache[probe_cached].native = native;
		probe_cached++;
	}
	pthread_mutex_unlock(&probe_lock);
	pr_debug("xdp probe of ifindex %d ('%s'): %s", ifindex, ifname ? ifname : "?",
		 native ? "native and generic" : "generic only");
	return 0;
}
