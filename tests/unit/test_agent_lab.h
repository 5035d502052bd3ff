/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* test_agent_lab.h - a network namespace with one veth pair for the agent's unit tests.
 *
 * lab_up() creates namespace bpflab-t-agent-WHAT-PID with veth va <-> vb (both up,
 * 198.19.1.1/24 on va, 198.19.1.2/24 on vb) and moves the calling thread into it;
 * lab->ports are then va as role a and vb as role b, as attach_load() takes them;
 * lab_down() moves back and deletes the namespace, which also removes the veth pair and
 * anything attached to it. Namespaces of earlier runs whose process is gone are deleted
 * first, so a crashed test leaves nothing behind for long. The including file's lab is
 * `lab`, declared here: lab_setup() is the cmocka group setup around lab_up() that every
 * such test file shares (lab_setup_bpf() with the log set up for the tests that load BPF),
 * lab_teardown() the group teardown, SKIP_UNLESS_LAB() the per-test guard,
 * assert_nothing_attached() the check that no XDP program stayed on va or vb. Header-only,
 * included after <cmocka.h> by one test file each; everything is static. It brings
 * helpers.h (the helpers of all unit tests) along.
 */
#ifndef BPFLAB_TEST_AGENT_LAB_H
#define BPFLAB_TEST_AGENT_LAB_H

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "attach.h"
#include "base/log.h"
#include "helpers.h"

#define LAB_PREFIX "bpflab-t-agent-"

struct lab {
	char ns[64];
	int home_fd;		/* the netns we came from */
	int ifa, ifb;		/* ifindex of va, vb */
	struct attach_port ports[2];	/* va as role a, vb as role b */
	int up;
};

static int lab_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int lab_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* Delete bpflab-t-agent-*-PID namespaces whose PID no longer runs. */
static void lab_reap_stale(void)
{
	FILE *f = popen("ip netns list 2>/dev/null", "r");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *dash, name[128];
		long pid;

		if (sscanf(line, "%127s", name) != 1 || strncmp(name, LAB_PREFIX, strlen(LAB_PREFIX)))
			continue;
		dash = strrchr(name, '-');
		pid = dash ? strtol(dash + 1, NULL, 10) : 0;
		if (pid > 0 && kill((pid_t)pid, 0) && errno == ESRCH)
			lab_sh("ip netns del %s 2>/dev/null", name);
	}
	pclose(f);
}

static int lab_up(struct lab *lab, const char *what)
{
	char path[128];
	int fd;

	memset(lab, 0, sizeof(*lab));
	lab->home_fd = -1;
	if (geteuid() != 0)
		return -EPERM;
	lab_reap_stale();
	snprintf(lab->ns, sizeof(lab->ns), LAB_PREFIX "%s-%d", what, (int)getpid());
	lab_sh("ip netns del %s 2>/dev/null", lab->ns);
	if (lab_sh("ip netns add %s", lab->ns))
		return -EIO;
	lab->up = 1;
	if (lab_sh("ip -n %s link add va type veth peer name vb && "
		   "ip -n %s addr add 198.19.1.1/24 dev va && "
		   "ip -n %s addr add 198.19.1.2/24 dev vb && "
		   "ip -n %s link set va up && ip -n %s link set vb up && "
		   "ip -n %s link set lo up",
		   lab->ns, lab->ns, lab->ns, lab->ns, lab->ns, lab->ns))
		return -EIO;
	lab->home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/run/netns/%s", lab->ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (lab->home_fd < 0 || fd < 0 || setns(fd, CLONE_NEWNET)) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	close(fd);
	lab->ifa = if_nametoindex("va");
	lab->ifb = if_nametoindex("vb");
	lab->ports[0] = (struct attach_port){ .role = "a", .ifname = "va", .ifindex = lab->ifa };
	lab->ports[1] = (struct attach_port){ .role = "b", .ifname = "vb", .ifindex = lab->ifb };
	return lab->ifa && lab->ifb ? 0 : -ENODEV;
}

static void lab_down(struct lab *lab)
{
	if (lab->home_fd >= 0) {
		setns(lab->home_fd, CLONE_NEWNET);
		close(lab->home_fd);
		lab->home_fd = -1;
	}
	if (lab->up)
		lab_sh("ip netns del %s", lab->ns);
	lab->up = 0;
}

/*
 * A cmocka group setup around lab_up(LAB, WHAT): not root, it says "test_agent_WHAT:
 * needs root, skipped" and returns 0 with LAB->up 0, so that SKIP_UNLESS_LAB() skips each
 * test; any other failure takes the lab down again (cmocka skips the teardown of a failed
 * setup) and is returned.
 */
static inline int lab_setup(struct lab *lab, const char *what)
{
	int err = lab_up(lab, what);

	if (err == -EPERM) {
		fprintf(stderr, "test_agent_%s: needs root, skipped\n", what);
		return 0;
	}
	if (err)
		lab_down(lab);
	return err;
}

/*
 * lab_setup() for the tests that load BPF programs: the log first, at WARN as
 * test_agent_WHAT, with libbpf's messages routed into it.
 */
static inline int lab_setup_bpf(struct lab *lab, const char *what)
{
	static char name[64];

	snprintf(name, sizeof(name), "test_agent_%s", what);
	log_init(name, LOG_WARN);
	log_route_libbpf();
	return lab_setup(lab, what);
}

/* No XDP program on LAB's va or vb (any mode). */
static inline void lab_assert_no_xdp(const struct lab *lab)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, qa);
	LIBBPF_OPTS(bpf_xdp_query_opts, qb);

	assert_int_equal(bpf_xdp_query(lab->ifa, 0, &qa), 0);
	assert_int_equal(bpf_xdp_query(lab->ifb, 0, &qb), 0);
	assert_int_equal(qa.prog_id + qb.prog_id, 0);
}

/* The including test file's lab. */
static struct lab lab;

/* The cmocka group teardown of the files whose setup only brings the lab up. */
static inline int lab_teardown(void **state)
{
	lab_down(&lab);
	return 0;
}

/* Skip the current test unless the file's lab is up: it is down only without root
 * (lab_setup), so the reason given is "needs root" (helpers.h, skip_unless_root). */
#define SKIP_UNLESS_LAB() do { if (!lab.up) { skip_unless_root(); \
					      skip_because("the lab is not up"); } } while (0)

/* lab_assert_no_xdp() on the file's lab. */
#define assert_nothing_attached() lab_assert_no_xdp(&lab)

#endif
