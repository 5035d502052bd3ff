// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* boot.c - kernel providers in the coordinator (docs/protocol.md, "Kernel providers"):
 * a client's `host_boot {host, kernel}` is checked (the host is known, connected, idle
 * with nothing queued, and its agent's provider offers the kernel), the switch is
 * stored, the host is marked booting (no job is dispatched to it) and its agent gets
 * `boot {kernel}`. The agent's `boot_report` says when its provider failed (the host is
 * available again, the error shows in host_list); otherwise the machine goes away and
 * its agent's next hello, with the new kernel, ends the switch. A hello with another
 * kernel, or none within COORD_BOOT_TIMEOUT_MS of the request, ends it too, as
 * "mismatch" or "failed".
 *
 * The switch is in the coordinator's memory (struct coord_agent_boot, each agent's part
 * that boot.c owns) and in the store (host_boots, lib/store/store_boot.c):
 * coord_boot_restore, at start, reads the latest switch of each host back, so a
 * coordinator restarted in the middle of one still holds the host back and ends the
 * switch at its hello or at the timeout.
 *
 * coord_job_fits is the check at dispatch that a job's host still matches what the plan
 * asked (its kernel may have changed since the submit: a switch, an agent started on
 * another kernel). Event loop thread only.
 */
#include "coord_boot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "coord_core.h"
#include "base/log.h"
#include "sched.h"
#include "base/util.h"

#define COORD_BOOT_TIMEOUT_MS (10 * 60 * 1000)

static const char *kernel_of(const json_t *inventory)
{
	return jget_str(json_object_get(inventory, "kernel"), "release", "unknown");
}

/* Whether A's inventory lists KERNEL among its provider's kernels; LIST gets them,
 * comma separated (for the error). */
static bool offers(const struct coord_agent *a, const char *kernel, char *list, size_t len)
{
	const json_t *k;
	size_t i, off = 0;
	bool found = false;

	list[0] = '\0';
	json_array_foreach(json_object_get(json_object_get(a->inventory, "provider"), "kernels"),
			   i, k) {
		const char *s = json_string_value(k);

		if (!s)
			continue;
		found |= !strcmp(s, kernel);
		if (off < len)
			off += snprintf(list + off, len - off, "%s%s", off ? ", " : "", s);
	}
	return found;
}

/* End A's switch with STATE (a string literal) and ERROR (may be NULL), in memory and
 * in the store. */
static void boot_end(struct coord *c, struct coord_agent *a, const char *state,
		     const char *error)
{
	a->boot.state = state;
	snprintf(a->boot.error, sizeof(a->boot.error), "%s", error ? error : "");
	a->boot.deadline_mono = 0;
	if (store_boot_end(c->store, a->host_id, state, error, util_wall_ms()))
		pr_warn("host '%s': %s", a->name, store_err(c->store)->msg);
}

json_t *coord_host_boot(struct coord *c, const json_t *msg)
{
	const char *host = jget_str(msg, "host", ""), *kernel = jget_str(msg, "kernel", "");
	struct coord_agent *a = coord_agent_by_name(c, host);
	char list[1024];
	int64_t pending = 0, now;
	json_t *boot, *r;
	int err;

	if (!a)
		return proto_error_new("host_boot", "no host '%s' has said hello to this "
				       "coordinator", host);
	if (!a->sess.connected)
		return proto_error_new("host_boot", "host '%s' is not connected (gone)", host);
	if (a->boot.state && !strcmp(a->boot.state, "booting"))
		return proto_error_new("host_boot", "host '%s' is already switching to kernel "
				       "'%s'", host, a->boot.kernel);
	if (!json_is_object(json_object_get(a->inventory, "provider")))
		return proto_error_new("host_boot", "host '%s' has no kernel provider "
				       "('kernel_provider' in its agent's --config file)", host);
	if (!strcmp(kernel_of(a->inventory), kernel))
		return proto_error_new("host_boot", "host '%s' runs kernel '%s' already", host,
				       kernel);
	if (!offers(a, kernel, list, sizeof(list)))
		return proto_error_new("host_boot", "host '%s' does not offer kernel '%s' "
				       "(its kernel provider lists: %s)", host, kernel,
				       *list ? list : "nothing");
	if (store_host_pending(c->store, a->host_id, &pending))
		return proto_error_new("host_boot", "%s", store_err(c->store)->msg);
	if (a->job.id || pending)
		return proto_error_new("host_boot", "host '%s' has %lld job%s queued or running; "
				       "boot it when they are done (or cancel their runs)", host,
				       (long long)(pending ? pending : 1), pending == 1 ? "" : "s");
	boot = proto_msg_new("boot");
	if (!boot || json_object_set_new(boot, "kernel", json_string(kernel))) {
		json_decref(boot);
		return NULL;
	}
	/* stored before the agent hears of it: a restart from here on knows the switch */
	now = util_wall_ms();
	err = store_boot_begin(c->store, a->host_id, kernel, kernel_of(a->inventory), now,
			       NULL);
	if (err) {
		json_decref(boot);
		return proto_error_new("host_boot", "cannot store the switch of host '%s': %s",
				       host, store_err(c->store)->msg);
	}
	a->boot.state = "booting";
	snprintf(a->boot.kernel, sizeof(a->boot.kernel), "%s", kernel);
	snprintf(a->boot.from, sizeof(a->boot.from), "%s", kernel_of(a->inventory));
	a->boot.error[0] = '\0';
	a->boot.since_wall = now;
	a->boot.deadline_mono = util_mono_ms() + COORD_BOOT_TIMEOUT_MS;
	err = coord_send_agent(c, a, boot);
	json_decref(boot);
	if (err) {
		r = proto_error_new("host_boot", "cannot send 'boot' to host '%s': %s", host,
				    zmq_strerror(-err));
		boot_end(c, a, "failed", jget_str(r, "message", "cannot send 'boot'"));
		return r;
	}
	pr_info("host '%s': switching from kernel '%s' to '%s' (its kernel provider)", host,
		a->boot.from, kernel);
	r = proto_msg_new("booting");
	if (!r || json_object_set_new(r, "host", json_string(host)) ||
	    json_object_set_new(r, "kernel", json_string(kernel)) ||
	    json_object_set_new(r, "from", json_string(a->boot.from))) {
		json_decref(r);
		return NULL;
	}
	return r;
}

void coord_boot_report(struct coord *c, struct coord_agent *a, const json_t *msg)
{
	const char *kernel = jget_str(msg, "kernel", "");
	const char *status = jget_str(msg, "status", "");
	long long ms = jget_int(msg, "ms", 0);

	if (!coord_boot_holds(a) || strcmp(a->boot.kernel, kernel)) {
		pr_warn("host '%s': boot report for kernel '%s', which it was not asked to boot: "
			"%s %s", a->name, kernel, status, jget_str(msg, "error", ""));
		return;
	}
	if (!strcmp(status, "ok")) {
		pr_info("host '%s': kernel provider switching to '%s' (it ran %lld ms); waiting "
			"for its hello", a->name, kernel, ms);
		return;
	}
	boot_end(c, a, "failed", jget_str(msg, "error", "the kernel provider failed"));
	pr_warn("host '%s' could not switch to kernel '%s': %s; the host stays on '%s' and "
		"is available again", a->name, kernel, a->boot.error,
		kernel_of(a->inventory));
	coord_dispatch_agent(c, a, util_mono_ms());
}

void coord_boot_hello(struct coord *c, struct coord_agent *a, const json_t *hello)
{
	const char *now = kernel_of(json_object_get(hello, "inventory"));
	const char *still = jget_str(hello, "booting", NULL);
	char why[512];

	if (!a->boot.state || strcmp(a->boot.state, "booting"))
		return;
	if (still && !strcmp(still, a->boot.kernel)) {
		pr_info("host '%s' reconnected while its kernel provider still switches to '%s'",
			a->name, a->boot.kernel);
		return;
	}
	if (!strcmp(now, a->boot.kernel)) {
		boot_end(c, a, "done", NULL);
		pr_info("host '%s' is back with kernel '%s' after %.1f s", a->name, now,
			(util_wall_ms() - a->boot.since_wall) / 1000.0);
		return;
	}
	snprintf(why, sizeof(why), "host '%s' came back with kernel '%s', not '%s'", a->name,
		 now, a->boot.kernel);
	boot_end(c, a, "mismatch", why);
	pr_warn("%s", why);
}

void coord_boot_tick(struct coord *c)
{
	struct coord_agent *a;
	char why[512];

	for (a = c->agents; a; a = a->next) {
		if (!a->boot.state || strcmp(a->boot.state, "booting") ||
		    util_mono_ms() < a->boot.deadline_mono)
			continue;
		snprintf(why, sizeof(why), "no hello from host '%s' with kernel '%s' within %d s",
			 a->name, a->boot.kernel, COORD_BOOT_TIMEOUT_MS / 1000);
		boot_end(c, a, "failed", why);
		pr_warn("%s; the switch is given up", why);
	}
}

bool coord_boot_holds(const struct coord_agent *a)
{
	return a->boot.state && !strcmp(a->boot.state, "booting");
}

void coord_boot_hosts(struct coord *c, json_t *hosts)
{
	struct coord_agent *a;
	json_t *h, *b;
	size_t i;

	json_array_foreach(hosts, i, h) {
		a = coord_agent_by_name(c, jget_str(h, "name", ""));
		if (!a || !a->boot.state)
			continue;
		b = json_pack("{s:s, s:s, s:s, s:I}", "kernel", a->boot.kernel, "from",
			      a->boot.from, "state", a->boot.state, "since_ms",
			      (json_int_t)a->boot.since_wall);
		if (b && *a->boot.error)
			json_object_set_new(b, "error", json_string(a->boot.error));
		if (b)
			json_object_set_new(h, "boot", b);
		if (a->sess.connected && coord_boot_holds(a))
			json_object_set_new(h, "state", json_string("booting"));
	}
}

/* The string literal for a stored switch STATE (boot_state points to literals). */
static const char *state_literal(const char *state)
{
	static const char *const states[] = { "booting", "done", "failed", "mismatch" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(states); i++)
		if (!strcmp(state, states[i]))
			return states[i];
	return NULL;
}

/* The agent named NAME, made (not connected, with the host's stored INVENTORY, not
 * stolen) when this coordinator has not heard from it yet. NULL when out of memory. */
static struct coord_agent *agent_for(struct coord *c, const char *name, int64_t host_id,
				     const json_t *inventory)
{
	struct coord_agent *a = coord_agent_by_name(c, name);

	if (a)
		return a;
	a = coord_agent_add(c, name);
	if (a)
		coord_agent_known(a, host_id, inventory);
	return a;
}

/* Restore one stored switch B (a row of store_boot_latest) into its host's agent. */
static int restore_one(struct coord *c, const json_t *b, int64_t now_wall)
{
	const char *name = jget_str(b, "host", ""), *state;
	int64_t started = jget_int(b, "started_ms", now_wall), left;
	struct coord_agent *a;

	state = state_literal(jget_str(b, "state", ""));
	if (!state)
		return 0;	/* the schema's CHECK keeps this from happening */
	a = agent_for(c, name, jget_int(b, "host_id", 0), json_object_get(b, "inventory"));
	if (!a)
		return -ENOMEM;
	a->boot.state = state;
	snprintf(a->boot.kernel, sizeof(a->boot.kernel), "%s",
		 jget_str(b, "kernel", ""));
	snprintf(a->boot.from, sizeof(a->boot.from), "%s", jget_str(b, "from", ""));
	snprintf(a->boot.error, sizeof(a->boot.error), "%s", jget_str(b, "error", ""));
	a->boot.since_wall = started;
	if (!coord_boot_holds(a))
		return 0;
	left = started + COORD_BOOT_TIMEOUT_MS - now_wall;
	a->boot.deadline_mono = util_mono_ms() + (left > 0 ? left : 0);
	pr_info("host '%s' was switching from kernel '%s' to '%s' when the coordinator "
		"stopped (%.0f s ago): no job for it until its hello, at most %.0f s more",
		a->name, a->boot.from, a->boot.kernel, (now_wall - started) / 1000.0,
		(left > 0 ? left : 0) / 1000.0);
	return 0;
}

int coord_boot_restore(struct coord *c)
{
	json_t *boots = store_boot_latest(c->store, false), *b;
	int64_t now_wall = util_wall_ms();
	size_t i;
	int err = 0;

	if (!boots) {
		pr_warn("%s", store_err(c->store)->msg);
		return -(errno ? errno : EIO);
	}
	json_array_foreach(boots, i, b) {
		err = restore_one(c, b, now_wall);
		if (err) {
			pr_warn("cannot restore the kernel switch of host '%s': out of memory",
				jget_str(b, "host", "?"));
			break;
		}
	}
	json_decref(boots);
	if (!err)
		coord_boot_tick(c);	/* those past their deadline end now */
	return err;
}

bool coord_job_fits(const struct coord_agent *a, const struct job_spec *spec,
		    struct err *why)
{
	char asked[512];
	struct err what;

	if (sched_jobspec_fits(spec, a->inventory, &what, asked, sizeof(asked)))
		return true;
	err_set(why, "host '%s' runs kernel '%s' now and no longer matches the plan: %s "
		"(the plan asks %s); the job was not run on it", a->name,
		kernel_of(a->inventory), what.msg, asked);
	return false;
}
