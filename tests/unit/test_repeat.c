// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_repeat.c - lib/analysis/repeat.c: the repetition controller's decision against values
 * worked out by hand (the 95 % t interval of 3 and 4 values), the metrics of `on` only,
 * repetitions that do not count (disturbed) measured again up to max, a fixed count's
 * room of 2N, a failed repetition, and the policy read from a job spec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "helpers.h"
#include "analysis/repeat.h"

static json_t *spec_with(const char *repeat_json)
{
	char text[512];
	json_t *spec;

	snprintf(text, sizeof(text), "{\"variant\": \"drop\", \"repeat\": %s}", repeat_json);
	spec = json_loads(text, 0, NULL);
	assert_non_null(spec);
	return spec;
}

/* {100, 101, 99}: mean 100, s 1, t(0.975, 2) = 4.302653: +-4.302653 / sqrt(3) % =
 * +-2.484 %, wider than 2 %: one more. {100, 101, 99, 100}: s = sqrt(2/3) = 0.8165,
 * t(0.975, 3) = 3.182446: +-3.182446 * 0.8165 / 2 % = +-1.299 %: settled. */
static void test_repeat_until_by_hand(void **state)
{
	json_t *spec = spec_with("{\"min\": 3, \"max\": 20, \"until\": 0.02, "
				 "\"on\": [\"prog.ns_per_run\"]}");
	const double three[] = { 100, 101, 99 }, four[] = { 100, 101, 99, 100 };
	struct repeat_series s = { "prog.ns_per_run", "xdp_drop", three, 3 };
	struct repeat_state st = { .total = 3, .counted = 3 };
	struct repeat_policy p;
	struct repeat_decision d;

	assert_int_equal(repeat_policy_from_spec(spec, 99, &p), 0);
	assert_int_equal(p.min, 3);
	assert_int_equal(p.max, 20);
	repeat_decide(&p, &st, &s, 1, &d);
	assert_int_equal(d.action, REPEAT_MORE);
	assert_float_equal(d.halfwidth, 0.024841, 1e-5);
	assert_string_equal(d.metric, "prog.ns_per_run");
	assert_string_equal(d.why,
			    "prog.ns_per_run of 'xdp_drop': 95 % CI +-2.48 % > 2.00 % after 3 repetitions");

	s.v = four;
	s.n = 4;
	st.total = st.counted = 4;
	repeat_decide(&p, &st, &s, 1, &d);
	assert_int_equal(d.action, REPEAT_SETTLED);
	assert_float_equal(d.halfwidth, 0.012993, 1e-5);

	/* still wide at max: not settled, with the half-width reached */
	s.v = three;
	s.n = 3;
	st.total = 20;
	st.counted = 3;
	repeat_decide(&p, &st, &s, 1, &d);
	assert_int_equal(d.action, REPEAT_NOT_SETTLED);
	assert_string_equal(d.why,
			    "prog.ns_per_run of 'xdp_drop': 95 % CI +-2.48 % after 20 repetitions, not within 2.00 %");
	json_decref(spec);
}

/* Only the metrics of `on` settle; a series at zero (a port that receives nothing) has
 * no relative interval and does not hold the variant back. */
static void test_repeat_on_only(void **state)
{
	json_t *spec = spec_with("{\"min\": 3, \"max\": 20, \"until\": 0.05, "
				 "\"on\": [\"prog.ns_per_run\", \"port.rx_pps\"]}");
	const double cost[] = { 50, 50.5, 49.5 }, wild[] = { 1e6, 3e6, 2e6 };
	const double zero[] = { 0, 0, 0 };
	struct repeat_series s[] = {
		{ "prog.ns_per_run", "xdp_drop", cost, 3 },
		{ "gen.tx_pps", "", wild, 3 },		/* not in on */
		{ "port.rx_pps", "a", zero, 3 },
	};
	struct repeat_state st = { .total = 3, .counted = 3 };
	struct repeat_policy p;
	struct repeat_decision d;

	assert_int_equal(repeat_policy_from_spec(spec, 1, &p), 0);
	assert_true(repeat_policy_on(&p, "port.rx_pps"));
	assert_false(repeat_policy_on(&p, "gen.tx_pps"));
	repeat_decide(&p, &st, s, 3, &d);
	/* 4.302653 * 0.5 / sqrt(3) / 50 = 2.48 % <= 5 % */
	assert_int_equal(d.action, REPEAT_SETTLED);
	assert_float_equal(d.halfwidth, 0.024841, 1e-5);
	json_decref(spec);
}

/* Disturbed repetitions are measured again, counted against max; a failed one stops. */
static void test_repeat_uncounted(void **state)
{
	json_t *spec = spec_with("{\"min\": 3, \"max\": 5, \"until\": 0.5, \"on\": []}");
	struct repeat_state st = { .total = 3, .counted = 2 };
	struct repeat_policy p;
	struct repeat_decision d;

	assert_true(repeat_verdict_excluded("disturbed"));
	assert_true(repeat_verdict_excluded("warmup"));
	assert_false(repeat_verdict_excluded("unstable"));
	assert_int_equal(repeat_policy_from_spec(spec, 1, &p), 0);
	repeat_decide(&p, &st, NULL, 0, &d);
	assert_int_equal(d.action, REPEAT_MORE);
	assert_string_equal(d.why, "1 of 3 repetitions did not count (disturbed): 2 counted, min 3");
	st.total = 5;
	st.counted = 2;
	repeat_decide(&p, &st, NULL, 0, &d);
	assert_int_equal(d.action, REPEAT_NOT_SETTLED);
	st.total = 4;
	st.counted = 3;
	repeat_decide(&p, &st, NULL, 0, &d);
	assert_int_equal(d.action, REPEAT_SETTLED);	/* nothing in on: settled at min */
	st.failed = 1;
	repeat_decide(&p, &st, NULL, 0, &d);
	assert_int_equal(d.action, REPEAT_STOP_FAILED);
	json_decref(spec);
}

/* `repeat: N` (no "repeat" in the spec): N counted values, replacements up to 2N. */
static void test_repeat_fixed(void **state)
{
	json_t *spec = json_loads("{\"variant\": \"drop\"}", 0, NULL);
	const double wild[] = { 1, 2, 3 };
	struct repeat_series s = { "prog.ns_per_run", "p", wild, 3 };
	struct repeat_state st = { .total = 3, .counted = 3 };
	struct repeat_policy p;
	struct repeat_decision d;

	assert_int_equal(repeat_policy_from_spec(spec, 3, &p), 0);
	assert_int_equal(p.min, 3);
	assert_int_equal(p.max, 6);
	assert_true(p.until == 0);
	repeat_decide(&p, &st, &s, 1, &d);
	assert_int_equal(d.action, REPEAT_SETTLED);
	st.counted = 2;
	repeat_decide(&p, &st, &s, 1, &d);
	assert_int_equal(d.action, REPEAT_MORE);
	st.total = 6;
	repeat_decide(&p, &st, &s, 1, &d);
	assert_int_equal(d.action, REPEAT_NOT_SETTLED);
	json_decref(spec);
}

static void test_repeat_bad_spec(void **state)
{
	static const char *const bad[] = {
		"3",
		"{\"min\": 3, \"max\": 2, \"until\": 0.02}",
		"{\"min\": 3, \"max\": 20, \"until\": 1.5}",
		"{\"min\": 0, \"max\": 20, \"until\": 0.02}",
		"{\"min\": 3, \"max\": 20}",
		"{\"min\": 3, \"max\": 20, \"until\": 0.02, \"on\": \"x\"}",
	};
	struct repeat_policy p;
	size_t i;

	for (i = 0; i < ARRAY_LEN(bad); i++) {
		json_t *spec = spec_with(bad[i]);

		assert_int_equal(repeat_policy_from_spec(spec, 3, &p), -EINVAL);
		json_decref(spec);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repeat_until_by_hand),
		cmocka_unit_test(test_repeat_on_only),
		cmocka_unit_test(test_repeat_uncounted),
		cmocka_unit_test(test_repeat_fixed),
		cmocka_unit_test(test_repeat_bad_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
