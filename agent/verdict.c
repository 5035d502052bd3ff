// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* verdict.c - see verdict.h. */
#include "verdict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

double verdict_cv(const double *x, int n)
{
	double mean = 0, ss = 0;
	int i;

	if (n < 2)
		return -1;
	for (i = 0; i < n; i++)
		mean += x[i];
	mean /= n;
	if (mean <= 0)
		return -1;
	for (i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (n - 1)) / mean;
}

static int is_gen_cpu(const struct verdict_cpus *in, int cpu)
{
	int i;

	for (i = 0; i < in->n_gen; i++) {
		if (in->gen_cpus[i] == cpu)
			return 1;
	}
	return 0;
}

double verdict_rx_busy(const struct verdict_cpus *in, char *out, size_t out_len)
{
	int i, others = 0, all;
	size_t o = 0;
	double max = -1;

	if (out_len)
		out[0] = 0;
	for (i = 0; i < in->n; i++)
		others += !is_gen_cpu(in, in->cpu[i]);
	/* not pinned, or no CPU left over: any CPU may have done the receiving */
	all = !in->gen_cpus || (!in->rx_on_gen_cpu && !others);
	for (i = 0; i < in->n; i++) {
		int gen = is_gen_cpu(in, in->cpu[i]);

		if (!all && gen != !!in->rx_on_gen_cpu)
			continue;
		if (in->busy[i] > max)
			max = in->busy[i];
		if (o < out_len)
			o += (size_t)snprintf(out + o, out_len - o, "%scpu%d", o ? "," : "",
					      in->cpu[i]);
	}
	return max;
}

/* Append NAME with WHY to the two results. */
static int add(json_t *verdicts, json_t *details, const char *name, const char *why)
{
	if (json_array_append_new(verdicts, json_string(name)) ||
	    json_object_set_new(details, name, json_string(why)))
		return -ENOMEM;
	return 0;
}

int verdict_compute(const struct verdict_input *in, json_t **verdictsp, json_t **detailsp)
{
	json_t *verdicts = json_array(), *details = json_object();
	char why[512], held[256] = "";
	int ret = -ENOMEM;
	double cv;

	*verdictsp = NULL;
	*detailsp = NULL;
	if (!verdicts || !details)
		goto out;
	if (json_array_size(in->debug_options)) {
		size_t i, o = 0;
		json_t *opt;

		o = (size_t)snprintf(why, sizeof(why), "kernel built with");
		json_array_foreach(in->debug_options, i, opt) {
			if (o < sizeof(why))
				o += (size_t)snprintf(why + o, sizeof(why) - o, "%s CONFIG_%s",
						      i ? "," : "", json_string_value(opt) ?: "?");
		}
		if (add(verdicts, details, "debug-kernel", why))
			goto out;
	}
	if (in->search_bound) {
		if (add(verdicts, details, "generator-bound", in->search_bound))
			goto out;
	} else if (in->target_pps > 0) {
		double held_pps = in->held_n && in->held_pps > 0 ? in->held_pps : 0;

		if (in->offered_pps >= 0 &&
		    fabs(in->offered_pps - in->target_pps) > VERDICT_RATE_MISS * in->target_pps) {
			int o = snprintf(why, sizeof(why),
					 "the generator offered %.0f frames/s of the %.0f asked for (traffic.rate): %+.1f%% (bound %.0f%%)",
					 in->offered_pps, in->target_pps,
					 100.0 * (in->offered_pps - in->target_pps) / in->target_pps,
					 100.0 * VERDICT_RATE_MISS);

			if (held_pps > 0)
				snprintf(held, sizeof(held),
					 "the generator's thread was held from its CPU %llu times (%.1f ms) and did not send %.0f frames/s of the %.0f asked for (traffic.rate)",
					 (unsigned long long)in->held_n, in->held_ms, held_pps,
					 in->target_pps);
			if (held_pps > 0 && in->offered_pps < in->target_pps &&
			    in->offered_pps + held_pps >= (1 - VERDICT_RATE_MISS) * in->target_pps) {
				/* the hold-ups explain the miss: disturbed, below */
			} else {
				if (held_pps > 0 && o > 0 && (size_t)o < sizeof(why))
					snprintf(why + o, sizeof(why) - (size_t)o,
						 "; %.0f frames/s of it in %llu hold-ups",
						 held_pps, (unsigned long long)in->held_n);
				held[0] = '\0';
				if (add(verdicts, details, "generator-bound", why))
					goto out;
			}
		}
	} else if (in->rx_role && in->gen_frames > 0 &&
		   in->rx_frames >= VERDICT_GEN_BOUND * in->gen_frames &&
		   in->rx_cpu_busy >= 0 && in->rx_cpu_busy < VERDICT_IDLE_BOUND) {
		snprintf(why, sizeof(why),
			 "port '%s' received %.1f%% of the %.0f frames the generator sent (bound %.0f%%) and the receiving CPUs (%s) were at most %.0f%% busy (bound %.0f%%): the rate is the generator's",
			 in->rx_role, 100.0 * in->rx_frames / in->gen_frames, in->gen_frames,
			 100.0 * VERDICT_GEN_BOUND, in->rx_cpus ? in->rx_cpus : "?",
			 100.0 * in->rx_cpu_busy, 100.0 * VERDICT_IDLE_BOUND);
		if (add(verdicts, details, "generator-bound", why))
			goto out;
	}
	cv = in->rx_role ? verdict_cv(in->rx_pps, in->n_rx) : -1;
	if (cv > VERDICT_CV_BOUND) {
		snprintf(why, sizeof(why), "port.rx_pps of '%s' varied %.1f%% (bound %.0f%%)",
			 in->rx_role, 100.0 * cv, 100.0 * VERDICT_CV_BOUND);
		if (add(verdicts, details, "unstable", why))
			goto out;
	}
	if (in->others[0] > VERDICT_OTHERS_BOUND || in->others[1] > VERDICT_OTHERS_BOUND) {
		int w = in->others[1] > in->others[0];
		char rx[48] = "";

		if (in->rx_cpu >= 0)
			snprintf(rx, sizeof(rx), "; receive softirq on cpu%d", in->rx_cpu);
		snprintf(why, sizeof(why),
			 "others took %.0f%% of the measured CPUs in the %s window (bound %.0f%%): %s%s%s%s",
			 100.0 * in->others[w], w ? "cost" : "rate", 100.0 * VERDICT_OTHERS_BOUND,
			 in->others_what[w] ? in->others_what[w] : "?", rx, *held ? "; " : "",
			 held);
		if (add(verdicts, details, "disturbed", why))
			goto out;
	} else if (*held && add(verdicts, details, "disturbed", held)) {
		goto out;
	}
	if (in->outliers && *in->outliers) {
		if (add(verdicts, details, "outlier-seconds", in->outliers))
			goto out;
	}
	if (in->error_frames > 0 &&
	    in->error_frames > VERDICT_ERROR_SHARE * in->all_rx_frames) {
		snprintf(why, sizeof(why), "%.0f frames lost to errors (%s)", in->error_frames,
			 in->error_what ? in->error_what : "port error and drop counters");
		if (add(verdicts, details, "errors", why))
			goto out;
	}
	*verdictsp = verdicts;
	*detailsp = details;
	return 0;
out:
	json_decref(verdicts);
	json_decref(details);
	return ret;
}
