/* helpers.h - what several unit tests share, written once: doubles compared within a
 * tolerance, text compared or searched with the whole text shown when it fails, JSON
 * test input parsed with its error named, temporary directories made and removed with
 * everything in them, files read and written whole, an in-process coordinator pumped. tests/unit/helpers.c is linked into
 * every tests/unit/test_*.c (the Makefile's unit-test rule). Include after <cmocka.h>.
 */
#ifndef BPFLAB_TEST_HELPERS_H
#define BPFLAB_TEST_HELPERS_H

#include <stddef.h>
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

/* TEXT parsed as JSON; a parse error fails the test with jansson's message and the
 * line and column in TEXT. The caller owns the reference. */
json_t *json_of(const char *text);

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

/* An in-process coordinator driven by the test: coord_pump() turns C's loop until SOCK
 * (a test's agent or client socket) has a message other than a heartbeat, or TIMEOUT_MS
 * passed (NULL); coord_ask() sends MSG (stolen) from SOCK and returns the reply, which
 * must be of type WANT (else the test fails with the reply's message). */
struct coord;
json_t *coord_pump(struct coord *c, void *sock, int timeout_ms);
json_t *coord_ask(struct coord *c, void *sock, json_t *msg, const char *want);

#endif
