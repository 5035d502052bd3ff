// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* cpustat.c - see cpustat.h. */
#include "cpustat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cpustat_read(const char *path, struct cpustat *out)
{
	struct cpustat_cpu *cpus = NULL, *nc;
	char line[512];
	int n = 0, ret = 0;
	FILE *f;

	f = fopen(path ? path : "/proc/stat", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = { 0 };
		int cpu, got;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		got = sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			     &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
		if (got < 5)
			continue;
		nc = realloc(cpus, (n + 1) * sizeof(*nc));
		if (!nc) {
			ret = -ENOMEM;
			goto out;
		}
		cpus = nc;
		cpus[n].cpu = cpu;
		cpus[n].total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		cpus[n].idle = v[3] + v[4];
		cpus[n].softirq = v[6];
		n++;
	}
	if (!n)
		ret = -EINVAL;
out:
	fclose(f);
	if (ret) {
		free(cpus);
		return ret;
	}
	free(out->cpus);
	out->cpus = cpus;
	out->n = n;
	return 0;
}

void cpustat_release(struct cpustat *s)
{
	if (!s)
		return;
	free(s->cpus);
	s->cpus = NULL;
	s->n = 0;
}

int cpustat_share(const struct cpustat *a, const struct cpustat *b, int i, double *busy,
		  double *softirq)
{
	const struct cpustat_cpu *x, *y;
	double dt;

	if (i < 0 || i >= a->n || i >= b->n)
		return -EINVAL;
	x = &a->cpus[i];
	y = &b->cpus[i];
	if (x->cpu != y->cpu || y->total <= x->total)
		return -EINVAL;
	dt = (double)(y->total - x->total);
	*busy = 1.0 - (double)(y->idle - x->idle) / dt;
	*softirq = (double)(y->softirq - x->softirq) / dt;
	if (*busy < 0)
		*busy = 0;
	return 0;
}
