// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_store_alloc.c - unit tests for lib/store/store_alloc.c, SQLite's allocator in the
 * store: every request size up to the largest class and past it (xSize of each block at
 * least the request and what xRoundup says, 8-byte aligned, the class edges), a freed
 * block handed back to the next request of its class, realloc within and across classes
 * and to and from the large blocks keeping the bytes, the free lists' bounds and
 * xShutdown's drain, threads that allocate, reallocate and free blocks of each other's,
 * threads that end with full lists (their lists go back to malloc: the process does not
 * grow by them), and SQLite itself running on it, installed by store_open, in threads
 * with connections of their own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/store_alloc.h"
#include "base/err.h"

#define THREADS 8

static const sqlite3_mem_methods *m;

static int setup(void **state)
{
	m = store_alloc_methods();
	return m->xInit(m->pAppData) == SQLITE_OK ? 0 : -1;
}

/* The size a class of N bytes may have: 16 bytes apart up to 256, then a quarter of
 * the doubling's start; large blocks N rounded up to 8 */
static size_t size_bound(size_t n)
{
	if (n <= 256)
		return (n + 15) & ~(size_t)15;
	if (n > STORE_ALLOC_MAX)
		return (n + 7) & ~(size_t)7;
	return n + (((size_t)1 << (63 - __builtin_clzl(n - 1))) >> 2);
}

static void check_block(size_t n)
{
	unsigned char *p = m->xMalloc((int)n);
	int size;

	assert_non_null(p);
	assert_int_equal((uintptr_t)p % 8, 0);
	size = m->xSize(p);
	assert_int_equal(size, m->xRoundup((int)n));
	assert_true((size_t)size >= n);
	assert_true((size_t)size <= size_bound(n));
	memset(p, 0xa5, (size_t)size);	/* all of it is the caller's */
	m->xFree(p);
}

static void test_sizes(void **state)
{
	static const size_t edges[] = {
		1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 255, 256, 257, 320, 321, 383, 384, 511,
		512, 513, 1023, 1024, 1025, 4095, 4096, 4097, 16383, 16384, 16385, 65536, 65544,
		87200, STORE_ALLOC_MAX - 1, STORE_ALLOC_MAX, STORE_ALLOC_MAX + 1,
		STORE_ALLOC_MAX + 7, STORE_ALLOC_MAX + 8, STORE_ALLOC_MAX + 9, 1 << 20,
		(1 << 20) + 3,
	};
	int last = 0;

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		check_block(edges[i]);
	/* every size to the largest class: xRoundup grows with the request, and is its own
	 * rounding (SQLite asks for xRoundup's size and expects xSize to say it again) */
	for (int n = 1; n <= STORE_ALLOC_MAX + 64; n++) {
		int r = m->xRoundup(n);

		assert_true(r >= n && r >= last);
		assert_int_equal(m->xRoundup(r), r);
		last = r;
		if (n < 4096 || n % 61 == 0)
			check_block((size_t)n);
	}
	assert_int_equal(m->xRoundup(16), 16);
	assert_int_equal(m->xRoundup(17), 32);
	assert_int_equal(m->xRoundup(256), 256);
	assert_int_equal(m->xRoundup(257), 320);
	assert_int_equal(m->xRoundup(513), 640);
	assert_int_equal(m->xRoundup(65544), 81920);
	assert_int_equal(m->xRoundup(STORE_ALLOC_MAX), STORE_ALLOC_MAX);
	assert_int_equal(m->xRoundup(STORE_ALLOC_MAX + 1), STORE_ALLOC_MAX + 8);
	assert_int_equal(m->xSize(NULL), 0);
	m->xFree(NULL);
}

static void test_reuse(void **state)
{
	void *p = m->xMalloc(100), *q;

	assert_non_null(p);
	assert_int_equal(m->xSize(p), 112);
	m->xFree(p);
	q = m->xMalloc(97);	/* the same class: the block just freed */
	assert_ptr_equal(q, p);
	assert_int_equal(m->xSize(q), 112);
	m->xFree(q);
	q = m->xMalloc(120);	/* another class */
	assert_ptr_not_equal(q, p);
	m->xFree(q);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 7);
}

static void check(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(seed + i * 7))
			fail_msg("byte %zu of %zu changed", i, n);
}

static void test_resize(void **state)
{
	/* from, to: within a class, up and down across classes, to and from large blocks,
	 * large to large */
	static const int steps[][2] = {
		{ 100, 110 }, { 100, 20 }, { 20, 300 }, { 300, 5000 }, { 5000, 300 },
		{ 4000, STORE_ALLOC_MAX + 100 }, { STORE_ALLOC_MAX + 100, 4000 },
		{ STORE_ALLOC_MAX + 100, 1 << 20 }, { 1 << 20, STORE_ALLOC_MAX + 1 },
		{ 1, STORE_ALLOC_MAX }, { STORE_ALLOC_MAX, 1 },
	};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int from = steps[i][0], to = steps[i][1];
		size_t keep = (size_t)(from < to ? from : to);
		unsigned char *p = m->xMalloc(from), *q;

		assert_non_null(p);
		fill(p, (size_t)from, (unsigned)i);
		q = m->xRealloc(p, to);
		assert_non_null(q);
		check(q, keep, (unsigned)i);
		assert_int_equal(m->xSize(q), m->xRoundup(to));
		if (m->xRoundup(from) == m->xRoundup(to))
			assert_ptr_equal(q, p);		/* the block it had */
		memset(q, 0, (size_t)m->xSize(q));
		m->xFree(q);
	}
	{
		void *p = m->xRealloc(NULL, 50);

		assert_non_null(p);
		assert_int_equal(m->xSize(p), 64);
		m->xFree(p);
	}
}

static void test_bounds(void **state)
{
	enum { N = 2000 };
	static void *p[N];
	size_t bytes, n;

	m->xShutdown(m->pAppData);
	assert_int_equal(store_alloc_cached(&bytes), 0);
	assert_int_equal(bytes, 0);
	for (int i = 0; i < N; i++)
		assert_non_null(p[i] = m->xMalloc(16));
	for (int i = 0; i < N; i++)
		m->xFree(p[i]);
	n = store_alloc_cached(&bytes);
	assert_true(n > 0 && n <= 128);		/* the class's bound, not 2,000 */
	assert_int_equal(bytes, n * 16);
	for (int i = 0; i < N; i++)
		assert_non_null(p[i] = m->xMalloc(60000));
	for (int i = 0; i < N; i++)
		m->xFree(p[i]);
	assert_true(store_alloc_cached(&bytes) <= n + 2);
	assert_true(bytes <= n * 16 + 2 * 65536);
	m->xShutdown(m->pAppData);
	assert_int_equal(store_alloc_cached(&bytes), 0);
	assert_int_equal(bytes, 0);
}

/* --- threads --- */

struct shared {
	pthread_mutex_t mx;
	unsigned char *slot[64];	/* blocks one thread leaves for another to free */
	size_t len[64];
};

struct worker {
	struct shared *sh;
	unsigned seed;
	int rounds;
	size_t cached, cached_bytes;
};

/* A block of a thread's: N bytes of one value, its own (N's) */
static void put(unsigned char *p, size_t n)
{
	memset(p, (int)((n * 31 + 7) & 0xff), n);
}

static void same(const unsigned char *p, size_t n, size_t len)
{
	if (n && (p[0] != ((len * 31 + 7) & 0xff) || memcmp(p, p + 1, n - 1)))
		fail_msg("a block of %zu bytes changed in its first %zu", len, n);
}

static unsigned next_rand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static size_t rand_size(unsigned *s)
{
	unsigned r = next_rand(s);

	switch (r % 8) {
	case 0:
		return STORE_ALLOC_MAX - 64 + r % 200;	/* both sides of the largest class */
	case 1:
		return 1 + r % 16384;
	default:
		return 1 + r % 600;
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned char *mine[32] = { NULL };
	size_t len[32] = { 0 };
	unsigned s = w->seed;

	for (int i = 0; i < w->rounds; i++) {
		unsigned r = next_rand(&s), k = r % 32;
		size_t n = rand_size(&s);

		if (mine[k]) {
			same(mine[k], len[k], len[k]);
			if (r % 3 == 0) {
				unsigned char *q = m->xRealloc(mine[k], (int)n);

				assert_non_null(q);
				same(q, len[k] < n ? len[k] : n, len[k]);
				mine[k] = q;
				len[k] = n;
				put(q, n);
				continue;
			}
			if (r % 3 == 1) {	/* swap with the shared slot: another frees it */
				unsigned j = (r >> 4) % 64;
				unsigned char *theirs;
				size_t tl;

				pthread_mutex_lock(&w->sh->mx);
				theirs = w->sh->slot[j];
				tl = w->sh->len[j];
				w->sh->slot[j] = mine[k];
				w->sh->len[j] = len[k];
				pthread_mutex_unlock(&w->sh->mx);
				mine[k] = theirs;
				len[k] = tl;
				continue;
			}
			m->xFree(mine[k]);
			mine[k] = NULL;
			continue;
		}
		mine[k] = m->xMalloc((int)n);
		assert_non_null(mine[k]);
		assert_true((size_t)m->xSize(mine[k]) >= n);
		len[k] = n;
		put(mine[k], n);
	}
	for (int k = 0; k < 32; k++) {
		if (mine[k])
			same(mine[k], len[k], len[k]);
		m->xFree(mine[k]);
	}
	w->cached = store_alloc_cached(&w->cached_bytes);
	return NULL;
}

static void test_threads(void **state)
{
	struct shared sh = { .mx = PTHREAD_MUTEX_INITIALIZER };
	struct worker w[THREADS];
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .sh = &sh, .seed = 7919u * (unsigned)(i + 1),
					.rounds = 100000 };
		assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_true(w[i].cached > 0);	/* it kept some, within the bounds */
		assert_true(w[i].cached_bytes < 2 * 1024 * 1024);
	}
	for (int j = 0; j < 64; j++) {
		if (sh.slot[j])
			same(sh.slot[j], sh.len[j], sh.len[j]);
		m->xFree(sh.slot[j]);
	}
}

/* A thread that fills the list of every class to its bound, touching each block, and
 * ends: about 1.7 MiB in its lists */
static void *fill_lists(void *arg)
{
	enum { N = 130 };
	void *p[N];

	for (int n = 1; n <= STORE_ALLOC_MAX; n = m->xRoundup(n) + 1) {
		int size = m->xRoundup(n), k = 32768 / size + 2;

		k = k > N ? N : k;
		for (int i = 0; i < k; i++) {
			p[i] = m->xMalloc(size);
			assert_non_null(p[i]);
			memset(p[i], 1, (size_t)size);
		}
		for (int i = 0; i < k; i++)
			m->xFree(p[i]);
	}
	*(size_t *)arg = store_alloc_cached(NULL);
	return NULL;
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static void test_thread_end(void **state)
{
	long before, after;
	size_t kept = 0;

	/* once, so that the arenas the threads use exist before the measure */
	for (int i = 0; i < 4; i++) {
		pthread_t t;

		assert_int_equal(pthread_create(&t, NULL, fill_lists, &kept), 0);
		assert_int_equal(pthread_join(t, NULL), 0);
	}
	before = rss_kib();
	for (int i = 0; i < 96; i++) {
		pthread_t t;

		assert_int_equal(pthread_create(&t, NULL, fill_lists, &kept), 0);
		assert_int_equal(pthread_join(t, NULL), 0);
		assert_true(kept > 0);
	}
	after = rss_kib();
	/* each thread ended holding about 1.7 MiB in its lists: kept, 96 threads would
	 * have grown the process by about 160 MiB */
	if (before > 0 && after > 0)
		assert_true(after - before < 32 * 1024);
}

/* --- SQLite on it --- */

static void *sqlite_work(void *arg)
{
	unsigned s = *(unsigned *)arg;
	sqlite3 *db = NULL;
	sqlite3_stmt *ins = NULL, *sel = NULL;
	unsigned char buf[20000];

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB);"
				      "CREATE INDEX tb ON t (b)", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO t (id, b) VALUES (?1, ?2)", -1,
					    &ins, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT b FROM t WHERE id = ?1", -1, &sel,
					    NULL), SQLITE_OK);
	for (int i = 0; i < 2000; i++) {
		size_t n = 1 + (i * 37 + s) % sizeof(buf);

		fill(buf, n, (unsigned)i);
		sqlite3_bind_int(ins, 1, i);
		sqlite3_bind_blob(ins, 2, buf, (int)n, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
		sqlite3_reset(ins);
	}
	for (int i = 0; i < 2000; i++) {
		size_t n = 1 + (i * 37 + s) % sizeof(buf);

		sqlite3_bind_int(sel, 1, i);
		assert_int_equal(sqlite3_step(sel), SQLITE_ROW);
		assert_int_equal(sqlite3_column_bytes(sel, 0), (int)n);
		check(sqlite3_column_blob(sel, 0), n, (unsigned)i);
		sqlite3_reset(sel);
	}
	sqlite3_finalize(ins);
	sqlite3_finalize(sel);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return NULL;
}

static void test_sqlite(void **state)
{
	struct err e;
	struct store *st = store_open(":memory:", false, &e);	/* installs it */
	unsigned seed[THREADS];
	pthread_t t[THREADS];
	void *p;

	assert_non_null(st);
	store_close(&st);
	p = sqlite3_malloc(100);
	assert_non_null(p);
#if defined(__SANITIZE_ADDRESS__)
	assert_int_equal(sqlite3_msize(p), 104);	/* SQLite's own: not installed */
#else
	assert_int_equal(sqlite3_msize(p), 112);	/* a class of ours */
#endif
	sqlite3_free(p);
	for (int i = 0; i < THREADS; i++) {
		seed[i] = (unsigned)i * 1000u;
		assert_int_equal(pthread_create(&t[i], NULL, sqlite_work, &seed[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_thread_end),
		cmocka_unit_test(test_sqlite),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, setup, NULL);
}
