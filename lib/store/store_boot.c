// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_boot.c - kernel switches in the store (schema/008_host_boots.sql; declared in
 * store.h): the coordinator's coordinator/boot.c records each switch it asks a host's
 * kernel provider for when it asks, ends it at the host's hello, the provider's failure
 * or the timeout, and reads the latest switch of each host back when it starts, so that
 * a restart in the middle of a switch forgets nothing.
 *
 * Each function is one statement (SQLite makes it atomic), the store's (store_int.h).
 */
#include "store/store_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "proto/proto.h"

static const struct sto_stmt stmt_begin = {
	"INSERT INTO host_boots (host_id, kernel, from_kernel, started_ms) "
	"VALUES (?1, ?2, ?3, ?4)",
};

int store_boot_begin(struct store *store, int64_t host_id, const char *kernel,
		     const char *from, int64_t now_ms, int64_t *id)
{
	int err = sto_exec(store, &stmt_begin, NULL, "itti", host_id, kernel, from, now_ms);
	int rc = err ? sqlite3_extended_errcode(store->db) : SQLITE_OK;

	if (rc == SQLITE_CONSTRAINT_UNIQUE) {
		return store_fail(store, -EEXIST, "host %lld is switching its kernel already",
				  (long long)host_id);
	}
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) {
		return store_fail(store, -ENOENT, "no host %lld", (long long)host_id);
	}
	if (err)
		return sto_context(store, err, "cannot record a kernel switch");
	if (id)
		*id = sqlite3_last_insert_rowid(store->db);
	return 0;
}

static const struct sto_stmt stmt_end = {
	"UPDATE host_boots SET state = ?2, error = ?3, ended_ms = ?4 "
	"WHERE host_id = ?1 AND state = 'booting'",
};

int store_boot_end(struct store *store, int64_t host_id, const char *state,
		   const char *error, int64_t now_ms)
{
	static const char *const ends[] = { "done", "failed", "mismatch" };
	int64_t changes = 0;
	bool known = false;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(ends); i++)
		known |= state && !strcmp(state, ends[i]);
	if (!known) {
		return store_fail(store, -EINVAL, "a kernel switch cannot end as '%s'",
				  state ? state : "(null)");
	}
	err = sto_exec(store, &stmt_end, &changes, "itti", host_id, state,
		       error && *error ? error : NULL, now_ms);
	if (err)
		return sto_context(store, err, "cannot end a kernel switch");
	if (!changes) {
		return store_fail(store, -ENOENT, "host %lld has no kernel switch in progress",
				  (long long)host_id);
	}
	return 0;
}

/* A row of store_boot_latest. */
static const struct sql_col boot_cols[] = {
	{ "id", SQL_INT, 0 }, { "host_id", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
	{ "kernel", SQL_TEXT, 0 }, { "from", SQL_TEXT, 0 }, { "state", SQL_TEXT, 0 },
	{ "error", SQL_TEXT, SQL_OMIT_NULL }, { "started_ms", SQL_INT, 0 },
	{ "ended_ms", SQL_INT, SQL_OMIT_NULL }, { "inventory", SQL_JSON, 0 },
};

static const struct sto_stmt stmt_latest = {
	"SELECT b.id, b.host_id, h.name, b.kernel, b.from_kernel, b.state, b.error, "
	"b.started_ms, b.ended_ms, h.inventory FROM host_boots b JOIN hosts h ON h.id = "
	"b.host_id WHERE b.id = (SELECT max(id) FROM host_boots WHERE host_id = b.host_id) "
	"AND (?1 = 0 OR b.state = 'booting') ORDER BY b.host_id",
};

json_t *store_boot_latest(struct store *store, bool open_only)
{
	json_t *arr = sto_query_rows(store, &stmt_latest, boot_cols, ARRAY_SIZE(boot_cols),
				     "i", (int64_t)open_only);

	if (!arr)
		errno = -sto_context(store, -errno, "cannot read the kernel switches");
	return arr;
}

int store_boot_attach(struct store *store, json_t *hosts)
{
	json_t *boots = store_boot_latest(store, false), *b, *h, *obj;
	size_t i, j;
	int err = 0;

	if (!boots)
		return -EIO;
	json_array_foreach(boots, i, b) {
		json_array_foreach(hosts, j, h) {
			if (jget_int(h, "id", 0) != jget_int(b, "host_id", -1))
				continue;
			obj = json_pack("{s:s, s:s, s:s, s:I}", "kernel",
					jget_str(b, "kernel", ""), "from",
					jget_str(b, "from", ""), "state",
					jget_str(b, "state", ""), "since_ms",
					(json_int_t)jget_int(b, "started_ms", 0));
			if (obj && json_object_get(b, "error"))
				json_object_set(obj, "error", json_object_get(b, "error"));
			if (!obj || json_object_set_new(h, "boot", obj)) {
				err = -ENOMEM;
				goto out;
			}
			if (!strcmp(jget_str(b, "state", ""), "booting") &&
			    strcmp(jget_str(h, "state", ""), "gone"))
				json_object_set_new(h, "state", json_string("booting"));
		}
	}
out:
	json_decref(boots);
	return err;
}
