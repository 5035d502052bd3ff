// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_fixture.c - the fixture of the plan model's unit tests (plan_fixture.h): plans
 * parsed with overrides, and refusals checked to the letter and to their position.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan/plan.h"
#include "helpers.h"
#include "plan_fixture.h"

const char plan_fix_full[] =
	"name: quickstart\n"
	"description: text\n"
	"hosts:\n"
	"  match: {port.driver: veth, kernel.release: \">=6.1\"}\n"
	"  count: all\n"
	"ports: [a, b]\n"
	"traffic:\n"
	"  generator: xdp-live\n"
	"  from: a\n"
	"  packet: {size: 64, proto: udp4, flows: 1}\n"
	"  threads: 1\n"
	"  duration: 10s\n"
	"  warmup: 2s\n"
	"variants:\n"
	"  drop:\n"
	"    - {port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o, program: xdp_drop}\n"
	"matrix:\n"
	"  traffic.packet.size: [64, 1500]\n"
	"repeat: 3\n"
	"metrics: [port.rx_pps, port.tx_pps, port.drop_pps, prog.ns_per_run]\n";

struct plan *plan_fix_parse_ov(const char *text, const char *const *ovs, int n_ov,
			       struct err *err)
{
	struct plan_override ov[8];
	struct plan *p;
	int i;

	assert_true(n_ov <= 8);
	for (i = 0; i < n_ov; i++)
		assert_int_equal(plan_override_parse(ovs[i], &ov[i], err), 0);
	p = plan_parse(FILE_NAME, text, strlen(text), ov, n_ov, err);
	for (i = 0; i < n_ov; i++)
		plan_override_release(&ov[i]);
	return p;
}

struct plan *plan_fix_parse_ok(const char *text)
{
	struct err err;
	struct plan *p = plan_fix_parse_ov(text, NULL, 0, &err);

	if (!p)
		fail_msg("plan refused: %s", err.msg);
	return p;
}

/* TEXT is refused with exactly EXPECT, and err.line/col agree with its prefix. */
void plan_fix_error_ov(const char *text, const char *const *ovs, int n_ov,
		       const char *expect)
{
	struct err err;
	struct plan *p;
	char prefix[64];

	errno = 0;
	p = plan_fix_parse_ov(text, ovs, n_ov, &err);
	if (p) {
		plan_destroy(&p);
		fail_msg("plan accepted, expected: %s", expect);
	}
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.msg, expect);
	if (err.line)
		snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", FILE_NAME, err.line, err.col);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", FILE_NAME);
	assert_int_equal(strncmp(err.msg, prefix, strlen(prefix)), 0);
}

void plan_fix_error(const char *text, const char *expect)
{
	plan_fix_error_ov(text, NULL, 0, expect);
}

/* plan_fix_error() on each of the N CASES. */
void plan_fix_errors(const struct plan_fix_bad *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		plan_fix_error(cases[i].text, cases[i].expect);
}
