// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* rxcost.c - see rxcost.h. */
#include "rxcost.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "base/util.h"
#include "rxpath.skel.h"

struct rxcost {
	struct rxpath_bpf *skel;
	int n_cpus;
	int n_devs;
	void *percpu;			/* n_cpus values of the largest value */
	void *work_percpu;		/* n_cpus struct rxpath_work */
};

/* The layout bpf/rxpath.bpf.c reads (its struct softirq_ctx and napi_poll_ctx). */
struct rxcost_field_want {
	const char *event, *field;
	int offset, size;
};

static const struct rxcost_field_want layout[] = {
	{ "irq/softirq_entry", "vec", 8, 4 },
	{ "irq/softirq_exit", "vec", 8, 4 },
	{ "napi/napi_poll", "napi", 8, 8 },
	{ "napi/napi_poll", "dev_name", 16, 4 },
	{ "napi/napi_poll", "work", 20, 4 },
	{ "napi/napi_poll", "budget", 24, 4 },
};

static const char *const events[] = { "irq/softirq_entry", "napi/napi_poll", "irq/softirq_exit" };

int rxcost_format_field(const char *format, const char *name, int *offset, int *size)
{
	size_t name_len = strlen(name);
	const char *p = format;

	while (p && (p = strstr(p, "field:"))) {
		const char *decl = p + 6, *semi = strchr(decl, ';'), *end, *start, *o, *s;
		const char *eol = strchr(decl, '\n');

		p = decl;
		if (!semi || (eol && semi > eol))
			continue;
		/* the name is the declaration's last identifier, before any [N] */
		end = semi;
		while (end > decl && end[-1] == ']') {
			while (end > decl && end[-1] != '[')
				end--;
			if (end > decl)
				end--;
		}
		while (end > decl && isspace((unsigned char)end[-1]))
			end--;
		start = end;
		while (start > decl && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
			start--;
		if ((size_t)(end - start) != name_len || strncmp(start, name, name_len))
			continue;
		o = strstr(semi, "offset:");
		s = strstr(semi, "size:");
		if (!o || !s || (eol && (o > eol || s > eol)))
			return -EINVAL;
		if (sscanf(o + 7, "%d", offset) != 1 || sscanf(s + 5, "%d", size) != 1)
			return -EINVAL;
		return 0;
	}
	return -ENOENT;
}

int rxcost_check_format(const char *event, const char *format, struct err *err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(layout); i++) {
		int off = -1, size = -1, ret;

		if (strcmp(layout[i].event, event))
			continue;
		ret = rxcost_format_field(format, layout[i].field, &off, &size);
		if (ret || off != layout[i].offset || size != layout[i].size) {
			if (ret)
				err_set(err, "tracepoint %s has no field '%s' this agent can read",
					event, layout[i].field);
			else
				err_set(err, "tracepoint %s has '%s' at offset %d size %d, bpf/rxpath.bpf.c reads offset %d size %d",
					event, layout[i].field, off, size, layout[i].offset,
					layout[i].size);
			return -EPROTO;
		}
	}
	return 0;
}

/* NAPI instance NAPI's counters in S, or NULL (not seen yet). */
static const struct rxpath_dev *napi_in(const struct rxcost_sums *s, uint64_t napi)
{
	int i;

	for (i = 0; i < s->n_napis; i++) {
		if (s->napis[i].napi == napi)
			return &s->napis[i].d;
	}
	return NULL;
}

void rxcost_delta(const struct rxcost_sums *a, const struct rxcost_sums *b, int dev,
		  double port_frames, struct rxcost_fig *out)
{
	static const struct rxpath_dev none;
	struct rxpath_dev sum, d[RXPATH_MAX_NAPIS];
	double polls_all = (double)(b->sirq.polls - a->sirq.polls), best = -1;
	uint64_t ids[RXPATH_MAX_NAPIS];
	int i, n = 0, pick = -1;

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < b->n_napis && n < RXPATH_MAX_NAPIS; i++) {
		const struct rxpath_dev *x = napi_in(a, b->napis[i].napi), *y = &b->napis[i].d;

		if (b->napis[i].slot != dev)
			continue;
		x = x ? x : &none;
		d[n].ns = y->ns - x->ns;
		d[n].frames = y->frames - x->frames;
		d[n].polls = y->polls - x->polls;
		d[n].empty_polls = y->empty_polls - x->empty_polls;
		d[n].empty_ns = y->empty_ns - x->empty_ns;
		d[n].outside = y->outside - x->outside;
		d[n].outside_frames = y->outside_frames - x->outside_frames;
		ids[n] = b->napis[i].napi;
		if (d[n].polls || d[n].outside)
			n++;
	}
	for (i = 0; port_frames >= 0 && n > 1 && i < n; i++) {
		double diff = fabs((double)(d[i].frames + d[i].outside_frames) - port_frames);

		if (pick < 0 || diff < best) {
			pick = i;
			best = diff;
		}
	}
	for (i = 0; i < n; i++) {
		if (pick >= 0 && i != pick)
			continue;
		sum.ns += d[i].ns;
		sum.frames += d[i].frames;
		sum.polls += d[i].polls;
		sum.empty_polls += d[i].empty_polls;
		sum.empty_ns += d[i].empty_ns;
		sum.outside += d[i].outside;
	}
	out->others = pick >= 0 ? n - 1 : 0;
	out->napi = pick >= 0 ? ids[pick] : n == 1 ? ids[0] : 0;
	out->frames = (double)sum.frames;
	out->polls = (double)sum.polls;
	out->empty_polls = (double)sum.empty_polls;
	out->outside = (double)sum.outside;
	out->empty_ns = out->empty_polls > 0 ? (double)sum.empty_ns / out->empty_polls : NAN;
	/* a driver that leaves the frames its XDP program consumed out of its NAPI work
	 * (vmxnet3 in native mode: every poll of XDP_DROP returns 0) polled the port's own
	 * frames all the same: they are the denominator then */
	out->frames_from_port = port_frames > 0 && out->frames < port_frames / 2;
	out->ns_per_frame = out->frames_from_port ? (double)sum.ns / port_frames :
			    out->frames > 0 ? (double)sum.ns / out->frames : NAN;
	out->hook_ns_per_poll = polls_all > 0 ?
		(double)(b->sirq.hook_ns - a->sirq.hook_ns) / polls_all : NAN;
}

/* The tracing directory libbpf will use (it prefers /sys/kernel/debug/tracing when that
 * exists), mounting tracefs on /sys/kernel/tracing when no events are to be seen (a
 * namespace host: `ip netns exec` mounts a fresh /sys without it). */
static const char *tracing_dir(void)
{
	if (!access("/sys/kernel/debug/tracing", F_OK))
		return access("/sys/kernel/debug/tracing/events", F_OK) ? NULL :
		       "/sys/kernel/debug/tracing";
	if (access("/sys/kernel/tracing/events", F_OK))
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	return access("/sys/kernel/tracing/events", F_OK) ? NULL : "/sys/kernel/tracing";
}

static int check_formats(const char *dir, struct err *err)
{
	char path[256], *text = NULL;
	size_t i, len;
	int ret;

	for (i = 0; i < ARRAY_SIZE(events); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/format", dir, events[i]);
		ret = util_read_file(path, 65536, &text, &len);
		if (ret) {
			err_set(err, "cannot read tracepoint format '%s': %s", path,
				strerror(-ret));
			return ret;
		}
		ret = rxcost_check_format(events[i], text, err);
		free(text);
		text = NULL;
		if (ret)
			return ret;
	}
	return 0;
}

int rxcost_fit(const struct rxcost_work *w, int n, double *per_poll, double *per_frame)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0, det;
	int i;

	for (i = 0; i < n; i++) {
		if (w[i].work < 1 || w[i].polls < 2)
			continue;
		sx += w[i].work;
		sy += w[i].min_ns;
		sxx += (double)w[i].work * w[i].work;
		sxy += w[i].work * w[i].min_ns;
		k++;
	}
	det = k * sxx - sx * sx;
	if (k < 2 || det <= 0)
		return -ENODATA;
	*per_frame = (k * sxy - sx * sy) / det;
	*per_poll = (sy - *per_frame * sx) / k;
	return 0;
}

double rxcost_softirq_per_frame(const struct rxcost_sums *a, const struct rxcost_sums *b,
				double frames)
{
	return frames > 0 ? (double)(b->sirq.ns - a->sirq.ns) / frames : NAN;
}

int rxcost_open(struct rxcost **out, const char *const *ifnames, int n, struct err *err)
{
	return rxcost_open_opts(out, ifnames, n, true, err);
}

int rxcost_open_opts(struct rxcost **out, const char *const *ifnames, int n, bool polls,
		     struct err *err)
{
	struct bpf_program *progs[3];
	struct rxcost *r;
	const char *dir;
	int i, ret;

	*out = NULL;
	if (n < 1 || n > RXPATH_MAX_DEVS) {
		err_set(err, "rx.ns_per_frame: %d receiving ports (1..%d)", n,
			RXPATH_MAX_DEVS);
		return -EINVAL;
	}
	dir = tracing_dir();
	if (!dir) {
		err_set(err, "rx.ns_per_frame needs tracefs (neither /sys/kernel/tracing nor /sys/kernel/debug/tracing has events, and mounting tracefs failed)");
		return -ENOENT;
	}
	ret = check_formats(dir, err);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r) {
		err_set(err, "out of memory");
		return -ENOMEM;
	}
	r->n_cpus = libbpf_num_possible_cpus();
	r->n_devs = n;
	r->percpu = r->n_cpus > 0 ? calloc(r->n_cpus, sizeof(struct rxpath_dev)) : NULL;
	r->work_percpu = r->n_cpus > 0 ? calloc(r->n_cpus, sizeof(struct rxpath_work)) : NULL;
	r->skel = rxpath_bpf__open();
	if (!r->percpu || !r->work_percpu || !r->skel) {
		ret = -ENOMEM;
		err_set(err, "rx.ns_per_frame: cannot open bpf/rxpath.bpf.c");
		goto fail;
	}
	r->skel->rodata->rxp_n_devs = n;
	for (i = 0; i < n; i++) {
		if (strlen(ifnames[i]) >= RXPATH_IFNAMSIZ) {
			ret = -EINVAL;
			err_set(err, "rx.ns_per_frame: interface name '%s' too long",
				ifnames[i]);
			goto fail;
		}
		memset(r->skel->rodata->rxp_names[i], 0, RXPATH_IFNAMSIZ);
		memcpy(r->skel->rodata->rxp_names[i], ifnames[i], strlen(ifnames[i]));
	}
	ret = rxpath_bpf__load(r->skel);
	if (ret) {
		err_set(err, "rx.ns_per_frame: cannot load bpf/rxpath.bpf.c: %s",
			strerror(-ret));
		goto fail;
	}
	/* the exit first and the entry last: no stamp is left half-set */
	progs[0] = r->skel->progs.rxp_softirq_exit;
	progs[1] = r->skel->progs.rxp_napi_poll;
	progs[2] = r->skel->progs.rxp_softirq_entry;
	for (i = 0; i < 3; i++) {
		static const char *const tp[3][2] = {
			{ "irq", "softirq_exit" }, { "napi", "napi_poll" }, { "irq", "softirq_entry" },
		};
		struct bpf_link *l;

		if (i == 1 && !polls)
			continue;
		l = bpf_program__attach_tracepoint(progs[i], tp[i][0], tp[i][1]);
		if (!l) {
			ret = -errno;
			err_set(err, "rx.ns_per_frame: cannot attach to tracepoint %s:%s: %s",
				tp[i][0], tp[i][1], strerror(-ret));
			goto fail;
		}
		if (i == 0)
			r->skel->links.rxp_softirq_exit = l;
		else if (i == 1)
			r->skel->links.rxp_napi_poll = l;
		else
			r->skel->links.rxp_softirq_entry = l;
	}
	*out = r;
	return 0;
fail:
	rxcost_close(&r);
	return ret;
}

int rxcost_read(struct rxcost *r, struct rxcost_sums *out)
{
	const struct rxpath_dev *d = r->percpu;
	const struct rxpath_sirq *s = r->percpu;
	int fd = bpf_map__fd(r->skel->maps.rxp_napis), cpu, ret;
	uint64_t key, next, *prev = NULL;
	uint32_t k;

	memset(out, 0, sizeof(*out));
	out->n_devs = r->n_devs;
	while (out->n_napis < RXPATH_MAX_NAPIS && !bpf_map_get_next_key(fd, prev, &next)) {
		struct rxcost_napi *n = &out->napis[out->n_napis];
		uint64_t slot = 0;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, r->percpu))
			continue;	/* gone meanwhile: entries are never deleted */
		n->napi = key;
		for (cpu = 0; cpu < r->n_cpus; cpu++) {
			slot = d[cpu].slot > slot ? d[cpu].slot : slot;
			n->d.ns += d[cpu].ns;
			n->d.frames += d[cpu].frames;
			n->d.polls += d[cpu].polls;
			n->d.empty_polls += d[cpu].empty_polls;
			n->d.empty_ns += d[cpu].empty_ns;
			n->d.outside += d[cpu].outside;
			n->d.outside_frames += d[cpu].outside_frames;
		}
		if (!slot || slot > (uint64_t)r->n_devs)
			continue;
		n->slot = (int)slot - 1;
		out->n_napis++;
	}
	k = 0;
	ret = bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.rxp_sirq), &k, r->percpu);
	if (ret)
		return ret;
	for (cpu = 0; cpu < r->n_cpus; cpu++) {
		out->sirq.ns += s[cpu].ns;
		out->sirq.count += s[cpu].count;
		out->sirq.polls += s[cpu].polls;
		out->sirq.hook_ns += s[cpu].hook_ns;
	}
	return 0;
}

int rxcost_read_work(struct rxcost *r, int dev, uint64_t napi, struct rxcost_work *out)
{
	int fd = bpf_map__fd(r->skel->maps.rxp_work), cpu, i;
	const struct rxpath_work *v = r->work_percpu;
	struct rxpath_work_key key, next, *prev = NULL;
	struct rxcost_sums s;
	int ret;

	for (i = 0; i <= RXPATH_MAX_WORK; i++)
		out[i] = (struct rxcost_work){ .work = i };
	ret = napi ? 0 : rxcost_read(r, &s);
	if (ret)
		return ret;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		bool ours = napi ? next.napi == napi : false;
		struct rxcost_work *o;

		key = next;
		prev = &key;
		for (i = 0; !napi && i < s.n_napis; i++)
			ours = ours || (s.napis[i].napi == key.napi && s.napis[i].slot == dev);
		if (!ours || key.work > RXPATH_MAX_WORK || bpf_map_lookup_elem(fd, &key, r->work_percpu))
			continue;
		o = &out[key.work];
		for (cpu = 0; cpu < r->n_cpus; cpu++) {
			if (!v[cpu].polls)
				continue;
			if (!o->polls || v[cpu].min_ns < o->min_ns)
				o->min_ns = (double)v[cpu].min_ns;
			o->polls += (double)v[cpu].polls;
			o->ns += (double)v[cpu].ns;
		}
	}
	return 0;
}

void rxcost_close(struct rxcost **r)
{
	if (!*r)
		return;
	rxpath_bpf__destroy((*r)->skel);
	free((*r)->percpu);
	free((*r)->work_percpu);
	free(*r);
	*r = NULL;
}
