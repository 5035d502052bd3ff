/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* err.h - the one way a bpflab function says why it failed (docs/architecture.md,
 * "Errors").
 *
 * A function that can fail returns 0 (or a value) or -errno, and fills the struct err
 * its caller passes (NULL allowed: the caller does not want the text). The caller prints
 * the message once, where it decides what to do (the CLI: cli_err(), bpflabd: the reply's
 * "error"). A person's wrong input (a plan, a flag, a file's content) is said with
 * err_at(): the message then starts "FILE:LINE:COL: " and err->input is set, which is
 * the one thing the CLI looks at to exit with 2 ("bad input") instead of 1.
 *
 * Plain data, no allocation; any thread (one struct err per call).
 */
#ifndef BPFLAB_ERR_H
#define BPFLAB_ERR_H

#include <stdarg.h>
#include <stdbool.h>

struct err {
	char msg[1024];			/* ready to print once; "" when nothing was said */
	char file[256];			/* input: the file (or what stands for it) */
	int line, col;			/* input: 1-based place in FILE; 0 when none */
	bool input;			/* a person's input is wrong: "bad input" (exit 2) */
};

/* Empty E (NULL allowed). */
void err_clear(struct err *e);
/* E's message from FMT (not input; E may be NULL). A message cut at the size ends in
 * "...". Returns nothing: the caller returns its own -errno. */
void err_set(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* err_set() with the arguments in AP, for a function that takes FMT and ... itself. */
void err_vset(struct err *e, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* err_set() for a failure CODE (-errno): returns CODE, for `return err_ret(err, -ENOMEM,
 * "out of memory")`. */
int err_ret(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A person's input is wrong: E's message is "FILE:LINE:COL: " (COL 0: "FILE:LINE: ";
 * LINE 0: "FILE: "; FILE NULL: nothing) and FMT; E->input set. Returns -EINVAL. */
int err_at(struct err *e, const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Put "PREFIX: " (from FMT) in front of E's message, keeping its kind and place. */
void err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What to print for a failure RC (-errno) with E: E's message, else strerror(-RC) (a
 * function that returns a code of its own, such as -UTIL_ENOTREG, says it in E). */
const char *err_text(const struct err *e, int rc);

#endif
