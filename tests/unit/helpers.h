/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* helpers.h - what several unit tests share, written once: doubles compared within a
 * tolerance, text compared or searched with the whole text shown when it fails, JSON
 * test input parsed with its error named, temporary directories made and removed with
 * everything in them, files read and written whole, skips that say why, an in-process
 * coordinator set up, pumped and taken down, SQL run on a file, a plain HTTP request. tests/unit/helpers.c is linked into every
 * tests/unit/test_*.c (the Makefile's unit-test rule). Include after <cmocka.h>.
 */
#ifndef BPFLAB_TEST_HELPERS_H
#define BPFLAB_TEST_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <jansson.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Where the build put the BPF objects (BPFLAB_BUILDDIR comes from the Makefile). */
#ifdef BPFLAB_BUILDDIR
#define BPF_DIR BPFLAB_BUILDDIR "/bpf"
#endif

/* A == B within EPS, else both printed with 17 digits and the test fails at the caller
 * (cmocka 1.1's assert_float_equal compares floats; these numbers need doubles). */
#define assert_near(a, b, eps) assert_near_at((a), (b), (eps), __FILE__, __LINE__)
void assert_near_at(double a, double b, double eps, const char *file, int line);

/* GOT equals WANT, else both are printed whole (print_error() cuts long messages). */
#define assert_text(got, want) assert_text_at((got), (want), __FILE__, __LINE__)
void assert_text_at(const char *got, const char *want, const char *file, int line);

/* NEEDLE occurs in HAY, else both are printed whole. */
#define assert_contains(hay, needle) assert_contains_at((hay), (needle), __FILE__, __LINE__)
void assert_contains_at(const char *hay, const char *needle, const char *file, int line);
/* NEEDLE occurs in HAY with its wrapped lines joined (a newline and the indent after it
 * read as one space): a note's phrase wherever tt_wrap broke it. */
#define assert_contains_unwrapped(hay, needle)                                          \
	assert_contains_unwrapped_at((hay), (needle), __FILE__, __LINE__)
void assert_contains_unwrapped_at(const char *hay, const char *needle, const char *file,
				  int line);

/* TEXT parsed as JSON; a parse error fails the test with jansson's message and the
 * line and column in TEXT. The caller owns the reference. */
json_t *json_of(const char *text);

/* The 16-bit one's complement sum of LEN bytes at P added to SUM (not folded), and
 * whether the UDP checksum of an IPv6 frame FRAME (Ethernet, IPv6 without extension
 * headers, UDP) is right: the folded sum over pseudo header and datagram is 0xffff. */
uint32_t csum16_add(const uint8_t *p, size_t len, uint32_t sum);
int udp6_checksum_ok(const uint8_t *frame);

/* An input that must be refused, and what the refusal must contain. */
struct refusal {
	const char *input, *expect;
};

/* Each of the N CASES parsed as a plan named FILE (expect_plan_refusals) or decoded as a
 * job spec at path "spec" (expect_spec_refusals) is refused with a message containing
 * its expect, else the test fails naming the case. */
void expect_plan_refusals(const char *file, const struct refusal *cases, size_t n);
void expect_spec_refusals(const struct refusal *cases, size_t n);

/* A new directory from TEMPLATE (ending in XXXXXX, changed in place); fails the test
 * when it cannot be made. tmpdir_remove() deletes DIR and everything below it and
 * returns 0, or -1 when something was left (an empty or NULL DIR is left alone). */
void tmpdir_make(char *template);
int tmpdir_remove(const char *dir);

/* The whole file PATH (up to 16 MiB) as a NUL-terminated heap string, or the test
 * fails; file_put() writes TEXT to PATH (created or truncated), or the test fails. */
char *file_slurp(const char *path);
void file_put(const char *path, const char *text);

/* A program run to its end: its exit status (-1 if killed) and all it wrote. */
struct prog_out {
	int status;
	char *out, *err;
};

/* Run ARGV[0] with ARGV (NULL-terminated) and wait for it; stdout and stderr go through
 * files in DIR (an existing directory) into O. prog_out_free() frees O's texts. */
void prog_run(struct prog_out *o, const char *const *argv, const char *dir);
void prog_out_free(struct prog_out *o);
/* The stdout of ARGV run as prog_run does (heap); the test fails unless it exits 0. */
char *prog_stdout(const char *const *argv, const char *dir);

/* An HTTP answer: status, headers and body (heap; http_free frees them). */
struct http {
	int status;
	char *head, *body;
};
void http_free(struct http *h);
/* METHOD PATH on 127.0.0.1:PORT with header line EXTRA (may be NULL), HTTP/1.1 with
 * "Connection: close", read to the end into H; the test fails on a socket error. */
void http_req(unsigned port, const char *method, const char *path, const char *extra,
	      struct http *h);

/* prog_run of PROG with ARGS (NULL-terminated, at most 62, without argv[0]). */
void prog_run_args(struct prog_out *o, const char *prog, const char *const *args,
		   const char *dir);

/* Execute the SQL STMT on the SQLite database file DB; an error fails the test. */
void db_file_exec(const char *db, const char *stmt);
/* The first column of the first row of SQL (a count) through a read-only connection of
 * its own to DB; -1 when there is no row. */
long long db_file_count(const char *db, const char *sql);
/* How many times NEEDLE occurs in the file PATH (a log); 0 when it cannot be read. */
int file_count(const char *path, const char *needle);

/*
 * Skipping a test, saying why: the reason goes to stderr as "  skip: WHY" right before
 * cmocka's "[  SKIPPED ] NAME", and tests/run-unit.sh lists every skipped test with it.
 * As root a skip is a failure there (the test should have run) unless the test declared
 * it with skip_host(): a reason of the host that no change to bpflab can remove (a
 * kernel feature, a readable kernel config, a second CPU, another process holding a
 * kernel switch), shown as "  skip (host): WHY".
 *
 *   skip_unless_root()       skip ("needs root") unless running as root
 *   skip_because(FMT, ...)   skip for WHY (as root: a failure, e.g. "bpflabd not built")
 *   skip_host(FMT, ...)      skip for WHY of the host (allowed as root)
 *
 * A bare cmocka skip() has no reason and is a failure as root too.
 */
#define skip_because(...) do { skip_say(0, __VA_ARGS__); skip(); } while (0)
#define skip_host(...) do { skip_say(1, __VA_ARGS__); skip(); } while (0)
#define skip_unless_root() do { if (geteuid()) skip_because("needs root"); } while (0)
void skip_say(int host, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An in-process coordinator driven by the test: coord_pump() turns C's loop until SOCK
 * (a test's agent or client socket) has a message other than a heartbeat, or TIMEOUT_MS
 * passed (NULL); coord_ask() sends MSG (stolen) from SOCK and returns the reply, which
 * must be of type WANT (else the test fails with the reply's message). */
struct coord;
json_t *coord_pump(struct coord *c, void *sock, int timeout_ms);
json_t *coord_ask(struct coord *c, void *sock, json_t *msg, const char *want);

/*
 * The in-process coordinator of the tests that drive one (test_coordinator.c and the
 * test_coord_*.c through coord_fixture.h, test_boot.c, test_auth.c, test_bisect_req.c),
 * over real ipc:// sockets and a real database file in a temporary directory: DIR holds
 * the database DB and the endpoints AGENTS_EP and CLIENTS_EP; C is the coordinator bound
 * to them (NULL until started); CTX is the ZeroMQ context of the test's own sockets; OBJ
 * (OBJ_LEN bytes, OBJ_SHA its sha256) a BPF object of the build that the test submits,
 * when it loaded one.
 *
 * coord_fix_init() makes DIR (/tmp/bpflab-test-NAME.XXXXXX), the paths and CTX, with
 * no coordinator yet; coord_fix_start() starts C with OPTS (copied; its agents, clients
 * and db are F's), failing the test when coord_new() does; coord_fix_dealer() is a
 * DEALER of CTX connected to EP with linger 0, coord_fix_agent() and coord_fix_client()
 * one to AGENTS_EP and CLIENTS_EP (an agent's and a client's); coord_fix_object() reads
 * PATH (a BPF object, e.g. BPF_DIR "/xdp_basic.bpf.o") into OBJ or fails the test;
 * coord_fix_release() destroys C, ends CTX (the test must have closed its sockets),
 * frees OBJ and removes DIR with everything in it.
 */
struct coord_opts;
struct coord_fix {
	char dir[64];
	char agents_ep[128], clients_ep[128], db[128];
	struct coord *c;
	void *ctx;
	char *obj;
	size_t obj_len;
	char obj_sha[65];	/* SHA256_HEX_LEN */
};

void coord_fix_init(struct coord_fix *f, const char *name);
void coord_fix_start(struct coord_fix *f, const struct coord_opts *opts);
void *coord_fix_dealer(struct coord_fix *f, const char *ep);
void *coord_fix_agent(struct coord_fix *f);
void *coord_fix_client(struct coord_fix *f);
void coord_fix_object(struct coord_fix *f, const char *path);
void coord_fix_release(struct coord_fix *f);

#endif
