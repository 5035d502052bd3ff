/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* sched.h - choosing the hosts a plan runs on: inventory selectors (hosts.match), port
 * roles and host count.
 *
 * A selector `KEY: VALUE` looks KEY up in the flattened inventory of docs/protocol.md:
 * a dotted path (kernel.release, cpu.model, bpf.jit_enable, labels.rack); port.FIELD,
 * which matches when any port has it; a bare name, which is a top-level scalar or else a
 * label (rack = labels.rack); and `kernel`, short for kernel.release. Values compare as
 * strings. A VALUE starting with an operator (>=, <=, >, <, =, !=) compares as a version
 * number instead: ">=6.1" takes 6.1.0 and 6.12.3-amd64; "=6.1" takes the whole 6.1
 * series (only the components written are compared).
 *
 * Pure functions over jansson values; used by the coordinator's submit handler.
 */
#ifndef BPFLAB_SCHED_H
#define BPFLAB_SCHED_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/jobspec.h"
#include "plan/plan.h"

/* Compare the leading dotted numbers of version strings A and B ("6.1.0-18-amd64" is
 * 6.1.0), missing components counting as 0; only the first NCOMP components when NCOMP
 * > 0. Returns <0, 0 or >0 as strcmp does. *OK (may be NULL) is set to false when either
 * has no leading number (the result is then 0). */
int sched_version_cmp(const char *a, const char *b, int ncomp, bool *ok);

/* Whether inventory value HAVE satisfies selector value WANT (see above). */
bool sched_value_matches(const char *have, const char *want);

/* Whether INVENTORY satisfies every hosts.match selector of PLAN and has a port for each
 * of its roles. When not, WHY (may be NULL) says which fails first. */
bool sched_host_matches(const struct plan *plan, const json_t *inventory, struct err *why);

/* Whether INVENTORY has a port for each of PLAN's roles (hosts.match not looked at: a
 * submitter's --hosts replaces it) and each XDP attach entry's mode is one its port's
 * driver has (sched_xdp_mode_fits). WHY as for sched_host_matches. */
bool sched_host_has_ports(const struct plan *plan, const json_t *inventory, struct err *why);

/* Whether the port of INVENTORY for ROLE can take an XDP program in MODE: generic and
 * auto always; native or offload when the port's "xdp" "modes" (agent/xdpcaps.h) list
 * it, or when there is no such list (an agent before it, or modes unknown: as before,
 * the agent's attach decides). When not, WHY gets "port 'b' (port-b, e1000e) has XDP
 * modes generic; the plan asks native (variant 'drop')". */
bool sched_xdp_mode_fits(const json_t *inventory, const char *role, enum job_xdp_mode mode,
			 const char *variant, struct err *why);

/* Whether a job with SPEC may run on a host with INVENTORY now: the inventory has a
 * port for each role of the spec's ports, each XDP entry's mode fits its port
 * (sched_xdp_mode_fits) and it satisfies every selector of its
 * hosts_match (the plan's hosts.match as the coordinator stamped it at submit; none with
 * --hosts). WHY as for sched_host_matches; ASKED (ASKED_LEN bytes, may be NULL) gets what
 * the spec asks ("hosts.match kernel.release=A; ports a, b"). For the check at dispatch:
 * the host may have changed its kernel since. */
bool sched_jobspec_fits(const struct job_spec *spec, const json_t *inventory, struct err *why,
			char *asked, size_t asked_len);
/* sched_jobspec_fits for a spec held as JSON (a stored job spec), decoded first; one
 * that cannot be decoded does not fit (WHY says why). */
bool sched_spec_fits(const json_t *spec, const json_t *inventory, struct err *why,
		     char *asked, size_t asked_len);

/* A candidate host for sched_choose. */
struct sched_host {
	int64_t id;
	const char *name;
	const json_t *inventory;	/* a switching host: as it will be, kernel.release the
					 * target */
	int64_t pending;		/* jobs queued or running on it */
	const char *switching;		/* the kernel it is switching to, or NULL */
	bool chosen;			/* out */
};

/* Mark the hosts of HOSTS (N of them: connected ones, and those switching their kernel)
 * that PLAN runs on: every matching host for count all, or the plan's host count among
 * them with the least pending work (then those not switching first, then by name).
 * Returns the number chosen, or -ENOENT (no host matches) / -ERANGE (too
 * few match) with a person's message in ERR. */
int sched_choose(const struct plan *plan, struct sched_host *hosts, int n, struct err *err);

#endif
