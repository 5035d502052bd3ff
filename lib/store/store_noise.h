/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* store_noise.h - hosts' noise floors in the store (schema/010_host_noise.sql,
 * docs/store.md): per calibration run, host, environment, metric and subject, the
 * run-to-run coefficient of variation of the whole-window values (lib/analysis/noise.h).
 *
 * Used by the coordinator's noise_record and noise_list requests
 * (coordinator/noise_req.c) and by `bpflab --db FILE host list` (cli/host.c).
 * store_noise_record reads the run's stored values and writes its rows in one
 * transaction (BEGIN IMMEDIATE), so the figures are always those of the values in the
 * database, and a failure leaves nothing behind. Errors: 0 or -errno with the reason in
 * store_err() (-ENOENT no such run, -EAGAIN the run has not ended, -ENODATA no
 * metric with NOISE_MIN_VALUES values, -EROFS, -ENOSPC, -EBUSY, -EIO). One thread per
 * struct store.
 */
#ifndef BPFLAB_STORE_NOISE_H
#define BPFLAB_STORE_NOISE_H

#include <jansson.h>
#include <stdint.h>

#include "store/store.h"

/* Record the noise floor measured by run RUN (ended: done, failed or cancelled) at
 * NOW_MS: for each host, environment, metric, subject and window of its finished jobs,
 * the CV of the values of each variant and matrix point (noise_cv), pooled over them
 * as sqrt(sum (n_i - 1) cv_i^2 / sum (n_i - 1)), where at least NOISE_MIN_VALUES values
 * are there in all. Rows RUN had before are replaced. *ROWS (may be NULL) gets the rows
 * stored, as store_noise_list gives them (new reference). */
int store_noise_record(struct store *store, int64_t run, int64_t now_ms, json_t **rows);

/* The latest noise floor of each host (the rows of its latest recorded run), as a new
 * array of {host_id, host, run, env_id, kernel_release, measured_ms, metric, subject,
 * window, unit, n, mean, cv}, by host, metric and subject; NULL with errno and
 * store_err() on failure. */
json_t *store_noise_list(struct store *store);

#endif
