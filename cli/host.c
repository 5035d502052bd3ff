/* host.c - `bpflab host list`: the lab hosts the coordinator knows (or a database file
 * records), their state, kernel, ports and current job.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "a=veth-a veth, b=veth-b veth" from an inventory's ports: role=ifname driver. */
static char *ports_text(const json_t *inventory)
{
	const json_t *p;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	json_array_foreach(json_object_get(inventory, "ports"), i, p) {
		const char *role = json_string_value(json_object_get(p, "role"));
		const char *name = json_string_value(json_object_get(p, "name"));
		const char *driver = json_string_value(json_object_get(p, "driver"));

		fprintf(f, "%s%s%s%s%s%s", i ? ", " : "", role ? role : "", role ? "=" : "",
			name ? name : "?", driver ? " " : "", driver ? driver : "");
	}
	if (!json_array_size(json_object_get(inventory, "ports")))
		fputs("-", f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int do_list(int argc, char **argv)
{
	static const char *const head[] = { "name", "state", "kernel", "ports", ">job" };
	struct cli_table t = { 0 };
	json_t *hosts = NULL, *h;
	int first, ret;
	size_t i;

	ret = cli_parse_opts(argc, argv, "host list", "", NULL, NULL, NULL, &first);
	if (ret)
		return ret;
	if (first < argc)
		return cli_usage_error("host list", "unexpected argument '%s'", argv[first]);
	ret = cli_query("host_list", 0, &hosts);
	if (ret)
		return ret;
	if (cli.json) {
		ret = cli_print_json(hosts);
		goto out;
	}
	if (cli_table_init(&t, 5, head)) {
		ret = cli_error("out of memory");
		goto out;
	}
	json_array_foreach(hosts, i, h) {
		char job[32] = "-", *ports = ports_text(json_object_get(h, "inventory"));
		json_t *j = json_object_get(h, "job");
		const char *cells[5] = {
			json_string_value(json_object_get(h, "name")),
			json_string_value(json_object_get(h, "state")),
			json_string_value(json_object_get(h, "kernel_release")), ports, job,
		};

		if (json_is_integer(j))
			snprintf(job, sizeof(job), "%lld", (long long)json_integer_value(j));
		if (!ports || cli_table_add(&t, cells)) {
			free(ports);
			ret = cli_error("out of memory");
			goto out;
		}
		free(ports);
	}
	if (json_array_size(hosts))
		cli_table_print(&t, stdout);
	else
		printf("no hosts\n");
out:
	cli_table_release(&t);
	json_decref(hosts);
	return ret;
}

static const struct cli_cmd host_cmds[] = {
	{ "list", do_list, "",
	  "List the hosts: name, state (idle, busy, gone), kernel release, ports\n"
	  "(role=ifname driver) and the job running now. 'bpflab host' means the same.\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct cli_object cli_host_object = {
	.name = "host",
	.cmds = host_cmds,
	.default_cmd = "list",
	.help = NULL,
};
