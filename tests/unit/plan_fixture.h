/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* plan_fixture.h - the fixture that the plan model's unit tests share (test_plan.c,
 * test_plan_format.c, test_plan_expand.c, test_plan_maps.c): plans written inline, so
 * that the positions in the expected messages can be read off the text, parsed with
 * overrides, and refused with exactly the message expected. plan_fixture.c.
 */
#ifndef BPFLAB_TEST_PLAN_FIXTURE_H
#define BPFLAB_TEST_PLAN_FIXTURE_H

#include <stddef.h>

#include "plan/plan.h"

/* The file name the plans are parsed as: the start of each expected message. */
#define FILE_NAME "plans/x.yaml"

/* Variants for plans that test something before them. */
#define V "variants: {v: [{port: a, object: o, program: p}]}\n"

/* A valid plan that the bad cases start from (8 lines). */
#define BASE                                                                   \
	"name: x\n"                                                            \
	"ports: [a, b]\n"                                                      \
	"traffic:\n"                                                           \
	"  from: a\n"                                                          \
	"  duration: 1s\n"                                                     \
	"variants:\n"                                                          \
	"  drop:\n"                                                            \
	"    - {port: b, object: xdp_basic.bpf.o, program: xdp_drop}\n"

/* The quickstart plan with every section written out (hosts, traffic, a matrix). */
extern const char plan_fix_full[];

/* TEXT parsed as FILE_NAME with the N_OV overrides OVS (at most 8, parsed first: the
 * test fails when one is refused); NULL and ERR when refused. */
struct plan *plan_fix_parse_ov(const char *text, const char *const *ovs, int n_ov,
			       struct err *err);
/* TEXT parsed without overrides; the test fails when it is refused. */
struct plan *plan_fix_parse_ok(const char *text);

/* TEXT (with the N_OV overrides OVS) is refused with exactly EXPECT and EINVAL, and
 * err.line/col agree with its prefix; plan_fix_error() without overrides. */
void plan_fix_error_ov(const char *text, const char *const *ovs, int n_ov,
		       const char *expect);
void plan_fix_error(const char *text, const char *expect);

/* A refused plan: its text and exactly the message it gets. */
struct plan_fix_bad {
	const char *text;
	const char *expect;
};

/* plan_fix_error() on each of the N CASES. */
void plan_fix_errors(const struct plan_fix_bad *cases, size_t n);

#endif
