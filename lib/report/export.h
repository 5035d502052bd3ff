/* export.h - stored values in the formats of other tools' dashboards.
 *
 * Input: rows of store_query_values() (one run, or any filter). Values are reduced per
 * (plan, variant, matrix point, metric, subject) to the kind's mean (harmonic for rates)
 * with min and max over the repetitions.
 *
 *  - KCIDB (KernelCI I/O schema v4.4, kcidb-io kcidb_io/schema/v04_04.py):
 *    {"version": {"major": 4, "minor": 4}, "tests": [...]}, one test object per reduced
 *    value: "id" and "build_id" ORIGIN:..., "origin", "path" (dot-separated:
 *    bpflab.PLAN.VARIANT.METRIC.SUBJECT, [.a-zA-Z0-9_-] only), "status" "DONE" (a
 *    measurement, not a pass/fail; "MISS" for none), "number" {"value", "unit",
 *    "prefix": "metric"} (times in seconds: ns, us, ms scaled; "ratio" dimensionless),
 *    "start_time" (when known), "environment" {"comment", "misc" with host, kernel, cpu},
 *    "misc" with run, the stored unit, n, min, max (stored unit) and the verdict flags.
 *    No member is null (the schema allows none).
 *  - BMF (Bencher Metric Format): {"BENCHMARK": {"MEASURE": {"value", "lower_value",
 *    "upper_value"}}}, benchmark PLAN/VARIANT/SUBJECT[/POINT], measure the metric.
 *
 * Pure, thread-safe. Return new references, NULL with errno set (EINVAL, ENOMEM).
 */
#ifndef BPFLAB_EXPORT_H
#define BPFLAB_EXPORT_H

#include <jansson.h>
#include <stdbool.h>

/* Whether ORIGIN is a KCIDB origin name: lowercase letters, digits and '_', not empty. */
bool export_origin_valid(const char *origin);
/* KCIDB v4.4 data for ROWS; ORIGIN names the CI system ("bpflab" when NULL; EINVAL when
 * not export_origin_valid). */
json_t *export_kcidb(const json_t *rows, const char *origin);
/* Bencher Metric Format for ROWS. */
json_t *export_bmf(const json_t *rows);

#endif
