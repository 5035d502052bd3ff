// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect_measure.c - measuring a kernel through the coordinator for `bpflab bisect`
 * (bisect_int.h): a connected host that runs it (or one switched by its agent's kernel
 * provider, or brought up by the user's --provider), and a run of the plan there.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect_int.h"
#include "proto/proto.h"
#include "base/util.h"

/* --- measuring through the coordinator --- */

/* A connected (idle or busy) host named NAME (NULL: any) whose kernel.release is KERNEL
 * (NULL: any): its name into NAME_OUT and its kernel into KERNEL_OUT (each may be NULL).
 * Returns 0, -ENOENT if there is none, -EIO after printing the error. */
int bisect_host_find(const char *name, const char *kernel, char *name_out, size_t name_len,
		     char *kernel_out, size_t kernel_len)
{
	json_t *hosts = bisect_coord_ask("host_list", 0, NULL, "hosts", "hosts"), *h;
	size_t i;
	int ret = -ENOENT;

	if (!hosts)
		return -EIO;
	json_array_foreach(hosts, i, h) {
		const char *state = jget_str(h, "state", "");

		if (strcmp(state, "idle") && strcmp(state, "busy"))
			continue;
		if ((name && strcmp(jget_str(h, "name", ""), name)) ||
		    (kernel && strcmp(jget_str(h, "kernel_release", ""), kernel)))
			continue;
		if (name_out)
			snprintf(name_out, name_len, "%s", jget_str(h, "name", ""));
		if (kernel_out)
			snprintf(kernel_out, kernel_len, "%s",
				 jget_str(h, "kernel_release", ""));
		ret = 0;
		break;
	}
	json_decref(hosts);
	return ret;
}

/* The name of a connected host whose kernel.release is KERNEL, into OUT (bisect_host_find). */
int bisect_host_running(const char *kernel, char *out, size_t len)
{
	return bisect_host_find(NULL, kernel, out, len, NULL, 0);
}

/* Run the kernel provider PROVIDER (a shell command line from the user: an option or
 * the environment, never from a plan) with KERNEL as its last argument, its output on
 * our stderr. Returns 0 when it exited 0. */
static int provide(const char *provider, const char *kernel)
{
	char *script = NULL;
	int status, ret = -1;
	pid_t pid;

	if (asprintf(&script, "%s \"$1\"", provider) < 0)
		return -ENOMEM;
	fprintf(stderr, "bisect: asking the kernel provider for '%s': %s '%s'\n", kernel,
		provider, kernel);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execl("/bin/sh", "sh", "-c", script, "sh", kernel, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		ret = WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECHILD;
	free(script);
	return ret;
}


/* A connected host running KERNEL, into OUT: one that is there, or else a connected
 * idle host whose agent's kernel provider offers KERNEL, switched to it (host boot,
 * waiting up to 300 s; never one of the step's HANDED hosts), or else one the provider
 * PROVIDER (NULL: none) brings up. The host found is added to HANDED. -ENOENT when
 * there is none (the kernel is to be skipped).
 * The provider is told about a kernel that a host already runs too (it must then do
 * nothing but exit 0), so that it knows which hosts are in use: the lab's guest-up
 * stops the least recently used guests first. */
int bisect_host_with_kernel(const char *provider, const char *kernel,
			    struct step_hosts *handed, char *out, size_t len)
{
	const int boot_wait_s = 300;	/* for a host that switches itself (host boot) */
	int err = bisect_host_running(kernel, out, len), i;

	if (!err && provider && *provider && provide(provider, kernel))
		fprintf(stderr, "bisect: the kernel provider failed for '%s', which host '%s' "
			"runs already; using that host\n", kernel, out);
	if (!err)
		goto found;
	if (err != -ENOENT)
		return err;
	/* a host of the lab that can switch itself (docs/agent.md, "Kernel provider") */
	err = cli_host_offering(kernel, handed->skip, handed->n, out, len);
	if (err == -EIO)
		return err;
	if (!err) {
		fprintf(stderr, "bisect: switching host '%s' to '%s' (its agent's kernel "
			"provider)\n", out, kernel);
		if (!cli_host_boot(out, kernel, boot_wait_s, NULL, 0))
			goto found;
		fprintf(stderr, "bisect: host '%s' did not switch to '%s'%s\n", out, kernel,
			provider && *provider ? "; trying the kernel provider" : "");
	}
	if (!provider || !*provider) {
		fprintf(stderr, "bisect: no connected host runs '%s', no idle host's provider "
			"offers it and no kernel provider is set (--provider or "
			"BPFLAB_KERNEL_PROVIDER)\n", kernel);
		return -ENOENT;
	}
	if (provide(provider, kernel)) {
		fprintf(stderr, "bisect: the kernel provider could not bring up '%s'\n", kernel);
		return -ENOENT;
	}
	for (i = 0; i < BISECT_HOST_WAIT_S * 5; i++) {
		err = bisect_host_running(kernel, out, len);
		if (!err)
			goto found;
		if (err != -ENOENT)
			return err;
		usleep(200 * 1000);
	}
	fprintf(stderr, "bisect: the provider returned but no host with '%s' connected within "
		"%d s\n", kernel, BISECT_HOST_WAIT_S);
	return -ENOENT;
found:
	if (handed->n < (int)ARRAY_SIZE(handed->name)) {
		snprintf(handed->name[handed->n], sizeof(handed->name[0]), "%s", out);
		handed->skip[handed->n] = handed->name[handed->n];
		handed->n++;
	}
	return 0;
}

/* Submit plan FILE with OVERRIDES (may be NULL) and repeat=REPS on exactly HOSTS, wait
 * for the run (at most BISECT_RUN_WAIT_S) and put its id in *RUN. A run that ends with
 * failed jobs still returns 0 (its done jobs count). Returns 0 or an exit status after
 * the error. */
int bisect_submit_wait(const char *file, const json_t *overrides, unsigned int reps,
		       const json_t *hosts, long long *run)
{
	struct cli_plan cp = { 0 };
	json_t *reply = NULL, *r = NULL;
	char rep[32];
	long long t0 = util_wall_ms();
	int ret;

	*run = 0;
	cp.overrides = overrides ? json_deep_copy(overrides) : json_array();
	snprintf(rep, sizeof(rep), "repeat=%u", reps);
	if (!cp.overrides || json_array_append_new(cp.overrides, json_string(rep))) {
		ret = cli_error("out of memory");
		goto out;
	}
	ret = cli_plan_prepare(file, &cp);
	if (ret)
		goto out;
	ret = cli_submit(file, &cp, hosts, &reply);
	if (ret)
		goto out;
	*run = jget_int(reply, "run", 0);
	fprintf(stderr, "bisect: run %lld submitted: %lld jobs on %s\n", *run,
		jget_int(reply, "jobs", 0), json_string_value(json_array_get(hosts, 0)));
	for (;;) {
		const char *state;

		json_decref(r);
		r = bisect_coord_ask("run_show", *run, NULL, "run", "run");
		if (!r) {
			ret = CLI_EXIT_FAIL;
			goto out;
		}
		state = jget_str(r, "state", "");
		if (!strcmp(state, "done") || !strcmp(state, "failed") ||
		    !strcmp(state, "cancelled"))
			break;
		if (util_wall_ms() - t0 > BISECT_RUN_WAIT_S * 1000LL) {
			ret = cli_error("run %lld did not end within %d s", *run,
					BISECT_RUN_WAIT_S);
			goto out;
		}
		usleep(200 * 1000);	/* runs of a few jobs end in seconds */
	}
	fprintf(stderr, "bisect: run %lld %s in %.1f s: %lld/%lld jobs done, %lld failed\n",
		*run, jget_str(r, "state", "?"), (util_wall_ms() - t0) / 1000.0,
		jget_int(r, "jobs_done", 0), jget_int(r, "jobs_total", 0),
		jget_int(r, "jobs_failed", 0));
out:
	json_decref(r);
	json_decref(reply);
	cli_plan_release(&cp);
	return ret;
}
