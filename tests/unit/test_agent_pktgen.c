// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_pktgen.c - the pktgen generator against a temporary directory that stands in
 * for /proc/net/pktgen (this machine's kernel has no pktgen): the exact commands written
 * to each control file, the frame count from pkts-sofar, and the error without the
 * module. No privileges needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pktgen.h"
#include "base/util.h"

static char dir[64];

static void touch(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *name)
{
	char path[256], *text = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(util_read_file(path, 1 << 20, &text, &len), 0);
	return text;
}

static void test_pktgen_commands(void **state)
{
	const int cpus[] = { 1 };
	struct pktgen_config cfg = {
		.dir = dir, .ifname = "port-a", .dst_mac = { 2, 0, 0, 0, 0, 0xb },
		.size = 64, .flows = 4, .threads = 2, .cpus = cpus, .n_cpus = 1,
	};
	struct pktgen *gen;
	uint64_t frames = 0;
	char *text;
	struct err err;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/bpflab-pktgen-XXXXXX");
	assert_non_null(mkdtemp(dir));

	/* no pgctrl: the module is missing */
	gen = pktgen_new(&cfg, &err);
	assert_null(gen);
	assert_int_equal(errno, ENOENT);
	assert_true(strstr(err.msg, "generator 'pktgen' needs the pktgen module") != NULL);

	touch("pgctrl", "");
	touch("kpktgend_1", "");
	touch("port-a@0", "");
	touch("port-a@1", "");
	gen = pktgen_new(&cfg, &err);
	if (!gen)
		fail_msg("pktgen_new: %s", err.msg);
	/* both threads pinned to CPU 1 by traffic.cpus: [1] */
	text = slurp("kpktgend_1");
	assert_string_equal(text, "rem_device_all\nrem_device_all\n"
				  "add_device port-a@0\nadd_device port-a@1\n");
	free(text);
	text = slurp("port-a@1");
	assert_string_equal(text, "count 0\nclone_skb 0\nburst 1\ndelay 0\npkt_size 64\n"
				  "dst_mac 02:00:00:00:00:0b\nsrc_min 198.19.1.1\n"
				  "src_max 198.19.1.1\ndst 198.19.1.2\nudp_src_min 1024\n"
				  "udp_src_max 1027\nudp_dst_min 9\nudp_dst_max 9\n");
	free(text);

	assert_int_equal(pktgen_start(gen, &err), 0);
	/* the start thread has written (here the write returns at once; in procfs it
	 * blocks until stop) */
	for (int i = 0; i < 1000; i++) {
		text = slurp("pgctrl");
		if (!strcmp(text, "start\n"))
			break;
		free(text);
		text = NULL;
		usleep(1000);
	}
	assert_non_null(text);
	free(text);
	touch("port-a@0", "Current:\n     pkts-sofar: 1000  errors: 0\n");
	touch("port-a@1", "Current:\n     pkts-sofar: 234  errors: 0\n");
	assert_int_equal(pktgen_frames(gen, &frames), 0);
	assert_int_equal(frames, 1234);
	assert_int_equal(pktgen_stop(gen, &err), 0);
	text = slurp("pgctrl");
	assert_string_equal(text, "start\nstop\n");
	free(text);
	pktgen_destroy(&gen);
	assert_null(gen);
	text = slurp("kpktgend_1");	/* devices removed again */
	assert_true(strlen(text) > 20 &&
		    !strcmp(text + strlen(text) - 30, "rem_device_all\nrem_device_all\n"));
	free(text);

	unlink(strcat(strcpy((char[128]){ 0 }, dir), "/pgctrl"));
	unlink(strcat(strcpy((char[128]){ 0 }, dir), "/kpktgend_1"));
	unlink(strcat(strcpy((char[128]){ 0 }, dir), "/port-a@0"));
	unlink(strcat(strcpy((char[128]){ 0 }, dir), "/port-a@1"));
	rmdir(dir);
}

/* With a rate, each device gets its thread's share as pktgen's own "ratep": 100001
 * frames/s over 3 threads is 33334 + 33334 + 33333; with traffic.burst 8, "burst 8" and
 * a delay of 8 frames' time at the share: 8e9 / 33334 = 239995 ns, 8e9 / 33333 = 240002 */
static void rate_run(int burst, const char *const *want)
{
	struct pktgen_config cfg = {
		.dir = dir, .ifname = "p", .dst_mac = { 2, 0, 0, 0, 0, 0xb },
		.size = 64, .flows = 1, .threads = 3, .rate_pps = 100001, .burst = burst,
	};
	char name[128], *text;
	struct err err;
	struct pktgen *gen;
	int i;

	snprintf(dir, sizeof(dir), "/tmp/bpflab-pktgen-XXXXXX");
	assert_non_null(mkdtemp(dir));
	touch("pgctrl", "");
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "kpktgend_%d", i);
		touch(name, "");
		snprintf(name, sizeof(name), "p@%d", i);
		touch(name, "");
	}
	gen = pktgen_new(&cfg, &err);
	if (!gen)
		fail_msg("pktgen_new: %s", err.msg);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "p@%d", i);
		text = slurp(name);
		/* after the last command of the rate-less sequence */
		assert_non_null(strstr(text, "udp_dst_max 9\n"));
		assert_non_null(strstr(text, burst ? "burst 8\ndelay 0\n" : "burst 1\ndelay 0\n"));
		assert_string_equal(strstr(text, "udp_dst_max 9\n") + 14, want[i]);
		free(text);
	}
	pktgen_destroy(&gen);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s/kpktgend_%d", dir, i);
		unlink(name);
		snprintf(name, sizeof(name), "%s/p@%d", dir, i);
		unlink(name);
	}
	unlink(strcat(strcpy((char[128]){ 0 }, dir), "/pgctrl"));
	rmdir(dir);
}

static void test_pktgen_rate(void **state)
{
	static const char *const ratep[] = { "ratep 33334\n", "ratep 33334\n", "ratep 33333\n" };
	static const char *const delay[] = { "delay 239995\n", "delay 239995\n",
					     "delay 240002\n" };

	(void)state;
	rate_run(0, ratep);
	rate_run(8, delay);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pktgen_commands),
		cmocka_unit_test(test_pktgen_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
