/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* bisect_session.h - a stored bisect session (store_bisect_get's object, docs/bisect.md)
 * and its engine (bisect.h): the engine rebuilt by replaying the stored steps, and the
 * session annotated as `bpflab bisect status -j` and `bisect log -j` print it. Used by
 * cli/bisect*.c and the dashboard (web/), so both give the same JSON.
 */
#ifndef BPFLAB_BISECT_SESSION_H
#define BPFLAB_BISECT_SESSION_H

#include <jansson.h>

#include "analysis/bisect.h"

/* The index of kernel NAME in the session's KERNELS (an array of names), or -1. */
int bisect_session_kernel(const json_t *kernels, const char *name);
/* The engine of session SES with its steps replayed (its kernels, good, bad and opts).
 * Returns NULL with errno: EINVAL when the steps do not fit the kernels (or more than
 * 1024 kernels), ENOMEM. */
struct bisect *bisect_session_replay(const json_t *ses);
/* Put into each step of SES (in the order of B's) "min_detectable_pct": what the step's
 * comparison could resolve, in %, or null. */
void bisect_session_annotate_steps(json_t *ses, const struct bisect *b);
/* SES as `bisect status -j` prints it: "engine_state", "next" (a kernel or null),
 * "measured", and the steps annotated. Returns 0 or -ENOMEM. */
int bisect_session_status(json_t *ses, const struct bisect *b);

#endif
