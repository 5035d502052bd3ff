// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* query.c - the coordinator's `query` and `import` client requests (docs/protocol.md):
 * store_query_values and store_import behind the client socket, so that `bpflab result
 * compare | history | export | import` give the same answers with and without --db.
 * Called from the event loop (coordinator/clients.c's handler table).
 */
#include "coord_clients.h"

#include "base/log.h"
#include "proto/proto.h"
#include "base/util.h"

json_t *coord_query(struct coord *c, const json_t *msg)
{
	json_t *filter = json_object_get(msg, "filter"), *values, *r;
	char db_id[STORE_DB_ID_LEN];

	if (filter && !json_is_object(filter))
		return proto_error_new("query", "'filter' must be an object");
	values = store_query_values(c->store, filter);
	if (!values)
		return proto_error_new("query", "%s", store_errmsg(c->store));
	if (store_db_id(c->store, db_id)) {
		json_decref(values);
		return proto_error_new("query", "%s", store_errmsg(c->store));
	}
	/* the database's id: `result export` makes ids no other database makes */
	r = proto_msg_new("values");
	if (!r || json_object_set_new(r, "values", values) ||
	    json_object_set_new(r, "db_id", json_string(db_id))) {
		json_decref(r);
		return NULL;
	}
	return r;
}

json_t *coord_import(struct coord *c, const json_t *msg)
{
	json_t *imp = json_object_get(msg, "import"), *r;
	int64_t run = 0;

	if (!json_is_object(imp))
		return proto_error_new("import", "'import' must be an object");
	if (store_import(c->store, imp, util_wall_ms(), &run))
		return proto_error_new("import", "%s", store_errmsg(c->store));
	pr_info("run %lld imported from '%s'", (long long)run,
		proto_get_str(imp, "source", "?"));
	r = proto_msg_new("imported");
	if (!r || json_object_set_new(r, "run", json_integer(run))) {
		json_decref(r);
		return NULL;
	}
	return r;
}
