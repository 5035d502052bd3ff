// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* pktgen.c - see pktgen.h. */
#include "pktgen.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

struct pktgen {
	struct pktgen_config cfg;
	char dir[PATH_MAX / 2];
	int thread_cpu[64];		/* kpktgend_N of each device */
	bool configured;
	pthread_t starter;
	bool running;
	atomic_int start_done;		/* the "start" write returned */
	int start_err;			/* -errno of the "start" write */
};

/* Write one command to DIR/FILE (O_APPEND: procfs ignores it, a stand-in keeps every
 * command). Returns 0 or -errno. */
static int pg_write(const struct pktgen *gen, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int pg_write(const struct pktgen *gen, const char *file, const char *fmt, ...)
{
	char path[PATH_MAX], cmd[256];
	va_list ap;
	ssize_t n;
	int fd, e = 0, len;

	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd) - 1, fmt, ap);
	va_end(ap);
	cmd[len++] = '\n';
	snprintf(path, sizeof(path), "%s/%s", gen->dir, file);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, len);
	if (n < 0)
		e = -errno;
	close(fd);
	pr_debug("pktgen: %s: %.*s", file, len - 1, cmd);
	return e;
}

static int cpu_of(const struct pktgen_config *cfg, int i)
{
	return cfg->n_cpus > 0 && cfg->cpus ? cfg->cpus[i % cfg->n_cpus] : i;
}

/* With a rate: device DEV of thread IDX at its share. Without a burst, pktgen's own
 * pacing ("ratep", frames per second, at least 1); with burst B, B frames back to back
 * every "delay" B x 1e9 / share ns (pktgen waits its delay once per burst). */
static int set_rate(struct pktgen *gen, const char *dev, int idx)
{
	uint64_t r = gen_thread_rate(gen->cfg.rate_pps, gen->cfg.threads, idx);

	if (!gen->cfg.rate_pps)
		return 0;
	r = r ? r : 1;
	if (gen->cfg.burst > 0)
		return pg_write(gen, dev, "delay %llu",
				(unsigned long long)((uint64_t)gen->cfg.burst * 1000000000ULL / r));
	return pg_write(gen, dev, "ratep %llu", (unsigned long long)r);
}

struct pktgen *pktgen_new(const struct pktgen_config *cfg, struct err *err)
{
	char path[PATH_MAX], dev[64];
	struct pktgen *gen;
	const uint8_t *m = cfg->dst_mac;
	int i, e = 0;

	gen = gen_alloc(sizeof(*gen), cfg->threads, cfg->flows, !cfg->ifname,
			"pktgen: threads 1..64, flows 1..65535 and a port expected", err);
	if (!gen)
		return NULL;
	gen->cfg = *cfg;
	snprintf(gen->dir, sizeof(gen->dir), "%s", cfg->dir ? cfg->dir : PKTGEN_DIR);
	snprintf(path, sizeof(path), "%s/pgctrl", gen->dir);
	if (access(path, W_OK)) {
		err_set(err, "generator 'pktgen' needs the pktgen module (%s is missing)",
			gen->dir);
		e = ENOENT;
		goto fail;
	}
	/* every thread first, so that no device is left on a thread from an earlier job */
	for (i = 0; i < cfg->threads && !e; i++) {
		char thread[32];

		gen->thread_cpu[i] = cpu_of(cfg, i);
		snprintf(thread, sizeof(thread), "kpktgend_%d", gen->thread_cpu[i]);
		e = -pg_write(gen, thread, "rem_device_all");
		if (e)
			err_set(err, "pktgen: cannot write to '%s/%s': %s", gen->dir, thread,
				strerror(e));
	}
	gen->configured = true;
	for (i = 0; i < cfg->threads && !e; i++) {
		char thread[32];

		snprintf(thread, sizeof(thread), "kpktgend_%d", gen->thread_cpu[i]);
		snprintf(dev, sizeof(dev), "%s@%d", cfg->ifname, i);
		e = -pg_write(gen, thread, "add_device %s", dev);
		if (!e)
			e = -(pg_write(gen, dev, "count 0") ?: pg_write(gen, dev, "clone_skb 0") ?:
			      pg_write(gen, dev, "burst %d", cfg->burst > 0 ? cfg->burst : 1) ?: pg_write(gen, dev, "delay 0") ?:
			      pg_write(gen, dev, "pkt_size %d", cfg->size) ?:
			      pg_write(gen, dev, "dst_mac %02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
				       m[2], m[3], m[4], m[5]) ?:
			      (cfg->ipv6 ? pg_write(gen, dev, "src6 2001:2::1") ?:
					   pg_write(gen, dev, "dst6 2001:2::2") :
					   pg_write(gen, dev, "src_min 198.19.1.1") ?:
					   pg_write(gen, dev, "src_max 198.19.1.1") ?:
					   pg_write(gen, dev, "dst 198.19.1.2")) ?:
			      pg_write(gen, dev, "udp_src_min 1024") ?:
			      pg_write(gen, dev, "udp_src_max %d", 1024 + cfg->flows - 1) ?:
			      pg_write(gen, dev, "udp_dst_min 9") ?:
			      pg_write(gen, dev, "udp_dst_max 9") ?: set_rate(gen, dev, i));
		if (e)
			err_set(err, "pktgen: cannot configure device '%s': %s", dev,
				strerror(e));
	}
	if (e)
		goto fail;
	return gen;
fail:
	pktgen_destroy(&gen);
	errno = e;
	return NULL;
}

static void *start_thread(void *arg)
{
	struct pktgen *gen = arg;

	/* blocks in the kernel until the run is stopped */
	gen->start_err = pg_write(gen, "pgctrl", "start");
	atomic_store(&gen->start_done, 1);
	return NULL;
}

int pktgen_start(struct pktgen *gen, struct err *err)
{
	int e;

	if (gen->running)
		return -EALREADY;
	e = pthread_create(&gen->starter, NULL, start_thread, gen);
	if (e) {
		err_set(err, "cannot start the pktgen thread: %s", strerror(e));
		return -e;
	}
	gen->running = true;
	return 0;
}

int pktgen_stop(struct pktgen *gen, struct err *err)
{
	int e, i;

	if (!gen || !gen->running)
		return 0;
	/* A "stop" that reaches pktgen before the "start" does is lost, and the start
	 * would then run for ever: repeat it until the start write has returned (10 s at
	 * most; then the thread is left and the error says so). */
	e = pg_write(gen, "pgctrl", "stop");
	for (i = 0; !e && i < 100 && !atomic_load(&gen->start_done); i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		if (!atomic_load(&gen->start_done))
			e = pg_write(gen, "pgctrl", "stop");
	}
	if (!atomic_load(&gen->start_done)) {
		if (err)
			err_set(err, "pktgen: cannot stop: %s",
				e ? strerror(-e) : "still running after 10 s");
		return e ? e : -ETIMEDOUT;
	}
	pthread_join(gen->starter, NULL);
	gen->running = false;
	if (!e)
		e = gen->start_err;
	if (e && err)
		err_set(err, "pktgen: cannot %s: %s", gen->start_err ? "start" : "stop",
			strerror(-e));
	return e;
}

int pktgen_frames(struct pktgen *gen, uint64_t *frames)
{
	char path[PATH_MAX], line[512];
	int i;

	*frames = 0;
	for (i = 0; i < gen->cfg.threads; i++) {
		const char *p;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s@%d", gen->dir, gen->cfg.ifname, i);
		f = fopen(path, "re");
		if (!f)
			return -errno;
		while (fgets(line, sizeof(line), f)) {
			p = strstr(line, "pkts-sofar:");
			if (p)
				*frames += strtoull(p + 11, NULL, 10);
		}
		fclose(f);
	}
	return 0;
}

void pktgen_destroy(struct pktgen **genp)
{
	struct pktgen *gen = *genp;
	int i;

	if (!gen)
		return;
	pktgen_stop(gen, NULL);
	for (i = 0; gen->configured && i < gen->cfg.threads; i++) {
		char thread[32];

		snprintf(thread, sizeof(thread), "kpktgend_%d", gen->thread_cpu[i]);
		pg_write(gen, thread, "rem_device_all");
	}
	free(gen);
	*genp = NULL;
}

int pktgen_error(struct pktgen *gen, struct err *err)
{
	return 0;
}

static void *pktgen_gen_new(const struct gen_config *cfg, struct err *err)
{
	struct pktgen_config pc = {
		.dir = cfg->ctl_dir, .ifname = cfg->ifname, .size = cfg->size,
		.ipv6 = cfg->ipv6, .flows = cfg->flows, .threads = cfg->threads,
		.cpus = cfg->cpus, .n_cpus = cfg->n_cpus, .rate_pps = cfg->rate_pps,
		.burst = cfg->burst,
	};

	memcpy(pc.dst_mac, cfg->dst_mac, 6);
	return pktgen_new(&pc, err);
}

GEN_OPS_DEFINE(pktgen, "pktgen", GEN_UNPINNED_INDEX, false);
