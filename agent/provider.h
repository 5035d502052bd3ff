/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* provider.h - the agent's kernel provider: a command from the agent's own configuration
 * file (`kernel_provider:` in --config, never from a plan or a coordinator message) that
 * lists the kernels this host can boot and switches the host to one of them
 * (docs/agent.md, "Kernel provider").
 *
 * The command is run without a shell, as argv words from the configuration plus
 *
 *   CMD list            prints the kernel releases it can boot, one a line; exit 0
 *   CMD boot RELEASE    switches the host to RELEASE (e.g. kexec); exit 0 means the
 *                       switch is under way, anything else failed, with why on stderr
 *
 * provider_list() runs `list` to completion (bounded); provider_boot_start() starts
 * `boot` and provider_boot_poll() follows it without blocking, so that the agent's loop
 * keeps its heartbeats while the command runs. Only this file of agent/ starts a
 * process.
 */
#ifndef BPFLAB_AGENT_PROVIDER_H
#define BPFLAB_AGENT_PROVIDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

#define PROVIDER_MAX_ARGS 32
#define PROVIDER_LIST_TIMEOUT_MS 30000
#define PROVIDER_BOOT_TIMEOUT_MS 120000
#define PROVIDER_MAX_OUTPUT (64u << 10)	/* bytes of stdout (list) or stderr kept */
#define PROVIDER_MAX_KERNELS 256
#define PROVIDER_RELEASE_MAX 200

/* `kernel_provider: {command: [ARGV...] | PATH, list_timeout: S, boot_timeout: S}` */
struct provider_config {
	char *argv[PROVIDER_MAX_ARGS + 1];	/* heap words, argv[0] an absolute path */
	int argc;
	int list_timeout_ms;			/* 0: PROVIDER_LIST_TIMEOUT_MS */
	int boot_timeout_ms;			/* 0: PROVIDER_BOOT_TIMEOUT_MS */
};

void provider_config_release(struct provider_config *cfg);

/* Whether TEXT may name a kernel release: 1..PROVIDER_RELEASE_MAX bytes of
 * [A-Za-z0-9._+~-], not starting with '-' or '.'. */
bool provider_release_ok(const char *text);

/* Run `CMD list` (at most the list timeout). Returns 0 with *KERNELS (new array of
 * release strings, in the command's order, duplicates and blank lines dropped), or
 * -errno with WHY ("kernel provider '/x' list: exit status 1: no kernels"). */
int provider_list(const struct provider_config *cfg, json_t **kernels, struct err *why);

/* The parser of `CMD list` output, for provider_list() and tests: the LEN bytes of TEXT
 * split into lines, the first word of each non-blank one appended to KERNELS unless it
 * is there (kernel_list_scan of lib/base/kernel_list.h: no comments, repeats dropped, names
 * by provider_release_ok). Returns 0, or -EINVAL (a word that is not a release, a NUL
 * byte anywhere: then nothing is appended), -E2BIG (more than PROVIDER_MAX_KERNELS) or
 * -ENOMEM, with WHY naming CMD. */
int provider_list_parse(const char *cmd, const char *text, size_t len, json_t *kernels,
			struct err *why);

/* A running `CMD boot RELEASE`. */
struct provider_run {
	pid_t pid;			/* 0: none */
	int err_fd;			/* its stderr (and stdout), non-blocking; -1 when closed */
	int64_t started_ms, deadline_ms; /* monotonic */
	char release[PROVIDER_RELEASE_MAX + 1];
	char *output;			/* what it wrote, at most PROVIDER_MAX_OUTPUT */
	size_t output_len;
	size_t logged;			/* bytes of output already logged, line by line */
};

/* Start `CMD boot RELEASE` into RUN. Returns 0, or -errno with WHY. */
int provider_boot_start(const struct provider_config *cfg, const char *release,
			struct provider_run *run, struct err *why);
/* Read what RUN wrote (each complete line is logged: "kernel provider: LINE") and reap
 * it when it exited; kill it (its whole process group) at its deadline. Never blocks. Returns 1 while it runs, 0 when it exited 0, -errno when
 * it failed (WHY: exit status or signal, and the last lines it wrote), each end once;
 * after an end RUN is released. */
int provider_boot_poll(struct provider_run *run, struct err *why);
/* Kill a running RUN and release it (agent shutdown). */
void provider_boot_abort(struct provider_run *run);

#endif
