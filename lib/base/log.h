/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* log.h - leveled logging for the bpflab programs.
 *
 * pr_warn / pr_info / pr_debug write one line each to stderr (or to the file given to
 * log_set_file) with the program name in front. The level starts at LOG_INFO for the
 * daemons and LOG_WARN for the CLI; each -v raises it by one. libbpf's own messages are
 * routed through log_libbpf_print one level lower than ours, as xdp-tools does.
 */
#ifndef BPFLAB_LOG_H
#define BPFLAB_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum log_level { LOG_WARN = 0, LOG_INFO = 1, LOG_DEBUG = 2 };

void log_init(const char *progname, enum log_level level);
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Append to PATH instead of stderr. Returns 0 or -errno. */
int log_set_file(const char *path);
/* HOLD: the calling thread's lines to the file wait in its buffer until log_flush, not
 * written one by one (a loop that logs lines by the thousand a second: bpflabd's, which
 * flushes before each wait); warnings are written at once, and other threads' lines too.
 * !HOLD: its lines written one by one again, the held ones first. */
void log_hold(bool hold);
/* Write the lines waiting in the buffer. */
void log_flush(void);
/* On a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) the held lines are
 * written, with a line naming the signal, before the process dies of it as it would
 * have (core, exit status; a handler set before, a sanitizer's, still runs): the lines
 * of the turn that crashed are the ones wanted. Best effort (stdio in a signal handler,
 * as Redis's crash log); SIGKILL loses them. */
void log_flush_on_fatal(void);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Route libbpf's prints through our log (LIBBPF_WARN -> info, INFO -> debug, DEBUG dropped
 * unless -vv). */
void log_route_libbpf(void);

#define pr_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define pr_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
