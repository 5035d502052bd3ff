// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* noise.c - see noise.h. The built-in calibration plan, the CV of a set of values, and
 * the repetitions a plan needs from the noise floors of its hosts.
 */
#include "analysis/noise.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/stats.h"

/* plans/calibrate.yaml, byte for byte (tests/unit/test_noise.c compares them) */
const char noise_calibrate_plan[] =
	"# calibrate: the built-in plan of `bpflab host calibrate HOST` (a copy of the text in\n"
	"# lib/analysis/noise.c; tests/unit/test_noise.c keeps them equal). Ten short repetitions of one\n"
	"# XDP_DROP program on port b, fed by xdp-live frames from port a: the run-to-run spread\n"
	"# of a rate and of a program's cost on this host, with nothing of a patch in it.\n"
	"name: calibrate\n"
	"description: noise floor of a host, 10 repetitions of XDP_DROP on port b from xdp-live on a\n"
	"hosts:\n"
	"  count: 1\n"
	"ports: [a, b]\n"
	"traffic:\n"
	"  generator: xdp-live\n"
	"  from: a\n"
	"  packet: {size: 64, proto: udp4, flows: 1}\n"
	"  duration: 1s\n"
	"  warmup: 1s\n"
	"variants:\n"
	"  drop:\n"
	"    - {port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o, program: xdp_drop}\n"
	"repeat: 10\n"
	"metrics: [port.rx_pps, gen.tx_pps, prog.ns_per_run]\n";

double noise_cv(const double *v, size_t n)
{
	double mean;

	if (n < 2)
		return NAN;
	mean = stats_mean(v, n);
	if (mean == 0 || !isfinite(mean))
		return NAN;
	return stats_stddev(v, n) / fabs(mean);
}

/* The host object of HOSTS that ROW (a store_noise_list row) belongs to: the one with
 * its host_id, or, for host objects without an "id" (a result's hosts, where a host that
 * ran two kernels is listed twice), the one of its name and kernel, else of its name. */
static json_t *host_of_row(json_t *hosts, const json_t *row)
{
	const char *name = json_string_value(json_object_get(row, "host"));
	const char *kernel = json_string_value(json_object_get(row, "kernel_release"));
	json_int_t id = json_integer_value(json_object_get(row, "host_id"));
	json_t *h, *hid, *by_name = NULL;
	const char *hname, *hkernel;
	size_t i;

	json_array_foreach(hosts, i, h) {
		hid = json_object_get(h, "id");
		if (hid) {
			if (json_integer_value(hid) == id)
				return h;
			continue;
		}
		hname = json_string_value(json_object_get(h, "name"));
		hkernel = json_string_value(json_object_get(h, "kernel_release"));
		if (!name || !hname || strcmp(name, hname))
			continue;
		if (kernel && hkernel && !strcmp(kernel, hkernel))
			return h;
		if (!by_name)
			by_name = h;
	}
	return by_name;
}

const char *noise_cv_text(double cv, char *out, size_t len)
{
	if (!isfinite(cv))
		snprintf(out, len, "-");
	else if (cv >= 0.1)
		snprintf(out, len, "%.0f %%", 100 * cv);
	else if (cv >= 0.01)
		snprintf(out, len, "%.1f %%", 100 * cv);
	else
		snprintf(out, len, "%.2g %%", 100 * cv);
	return out;
}

int noise_hosts_attach(json_t *hosts, const json_t *rows)
{
	static const char *const keep[] = { "metric", "subject", "window", "unit", "n", "mean",
					    "cv" };
	json_t *r, *h, *noise, *m;
	size_t i, k;

	json_array_foreach(rows, i, r) {
		h = host_of_row(hosts, r);
		if (!h)
			continue;
		noise = json_object_get(h, "noise");
		if (!noise) {
			noise = json_pack("{s:O*, s:O*, s:O*, s:O*, s:[]}",
					  "run", json_object_get(r, "run"),
					  "env_id", json_object_get(r, "env_id"),
					  "kernel_release", json_object_get(r, "kernel_release"),
					  "measured_ms", json_object_get(r, "measured_ms"), "metrics");
			if (!noise || json_object_set_new(h, "noise", noise))
				return -ENOMEM;
		}
		m = json_object();
		if (!m || json_array_append_new(json_object_get(noise, "metrics"), m))
			return -ENOMEM;
		for (k = 0; k < sizeof(keep) / sizeof(keep[0]); k++)
			if (json_object_get(r, keep[k]) &&
			    json_object_set(m, keep[k], json_object_get(r, keep[k])))
				return -ENOMEM;
	}
	return 0;
}

/* Is NAME one of the N names of NAMES (every name when NAMES is NULL). */
static bool wanted(const char *name, char *const *names, int n)
{
	int i;

	if (!names)
		return true;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* The largest |mean| of METRIC among the entries of METRICS (a noise "metrics" array). */
static double largest_mean(const json_t *list, const char *metric)
{
	const json_t *m;
	double max = 0;
	size_t i;

	json_array_foreach(list, i, m)
		if (!strcmp(json_string_value(json_object_get(m, "metric")) ?: "", metric) &&
		    fabs(json_number_value(json_object_get(m, "mean"))) > max)
			max = fabs(json_number_value(json_object_get(m, "mean")));
	return max;
}

int noise_advise(const json_t *hosts, char *const *metrics, int n_metrics, double effect,
		 int repeat_max, struct noise_advice *out)
{
	const json_t *h, *m, *list;
	double reps;
	size_t i, k;

	memset(out, 0, sizeof(*out));
	if (!(effect > 0))
		return -EINVAL;
	out->cv = -1;
	json_array_foreach(hosts, i, h) {
		list = json_object_get(json_object_get(h, "noise"), "metrics");
		json_array_foreach(list, k, m) {
			const char *metric = json_string_value(json_object_get(m, "metric"));
			double cv = json_number_value(json_object_get(m, "cv"));
			double mean = fabs(json_number_value(json_object_get(m, "mean")));

			if (!metric || !json_is_number(json_object_get(m, "cv")) || !(cv >= 0) ||
			    !wanted(metric, metrics, n_metrics) || cv <= out->cv)
				continue;
			/* a subject that barely has the metric (the rx rate of the port that
			 * sends) is noise around nothing, not the noise of a measurement */
			if (!(mean > 0) || mean < NOISE_MINOR * largest_mean(list, metric))
				continue;
			out->cv = cv;
			out->host = json_string_value(json_object_get(h, "name"));
			out->metric = metric;
			out->subject = json_string_value(json_object_get(m, "subject"));
		}
	}
	if (out->cv < 0)
		return -ENOENT;
	if (!out->host)
		out->host = "?";
	if (!out->subject)
		out->subject = "";
	out->effect = effect;
	reps = stats_reps_for_effect(out->cv, effect, NOISE_ALPHA, NOISE_POWER);
	/* two values per side at least: no spread, no test, from one */
	if (reps < 2)
		reps = 2;
	out->capped = reps > NOISE_MAX_REPS;
	out->reps = out->capped ? NOISE_MAX_REPS : (int)reps;
	out->repeat_max = repeat_max;
	out->reachable = repeat_max > 0 ?
			 stats_min_detectable_effect((size_t)repeat_max, (size_t)repeat_max,
						     out->cv, NOISE_ALPHA, NOISE_POWER) : NAN;
	return 0;
}

/* "3.1 %", "0.41 %", "12 %", "2 %", "316 %": two significant digits (all from 100 on). */
static const char *pct_text(double fraction, char *out, size_t len)
{
	double p = 100 * fraction;

	if (p >= 100)
		snprintf(out, len, "%.0f %%", p);
	else
		snprintf(out, len, "%.2g %%", p);
	return out;
}

void noise_advice_text(const struct noise_advice *a, char *out, size_t len)
{
	char e[32], cv[32];

	snprintf(out, len, "needs %s%d repetition%s per variant to see a %s change "
		 "(host %s: %s%s%s CV %s)", a->capped ? "more than " : "about ", a->reps,
		 a->reps == 1 ? "" : "s", pct_text(a->effect, e, sizeof(e)), a->host, a->metric,
		 *a->subject ? " " : "", a->subject, pct_text(a->cv, cv, sizeof(cv)));
}

bool noise_advice_warning(const struct noise_advice *a, char *out, size_t len)
{
	char r[32], cv[32];

	if (a->repeat_max <= 0 || a->repeat_max >= a->reps) {
		if (len)
			out[0] = '\0';
		return false;
	}
	snprintf(out, len, "repeat max %d is too few for it (needs %s%d): %d + %d values at %s "
		 "CV can see a change of about %s", a->repeat_max,
		 a->capped ? "more than " : "about ", a->reps, a->repeat_max, a->repeat_max,
		 pct_text(a->cv, cv, sizeof(cv)), pct_text(a->reachable, r, sizeof(r)));
	return true;
}

json_t *noise_advice_json(const struct noise_advice *a)
{
	return json_pack("{s:i, s:b, s:f, s:s, s:s, s:s, s:f, s:i, s:b, s:o*}",
			 "reps", a->reps, "capped", a->capped,
			 "min_effect_pct", 100 * a->effect, "host", a->host,
			 "metric", a->metric, "subject", a->subject, "cv", a->cv,
			 "repeat_max", a->repeat_max, "enough", a->repeat_max >= a->reps,
			 "min_detectable_pct",
			 isfinite(a->reachable) ? json_real(100 * a->reachable) : NULL);
}
