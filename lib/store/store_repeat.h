/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* store_repeat.h - the repetition controller's part of the store (lib/store/store_repeat.c),
 * called by lib/store/store.c inside the transaction that stores a result. */
#ifndef BPFLAB_STORE_REPEAT_H
#define BPFLAB_STORE_REPEAT_H

#include <stdint.h>

struct store;

/* After the result of job JOB_ID is stored in ST (in the caller's transaction): once
 * every job of its (run, host, point) has ended, queue one more repetition of each
 * variant that is not settled (lib/analysis/repeat.h) and mark those that reached max unsettled.
 * *ADDED gets the number of repetitions queued. Returns 0, or -errno with the message
 * in the store (store_err); the caller rolls back. */
int store_repeat_after_result(struct store *st, int64_t job_id, int *added);

#endif
