/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_fixture.h - the fixture that the coordinator's unit tests share (test_coordinator.c,
 * test_coord_specs.c, test_coord_sched.c, test_coord_pair.c, test_coord_machine.c): an
 * in-process bpflabd (helpers.h's struct coord_fix) with an agent's and a client's DEALER,
 * the build's xdp_basic.bpf.o loaded for submits, two plans, and the messages the tests
 * send (hello, submit, result) and wait for. One thread: the test turns the loop with
 * coord_run_once between its own sends and receives. coord_fixture.c.
 *
 * test_boot.c and test_coord_bigrun.c have a struct tctx of their own (a loop thread, a
 * restart on one socket); they do not include this header.
 */
#ifndef BPFLAB_TEST_COORD_FIXTURE_H
#define BPFLAB_TEST_COORD_FIXTURE_H

#include <stddef.h>

#include <jansson.h>

#include "helpers.h"

#define OBJ_NAME "xdp_basic.bpf.o"

/* Two variants (drop, pass) of OBJ_NAME on port b of hosts with veth ports a and b,
 * repeat 1. */
extern const char tctx_plan_text[];
/* A two-host pair: the generator's port x, the DUT's port y, one variant. */
extern const char tctx_pair_plan[];

struct tctx {
	struct coord_fix fx;
	void *agent, *client;
	void *agent2;		/* a second agent, when a test has one (closed by teardown) */
	void *old;		/* a restarted agent's old connection, while a test keeps it */
	void *agent3;		/* a third agent (closed by teardown) */
	const char *machine;	/* machine.id in the inventory of hello_xy, or NULL */
};

/* cmocka setup: a new struct tctx in *STATE, its coordinator started with heartbeats
 * every HEARTBEAT_MS (0: the default) and a 20 ms tick, an agent and a client connected,
 * the object read; tctx_setup() with the default heartbeat. tctx_teardown() closes the
 * sockets the test left and takes the coordinator down. */
int tctx_setup_hb(void **state, int heartbeat_ms);
int tctx_setup(void **state);
int tctx_teardown(void **state);
/* A cmocka test F between tctx_setup and tctx_teardown. */
#define TCTX_TEST(f) cmocka_unit_test_setup_teardown(f, tctx_setup, tctx_teardown)

/* The inventory of host h1 (label rack r3) with ports a and b of DRIVER (new reference). */
json_t *tctx_inventory(const char *driver);

/* Agent NAME says hello with tctx_inventory(DRIVER) from t->agent and is welcomed. */
void tctx_hello(struct tctx *t, const char *name, const char *driver);

/* A hello from SOCK for agent NAME with ports x and y (machine t->machine when set);
 * KEPT: a job it still runs. */
void tctx_hello_xy(struct tctx *t, void *sock, const char *name, long long kept);

/* A submit of plan TEXT with t's object (its sha256 SHA instead, when not NULL) and the
 * override traffic.packet.size=128 (new reference). */
json_t *tctx_submit_msg(struct tctx *t, const char *text, const char *sha);

/* An ok result of JOB: two rate samples of port.rx_pps of VALUE and a cost sample. */
json_t *tctx_result_msg(long long job, double value);

/* A message of TYPE with "run": RUN when RUN is not 0. */
json_t *tctx_simple(const char *type, long long run);

/* Host NAME's entry in host_list (new reference); the test fails without one. */
json_t *tctx_host_of(struct tctx *t, const char *name);

/* Turn the loop until SOCK has a message that is not a heartbeat (NULL after
 * TIMEOUT_MS), sending a heartbeat from each of the N sockets of LIVE every 100 ms
 * (agents that stay alive). */
json_t *tctx_pump_live(struct tctx *t, void *sock, void **live, int n, int timeout_ms);

/* The next message on SOCK (within 3 s, LIVE beating) must be of TYPE (for JOB, when not
 * 0), else the test fails; the caller owns it. */
json_t *tctx_want(struct tctx *t, void *sock, void **live, int n, const char *type,
		  long long job);

/* The agent on SOCK sends a message of TYPE for JOB (accept, ready). */
void tctx_says(void *sock, const char *type, long long job);

/* The attempts of JOB of run RUN as "outcome:error|..." into OUT. */
void tctx_attempts_of(struct tctx *t, long long run, long long job, char *out, size_t len);

/* h1 (ports x, y) on socket H1 and h2 on H2 say hello, a discovery finds the link from
 * h1's x to h2's y, and tctx_pair_plan is submitted: *RUN, with its generator job *GEN
 * handed to h1 and its DUT job *DUT to h2, each accepted. */
void tctx_pair_start(struct tctx *t, void *h1, void *h2, long long *run, long long *gen,
		     long long *dut);

#endif
