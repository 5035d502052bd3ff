// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_query.c - the query objects of the store (store.h; docs/protocol.md "Query
 * objects"): hosts, runs, a run's results and attempts, the values compare, history and
 * bisect select; each a SELECT (struct sto_stmt) and the table of its columns.
 */
#include "store/store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kbuild.h"
#include "proto/proto.h"
#include "proto/samples.h"
#include "store/store_repeat.h"
#include "base/util.h"

/* --- queries: a SELECT and the table of its columns, in order --- */

/* The spec text of job J (an alias of jobs), from its row of job_specs. */
#define JOB_SPEC_SQL(j) "(SELECT text FROM job_specs WHERE id = " j ".spec_id)"

/* 1 when job j's spec lists METRIC among its metrics and METRIC is a driver counter
 * (nic.*, docs/agent.md "Driver counters"): a record that the plan made a metric to
 * compare. Looked up for nic.* rows only. */
#define LISTED_SQL(metric)							\
	"CASE WHEN " metric " GLOB 'nic.*' AND json_valid(" JOB_SPEC_SQL("j") ") THEN EXISTS " \
	"(SELECT 1 FROM json_each(" JOB_SPEC_SQL("j") ", '$.metrics') m WHERE m.value = "	\
	metric ") ELSE 0 END"

#define RUN_HEAD_SQL								\
	"SELECT r.id, p.name, p.sha256, r.state, r.submitted_ms, r.finished_ms, "	\
	"(SELECT count(*) FROM jobs j WHERE j.run_id = r.id), "			\
	"(SELECT count(*) FROM jobs j WHERE j.run_id = r.id AND j.state = 'done'), "	\
	"(SELECT count(*) FROM jobs j WHERE j.run_id = r.id AND j.state = 'failed'), " \
	"r.overrides, r.variants, r.repeat "					\
	"FROM runs r JOIN plans p ON p.id = r.plan_id "

/* The SQL condition that inventory port PORT (a json_each value) is one whose driver is
 * the job's port.driver, for a job of SPEC: the generator's port (traffic.from) when the
 * job sends, else each port of its spec's roles (every port for a spec without them). A
 * NIC guest's plan sends from a NIC and may redirect into a veth pair of the guest: its
 * driver is the NIC's, not "veth,virtio_net". */
#define DRIVER_PORT_SQL(spec, port) \
	"(CASE WHEN json_extract(" spec ", '$.traffic.from') IS NOT NULL THEN " \
	"json_extract(" port ", '$.role') = json_extract(" spec ", '$.traffic.from') " \
	"WHEN json_type(" spec ", '$.ports') IS NULL THEN 1 " \
	"ELSE json_extract(" port ", '$.role') IN (SELECT value FROM json_each(" spec ", " \
	"'$.ports')) END)"

static const struct sto_stmt stmt_q_runs = { RUN_HEAD_SQL "ORDER BY r.id" };
static const struct sto_stmt stmt_q_run = { RUN_HEAD_SQL "WHERE r.id = ?1" };

/* A run of the list; the "run" of run_show adds overrides. Columns 10 and
 * 11 (variants, repeat) are read by run_get. */
static const struct sql_col run_cols[] = {
	{ "id", SQL_INT, 0 }, { "plan", SQL_TEXT, 0 }, { "plan_sha256", SQL_TEXT, 0 },
	{ "state", SQL_TEXT, 0 }, { "submitted_ms", SQL_INT, 0 },
	{ "finished_ms", SQL_INT, 0 }, { "jobs_total", SQL_INT, 0 },
	{ "jobs_done", SQL_INT, 0 }, { "jobs_failed", SQL_INT, 0 },
	{ "overrides", SQL_JSON, 0 },
};
#define RUN_LIST_COLS 9		/* run_cols without overrides */

static const struct sto_stmt stmt_q_hosts = {
	"SELECT h.id, h.name, h.state, h.kernel_release, h.last_seen_ms, "
	"(SELECT j.id FROM jobs j WHERE j.host_id = h.id AND j.state = 'running' "
	"ORDER BY j.id LIMIT 1), h.inventory FROM hosts h ORDER BY h.name",
};

static const struct sql_col host_cols[] = {
	{ "id", SQL_INT, 0 }, { "name", SQL_TEXT, 0 }, { "state", SQL_TEXT, 0 },
	{ "kernel_release", SQL_TEXT, 0 }, { "last_seen_ms", SQL_INT, 0 },
	{ "job", SQL_INT, 0 }, { "inventory", SQL_JSON, 0 },
};

static const struct sto_stmt stmt_q_run_jobs = {
	"SELECT j.id, j.seq, h.name, j.variant, j.rep, j.point, j.state, j.attempts, "
	"j.error, j.started_ms, j.finished_ms, j.verdicts, j.verdict_details, "
	"(SELECT e.timing FROM host_envs e WHERE e.id = j.env_id), j.added, "
	"(SELECT e.kernel_release FROM host_envs e WHERE e.id = j.env_id) "
	"FROM jobs j JOIN hosts h ON h.id = j.host_id "
	"WHERE j.run_id = ?1 ORDER BY j.seq, h.name, j.id",
};

static const struct sql_col job_cols[] = {
	{ "id", SQL_INT, 0 }, { "seq", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
	{ "variant", SQL_TEXT, 0 }, { "rep", SQL_INT, 0 }, { "point", SQL_JSON, 0 },
	{ "state", SQL_TEXT, 0 }, { "attempts", SQL_INT, 0 }, { "error", SQL_TEXT, 0 },
	{ "started_ms", SQL_INT, 0 }, { "finished_ms", SQL_INT, 0 },
	{ "verdicts", SQL_JSON, 0 }, { "verdict_details", SQL_JSON, 0 },
	{ "timing", SQL_TEXT, 0 }, { "added", SQL_TEXT, SQL_OMIT_NULL },
	/* the kernel the job reported from (result verifier groups load failures by it) */
	{ "kernel_release", SQL_TEXT, SQL_OMIT_NULL },
};

/* The kernels the run's jobs ran on; a host none of whose jobs has reported yet
 * shows the kernel of its latest hello (NOT IN a list made once: a correlated NOT EXISTS
 * scanned the run's jobs for each job, 18 s for 10,000 imported jobs). With each, how the tc programs of the
 * run's jobs there were attached, from their envs: {"b": {"ingress": "clsact",
 * "egress": "clsact"}} (hooks that were attached, distinct methods joined by ','),
 * NULL when none was; and the XDP mode that attach entries of mode auto used per port
 * role: {"b": "generic"} (xdp_auto, NULL when no entry said auto); the drivers of the
 * ports the jobs use (port_driver, as store_query_values'); per variant its XDP entries
 * with the mode used: {"drop": [{"port": "b", "program": "xdp_drop", "mode": "native"}]}
 * (xdp; result show --form drivers). */
/* The run's jobs on host x.hid (in stmt_q_result_hosts), one per variant and env, as k,
 * with their spec text as k.spec. */
#define RESULT_HOST_JOBS							\
	"(SELECT j1.*, " JOB_SPEC_SQL("j1") " AS spec FROM jobs j1 WHERE j1.id IN "	\
	"(SELECT min(j2.id) FROM jobs j2 WHERE j2.run_id = ?1 AND j2.host_id = x.hid "	\
	"AND j2.env_id IS NOT NULL GROUP BY j2.variant_idx, j2.env_id)) k"

static const struct sto_stmt stmt_q_result_hosts = {
	"SELECT x.name, x.kr, x.kv, x.role, "
	"(SELECT nullif(json_group_object(role, json(hooks)), '{}') FROM "
	"(SELECT role, json_group_object(hook, m) AS hooks FROM "
	"(SELECT role, hook, group_concat(m, ',') AS m FROM "
	"(SELECT DISTINCT json_extract(pp.value, '$.role') AS role, t.key AS hook, "
	"t.value AS m FROM host_envs f, json_each(f.inventory, '$.ports') pp, "
	"json_each(pp.value, '$.tc_attach') t WHERE f.id IN (SELECT k.env_id FROM jobs k "
	"WHERE k.run_id = ?1 AND k.host_id = x.hid) AND f.kernel_release = x.kr "
	"AND t.value <> 'none' AND role IS NOT NULL ORDER BY role, hook DESC, m) "
	"GROUP BY role, hook ORDER BY role, hook DESC) GROUP BY role ORDER BY role)), "
	/* the XDP mode entries of mode auto used, per port role (xdp_auto in the env) */
	"(SELECT nullif(json_group_object(role, m), '{}') FROM "
	"(SELECT role, group_concat(m, ',') AS m FROM "
	"(SELECT DISTINCT json_extract(pp.value, '$.role') AS role, "
	"json_extract(pp.value, '$.xdp_mode') AS m FROM host_envs f, "
	"json_each(f.inventory, '$.ports') pp WHERE f.id IN (SELECT k.env_id FROM jobs k "
	"WHERE k.run_id = ?1 AND k.host_id = x.hid) AND f.kernel_release = x.kr "
	"AND json_extract(pp.value, '$.xdp_auto') AND role IS NOT NULL AND m IS NOT NULL "
	"ORDER BY role, m) GROUP BY role ORDER BY role)), "
	/* the drivers of the ports the jobs use, as compare's port_driver (DRIVER_PORT_SQL) */
	/* (both read one job per variant and env: a spec is parsed once, not per job) */
	"(SELECT group_concat(d, ',') FROM (SELECT DISTINCT "
	"json_extract(pp.value, '$.driver') AS d FROM " RESULT_HOST_JOBS " JOIN host_envs f "
	"ON f.id = k.env_id, json_each(f.inventory, '$.ports') pp WHERE "
	"f.kernel_release = x.kr AND d IS NOT NULL AND " DRIVER_PORT_SQL("k.spec", "pp.value")
	" ORDER BY d)), "
	/* per variant its XDP entries in plan order with the mode the jobs used */
	"(SELECT nullif(json_group_object(v, json(e)), '{}') FROM "
	"(SELECT v, json_group_array(json_object('port', port, 'program', prog, 'mode', m)) "
	"AS e FROM (SELECT v, vi, idx, port, prog, group_concat(m, ',') AS m FROM "
	"(SELECT DISTINCT k.variant AS v, k.variant_idx AS vi, a.key AS idx, "
	"json_extract(a.value, '$.port') AS port, json_extract(a.value, '$.program') AS prog, "
	"(SELECT json_extract(pp.value, '$.xdp_mode') FROM json_each(f.inventory, '$.ports') pp "
	"WHERE json_extract(pp.value, '$.role') = json_extract(a.value, '$.port') AND "
	"json_extract(pp.value, '$.xdp_mode') <> 'none') AS m "
	"FROM " RESULT_HOST_JOBS " JOIN host_envs f ON f.id = k.env_id, "
	"json_each(k.spec, '$.attach') a WHERE f.kernel_release = x.kr "
	"AND json_extract(a.value, '$.hook') = 'xdp' ORDER BY vi, idx, m) "
	"GROUP BY vi, idx ORDER BY vi, idx) GROUP BY vi ORDER BY vi)) "
	"FROM (SELECT h.id AS hid, h.name AS name, e.kernel_release AS kr, "
	"e.kernel_version AS kv, json_extract(" JOB_SPEC_SQL("j") ", '$.pair.role') AS role "
	"FROM jobs j "
	"JOIN hosts h ON h.id = j.host_id JOIN host_envs e ON e.id = j.env_id "
	"WHERE j.run_id = ?1 "
	"UNION "
	"SELECT h.id, h.name, h.kernel_release, json_extract(h.inventory, '$.kernel.version'), "
	"json_extract(" JOB_SPEC_SQL("j") ", '$.pair.role') "
	"FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.run_id = ?1 AND j.host_id NOT IN "
	"(SELECT k.host_id FROM jobs k WHERE k.run_id = ?1 AND k.env_id IS NOT NULL)) x "
	"ORDER BY 1, 2, 3",
};

static const struct sql_col result_host_cols[] = {
	{ "name", SQL_TEXT, 0 }, { "kernel_release", SQL_TEXT, 0 },
	{ "kernel_version", SQL_TEXT, 0 },
	/* two-host plans: the role it played (generator, dut) */
	{ "role", SQL_TEXT, SQL_OMIT_NULL },
	/* per port role and hook: tcx, clsact; none attached: absent */
	{ "tc_attach", SQL_JSON, SQL_OMIT_NULL },
	/* per port role: the XDP mode (native, generic; several joined by ',') that entries
	 * of mode auto used; none: absent */
	{ "xdp_auto", SQL_JSON, SQL_OMIT_NULL },
	/* the drivers of the ports the jobs use (DRIVER_PORT_SQL), sorted, joined by ',':
	 * compare's port_driver; none known: absent */
	{ "port_driver", SQL_TEXT, SQL_OMIT_NULL },
	/* per variant its XDP attach entries in plan order, [{"port", "program", "mode"}]:
	 * mode the one the jobs used (native, generic; several joined by ','), null when
	 * the env does not say; no XDP entry: absent */
	{ "xdp", SQL_JSON, SQL_OMIT_NULL },
};

static const struct sto_stmt stmt_q_result_samples = {
	"SELECT s.job_id, h.name, j.variant, j.rep, j.point, r.metric, r.subject, s.value, "
	"s.unit, r.window, j.verdicts, "
	"ifnull((SELECT e.timing FROM host_envs e WHERE e.id = j.env_id), 'wall'), "
	"j.verdict_details, " LISTED_SQL("r.metric") " "
	"FROM jobs j JOIN sample_values s ON s.job_id = j.id "
	"JOIN series r ON r.id = s.series_id "
	"JOIN hosts h ON h.id = j.host_id WHERE j.run_id = ?1 AND s.seq = -1 "
	"ORDER BY j.seq, h.name, j.id, s.id",
};

static const struct sql_col sample_cols[] = {
	{ "job", SQL_INT, 0 }, { "host", SQL_TEXT, 0 }, { "variant", SQL_TEXT, 0 },
	{ "rep", SQL_INT, 0 }, { "point", SQL_JSON, 0 }, { "metric", SQL_TEXT, 0 },
	{ "subject", SQL_TEXT, 0 }, { "value", SQL_REAL, 0 }, { "unit", SQL_TEXT, 0 },
	{ "window", SQL_TEXT, 0 }, { "verdicts", SQL_JSON, 0 }, { "timing", SQL_TEXT, 0 },
	/* verdict -> why, as the agent wrote it: the legends under the tables */
	{ "verdict_details", SQL_JSON, 0 },
	/* a record the job's metrics list: compared (analysis_row_is_record) */
	{ "listed", SQL_FLAG, 0 },
};

/* A search's trials (agent/job_search.c: trial.* samples, seq the trial), a row per
 * trial in order: what `result show --trials` prints */
static const struct sto_stmt stmt_q_result_trials = {
	"SELECT s.job_id, h.name, j.variant, j.rep, j.point, r.subject, s.seq, "
	"max(CASE r.metric WHEN 'trial.duration_s' THEN s.value END), "
	"max(CASE r.metric WHEN 'trial.load_pps' THEN s.value END), "
	"max(CASE r.metric WHEN 'trial.offered_pps' THEN s.value END), "
	"max(CASE r.metric WHEN 'trial.forwarded_pps' THEN s.value END), "
	"max(CASE r.metric WHEN 'trial.loss_ratio' THEN s.value END), "
	"max(CASE r.metric WHEN 'trial.valid' THEN s.value END) "
	"FROM jobs j JOIN sample_values s ON s.job_id = j.id "
	"JOIN series r ON r.id = s.series_id "
	"JOIN hosts h ON h.id = j.host_id WHERE j.run_id = ?1 AND s.seq >= 0 "
	"AND r.metric LIKE 'trial.%' "
	"GROUP BY s.job_id, r.subject, s.seq ORDER BY j.seq, h.name, j.id, r.subject, s.seq",
};

static const struct sql_col trial_cols[] = {
	{ "job", SQL_INT, 0 }, { "host", SQL_TEXT, 0 }, { "variant", SQL_TEXT, 0 },
	{ "rep", SQL_INT, 0 }, { "point", SQL_JSON, 0 }, { "subject", SQL_TEXT, 0 },
	{ "seq", SQL_INT, 0 }, { "duration_s", SQL_REAL, 0 }, { "load_pps", SQL_REAL, 0 },
	{ "offered_pps", SQL_REAL, 0 },
	/* absent from searches stored before they were recorded */
	{ "forwarded_pps", SQL_REAL, SQL_OMIT_NULL }, { "loss_ratio", SQL_REAL, 0 },
	{ "valid", SQL_INT, SQL_OMIT_NULL },
};

/* the buckets of each latency window's histogram (metric latency.hist, seq the bucket;
 * docs/agent.md, "Latency") */
static const struct sto_stmt stmt_q_result_hist = {
	"SELECT s.job_id, r.subject, s.seq, s.value "
	"FROM jobs j JOIN sample_values s ON s.job_id = j.id "
	"JOIN series r ON r.id = s.series_id "
	"WHERE j.run_id = ?1 AND r.metric = 'latency.hist' AND s.seq >= 0 "
	"ORDER BY s.job_id, r.subject, s.seq",
};

static const struct sql_col hist_cols[] = {
	{ "job", SQL_INT, 0 }, { "subject", SQL_TEXT, 0 }, { "bucket", SQL_INT, 0 },
	{ "count", SQL_REAL, 0 },
};

static const struct sto_stmt stmt_q_attempts = {
	"SELECT a.job_id, a.attempt, h.name, a.started_ms, a.ended_ms, a.outcome, a.error "
	"FROM job_attempts a JOIN jobs j ON j.id = a.job_id JOIN hosts h ON h.id = a.host_id "
	"WHERE j.run_id = ?1 ORDER BY a.job_id, a.attempt",
};

static const struct sql_col attempt_cols[] = {
	{ "job", SQL_INT, 0 }, { "attempt", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
	{ "started_ms", SQL_INT, 0 }, { "ended_ms", SQL_INT, 0 },
	{ "outcome", SQL_TEXT, 0 }, { "error", SQL_TEXT, 0 },
};

/* store_query_values: whole-window samples with what compare and history group
 * by; each filter is off when its parameter is NULL (?4: JSON array of run ids) */
static const struct sto_stmt stmt_q_values = {
	"SELECT r.id, j.id, h.name, e.kernel_release, j.variant, sr.subject, j.rep, "
	"s.value, s.unit, j.verdicts, "
	"strftime('%Y-%m-%d', ifnull(j.finished_ms, r.submitted_ms) / 1000, 'unixepoch'), "
	"p.name, p.sha256, sr.metric, sr.window, "
	"json_extract(e.inventory, '$.cpu.model'), "
	"json_extract(e.inventory, '$.cpu.governor'), "
	/* the job's port driver (DRIVER_PORT_SQL) */
	"(SELECT group_concat(d, ',') FROM (SELECT DISTINCT "
	"json_extract(pp.value, '$.driver') AS d FROM json_each(e.inventory, '$.ports') pp "
	"WHERE d IS NOT NULL AND " DRIVER_PORT_SQL("js.text", "pp.value") " ORDER BY d)), "
	"j.point, e.debug_options, ifnull(e.timing, 'wall'), "
	/* plan order: the variant's index, the point's first job in the run */
	"j.variant_idx, (SELECT min(k.seq) FROM jobs k WHERE k.run_id = j.run_id "
	"AND k.host_id = j.host_id AND k.point = j.point), "
	"ifnull(j.finished_ms, r.submitted_ms), substr(p.text, 1, 14) = 'imported from ', "
	/* how the job's tc programs were attached (tcx, clsact), from its env */
	"(SELECT group_concat(m, ',') FROM (SELECT DISTINCT t.value AS m "
	"FROM json_each(e.inventory, '$.ports') pp, json_each(pp.value, '$.tc_attach') t "
	"WHERE t.value <> 'none' ORDER BY m)), "
	/* what tells kernel builds apart (lib/analysis/kbuild.h), the job's real start */
	"e.kernel_version, e.config_sha256, j.started_ms, " LISTED_SQL("sr.metric") " "
	"FROM sample_values s JOIN series sr ON sr.id = s.series_id "
	"JOIN jobs j ON j.id = s.job_id JOIN runs r ON r.id = j.run_id "
	"JOIN plans p ON p.id = r.plan_id JOIN hosts h ON h.id = j.host_id "
	"JOIN job_specs js ON js.id = j.spec_id LEFT JOIN host_envs e ON e.id = j.env_id "
	"WHERE s.seq = -1 AND j.state = 'done' AND (?1 IS NULL OR p.name = ?1) "
	"AND (?2 IS NULL OR sr.metric = ?2) AND (?3 IS NULL OR sr.window = ?3) "
	"AND (?4 IS NULL OR r.id IN (SELECT value FROM json_each(?4))) "
	"AND (?5 IS NULL OR sr.subject = ?5) AND (?6 IS NULL OR j.variant = ?6) "
	"AND (?7 IS NULL OR h.name = ?7) "
	"ORDER BY ifnull(j.finished_ms, r.submitted_ms), r.id, j.seq, h.name, j.id, s.id",
};

static const struct sql_col value_cols[] = {
	{ "run", SQL_INT, 0 }, { "job", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
	{ "kernel_release", SQL_TEXT, 0 }, { "variant", SQL_TEXT, 0 },
	{ "subject", SQL_TEXT, 0 }, { "rep", SQL_INT, 0 }, { "value", SQL_REAL, 0 },
	{ "unit", SQL_TEXT, 0 }, { "flags", SQL_JSON, 0 }, { "day", SQL_TEXT, 0 },
	{ "plan", SQL_TEXT, 0 }, { "plan_sha256", SQL_TEXT, 0 },
	{ "metric", SQL_TEXT, 0 }, { "window", SQL_TEXT, 0 }, { "cpu", SQL_TEXT, 0 },
	{ "governor", SQL_TEXT, 0 }, { "port_driver", SQL_TEXT, 0 },
	{ "point", SQL_JSON, 0 }, { "debug_options", SQL_JSON, 0 },
	{ "timing", SQL_TEXT, 0 },
	{ "variant_idx", SQL_INT, 0 }, { "point_seq", SQL_INT, 0 },
	{ "time_ms", SQL_INT, 0 },
	/* imported results say so in their plan text (store_import) */
	{ "imported", SQL_FLAG, 0 },
	/* "clsact", "tcx" or "clsact,tcx" when tc programs were attached */
	{ "tc_attach", SQL_TEXT, SQL_OMIT_NULL },
	/* with kernel_release a kernel build's identity (lib/analysis/kbuild.h) */
	{ "kernel_version", SQL_TEXT, 0 }, { "config_sha256", SQL_TEXT, 0 },
	{ "started_ms", SQL_INT, 0 },
	/* a record the job's metrics list: compared (analysis_row_is_record) */
	{ "listed", SQL_FLAG, 0 },
};

json_t *store_query_hosts(struct store *st)
{
	json_t *r = sto_query_rows(st, &stmt_q_hosts, host_cols, ARRAY_SIZE(host_cols), "");

	if (!r)
		sto_context(st, -errno, "cannot list hosts");
	return r;
}

json_t *store_query_runs(struct store *st)
{
	json_t *r = sto_query_rows(st, &stmt_q_runs, run_cols, RUN_LIST_COLS, "");

	if (!r)
		sto_context(st, -errno, "cannot list runs");
	return r;
}

/* The head of run RUN_ID (FULL: with overrides), or NULL: errno ENOENT for no such run.
 * *VARIANTS and *REPEAT (may be NULL) get the run's variants and repeat. */
static json_t *run_get(struct store *st, int64_t run_id, bool full, json_t **variants,
		       int64_t *repeat)
{
	sqlite3_stmt *s = NULL;
	json_t *r;
	int err = sto_query_row(st, &stmt_q_run, &s, "i", run_id);

	if (err) {
		if (err == -ENOENT)
			store_fail(st, -ENOENT, "unknown run %lld", (long long)run_id);
		errno = -err;
		return NULL;
	}
	r = sql_row_json(s, run_cols, full ? ARRAY_SIZE(run_cols) : RUN_LIST_COLS);
	if (variants)
		*variants = sql_column(s, 10, SQL_JSON);
	if (repeat)
		*repeat = sqlite3_column_int64(s, 11);
	sto_done(s);
	if (!r) {
		store_fail(st, -ENOMEM, "out of memory");
		errno = ENOMEM;
	}
	return r;
}

json_t *store_query_run(struct store *st, int64_t run_id)
{
	json_t *run, *jobs;
	int err = 0;

	run = run_get(st, run_id, true, NULL, NULL);
	if (!run) {
		err = -errno;
		goto out;
	}
	jobs = sto_query_rows(st, &stmt_q_run_jobs, job_cols, ARRAY_SIZE(job_cols), "i", run_id);
	if (!jobs)
		err = -(errno ? errno : EIO);
	else if (json_object_set_new(run, "jobs", jobs))
		err = store_fail(st, -ENOMEM, "out of memory");
	if (err) {
		json_decref(run);
		run = NULL;
	}
out:
	if (err && err != -ENOENT) {
		sto_context(st, err, "cannot read run %lld", (long long)run_id);
		errno = -err;
	}
	return run;
}

/* the per-second samples of each job and series (seq the second; not a search's trials,
 * latency buckets or warm-up rounds, whose seq is not a second), seconds in order */
static const struct sto_stmt stmt_q_seconds = {
	"SELECT job_id, host, variant, rep, point, metric, subject, unit, window, "
	"json_group_array(seq), json_group_array(value) FROM ("
	"SELECT s.job_id, h.name host, j.variant, j.rep, j.point, r.metric, r.subject, "
	"s.unit, r.window, s.seq, s.value, j.seq jseq, s.series_id "
	"FROM jobs j JOIN sample_values s ON s.job_id = j.id "
	"JOIN series r ON r.id = s.series_id "
	"JOIN hosts h ON h.id = j.host_id WHERE j.run_id = ?1 AND (?2 = 0 OR j.id = ?2) "
	"AND s.seq >= 0 AND r.metric NOT LIKE 'trial.%' AND r.metric NOT LIKE 'warmup.%' "
	"AND r.metric <> 'latency.hist' "
	"ORDER BY j.seq, h.name, j.id, r.metric, r.subject, s.seq) "
	"GROUP BY job_id, series_id ORDER BY min(jseq), host, job_id, metric, subject",
};

static const struct sql_col seconds_cols[] = {
	{ "job", SQL_INT, 0 }, { "host", SQL_TEXT, 0 }, { "variant", SQL_TEXT, 0 },
	{ "rep", SQL_INT, 0 }, { "point", SQL_JSON, 0 }, { "metric", SQL_TEXT, 0 },
	{ "subject", SQL_TEXT, 0 }, { "unit", SQL_TEXT, 0 }, { "window", SQL_TEXT, 0 },
	{ "seconds", SQL_JSON, 0 }, { "values", SQL_JSON, 0 },
};

json_t *store_query_seconds(struct store *st, int64_t run_id, int64_t job_id)
{
	json_t *head, *variants = NULL, *rows, *res = NULL;
	int64_t repeat = 0;
	int err = 0;

	head = run_get(st, run_id, false, &variants, &repeat);
	if (!head) {
		err = -errno;
		goto out;
	}
	rows = sto_query_rows(st, &stmt_q_seconds, seconds_cols, ARRAY_SIZE(seconds_cols), "ii",
			      run_id, job_id);
	if (!rows) {
		err = -(errno ? errno : EIO);
		goto out;
	}
	/* "o" steals rows, also on failure */
	res = json_pack("{s:O, s:O, s:o}", "run", json_object_get(head, "id"), "plan",
			json_object_get(head, "plan"), "series", rows);
	if (!res)
		err = store_fail(st, -ENOMEM, "out of memory");
out:
	json_decref(head);
	json_decref(variants);
	if (err && err != -ENOENT)
		sto_context(st, err, "cannot read the seconds of run %lld", (long long)run_id);
	if (err)
		errno = -err;
	return res;
}

json_t *store_query_result(struct store *st, int64_t run_id)
{
	json_t *head = NULL, *res = NULL, *variants = NULL, *hosts = NULL, *samples = NULL;
	json_t *trials = NULL, *hist = NULL;
	int64_t repeat = 0;
	int err = 0;

	head = run_get(st, run_id, false, &variants, &repeat);
	if (!head) {
		err = -errno;
		goto out;
	}
	hosts = sto_query_rows(st, &stmt_q_result_hosts, result_host_cols, ARRAY_SIZE(result_host_cols),
			       "i", run_id);
	samples = hosts ? sto_query_rows(st, &stmt_q_result_samples, sample_cols,
					 ARRAY_SIZE(sample_cols), "i", run_id) : NULL;
	trials = samples ? sto_query_rows(st, &stmt_q_result_trials, trial_cols,
					  ARRAY_SIZE(trial_cols), "i", run_id) : NULL;
	hist = trials ? sto_query_rows(st, &stmt_q_result_hist, hist_cols,
				       ARRAY_SIZE(hist_cols), "i", run_id) : NULL;
	if (!hosts || !samples || !trials || !hist) {
		err = -(errno ? errno : EIO);
		goto out;
	}
	if (!json_is_array(variants)) {
		json_decref(variants);
		variants = json_array();
	}
	/* "o" steals hosts, variants, samples and trials, also on failure. */
	res = json_pack("{s:O, s:O, s:O, s:O, s:o, s:o, s:I, s:o, s:o}",
			"run", json_object_get(head, "id"), "plan", json_object_get(head, "plan"),
			"plan_sha256", json_object_get(head, "plan_sha256"),
			"state", json_object_get(head, "state"), "hosts", hosts,
			"variants", variants, "repeat", (json_int_t)repeat, "samples", samples,
			"trials", trials);
	hosts = variants = samples = trials = NULL;
	if (!res || (json_array_size(hist) && json_object_set(res, "latency_hist", hist)))
		err = store_fail(st, -ENOMEM, "out of memory");
out:
	if (err) {
		json_decref(res);
		res = NULL;
	}
	json_decref(head);
	json_decref(hosts);
	json_decref(samples);
	json_decref(trials);
	json_decref(hist);
	json_decref(variants);
	if (err && err != -ENOENT)
		sto_context(st, err, "cannot read the result of run %lld", (long long)run_id);
	if (err)
		errno = -err;
	return res;
}

json_t *store_query_attempts(struct store *st, int64_t run_id)
{
	json_t *r = sto_query_rows(st, &stmt_q_attempts, attempt_cols, ARRAY_SIZE(attempt_cols), "i",
				   run_id);

	if (!r)
		sto_context(st, -errno, "cannot list the attempts of run %lld", (long long)run_id);
	return r;
}

static const struct sto_stmt stmt_q_run_hosts = {
	"SELECT DISTINCT j.run_id, h.name, ifnull(e.kernel_release, h.kernel_release) "
	"FROM jobs j JOIN hosts h ON h.id = j.host_id LEFT JOIN host_envs e ON e.id = j.env_id "
	"ORDER BY 1, 2, 3",
};

static const struct sql_col run_host_cols[] = {
	{ "run", SQL_INT, 0 }, { "host", SQL_TEXT, 0 }, { "kernel_release", SQL_TEXT, 0 },
};

static const struct sto_stmt stmt_q_metrics = {
	"SELECT DISTINCT metric FROM series ORDER BY metric",
};

static const struct sql_col metric_cols[] = { { "metric", SQL_TEXT, 0 } };

json_t *store_query_metrics(struct store *st)
{
	json_t *r = sto_query_rows(st, &stmt_q_metrics, metric_cols,
				   ARRAY_SIZE(metric_cols), "");

	if (!r)
		errno = -sto_context(st, -errno, "cannot list the metrics");
	return r;
}

json_t *store_query_run_hosts(struct store *st)
{
	json_t *r = sto_query_rows(st, &stmt_q_run_hosts, run_host_cols,
				   ARRAY_SIZE(run_host_cols), "");

	if (!r)
		errno = -sto_context(st, -errno, "cannot list the hosts of the runs");
	return r;
}

/* --- compare, history and import (issue 5: lib/analysis/analysis.c, cli/result_analysis.c) --- */

/* The fields store_query_values groups by and the row member each reads ("run": the
 * run id; "kernel.config": the first 12 digits of config_sha256). */
static const struct { const char *by, *member; } values_by[] = {
	{ "kernel.release", "kernel_release" }, { "kernel.build", "kernel_build" },
	{ "kernel.version", "kernel_version" }, { "kernel.config", "config_sha256" },
	{ "port.driver", "port_driver" }, { "host", "host" }, { "variant", "variant" },
	{ "plan", "plan" }, { "day", "day" }, { "subject", "subject" }, { "run", "run" },
};

/* The value of row R for the one field FIELD ("" when absent), into BUF. */
static const char *values_field(const json_t *r, const char *field, char *buf, size_t len)
{
	const char *v = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(values_by); i++)
		if (!strcmp(field, values_by[i].by))
			v = json_string_value(json_object_get(r, values_by[i].member));
	if (!strcmp(field, "run")) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(json_object_get(r, "run")));
		return buf;
	}
	if (v && !strcmp(field, "kernel.config")) {
		snprintf(buf, len, "%.12s", v);
		return buf;
	}
	return v ? v : "";
}

/* The value of row R that store_query_values groups BY into BUF (LEN bytes): one field's
 * value, or for "F1,F2" the fields' values joined by '/' ("virtio_net/6.1.0-47-amd64"). */
static const char *values_group(const json_t *r, const char *by, char *buf, size_t len)
{
	char field[32], one[32];
	const char *comma;
	size_t used = 0;

	if (!strchr(by, ','))
		return values_field(r, by, buf, len);
	buf[0] = '\0';
	while (*by) {
		comma = strchr(by, ',');
		snprintf(field, sizeof(field), "%.*s", (int)(comma ? comma - by : (long)strlen(by)), by);
		used += snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? "/" : "",
				 values_field(r, field, one, sizeof(one)));
		if (used >= len)
			break;
		by = comma ? comma + 1 : by + strlen(by);
	}
	return buf;
}

/* Whether FIELD (LEN bytes, not NUL-terminated) is one of values_by. */
static bool values_field_known(const char *field, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(values_by); i++)
		if (strlen(values_by[i].by) == len && !strncmp(field, values_by[i].by, len))
			return true;
	return false;
}

bool store_values_by_known(const char *by)
{
	const char *p = by, *comma, *q;
	size_t len;
	int n = 0;

	do {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);

		if (!values_field_known(p, len) || ++n > 3)
			return false;
		/* no field twice */
		for (q = by; q < p; q = strchr(q, ',') + 1)
			if (!strncmp(q, p, len) && (q[len] == ',' || !q[len]))
				return false;
		p = comma ? comma + 1 : NULL;
	} while (p);
	return true;
}

bool store_history_by_known(const char *by)
{
	const char *p;

	if (!store_values_by_known(by))
		return false;
	for (p = by; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, "kernel.", 7) && strncmp(p, "day", 3) && strncmp(p, "port.driver", 11))
			return false;
	return true;
}

const char *store_history_by_fields(void)
{
	return "kernel.release, kernel.build, kernel.version, kernel.config, day or port.driver, "
	       "or two or three of them joined by ','";
}

const char *store_values_by_fields(void)
{
	return "kernel.release, kernel.build, kernel.version, kernel.config, port.driver, "
	       "host, variant, plan, day, subject, run, or up to three of them joined by ','";
}

int sto_runs_text(struct store *st, const json_t *runs, char **text)
{
	const json_t *r;
	size_t i;

	*text = NULL;
	if (!json_is_array(runs))
		return store_fail(st, -EINVAL, "'runs' must be an array of run ids");
	json_array_foreach(runs, i, r)
		if (!json_is_integer(r))
			return store_fail(st, -EINVAL, "'runs' must be an array of run ids");
	*text = json_dumps(runs, JSON_COMPACT);
	return *text ? 0 : store_fail(st, -ENOMEM, "out of memory");
}

json_t *store_query_values(struct store *st, const json_t *filter)
{
	const char *by = json_string_value(json_object_get(filter, "by"));
	json_t *runs = json_object_get(filter, "runs"), *arr = NULL, *r;
	char *runs_text = NULL;
	size_t i;
	int err;

	if (by && !store_values_by_known(by)) {
		err = store_fail(st, -EINVAL, "cannot group by '%s' (the fields are %s)", by,
				 store_values_by_fields());
		goto fail;
	}
	if (runs && !json_is_null(runs) && (err = sto_runs_text(st, runs, &runs_text)))
		goto fail;
	arr = sto_query_rows(st, &stmt_q_values, value_cols, ARRAY_SIZE(value_cols), "ttttttt",
			     json_string_value(json_object_get(filter, "plan")),
			     json_string_value(json_object_get(filter, "metric")),
			     json_string_value(json_object_get(filter, "window")), runs_text,
			     json_string_value(json_object_get(filter, "subject")),
			     json_string_value(json_object_get(filter, "variant")),
			     json_string_value(json_object_get(filter, "host")));
	if (!arr) {
		err = -errno;
		goto fail;
	}
	if (kbuild_label_rows(arr)) {
		err = store_fail(st, -ENOMEM, "out of memory");
		goto fail;
	}
	json_array_foreach(arr, i, r) {
		char buf[128];

		if (by && json_object_set_new(r, "group", json_string(values_group(r, by, buf,
											sizeof(buf))))) {
			err = store_fail(st, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	free(runs_text);
	return arr;
fail:
	free(runs_text);
	json_decref(arr);
	sto_context(st, err, "cannot query values");
	errno = -err;
	return NULL;
}
