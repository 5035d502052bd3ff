/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* store.h - the SQLite store: schema migrations, the persistent job queue, result ingest
 * and the queries that the coordinator and `bpflab --db FILE` answer.
 *
 * The store lives in lib/ (not coordinator/) because the CLI opens a database file
 * directly for offline analysis; both then produce the same JSON (docs/protocol.md,
 * "Query objects").
 *
 * Opening applies the numbered migrations in schema/ (compiled in) up to the newest,
 * tracked with PRAGMA user_version, and turns on WAL and foreign keys. Every mutating
 * function runs in one transaction: it either happens whole or not at all, and on failure
 * returns -errno with the reason in store_err() (the one error channel of the store
 * and its companions in lib/store/store_*.c; -ENOSPC disk or size limit full,
 * -EROFS read-only database, -EINVAL bad input or a constraint, -ENOENT unknown row,
 * -EBUSY locked by another process, -ENOMEM, -EIO anything else).
 *
 * State rules (docs/store.md): a host is busy exactly while one of its jobs is running
 * and it is not gone; a run is queued until one of its jobs is handed out, running until
 * every job is done or failed, then done (no job failed) or failed (at least one did).
 * A job's result is stored once (jobs.result_ms); a second one is a duplicate.
 *
 * One struct store per thread. Times are wall-clock milliseconds (util_wall_ms).
 *
 * Folder contract (docs/architecture.md, "Layout"):
 * lib/store/ is the only code that speaks SQL; it includes lib/base/, lib/analysis/
 * (repetition and noise decisions made in a result's transaction), lib/plan/ and
 * lib/proto/.
 */
#ifndef BPFLAB_STORE_H
#define BPFLAB_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#include "plan/objects.h"
#include "plan/plan.h"

struct store;

/* Room for a run or job state name ("cancelled") and its NUL. */
#define STORE_STATE_LEN 16

/* Open (creating if needed) the database at PATH (":memory:" works). READONLY opens an
 * existing file without migrating and without creating a file: a 0444 file in a 0555
 * directory works; a WAL file whose -wal is absent is read as immutable, one whose -wal
 * exists (a live writer's) through its -wal and -shm (docs/store.md, "Read-only
 * opens"). A write open of a file SQLite could only read (the file or its directory not
 * writable) fails with -EROFS at once. A database whose schema is newer than this
 * build, or (read-only) older or empty, is refused. Returns NULL with errno set and a
 * message in ERR. */
struct store *store_open(const char *path, bool readonly, struct err *err);
/* Close and free; *STORE becomes NULL. Takes NULL. */
void store_close(struct store **store);
/* The schema version now in force (PRAGMA user_version), or -errno. */
int store_schema_version(struct store *store);
/* The database's own id (schema 011, made at its creation): 16 lowercase hex digits
 * into OUT. Returns 0 or -errno (message in the store). */
#define STORE_DB_ID_LEN 17
int store_db_id(struct store *store, char out[STORE_DB_ID_LEN]);
/* The newest schema version this build knows. */
int store_schema_latest(void);
/* Cap the database file at about BYTES (PRAGMA max_page_count; 0 lifts the cap). Writes
 * beyond it fail with -ENOSPC as on a full disk: used by tests and by operators who keep
 * the database on a shared disk. Returns 0 or -errno. */
int store_set_size_limit(struct store *store, int64_t bytes);

/* --- hosts --- */

/* An agent said hello: insert or update host NAME with its agent VERSION and INVENTORY
 * (not stolen), mark it idle and seen at NOW_MS, and put any job it was running back in
 * the queue (the agent started a new session; a result from its spool is still taken).
 * *HOST_ID gets the host's id, *REQUEUED (may be NULL) how many jobs were requeued.
 * Returns 0 or -errno. */
int store_host_hello(struct store *store, const char *name, const char *version,
		     const json_t *inventory, int64_t now_ms, int64_t *host_id, int *requeued);
/* Record that host HOST_ID was heard from at NOW_MS. Returns 0 or -errno. */
int store_host_seen(struct store *store, int64_t host_id, int64_t now_ms);
/* Host HOST_ID stopped answering: mark it gone and put its running jobs back in the queue
 * for the same host (attempts kept). *REQUEUED may be NULL. Returns 0 or -errno. */
int store_host_gone(struct store *store, int64_t host_id, int *requeued);
/* Jobs queued or running on host HOST_ID into *N. Returns 0 or -errno. */
int store_host_pending(struct store *store, int64_t host_id, int64_t *n);

/* --- runs and the queue --- */

/* One job of a new run: a job of plan_expand() assigned to a host. */
struct store_job_new {
	int64_t host_id;
	const struct plan_job *job;	/* spec's attach entries must carry "sha256" */
	const char *spec_text;		/* JOB's spec encoded (proto_encode), or NULL */
};

/* Store a run of PLAN (its text and sha256 once per distinct text), its OVERRIDES (JSON
 * array of "KEY=VALUE", may be NULL), every object of OBJS that the plan names and the
 * N_JOBS jobs, all in one transaction. Each attach entry of each spec must name an object
 * of OBJS and carry its sha256, so that every sample traces back to the object bytes.
 * Nothing is stolen. *RUN_ID gets the new run's id. Returns 0 or -errno (-EINVAL for a
 * missing object, a wrong sha256 or no jobs). */
int store_run_create(struct store *store, const struct plan *plan, const json_t *overrides,
		     const struct plan_objects *objs, const struct store_job_new *jobs,
		     int n_jobs, int64_t now_ms, int64_t *run_id);

/* A host a run may use: one that matched its plan when it was submitted (or that the
 * submitter named). CHOSEN: the run's jobs are created for it. */
struct store_run_host {
	int64_t host_id;
	bool chosen;
};

/* store_run_create, also recording the N_HOSTS hosts of HOSTS (may be NULL) in run_hosts:
 * a job lost with its host is retried on one of them (store_host_lost). JOB_IDS (may be
 * NULL) gets each job's id, in the order of JOBS. */
int store_run_create_hosts(struct store *store, const struct plan *plan,
			   const json_t *overrides, const struct plan_objects *objs,
			   const struct store_job_new *jobs, int n_jobs,
			   const struct store_run_host *hosts, int n_hosts, int64_t now_ms,
			   int64_t *run_id, int64_t *job_ids);

/* What store_host_lost did. */
struct store_lost {
	int requeued;			/* running jobs queued again */
	int failed;			/* running jobs failed: out of attempts */
	int moved;			/* queued jobs moved to another host */
	int64_t moved_to;		/* the (last) host they moved to, or 0 */
};

/* Host HOST_ID missed its heartbeats at NOW_MS: it is gone; each running attempt on it
 * ends as 'lost'; a running job lost MAX_ATTEMPTS times (0: never give up) fails with the
 * reason, any other goes back to the queue; then, run by run, the host's queued jobs move
 * to one replacement host: connected, recorded for the run by store_run_create_hosts and
 * without a job of that run yet (with count all every matching host has its own jobs, so
 * they wait for this host to come back). *OUT may be NULL. Returns 0 or -errno. */
int store_host_lost(struct store *store, int64_t host_id, int max_attempts, int64_t now_ms,
		    struct store_lost *out);

/* Cancel run RUN_ID at NOW_MS: its queued jobs fail with error 'cancelled', the run
 * becomes 'cancelled' (final: later results are still stored, the state stays). *RUNNING
 * gets a new array of {"job", "host_id", "host"} for the jobs still running, whose agents
 * should be told to stop. Returns 0, -ENOENT for an unknown run, -ESTALE for a run that
 * has already ended, or -errno. */
int store_run_cancel(struct store *store, int64_t run_id, int64_t now_ms, json_t **running);

/* The next queued job of host HOST_ID: lowest seq of the earliest submitted run. Fills
 * *JOB_ID, *RUN_ID and *SPEC (new reference, caller decrefs). Returns 0, -ENOENT when the
 * host has nothing queued, or -errno. */
int store_job_next(struct store *store, int64_t host_id, int64_t *job_id, int64_t *run_id,
		   json_t **spec);
/* store_job_next without the spec: the next queued job's *JOB_ID and *RUN_ID (bpflabd
 * keeps each run's specs decoded: coordinator/specs.c). Returns 0, -ENOENT, or -errno. */
int store_job_next_id(struct store *store, int64_t host_id, int64_t *job_id,
		      int64_t *run_id);
/* Call FN(ARG, JOB_ID, TEXT, LEN) for every queued job of run RUN_ID with its spec's JSON
 * text as stored (NUL-terminated, LEN bytes; valid during the call), the jobs of one
 * spec row (job_specs) one after another. FN returns 0 or -errno, which stops the walk
 * and is returned. Returns 0 or -errno. */
int store_run_queued_specs(struct store *store, int64_t run_id,
			   int (*fn)(void *arg, int64_t job_id, const char *text, size_t len),
			   void *arg);
/* Whether run RUN_ID has a queued job, into *QUEUED. Returns 0 or -errno. */
int store_run_has_queued(struct store *store, int64_t run_id, bool *queued);
/* Hand queued job JOB_ID to its host: job running, attempts + 1, started at NOW_MS, host
 * busy, run running. Returns 0, -ESTALE if the job is not queued, or -errno. */
int store_job_dispatch(struct store *store, int64_t job_id, int64_t now_ms);
/* store_job_dispatch for the N jobs JOB_IDS in one transaction: one commit for all
 * (bpflabd hands out the jobs of one turn of its loop together, then sends them). A job
 * that is unknown or not queued is left out (ERRS[i] -ENOENT or -ESTALE, the first such
 * message in store_err) and the others are dispatched; ERRS[i] is 0 for a job
 * dispatched. Returns 0 when the transaction committed, or -errno when it did not: then
 * no job was dispatched and every ERRS[i] is that error. */
int store_jobs_dispatch(struct store *store, const int64_t *job_ids, int n, int64_t now_ms,
			int *errs);
/* Host HOST_ID's agent started job JOB_ID at NOW_MS (an accept): the job is running.
 * A job already finished is left alone. Returns 0, -ENOENT for an unknown job, -EPERM
 * for a job of another host, or -errno. */
int store_job_accept(struct store *store, int64_t job_id, int64_t host_id, int64_t now_ms);
/* A running job goes back to the queue (its message could not be sent, or its agent
 * refused it); attempts kept, the attempt ends `unsent` with WHY (NULL: "the job could not
 * be handed to the agent"). Returns 0, -ESTALE if it is not running, or -errno. */
int store_job_requeue(struct store *store, int64_t job_id, const char *why);
/* The coordinator fails job JOB_ID with ERROR (e.g. an object missing from the store).
 * Returns 0, -ESTALE if the job is already finished, or -errno. */
int store_job_fail(struct store *store, int64_t job_id, const char *error, int64_t now_ms);

/* What store_ingest_result did. */
struct store_ingest {
	int64_t job_id;
	int64_t run_id;
	bool duplicate;			/* a result was already stored: nothing changed */
	bool failed;			/* the job's result was status failed */
	int n_samples;			/* samples stored */
	bool run_finished;		/* this result finished the run */
	int reps_added;			/* repetitions the controller queued (lib/analysis/repeat.h) */
	char run_state[STORE_STATE_LEN];/* the run's state afterwards ("" for a duplicate) */
};

/* Store RESULT (a `result` message of docs/protocol.md, not stolen) from host HOST_ID:
 * its environment (deduplicated by content; the host's hello inventory when the result
 * has none), its samples, the job's state, error and verifier log, the run's state and
 * the host idle, in one transaction. A job that already has a result is a duplicate:
 * nothing changes and OUT->duplicate is set. Returns 0, -EINVAL for a malformed result
 * (nothing stored), -ENOENT for an unknown job, -EPERM for a job of another host, or
 * -errno. */
int store_ingest_result(struct store *store, int64_t host_id, const json_t *result,
			int64_t now_ms, struct store_ingest *out);
/* store_ingest_result with the result's samples already read from its text (SAMPLES,
 * not stolen, taken by proto_decode_samples: RESULT then has no "samples"); with SAMPLES
 * NULL or not taken, the same as store_ingest_result. */
struct samples;
int store_ingest_samples(struct store *store, int64_t host_id, const json_t *result,
			 const struct samples *samples, int64_t now_ms,
			 struct store_ingest *out);
/* store_ingest_result with the result already decoded (R, not stolen: lib/proto/msg_result.h;
 * bpflabd decodes each result once where it receives it). With KEEP_BUSY, host HOST_ID
 * is left busy instead of made idle: its agent is offered its next job in the same turn
 * of bpflabd's loop, whose dispatch finds it busy and writes no hosts row; the caller
 * then makes it idle with store_hosts_idle unless a job was dispatched to it (a
 * coordinator stopped in between: store_recover marks every host gone). */
struct msg_result;
int store_ingest_msg(struct store *store, int64_t host_id, const struct msg_result *r,
		     int64_t now_ms, bool keep_busy, struct store_ingest *out);
/* Each of the N hosts HOST_IDS that is busy and runs no job made idle, in one
 * transaction (the hosts store_ingest_msg kept busy whose agent got no next job).
 * Returns 0 or -errno. */
int store_hosts_idle(struct store *store, const int64_t *host_ids, int n);

/* Several writes in one transaction (bpflabd stores the results of one turn of its loop
 * with one commit): after store_batch_begin, each mutating call runs in a savepoint of
 * the batch's transaction instead of a transaction of its own, so that one that fails
 * changes nothing and leaves the others in place; store_batch_end commits them all when
 * ERR is 0, else (or when the commit fails) rolls them all back. Nothing of the batch is
 * durable before store_batch_end returned 0: tell no one about it before. Only the
 * store's own functions may write in a batch (store_link.h, store_bisect.h,
 * store_noise.h open transactions of their own). When SQLite itself rolls the batch's
 * transaction back (a full disk), the calls after fail and so does store_batch_end.
 * Return 0 or -errno (store_batch_begin -EBUSY when a batch is open). */
int store_batch_begin(struct store *store);
int store_batch_end(struct store *store, int err);

/* Coordinator start-up: jobs left running by a previous coordinator go back to the queue
 * (attempts kept), imports it left unfinished are deleted (store_import_begin) and every
 * host is gone until it says hello. *REQUEUED may be NULL.
 * Returns 0 or -errno. */
int store_recover(struct store *store, int *requeued);

/* The bytes of the object with hex SHA256 into *DATA (heap, caller frees) and *LEN.
 * Returns 0, -ENOENT, or -errno. */
int store_object_get(struct store *store, const char *sha256, void **data, size_t *len);

/* --- queries (new references, NULL with errno set: ENOENT for an unknown run) --- */

json_t *store_query_hosts(struct store *store);
json_t *store_query_runs(struct store *store);
json_t *store_query_run(struct store *store, int64_t run_id);
/* A run's result: run, plan, state, hosts, variants, repeat, its whole-window samples,
 * "trials" (a search's trials, `result show --trials`) and, when it has latency
 * windows, "latency_hist": [{"job", "subject", "bucket", "count"}] (samples
 * latency.hist, docs/agent.md "Latency"). */
json_t *store_query_result(struct store *store, int64_t run_id);
/* The per-second samples of run RUN_ID (`result show --seconds`, the dashboard's run
 * page): {"run", "plan", "series": [{"job", "host", "variant", "rep", "point", "metric",
 * "subject", "unit", "window", "seconds": [seq...], "values": [value...]}]}, a series
 * per job and (metric, subject, window) in job order, seconds ascending (seq 0 the
 * window's first second). Not a search's trials, latency buckets or warm-up rounds.
 * JOB_ID > 0: that job's series only (none when it is not the run's). */
json_t *store_query_seconds(struct store *store, int64_t run_id, int64_t job_id);
/* Every attempt of every job of run RUN_ID: [{"job", "attempt", "host", "started_ms",
 * "ended_ms", "outcome", "error"}] in job and attempt order. */
json_t *store_query_attempts(struct store *store, int64_t run_id);
/* The hosts and kernels of every run, for a list of runs: [{"run", "host",
 * "kernel_release"}] distinct, by run, host and kernel; a job not yet reported counts
 * with its host's latest kernel. */
json_t *store_query_run_hosts(struct store *store);
/* The metric names stored (series), sorted: [{"metric": NAME}, ...]; NULL with errno
 * (EBUSY: the database is locked). */
json_t *store_query_metrics(struct store *store);

/* --- compare, history and import (lib/analysis/analysis.c, docs/analysis.md) --- */

/* True when BY is a field store_query_values can group by: kernel.release, kernel.build,
 * kernel.version, kernel.config, port.driver (the driver of the job's generator port, else of its ports), host,
 * variant, plan, day, subject or run; or two or three of them joined by ',' (no field
 * twice), whose group is their values joined by '/'. */
bool store_values_by_known(const char *by);
/* Those fields as a text for messages: "kernel.release, kernel.build, ..., run". */
const char *store_values_by_fields(void);
/* True when BY is what a history can go by: fields of store_values_by_known that are
 * kernel.*, day or port.driver (one, or a ',' list of them). */
bool store_history_by_known(const char *by);
/* Those as a text for messages. */
const char *store_history_by_fields(void);
/* The whole-window samples of finished jobs that match FILTER (not stolen; every member
 * optional): {"plan", "metric", "window", "subject", "variant", "host": strings,
 * "runs": [run ids], "by": a field of store_values_by_known}. Returns a new array of
 * {"run", "job", "host", "kernel_release", "variant", "subject", "rep", "value", "unit",
 * "flags" (the job's verdicts), "day" (UTC, of the job's end), "plan", "plan_sha256",
 * "metric", "window", "cpu", "governor", "port_driver", "point", "debug_options",
 * "timing", "variant_idx" (index in the run's variants), "point_seq" (seq of the point's
 * first job in the run: plan order of points), "time_ms", "started_ms" (the job's
 * start), "imported" (only when true), "tc_attach" (only when any), "kernel_version",
 * "config_sha256", "kernel_build_id" and "kernel_build" (lib/analysis/kbuild.h), "group"
 * (only with "by")} in time
 * order; NULL with errno set (EINVAL for a bad filter). The coordinator's `query`
 * request returns the same array. */
json_t *store_query_values(struct store *store, const json_t *filter);
/* What compare's run-to-run spread reads (docs/analysis.md, "Run-to-run spread"): for
 * the runs FILTER's "runs" names (required, not empty) and each (plan sha256, host,
 * kernel build) one of their finished jobs ran in, the newest 20 runs of that set with
 * an id up to the newest named run, per row key (metric, point, timing, variant,
 * subject) and run: [{"run", "plan_sha256", "host", "kernel_release", "kernel_version",
 * "config_sha256", "metric", "point", "timing", "variant", "subject", "n", "mean",
 * "var" (sample variance, null for one value)}] over whole-window values of finished
 * jobs, compare's excluding verdicts left out unless FILTER's "include_flagged" is
 * true; FILTER's "plan", "metric", "window", "subject", "variant", "host" narrow as in
 * store_query_values. NULL with errno set (EINVAL for a bad filter). The coordinator's
 * `query_spread` request returns the same array. */
json_t *store_query_run_spread(struct store *store, const json_t *filter);
/* Store results made elsewhere as a new run, in one transaction: IMP (not stolen) is
 * {"plan": name, "source": file name, "host": name (default "imported"), "kernel"?:
 * {"release", "version"?} (1 to STORE_KERNEL_NAME_MAX bytes each: the jobs' environment,
 * so the values join histories and kernel groups), "jobs": [{"variant", "rep",
 * "point"?, "samples": [{"metric", "subject", "value", "unit", "window"?}]}]}. The plan
 * text is "imported from SOURCE", the host is created gone with an empty inventory, jobs
 * and run are done. *RUN_ID gets the new run. Returns 0 or -errno (-EINVAL for a
 * malformed import; nothing is stored then). */
#define STORE_KERNEL_NAME_MAX 64
int store_import(struct store *store, const json_t *imp, int64_t now_ms, int64_t *run_id);

/* store_import in parts (lib/store/store_import.c), for a caller that must not block
 * long: bpflabd's loop.
 * - store_import_check: IMP's input checks alone, no store (any thread): 0, or -EINVAL
 *   (-ENOMEM) with the reason in WHY.
 * - store_import_begin: the host, the environment and the run (queued, no variants yet)
 *   in one transaction; IMP referenced by *OUT until destroyed. CHECKED: the caller ran
 *   store_import_check on IMP, else begin does.
 * - store_import_step: the next jobs in one transaction, as many as fit before
 *   DEADLINE_MS (util_mono_ms; at least 16); the last part also stores the run's
 *   variants and repetitions and makes it done. 1: more to do, 0: done, -errno.
 * - store_import_destroy: frees IM; when it is not done (a step failed, or the caller
 *   gives up), deletes the run and what the parts wrote of it. Takes NULL; *IM NULL. */
struct store_import;
int store_import_check(const json_t *imp, struct err *why);
int store_import_begin(struct store *store, const json_t *imp, int64_t now_ms, bool checked,
		       struct store_import **out);
int store_import_step(struct store *store, struct store_import *im, int64_t deadline_ms);
int64_t store_import_run_id(const struct store_import *im);
size_t store_import_jobs(const struct store_import *im);
/* The JSON values IM holds (the import and its tables), a new reference: a caller that
 * frees big values elsewhere (bpflabd's worker) keeps it past store_import_destroy. */
json_t *store_import_values(const struct store_import *im);
void store_import_destroy(struct store *store, struct store_import **im);

/* --- kernel switches (lib/store/store_boot.c, schema 008; docs/protocol.md "Kernel
 * providers") --- A switch is one `host_boot` the coordinator sent: booting until it
 * ends done, failed or mismatch; at most one open per host. */

/* Host HOST_ID starts switching from kernel FROM to KERNEL at NOW_MS; *ID (may be NULL)
 * gets the switch's id. Returns 0, -EEXIST when the host has an open switch already,
 * -ENOENT for an unknown host, or -errno. */
int store_boot_begin(struct store *store, int64_t host_id, const char *kernel,
		     const char *from, int64_t now_ms, int64_t *id);
/* End host HOST_ID's open switch at NOW_MS as STATE ("done", "failed" or "mismatch")
 * with ERROR (may be NULL). Returns 0, -ENOENT when it has none open, -EINVAL for
 * another STATE, or -errno. */
int store_boot_end(struct store *store, int64_t host_id, const char *state,
		   const char *error, int64_t now_ms);
/* The latest switch of each host that has one (OPEN_ONLY: only those still booting), a
 * new array by host id of {"id", "host_id", "host", "kernel", "from", "state", "error"
 * (only when set), "started_ms", "ended_ms" (only when ended), "inventory" (the host's,
 * of its latest hello)}; NULL with errno set. */
json_t *store_boot_latest(struct store *store, bool open_only);
/* Put the switches onto HOSTS (the rows of store_query_hosts) as the coordinator's
 * coord_boot_hosts puts them on its host_list reply: "boot" {kernel, from, state,
 * since_ms, error?} on each host that was asked to switch, and state "booting" for one
 * still switching that is not recorded gone (the stored state stands for the
 * coordinator's "connected"). `bpflab --db` and the dashboard (web/) call it. Returns 0,
 * -EIO when the switches cannot be read (the reason in store_err()) or -ENOMEM. */
int store_boot_attach(struct store *store, json_t *hosts);

/* The last failure of any store function, of this store and its companions
 * (store_bisect, store_boot, store_link, store_noise) alike, as a struct err (its msg:
 * "cannot store result of job 3: database or disk is full"): the store's one error
 * channel, kept by STORE like sqlite3_errmsg() until its next failure
 * (docs/architecture.md, "Errors"). The CLI prints it with cli_fail(rc, store_err(st)). */
const struct err *store_err(const struct store *store);

/* For the store's own files in lib/ (store_*.c) and its tests only: same thread, same
 * rules. store_db is STORE's SQLite connection; store_fail puts a message on STORE's
 * error channel and returns ERR. */
struct sqlite3;
struct sqlite3 *store_db(struct store *store);
int store_fail(struct store *store, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
