// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_verifier_log.c - agent/verifier_log.c on real verifier logs: the summary of a
 * BPF_LOG_STATS log (kernel 6.1 and 6.12 wording), the older wording without states
 * (kernel 4.19: "processed 39 insns (limit 131072), stack depth 0"), the last of several
 * summaries, logs without one or with a damaged one, a log without NUL read only to its
 * length; and the last lines of a refusal joined for an error message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "verifier_log.h"

/* kernel 6.1.0-47, xdp_sport_count of bpf/test_agent.bpf.c, log level 4 */
#define STATS_61 \
	"verification time 41 usec\n" \
	"stack depth 8\n" \
	"processed 26 insns (limit 1000000) max_states_per_insn 0 total_states 2 " \
	"peak_states 2 mark_read 1\n"

/* a refusal at log level 1 (xdp_bad of bpf/test_agent.bpf.o) */
#define REFUSED \
	"0: R1=ctx(off=0,imm=0) R10=fp0\n" \
	"; void *data = (void *)(long)ctx->data;\n" \
	"0: (61) r1 = *(u32 *)(r1 +0)          ; R1_w=pkt(off=0,r=0,imm=0)\n" \
	"1: (71) r0 = *(u8 *)(r1 +0)\n" \
	"invalid access to packet, off=0 size=1, R1(id=0,off=0,r=0)\n" \
	"R1 offset is outside of the packet\n" \
	"processed 2 insns (limit 1000000) max_states_per_insn 0 total_states 0 " \
	"peak_states 0 mark_read 0\n"

static void test_stats_log(void **state)
{
	struct verifier_log_stats s;

	(void)state;
	assert_int_equal(verifier_log_parse(STATS_61, sizeof(STATS_61), &s), 0);
	assert_true(s.has_processed);
	assert_int_equal(s.processed_insns, 26);
	assert_int_equal(s.insn_limit, 1000000);
	assert_int_equal(s.max_states_per_insn, 0);
	assert_int_equal(s.total_states, 2);
	assert_int_equal(s.peak_states, 2);
	assert_int_equal(s.mark_read, 1);
	assert_true(s.has_time);
	assert_int_equal(s.time_us, 41);
}

static void test_level1_and_old_wording(void **state)
{
	static const char old[] = "0: (b7) r0 = 2\n1: (95) exit\n"
				  "processed 39 insns (limit 131072), stack depth 0\n";
	struct verifier_log_stats s;

	(void)state;
	assert_int_equal(verifier_log_parse(REFUSED, strlen(REFUSED), &s), 0);
	assert_int_equal(s.processed_insns, 2);
	assert_false(s.has_time);
	assert_int_equal(verifier_log_parse(old, strlen(old), &s), 0);
	assert_int_equal(s.processed_insns, 39);
	assert_int_equal(s.insn_limit, 131072);
	assert_int_equal(s.total_states, 0);
}

/* The last summary wins; a summary cut at the buffer's end or damaged is not one. */
static void test_last_and_damaged(void **state)
{
	static const char two[] = "processed 5 insns (limit 1000000) max_states_per_insn 0 "
				  "total_states 1 peak_states 1 mark_read 0\n"
				  "processed 7 insns (limit 1000000) max_states_per_insn 1 "
				  "total_states 3 peak_states 2 mark_read 0";
	static const char *const bad[] = {
		"", "processed insns\n", "processed x insns (limit 1)\n",
		"processed 99999999999999999999999 insns (limit 1000000)\n",
		"processed 3 insns (limit \n", "processed 3 insns (limit 9 total_states 1\n",
		"processed 3 insns (limit 1000000) max_states_per_insn \n",
		"  processed 3 insns\n", "verification time 3 usec\n",
	};
	struct verifier_log_stats s;
	size_t i;

	(void)state;
	assert_int_equal(verifier_log_parse(two, strlen(two), &s), 0);
	assert_int_equal(s.processed_insns, 7);
	assert_int_equal(s.total_states, 3);
	assert_int_equal(s.peak_states, 2);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(verifier_log_parse(bad[i], strlen(bad[i]), &s), -ENOENT);
		assert_false(s.has_processed);
	}
	assert_true(s.has_time);	/* the last one: a time, no summary */
	assert_int_equal(s.time_us, 3);
	assert_int_equal(verifier_log_parse(NULL, 10, &s), -ENOENT);
	/* read to LEN only: the summary after it is not seen */
	assert_int_equal(verifier_log_parse(STATS_61, 30, &s), -ENOENT);
	assert_true(s.has_time);
}

static void test_tail(void **state)
{
	char out[512], small[12];
	size_t n;

	(void)state;

	n = verifier_log_tail(REFUSED, sizeof(REFUSED), 3, out, sizeof(out));
	assert_int_equal(n, strlen(out));
	assert_string_equal(out, "invalid access to packet, off=0 size=1, R1(id=0,off=0,r=0) | "
			    "R1 offset is outside of the packet | processed 2 insns (limit "
			    "1000000) max_states_per_insn 0 total_states 0 peak_states 0 "
			    "mark_read 0");
	verifier_log_tail("a\n\n\nb\n\n", 8, 2, out, sizeof(out));
	assert_string_equal(out, "a | b");
	verifier_log_tail("one\ttab\n", 8, 5, out, sizeof(out));
	assert_string_equal(out, "one?tab");
	verifier_log_tail(REFUSED, sizeof(REFUSED), 1, small, sizeof(small));
	assert_string_equal(small, "processed 2");
	verifier_log_tail("", 1, 3, out, sizeof(out));
	assert_string_equal(out, "");
	assert_int_equal(verifier_log_tail(NULL, 0, 3, out, sizeof(out)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_log),
		cmocka_unit_test(test_level1_and_old_wording),
		cmocka_unit_test(test_last_and_damaged),
		cmocka_unit_test(test_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
