// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* provider.c - see provider.h. Processes are started with posix_spawn (no shell), in a
 * process group of their own so that a timeout kills whatever they started, with the
 * default signal mask and dispositions (the agent blocks SIGINT/SIGTERM for its
 * signalfd and ignores SIGPIPE; a child must not inherit that), stdin from /dev/null. */
#include "provider.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/kernel_list.h"
#include "base/log.h"
#include "base/util.h"

extern char **environ;

void provider_config_release(struct provider_config *cfg)
{
	int i;

	for (i = 0; i < cfg->argc; i++)
		free(cfg->argv[i]);
	memset(cfg, 0, sizeof(*cfg));
}

/* Whether the N bytes at S may name a kernel release (provider_release_ok). */
static bool release_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || n > PROVIDER_RELEASE_MAX || s[0] == '-' || s[0] == '.')
		return false;
	for (i = 0; i < n; i++)
		if (!s[i] ||
		    !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+~-",
			    s[i]))
			return false;
	return true;
}

bool provider_release_ok(const char *text)
{
	return text && release_ok(text, strlen(text));
}

/* Start CFG's command with the words ARG1 and ARG2 (may be NULL) appended; its stdout
 * into *OUT_FD and its stderr into *ERR_FD (the same pipe when OUT_FD is NULL), both
 * non-blocking read ends. Returns the pid, or -errno. */
static pid_t spawn(const struct provider_config *cfg, const char *arg1, const char *arg2,
		   int *out_fd, int *err_fd)
{
	char *argv[PROVIDER_MAX_ARGS + 3];
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, i, n = 0, err;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	pid_t pid;

	for (i = 0; i < cfg->argc; i++)
		argv[n++] = cfg->argv[i];
	argv[n++] = (char *)arg1;
	argv[n++] = (char *)arg2;
	argv[n] = NULL;
	if (pipe2(pe, O_CLOEXEC) || (out_fd && pipe2(po, O_CLOEXEC))) {
		err = -errno;
		goto fail_pipes;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGUSR1);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd ? po[1] : pe[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pe[1], STDERR_FILENO);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	err = posix_spawn(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (err) {
		err = -err;
		goto fail_pipes;
	}
	close(pe[1]);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	*err_fd = pe[0];
	if (out_fd) {
		close(po[1]);
		fcntl(po[0], F_SETFL, O_NONBLOCK);
		*out_fd = po[0];
	}
	return pid;
fail_pipes:
	for (i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	return err;
}

/* Append what FD has to *BUF (*LEN bytes, at most PROVIDER_MAX_OUTPUT kept: the rest is
 * read and dropped). Returns 1 while FD is open, 0 at EOF, -errno. */
static int drain_fd(int fd, char **buf, size_t *len)
{
	char chunk[4096];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n == 0)
			return 0;
		if (n < 0)
			return errno == EAGAIN ? 1 : errno == EINTR ? 1 : -errno;
		if (*len < PROVIDER_MAX_OUTPUT) {
			size_t take = (size_t)n > PROVIDER_MAX_OUTPUT - *len ?
				      PROVIDER_MAX_OUTPUT - *len : (size_t)n;
			char *nb = realloc(*buf, *len + take + 1);

			if (!nb)
				return -ENOMEM;
			memcpy(nb + *len, chunk, take);
			*len += take;
			nb[*len] = '\0';
			*buf = nb;
		}
	}
}

/* The last non-empty line of TEXT (at most LEN bytes of it) into OUT, "" for none. */
static void last_line(const char *text, char *out, size_t len)
{
	const char *end, *start;

	out[0] = '\0';
	if (!text)
		return;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	for (start = end; start > text && start[-1] != '\n'; start--)
		;
	snprintf(out, len, "%.*s", (int)(end - start), start);
}

/* "exit status N" / "killed by signal N" for STATUS into OUT. */
static void status_text(int status, char *out, size_t len)
{
	if (WIFEXITED(status))
		snprintf(out, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(out, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(out, len, "status %#x", status);
}

/* Kill process group PID and reap PID. */
static void kill_reap(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int provider_list_parse(const char *cmd, const char *text, size_t len, json_t *kernels,
			struct err *why)
{
	char what[PATH_MAX + 32];
	const struct kernel_list_opts opts = {
		.what = what,
		.drop_repeats = true,
		.name_ok = release_ok,
		.name_is = "a kernel release",
		.max_names = PROVIDER_MAX_KERNELS,
		.too_many = -E2BIG,
	};

	snprintf(what, sizeof(what), "kernel provider '%s' list", cmd);
	if (memchr(text, '\0', len))	/* anywhere: before any name is taken */
		return err_ret(why, -EINVAL, "%s: a NUL byte in its output", what);
	return kernel_list_scan(text, len, &opts, kernels, why);
}

int provider_list(const struct provider_config *cfg, json_t **kernels, struct err *why)
{
	int timeout = cfg->list_timeout_ms > 0 ? cfg->list_timeout_ms : PROVIDER_LIST_TIMEOUT_MS;
	int64_t deadline = util_mono_ms() + timeout;
	char *out = NULL, *errs = NULL, st[64], line[512];
	size_t out_len = 0, err_len = 0;
	int out_fd = -1, err_fd = -1, status = 0, err = 0;
	const char *cmd = cfg->argv[0];
	pid_t pid;

	*kernels = NULL;
	pid = spawn(cfg, "list", NULL, &out_fd, &err_fd);
	if (pid < 0)
		return err_ret(why, pid, "kernel provider '%s': cannot start it: %s",
			       cmd, strerror(-pid));
	while (out_fd >= 0 || err_fd >= 0) {
		struct pollfd p[2] = { { out_fd, POLLIN, 0 }, { err_fd, POLLIN, 0 } };
		int64_t left = deadline - util_mono_ms();

		if (left <= 0) {
			kill_reap(pid);
			err = err_ret(why, -ETIMEDOUT, "kernel provider '%s' list: "
				      "no end within %d ms; killed", cmd, timeout);
			goto out;
		}
		if (poll(p, 2, (int)left) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		if (out_fd >= 0 && (err = drain_fd(out_fd, &out, &out_len)) <= 0) {
			close(out_fd);
			out_fd = -1;
		}
		if (err_fd >= 0 && (err = drain_fd(err_fd, &errs, &err_len)) <= 0) {
			close(err_fd);
			err_fd = -1;
		}
		if (err < 0)
			break;
		err = 0;
	}
	if (err < 0) {
		kill_reap(pid);
		err_ret(why, err, "kernel provider '%s' list: %s", cmd, strerror(-err));
		goto out;
	}
	/* both pipes closed: it exited or is about to; still bounded by the deadline */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (util_mono_ms() >= deadline) {
			kill_reap(pid);
			err = err_ret(why, -ETIMEDOUT, "kernel provider '%s' list: "
				      "no end within %d ms; killed", cmd, timeout);
			goto out;
		}
		usleep(10 * 1000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		status_text(status, st, sizeof(st));
		last_line(errs, line, sizeof(line));
		err = err_ret(why, -EIO, "kernel provider '%s' list: %s%s%s", cmd, st,
			      *line ? ": " : "", line);
		goto out;
	}
	*kernels = json_array();
	if (!*kernels) {
		err = err_ret(why, -ENOMEM, "out of memory");
		goto out;
	}
	if (out_len >= PROVIDER_MAX_OUTPUT)	/* the rest was dropped: a line may be cut */
		err = err_ret(why, -E2BIG, "kernel provider '%s' list: more than "
			      "%u bytes of output", cmd, PROVIDER_MAX_OUTPUT);
	else
		err = provider_list_parse(cmd, out ? out : "", out_len, *kernels, why);
	if (err) {
		json_decref(*kernels);
		*kernels = NULL;
	}
out:
	if (out_fd >= 0)
		close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	free(out);
	free(errs);
	return err;
}

/* Log the lines of RUN's output not logged yet; with ALL also an unfinished last one. */
static void log_lines(struct provider_run *run, bool all)
{
	while (run->output && run->logged < run->output_len) {
		const char *start = run->output + run->logged;
		const char *nl = memchr(start, '\n', run->output_len - run->logged);
		size_t n = nl ? (size_t)(nl - start) : run->output_len - run->logged;

		if (!nl && !all)
			break;
		if (n)
			pr_info("kernel provider: %.*s", (int)n, start);
		run->logged += n + (nl ? 1 : 0);
	}
}

static void run_release(struct provider_run *run)
{
	if (run->err_fd >= 0)
		close(run->err_fd);
	free(run->output);
	memset(run, 0, sizeof(*run));
	run->err_fd = -1;
}

int provider_boot_start(const struct provider_config *cfg, const char *release,
			struct provider_run *run, struct err *why)
{
	int timeout = cfg->boot_timeout_ms > 0 ? cfg->boot_timeout_ms : PROVIDER_BOOT_TIMEOUT_MS;
	pid_t pid;

	memset(run, 0, sizeof(*run));
	run->err_fd = -1;
	if (!cfg->argc)
		return err_ret(why, -ENOENT, "no kernel_provider in the agent's "
			       "configuration");
	if (!provider_release_ok(release))
		return err_at(why, NULL, 0, 0, "'%.64s' is not a kernel release",
			      release ? release : "");
	pid = spawn(cfg, "boot", release, NULL, &run->err_fd);
	if (pid < 0)
		return err_ret(why, pid, "kernel provider '%s': cannot start it: %s",
			       cfg->argv[0], strerror(-pid));
	run->pid = pid;
	run->started_ms = util_mono_ms();
	run->deadline_ms = run->started_ms + timeout;
	snprintf(run->release, sizeof(run->release), "%s", release);
	return 0;
}

int provider_boot_poll(struct provider_run *run, struct err *why)
{
	char st[64], line[512];
	int status = 0, err;
	pid_t w;

	if (!run->pid)
		return err_ret(why, -ECHILD, "no kernel provider is running");
	if (run->err_fd >= 0) {
		err = drain_fd(run->err_fd, &run->output, &run->output_len);
		if (err <= 0) {
			close(run->err_fd);
			run->err_fd = -1;
		}
	}
	log_lines(run, false);
	w = waitpid(run->pid, &status, WNOHANG);
	if (w == 0) {
		if (util_mono_ms() < run->deadline_ms)
			return 1;
		kill_reap(run->pid);
		log_lines(run, true);
		last_line(run->output, line, sizeof(line));
		err = err_ret(why, -ETIMEDOUT, "boot %s: the kernel provider did "
			      "not finish within %lld ms; killed%s%s", run->release,
			      (long long)(run->deadline_ms - run->started_ms),
			      *line ? ": " : "", line);
		run_release(run);
		return err;
	}
	if (w < 0) {
		err = err_ret(why, -errno, "boot %s: cannot wait for the kernel "
			      "provider: %s", run->release, strerror(errno));
		run_release(run);
		return err;
	}
	if (run->err_fd >= 0)	/* whatever is left in the pipe */
		drain_fd(run->err_fd, &run->output, &run->output_len);
	log_lines(run, true);
	err = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		status_text(status, st, sizeof(st));
		last_line(run->output, line, sizeof(line));
		err = err_ret(why, -EIO, "boot %s: the kernel provider failed (%s)%s%s",
			      run->release, st, *line ? ": " : "", line);
	}
	run_release(run);
	return err;
}

void provider_boot_abort(struct provider_run *run)
{
	if (run->pid)
		kill_reap(run->pid);
	run_release(run);
}
