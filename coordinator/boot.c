/* boot.c - kernel providers in the coordinator (docs/protocol.md, "Kernel providers"):
 * a client's `host_boot {host, kernel}` is checked (the host is known, connected, idle
 * with nothing queued, and its agent's provider offers the kernel), the host is marked
 * booting (no job is dispatched to it) and its agent gets `boot {kernel}`. The agent's
 * `boot_report` says when its provider failed (the host is available again, the error
 * shows in host_list); otherwise the machine goes away and its agent's next hello,
 * with the new kernel, ends the switch. A hello with another kernel, or none within
 * COORD_BOOT_TIMEOUT_MS, ends it too, as "mismatch" or "failed". The state lives in the
 * coordinator's memory (struct coord_agent), not in the database.
 */
#include "coord_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

#include "log.h"
#include "util.h"

#define COORD_BOOT_TIMEOUT_MS (10 * 60 * 1000)

static const char *kernel_of(const json_t *inventory)
{
	return proto_get_str(json_object_get(inventory, "kernel"), "release", "unknown");
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

/* End A's switch with STATE and ERROR (may be NULL). */
static void boot_end(struct coord_agent *a, const char *state, const char *error)
{
	a->boot_state = state;
	snprintf(a->boot_error, sizeof(a->boot_error), "%s", error ? error : "");
	a->boot_deadline_mono = 0;
}

json_t *coord_host_boot(struct coord *c, const json_t *msg)
{
	const char *host = proto_get_str(msg, "host", ""), *kernel = proto_get_str(msg, "kernel", "");
	struct coord_agent *a = coord_agent_by_name(c, host);
	char list[1024];
	int64_t pending = 0;
	json_t *boot, *r;
	int err;

	if (!a)
		return proto_error_new("host_boot", "no host '%s' has said hello to this "
				       "coordinator", host);
	if (!a->connected)
		return proto_error_new("host_boot", "host '%s' is not connected (gone)", host);
	if (a->boot_state && !strcmp(a->boot_state, "booting"))
		return proto_error_new("host_boot", "host '%s' is already switching to kernel "
				       "'%s'", host, a->boot_kernel);
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
		return proto_error_new("host_boot", "%s", store_errmsg(c->store));
	if (a->job_id || pending)
		return proto_error_new("host_boot", "host '%s' has %lld job%s queued or running; "
				       "boot it when they are done (or cancel their runs)", host,
				       (long long)(pending ? pending : 1), pending == 1 ? "" : "s");
	boot = proto_msg_new("boot");
	if (!boot || json_object_set_new(boot, "kernel", json_string(kernel))) {
		json_decref(boot);
		return NULL;
	}
	err = coord_send_agent(c, a, boot);
	json_decref(boot);
	if (err)
		return proto_error_new("host_boot", "cannot send 'boot' to host '%s': %s", host,
				       zmq_strerror(-err));
	a->boot_state = "booting";
	snprintf(a->boot_kernel, sizeof(a->boot_kernel), "%s", kernel);
	snprintf(a->boot_from, sizeof(a->boot_from), "%s", kernel_of(a->inventory));
	a->boot_error[0] = '\0';
	a->boot_since_wall = util_wall_ms();
	a->boot_deadline_mono = util_mono_ms() + COORD_BOOT_TIMEOUT_MS;
	pr_info("host '%s': switching from kernel '%s' to '%s' (its kernel provider)", host,
		a->boot_from, kernel);
	r = proto_msg_new("booting");
	if (!r || json_object_set_new(r, "host", json_string(host)) ||
	    json_object_set_new(r, "kernel", json_string(kernel)) ||
	    json_object_set_new(r, "from", json_string(a->boot_from))) {
		json_decref(r);
		return NULL;
	}
	return r;
}

void coord_boot_report(struct coord *c, struct coord_agent *a, const json_t *msg)
{
	const char *kernel = proto_get_str(msg, "kernel", "");
	const char *status = proto_get_str(msg, "status", "");
	long long ms = proto_get_int(msg, "ms", 0);

	if (!a->boot_state || strcmp(a->boot_state, "booting") || strcmp(a->boot_kernel, kernel)) {
		pr_warn("host '%s': boot report for kernel '%s', which it was not asked to boot: "
			"%s %s", a->name, kernel, status, proto_get_str(msg, "error", ""));
		return;
	}
	if (!strcmp(status, "ok")) {
		pr_info("host '%s': kernel provider switching to '%s' (it ran %lld ms); waiting "
			"for its hello", a->name, kernel, ms);
		return;
	}
	boot_end(a, "failed", proto_get_str(msg, "error", "the kernel provider failed"));
	pr_warn("host '%s' could not switch to kernel '%s': %s; the host stays on '%s' and "
		"is available again", a->name, kernel, a->boot_error, kernel_of(a->inventory));
	coord_dispatch(c);
}

void coord_boot_hello(struct coord *c, struct coord_agent *a, const json_t *hello)
{
	const char *now = kernel_of(json_object_get(hello, "inventory"));
	const char *still = proto_get_str(hello, "booting", NULL);
	char why[512];

	if (!a->boot_state || strcmp(a->boot_state, "booting"))
		return;
	if (still && !strcmp(still, a->boot_kernel)) {
		pr_info("host '%s' reconnected while its kernel provider still switches to '%s'",
			a->name, a->boot_kernel);
		return;
	}
	if (!strcmp(now, a->boot_kernel)) {
		boot_end(a, "done", NULL);
		pr_info("host '%s' is back with kernel '%s' after %.1f s", a->name, now,
			(util_wall_ms() - a->boot_since_wall) / 1000.0);
		return;
	}
	snprintf(why, sizeof(why), "host '%s' came back with kernel '%s', not '%s'", a->name,
		 now, a->boot_kernel);
	boot_end(a, "mismatch", why);
	pr_warn("%s", why);
}

void coord_boot_tick(struct coord *c)
{
	struct coord_agent *a;
	char why[512];

	for (a = c->agents; a; a = a->next) {
		if (!a->boot_state || strcmp(a->boot_state, "booting") ||
		    util_mono_ms() < a->boot_deadline_mono)
			continue;
		snprintf(why, sizeof(why), "no hello from host '%s' with kernel '%s' within %d s",
			 a->name, a->boot_kernel, COORD_BOOT_TIMEOUT_MS / 1000);
		boot_end(a, "failed", why);
		pr_warn("%s; the switch is given up", why);
	}
}

bool coord_boot_holds(const struct coord_agent *a)
{
	return a->boot_state && !strcmp(a->boot_state, "booting");
}

void coord_boot_hosts(struct coord *c, json_t *hosts)
{
	struct coord_agent *a;
	json_t *h, *b;
	size_t i;

	json_array_foreach(hosts, i, h) {
		a = coord_agent_by_name(c, proto_get_str(h, "name", ""));
		if (!a || !a->boot_state)
			continue;
		b = json_pack("{s:s, s:s, s:s, s:I}", "kernel", a->boot_kernel, "from", a->boot_from,
			      "state", a->boot_state, "since_ms", (json_int_t)a->boot_since_wall);
		if (b && *a->boot_error)
			json_object_set_new(b, "error", json_string(a->boot_error));
		if (b)
			json_object_set_new(h, "boot", b);
		if (a->connected && coord_boot_holds(a))
			json_object_set_new(h, "state", json_string("booting"));
	}
}
