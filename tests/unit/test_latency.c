// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_latency.c - the latency figures (docs/agent.md, "Latency"): the log-linear bucket
 * math and the sequence tracking the receiving BPF program runs (bpf/latency_shared.h,
 * the same code), percentiles of hand-worked histograms (lib/analysis/latency.c), and
 * the latency rows and table of `result show` (lib/report/report_latency.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/latency.h"
#include "latency_shared.h"
#include "report/report.h"
#include "helpers.h"

/* J as compact JSON equals TEXT. */
static void assert_json_equal(const json_t *j, const char *text)
{
	char *got = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);

	assert_non_null(got);
	assert_string_equal(got, text);
	free(got);
}

/* Bucket indexes worked out by hand: one bucket per ns below 16, then 16 per power of
 * two: 1000 = 2^9 + ..., (1000 >> 5) & 15 = 15, so (9 - 3) * 16 + 15 = 111, which holds
 * 992 .. 1023; 1000000: 2^19 + ..., (1000000 >> 15) & 15 = 14, (19 - 3) * 16 + 14 = 270,
 * (16 + 14) << 15 = 983040 .. + 32767; 2^40 and more in the last. */
static void test_latency_buckets(void **state)
{
	static const struct {
		uint64_t ns;
		uint32_t bucket;
		uint64_t low, width;
	} cases[] = {
		{ 0, 0, 0, 1 }, { 15, 15, 15, 1 }, { 16, 16, 16, 1 }, { 31, 31, 31, 1 },
		{ 32, 32, 32, 2 }, { 33, 32, 32, 2 }, { 34, 33, 34, 2 }, { 63, 47, 62, 2 },
		{ 64, 48, 64, 4 }, { 1000, 111, 992, 32 }, { 1000000, 270, 983040, 32768 },
		{ (1ull << 40) - 1, 591, 31ull << 35, 1ull << 35 },
		{ 1ull << 40, 591, 31ull << 35, 1ull << 35 }, { UINT64_MAX, 591, 31ull << 35, 1ull << 35 },
	};
	uint64_t v, prev = 0;
	size_t i;

	(void)state;
	assert_int_equal(LAT_BUCKETS, 592);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(lat_bucket(cases[i].ns), cases[i].bucket);
		assert_int_equal(lat_bucket_low(cases[i].bucket), cases[i].low);
		assert_int_equal(lat_bucket_width(cases[i].bucket), cases[i].width);
	}
	/* every value lies in its bucket, buckets follow values, at most 1/16 wide */
	for (v = 1; v < (1ull << 40); v = v * 9 / 8 + 1) {
		uint32_t b = lat_bucket(v);

		assert_true(lat_bucket_low(b) <= v && v < lat_bucket_low(b) + lat_bucket_width(b));
		assert_true(b >= prev);
		assert_true(lat_bucket_width(b) * 16 <= lat_bucket_low(b) || b < 16);
		prev = b;
	}
	for (i = 1; i < LAT_BUCKETS; i++)	/* no gaps between buckets */
		assert_int_equal(lat_bucket_low(i - 1) + lat_bucket_width(i - 1), lat_bucket_low(i));
}

/* 10 values: 5 of 5 ns, 4 in 992..1023, 1 in 49152..51199 (measured max 50000). Ranks:
 * p50 the 5th (5), p90 the 9th (bucket 111's top, 1023), p99 and p99.9 the 10th (51199,
 * kept to the max 50000). */
static void test_latency_percentiles(void **state)
{
	static uint64_t hist[LAT_BUCKETS];
	struct latency_summary s;
	char sub[64];
	json_t *j;

	(void)state;
	hist[5] = 5;
	hist[111] = 4;
	hist[200] = 1;
	assert_int_equal(lat_bucket_low(200), 49152);
	latency_summarize(hist, LAT_BUCKETS, 5, 50000, &s);
	assert_int_equal(s.count, 10);
	assert_int_equal(s.min, 5);
	assert_int_equal(s.p50, 5);
	assert_int_equal(s.p90, 1023);
	assert_int_equal(s.p99, 50000);
	assert_int_equal(s.p999, 50000);
	assert_int_equal(s.max, 50000);
	/* the 6th value is in bucket 111: p60 its top */
	assert_int_equal(latency_quantile(hist, LAT_BUCKETS, 10, 0.6, 5, 50000), 1023);
	/* a min above a bucket's top (the bucket is wider than the values) wins */
	assert_int_equal(latency_quantile(hist, LAT_BUCKETS, 10, 0.9, 1010, 50000), 1023);
	assert_int_equal(latency_quantile(hist, LAT_BUCKETS, 10, 0.5, 1010, 50000), 1010);
	/* empty */
	memset(hist, 0, sizeof(hist));
	latency_summarize(hist, LAT_BUCKETS, 0, 0, &s);
	assert_int_equal(s.count, 0);
	assert_int_equal(s.p50, 0);
	/* one value */
	hist[lat_bucket(700)] = 1;
	latency_summarize(hist, LAT_BUCKETS, 700, 700, &s);
	assert_int_equal(s.p50, 700);
	assert_int_equal(s.p999, 700);
	j = latency_hist_json(hist, LAT_BUCKETS);
	assert_json_equal(j, "[[672,703,1]]");	/* (16 + 5) << 5 .. + 31 */
	json_decref(j);
	assert_string_equal(latency_subject("b", 0.1, 0, sub, sizeof(sub)), "b@10%");
	assert_string_equal(latency_subject("b", 0.005, 0, sub, sizeof(sub)), "b@0.5%");
	assert_string_equal(latency_subject("b", 0, 90000, sub, sizeof(sub)), "b@90000");
}

/* 0 1 2 5 3 3 4 9 1 100 10, by hand: 5 leaves a gap (3, 4 missing), 3 fills it late,
 * the second 3 is a duplicate, 4 late, 9 a gap, 1 a duplicate (8 behind the newest, in
 * the window), 100 a gap that empties the window, 10 is 90 behind: late, too old to tell. */
static void test_latency_seq(void **state)
{
	static const struct {
		uint32_t seq;
		enum lat_seq_kind kind;
	} steps[] = {
		{ 0, LAT_SEQ_NEXT }, { 1, LAT_SEQ_NEXT }, { 2, LAT_SEQ_NEXT }, { 5, LAT_SEQ_GAP },
		{ 3, LAT_SEQ_LATE }, { 3, LAT_SEQ_DUP }, { 4, LAT_SEQ_LATE }, { 9, LAT_SEQ_GAP },
		{ 1, LAT_SEQ_DUP }, { 100, LAT_SEQ_GAP }, { 10, LAT_SEQ_LATE },
	};
	struct lat_seq s = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (lat_seq_update(&s, steps[i].seq) != steps[i].kind)
			fail_msg("step %zu (seq %u)", i, steps[i].seq);
	}
	assert_int_equal(s.received, 11);
	assert_int_equal(s.reordered, 3);
	assert_int_equal(s.duplicated, 2);
	assert_int_equal(s.next, 101);
	assert_int_equal(s.window, 1);
	/* a first frame that is not 0: the frames before it are a gap (lost) */
	memset(&s, 0, sizeof(s));
	assert_int_equal(lat_seq_update(&s, 3), LAT_SEQ_GAP);
	assert_int_equal(lat_seq_update(&s, 0), LAT_SEQ_LATE);
	assert_int_equal(lat_seq_update(&s, 63 + 3), LAT_SEQ_GAP);
	assert_int_equal(lat_seq_update(&s, 3), LAT_SEQ_DUP);	/* 63 behind: in the window */
	assert_int_equal(lat_seq_update(&s, 2), LAT_SEQ_LATE);	/* 64 behind: out of it */
}

#define SAMPLE(M, SUB, V) "{\"job\": 7, \"host\": \"h1\", \"variant\": \"police\", \"rep\": 1, " \
	"\"point\": {}, \"metric\": \"" M "\", \"subject\": \"" SUB "\", \"value\": " V ", " \
	"\"unit\": \"ns\", \"window\": \"rate\"}"

/* The rows of a result with one window (b@10%) and its histogram, and its table. */
static void test_latency_report(void **state)
{
	json_t *result = json_of("{\"run\": 3, \"plan\": \"l\", \"state\": \"done\", \"repeat\": 1, "
				 "\"hosts\": [{\"name\": \"h1\"}], \"variants\": [\"police\"], \"samples\": ["
				 SAMPLE("latency.load_pps", "b@10%", "10000") ", "
				 SAMPLE("latency.burst_max", "b@10%", "3") ", "
				 SAMPLE("latency.gap_p50_ns", "b@10%", "98304") ", "
				 SAMPLE("latency.min_ns", "b@10%", "1953") ", "
				 SAMPLE("latency.p50_ns", "b@10%", "34815") ", "
				 SAMPLE("latency.p90_ns", "b@10%", "69631") ", "
				 SAMPLE("latency.p99_ns", "b@10%", "118783") ", "
				 SAMPLE("latency.p999_ns", "b@10%", "170453") ", "
				 SAMPLE("latency.max_ns", "b@10%", "170453") ", "
				 SAMPLE("latency.lost", "b@10%", "0") ", "
				 SAMPLE("latency.foreign", "b@10%", "4") ", "
				 SAMPLE("port.rx_pps", "b", "10000") "], "
				 "\"latency_hist\": [{\"job\": 7, \"subject\": \"b@10%\", \"bucket\": 111, \"count\": 3},"
				 " {\"job\": 7, \"subject\": \"b@10%\", \"bucket\": 9999, \"count\": 1},"
				 " {\"job\": 8, \"subject\": \"b@10%\", \"bucket\": 5, \"count\": 1}]}");
	json_t *report = report_build(result), *rows;
	char *text;

	(void)state;
	assert_non_null(report);
	rows = json_object_get(report, "latency");
	assert_int_equal(json_array_size(rows), 1);
	assert_json_equal(json_object_get(json_array_get(rows, 0), "histogram"), "[[992,1023,3.0]]");
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "port")), "b");
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "load")), "10%");
	assert_true(json_number_value(json_object_get(json_array_get(rows, 0), "p99_ns")) == 118783);
	/* the spacing the receiver saw: the burst in the table, the gaps in -j */
	assert_true(json_number_value(json_object_get(json_array_get(rows, 0), "gap_p50_ns")) == 98304);
	text = report_text(report);
	assert_non_null(text);
	assert_contains(text, "latency  (one-way, µs;");
	assert_contains(text, "host  variant  rep  point  port  load    pps  burst  min   p50   p90    p99  p99.9    max  lost  reordered  duplicated  foreign\n"
			      "h1    police     1  -      b     10%   10000      3  2.0  34.8  69.6  118.8  170.5  170.5     0          -           -        4\n");
	assert_contains(text, "port.rx_pps");
	assert_null(strstr(text, "latency.p50_ns"));	/* in the latency table only */
	free(text);
	json_decref(report);
	json_decref(result);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_buckets),
		cmocka_unit_test(test_latency_percentiles),
		cmocka_unit_test(test_latency_seq),
		cmocka_unit_test(test_latency_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
