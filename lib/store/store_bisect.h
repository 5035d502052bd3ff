/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* store_bisect.h - bisection sessions in the store (schema 004_bisect.sql,
 * docs/bisect.md): one active session at a time, its parameters, its steps (the
 * bisect_record() calls of lib/analysis/bisect.c, in order, with the runs they came from) and,
 * at the end, its result.
 *
 * Used by the coordinator's bisect_* requests (coordinator/bisect_req.c) and by `bpflab
 * --db FILE bisect` on a database file (cli/bisect.c). Every mutating function runs in
 * one transaction (BEGIN IMMEDIATE: its checks and its writes see the same database) and
 * returns 0 or -errno with the reason in store_err() (-EEXIST an active
 * session already, -ENOENT no such session, -ESTALE the session is not active,
 * -EALREADY another client recorded that step first, -EINVAL bad input, -EROFS,
 * -ENOSPC, -EIO). The tables come from migration 004 (store_open). One thread per
 * struct store.
 */
#ifndef BPFLAB_STORE_BISECT_H
#define BPFLAB_STORE_BISECT_H

#include <jansson.h>
#include <stdint.h>

#include "store/store.h"

/* Start a session from SESSION (not stolen): {"plan", "plan_sha256"?, "metric",
 * "variant"?, "subject"?, "kernels": [names], "good", "bad", "opts"?: {}} at NOW_MS;
 * *ID gets its id. Returns 0, -EEXIST when a session is active, -EINVAL, or -errno. */
int store_bisect_start(struct store *store, const json_t *session, int64_t now_ms,
		       int64_t *id);
/* Session ID (0: the active one, else the latest) as a new object {"id", "plan",
 * "plan_sha256", "metric", "variant", "subject", "kernels", "good", "bad", "opts",
 * "state", "result", "created_ms", "updated_ms", "steps": [{"seq", "kernel", "runs",
 * "values", "verdict", "p", "note", "at_ms"}]}; NULL with errno (ENOENT: none). */
json_t *store_bisect_get(struct store *store, int64_t id);
/* Every session, oldest first, without kernels and steps: [{"id", "plan", "metric",
 * "variant", "subject", "good", "bad", "state", "result", "created_ms", "updated_ms",
 * "n_kernels", "n_steps"}] (`bisect list -j`); NULL with errno. */
json_t *store_bisect_list(struct store *store);
/* Append STEP {"kernel", "runs"?: [ids], "values": [numbers], "verdict", "p"?: number,
 * "note"?} to active session ID at NOW_MS as step SEQ, which must be the next one (the
 * steps stored + 1: a client appends the step it measured after the steps it replayed,
 * so of two clients racing for step N only the first gets it); SEQ 0 takes the next
 * without checking. With END ("done" or "failed"; NULL: the session goes on) the session
 * ends with RESULT (JSON, not stolen, may be NULL) in the same transaction, so a crash
 * never leaves a final step in a session still active. Returns 0, -EALREADY when SEQ is
 * not the next step, -ESTALE for a session that is not active, -ENOENT, -EINVAL, or
 * -errno; on error nothing changes. */
int store_bisect_add_step(struct store *store, int64_t id, int64_t seq, const json_t *step,
			  const char *end, const json_t *result, int64_t now_ms);
/* End active session ID with STATE ("done" or "failed") and RESULT (JSON, not stolen,
 * may be NULL), computed from its first STEPS steps (-1: unchecked). Returns 0,
 * -EALREADY when it has another number of steps, -ESTALE, -ENOENT, -EINVAL, or -errno. */
int store_bisect_end(struct store *store, int64_t id, int64_t steps, const char *state,
		     const json_t *result, int64_t now_ms);
/* Reset active session ID (0: whichever is active; state 'reset', kept for the record);
 * *OUT (may be NULL) gets its id. Returns 0, -ENOENT when none is active, -ESTALE when
 * ID is not the active one, or -errno. */
int store_bisect_reset(struct store *store, int64_t id, int64_t now_ms, int64_t *out);

#endif
