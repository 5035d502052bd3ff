// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_web_chart.c - web_chart.c's hover titles on a hand-made history report: a point
 * of one value (no stddev: `result history -j` gives null) says "-", never "nan"
 * (tests/integration/test_dashboard.sh found it in a real browser); a point with every
 * number says them as %.6g / %.3g / %.2f. The run page's charts (web_chart_run) on a
 * hand-made result and seconds: a dot per repetition, records left out, each dot a link
 * to its job's seconds, the clicked job's traces first, names escaped, the dot cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "web.h"

static void test_web_chart_titles(void **state)
{
	const char *text =
		"{\"by\":\"kernel.release\",\"groups\":[{\"group\":\"6.1\"},{\"group\":\"6.2\"}],"
		"\"series\":[{\"metric\":\"prog.ns_per_run\",\"point\":\"\",\"variant\":\"v\","
		"\"subject\":\"p\",\"unit\":\"ns\",\"points\":["
		"{\"group\":\"6.1\",\"n\":1,\"mean\":43.25,\"stddev\":null,\"spread\":0.0,"
		"\"delta_pct\":0.0},"
		"{\"group\":\"6.2\",\"n\":4,\"mean\":50.125,\"stddev\":1.2345,\"spread\":2.5,"
		"\"delta_pct\":15.8959537572254}],\"changes\":[]}]}";
	json_t *report = json_loads(text, 0, NULL);
	struct web_buf b = { 0 };

	(void)state;
	assert_non_null(report);
	web_chart_history(&b, report);
	web_buf_add(&b, "", 1);
	assert_false(b.failed);
	assert_non_null(strstr(b.data, "<title>6.1: n 1, mean 43.25 ± -, spread 0, "
			       "delta 0.00 %</title>"));
	assert_non_null(strstr(b.data, "<title>6.2: n 4, mean 50.125 ± 1.23, spread 2.5, "
			       "delta 15.90 %</title>"));
	assert_null(strstr(b.data, "nan"));
	web_buf_release(&b);
	json_decref(report);
}

/* A whole-window sample of job JOB. */
static json_t *sample(int job, const char *metric, const char *variant, double v)
{
	return json_pack("{s:i, s:s, s:s, s:i, s:{}, s:s, s:s, s:f, s:s, s:s}", "job", job,
			 "host", "h1", "variant", variant, "rep", job, "point", "metric", metric,
			 "subject", "b", "value", v, "unit", "pps", "window", "rate");
}

static void test_web_chart_run(void **state)
{
	json_t *result = json_pack("{s:[]}", "samples"), *seconds, *samples;
	struct web_buf b = { 0 };
	const char *p;
	int n, i;

	(void)state;
	samples = json_object_get(result, "samples");
	json_array_append_new(samples, sample(1, "port.rx_pps", "<drop>", 10e6));
	json_array_append_new(samples, sample(2, "port.rx_pps", "<drop>", 12e6));
	json_array_append_new(samples, sample(3, "port.rx_pps", "pass", 14e6));
	json_array_append_new(samples, sample(3, "cpu.others", "pass", 0.5));	/* a record */
	/* job 2 clicked: its seconds (store_query_seconds of job 2) */
	seconds = json_pack("{s:i, s:s, s:[{s:i, s:s, s:s, s:i, s:{}, s:s, s:s, s:s, s:s, "
			    "s:[i, i, i], s:[f, f, f]}]}", "run", 7, "plan", "p", "series", "job",
			    2, "host", "h1", "variant", "<drop>", "rep", 2, "point", "metric",
			    "port.rx_pps", "subject", "b", "unit", "pps", "window", "rate",
			    "seconds", 0, 1, 2, "values", 8e6, 12e6, 13e6);
	web_chart_run(&b, result, 7, 2, seconds);
	web_buf_add(&b, "", 1);
	assert_false(b.failed);
	for (n = 0, p = b.data; (p = strstr(p, "<circle class=\"rep\"")); p++)
		n++;
	assert_int_equal(n, 3);			/* not the record */
	assert_null(strstr(b.data, "cpu.others"));
	assert_null(strstr(b.data, "<drop>"));	/* escaped */
	/* each dot links to the page with its job's seconds; job 2's marked */
	assert_non_null(strstr(b.data, "<a href=\"/runs/7?seconds=1#seconds\"><circle "
			       "class=\"rep\""));
	assert_non_null(strstr(b.data, "r=\"5\" fill=\"#ff7f0e\"><title>h1 &lt;drop&gt; b rep "
			       "2: 12.0M pps</title>"));
	/* the trace first, where the link lands */
	p = strstr(b.data, "<div id=\"seconds\">");
	assert_non_null(p);
	assert_true(p < strstr(b.data, "<circle class=\"rep\""));
	assert_non_null(strstr(b.data, "<h4>per second: port.rx_pps h1 &lt;drop&gt; b rep 2</h4>"));
	assert_non_null(strstr(b.data, "<title>second 1: 12.0M</title>"));
	assert_non_null(strstr(b.data, "mean 11.0M pps of 2, min..max 10.0M..12.0M"));
	assert_null(strstr(b.data, "<script"));
	assert_null(strstr(b.data, "nan"));
	web_buf_release(&b);

	/* a job without seconds says so */
	json_array_clear(json_object_get(seconds, "series"));
	web_chart_run(&b, result, 7, 3, seconds);
	web_buf_add(&b, "", 1);
	assert_non_null(strstr(b.data, "<p>Job 3 has no per-second values.</p>"));
	web_buf_release(&b);

	/* no job: no traces; over the cap: a note */
	for (i = 0; i < 2100; i++)
		json_array_append_new(samples, sample(10 + i, "prog.ns_per_run", "pass", 30 + i % 7));
	b = (struct web_buf){ 0 };
	web_chart_run(&b, result, 7, 0, NULL);
	web_buf_add(&b, "", 1);
	assert_null(strstr(b.data, "id=\"seconds\""));
	assert_non_null(strstr(b.data, "<p>2000 of 2103 repetitions drawn.</p>"));
	web_buf_release(&b);
	json_decref(seconds);
	json_decref(result);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_web_chart_titles),
		cmocka_unit_test(test_web_chart_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
