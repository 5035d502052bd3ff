// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* link.c - `bpflab link discover` and `bpflab link list`: the lab's wiring, port to port
 * between hosts, as the agents' probe frames found it (docs/protocol.md, "Links"). Two-host
 * plans run over these links (docs/plans.md).
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"
#include "store/store.h"
#include "store/store_link.h"
#include "base/texttable.h"

/* The links of REPLY as a table, or with -j: for `link list` the array of links, as
 * `host list -j` and `run list -j` print theirs; for `link discover` (LIST false) the
 * reply's members without the envelope (links, probed, missing). */
static int print_links(const json_t *reply, bool list)
{
	static const char *const head[] = { ">id", "host", "port", "host", "port" };
	const json_t *links = json_object_get(reply, "links"), *l;
	struct tt_table t = { 0 };
	int ret = 0;
	size_t i;

	if (cli.json && list) {
		json_t *none = json_array();

		ret = json_is_array(links) ? cli_print_json(links) :
		      none ? cli_print_json(none) : cli_error("out of memory");
		json_decref(none);
		return ret;
	}
	if (cli.json) {
		json_t *out = json_copy((json_t *)reply);

		if (!out)
			return cli_error("out of memory");
		json_object_del(out, "v");
		json_object_del(out, "type");
		ret = cli_print_json(out);
		json_decref(out);
		return ret;
	}
	if (tt_table_init(&t, 5, head))
		return cli_error("out of memory");
	json_array_foreach(links, i, l) {
		char id[32];
		const char *cells[5] = {
			id, jget_str(l, "host_a", "?"), jget_str(l, "port_a", "?"),
			jget_str(l, "host_b", "?"), jget_str(l, "port_b", "?"),
		};

		snprintf(id, sizeof(id), "%lld", jget_int(l, "id", 0));
		if (tt_table_add(&t, cells)) {
			ret = cli_error("out of memory");
			goto out;
		}
	}
	if (json_array_size(links))
		tt_table_print(&t, stdout);
	else
		printf("no links\n");
	if (json_object_get(reply, "probed")) {
		const json_t *missing = json_object_get(reply, "missing");

		printf("%zu link%s between hosts; %lld hosts probed", json_array_size(links),
		       json_array_size(links) == 1 ? "" : "s", jget_int(reply, "probed", 0));
		if (json_array_size(missing)) {
			printf(", no report from");
			json_array_foreach(missing, i, l)
				printf(" '%s'", json_string_value(l));
		}
		printf("\n");
	}
out:
	tt_table_release(&t);
	return ret;
}

static int request(const char *type, int argc, char **argv, const char *path)
{
	json_t *req = NULL, *reply = NULL;
	int first, ret;

	ret = cli_parse_opts(argc, argv, path, "", NULL, NULL, NULL, &first);
	if (ret)
		return ret;
	if (first < argc)
		return cli_usage_error(path, "unexpected argument '%s'", argv[first]);
	if (cli.db) {
		struct err err;
		struct store *st;
		json_t *links;

		if (strcmp(type, "link_list"))
			return cli_usage_error(path, "discovery needs the coordinator, not --db");
		st = store_open(cli.db, true, &err);
		if (!st)
			return cli_error("%s", err.msg);
		links = store_query_links(st);
		if (!links) {
			ret = cli_fail(-errno, store_err(st));
		} else {
			reply = json_pack("{s:o}", "links", links);
			ret = print_links(reply, true);
		}
		store_close(&st);
		json_decref(reply);
		return ret;
	}
	req = proto_msg_new(type);
	if (!req)
		return cli_error("out of memory");
	ret = cli_request(req, "links", &reply);
	if (!ret)
		ret = print_links(reply, !strcmp(type, "link_list"));
	json_decref(req);
	json_decref(reply);
	return ret;
}

static int do_discover(int argc, char **argv)
{
	return request("link_discover", argc, argv, "link discover");
}

static int do_list(int argc, char **argv)
{
	return request("link_list", argc, argv, "link list");
}

static const struct cli_cmd link_cmds[] = {
	{ "discover", do_discover, "",
	  "Make every connected agent send a probe frame (ethertype 0x88B5) with a nonce\n"
	  "out of each port and report the probes its ports received; store and print the\n"
	  "links found between ports of different hosts (replacing the previous\n"
	  "discovery's).\n" },
	{ "list", do_list, "",
	  "List the stored links: id, host and port at each end. 'bpflab link' means the\n"
	  "same.\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct cli_object cli_link_object = {
	.name = "link",
	.cmds = link_cmds,
	.default_cmd = "list",
	.help = NULL,
};
