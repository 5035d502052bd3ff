// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* agent_boot.c - the kernel provider's `boot` (docs/agent.md, "Kernel provider"): start
 * it when the coordinator asks, unless a job, a held result or another boot stands in
 * the way, follow it from the loop and report how it ended (`boot_report`). */
#include "agent_int.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/jget.h"
#include "base/log.h"
#include "base/util.h"
#include "proto/proto.h"

/* How a `boot` ended, for the coordinator: STATUS "ok" (the provider exited 0: the
 * machine is switching) or "failed" with ERROR; MS how long the provider ran. NULL when
 * out of memory. */
static json_t *boot_report(const char *kernel, const char *status, const char *error,
			   long long ms)
{
	json_t *r = proto_msg_new("boot_report");

	if (!r)
		return NULL;
	json_object_set_new(r, "kernel", json_string(kernel));
	json_object_set_new(r, "status", json_string(status));
	if (error)
		json_object_set_new(r, "error", json_string(error));
	json_object_set_new(r, "ms", json_integer(ms));
	return r;
}

/* Whether the provider's list (in the inventory) has KERNEL. */
static bool provider_offers(const struct agent *a, const char *kernel)
{
	const json_t *k;
	size_t i;

	json_array_foreach(json_object_get(a->opts.inv->provider, "kernels"), i, k)
		if (!strcmp(json_string_value(k), kernel))
			return true;
	return false;
}

/* Start the provider's `boot KERNEL`, unless something stands in the way; that, or a
 * provider that cannot start, is reported at once. */
json_t *agent_on_boot(struct agent *a, const json_t *msg)
{
	const char *kernel = jget_str(msg, "kernel", "");
	struct err why;

	if (a->busy)
		err_set(&why, "agent '%s' is busy with job '%s'", a->opts.inv->agent,
			a->job_id_text);
	else if (a->held)	/* a reboot would lose it */
		err_set(&why, "agent '%s' holds the result of job '%s': its spool cannot store "
			"it", a->opts.inv->agent, a->held_id);
	else if (a->boot.pid)
		err_set(&why, "agent '%s' is already switching to kernel '%s'",
			a->opts.inv->agent, a->boot.release);
	else if (!a->opts.provider)
		err_set(&why, "agent '%s' has no kernel_provider in its configuration",
			a->opts.inv->agent);
	else if (!provider_offers(a, kernel))
		err_at(&why, NULL, 0, 0, "kernel '%s' is not in the list of kernel provider '%s'",
		       kernel, a->opts.provider->argv[0]);
	else if (!provider_boot_start(a->opts.provider, kernel, &a->boot, &why)) {
		pr_info("switching to kernel '%s': running kernel provider '%s' (pid %d)", kernel,
			a->opts.provider->argv[0], (int)a->boot.pid);
		return NULL;
	}
	pr_warn("boot %s refused: %s", kernel, why.msg);
	return boot_report(kernel, "failed", why.msg, 0);
}

json_t *agent_poll_boot(struct agent *a)
{
	char kernel[PROVIDER_RELEASE_MAX + 1];
	long long ms = util_mono_ms() - a->boot.started_ms;
	struct err why;
	int rc;

	snprintf(kernel, sizeof(kernel), "%s", a->boot.release);
	rc = provider_boot_poll(&a->boot, &why);
	if (rc == 1)
		return NULL;
	if (rc) {
		pr_warn("%s", err_text(&why, rc));
		return boot_report(kernel, "failed", err_text(&why, rc), ms);
	}
	pr_info("kernel provider exited 0 after %lld ms: switching to kernel '%s'", ms, kernel);
	return boot_report(kernel, "ok", NULL, ms);
}
