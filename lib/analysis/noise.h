/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* noise.h - a host's noise floor and what follows from it.
 *
 * `bpflab host calibrate HOST` runs a short plan (by default the built-in XDP_DROP plan
 * below, the same text as plans/calibrate.yaml) on HOST through the coordinator; the
 * coordinator keeps, per metric and subject, the run-to-run coefficient of variation
 * (stddev / mean) of the values (lib/store/store_noise.c, table host_noise). From a CV the
 * textbook sample size says how many repetitions a side needs to see a change of a
 * plan's min_effect (stats_reps_for_effect), which `plan check` and `run submit` print.
 *
 * Pure functions over jansson values, no I/O; used by the CLI (cli/host.c, plan.c,
 * run.c) and the store. docs/analysis.md, "Noise floor".
 */
#ifndef BPFLAB_NOISE_H
#define BPFLAB_NOISE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define NOISE_ALPHA 0.05		/* the compare defaults (lib/analysis/compare.h) */
#define NOISE_POWER 0.8
#define NOISE_MAX_REPS 1000		/* advice above this is capped */
#define NOISE_MIN_VALUES 3		/* a CV needs at least this many values */
#define NOISE_MINOR 0.01		/* a subject whose mean is below this fraction of
					 * its metric's largest is left out of the advice */

/* The built-in calibration plan: one XDP_DROP variant, 10 short repetitions. */
extern const char noise_calibrate_plan[];

/* The coefficient of variation of the N values at V: sample stddev / |arithmetic mean|,
 * a fraction. NAN when N < 2 or the mean is 0. */
double noise_cv(const double *v, size_t n);

/* Put each host's noise floor on HOSTS (host query objects, changed in place): ROWS are
 * the flat rows of store_noise_list ({host_id, run, env_id, kernel_release, measured_ms,
 * metric, subject, window, unit, n, mean, cv}); a host with rows gets
 * "noise": {run, env_id, kernel_release, measured_ms, metrics: [{metric, subject,
 * window, unit, n, mean, cv}]}. A row belongs to the host object with its host_id, or,
 * where host objects have no "id" (a result's hosts), to the one of its name. Rows of
 * hosts not in HOSTS are ignored. Returns 0 or -ENOMEM. */
int noise_hosts_attach(json_t *hosts, const json_t *rows);

/* A CV (a fraction) as a person reads it: "12 %", "3.1 %", "0.41 %"; "-" when not
 * finite. Returns OUT. */
const char *noise_cv_text(double cv, char *out, size_t len);

/* How many repetitions a plan needs on its hosts. */
struct noise_advice {
	int reps;			/* per variant, to see EFFECT (at least 2) */
	bool capped;			/* more than NOISE_MAX_REPS: reps is the cap */
	double effect;			/* the change to see, a fraction (min_effect) */
	double cv;			/* the largest CV of the plan's metrics on the hosts */
	const char *host;		/* where it was measured (points into HOSTS) */
	const char *metric;
	const char *subject;		/* "" when none */
	int repeat_max;			/* the plan's most repetitions */
	double reachable;		/* the smallest change repeat_max + repeat_max values
					 * can see at CV (a fraction) */
};

/* The advice for a plan whose metrics are the N_METRICS names of METRICS (NULL and 0:
 * every metric calibrated), which wants to see a relative change EFFECT (a fraction)
 * with at most REPEAT_MAX repetitions, on HOSTS (host objects with "noise", as
 * noise_hosts_attach makes them; those without are skipped): the largest CV of any of
 * the metrics (any subject) on any of the hosts decides, except for a subject whose mean
 * is below NOISE_MINOR of the largest mean of its metric on that host (the rx rate of
 * a port that only sends: noise around nothing). Returns 0 with OUT filled,
 * -ENOENT when no host has a noise floor for any of the metrics, -EINVAL for an EFFECT
 * that is not positive. */
int noise_advise(const json_t *hosts, char *const *metrics, int n_metrics, double effect,
		 int repeat_max, struct noise_advice *out);

/* "needs about 38 repetitions per variant to see a 2 % change (host h1: prog.ns_per_run
 * CV 3.1 %)" into OUT (LEN bytes). */
void noise_advice_text(const struct noise_advice *a, char *out, size_t len);
/* Whether the plan's repeat max cannot reach the advice, and then the warning "repeat
 * max 3 is too few for it (needs about 38): 3 + 3 values at 3.1 % CV can see a change
 * of about 7.2 %" into OUT. */
bool noise_advice_warning(const struct noise_advice *a, char *out, size_t len);
/* The advice as JSON: {reps, capped, min_effect_pct, host, metric, subject, cv,
 * repeat_max, enough, min_detectable_pct}. New reference, NULL on ENOMEM. */
json_t *noise_advice_json(const struct noise_advice *a);

#endif
