// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* noise_req.c - the coordinator's noise_record and noise_list client requests
 * (docs/protocol.md, "Noise floors"): `bpflab host calibrate HOST` runs its plan like
 * any run, then asks the coordinator to record the run's noise floor, which is computed
 * here from the values already in the store (lib/store/store_noise.c), in one transaction;
 * `host list`, `plan check` and `run submit` read the hosts' latest floors back.
 * Called from the event loop (coordinator/clients.c's handler table); nothing is
 * kept in the process.
 */
#include "coord_clients.h"

#include "base/log.h"
#include "proto/proto.h"
#include "store/store_noise.h"
#include "base/util.h"

/* The `noise` reply with ROWS (stolen), or NULL when out of memory. */
static json_t *noise_reply(json_t *rows)
{
	json_t *r = proto_msg_new("noise");

	if (!r || json_object_set_new(r, "noise", rows)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

json_t *coord_noise_record(struct coord *c, const json_t *msg)
{
	int64_t run = jget_int(msg, "run", 0);
	json_t *rows = NULL;

	if (store_noise_record(c->store, run, util_wall_ms(), &rows))
		return proto_error_new("noise_record", "%s", store_err(c->store)->msg);
	pr_info("noise floor of run %lld recorded: %zu metrics", (long long)run,
		json_array_size(rows));
	return noise_reply(rows);
}

json_t *coord_noise_list(struct coord *c, const json_t *msg)
{
	json_t *rows = store_noise_list(c->store);

	(void)msg;
	if (!rows)
		return proto_error_new("noise_list", "%s", store_err(c->store)->msg);
	return noise_reply(rows);
}
