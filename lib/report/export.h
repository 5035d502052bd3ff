/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* export.h - stored values in the formats of other tools' dashboards.
 *
 * Input: rows of store_query_values() (one run, or any filter). Values are reduced per
 * (run, host, kernel build, plan, variant, matrix point, metric, subject) to the mean
 * (stats_kind_mean: arithmetic for rates too, their windows being of equal time, the
 * value result show prints) with min and max over the repetitions: what one host measured
 * on one kernel build is never pooled with another's. A kernel build is
 * lib/analysis/kbuild.h's (release, `uname -v`, config sha256).
 *
 *  - KCIDB (KernelCI I/O schema v4.4): {"version": {"major": 4, "minor": 4},
 *    "checkouts": [...], "builds": [...], "tests": [...]}:
 *    - per kernel build a checkout "ORIGIN:checkout.RELEASE@ID" and a build
 *      "ORIGIN:build.RELEASE@ID" (ID the build's 64-digit identity; comment, valid true,
 *      misc with kernel_release, kernel_version, config_sha256, kernel_build: the
 *      label with its hash, kbuild_label_hashed);
 *      none when the caller names the build (build_id: one its CI already submitted);
 *    - per reduced value a test: "id" ORIGIN:DB_ID.runN.HOST.ID16.PATH (DB_ID the
 *      database's own, so two databases never share an id), "build_id", "origin",
 *      "path" (bpflab.PLAN.VARIANT[.POINT].METRIC.SUBJECT, [.a-zA-Z0-9_-] only), "status"
 *      "DONE" (a measurement, not a pass/fail; "MISS" for none), "number" {"value",
 *      "unit", "prefix": "metric"} (times in seconds: ns, us, ms scaled; "ratio"
 *      dimensionless), "start_time" (the earliest start of the group's jobs, when
 *      known), "environment" {"comment": host, "misc": host, kernel_release,
 *      kernel_version, config_sha256, kernel_build, cpu, governor, timing}, "misc" with
 *      run, the stored unit, n, min, max (stored unit) and the verdict flags.
 *    No member is null (the schema allows none).
 *    A checkout of a kernel lab/kbuild/build.sh built from a git tree (release
 *    "...-bpflab-HEX12[-dirty]") also has git_commit_name "HEX12[-dirty]", and with
 *    the rows' "kernel_commit" and "kernel_tree" (export_rows_add_source)
 *    git_commit_hash, tree_name and misc.tree.
 *  - BMF (Bencher Metric Format): {"BENCHMARK": {"MEASURE": {"value", "lower_value",
 *    "upper_value"}}}, benchmark "PLAN/VARIANT/SUBJECT[/POINT]", measure the metric:
 *    names that stay the same from run to run, so that Bencher forms one series per
 *    (benchmark, measure). A document holds one host (Bencher's testbed) and one kernel
 *    build (its branch): ROWS of one run, host and build (EINVAL otherwise).
 *
 * Pure, thread-safe. Return new references, NULL with errno set (EINVAL, ENOMEM).
 */
#ifndef BPFLAB_EXPORT_H
#define BPFLAB_EXPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* Whether ORIGIN is a KCIDB origin name: lowercase letters, digits and '_', not empty. */
bool export_origin_valid(const char *origin);
/* Whether ID is a KCIDB object id: an origin, ':', at least one character. */
bool export_id_valid(const char *id);

struct export_kcidb_opts {
	const char *origin;		/* the CI system; "bpflab" when NULL */
	const char *db_id;		/* the database's id (store_db_id); required */
	const char *build_id;		/* the tests' build_id; NULL: ours, with checkouts
					 * and builds */
};

/* KCIDB v4.4 data for ROWS. EINVAL for a missing db_id, an origin that is not
 * export_origin_valid or a build_id that is not export_id_valid. */
json_t *export_kcidb(const json_t *rows, const struct export_kcidb_opts *opts);
/* Bencher Metric Format for ROWS. */
json_t *export_bmf(const json_t *rows);

/* The rows of ROWS (value rows, labelled by kbuild_label_rows) of host HOST and of kernel
 * KERNEL: a release, or a build by its label ("RELEASE #HEX": kbuild_matches, or the
 * row's "kernel_build"); NULL for either: any. Returns a new array (of the same row
 * objects), or NULL with errno ENOENT and in ERR which host or kernel has no
 * rows and which ones do ("host 'x' has no results (hosts: h1, h2)"; kernels by their
 * rows' labels), ENOMEM. */
json_t *export_select(const json_t *rows, const char *host, const char *kernel,
		      struct err *err);
/* The number of kernel builds in ROWS. */
size_t export_n_builds(const json_t *rows);
/* The number of (host, kernel build) pairs in ROWS; LIST (LEN bytes, may be NULL) gets
 * them as options that select each, "--host h1 --kernel '6.1.0', --host h2 ...", cut
 * to fit. */
size_t export_n_pairs(const json_t *rows, char *list, size_t len);

/* ROWS without the rate values that are zero by design (export_rows.c): a (host, build,
 * plan, variant, point, metric, subject) whose every rate value is at most 5e-4 of the
 * largest of its metric on that host and build (it prints as 0 at three significant
 * digits: a generator's own port, the rx of a drop path), unless no rate of its variant
 * and point is above that (a path that delivered nothing is a result). A new array of
 * the same row objects, the number of groups left out in *N_LEFT_OUT; NULL and ENOMEM. */
json_t *export_rows_nonzero(const json_t *rows, size_t *n_left_out);
/* Give each row of ROWS whose kernel lab/kbuild/build.sh built from a git tree
 * (kbuild_commit_of_release) "kernel_commit" (40 hex digits) and "kernel_tree" (its
 * path) from the kernel cache's record CACHE_DIR/RELEASE/{commit,tree}, when there is
 * one for that build (its commit starts with the release's 12 digits). The one file
 * read of the exports; CACHE_DIR NULL: nothing. Returns 0 or -ENOMEM. */
int export_rows_add_source(json_t *rows, const char *cache_dir);
/* The kernel cache lab/kernels fills: $BPFLAB_KERNEL_CACHE, else
 * /var/cache/bpflab/kernels. */
const char *export_kernel_cache(void);

struct export_run_opts {
	const char *format;		/* "kcidb" or "bmf" */
	const char *host, *kernel;	/* export_select; NULL: all */
	bool include_flagged;		/* flagged results too */
	const char *origin, *db_id, *build_id;	/* KCIDB: export_kcidb_opts */
	bool all_rows;			/* zero-by-design rates too (export_rows_nonzero) */
	const char *kernel_cache;	/* export_rows_add_source; NULL: none read */
	size_t *n_zero;			/* may be NULL: the zero-by-design groups left out */
};

/* The export of run RUN whose value rows are ROWS (store_query_values with runs [RUN],
 * labelled), as `result export` prints it (lib/report/export_run.c): O's host and kernel
 * (export_select), records left out, flagged results too with include_flagged (else
 * their number, counted per job, in *N_FLAGGED), zero-by-design rates left out unless
 * all_rows, the source of kernels built from a tree from kernel_cache (which adds its
 * members to the rows), then KCIDB or BMF. NULL with errno and the message in ERR:
 * ENOENT (no such host or kernel, no (unflagged) results), EINVAL (build_id with several
 * kernel builds, BMF of several hosts or kernel builds: the message lists the --host
 * and --kernel of each, or a bad KCIDB option), ENOMEM. */
json_t *export_run(const json_t *rows, long long run, const struct export_run_opts *o,
		   size_t *n_flagged, struct err *err);

#endif
