// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* result_spread.c - what `bpflab result compare` reads for the run-to-run spread of runs
 * compared by run (docs/analysis.md, "Run-to-run spread"): store_query_run_spread from
 * --db FILE, or the coordinator's `query_spread`, the same array either way.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

#include "proto/proto.h"
#include "result_analysis.h"
#include "store/store.h"

/* FILTER (compare's, not stolen) without "by", with "runs": the run ids of ROWS and
 * "include_flagged": a new object, or NULL. */
static json_t *spread_filter(const json_t *filter, const json_t *rows, bool include_flagged)
{
	json_t *f = json_deep_copy(filter), *runs = json_array(), *seen = json_object(), *r;
	char id[32];
	size_t i;

	if (!f || !runs || !seen)
		goto fail;
	json_object_del(f, "by");
	json_array_foreach(rows, i, r) {
		json_t *run = json_object_get(r, "run");

		snprintf(id, sizeof(id), "%lld", (long long)json_integer_value(run));
		if (json_object_get(seen, id))
			continue;
		if (json_object_set_new(seen, id, json_true()) || json_array_append(runs, run))
			goto fail;
	}
	if (json_object_set_new(f, "runs", runs) ||
	    json_object_set_new(f, "include_flagged", json_boolean(include_flagged))) {
		runs = NULL;
		goto fail;
	}
	json_decref(seen);
	return f;
fail:
	json_decref(f);
	json_decref(runs);
	json_decref(seen);
	return NULL;
}

int cli_fetch_run_spread(const json_t *filter, const json_t *rows, bool include_flagged,
			 json_t **spread)
{
	json_t *f = spread_filter(filter, rows, include_flagged), *req = NULL, *reply = NULL, *v;
	struct store *st;
	char err[512] = "";
	int ret = 0;

	*spread = NULL;
	if (!f)
		return cli_error("out of memory");
	if (!json_array_size(json_object_get(f, "runs"))) {
		*spread = json_array();
		goto out;
	}
	if (cli.db) {
		st = store_open(cli.db, true, err, sizeof(err));
		if (!st) {
			ret = cli_error("cannot open database '%s': %s", cli.db,
					*err ? err : strerror(errno));
			goto out;
		}
		*spread = store_query_run_spread(st, f);
		if (!*spread)
			ret = cli_error("%s", store_errmsg(st));
		store_close(&st);
		goto out;
	}
	req = proto_msg_new("query_spread");
	if (!req || json_object_set(req, "filter", f)) {
		ret = cli_error("out of memory");
		goto out;
	}
	ret = cli_request(req, "run_spread", &reply);
	if (ret)
		goto out;
	v = json_object_get(reply, "run_spread");
	if (!json_is_array(v))
		ret = cli_error("malformed 'run_spread' reply from coordinator at '%s'",
				cli.coordinator);
	else
		*spread = json_incref(v);
out:
	json_decref(reply);
	json_decref(req);
	json_decref(f);
	return ret;
}
