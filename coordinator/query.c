// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* query.c - the coordinator's `import` client request (docs/protocol.md): store_import in
 * parts between loop turns, so that `bpflab result import` gives the same answer with and
 * without --db and a big import never holds the loop past its budget (coord.c). Imports
 * wait in a queue and are written one after the other, each part one transaction of the
 * jobs that fit in COORD_IMPORT_SLICE_MS; the client is answered when the last part is
 * stored. (`query`, the other request of `result compare | history | export`, is
 * answered on the worker thread: offload.c.)
 *
 * Event loop thread only.
 */
#include "coord_clients.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_core.h"
#include "coord_offload.h"
#include "base/log.h"
#include "proto/proto.h"
#include "base/util.h"

/* An import being written: its client and its parts (store.h, store_import_begin). */
struct coord_import {
	struct coord_import *next;
	unsigned char id[PROTO_MAX_IDENTITY];
	size_t id_len;
	struct store_import *im;
	char source[256];
	int64_t started_mono;
	int parts;
};

void coord_import_start(struct coord *c, const void *id, size_t id_len, const json_t *msg,
			bool checked)
{
	const json_t *imp = json_object_get(msg, "import");
	struct coord_import *q, **tail;

	if (!json_is_object(imp)) {
		coord_reply(c->clients_sock, id, id_len,
			    proto_error_new("import", "'import' must be an object"));
		return;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		coord_reply(c->clients_sock, id, id_len, NULL);	/* logs: no memory */
		return;
	}
	if (store_import_begin(c->store, imp, util_wall_ms(), checked, &q->im)) {
		coord_reply(c->clients_sock, id, id_len,
			    proto_error_new("import", "%s", store_err(c->store)->msg));
		free(q);
		return;
	}
	q->id_len = id_len < sizeof(q->id) ? id_len : sizeof(q->id);
	memcpy(q->id, id, q->id_len);
	snprintf(q->source, sizeof(q->source), "%s", jget_str(imp, "source", "?"));
	q->started_mono = util_mono_ms();
	for (tail = &c->imports; *tail; tail = &(*tail)->next)
		;
	*tail = q;
}

/* The end of the first import in the queue: answered with RC (0 done, else the error),
 * taken off the queue. */
static void import_end(struct coord *c, int rc)
{
	struct coord_import *q = c->imports;
	int64_t run = store_import_run_id(q->im);
	json_t *r = NULL, *values;

	if (rc) {
		r = proto_error_new("import", "%s", store_err(c->store)->msg);
	} else {
		pr_info("run %lld imported from '%s': %zu jobs in %d part%s, %lld ms",
			(long long)run, q->source, store_import_jobs(q->im), q->parts,
			q->parts == 1 ? "" : "s", (long long)(util_mono_ms() - q->started_mono));
		r = proto_msg_new("imported");
		if (r && json_object_set_new(r, "run", json_integer(run))) {
			json_decref(r);
			r = NULL;
		}
	}
	coord_reply(c->clients_sock, q->id, q->id_len, r);
	/* the import's values (millions at 160,000 jobs) freed on the worker */
	values = store_import_values(q->im);
	store_import_destroy(c->store, &q->im);	/* failed: what its parts wrote goes */
	coord_offload_drop(c, values);
	c->imports = q->next;
	free(q);
}

bool coord_import_turn(struct coord *c, int64_t deadline_ms)
{
	int rc;

	while (c->imports && util_mono_ms() < deadline_ms) {
		rc = store_import_step(c->store, c->imports->im, deadline_ms);
		c->imports->parts++;
		if (rc <= 0)
			import_end(c, rc);
	}
	return c->imports != NULL;
}

void coord_imports_release(struct coord *c)
{
	struct coord_import *q, *next;

	for (q = c->imports; q; q = next) {
		next = q->next;
		pr_info("import of '%s' given up: the coordinator stops", q->source);
		store_import_destroy(c->store, &q->im);
		free(q);
	}
	c->imports = NULL;
}
