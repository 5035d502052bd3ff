/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* store_link.h - the lab's wiring and two-host job pairs in the store (schema
 * 006_links.sql, docs/store.md "links").
 *
 * Used by the coordinator (coordinator/link.c: discovery, submit of a two-host plan, the
 * barrier) and by the CLI with --db. Runs on the store's connection (store_db), in the
 * store's thread. Errors return -errno, from SQLite's result as lib/store/store.c maps it
 * (sql_errno, docs/store.md "Errors"), with the reason in store_err().
 */
#ifndef BPFLAB_STORE_LINK_H
#define BPFLAB_STORE_LINK_H

#include <jansson.h>
#include <stdint.h>

#include "store/store.h"

/* One discovered link: port PORT_A of host HOST_A receives what PORT_B of HOST_B sends,
 * and the other way round. */
struct store_link {
	int64_t host_a;
	const char *port_a;
	int64_t host_b;
	const char *port_b;
};

/* Replace every stored link by the N of LINKS (each stored once, lower end first), all
 * in one transaction, at NOW_MS. Returns 0, -EINVAL for a link of an unknown host (no
 * link changes), or -errno. */
int store_links_replace(struct store *store, const struct store_link *links, int n,
			int64_t now_ms);
/* The stored links: a new array of {"id", "host_a", "port_a", "host_b", "port_b",
 * "host_a_id", "host_b_id", "discovered_ms"} (host names), by id; NULL with errno. */
json_t *store_query_links(struct store *store);

/* The other job of JOB_ID's pair (same run and seq, the other host, both with a "pair"
 * spec) into *PARTNER and its host into *HOST. Returns 0, -ENOENT when JOB_ID is not one
 * side of a pair, or -errno. */
int store_job_partner(struct store *store, int64_t job_id, int64_t *partner, int64_t *host);
/* The state of job JOB_ID (queued, running, done, failed) into STATE (16 bytes). Returns
 * 0, -ENOENT or -errno. */
int store_job_state(struct store *store, int64_t job_id, char state[16]);

/* The error of job JOB_ID (first line, "" when none) into OUT (LEN bytes). Returns 0,
 * -ENOENT or -errno. */
int store_job_error(struct store *store, int64_t job_id, char *out, size_t len);

/* The outcome of JOB_ID's latest attempt (running, done, failed, lost, ...) into OUTCOME
 * (16 bytes) and how many of its attempts were lost into *LOST (may be NULL). Returns 0,
 * -ENOENT (no attempt) or -errno. */
int store_job_last_attempt(struct store *store, int64_t job_id, char outcome[16],
			   int64_t *lost);
/* Put failed pair job JOB_ID back in the queue because its partner was lost with its
 * host: its latest attempt becomes 'lost' with WHY, its result members are cleared and
 * its run is open again, all in one transaction. Only a job that stored no sample (it
 * failed at its barrier) is requeued. Returns 0, -ENOENT (not failed, or not that job),
 * -EEXIST (it has samples) or -errno. */
int store_pair_requeue(struct store *store, int64_t job_id, const char *why);

#endif
