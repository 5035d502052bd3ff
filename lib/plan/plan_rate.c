// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_rate.c - see plan.h. traffic.rate and search.max_rate against a host's ports: the
 * line rate of a port and the check coordinator/submit.c makes for every chosen host, so
 * that a rate no port can carry is refused at submit with the rate's place in the plan (the agent checks
 * again at the job: agent/job_traffic.c). Pure: reads the job spec and inventory JSON.
 */
#include "plan/plan_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

double plan_line_rate_pps(double mbps, int size)
{
	return mbps * 1e6 / ((size + 24) * 8.0);
}

const json_t *plan_inventory_port(const json_t *inventory, const char *role)
{
	const json_t *p;
	size_t i;

	json_array_foreach(json_object_get(inventory, "ports"), i, p) {
		const char *r = json_string_value(json_object_get(p, "role"));

		if (r && !strcmp(r, role))
			return p;
	}
	return NULL;
}

/* The place to blame: a matrix axis traffic.rate, else the plan's traffic.rate. */
static void rate_place(const struct plan *plan, int *line, int *col)
{
	int i;

	*line = plan->traffic.rate_line;
	*col = plan->traffic.rate_col;
	for (i = 0; i < plan->n_axes; i++) {
		if (!strcmp(plan->matrix[i].key, "traffic.rate")) {
			*line = plan->matrix[i].line;
			*col = plan->matrix[i].col;
		}
	}
}

int plan_rate_check(const struct plan *plan, const json_t *spec, const json_t *inventory,
		    const char *host, struct err *err)
{
	const json_t *t = json_object_get(spec, "traffic");
	const char *gen = json_string_value(json_object_get(t, "generator"));
	const char *from = json_string_value(json_object_get(t, "from"));
	json_int_t pps = json_integer_value(json_object_get(t, "rate_pps"));
	double share = json_number_value(json_object_get(t, "rate_share"));
	int size = (int)json_integer_value(json_object_get(json_object_get(t, "packet"), "size"));
	json_int_t max = json_integer_value(json_object_get(json_object_get(spec, "search"),
							   "max_rate_pps"));
	double mbps, line;
	int l, c;

	if (!from || !gen || !strcmp(gen, "none") || (!pps && !(share > 0) && !max))
		return 0;
	/* the port's speed in Mb/s; none (or no such port): 0 */
	mbps = json_number_value(json_object_get(plan_inventory_port(inventory, from), "speed"));
	line = plan_line_rate_pps(mbps, size);
	if (max && mbps > 0 && (double)max > line)
		return err_at(err, plan->file, plan->search_max_line, plan->search_max_col,
			      "search.max_rate: %lld frames/s is above the line rate of port '%s' on host '%s': %.0f frames/s of %d bytes at %.0f Mb/s",
			      (long long)max, from, host, line, size, mbps);
	if (!pps && !(share > 0))
		return 0;
	rate_place(plan, &l, &c);
	/* l is 0 for a rate from an override (-s traffic.rate=...): no place in the file */
	if (share > 0 && !(mbps > 0))
		return err_at(err, plan->file, l, c, "traffic.rate: %g%% of the line rate, but port '%s' on host '%s' reports no speed: give the rate in frames per second",
			      100 * share, from, host);
	if (pps && mbps > 0 && (double)pps > line)
		return err_at(err, plan->file, l, c, "traffic.rate: %lld frames/s is above the line rate of port '%s' on host '%s': %.0f frames/s of %d bytes at %.0f Mb/s",
			      (long long)pps, from, host, line, size, mbps);
	return 0;
}
