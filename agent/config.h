/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* config.h - the agent's own configuration file (`bpflab-agent --config FILE`,
 * docs/agent.md): a YAML mapping with
 *
 *     labels: {rack: r3, nic: cx6}                      label names to non-empty scalars
 *     kernel_provider: {command: PATH | [PATH, ARG...], list_timeout: S, boot_timeout: S}
 *
 * and nothing else, so that a typo is noticed. Written by an admin, but a bad file must
 * only ever give an error: "FILE:LINE:COLUMN: message".
 *
 * Pure apart from access(2) on the provider's path; callable from any thread.
 */
#ifndef BPFLAB_AGENT_CONFIG_H
#define BPFLAB_AGENT_CONFIG_H

#include <stddef.h>

#include "base/err.h"
#include "inventory.h"
#include "provider.h"

#define AGENT_CONFIG_MAX_BYTES (1u << 20)
#define AGENT_CONFIG_MAX_DEPTH 16	/* nested collections; the file needs 3 */

/* Parse the LEN bytes of TEXT read from FILE (for messages). The labels are appended to
 * *LABELS (*N_LABELS entries; a --label given later overrides them), the provider
 * replaces *PC. Returns 0, or -EINVAL with "FILE:LINE:COLUMN: message" in WHY (input),
 * or -ENOMEM; what was appended before the error stays, for the caller to release. */
int agent_config_parse(const char *file, const char *text, size_t len,
		       struct inventory_pair **labels, int *n_labels,
		       struct provider_config *pc, struct err *why);

/* Read FILE (at most AGENT_CONFIG_MAX_BYTES) and parse it as above. Returns 0 or -errno
 * with WHY ("cannot read config 'FILE': ..." or the parse error). */
int agent_config_load(const char *file, struct inventory_pair **labels, int *n_labels,
		      struct provider_config *pc, struct err *why);

#endif
