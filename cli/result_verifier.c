// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* result_verifier.c - `bpflab result verifier RUN [--by FIELD]`: the load figures of a
 * run's programs per group and their load verdicts, veristat-style
 * (lib/report/report_verifier.h). The values come as for compare (cli_fetch_values), the
 * jobs (for load failures) from `run show`'s query.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

#include "report/report_verifier.h"
#include "result_analysis.h"
#include "store/store.h"

enum { OPT_BY = CLI_OPT_FIRST_LOCAL + 80 };

static int verifier_opt(int opt, const char *arg, void *ctx)
{
	const char **by = ctx;

	if (opt != OPT_BY)
		return CLI_EXIT_USAGE;
	if (!store_values_by_known(arg))
		return cli_usage_error("result verifier", "cannot group by '%s' (expected %s)",
				       arg, store_values_by_fields());
	*by = arg;
	return 0;
}

int cli_result_verifier(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, OPT_BY },
		{ NULL, 0, NULL, 0 },
	};
	const char *by = "kernel.release";
	json_t *filter = NULL, *rows = NULL, *run = NULL, *report = NULL;
	struct err e;
	long long id;
	int first, ret, err;

	ret = cli_parse_opts(argc, argv, "result verifier", "", longopts, verifier_opt, &by,
			     &first);
	if (ret)
		return ret;
	if (argc - first != 1)
		return cli_usage_error("result verifier", "expected one RUN");
	ret = cli_parse_run_id(argv[first], "result verifier", &id);
	if (ret)
		return ret;
	ret = cli_query("run_show", id, &run);
	if (ret)
		return ret;
	/* a NULL filter (out of memory) is cli_fetch_values' error */
	filter = json_pack("{s:[I], s:s}", "runs", (json_int_t)id, "by", by);
	ret = cli_fetch_values(filter, &rows);
	if (ret)
		goto out;
	report = report_verifier_build(rows, json_object_get(run, "jobs"), by, &e);
	if (!report) {
		ret = cli_error("run %lld: %s", id, e.msg);
		goto out;
	}
	json_object_set_new(report, "run", json_integer(id));
	if (cli.json)
		ret = cli_print_json(report);
	else if ((err = report_verifier_print_text(report, stdout)))
		ret = cli_error("cannot print the verifier table: %s", strerror(-err));
out:
	json_decref(report);
	json_decref(run);
	json_decref(rows);
	json_decref(filter);
	return ret;
}
