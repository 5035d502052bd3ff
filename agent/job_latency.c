// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* job_latency.c - a job with `latency` (docs/plans.md, "latency"; docs/agent.md,
 * "Latency"): after the search (or the rate window) one window per load, the generator
 * made again at the load's rate with a stamp in each frame (bpf/latency_shared.h), and
 * bpf/latency_rx.bpf.c at tcx ingress of the latency port, after the variant, timing
 * the frames the variant lets through. Per load: min, p50, p90, p99, p99.9, max and
 * mean from the program's histogram (lib/analysis/latency.h), lost (sent minus the
 * distinct frames that arrived), reordered, duplicated and foreign counts, the spacing
 * where they arrived (the largest burst, gaps' 10th/50th/90th percentiles) and the
 * histogram's non-empty buckets, as samples latency.* whose subject is PORT@LOAD.
 */
#include "job_int.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/latency.h"
#include "base/util.h"
#include "latency_rx.skel.h"
#include "gap_shared.h"
#include "latency_shared.h"

#define LAT_DRAIN_MS 300		/* frames in flight after the generator stops */
#define LAT_TCX_INGRESS 46		/* BPF_TCX_INGRESS (attach_int.h has it too) */

struct lat_rx {
	struct latency_rx_bpf *skel;
	int link_fd;
	int n_cpus;
	void *percpu;			/* n_cpus values of the largest per-CPU value */
};

struct lat_stream_val {			/* lat_streams' value as user space sees it */
	struct bpf_spin_lock lock;
	uint32_t pad;
	struct lat_seq seq;
};

/* What one window counted. */
struct lat_read {
	uint64_t hist[LAT_BUCKETS];
	struct lat_stats st;
	uint64_t received, reordered, duplicated;
	__u64 gaps[GAP_BUCKETS];	/* the stamped frames' spacing */
};

static void lat_rx_close(struct lat_rx *rx)
{
	if (rx->link_fd >= 0)
		close(rx->link_fd);
	latency_rx_bpf__destroy(rx->skel);
	free(rx->percpu);
	rx->skel = NULL;
	rx->percpu = NULL;
	rx->link_fd = -1;
}

static int lat_rx_open(struct job_ctx *c, const struct job_port *port, struct lat_rx *rx)
{
	int err;

	rx->link_fd = -1;
	rx->n_cpus = libbpf_num_possible_cpus();
	if (rx->n_cpus <= 0) {
		err_set(&c->err, "latency: cannot count possible cpus");
		return rx->n_cpus ? rx->n_cpus : -EINVAL;
	}
	rx->percpu = calloc(rx->n_cpus, sizeof(struct lat_stats));
	rx->skel = latency_rx_bpf__open_and_load();
	if (!rx->percpu || !rx->skel) {
		err = rx->percpu ? -errno : -ENOMEM;
		err_set(&c->err, "latency: cannot load the receiving program: %s",
			strerror(-err));
		return err;
	}
	rx->link_fd = bpf_link_create(bpf_program__fd(rx->skel->progs.latency_rx),
				      port->ifindex, (enum bpf_attach_type)LAT_TCX_INGRESS, NULL);
	if (rx->link_fd < 0) {
		err = rx->link_fd;
		err_set(&c->err, "latency: cannot attach the receiving program to port '%s' ('%s') at tcx ingress: %s%s",
			port->role, port->ifname, strerror(-err),
			err == -EINVAL ? " (tcx needs Linux 6.6 or later)" : "");
		return err;
	}
	return 0;
}

/* Zero every map of the receiving program; its target gap for RATE frames/s. */
static int lat_rx_reset(struct job_ctx *c, struct lat_rx *rx, uint64_t rate)
{
	struct lat_stream_val sv;
	uint32_t k;
	int err = 0;

	memset(rx->percpu, 0, (size_t)rx->n_cpus * sizeof(struct lat_stats));
	memset(&sv, 0, sizeof(sv));
	for (k = 0; !err && k < LAT_BUCKETS; k++)
		err = bpf_map_update_elem(bpf_map__fd(rx->skel->maps.lat_hist), &k, rx->percpu, 0);
	for (k = 0; !err && k < GAP_BUCKETS; k++)
		err = bpf_map_update_elem(bpf_map__fd(rx->skel->maps.lat_gaps), &k, rx->percpu, 0);
	rx->skel->data->target_gap_ns = rate ? 1000000000ULL / rate : 1;
	k = 0;
	err = err ?: bpf_map_update_elem(bpf_map__fd(rx->skel->maps.lat_stats), &k, rx->percpu, 0);
	for (k = 0; !err && k < LAT_MAX_STREAMS; k++)
		err = bpf_map_update_elem(bpf_map__fd(rx->skel->maps.lat_streams), &k, &sv,
					  BPF_F_LOCK);
	if (err)
		err_set(&c->err, "latency: cannot reset the receiving program's maps: %s",
			strerror(-err));
	return err;
}

static int lat_rx_read(struct job_ctx *c, struct lat_rx *rx, struct lat_read *r)
{
	struct lat_stats *st = rx->percpu;
	uint64_t *v = rx->percpu;
	struct lat_stream_val sv;
	uint32_t k;
	int i, err = 0;

	memset(r, 0, sizeof(*r));
	for (k = 0; !err && k < LAT_BUCKETS; k++) {
		err = bpf_map_lookup_elem(bpf_map__fd(rx->skel->maps.lat_hist), &k, v);
		for (i = 0; !err && i < rx->n_cpus; i++)
			r->hist[k] += v[i];
	}
	for (k = 0; !err && k < GAP_BUCKETS; k++) {
		err = bpf_map_lookup_elem(bpf_map__fd(rx->skel->maps.lat_gaps), &k, v);
		for (i = 0; !err && i < rx->n_cpus; i++)
			r->gaps[k] += v[i];
	}
	k = 0;
	err = err ?: bpf_map_lookup_elem(bpf_map__fd(rx->skel->maps.lat_stats), &k, st);
	for (i = 0; !err && i < rx->n_cpus; i++) {
		if (st[i].frames && (!r->st.frames || st[i].min_ns < r->st.min_ns))
			r->st.min_ns = st[i].min_ns;
		if (st[i].max_ns > r->st.max_ns)
			r->st.max_ns = st[i].max_ns;
		if (st[i].burst_max > r->st.burst_max)
			r->st.burst_max = st[i].burst_max;
		r->st.frames += st[i].frames;
		r->st.foreign += st[i].foreign;
		r->st.sum_ns += st[i].sum_ns;
	}
	for (k = 0; !err && k < LAT_MAX_STREAMS; k++) {
		err = bpf_map_lookup_elem_flags(bpf_map__fd(rx->skel->maps.lat_streams), &k, &sv,
						BPF_F_LOCK);
		r->received += sv.seq.received;
		r->reordered += sv.seq.reordered;
		r->duplicated += sv.seq.duplicated;
	}
	if (err)
		err_set(&c->err, "latency: cannot read the receiving program's maps: %s",
			strerror(-err));
	return err;
}

/* The port of the receiving program: latency.port, else the variant's (first attach
 * entry's) port, else the receiving port of the traffic. */
static const struct job_port *lat_port(struct job_ctx *c)
{
	const char *role = c->spec.latency.port;
	const struct job_port *p;

	if (!role)
		role = c->spec.n_attach ? c->spec.attach[0].port : c->rx_role;
	p = role ? job_find_port(c, role) : NULL;
	if (!p)
		err_at(&c->err, NULL, 0, 0, "latency: port '%s' is not one of the job's ports",
		       role ? role : "(none: give latency.port)");
	return p;
}

/* One window at RATE frames/s; SENT and the receiver's counts out. */
static int lat_window(struct job_ctx *c, struct lat_rx *rx, uint64_t rate, int64_t ms,
		      uint64_t *sent, double *secs, struct lat_read *r)
{
	int64_t t0, t1;
	int err;

	job_traffic_destroy(c);
	c->stamp = true;
	c->spec.traffic.rate_pps = (int64_t)rate;
	c->spec.traffic.rate_share = 0;
	err = job_traffic_setup(c) ?: lat_rx_reset(c, rx, rate);
	if (err)
		return err;
	t0 = util_mono_ns();
	err = job_traffic_start(c) ?: job_sleep_until(c, t0 + ms * 1000000LL);
	t1 = util_mono_ns();
	err = job_traffic_stop(c) ?: err;
	if (err)
		return err;
	if (!c->gen_ops->pace_stats || c->gen_ops->pace_stats(c->gen, &c->trial_pace))
		memset(&c->trial_pace, 0, sizeof(c->trial_pace));
	*secs = (double)(t1 - t0) / 1e9;
	return c->gen_ops->frames(c->gen, sent) ?:
	       job_sleep_until(c, util_mono_ns() + LAT_DRAIN_MS * 1000000LL) ?:
	       lat_rx_read(c, rx, r);
}

static void lat_records(struct job_ctx *c, const char *subject, uint64_t rate, uint64_t sent,
			double secs, const struct lat_read *r)
{
	struct latency_summary s;
	uint64_t distinct = r->received - r->duplicated;
	uint32_t b;

	latency_summarize(r->hist, LAT_BUCKETS, r->st.min_ns, r->st.max_ns, &s);
	job_add_record(c, "latency.load_pps", subject, (double)rate, "pps", "rate");
	job_add_record(c, "latency.offered_pps", subject, secs > 0 ? (double)sent / secs : 0,
		       "pps", "rate");
	job_add_record(c, "latency.frames", subject, (double)r->st.frames, "count", "rate");
	if (r->st.frames > 1) {		/* the spacing where the frames arrived */
		job_add_record(c, "latency.burst_max", subject, (double)r->st.burst_max,
			       "frames", "rate");
		job_add_record(c, "latency.gap_p10_ns", subject, gap_percentile(r->gaps, 0.10),
			       "ns", "rate");
		job_add_record(c, "latency.gap_p50_ns", subject, gap_percentile(r->gaps, 0.50),
			       "ns", "rate");
		job_add_record(c, "latency.gap_p90_ns", subject, gap_percentile(r->gaps, 0.90),
			       "ns", "rate");
	}
	if (c->trial_pace.burst) {	/* the paced generator's own (gen.h struct gen_pace) */
		job_add_record(c, "latency.gen_burst", subject, (double)c->trial_pace.burst,
			       "frames", "rate");
		job_add_record(c, "latency.gen_shortfall", subject,
			       (double)c->trial_pace.shortfall, "frames", "rate");
	}
	if (s.count) {
		job_add_record(c, "latency.min_ns", subject, (double)s.min, "ns", "rate");
		job_add_record(c, "latency.p50_ns", subject, (double)s.p50, "ns", "rate");
		job_add_record(c, "latency.p90_ns", subject, (double)s.p90, "ns", "rate");
		job_add_record(c, "latency.p99_ns", subject, (double)s.p99, "ns", "rate");
		job_add_record(c, "latency.p999_ns", subject, (double)s.p999, "ns", "rate");
		job_add_record(c, "latency.max_ns", subject, (double)s.max, "ns", "rate");
		job_add_record(c, "latency.mean_ns", subject,
			       (double)r->st.sum_ns / (double)r->st.frames, "ns", "rate");
	}
	job_add_record(c, "latency.lost", subject, sent > distinct ? (double)(sent - distinct) : 0,
		       "count", "rate");
	job_add_record(c, "latency.reordered", subject, (double)r->reordered, "count", "rate");
	job_add_record(c, "latency.duplicated", subject, (double)r->duplicated, "count", "rate");
	job_add_record(c, "latency.foreign", subject, (double)r->st.foreign, "count", "rate");
	for (b = 0; b < LAT_BUCKETS; b++) {
		if (r->hist[b])
			job_add_record_seq(c, "latency.hist", subject, (double)r->hist[b], "count",
					   "rate", (int)b);
	}
}

int job_latency_run(struct job_ctx *c, double pdr_pps)
{
	const struct job_latency *l = &c->spec.latency;
	int64_t ms = c->spec.has_search ? c->spec.search.trial_ms : c->spec.traffic.duration_ms;
	const struct job_port *port;
	struct lat_rx rx = { .link_fd = -1 };
	struct lat_read *r = NULL;
	char subject[160];
	int i, err;

	if (c->spec.traffic.generator != JOB_GEN_XDP_LIVE &&
	    c->spec.traffic.generator != JOB_GEN_UDP) {
		err_at(&c->err, NULL, 0, 0, "latency: needs traffic.generator xdp-live or udp (the generators that stamp each frame)");
		return -EINVAL;
	}
	port = lat_port(c);
	if (!port)
		return -EINVAL;
	r = malloc(sizeof(*r));
	if (!r) {
		err_set(&c->err, "out of memory");
		return -ENOMEM;
	}
	err = lat_rx_open(c, port, &rx);
	for (i = 0; !err && i < l->n_loads; i++) {
		const struct job_latency_load *ld = &l->loads[i];
		double rate = ld->share > 0 ? ld->share * pdr_pps : (double)ld->pps;
		uint64_t sent = 0;
		double secs = 0;

		if (ld->share > 0 && !(pdr_pps > 0)) {
			err_set(&c->err, "latency: a load of %g %% of the PDR, and the search found no lower bound for %s%s%s",
				ld->share * 100, l->goal ? "goal '" : "its last goal",
				l->goal ? l->goal : "", l->goal ? "'" : "");
			err = -EINVAL;
			break;
		}
		latency_subject(port->role, ld->share, ld->pps, subject, sizeof(subject));
		job_progress(c, "rate", i, l->n_loads, NULL);
		err = lat_window(c, &rx, rate >= 1 ? (uint64_t)llround(rate) : 1, ms, &sent, &secs, r);
		if (!err)
			lat_records(c, subject, rate >= 1 ? (uint64_t)llround(rate) : 1, sent, secs, r);
	}
	c->stamp = false;
	job_traffic_destroy(c);
	lat_rx_close(&rx);
	free(r);
	return err;
}
