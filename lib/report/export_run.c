// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* export_run.c - one run's export (export.h, `bpflab result export`, the dashboard's
 * /api/runs/ID?format=kcidb|bmf): the run's value rows narrowed to a host and a kernel,
 * records, (unless asked for) flagged results and zero-by-design rates left out, the
 * source of kernels built from a tree read from the kernel cache, then KCIDB or BMF. One code
 * path for the CLI and the dashboard, so that both give the same bytes. Pure but for
 * the kernel cache's records (export_rows_add_source).
 */
#include "report/export.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"

json_t *export_run(const json_t *rows, long long run, const struct export_run_opts *o,
		   size_t *n_flagged, struct err *e)
{
	json_t *sel = NULL, *clean = json_array(), *flagged = json_object(), *out = NULL, *r;
	char job[32], pairs[768];
	struct err why;
	size_t i, n_zero = 0, n_pairs;
	int err = ENOMEM;

	*n_flagged = 0;
	if (!clean || !flagged)
		goto nomem;
	/* all of the run's rows: host and kernel are checked against what it has */
	if (json_array_size(rows) && (o->host || o->kernel)) {
		sel = export_select(rows, o->host, o->kernel, &why);
		if (!sel) {
			err = errno;
			err_set(e, "run %lld: %s", run, why.msg);
			goto out;
		}
	} else {
		sel = json_incref((json_t *)rows);
	}
	json_array_foreach(sel, i, r) {
		if (analysis_row_is_record(r))
			continue;
		if (o->include_flagged || !analysis_row_flags(r)) {
			if (json_array_append(clean, r))
				goto nomem;
			continue;
		}
		/* left out: counted per job (a result), as compare counts them */
		snprintf(job, sizeof(job), "%lld",
			 (long long)json_integer_value(json_object_get(r, "job")));
		if (json_object_set_new(flagged, job, json_true()))
			goto nomem;
	}
	*n_flagged = json_object_size(flagged);
	if (!json_array_size(clean)) {
		err_set(e, "run %lld has no %sresults to export%s", run,
			 *n_flagged ? "unflagged " : "", *n_flagged ? " (--include-flagged to "
			 "export the flagged ones)" : "");
		err = ENOENT;
		goto out;
	}
	if (!o->all_rows) {
		json_t *nz = export_rows_nonzero(clean, &n_zero);

		if (!nz)
			goto nomem;
		json_decref(clean);
		clean = nz;
	}
	if (o->n_zero)
		*o->n_zero = n_zero;
	n_pairs = export_n_pairs(clean, pairs, sizeof(pairs));
	if (!strcmp(o->format, "bmf") && n_pairs > 1) {
		err_set(e, "run %lld has results of %zu host and kernel build pairs, and a "
			 "BMF document holds one (a Bencher testbed and branch): export each "
			 "with %s", run, n_pairs, pairs);
		err = EINVAL;
		goto out;
	}
	if (o->kernel_cache && export_rows_add_source(clean, o->kernel_cache))
		goto nomem;
	if (o->build_id && export_n_builds(clean) > 1) {
		err_set(e, "--build-id names one build, but run %lld has results of %zu "
			 "kernel builds: choose one with --kernel", run, export_n_builds(clean));
		err = EINVAL;
		goto out;
	}
	if (!strcmp(o->format, "kcidb"))
		out = export_kcidb(clean, &(struct export_kcidb_opts){
			.origin = o->origin,
			.db_id = o->db_id, .build_id = o->build_id });
	else
		out = export_bmf(clean);
	if (!out) {
		err = errno;
		err_set(e, "cannot export run %lld: %s", run, strerror(err));
	}
	goto out;
nomem:
	err_set(e, "out of memory");
out:
	json_decref(flagged);
	json_decref(clean);
	json_decref(sel);
	if (!out)
		errno = err;
	return out;
}
