// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* log.c - see log.h. Single global logger; safe to call from several threads (one
 * fwrite per line, and stdio locks the stream); a file's lines are flushed one by one,
 * or held in the buffer by a thread that asked (log_hold) until log_flush or a fatal
 * signal (log_flush_on_fatal). */
#include "base/log.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOG_PREFIX_MAX 256		/* a line's time, program and level */

static const char *log_progname = "bpflab";
static enum log_level log_level = LOG_INFO;
static FILE *log_file;
static _Thread_local bool log_held;	/* log_hold */

void log_init(const char *progname, enum log_level level)
{
	log_progname = progname;
	log_level = level;
}

void log_set_level(enum log_level level)
{
	log_level = level;
}

enum log_level log_get_level(void)
{
	return log_level;
}

int log_set_file(const char *path)
{
	FILE *f = fopen(path, "ae");

	if (!f)
		return -errno;
	setvbuf(f, NULL, _IOFBF, 1 << 16);	/* each line flushed by log_vmsg, or held */
	if (log_file)
		fclose(log_file);
	log_file = f;
	return 0;
}

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
static struct sigaction fatal_before[sizeof(fatal_signals) / sizeof(fatal_signals[0])];

/* The held lines and one naming SIG written, the handler there was before put back
 * (the default, or a sanitizer's), then the signal again: a fault by returning (the
 * instruction faults again, with its address), a sent signal by raising it. */
static void on_fatal(int sig, siginfo_t *info, void *uctx)
{
	static const char head[] = ": fatal signal SIG";
	const char *name = sigabbrev_np(sig);
	size_t n = 0, k = strlen(log_progname), i;
	char line[128];

	(void)uctx;
	/* put by hand: no formatting in a handler */
	k = k < 64 ? k : 64;
	memcpy(line, log_progname, k);
	n += k;
	memcpy(line + n, head, sizeof(head) - 1);
	n += sizeof(head) - 1;
	name = name ? name : "?";
	k = strlen(name) < 16 ? strlen(name) : 16;
	memcpy(line + n, name, k);
	n += k;
	line[n++] = '\n';
	if (log_file) {
		/* unlocked: the thread that crashed may hold the stream's lock */
		fwrite_unlocked(line, 1, n, log_file);
		fflush_unlocked(log_file);
	}
	(void)!write(STDERR_FILENO, line, n);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &fatal_before[i], NULL);
	if (!info || info->si_code <= 0)	/* sent (kill, raise, abort), not a fault */
		raise(sig);
}

void log_flush_on_fatal(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old;

		if (sigaction(fatal_signals[i], &sa, &old))
			continue;
		/* called twice: the handler before is still the first one's */
		if (!(old.sa_flags & SA_SIGINFO) || old.sa_sigaction != on_fatal)
			fatal_before[i] = old;
	}
}

void log_hold(bool hold)
{
	log_held = hold;
	if (!hold)
		log_flush();
}

void log_flush(void)
{
	if (log_file)
		fflush(log_file);
}

/* The UTC time SEC to the second, "YYYY-MM-DDTHH:MM:SS": made once a second by each
 * thread and kept (a busy daemon logs thousands of lines a second; gmtime_r and
 * strftime were a fifth of a line's cost). */
static const char *stamp_of(time_t sec)
{
	static _Thread_local time_t last = -1;
	static _Thread_local char stamp[32];
	struct tm tm;

	if (sec != last) {
		gmtime_r(&sec, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		last = sec;
	}
	return stamp;
}

/* Append the LEN bytes of TEXT to the line prefix LINE at *P, cut at LOG_PREFIX_MAX - 1
 * bytes (as snprintf into LOG_PREFIX_MAX bytes would). */
static void prefix_put(char *line, size_t *p, const char *text, size_t len)
{
	if (len > LOG_PREFIX_MAX - 1 - *p)
		len = LOG_PREFIX_MAX - 1 - *p;
	memcpy(line + *p, text, len);
	*p += len;
}

/* The file's line prefix "STAMP.mmmZ PROGNAME: LEVEL: " into LINE; returns its length
 * (put by hand: snprintf was a third of a line's cost). */
static size_t file_prefix(char *line, const char *level)
{
	struct timespec ts;
	const char *stamp;
	char ms[6];
	size_t p = 0;
	long m;

	clock_gettime(CLOCK_REALTIME, &ts);
	stamp = stamp_of(ts.tv_sec);
	m = ts.tv_nsec / 1000000;
	ms[0] = '.';
	ms[1] = (char)('0' + m / 100);
	ms[2] = (char)('0' + m / 10 % 10);
	ms[3] = (char)('0' + m % 10);
	ms[4] = 'Z';
	ms[5] = ' ';
	prefix_put(line, &p, stamp, strlen(stamp));
	prefix_put(line, &p, ms, sizeof(ms));
	prefix_put(line, &p, log_progname, strlen(log_progname));
	prefix_put(line, &p, ": ", 2);
	prefix_put(line, &p, level, strlen(level));
	prefix_put(line, &p, ": ", 2);
	return p;
}

/* The line is formatted once, its prefix and then the message into one buffer written
 * by one fwrite (a second formatting pass copying the message cost a third of a line). */
static void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	static const char *names[] = { "warning", "info", "debug" };
	FILE *out = log_file ? log_file : stderr;
	char line[LOG_PREFIX_MAX + 4096 + 1];
	size_t p, n;
	int k;

	if (level > log_level)
		return;
	if (log_file) {
		p = file_prefix(line, names[level]);
	} else {
		k = snprintf(line, LOG_PREFIX_MAX, "%s: %s", log_progname,
			     level == LOG_WARN ? "" : (level == LOG_INFO ? "" : "debug: "));
		p = k < 0 ? 0 : ((size_t)k < LOG_PREFIX_MAX ? (size_t)k : LOG_PREFIX_MAX - 1);
	}
	vsnprintf(line + p, 4096, fmt, ap);
	n = p + strlen(line + p);
	while (n > p && line[n - 1] == '\n')
		n--;
	line[n++] = '\n';
	fwrite(line, 1, n, out);
	if (log_file && (!log_held || level == LOG_WARN))
		fflush(out);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

static int log_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	enum log_level ours = level == LIBBPF_WARN ? LOG_INFO : LOG_DEBUG;

	if (level == LIBBPF_DEBUG && log_level < LOG_DEBUG)
		return 0;
	log_vmsg(ours, fmt, ap);
	return 0;
}

void log_route_libbpf(void)
{
	libbpf_set_print(log_libbpf_print);
}
