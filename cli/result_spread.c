// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* result_spread.c - what `bpflab result compare` reads for the run-to-run spread of runs
 * compared by run (docs/analysis.md, "Run-to-run spread"): store_query_run_spread from
 * --db FILE, or the coordinator's `query_spread`, the same array either way.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

#include "analysis/analysis.h"
#include "proto/proto.h"
#include "result_analysis.h"
#include "store/store.h"

int cli_fetch_run_spread(const json_t *filter, const json_t *rows, bool include_flagged,
			 json_t **spread)
{
	json_t *f = analysis_spread_filter(filter, rows, include_flagged), *req = NULL;
	struct store *st;
	struct err err = { 0 };
	int ret = 0;

	*spread = NULL;
	if (!f)
		return cli_error("out of memory");
	if (!json_array_size(json_object_get(f, "runs"))) {
		*spread = json_array();
		goto out;
	}
	if (cli.db) {
		st = store_open(cli.db, true, &err);
		if (!st) {
			ret = cli_error("cannot open database '%s': %s", cli.db,
					*err.msg ? err.msg : strerror(errno));
			goto out;
		}
		*spread = store_query_run_spread(st, f);
		if (!*spread)
			ret = cli_fail(-errno, store_err(st));
		store_close(&st);
		goto out;
	}
	req = proto_msg_new("query_spread");
	if (!req || json_object_set(req, "filter", f)) {
		ret = cli_error("out of memory");
		goto out;
	}
	ret = cli_request_array(req, "run_spread", "run_spread", spread, NULL);
out:
	json_decref(req);
	json_decref(f);
	return ret;
}
