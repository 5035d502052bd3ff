// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_agent_config.c - libFuzzer target for the agent's --config file
 * (agent_config_parse() in agent/config.c, docs/agent.md).
 *
 * The input is the file's text. Checked beyond "no crash" (and no leak, no hang on
 * anchors and aliases):
 *  - an accepted file gives labels with non-empty names and values, and a provider that
 *    is either absent or has 1..PROVIDER_MAX_ARGS non-empty words, the first an absolute
 *    path, and timeouts 0 (default) or 1..3600 s;
 *  - a refusal is "fuzz.yaml:LINE:COLUMN: message" (or out of memory).
 * A file's provider path is only access(2)ed, never run.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_timeout(int ms)
{
	if (ms && (ms < 1000 || ms > 3600 * 1000 || ms % 1000))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct provider_config pc = { 0 };
	struct inventory_pair *labels = NULL;
	int n_labels = 0, i, err;
	struct err why;

	err = agent_config_parse("fuzz.yaml", (const char *)data, size, &labels, &n_labels, &pc,
				 &why);
	if (err) {
		/* a refusal names its place: "fuzz.yaml:LINE:COL: ", marked input */
		if (err != -ENOMEM && (strncmp(why.msg, "fuzz.yaml:", 10) ||
				       strspn(why.msg + 10, "0123456789") == 0 || !why.input ||
				       why.line < 1 || why.col < 1))
			abort();
	} else {
		for (i = 0; i < n_labels; i++)
			if (!labels[i].key[0] || !labels[i].value[0])
				abort();
		if (pc.argc < 0 || pc.argc > PROVIDER_MAX_ARGS ||
		    (pc.argc && pc.argv[0][0] != '/') || pc.argv[pc.argc])
			abort();
		for (i = 0; i < pc.argc; i++)
			if (!pc.argv[i][0])
				abort();
		check_timeout(pc.list_timeout_ms);
		check_timeout(pc.boot_timeout_ms);
	}
	for (i = 0; i < n_labels; i++) {
		free(labels[i].key);
		free(labels[i].value);
	}
	free(labels);
	provider_config_release(&pc);
	return 0;
}
