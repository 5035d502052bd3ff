/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* gen.h - the traffic generator interface: what the job runner (job_traffic.c) knows of a
 * generator.
 *
 * A generator is one file (xdpgen.c, udpgen.c, pktgen.c) that keeps its own typed API
 * (xdpgen.h ...) and exports one `const struct gen_ops NAME_ops`; the job runner finds it
 * by the spec's traffic.generator name in its table (job_traffic.c, gen_table). Adding a
 * generator is one new file and one table entry (and its name in jobspec.h).
 *
 * Life of a generator, all from one thread: new (check the config, build frames, load
 * programs; nothing is sent) -> start -> frames/error as often as wanted -> stop ->
 * destroy. Ownership: new returns an object the caller owns until destroy; CFG is
 * borrowed by new only, except cfg->cpus, which must live as long as the generator.
 * Errors: 0 or -errno (NULL and errno for new), with the message in ERR (base/err.h;
 * NULL allowed); a config the job's spec got wrong (threads, flows, size) is input.
 */
#ifndef BPFLAB_AGENT_GEN_H
#define BPFLAB_AGENT_GEN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tbucket.h"

#define GEN_MAX_THREADS 64
#define GEN_MAX_FLOWS 65535

/* What every generator is told: the union of what each needs. */
struct gen_config {
	const char *ifname;	/* the port frames leave from */
	int ifindex;		/* the same port */
	uint8_t src_mac[6];	/* usually the port's own MAC */
	uint8_t dst_mac[6];	/* usually the peer's MAC */
	int size;		/* frame bytes without FCS */
	bool ipv6;		/* udp6, else udp4 */
	int flows;		/* distinct UDP source ports, 1 .. GEN_MAX_FLOWS */
	int threads;		/* 1 .. GEN_MAX_THREADS */
	const int *cpus;	/* pin thread i to cpus[i % n_cpus] (borrowed while the
				 * generator lives); NULL: gen_ops.unpinned */
	int n_cpus;
	const char *ctl_dir;	/* a generator's control files (pktgen's /proc/net/pktgen),
				 * NULL: its default; for tests */
	uint64_t rate_pps;	/* frames per second over all threads (traffic.rate), each
				 * thread its share (gen_thread_rate); 0: full speed */
	int burst;		/* traffic.burst: frames back to back at most, 1..a call's
				 * most; 0: auto, 250 us of frames (gen_pace) */
	bool stamp;		/* a latency stamp in each frame (bpf/latency_shared.h):
				 * xdp-live, udp; pktgen ignores it (job_latency.c
				 * refuses pktgen) */
};

/* Where a generator's threads run when the config names no CPUs. */
enum gen_unpinned {
	GEN_UNPINNED_FREE,	/* not pinned: wherever the scheduler puts them */
	GEN_UNPINNED_INDEX,	/* thread i on CPU i */
	GEN_UNPINNED_ALLOWED,	/* thread i on the i-th CPU (modulo) this process may use */
};

struct gen_paced;
struct gen_pace_stats;

struct gen_ops {
	const char *name;		/* the spec's traffic.generator */
	enum gen_unpinned unpinned;
	/* its frames are refused by a veth whose peer does not run NAPI, without any
	 * counter saying so (xdp-live): the job checks the port's tx count against them */
	bool veth_needs_napi;
	/* a new generator for CFG, or NULL with errno set and ERR filled */
	void *(*new)(const struct gen_config *cfg, struct err *err);
	int (*start)(void *gen, struct err *err);
	/* frames sent since new into *FRAMES; exact at the moment of the call */
	int (*frames)(void *gen, uint64_t *frames);
	/* the first error a thread met while running (0 while all is well), ERR set */
	int (*error)(void *gen, struct err *err);
	/* stop and join; safe when not started; 0 or the first error met (ERR set) */
	int (*stop)(void *gen, struct err *err);
	/* stop if running and free; NULL is fine */
	void (*destroy)(void *gen);
	/* thread IDX's struct gen_paced into *OUT: 0, or -ENOENT (not started, not paced,
	 * IDX out of range); NULL for a generator that keeps none (udp: its calls return at
	 * once, so its frames count measures the rate at a window's edges) */
	int (*paced)(void *gen, int idx, struct gen_paced *out);
	/* set the rate of a stopped generator (the next start paces at RATE, 0: full
	 * speed): a search's trials reuse one generator; NULL: make a new one */
	int (*set_rate)(void *gen, uint64_t rate);
	/* its paced threads' bursts and shortfall since the last start into *OUT (summed
	 * over threads, burst the largest); NULL or -ENOENT: none kept */
	int (*pace_stats)(void *gen, struct gen_pace_stats *out);
};

/* The gen_ops of generator P: `const struct gen_ops P_ops`, named NAME, for a generator
 * whose typed API is P_start(struct P *, struct err *), P_stop, P_error,
 * P_frames(struct P *, uint64_t *) and P_destroy(struct P **), and which defines
 * `static void *P_gen_new(const struct gen_config *, struct err *)` before. */
#define GEN_OPS_DEFINE(P, NAME, UNPINNED, VETH_NEEDS_NAPI)			\
	GEN_OPS_ADAPTERS(P)							\
	const struct gen_ops P##_ops = {					\
		.name = NAME, .unpinned = UNPINNED,				\
		.veth_needs_napi = VETH_NEEDS_NAPI, .new = P##_gen_new,		\
		.start = P##_gen_start, .frames = P##_gen_frames,		\
		.error = P##_gen_error, .stop = P##_gen_stop,			\
		.destroy = P##_gen_destroy,					\
	}

/* The adapters GEN_OPS_DEFINE() fills the ops with: static P_gen_start ...
 * P_gen_destroy, each calling the typed function. */
#define GEN_OPS_ADAPTERS(P)							\
	static int P##_gen_start(void *g, struct err *err)			\
	{ return P##_start(g, err); }						\
	static int P##_gen_frames(void *g, uint64_t *frames)			\
	{ return P##_frames(g, frames); }					\
	static int P##_gen_error(void *g, struct err *err)			\
	{ return P##_error(g, err); }						\
	static int P##_gen_stop(void *g, struct err *err)			\
	{ return P##_stop(g, err); }						\
	static void P##_gen_destroy(void *g)					\
	{ struct P *p = g; P##_destroy(&p); }

/* The adapters of a paced generator's set_rate and pace_stats: static P_gen_set_rate
 * and P_gen_pace_stats, calling P_set_rate(struct P *, uint64_t) and
 * P_pace_stats(struct P *, struct gen_pace_stats *). */
#define GEN_OPS_PACE_ADAPTERS(P)						\
	static int P##_gen_set_rate(void *g, uint64_t rate)			\
	{ return P##_set_rate(g, rate); }					\
	static int P##_gen_pace_stats(void *g, struct gen_pace_stats *out)	\
	{ return P##_pace_stats(g, out); }

/* The start of a generator's _new(): a zeroed object of SIZE bytes. When THREADS or FLOWS
 * is out of range (or BAD is true): NULL, errno EINVAL and USAGE in ERR (input); out of
 * memory: NULL, errno ENOMEM and "out of memory" in ERR. */
void *gen_alloc(size_t size, int threads, int flows, bool bad, const char *usage,
		struct err *err);

/* Thread IDX's share of RATE frames/s over THREADS threads: RATE / THREADS, the
 * remainder one each to the first threads (so the shares add up to RATE). */
uint64_t gen_thread_rate(uint64_t rate, int threads, int idx);

/* One sending thread's pacing (xdpgen.c, udpgen.c): its share of the rate as a token
 * bucket that starts empty and holds at most BURST frames (the cap). The thread wakes
 * every GEN_PACE_INTERVAL_NS of frames (PER frames, at least 1, at most BURST) on an
 * absolute deadline (the time the bucket holds PER: clock_nanosleep TIMER_ABSTIME to a
 * margin before it, the mean lateness of a wake-up up to a quarter of the interval, then
 * a spin to it), so a late wake-up is not carried into the next one, and then takes all
 * the bucket holds (at most BURST and what one call can send). A wake-up up to
 * (BURST - PER) frames' time late is thus carried in full, in one burst of at most BURST
 * frames; what flows in while the bucket is full (a thread held up longer) is its
 * shortfall, counted (SPILLED), and its record (struct gen_paced) then falls short of
 * the rate (generator-bound). BURST is traffic.burst, or with 0 (auto) the frames of
 * GEN_PACE_AUTO_CAP_NS at the thread's rate (at least PER, at most what one call can
 * send): a device with a buffer of 1 ms of frames at the rate absorbs it 4 times over.
 * Timer slack 1 us (the default 50 us would bunch frames above 20000/s). The bucket
 * holds a frame more than BURST (a fraction carried over a take is no shortfall).
 *
 * A hold-up: more than GEN_PACE_HELD_NS, and more than the burst's time (a shorter gap
 * spills nothing), between two takes that the thread did not ask to sleep (a call and a
 * wake-up together), and more than GEN_PACE_HELD_FACTOR times
 * what the call's frames cost at the mean of the thread's earlier gaps (quiet, in
 * SCHED_FIFO, a call of up to 256 frames takes at most 0.4 ms, bench/README.md
 * "pacing"; a flat-out call of 3500 frames into the stack takes ms): the thread was kept
 * from its CPU (the hypervisor's steal, a higher class, a lock in the kernel such as the
 * XDP dispatcher's mutex). What spilled over such a gap is counted apart (HELD), so that
 * a rate missed because of it is a disturbed measurement, not the generator's limit
 * (verdict.h). A thread that
 * runs GENBOOST_FLAT_NS of its own time (hold-ups not counted) without once being
 * ahead of its deadline is flat out (genboost.h). */
#define GEN_PACE_INTERVAL_NS 100000LL	/* 100 us: an xdp-live call of 1-64 frames takes
					 * 7-20 us (bench/pacing --calls) */
#define GEN_PACE_AUTO_CAP_NS 250000LL	/* auto BURST: 250 us of frames */
#define GEN_PACE_HELD_NS 250000LL	/* a gap between takes longer than this ... */
#define GEN_PACE_HELD_FACTOR 4		/* ... and this times its frames' cost: held up */
struct gen_pace {
	bool on;		/* false: full speed */
	bool auto_burst;	/* traffic.burst 0: BURST from the rate */
	uint64_t rate;		/* the thread's frames/s */
	uint64_t burst;		/* frames at most per take (the cap) */
	uint64_t per;		/* frames one wake-up owes (GEN_PACE_INTERVAL_NS of them) */
	struct tbucket tb;
	int64_t start_ns;	/* the bucket's start (empty) */
	int64_t take_ns;	/* the clock at the last take (the bucket then held < 1 frame) */
	int64_t late_ns;	/* running mean of a sleep's lateness (the spin's margin) */
	uint64_t max_taken;	/* the largest take: the burst used */
	bool rt;		/* in the real-time class (genboost.h) */
	int64_t mark_ns;	/* the clock at the last take (or the start) */
	uint64_t mark_spilled;	/* tb.spilled then */
	int64_t slept_ns;	/* sleep asked for since (gen_pace_slept) */
	int64_t busy_ns;	/* own time since it was last ahead of its deadline (or
				 * asked to sleep), hold-ups out */
	uint64_t last_n;	/* frames of the last take (the call since) */
	int64_t frame_ns;	/* running mean of own time a frame (0: none yet) */
	int64_t held_min_ns;	/* a hold-up is longer: GEN_PACE_HELD_NS or the burst's
				 * time, whichever is more */
	uint64_t held;		/* frames spilled over hold-ups */
	uint64_t held_n;	/* hold-ups */
	int64_t held_ns;	/* their time */
};

/* What paced threads report of their pacing (gen_ops.pace_stats): the largest burst a
 * thread used and the frames the threads owed but could not send on time. */
struct gen_pace_stats {
	uint64_t burst;
	uint64_t shortfall;
	bool auto_burst;	/* BURST was found, not asked */
	uint64_t held;		/* of the shortfall, frames spilled over hold-ups */
	uint64_t held_n;	/* hold-ups (struct gen_pace) */
	int64_t held_ns;	/* their time */
};

/* What a paced thread sent in its finished batches, and by when they were owed: FRAMES
 * taken from its bucket and sent in full since START_NS, OWED_NS the clock at the last of
 * those takes. FRAMES / (OWED_NS - START_NS) is the rate the thread held, to a frame,
 * however long each call took: an xdp-live call with repeat > 1 waits for two RCU grace
 * periods in the kernel (the XDP dispatcher's update) and then sends what the bucket
 * filled meanwhile, so the frames come in bursts 16-70 ms apart on a busy 2-CPU host and
 * a window's edges cut them (bench/README.md, "search"). A thread held up beyond the
 * burst loses tokens: FRAMES then fall short of the rate. */
struct gen_paced {
	uint64_t frames;
	int64_t start_ns;
	int64_t owed_ns;	/* 0: no record */
};

/* Pace thread IDX of THREADS at its share of RATE (0: off) in bursts of at most BURST
 * frames (0: auto), of which one call can send MAX_BURST; its clock starts at NOW_NS. */
void gen_pace_init_at(struct gen_pace *p, uint64_t rate, int threads, int idx,
		      uint64_t burst, uint64_t max_burst, int64_t now_ns);
/* gen_pace_init_at() at the monotonic clock's now, the thread's timer slack 1 us and,
 * paced, the thread in SCHED_FIFO (genboost.h). */
void gen_pace_init(struct gen_pace *p, uint64_t rate, int threads, int idx, uint64_t burst,
		   uint64_t max_burst);
/* The clock (ns) at which P's bucket holds the PER frames of a wake-up (NOW_NS when it
 * does already): the thread's next deadline. */
int64_t gen_pace_deadline(struct gen_pace *p, int64_t now_ns);
/* Take what the bucket holds at NOW_NS, at most the burst and MAX (0 when not a whole
 * frame): the frames the thread sends now. The gap since the last take, less the sleep
 * asked for in it, is a hold-up when longer than held_min_ns (counted, with what
 * spilled over it), else the thread's own time (flat-out check). */
uint64_t gen_pace_take(struct gen_pace *p, int64_t now_ns, uint64_t max);
/* The thread asked to sleep NS (gen_pace_next; by hand in tests). */
void gen_pace_slept(struct gen_pace *p, int64_t ns);
/* How many frames the thread may send now, at most MAX: MAX when off, else, after
 * waiting for the deadline (gen_pace_deadline), what the bucket holds (at least 1, at
 * most the burst); or 0 after sleeping 10 ms (or being interrupted by a signal) short
 * of it, for the caller to check whether it should stop. */
uint64_t gen_pace_next(struct gen_pace *p, uint64_t max);
/* Frames thread P owed and could not send on time (spilled over its full bucket). */
uint64_t gen_pace_shortfall(const struct gen_pace *p);
/* Thread P's burst and shortfall now, into *S (each paced thread keeps its own, under
 * its generator's lock). */
void gen_pace_stats_of(const struct gen_pace *p, struct gen_pace_stats *s);
/* N threads' stats (IN[0..N-1]) as one: the largest burst, the rest summed; -ENOENT
 * when none has a burst (not started, or not paced). */
int gen_pace_stats_sum(const struct gen_pace_stats *in, int n, struct gen_pace_stats *out);
/* gen_pace_stats_sum() under LOCK, the generator's lock that guards IN. */
int gen_pace_stats_locked(pthread_mutex_t *lock, const struct gen_pace_stats *in, int n,
			  struct gen_pace_stats *out);
/* A paced thread's record (D) after the N frames of its last gen_pace_next() (P) went out
 * in full; the first call starts it at P's start. */
void gen_paced_add(struct gen_paced *d, const struct gen_pace *p, uint64_t n);
/* The rate N threads' records (D[0..N-1]) say they held, frames/s: the sum of each
 * one's FRAMES / (OWED_NS - START_NS); -1 when one has no record or one spanning less
 * than MIN_SPAN_NS. */
double gen_paced_rate(const struct gen_paced *d, int n, int64_t min_span_ns);

#endif
