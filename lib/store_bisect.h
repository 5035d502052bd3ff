/* store_bisect.h - bisection sessions in the store (schema 004_bisect.sql,
 * docs/bisect.md): one active session at a time, its parameters, its steps (the
 * bisect_record() calls of lib/bisect.c, in order, with the runs they came from) and,
 * at the end, its result.
 *
 * Used by `bpflab bisect` on the database file (cli/bisect.c). Every mutating function
 * runs in one transaction and returns 0 or -errno with the reason in
 * store_bisect_errmsg() (-EEXIST an active session already, -ENOENT no such session,
 * -ESTALE the session is not active, -EINVAL bad input, -EROFS, -ENOSPC, -EIO).
 *
 * A database whose schema does not have the tables yet (migration 004 not embedded in
 * this build) gets them on first use, from the same text. One thread per struct store.
 */
#ifndef BPFLAB_STORE_BISECT_H
#define BPFLAB_STORE_BISECT_H

#include <jansson.h>
#include <stdint.h>

#include "store.h"

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
/* Append STEP {"kernel", "runs"?: [ids], "values": [numbers], "verdict", "p"?: number,
 * "note"?} to active session ID at NOW_MS. Returns 0, -ESTALE for a session that is
 * not active, -ENOENT, -EINVAL, or -errno. */
int store_bisect_add_step(struct store *store, int64_t id, const json_t *step,
			  int64_t now_ms);
/* End active session ID with STATE ("done" or "failed") and RESULT (JSON, not stolen,
 * may be NULL). Returns 0, -ESTALE, -ENOENT, -EINVAL, or -errno. */
int store_bisect_end(struct store *store, int64_t id, const char *state,
		     const json_t *result, int64_t now_ms);
/* Reset the active session (state 'reset', kept for the record); *ID (may be NULL)
 * gets its id. Returns 0, -ENOENT when none is active, or -errno. */
int store_bisect_reset(struct store *store, int64_t now_ms, int64_t *id);
/* The last error of these functions (thread-local). */
const char *store_bisect_errmsg(void);
/* The text that creates the tables (schema 004), for its test. */
extern const char store_bisect_schema[];

#endif
