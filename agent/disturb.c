// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* disturb.c - see disturb.h. */
#include "disturb.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cpu_index(const struct disturb_snap *s, int cpu)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->cpus[i].cpu == cpu)
			return i;
	return -1;
}

static int read_stat(const char *path, struct disturb_snap *s)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = { 0 };
		struct disturb_cpu *nc;
		int cpu;

		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5)
			continue;
		nc = realloc(s->cpus, (s->n + 1) * sizeof(*nc));
		if (!nc) {
			fclose(f);
			return -ENOMEM;
		}
		s->cpus = nc;
		memset(&nc[s->n], 0, sizeof(*nc));
		nc[s->n].cpu = cpu;
		nc[s->n].total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		nc[s->n].busy = nc[s->n].total - v[3] - v[4];
		nc[s->n].softirq = v[6];
		nc[s->n].steal = v[7];
		s->n++;
	}
	fclose(f);
	return s->n ? 0 : -EINVAL;
}

/* The "CPU0 CPU1 ..." header of /proc/interrupts and /proc/softirqs: the CPU number of
 * each column into COLS (at most MAX); returns the count. */
static int header_cols(const char *line, int *cols, int max)
{
	int n = 0;
	const char *p = line;

	while (n < max && (p = strstr(p, "CPU"))) {
		p += 3;
		cols[n++] = atoi(p);
	}
	return n;
}

/* Add the per-CPU columns of the rows of PATH to FIELD of S: every row with per-CPU
 * columns when ROW is NULL, else only the row named ROW ("NET_RX"). */
static void read_columns(const char *path, const char *row, struct disturb_snap *s,
			 size_t field)
{
	unsigned long long v[1024];
	int cols[1024], n_cols = 0, i;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *p = line, *end;

		if (!n_cols) {
			n_cols = header_cols(line, cols, 1024);
			continue;
		}
		while (isspace((unsigned char)*p))
			p++;
		end = strchr(p, ':');
		if (!end)
			continue;
		if (row && ((size_t)(end - p) != strlen(row) || strncmp(p, row, end - p)))
			continue;
		p = end + 1;
		for (i = 0; i < n_cols; i++) {
			v[i] = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		if (i < n_cols)
			continue;	/* ERR:, MIS: one count, not one per CPU */
		for (i = 0; i < n_cols; i++) {
			int k = cpu_index(s, cols[i]);

			if (k >= 0)
				*(uint64_t *)((char *)&s->cpus[k] + field) += v[i];
		}
	}
	free(line);
	fclose(f);
}

/* utime + stime and the last CPU of one /proc/.../task/TID/stat. */
static int read_thread(const char *path, struct disturb_thread *t)
{
	char buf[1024], *p;
	unsigned long long ut, st;
	size_t len;
	int field, cpu = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	/* the command name may hold spaces and parentheses: fields start after the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p += 2;
	/* p is at field 3 (state); utime is 14, stime 15, processor 39 */
	for (field = 3; field < 14 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu %llu", &ut, &st) != 2)
		return -EINVAL;
	for (; field < 39 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		cpu = atoi(p);
	t->ticks = ut + st;
	t->cpu = cpu;
	return 0;
}

/* The ksoftirqd/N threads' ticks onto their CPUs (a scan of PROC/[0-9]* /stat). */
static void read_ksoftirqd(const char *proc, struct disturb_snap *s)
{
	char path[PATH_MAX], buf[64];
	struct dirent *d;
	DIR *dir = opendir(proc);

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		struct disturb_thread t;
		FILE *f;
		int cpu, k;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", proc, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = 0;
		fclose(f);
		/* "PID (ksoftirqd/N) S ..." */
		if (!strstr(buf, " (ksoftirqd/") ||
		    sscanf(strstr(buf, " (ksoftirqd/") + 12, "%d)", &cpu) != 1 ||
		    read_thread(path, &t) || (k = cpu_index(s, cpu)) < 0)
			continue;
		s->cpus[k].ksoftirqd += t.ticks;
	}
	closedir(dir);
}

static int read_own(const char *proc, struct disturb_snap *s)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/self/task", proc);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		struct disturb_thread t = { 0 }, *nt;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/self/task/%s/stat", proc, d->d_name);
		if (read_thread(path, &t))
			continue;	/* the thread ended meanwhile */
		t.tid = atoi(d->d_name);
		nt = realloc(s->own, (s->n_own + 1) * sizeof(*nt));
		if (!nt) {
			closedir(dir);
			return -ENOMEM;
		}
		s->own = nt;
		nt[s->n_own++] = t;
	}
	closedir(dir);
	return 0;
}

int disturb_read(const char *proc, struct disturb_snap *out)
{
	struct disturb_snap s = { 0 };
	char path[PATH_MAX];
	int err;

	if (!proc)
		proc = "/proc";
	snprintf(path, sizeof(path), "%s/stat", proc);
	err = read_stat(path, &s);
	if (!err) {
		snprintf(path, sizeof(path), "%s/interrupts", proc);
		read_columns(path, NULL, &s, offsetof(struct disturb_cpu, irqs));
		snprintf(path, sizeof(path), "%s/softirqs", proc);
		read_columns(path, "NET_RX", &s, offsetof(struct disturb_cpu, net_rx));
		read_ksoftirqd(proc, &s);
		err = read_own(proc, &s);
	}
	if (err) {
		disturb_release(&s);
		return err;
	}
	disturb_release(out);
	*out = s;
	return 0;
}

void disturb_release(struct disturb_snap *s)
{
	if (!s)
		return;
	free(s->cpus);
	free(s->own);
	memset(s, 0, sizeof(*s));
}

/* Ticks of this process's threads between A and B on CPU, each thread's delta put on the
 * CPU it last ran on (a thread new in B counts whole). */
static uint64_t own_ticks(const struct disturb_snap *a, const struct disturb_snap *b, int cpu)
{
	uint64_t sum = 0;
	int i, j;

	for (i = 0; i < b->n_own; i++) {
		uint64_t before = 0;

		if (b->own[i].cpu != cpu)
			continue;
		for (j = 0; j < a->n_own; j++)
			if (a->own[j].tid == b->own[i].tid)
				before = a->own[j].ticks;
		if (b->own[i].ticks > before)
			sum += b->own[i].ticks - before;
	}
	return sum;
}

bool disturb_irq_time(const char *config)
{
	const char *p = config;

	while (p && (p = strstr(p, "CONFIG_IRQ_TIME_ACCOUNTING=y"))) {
		if (p == config || p[-1] == '\n')
			return true;
		p++;
	}
	return false;
}

/* Others' ticks and all ticks of CPU index I of B. Returns -1 when the CPU is not in A
 * or no tick elapsed. */
static int cpu_delta(const struct disturb_snap *a, const struct disturb_snap *b, int i,
		     bool irq_time, uint64_t *others, uint64_t *total)
{
	const struct disturb_cpu *y = &b->cpus[i];
	int k = cpu_index(a, y->cpu);
	uint64_t busy, mine;

	if (k < 0 || y->total <= a->cpus[k].total)
		return -1;
	*total = y->total - a->cpus[k].total;
	busy = y->busy - a->cpus[k].busy;
	mine = own_ticks(a, b, y->cpu) +
	       (irq_time ? y->softirq - a->cpus[k].softirq : y->ksoftirqd - a->cpus[k].ksoftirqd);
	*others = busy > mine ? busy - mine : 0;
	return 0;
}

double disturb_cpu_others(const struct disturb_snap *a, const struct disturb_snap *b, int i,
			  bool irq_time)
{
	uint64_t others, total;

	if (i < 0 || i >= b->n || cpu_delta(a, b, i, irq_time, &others, &total))
		return -1;
	return (double)others / (double)total;
}

static int wanted(const int *cpus, int n_cpus, int cpu)
{
	int i;

	if (!n_cpus)
		return 1;
	for (i = 0; i < n_cpus; i++)
		if (cpus[i] == cpu)
			return 1;
	return 0;
}

int disturb_measure(const struct disturb_snap *a, const struct disturb_snap *b,
		    const int *cpus, int n_cpus, double dt_s, bool irq_time,
		    struct disturb_window *out)
{
	uint64_t all_others = 0, all_total = 0, all_steal = 0, all_irqs = 0, rx_sum = 0,
		 rx_best = 0;
	size_t o = 0;
	int i, used = 0;

	memset(out, 0, sizeof(*out));
	out->others = -1;
	out->rx_cpu = -1;
	for (i = 0; i < b->n; i++) {
		const struct disturb_cpu *y = &b->cpus[i];
		int k = cpu_index(a, y->cpu);
		uint64_t others, total, steal, irqs, rx;

		if (k < 0)
			continue;
		rx = y->net_rx - a->cpus[k].net_rx;
		rx_sum += rx;
		if (rx > rx_best) {
			rx_best = rx;
			out->rx_cpu = y->cpu;
		}
		if (!wanted(cpus, n_cpus, y->cpu) || cpu_delta(a, b, i, irq_time, &others, &total))
			continue;
		steal = y->steal - a->cpus[k].steal;
		irqs = y->irqs - a->cpus[k].irqs;
		all_others += others;
		all_total += total;
		all_steal += steal;
		all_irqs += irqs;
		used++;
		if (o < sizeof(out->text))
			o += (size_t)snprintf(out->text + o, sizeof(out->text) - o,
					      "%scpu%d others %.0f%% (steal %.0f%%), %.0f irq/s",
					      o ? "; " : "", y->cpu, 100.0 * others / total,
					      100.0 * steal / total, dt_s > 0 ? irqs / dt_s : 0);
	}
	if (rx_sum)
		out->rx_share = (double)rx_best / (double)rx_sum;
	if (!used)
		return -EINVAL;
	out->others = (double)all_others / (double)all_total;
	out->steal = (double)all_steal / (double)all_total;
	out->irq_ps = dt_s > 0 ? all_irqs / dt_s : 0;
	return 0;
}

int disturb_rx_cpus(const struct disturb_snap *a, const struct disturb_snap *b,
		    double share, int *out, int max)
{
	uint64_t sum = 0;
	int i, k, n = 0;

	for (i = 0; i < b->n; i++)
		if ((k = cpu_index(a, b->cpus[i].cpu)) >= 0)
			sum += b->cpus[i].net_rx - a->cpus[k].net_rx;
	for (i = 0; sum && i < b->n && n < max; i++) {
		k = cpu_index(a, b->cpus[i].cpu);
		if (k >= 0 && (double)(b->cpus[i].net_rx - a->cpus[k].net_rx) >= share * sum)
			out[n++] = b->cpus[i].cpu;
	}
	return n;
}
