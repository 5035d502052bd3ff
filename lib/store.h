/* store.h - the SQLite store: schema migrations, the persistent job queue, result ingest
 * and the queries that the coordinator and `bpflab --db FILE` answer.
 *
 * The store lives in lib/ (not coordinator/) because the CLI opens a database file
 * directly for offline analysis; both then produce the same JSON (docs/protocol.md,
 * "Query objects").
 *
 * Opening applies the numbered migrations in schema/ (compiled in) up to the newest,
 * tracked with PRAGMA user_version, and turns on WAL and foreign keys. Every mutating
 * function runs in one transaction: it either happens whole or not at all.
 * One struct store per thread.
 */
#ifndef BPFLAB_STORE_H
#define BPFLAB_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "objects.h"
#include "plan.h"

struct store;

/* Open (creating if needed) the database at PATH (":memory:" works). READONLY opens an
 * existing file without migrating. Returns NULL with errno set and a message in ERR. */
struct store *store_open(const char *path, bool readonly, char *err, size_t err_len);
void store_close(struct store **store);
/* The schema version now in force (PRAGMA user_version). */
int store_schema_version(struct store *store);
/* The newest schema version this build knows. */
int store_schema_latest(void);

/* Queries (new references, NULL with errno set: ENOENT for an unknown run). */
json_t *store_query_hosts(struct store *store);
json_t *store_query_runs(struct store *store);
json_t *store_query_run(struct store *store, int64_t run_id);
json_t *store_query_result(struct store *store, int64_t run_id);

/* The last error message from SQLite or the store itself. */
const char *store_errmsg(struct store *store);

#endif
