/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* spool.h - results the coordinator has not acknowledged yet.
 *
 * Before a result is sent its bytes (the ones sent) are written, atomically and fsync'd (the file, then DIR), to
 * DIR/job-ID.json; the file is
 * deleted when the coordinator's ack for that job arrives; after every (re)connect and
 * welcome the agent sends every spooled result again (the coordinator stores a job's
 * samples once, so a resend is harmless). Without a directory the spool lives in memory
 * and survives reconnects but not a restart.
 *
 * Used by the agent's main loop thread only.
 */
#ifndef BPFLAB_AGENT_SPOOL_H
#define BPFLAB_AGENT_SPOOL_H

#include <jansson.h>

struct spool;

/* A spool in DIR (created if missing), or in memory when DIR is NULL. NULL with errno
 * set on failure. */
struct spool *spool_new(const char *dir);
void spool_destroy(struct spool **spool);

/* Keep TEXT[0..LEN) (a `result` message as sent, borrowed) as the result of job ID (a
 * job_id_text() string). 0 or -errno (-ENOSPC on a full disk: nothing kept; the caller
 * logs, agent.c holds the result). */
int spool_put(struct spool *spool, const char *id, const char *text, size_t len);
/* Forget job ID's result; 0 also when there was none. */
int spool_drop(struct spool *spool, const char *id);
/* Call FN for every spooled result in job id order with its bytes as they were put
 * (TEXT borrowed for the call). Stops at and returns FN's first non-zero return;
 * unreadable files and files that are not a JSON message are logged and skipped. */
int spool_foreach(struct spool *spool,
		  int (*fn)(void *ctx, const char *id, const char *text, size_t len), void *ctx);
/* The ids of the spooled results as a new JSON array of integers (ids that are not
 * numbers as strings); an empty array on failure. */
json_t *spool_ids(struct spool *spool);
/* Number of spooled results. */
int spool_count(struct spool *spool);

#endif
