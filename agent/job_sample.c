// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* job_sample.c - the samples a job puts into its result (job_int.h): the spec's metric
 * filter, records, per-window medians and outlier seconds, and the progress messages. */
#include "job_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "proto/proto.h"
#include "analysis/stats.h"

static bool metric_wanted(const struct job_ctx *c, const char *name)
{
	int i;

	if (!c->spec.has_metrics)
		return true;
	for (i = 0; i < c->spec.n_metrics; i++) {
		if (!strcmp(c->spec.metrics[i], name))
			return true;
	}
	return false;
}

/* A sample that is a record of the job rather than a measurement the plan chose:
 * emitted whatever the spec's metrics. SEQ -1: the whole window. */
void job_add_record_seq(struct job_ctx *c, const char *metric, const char *subject,
			   double value, const char *unit, const char *window, int seq)
{
	if (!isfinite(value) || !metric || !subject || !unit || !window)
		return;
	if (samples_add(&c->samples, metric, subject, value, unit, window, seq))
		c->samples_lost++;
}

/* A sample of a metric the spec lists (all of them when it lists none). */
void job_add_sample(struct job_ctx *c, const char *metric, const char *subject,
		       double value, const char *unit, const char *window, int seq)
{
	if (metric_wanted(c, metric))
		job_add_record_seq(c, metric, subject, value, unit, window, seq);
}

void job_add_record(struct job_ctx *c, const char *metric, const char *subject,
		       double value, const char *unit, const char *window)
{
	job_add_record_seq(c, metric, subject, value, unit, window, -1);
}

void job_progress(struct job_ctx *c, const char *phase, int second, int of,
		     json_t *rates)
{
	json_t *msg;

	if (!c->opts->progress) {
		json_decref(rates);
		return;
	}
	msg = proto_msg_new("progress");
	if (msg) {
		json_object_set(msg, "job", c->id);
		json_object_set_new(msg, "phase", json_string(phase));
		json_object_set_new(msg, "second", json_integer(second));
		json_object_set_new(msg, "of", json_integer(of));
		if (rates)
			json_object_set(msg, "rates", rates);
		c->opts->progress(c->opts->progress_ctx, msg);
	}
	json_decref(rates);
	json_decref(msg);
}

bool job_any_metric(const struct job_ctx *c, const char *prefix)
{
	int i;

	if (!c->spec.has_metrics)
		return true;
	for (i = 0; i < c->spec.n_metrics; i++) {
		if (!strncmp(c->spec.metrics[i], prefix, strlen(prefix)))
			return true;
	}
	return false;
}

bool job_metric_listed(const struct job_ctx *c, const char *name)
{
	return c->spec.has_metrics && metric_wanted(c, name);
}

bool job_rxcost_wanted(const struct job_ctx *c)
{
	return c->spec.has_metrics && (metric_wanted(c, "rx.ns_per_frame") ||
				       metric_wanted(c, "rx.softirq_ns_per_frame"));
}

bool job_cost_wanted(const struct job_ctx *c)
{
	return job_any_metric(c, "prog.ns_per_run") || job_any_metric(c, "prog.run_pps");
}

/* A figure of the load: listed in the spec (or it lists none), or asked for by
 * `verifier: stats`, which wants them all. */
static void load_sample(struct job_ctx *c, const char *metric, const char *subject,
			double value, const char *unit)
{
	if (c->spec.verifier == JOB_VERIFIER_STATS)
		job_add_record(c, metric, subject, value, unit, "cost");
	else
		job_add_sample(c, metric, subject, value, unit, "cost", -1);
}

void job_load_samples(struct job_ctx *c)
{
	int i;

	for (i = 0; c->attach && i < attach_count(c->attach); i++) {
		const struct attach_prog *p = attach_get(c->attach, i);
		const struct verifier_log_stats *s = &p->stats;

		if (p->has_info) {
			/* 0: a kernel before 5.16 does not count them */
			if (p->verified_insns)
				load_sample(c, "verifier.insns", p->subject, p->verified_insns,
					    "insns");
			load_sample(c, "prog.jited_bytes", p->subject, p->jited_bytes, "bytes");
			load_sample(c, "prog.xlated_insns", p->subject, p->xlated_insns, "insns");
		}
		if (s->has_processed) {
			load_sample(c, "verifier.processed_insns", p->subject,
				    (double)s->processed_insns, "insns");
			load_sample(c, "verifier.total_states", p->subject,
				    (double)s->total_states, "states");
			load_sample(c, "verifier.peak_states", p->subject,
				    (double)s->peak_states, "states");
		}
		if (s->has_time)
			load_sample(c, "verifier.time_us", p->subject, (double)s->time_us, "us");
	}
}

/* Mark one series' outlier seconds (Tukey's fences, k = 1.5, over its per-second
 * values SECS[0..N-1], samples IDX[] of c->samples) with "outlier": true and name
 * them in c->outliers. */
static void mark_outliers(struct job_ctx *c, const char *metric, const char *subject,
			  const double *secs, const size_t *idx, size_t n)
{
	double lo, hi;
	bool named = false;
	size_t i;

	if (analysis_tukey_fences(secs, n, 1.5, &lo, &hi))
		return;
	for (i = 0; i < n; i++) {
		struct sample *smp = &c->samples.v[idx[i]];
		size_t o = c->outliers_len, cap = sizeof(c->outliers);

		if (secs[i] >= lo && secs[i] <= hi)
			continue;
		smp->outlier = true;
		if (o + 1 >= cap)
			continue;
		o += (size_t)snprintf(c->outliers + o, cap - o, "%s%s%s%s%s second %lld %s fence %.4g",
				      named ? ", " : o ? "; " : "", named ? "" : metric,
				      named || !*subject ? "" : " of '", named ? "" : subject,
				      named || !*subject ? "" : "'", (long long)smp->seq,
				      secs[i] < lo ? "below" : "above", secs[i] < lo ? lo : hi);
		c->outliers_len = o < cap ? o : cap - 1;
		named = true;
	}
}

/* After a window: for each of its per-second series, the median of the seconds as the
 * whole-window sample METRIC.median (docs/agent.md, "Windows and seconds"), and its
 * outlier seconds marked. */
void job_window_robust(struct job_ctx *c, const char *window)
{
	size_t n = c->samples.n, i, j, k;
	double *secs = calloc(n ? n : 1, sizeof(*secs));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));
	char *done = calloc(n ? n : 1, 1);

	for (i = 0; secs && idx && done && i < n; i++) {
		/* copies: job_add_record below may move the samples */
		const struct sample a = c->samples.v[i];
		char name[128];

		if (done[i] || a.seq < 0 || strcmp(a.window, window) ||
		    !strncmp(a.metric, "warmup.", 7))
			continue;
		for (j = i, k = 0; j < n; j++) {
			const struct sample *b = &c->samples.v[j];

			if (done[j] || b->seq < 0 || strcmp(b->window, window) ||
			    strcmp(b->metric, a.metric) || strcmp(b->subject, a.subject))
				continue;
			done[j] = 1;
			idx[k] = j;
			secs[k++] = b->value;
		}
		snprintf(name, sizeof(name), "%s.median", a.metric);
		/* a unit-less series: its median has none either (as before: dropped) */
		if (a.unit)
			job_add_record(c, name, a.subject, stats_median(secs, k), a.unit, window);
		/* the series the tables are about: the receiving port's rate and the
		 * programs' cost (a port that receives a frame now and then has a
		 * quartile range of 0 and an "outlier" in every window) */
		if (!strcmp(a.metric, "prog.ns_per_run") ||
		    (!strcmp(a.metric, "port.rx_pps") && c->rx_role && !strcmp(a.subject, c->rx_role)))
			mark_outliers(c, a.metric, a.subject, secs, idx, k);
	}
	free(secs);
	free(idx);
	free(done);
}
