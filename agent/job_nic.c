// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* job_nic.c - a job's driver counters (docs/agent.md, "Metrics", nic.NAME): each port's
 * ethtool -S reader opened at the job's start (ethstats.h), the counters the plan lists
 * checked against what the ports have (a job fails naming the counters there are), and
 * closed at its end. The rate window reads them (job_window.c). */
#include "job_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "inventory.h"

/* Port I's driver name into OUT. */
static void nic_driver(struct job_ctx *c, int i, char *out, size_t len)
{
	snprintf(out, len, "?");
	if (c->nic[i])
		snprintf(out, len, "%s", ethstats_driver(c->nic[i]));
	else
		inventory_driver(c->ports[i].ifname, out, len);
}

/* Port I's counters (not its other stats) "a, b, c", or "no driver counters", at *LEN
 * of OUT (CAP bytes), cut with "..." when they do not fit. */
static void nic_names(struct job_ctx *c, int i, char *out, size_t cap, size_t *len)
{
	const struct ethstats *e = c->nic[i];
	const struct ethstats_stat *st = e ? ethstats_stats(e) : NULL;
	size_t o = *len;
	int k, shown = 0;

	if (!e && o < cap)
		o += (size_t)snprintf(out + o, cap - o, "no driver counters");
	for (k = 0; e && k < ethstats_count(e) && o < cap; k++) {
		if (st[k].unit == ETHSTATS_NONE)
			continue;
		o += (size_t)snprintf(out + o, cap - o, "%s%s", shown++ ? ", " : "", st[k].name);
	}
	if (o >= cap && cap > 4)
		memcpy(out + cap - 4, "...", 4);
	*len = o < cap ? o : cap - 1;
}

/* An earlier port with the same driver counters as port I (a veth pair's ends), or -1. */
static int nic_same_as(struct job_ctx *c, int i)
{
	int j, k;

	for (j = 0; c->nic[i] && j < i; j++) {
		if (!c->nic[j] || ethstats_count(c->nic[j]) != ethstats_count(c->nic[i]) ||
		    strcmp(ethstats_driver(c->nic[j]), ethstats_driver(c->nic[i])))
			continue;
		for (k = 0; k < ethstats_count(c->nic[i]); k++)
			if (strcmp(ethstats_stats(c->nic[i])[k].name, ethstats_stats(c->nic[j])[k].name))
				break;
		if (k == ethstats_count(c->nic[i]))
			return j;
	}
	return -1;
}

int job_nic_open(struct job_ctx *c)
{
	int i, j, k, err;

	c->nic = calloc(c->n_ports ? c->n_ports : 1, sizeof(*c->nic));
	if (!c->nic) {
		err_set(&c->err, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < c->n_ports; i++) {
		err = ethstats_open(c->ports[i].ifname, &c->nic[i]);
		if (err && err != -EOPNOTSUPP)
			pr_warn("job: no driver counters of port '%s' ('%s'): %s",
				c->ports[i].role, c->ports[i].ifname, strerror(-err));
	}
	/* a counter the plan asks for (metrics: nic.NAME) must be there, as a counters
	 * map must (attach.h): the job fails before any traffic, naming what there is */
	for (j = 0; c->spec.has_metrics && j < c->spec.n_metrics; j++) {
		const char *m = c->spec.metrics[j], *name = m + 4;
		char driver[64], text[sizeof(c->err.msg)];
		size_t len = 0;

		if (strncmp(m, "nic.", 4))
			continue;
		for (i = 0; i < c->n_ports; i++) {
			k = c->nic[i] ? ethstats_find(ethstats_stats(c->nic[i]),
						      ethstats_count(c->nic[i]), name) : -1;
			if (k < 0)
				continue;
			if (ethstats_stats(c->nic[i])[k].unit != ETHSTATS_NONE)
				break;
			err_at(&c->err, NULL, 0, 0,
			       "metrics: driver counter '%s' of port '%s' (%s) is not a counter (an index or a queue number; nic.* are rates of counters)",
			       name, c->ports[i].role, ethstats_driver(c->nic[i]));
			return -EINVAL;
		}
		if (i < c->n_ports)
			continue;
		if (c->n_ports == 1) {
			nic_driver(c, 0, driver, sizeof(driver));
			len = (size_t)snprintf(text, sizeof(text),
					       "metrics: port '%s' (%s) has no driver counter '%s' (ethtool -S); it has: ",
					       c->ports[0].role, driver, name);
			nic_names(c, 0, text, sizeof(text), &len);
		} else {
			len = (size_t)snprintf(text, sizeof(text),
					       "metrics: no job port has driver counter '%s' (ethtool -S): ",
					       name);
			for (i = 0; i < c->n_ports && len < sizeof(text) - 1; i++) {
				int same = nic_same_as(c, i);

				nic_driver(c, i, driver, sizeof(driver));
				len += (size_t)snprintf(text + len, sizeof(text) - len,
							"%sport '%s' (%s) has%s%s%s", i ? "; " : "",
							c->ports[i].role, driver,
							same >= 0 ? " the same as '" : ": ",
							same >= 0 ? c->ports[same].role : "",
							same >= 0 ? "'" : "");
				if (len >= sizeof(text))
					len = sizeof(text) - 1;
				if (same < 0)
					nic_names(c, i, text, sizeof(text), &len);
			}
		}
		/* what the plan asks for is not there: its input */
		err_at(&c->err, NULL, 0, 0, "%s", text);
		return -ENOENT;
	}
	return 0;
}

void job_nic_close(struct job_ctx *c)
{
	for (int i = 0; c->nic && i < c->n_ports; i++)
		ethstats_destroy(&c->nic[i]);
	free(c->nic);
	c->nic = NULL;
}
