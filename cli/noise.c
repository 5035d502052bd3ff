// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* noise.c - the hosts' noise floors as the CLI reads them: from the coordinator
 * (`noise_list`, `host_list`) or from a database file (--db), for `host list`,
 * `plan show` and `result show` (docs/cli.md). Below host.c, plan.c and result.c, so that
 * none of them calls another for it.
 */
#include "cli.h"

#include "analysis/noise.h"
#include "proto/proto.h"
#include "store/store.h"
#include "store/store_noise.h"

int cli_noise_rows(json_t **rows)
{
	struct store *store;
	json_t *req, *reply = NULL;
	struct err err;
	int ret;

	*rows = NULL;
	if (cli.db) {
		store = store_open(cli.db, true, &err);
		if (!store)
			return cli_error("%s", *err.msg ? err.msg : "cannot open the database");
		*rows = store_noise_list(store);
		ret = *rows ? 0 : cli_error("cannot query database '%s': %s", cli.db,
					    store_err(store)->msg);
		store_close(&store);
		return ret;
	}
	req = proto_msg_new("noise_list");
	if (!req)
		return cli_error("out of memory");
	ret = cli_request(req, "noise", &reply);
	json_decref(req);
	if (!ret)
		*rows = json_incref(json_object_get(reply, "noise"));
	json_decref(reply);
	return ret;
}

int cli_hosts_noise(json_t **hosts)
{
	json_t *rows = NULL;
	int ret;

	ret = cli_query("host_list", 0, hosts);
	if (!ret)
		ret = cli_noise_rows(&rows);
	if (!ret && noise_hosts_attach(*hosts, rows))
		ret = cli_error("out of memory");
	json_decref(rows);
	if (ret) {
		json_decref(*hosts);
		*hosts = NULL;
	}
	return ret;
}
