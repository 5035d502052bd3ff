// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_alloc.c - see store_alloc.h. Why SQLite gets an allocator of ours: Debian's
 * SQLite is built with SQLITE_OMIT_LOOKASIDE (`PRAGMA compile_options`), so every
 * statement's cursors, records and registers' buffers, and each statement journal's
 * 64 KiB chunk, went to glibc's malloc and free as the statement ran and ended: about a
 * hundred pairs a job in bpflabd, some 44 M of its 584 M instructions for 2,000 jobs
 * with SQLite's own wrappers around them (bench/README.md, "coordinator", the speed5
 * paragraph and branch alloc's). A store's statements allocate and free the same few
 * sizes again and again, which a free list per size hands back in about 15 instructions.
 *
 * - Requests up to STORE_ALLOC_MAX are rounded up to a size class (16 bytes apart up to
 *   256, then four classes in each doubling) and served from the calling thread's free
 *   list of that class, or from malloc when it is empty; a freed block goes onto the
 *   freeing thread's list of its class, or back to free when the list holds its bound
 *   (SA_CAP_BYTES of a class, at most SA_CAP_MAX and at least SA_CAP_MIN blocks). Each
 *   block is one malloc of its own, so a block may be freed by any thread, and a
 *   thread's lists hold at most about 1.7 MiB, and only what the thread once had in use.
 * - Larger requests go to malloc as they are.
 * - Every block starts with an 8-byte header (its usable size for xSize, its class), as
 *   SQLite's own malloc wrapper has one, so blocks are 8-byte aligned as SQLite asks.
 * - Lists per thread, not one set under a lock: bpflabd's offload lanes and the
 *   dashboard's connection threads have connections of their own, and a mutex around
 *   each call cost as much as it saved (measured: no gain over glibc). A thread's lists
 *   go back to free when it ends (a pthread key's destructor) or when SQLite shuts down
 *   (xShutdown, the calling thread's); the main thread's stay until the process ends.
 */
#include "store/store_alloc.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SA_NCLASS	52		/* 16 of 16 bytes apart, then 4 a doubling to 128 KiB */
#define SA_CAP_BYTES	(32 * 1024)	/* a thread's free list of a class: bytes, */
#define SA_CAP_MAX	128		/* and at most and at least this many blocks */
#define SA_CAP_MIN	1

/* The usable size of each class */
static const uint32_t sa_size[SA_NCLASS] = {
	16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 320,
	384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584,
	4096, 5120, 6144, 7168, 8192, 10240, 12288, 14336, 16384, 20480, 24576, 28672,
	32768, 40960, 49152, 57344, 65536, 81920, 98304, 114688, 131072,
};

_Static_assert(STORE_ALLOC_MAX == 131072, "sa_size's last class is STORE_ALLOC_MAX");

/* A block's header: its usable size, and its class (SA_NCLASS: a large block) */
struct sa_hdr {
	uint32_t size;
	uint32_t cls;
};

_Static_assert(sizeof(struct sa_hdr) == 8, "SQLite's blocks are 8-byte aligned");

/* A thread's free lists: a free block's first word (after its header) is the next.
 * CAP is zero (so every free goes the slow way) until the thread has its destructor;
 * the entry SA_NCLASS, large blocks, stays zero. */
struct sa_cache {
	struct sa_hdr *head[SA_NCLASS];
	uint16_t n[SA_NCLASS + 1];
	uint16_t cap[SA_NCLASS + 1];
	bool ended;	/* its destructor ran: every free goes to free */
};

static __thread struct sa_cache sa_tc;
static pthread_key_t sa_key;
static pthread_once_t sa_once = PTHREAD_ONCE_INIT;
static bool sa_key_ok;

/* The class of a request of N bytes, 1 <= N <= STORE_ALLOC_MAX */
static inline unsigned sa_class(size_t n)
{
	unsigned b;

	if (n <= 256)
		return n ? (unsigned)(n - 1) >> 4 : 0;
	b = 63 - (unsigned)__builtin_clzl(n - 1);	/* 2^b < n <= 2^(b+1), b >= 8 */
	return 16 + (b - 8) * 4 + (unsigned)((n - 1 - ((size_t)1 << b)) >> (b - 2));
}

static inline struct sa_hdr *sa_hdr(void *p)
{
	return (struct sa_hdr *)p - 1;
}

static inline struct sa_hdr **sa_next(struct sa_hdr *h)
{
	return (struct sa_hdr **)(h + 1);
}

static void sa_drain(struct sa_cache *tc)
{
	for (unsigned c = 0; c < SA_NCLASS; c++) {
		while (tc->head[c]) {
			struct sa_hdr *h = tc->head[c];

			tc->head[c] = *sa_next(h);
			free(h);
		}
		tc->n[c] = 0;
	}
}

/* A thread ends: its lists go back to malloc, and it keeps no more (frees from the
 * destructors that run after this one go to free) */
static void sa_thread_end(void *arg)
{
	struct sa_cache *tc = arg;

	tc->ended = true;
	memset(tc->cap, 0, sizeof(tc->cap));
	sa_drain(tc);
}

static void sa_key_make(void)
{
	sa_key_ok = !pthread_key_create(&sa_key, sa_thread_end);
}

/* The calling thread's first free of a small block: its destructor, then its bounds.
 * False where there is no key (the thread keeps nothing). */
static bool sa_register(struct sa_cache *tc)
{
	pthread_once(&sa_once, sa_key_make);
	if (!sa_key_ok || pthread_setspecific(sa_key, tc))
		return false;
	for (unsigned c = 0; c < SA_NCLASS; c++) {
		unsigned cap = SA_CAP_BYTES / sa_size[c];

		tc->cap[c] = cap > SA_CAP_MAX ? SA_CAP_MAX : cap < SA_CAP_MIN ? SA_CAP_MIN : cap;
	}
	return true;
}

/* A block of malloc's for a request of WANT bytes of class C (SA_NCLASS: large) */
static __attribute__((noinline)) void *sa_malloc_slow(size_t want, unsigned c)
{
	struct sa_hdr *h;

	want = c < SA_NCLASS ? sa_size[c] : (want + 7) & ~(size_t)7;
	h = malloc(sizeof(*h) + want);
	if (!h)
		return NULL;
	h->size = (uint32_t)want;
	h->cls = c;
	return h + 1;
}

static void *sa_malloc(int n)
{
	size_t want = n > 0 ? (size_t)n : 1;
	struct sa_cache *tc = &sa_tc;
	struct sa_hdr *h;
	unsigned c;

	if (want > STORE_ALLOC_MAX)
		return sa_malloc_slow(want, SA_NCLASS);
	c = sa_class(want);
	h = tc->head[c];
	if (!h)
		return sa_malloc_slow(want, c);
	tc->head[c] = *sa_next(h);
	tc->n[c]--;
	return h + 1;
}

/* A free the lists do not take at once: a large block, a full list, or the thread's
 * first small block */
static __attribute__((noinline)) void sa_free_slow(struct sa_cache *tc, struct sa_hdr *h)
{
	unsigned c = h->cls;

	if (c < SA_NCLASS && !tc->cap[c] && !tc->ended && sa_register(tc) &&
	    tc->n[c] < tc->cap[c]) {
		*sa_next(h) = tc->head[c];
		tc->head[c] = h;
		tc->n[c]++;
		return;
	}
	free(h);
}

static void sa_free(void *p)
{
	struct sa_cache *tc = &sa_tc;
	struct sa_hdr *h;
	unsigned c;

	if (!p)
		return;
	h = sa_hdr(p);
	c = h->cls;
	if (tc->n[c] >= tc->cap[c]) {
		sa_free_slow(tc, h);
		return;
	}
	*sa_next(h) = tc->head[c];
	tc->head[c] = h;
	tc->n[c]++;
}

static int sa_size_of(void *p)
{
	return p ? (int)sa_hdr(p)->size : 0;
}

static void *sa_realloc(void *p, int n)
{
	size_t want = n > 0 ? (size_t)n : 1, old;
	struct sa_hdr *h;
	void *q;

	if (!p)
		return sa_malloc(n);
	h = sa_hdr(p);
	old = h->size;
	if (want > STORE_ALLOC_MAX && h->cls == SA_NCLASS) {
		want = (want + 7) & ~(size_t)7;
		h = realloc(h, sizeof(*h) + want);
		if (!h)
			return NULL;
		h->size = (uint32_t)want;
		return h + 1;
	}
	if (want <= STORE_ALLOC_MAX && sa_class(want) == h->cls)
		return p;
	q = sa_malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, old < want ? old : want);
	sa_free(p);
	return q;
}

static int sa_roundup(int n)
{
	if (n <= 0)
		return (int)sa_size[0];
	if ((size_t)n <= STORE_ALLOC_MAX)
		return (int)sa_size[sa_class((size_t)n)];
	return n > INT32_MAX - 7 ? n : (n + 7) & ~7;
}

static int sa_init(void *unused)
{
	return SQLITE_OK;
}

static void sa_shutdown(void *unused)
{
	sa_drain(&sa_tc);
}

static const sqlite3_mem_methods sa_methods = {
	.xMalloc = sa_malloc,
	.xFree = sa_free,
	.xRealloc = sa_realloc,
	.xSize = sa_size_of,
	.xRoundup = sa_roundup,
	.xInit = sa_init,
	.xShutdown = sa_shutdown,
	.pAppData = NULL,
};

const sqlite3_mem_methods *store_alloc_methods(void)
{
	return &sa_methods;
}

int store_alloc_install(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return SQLITE_OK;	/* malloc's own, checked, for every block */
#else
	return sqlite3_config(SQLITE_CONFIG_MALLOC, &sa_methods);
#endif
}

size_t store_alloc_cached(size_t *bytes)
{
	size_t n = 0, b = 0;

	for (unsigned c = 0; c < SA_NCLASS; c++) {
		n += sa_tc.n[c];
		b += (size_t)sa_tc.n[c] * sa_size[c];
	}
	if (bytes)
		*bytes = b;
	return n;
}
