// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_query_spread.c - store_query_run_spread (store.h): per run, the n, mean and
 * within-run variance of each compared row's whole-window values, over the runs of the
 * same plan (sha256), host and kernel build as the compared runs, from which
 * lib/analysis/runspread.c estimates the run-to-run variance component of compare
 * (docs/analysis.md, "Run-to-run spread"). Beside store_query_values, whose filter it
 * takes; the coordinator's `query_spread` answers with the same array. A job without an
 * environment (an import without --kernel) has the kernel build '' '' ''.
 */
#include "store/store_int.h"

#include <errno.h>
#include <stdlib.h>

#include "analysis/runspread.h"
#include "base/util.h"

#define SPREAD_STR2(x) #x
#define SPREAD_STR(x) SPREAD_STR2(x)

/* The runs' (plan sha256, host, kernel build) sets, each run's values there (finished
 * jobs, whole windows, flagged ones left out unless ?8; filters as store_query_values'),
 * summarised per run and row key in two passes (mean, then the squares about it: no
 * cancellation), and of each set and key the newest 20 runs up to the newest compared
 * run (?1: JSON array of run ids). */
static const struct sto_stmt stmt_q_spread = {
	"WITH c AS (SELECT DISTINCT p.sha256 AS sha, j.host_id AS hid, "
	"ifnull(e.kernel_release, '') AS kr, ifnull(e.kernel_version, '') AS kv, "
	"ifnull(e.config_sha256, '') AS cfg "
	"FROM jobs j JOIN runs r ON r.id = j.run_id JOIN plans p ON p.id = r.plan_id "
	"LEFT JOIN host_envs e ON e.id = j.env_id WHERE j.state = 'done' "
	"AND r.id IN (SELECT value FROM json_each(?1))), "
	"v AS (SELECT r.id AS run, c.sha, h.name AS host, c.kr, c.kv, c.cfg, sr.metric, "
	"ifnull(j.point, 'null') AS point, ifnull(e.timing, 'wall') AS timing, j.variant, "
	"sr.subject, s.value "
	"FROM sample_values s JOIN series sr ON sr.id = s.series_id "
	"JOIN jobs j ON j.id = s.job_id JOIN runs r ON r.id = j.run_id "
	"JOIN plans p ON p.id = r.plan_id JOIN hosts h ON h.id = j.host_id "
	"LEFT JOIN host_envs e ON e.id = j.env_id "
	"JOIN c ON c.sha = p.sha256 AND c.hid = j.host_id AND c.kr = ifnull(e.kernel_release, '') "
	"AND c.kv = ifnull(e.kernel_version, '') AND c.cfg = ifnull(e.config_sha256, '') "
	"WHERE s.seq = -1 AND j.state = 'done' "
	"AND r.id <= (SELECT max(value) FROM json_each(?1)) "
	"AND (?2 IS NULL OR sr.metric = ?2) AND (?3 IS NULL OR sr.window = ?3) "
	"AND (?4 IS NULL OR sr.subject = ?4) AND (?5 IS NULL OR j.variant = ?5) "
	"AND (?6 IS NULL OR h.name = ?6) AND (?7 IS NULL OR p.name = ?7) "
	/* compare's excluding verdicts (analysis_row_flags) */
	"AND (?8 OR (NOT EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(j.verdicts) "
	"THEN j.verdicts ELSE '[]' END) f WHERE f.value IN ('debug-kernel', 'disturbed', "
	"'generator-bound')) AND (CASE WHEN json_valid(e.debug_options) THEN "
	"json_array_length(e.debug_options) ELSE 0 END) = 0))), "
	"g AS (SELECT run, sha, host, kr, kv, cfg, metric, point, timing, variant, subject, "
	"count(*) AS n, avg(value) AS m FROM v GROUP BY run, sha, host, kr, kv, cfg, metric, "
	"point, timing, variant, subject), "
	"w AS (SELECT g.run, g.sha, g.host, g.kr, g.kv, g.cfg, g.metric, g.point, g.timing, "
	"g.variant, g.subject, g.n, g.m, CASE WHEN g.n > 1 THEN "
	"sum((v.value - g.m) * (v.value - g.m)) / (g.n - 1) END AS var, "
	"row_number() OVER (PARTITION BY g.sha, g.host, g.kr, g.kv, g.cfg, g.metric, g.point, "
	"g.timing, g.variant, g.subject ORDER BY g.run DESC) AS k "
	"FROM g JOIN v ON v.run = g.run AND v.host = g.host AND v.kr = g.kr AND v.kv = g.kv "
	"AND v.cfg = g.cfg AND v.metric = g.metric AND v.point = g.point "
	"AND v.timing = g.timing AND v.variant = g.variant AND v.subject = g.subject "
	"GROUP BY g.run, g.sha, g.host, g.kr, g.kv, g.cfg, g.metric, g.point, g.timing, "
	"g.variant, g.subject) "
	"SELECT run, sha, host, kr, kv, cfg, metric, point, timing, variant, subject, n, m, var "
	"FROM w WHERE k <= " SPREAD_STR(RUNSPREAD_MAX_RUNS) " ORDER BY metric, point, timing, variant, subject, sha, host, "
	"kr, kv, cfg, run",
};

static const struct sql_col spread_cols[] = {
	{ "run", SQL_INT, 0 }, { "plan_sha256", SQL_TEXT, 0 }, { "host", SQL_TEXT, 0 },
	{ "kernel_release", SQL_TEXT, 0 }, { "kernel_version", SQL_TEXT, 0 },
	{ "config_sha256", SQL_TEXT, 0 }, { "metric", SQL_TEXT, 0 },
	{ "point", SQL_JSON, 0 }, { "timing", SQL_TEXT, 0 }, { "variant", SQL_TEXT, 0 },
	{ "subject", SQL_TEXT, 0 }, { "n", SQL_INT, 0 }, { "mean", SQL_REAL, 0 },
	/* sample variance of the run's values; null for one value */
	{ "var", SQL_REAL, 0 },
};

json_t *store_query_run_spread(struct store *st, const json_t *filter)
{
	json_t *runs = json_object_get(filter, "runs"), *arr = NULL;
	char *runs_text = NULL;
	int err;

	if (!json_array_size(runs)) {
		err = store_fail(st, -EINVAL, "'runs' must be an array of run ids");
		goto fail;
	}
	err = sto_runs_text(st, runs, &runs_text);
	if (err)
		goto fail;
	arr = sto_query_rows(st, &stmt_q_spread, spread_cols, ARRAY_SIZE(spread_cols),
			     "ttttttti", runs_text,
			     json_string_value(json_object_get(filter, "metric")),
			     json_string_value(json_object_get(filter, "window")),
			     json_string_value(json_object_get(filter, "subject")),
			     json_string_value(json_object_get(filter, "variant")),
			     json_string_value(json_object_get(filter, "host")),
			     json_string_value(json_object_get(filter, "plan")),
			     (int64_t)json_is_true(json_object_get(filter, "include_flagged")));
	if (!arr) {
		err = -errno;
		goto fail;
	}
	free(runs_text);
	return arr;
fail:
	free(runs_text);
	sto_context(st, err, "cannot query the run-to-run spread");
	errno = -err;
	return NULL;
}
