/* export.h - stored values in the formats of other tools' dashboards.
 *
 * Input: rows of store_query_values() (one run, or any filter). Values are reduced per
 * (plan, variant, matrix point, metric, subject) to the kind's mean (harmonic for rates)
 * with min and max over the repetitions.
 *
 *  - KCIDB (KernelCI, schema v4.4): {"version": {"major": 4, "minor": 4}, "tests": [...]},
 *    one test object per reduced value: "id" and "build_id" ORIGIN:..., "origin", "path"
 *    (dot-separated: bpflab.PLAN.VARIANT.METRIC.SUBJECT), "status" "DONE" (a
 *    measurement, not a pass/fail; "MISS" for none), "number" {"value", "unit",
 *    "prefix": "metric"}, "start_time", "environment" {"comment", "misc" with host,
 *    kernel, cpu, run}, "misc" with n, min, max and the verdict flags.
 *  - BMF (Bencher Metric Format): {"BENCHMARK": {"MEASURE": {"value", "lower_value",
 *    "upper_value"}}}, benchmark PLAN/VARIANT/SUBJECT[/POINT], measure the metric.
 *
 * Pure, thread-safe. Return new references, NULL with errno set (EINVAL, ENOMEM).
 */
#ifndef BPFLAB_EXPORT_H
#define BPFLAB_EXPORT_H

#include <jansson.h>

/* KCIDB v4.4 data for ROWS; ORIGIN names the CI system ("bpflab" when NULL; lowercase
 * letters, digits and '_' only). */
json_t *export_kcidb(const json_t *rows, const char *origin);
/* Bencher Metric Format for ROWS. */
json_t *export_bmf(const json_t *rows);

#endif
