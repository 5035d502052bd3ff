// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* udpgen.c - see udpgen.h. With cfg.stamp each thread sends copies of the frames with a
 * latency stamp after the UDP header (bpf/latency_shared.h): stream its index, seq its
 * frame number, ts CLOCK_MONOTONIC (bpf_ktime_get_ns()'s clock) read once per sendmmsg()
 * batch, so a frame's latency includes its wait in the batch. */
#include "udpgen.h"

#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "latency_shared.h"
#include "xdpgen.h"

#define UDPGEN_BATCH 64
#define UDPGEN_MAX_FRAMES 256	/* distinct frames kept; flows beyond cycle through them */

struct udpgen_thread {
	struct udpgen *gen;
	pthread_t tid;
	int idx;
	int fd;
	atomic_uint_fast64_t sent;
};

struct udpgen {
	struct xdpgen_config cfg;	/* udpgen_config's fields */
	uint8_t *frames;		/* n_frames x cfg.size */
	int n_frames;
	struct udpgen_thread threads[64];
	int n_threads;
	struct gen_pace_stats pstats[64];	/* paced threads' bursts, under lock */
	atomic_int stop;
	atomic_int error;		/* first -errno a thread met */
	char error_text[256];
	pthread_mutex_t lock;
};

/* udpgen_new() with CFG as xdpgen's config (the same fields; the frames are built by
 * xdpgen_build_frame()). */
static struct udpgen *create(const struct xdpgen_config *cfg, struct err *err)
{
	struct udpgen *gen;
	int i, e;

	gen = gen_alloc(sizeof(*gen), cfg->threads, cfg->flows,
			cfg->burst < 0 || cfg->burst > UDPGEN_BATCH,
			"udp generator: threads 1..64, flows 1..65535 and burst 1..64 (one sendmmsg) expected",
			err);
	if (!gen)
		return NULL;
	gen->cfg = *cfg;
	pthread_mutex_init(&gen->lock, NULL);
	if (cfg->stamp && cfg->size < (cfg->ipv6 ? XDPGEN_MIN_SIZE_V6 : XDPGEN_MIN_SIZE_V4) +
				      LAT_PAYLOAD_LEN) {
		err_at(err, NULL, 0, 0, "latency: packet size %d leaves no room for the %d-byte stamp after the UDP header",
		       cfg->size, LAT_PAYLOAD_LEN);
		e = EINVAL;
		goto fail;
	}
	gen->n_frames = cfg->flows < UDPGEN_MAX_FRAMES ? cfg->flows : UDPGEN_MAX_FRAMES;
	gen->frames = calloc(gen->n_frames, cfg->size);
	if (!gen->frames) {
		err_set(err, "out of memory");
		e = ENOMEM;
		goto fail;
	}
	for (i = 0; i < gen->n_frames; i++) {
		e = -xdpgen_build_frame(cfg, (uint16_t)(1024 + i), gen->frames + i * cfg->size,
					cfg->size);
		if (e) {
			err_at(err, NULL, 0, 0, "udp generator: cannot build a %d-byte %s frame",
			       cfg->size, cfg->ipv6 ? "udp6" : "udp4");
			goto fail;
		}
	}
	for (i = 0; i < 64; i++)
		gen->threads[i].fd = -1;
	return gen;
fail:
	udpgen_destroy(&gen);
	errno = e;
	return NULL;
}

struct udpgen *udpgen_new(const struct udpgen_config *cfg, struct err *err)
{
	struct xdpgen_config xc;

	memset(&xc, 0, sizeof(xc));
	xc.ifindex = cfg->ifindex;
	memcpy(xc.src_mac, cfg->src_mac, 6);
	memcpy(xc.dst_mac, cfg->dst_mac, 6);
	xc.size = cfg->size;
	xc.ipv6 = cfg->ipv6;
	xc.flows = cfg->flows;
	xc.threads = cfg->threads;
	xc.cpus = cfg->cpus;
	xc.n_cpus = cfg->n_cpus;
	xc.rate_pps = cfg->rate_pps;
	xc.burst = cfg->burst;
	return create(&xc, err);
}

static void set_error(struct udpgen *gen, int e, const char *what)
{
	int zero = 0;

	pthread_mutex_lock(&gen->lock);
	if (atomic_compare_exchange_strong(&gen->error, &zero, e))
		snprintf(gen->error_text, sizeof(gen->error_text), "udp generator: %s: %s", what,
			 strerror(-e));
	pthread_mutex_unlock(&gen->lock);
}

void udpgen_stamp_frame(const struct xdpgen_config *cfg, uint8_t *frame, uint16_t stream,
			uint32_t seq, uint64_t ts)
{
	uint8_t *udp = frame + (cfg->ipv6 ? XDPGEN_MIN_SIZE_V6 : XDPGEN_MIN_SIZE_V4) - 8;
	struct lat_payload pl = { .magic = LAT_MAGIC, .stream = stream, .seq = seq, .ts_ns = ts };
	uint8_t *old = udp + 8, *new = (uint8_t *)&pl;
	uint32_t sum;
	int i;

	if (cfg->ipv6) {
		sum = (uint16_t)~(udp[6] << 8 | udp[7]);
		for (i = 0; i < LAT_PAYLOAD_LEN; i += 2)
			sum += (uint16_t)~(old[i] << 8 | old[i + 1]) + (uint32_t)(new[i] << 8 | new[i + 1]);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		sum = (uint16_t)~sum ? (uint16_t)~sum : 0xffff;
		udp[6] = (uint8_t)(sum >> 8);
		udp[7] = (uint8_t)sum;
	}
	memcpy(old, &pl, sizeof(pl));
}

static void *udp_thread(void *arg)
{
	struct udpgen_thread *t = arg;
	struct udpgen *gen = t->gen;
	struct mmsghdr msgs[UDPGEN_BATCH];
	struct iovec iov[UDPGEN_BATCH];
	struct sockaddr_ll to = {
		.sll_family = AF_PACKET,
		.sll_ifindex = gen->cfg.ifindex,
		.sll_halen = 6,
	};
	int next = t->idx % gen->n_frames, i;
	struct gen_pace pace;
	uint64_t pending = 0;	/* frames the pacing allowed and not yet sent */
	uint8_t *stamped = NULL;	/* cfg.stamp: the batch's stamped copies */
	struct timespec now;

	memcpy(to.sll_addr, gen->cfg.dst_mac, 6);
	if (gen->cfg.n_cpus > 0 && gen->cfg.cpus) {
		cpu_set_t cpus;

		CPU_ZERO(&cpus);
		CPU_SET(gen->cfg.cpus[t->idx % gen->cfg.n_cpus], &cpus);
		if (pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus))
			pr_debug("udpgen: cannot pin thread %d", t->idx);
	}
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < UDPGEN_BATCH; i++) {
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &to;
		msgs[i].msg_hdr.msg_namelen = sizeof(to);
		iov[i].iov_len = gen->cfg.size;
	}
	if (gen->cfg.stamp && !(stamped = malloc((size_t)UDPGEN_BATCH * gen->cfg.size))) {
		set_error(gen, -ENOMEM, "stamped frames");
		return NULL;
	}
	gen_pace_init(&pace, gen->cfg.rate_pps, gen->cfg.threads, t->idx,
		      (uint64_t)gen->cfg.burst, UDPGEN_BATCH);
	while (!atomic_load(&gen->stop)) {
		int n;

		if (!pending || !pace.on)
			pending = gen_pace_next(&pace, UDPGEN_BATCH);
		if (!pending)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		for (i = 0; i < (int)pending; i++) {
			iov[i].iov_base = gen->frames + next * gen->cfg.size;
			next = (next + 1) % gen->n_frames;
			if (!stamped)
				continue;
			memcpy(stamped + i * gen->cfg.size, iov[i].iov_base, gen->cfg.size);
			iov[i].iov_base = stamped + i * gen->cfg.size;
			/* seq: the frame's number among those sent (a frame sendmmsg() did
			 * not take is stamped again with the same number) */
			udpgen_stamp_frame(&gen->cfg, iov[i].iov_base, (uint16_t)t->idx,
				    (uint32_t)(atomic_load(&t->sent) + (uint64_t)i),
				    (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec);
		}
		n = sendmmsg(t->fd, msgs, (unsigned int)pending, 0);
		if (n < 0) {
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
				sched_yield();
				continue;
			}
			set_error(gen, -errno, "sendmmsg");
			break;
		}
		atomic_fetch_add(&t->sent, (uint_fast64_t)n);
		pending -= (uint64_t)n;
		if (pace.on) {
			pthread_mutex_lock(&gen->lock);
			gen_pace_stats_of(&pace, &gen->pstats[t->idx]);
			pthread_mutex_unlock(&gen->lock);
		}
	}
	free(stamped);
	return NULL;
}

int udpgen_start(struct udpgen *gen, struct err *err)
{
	int i, e;

	if (gen->n_threads)
		return -EALREADY;
	atomic_store(&gen->stop, 0);
	pthread_mutex_lock(&gen->lock);
	memset(gen->pstats, 0, sizeof(gen->pstats));
	pthread_mutex_unlock(&gen->lock);
	for (i = 0; i < gen->cfg.threads; i++) {
		struct udpgen_thread *t = &gen->threads[i];
		struct sockaddr_ll sll = {
			.sll_family = AF_PACKET,
			.sll_protocol = 0,	/* send only: receive nothing */
			.sll_ifindex = gen->cfg.ifindex,
		};

		t->gen = gen;
		t->idx = i;
		t->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
		if (t->fd < 0 || bind(t->fd, (struct sockaddr *)&sll, sizeof(sll))) {
			e = -errno;
			err_set(err, "udp generator: cannot open a packet socket on ifindex %d: %s",
				gen->cfg.ifindex, strerror(-e));
			udpgen_stop(gen, NULL);
			return e;
		}
		e = pthread_create(&t->tid, NULL, udp_thread, t);
		if (e) {
			err_set(err, "cannot start generator thread: %s", strerror(e));
			udpgen_stop(gen, NULL);
			return -e;
		}
		gen->n_threads++;
	}
	return 0;
}

int udpgen_stop(struct udpgen *gen, struct err *err)
{
	int i;

	if (!gen)
		return 0;
	atomic_store(&gen->stop, 1);
	for (i = 0; i < gen->n_threads; i++)
		pthread_join(gen->threads[i].tid, NULL);
	gen->n_threads = 0;
	for (i = 0; i < 64; i++) {
		if (gen->threads[i].fd >= 0)
			close(gen->threads[i].fd);
		gen->threads[i].fd = -1;
	}
	return err ? udpgen_error(gen, err) : 0;
}

int udpgen_frames(struct udpgen *gen, uint64_t *frames)
{
	int i;

	*frames = 0;
	for (i = 0; i < gen->cfg.threads && i < 64; i++)
		*frames += atomic_load(&gen->threads[i].sent);
	return 0;
}

int udpgen_error(struct udpgen *gen, struct err *err)
{
	int e = atomic_load(&gen->error);

	if (e && err) {
		pthread_mutex_lock(&gen->lock);
		err_set(err, "%s", gen->error_text);
		pthread_mutex_unlock(&gen->lock);
	}
	return e;
}

void udpgen_destroy(struct udpgen **genp)
{
	struct udpgen *gen = *genp;

	if (!gen)
		return;
	udpgen_stop(gen, NULL);
	pthread_mutex_destroy(&gen->lock);
	free(gen->frames);
	free(gen);
	*genp = NULL;
}

int udpgen_pace_stats(struct udpgen *gen, struct gen_pace_stats *out)
{
	return gen_pace_stats_locked(&gen->lock, gen->pstats, gen->cfg.threads, out);
}

int udpgen_set_rate(struct udpgen *gen, uint64_t rate)
{
	if (gen->n_threads)
		return -EBUSY;
	gen->cfg.rate_pps = rate;
	return 0;
}

static void *udpgen_gen_new(const struct gen_config *cfg, struct err *err)
{
	struct xdpgen_config xc;

	xdpgen_config_of(cfg, &xc);
	return create(&xc, err);
}

GEN_OPS_ADAPTERS(udpgen)
GEN_OPS_PACE_ADAPTERS(udpgen)
const struct gen_ops udpgen_ops = {
	.name = "udp", .unpinned = GEN_UNPINNED_FREE, .veth_needs_napi = false,
	.new = udpgen_gen_new, .start = udpgen_gen_start, .frames = udpgen_gen_frames,
	.error = udpgen_gen_error, .stop = udpgen_gen_stop, .destroy = udpgen_gen_destroy,
	.set_rate = udpgen_gen_set_rate, .pace_stats = udpgen_gen_pace_stats,
};
