// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* xdpgen.c - see xdpgen.h. The frame is built here in user space; the BPF program only
 * counts frames and, for several flows, rewrites the UDP source port. */
#include "xdpgen.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "xdp_gen.skel.h"
#include "latency_shared.h"
#include "xdp_gen_shared.h"
#include "xdphold.h"

#define XDPGEN_SPORT_BASE 1024
#define XDPGEN_DPORT 9			/* discard */
#define XDPGEN_REPEAT 0xfffffff0u	/* one call runs until stopped (minutes at 20 Mpps) */

struct xdpgen_thread {
	struct xdpgen *gen;
	pthread_t tid;
	int idx;
	int cpu;			/* -1 when not pinned */
};

struct xdpgen {
	struct xdpgen_config cfg;
	struct xdp_gen_bpf *skel;
	int prog_fd;
	int map_fd;
	int n_cpus;			/* possible CPUs, for the per-CPU map */
	struct xdp_gen_cpu *values;	/* n_cpus values for lookups */
	uint8_t frame[XDPGEN_MAX_SIZE];
	struct xdpgen_thread threads[XDPGEN_MAX_THREADS];
	int n_threads;			/* started */
	atomic_int stop;
	pthread_mutex_t lock;		/* guards error, error_text and paced */
	int error;
	char error_text[256];
	struct gen_paced paced[XDPGEN_MAX_THREADS];	/* paced threads' batches */
	struct gen_pace_stats pstats[XDPGEN_MAX_THREADS];	/* and their bursts */
	struct xdphold *hold;		/* paced: the program kept in the XDP dispatcher */
};

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

int xdpgen_build_frame(const struct xdpgen_config *cfg, uint16_t sport, uint8_t *buf,
		       size_t buf_len)
{
	static const uint8_t src4[4] = { 198, 19, 1, 1 }, dst4[4] = { 198, 19, 1, 2 };
	static const uint8_t src6[16] = { 0x20, 0x01, 0x00, 0x02, [15] = 1 };
	static const uint8_t dst6[16] = { 0x20, 0x01, 0x00, 0x02, [15] = 2 };
	int min = cfg->ipv6 ? XDPGEN_MIN_SIZE_V6 : XDPGEN_MIN_SIZE_V4;
	size_t size = cfg->size;
	uint8_t *ip = buf + 14, *udp;
	uint16_t udp_len;
	size_t i;

	if (cfg->size < min || cfg->size > XDPGEN_MAX_SIZE || buf_len < size)
		return -EINVAL;
	memset(buf, 0, size);
	memcpy(buf, cfg->dst_mac, 6);
	memcpy(buf + 6, cfg->src_mac, 6);
	put16(buf + 12, cfg->ipv6 ? 0x86dd : 0x0800);
	if (cfg->ipv6) {
		udp = ip + 40;
		udp_len = size - 54;
		ip[0] = 0x60;
		put16(ip + 4, udp_len);
		ip[6] = 17;			/* UDP */
		ip[7] = 64;
		memcpy(ip + 8, src6, 16);
		memcpy(ip + 24, dst6, 16);
	} else {
		udp = ip + 20;
		udp_len = size - 34;
		ip[0] = 0x45;
		put16(ip + 2, size - 14);
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, src4, 4);
		memcpy(ip + 16, dst4, 4);
		put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	}
	put16(udp, sport);
	put16(udp + 2, XDPGEN_DPORT);
	put16(udp + 4, udp_len);
	for (i = 8; i < udp_len; i++)		/* a recognisable payload */
		udp[i] = (uint8_t)i;
	if (cfg->ipv6) {
		uint32_t sum = csum_add(0, ip + 8, 32);	/* pseudo header: addresses, */
		uint16_t c;

		sum += udp_len + 17;			/* length and next header */
		sum = csum_add(sum, udp, udp_len);
		c = csum_fold(sum);
		put16(udp + 6, c ? c : 0xffff);
	}
	/* IPv4: UDP checksum 0 (none), so the per-flow port rewrite needs no fix-up. */
	return 0;
}

static void set_error(struct xdpgen *gen, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(struct xdpgen *gen, int err, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&gen->lock);
	if (!gen->error) {
		gen->error = err;
		va_start(ap, fmt);
		vsnprintf(gen->error_text, sizeof(gen->error_text), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&gen->lock);
}

static void on_sigusr1(int sig)
{
	(void)sig;
}

static void install_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;	/* no SA_RESTART: the test run returns -EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

struct xdpgen *xdpgen_new(const struct xdpgen_config *cfg, struct err *err)
{
	int min = cfg->ipv6 ? XDPGEN_MIN_SIZE_V6 : XDPGEN_MIN_SIZE_V4;
	int max_flows = 65535 - XDPGEN_SPORT_BASE;
	struct xdpgen *gen = NULL;
	int e;

	if (cfg->size < min || cfg->size > XDPGEN_MAX_SIZE) {
		err_at(err, NULL, 0, 0, "packet size %d is out of range %d..%d for '%s'",
		       cfg->size, min, XDPGEN_MAX_SIZE, cfg->ipv6 ? "udp6" : "udp4");
		e = EINVAL;
		goto fail;
	}
	if (cfg->stamp && cfg->size < min + LAT_PAYLOAD_LEN) {
		err_at(err, NULL, 0, 0, "latency: packet size %d leaves no room for the %d-byte stamp after the UDP header; at least %d for '%s'",
		       cfg->size, LAT_PAYLOAD_LEN, min + LAT_PAYLOAD_LEN, cfg->ipv6 ? "udp6" : "udp4");
		e = EINVAL;
		goto fail;
	}
	if (cfg->flows < 1 || cfg->flows > max_flows) {
		err_at(err, NULL, 0, 0, "flows %d is out of range 1..%d", cfg->flows, max_flows);
		e = EINVAL;
		goto fail;
	}
	if (cfg->burst < 0 || cfg->burst > XDPGEN_MAX_BURST) {
		err_at(err, NULL, 0, 0, "burst %d is out of range 1..%d (frames of one call)",
		       cfg->burst, XDPGEN_MAX_BURST);
		e = EINVAL;
		goto fail;
	}
	if (cfg->threads < 1 || cfg->threads > XDPGEN_MAX_THREADS) {
		err_at(err, NULL, 0, 0, "threads %d is out of range 1..%d", cfg->threads,
		       XDPGEN_MAX_THREADS);
		e = EINVAL;
		goto fail;
	}
	gen = calloc(1, sizeof(*gen));
	if (!gen) {
		err_set(err, "out of memory");
		e = ENOMEM;
		goto fail;
	}
	pthread_mutex_init(&gen->lock, NULL);
	gen->cfg = *cfg;
	xdpgen_build_frame(cfg, XDPGEN_SPORT_BASE, gen->frame, sizeof(gen->frame));
	gen->n_cpus = libbpf_num_possible_cpus();
	if (gen->n_cpus <= 0) {
		e = gen->n_cpus ? -gen->n_cpus : EINVAL;
		err_set(err, "cannot count possible cpus: %s", strerror(e));
		goto fail;
	}
	gen->values = calloc(gen->n_cpus, sizeof(*gen->values));
	gen->skel = xdp_gen_bpf__open();
	if (!gen->values || !gen->skel) {
		e = gen->values ? errno : ENOMEM;
		err_set(err, "cannot open the generator program: %s", strerror(e));
		goto fail;
	}
	gen->skel->rodata->flows = cfg->flows;
	gen->skel->rodata->sport_base = XDPGEN_SPORT_BASE;
	gen->skel->rodata->ipv6 = cfg->ipv6;
	gen->skel->rodata->stamp = cfg->stamp;
	e = xdp_gen_bpf__load(gen->skel);
	if (e) {
		e = -e;
		err_set(err, "cannot load the generator program: %s", strerror(e));
		goto fail;
	}
	gen->prog_fd = bpf_program__fd(gen->skel->progs.xdp_gen);
	gen->map_fd = bpf_map__fd(gen->skel->maps.gen_cpu);
	if (cfg->rate_pps) {
		struct err why;

		/* without it each paced call waits for two RCU grace periods (xdphold.h);
		 * with none the pacing still holds the rate, in bursts */
		gen->hold = xdphold_new(gen->prog_fd, &why);
		if (!gen->hold)
			pr_debug("xdpgen: paced calls will wait: %s", why.msg);
	}
	return gen;
fail:
	xdpgen_destroy(&gen);
	errno = e;
	return NULL;
}

/* The IDX-th CPU this process may run on (wrapping), or -1. */
static int pick_cpu(int idx)
{
	cpu_set_t set;
	int n = 0, i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	n = CPU_COUNT(&set);
	if (!n)
		return -1;
	idx %= n;
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (CPU_ISSET(i, &set) && idx-- == 0)
			return i;
	}
	return -1;
}

static void *gen_thread(void *arg)
{
	struct xdpgen_thread *t = arg;
	struct xdpgen *gen = t->gen;
	struct xdp_md ctx = {
		.data_end = gen->cfg.size,
		.ingress_ifindex = gen->cfg.ifindex,
		.rx_queue_index = 0,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = gen->frame,
		.data_size_in = gen->cfg.size,
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.repeat = XDPGEN_REPEAT,
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
	);
	struct gen_pace pace;
	sigset_t set;

	/* Only SIGUSR1 (stop) should interrupt us; leave the rest to the other threads. */
	sigfillset(&set);
	sigdelset(&set, SIGUSR1);
	pthread_sigmask(SIG_SETMASK, &set, NULL);
	if (t->cpu >= 0) {
		cpu_set_t cpus;

		CPU_ZERO(&cpus);
		CPU_SET(t->cpu, &cpus);
		if (pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus))
			pr_debug("xdpgen: cannot pin thread %d to cpu %d", t->idx, t->cpu);
	}
	gen_pace_init(&pace, gen->cfg.rate_pps, gen->cfg.threads, t->idx,
		      (uint64_t)gen->cfg.burst, XDPGEN_MAX_BURST);
	while (!atomic_load(&gen->stop)) {
		uint64_t n = gen_pace_next(&pace, XDPGEN_REPEAT);
		int err;

		if (!n)
			continue;
		opts.repeat = (uint32_t)n;
		err = bpf_prog_test_run_opts(gen->prog_fd, &opts);
		if (err == -EINTR)
			continue;
		if (err) {
			set_error(gen, err, "xdp-live test run on ifindex %d failed: %s",
				  gen->cfg.ifindex, strerror(-err));
			break;
		}
		if (pace.on) {
			pthread_mutex_lock(&gen->lock);
			gen_paced_add(&gen->paced[t->idx], &pace, n);
			gen_pace_stats_of(&pace, &gen->pstats[t->idx]);
			pthread_mutex_unlock(&gen->lock);
		}
	}
	return NULL;
}

int xdpgen_start(struct xdpgen *gen, struct err *err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int i, e;

	if (gen->n_threads)
		return -EALREADY;
	pthread_once(&once, install_handler);
	atomic_store(&gen->stop, 0);
	pthread_mutex_lock(&gen->lock);
	memset(gen->paced, 0, sizeof(gen->paced));
	memset(gen->pstats, 0, sizeof(gen->pstats));
	pthread_mutex_unlock(&gen->lock);
	for (i = 0; i < gen->cfg.threads; i++) {
		struct xdpgen_thread *t = &gen->threads[i];

		t->gen = gen;
		t->idx = i;
		t->cpu = gen->cfg.n_cpus > 0 && gen->cfg.cpus ?
			 gen->cfg.cpus[i % gen->cfg.n_cpus] : pick_cpu(i);
		e = pthread_create(&t->tid, NULL, gen_thread, t);
		if (e) {
			err_set(err, "cannot start generator thread: %s", strerror(e));
			xdpgen_stop(gen, NULL);
			return -e;
		}
		gen->n_threads++;
	}
	return 0;
}

int xdpgen_stop(struct xdpgen *gen, struct err *err)
{
	int i;

	if (!gen)
		return 0;
	atomic_store(&gen->stop, 1);
	for (i = 0; i < gen->n_threads; i++) {
		struct xdpgen_thread *t = &gen->threads[i];
		int64_t waited_ms = 0;

		/* Signal until the thread is out: a signal sent just before it entered the
		 * syscall would otherwise be lost. */
		for (;;) {
			struct timespec ts;

			pthread_kill(t->tid, SIGUSR1);
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 10 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			if (!pthread_timedjoin_np(t->tid, NULL, &ts))
				break;
			waited_ms += 10;
			if (waited_ms % 5000 == 0)
				pr_warn("xdpgen: thread %d has not stopped after %lld ms", i,
					(long long)waited_ms);
		}
	}
	gen->n_threads = 0;
	return xdpgen_error(gen, err);
}

int xdpgen_error(struct xdpgen *gen, struct err *err)
{
	int e;

	pthread_mutex_lock(&gen->lock);
	e = gen->error;
	if (e && err)
		err_set(err, "%s", gen->error_text);
	pthread_mutex_unlock(&gen->lock);
	return e;
}

int xdpgen_frames(struct xdpgen *gen, uint64_t *frames)
{
	uint32_t key = 0;
	uint64_t sum = 0;
	int i, err;

	err = bpf_map_lookup_elem(gen->map_fd, &key, gen->values);
	if (err)
		return err;
	for (i = 0; i < gen->n_cpus; i++)
		sum += gen->values[i].frames;
	*frames = sum;
	return 0;
}

int xdpgen_paced(struct xdpgen *gen, int idx, struct gen_paced *out)
{
	int err = 0;

	if (idx < 0 || idx >= XDPGEN_MAX_THREADS)
		return -ENOENT;
	pthread_mutex_lock(&gen->lock);
	if (gen->paced[idx].owed_ns)
		*out = gen->paced[idx];
	else
		err = -ENOENT;
	pthread_mutex_unlock(&gen->lock);
	return err;
}

int xdpgen_pace_stats(struct xdpgen *gen, struct gen_pace_stats *out)
{
	return gen_pace_stats_locked(&gen->lock, gen->pstats, gen->cfg.threads, out);
}

int xdpgen_set_rate(struct xdpgen *gen, uint64_t rate)
{
	struct err why;

	if (gen->n_threads)
		return -EBUSY;
	gen->cfg.rate_pps = rate;
	if (rate && !gen->hold) {
		gen->hold = xdphold_new(gen->prog_fd, &why);
		if (!gen->hold)
			pr_debug("xdpgen: paced calls will wait: %s", why.msg);
	}
	return 0;
}

int xdpgen_prog_fd(const struct xdpgen *gen)
{
	return gen->prog_fd;
}

void xdpgen_destroy(struct xdpgen **genp)
{
	struct xdpgen *gen = *genp;

	if (!gen)
		return;
	xdpgen_stop(gen, NULL);
	xdphold_destroy(&gen->hold);
	xdp_gen_bpf__destroy(gen->skel);
	free(gen->values);
	pthread_mutex_destroy(&gen->lock);
	free(gen);
	*genp = NULL;
}

void xdpgen_config_of(const struct gen_config *cfg, struct xdpgen_config *out)
{
	*out = (struct xdpgen_config){
		.ifindex = cfg->ifindex, .size = cfg->size, .ipv6 = cfg->ipv6,
		.flows = cfg->flows, .threads = cfg->threads, .cpus = cfg->cpus,
		.n_cpus = cfg->n_cpus, .rate_pps = cfg->rate_pps, .burst = cfg->burst,
		.stamp = cfg->stamp,
	};
	memcpy(out->src_mac, cfg->src_mac, 6);
	memcpy(out->dst_mac, cfg->dst_mac, 6);
}

static void *xdpgen_gen_new(const struct gen_config *cfg, struct err *err)
{
	struct xdpgen_config xc;

	xdpgen_config_of(cfg, &xc);
	return xdpgen_new(&xc, err);
}

static int xdpgen_gen_paced(void *g, int idx, struct gen_paced *out)
{
	return xdpgen_paced(g, idx, out);
}

GEN_OPS_ADAPTERS(xdpgen)
GEN_OPS_PACE_ADAPTERS(xdpgen)
const struct gen_ops xdpgen_ops = {
	.name = "xdp-live", .unpinned = GEN_UNPINNED_ALLOWED, .veth_needs_napi = true,
	.new = xdpgen_gen_new, .start = xdpgen_gen_start, .frames = xdpgen_gen_frames,
	.error = xdpgen_gen_error, .stop = xdpgen_gen_stop, .destroy = xdpgen_gen_destroy,
	.paced = xdpgen_gen_paced, .set_rate = xdpgen_gen_set_rate,
	.pace_stats = xdpgen_gen_pace_stats,
};
