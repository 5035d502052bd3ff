// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_rxcost.c - agent/rxcost.c (rx.ns_per_frame, docs/agent.md "Metrics"): the
 * pure parts, tracepoint format parsing and the arithmetic from the map's sums to the
 * figures; and, as root, that bpf/rxpath.bpf.c loads and attaches to the three
 * tracepoints of the running kernel and detaches again. The whole path with traffic:
 * tests/integration/test_rxcost.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rxcost.h"
#include "helpers.h"

/* /sys/kernel/tracing/events/napi/napi_poll/format of 6.1, 6.12 and 6.18 */
static const char napi_poll_format[] =
	"name: napi_poll\n"
	"ID: 2291\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:struct napi_struct * napi;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] dev_name;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:int work;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\tfield:int budget;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"napi poll on napi struct %p for device %s work %d budget %d\", REC->napi, "
	"__get_str(dev_name), REC->work, REC->budget\n";

static const char softirq_format[] =
	"name: softirq_entry\n"
	"ID: 223\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, { 0, \"HI\" })\n";

static void test_format_field(void **state)
{
	int off = -1, size = -1;

	(void)state;
	assert_int_equal(rxcost_format_field(napi_poll_format, "work", &off, &size), 0);
	assert_int_equal(off, 20);
	assert_int_equal(size, 4);
	assert_int_equal(rxcost_format_field(napi_poll_format, "dev_name", &off, &size), 0);
	assert_int_equal(off, 16);
	assert_int_equal(size, 4);
	assert_int_equal(rxcost_format_field(napi_poll_format, "napi", &off, &size), 0);
	assert_int_equal(off, 8);
	assert_int_equal(size, 8);
	assert_int_equal(rxcost_format_field(napi_poll_format, "common_pid", &off, &size), 0);
	assert_int_equal(off, 4);
	assert_int_equal(rxcost_format_field(softirq_format, "vec", &off, &size), 0);
	assert_int_equal(off, 8);
	assert_int_equal(size, 4);
	/* a suffix of a name is not the name; absent fields */
	assert_int_equal(rxcost_format_field(napi_poll_format, "ork", &off, &size), -ENOENT);
	assert_int_equal(rxcost_format_field(softirq_format, "work", &off, &size), -ENOENT);
	assert_int_equal(rxcost_format_field("", "work", &off, &size), -ENOENT);
	/* an array field's name is before its [N] */
	assert_int_equal(rxcost_format_field("\tfield:char name[16];\toffset:12;\tsize:16;\tsigned:0;\n",
					     "name", &off, &size), 0);
	assert_int_equal(off, 12);
	assert_int_equal(size, 16);
	/* malformed: no offset on the field's line */
	assert_int_equal(rxcost_format_field("\tfield:int work;\tsize:4;\n\toffset:20;\n", "work",
					     &off, &size), -EINVAL);
}

static void test_check_format(void **state)
{
	char moved[sizeof(napi_poll_format) + 8], *p;
	struct err err;

	(void)state;
	assert_int_equal(rxcost_check_format("napi/napi_poll", napi_poll_format, &err), 0);
	assert_int_equal(rxcost_check_format("irq/softirq_entry", softirq_format, &err), 0);
	assert_int_equal(rxcost_check_format("irq/softirq_exit", softirq_format, &err), 0);
	/* work moved: refused, saying where */
	snprintf(moved, sizeof(moved), "%s", napi_poll_format);
	p = strstr(moved, "int work;\toffset:20");
	assert_non_null(p);
	p[strlen("int work;\toffset:") + 1] = '8';
	assert_int_equal(rxcost_check_format("napi/napi_poll", moved, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "napi/napi_poll has 'work' at offset 28 size 4"));
	assert_non_null(strstr(err.msg, "reads offset 20 size 4"));
	/* a field missing */
	assert_int_equal(rxcost_check_format("napi/napi_poll", softirq_format, &err),
			 -EPROTO);
	assert_non_null(strstr(err.msg, "no field 'napi'"));
}

static void put(struct rxcost_sums *s, uint64_t napi, int slot, struct rxpath_dev d)
{
	s->napis[s->n_napis].napi = napi;
	s->napis[s->n_napis].slot = slot;
	s->napis[s->n_napis].d = d;
	s->n_napis++;
}

static void test_delta(void **state)
{
	struct rxcost_sums a, b;
	struct rxcost_fig f;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.n_devs = b.n_devs = 2;
	put(&a, 0xffff1000, 0, (struct rxpath_dev){ .ns = 1000, .frames = 100, .polls = 10,
						    .empty_polls = 1, .empty_ns = 50, .outside = 3 });
	put(&b, 0xffff1000, 0, (struct rxpath_dev){ .ns = 1000 + 64 * 37 * 1000ULL,
						    .frames = 100 + 64000, .polls = 10 + 1500,
						    .empty_polls = 1 + 500,
						    .empty_ns = 50 + 500 * 420, .outside = 3 });
	a.sirq = (struct rxpath_sirq){ .ns = 5, .count = 1, .polls = 20, .hook_ns = 400 };
	b.sirq = (struct rxpath_sirq){ .ns = 9, .count = 9, .polls = 20 + 2000,
				       .hook_ns = 400 + 2000 * 48 };
	rxcost_delta(&a, &b, 0, 64000, &f);
	assert_false(f.frames_from_port);
	assert_true(f.napi == 0xffff1000);
	assert_true(f.ns_per_frame == 37.0);
	assert_true(f.frames == 64000.0);
	assert_true(f.polls == 1500.0);
	assert_true(f.empty_polls == 500.0);
	assert_true(f.empty_ns == 420.0);
	assert_true(f.outside == 0.0);
	assert_true(f.others == 0.0);
	assert_true(f.hook_ns_per_poll == 48.0);
	/* a device without frames or polls: no figure rather than 0 */
	rxcost_delta(&a, &b, 1, 0, &f);
	assert_true(isnan(f.ns_per_frame));
	assert_true(isnan(f.empty_ns));
	assert_true(f.frames == 0.0 && f.polls == 0.0);
	/* polls that did no work only (TX cleaning): time, but no per-frame figure; an
	 * instance first seen after A counts from zero */
	put(&b, 0xffff2000, 1, (struct rxpath_dev){ .ns = 900, .polls = 3, .empty_polls = 3,
						    .empty_ns = 900 });
	rxcost_delta(&a, &b, 1, 0, &f);
	assert_true(isnan(f.ns_per_frame));
	assert_true(f.empty_ns == 300.0);
	assert_true(f.polls == 3.0);
	assert_false(f.frames_from_port);
	/* the same polls while the port received 3 frames: a driver whose NAPI work leaves
	 * out what its XDP program consumed (vmxnet3 native, XDP_DROP: work 0 each poll) */
	rxcost_delta(&a, &b, 1, 3, &f);
	assert_true(f.frames_from_port);
	assert_true(f.ns_per_frame == 300.0);
	assert_true(f.frames == 0.0);
	/* the same name in another namespace: the instance whose frames match the port's */
	put(&a, 0xffff3000, 0, (struct rxpath_dev){ .ns = 0, .frames = 0 });
	put(&b, 0xffff3000, 0, (struct rxpath_dev){ .ns = 50000 * 100ULL, .frames = 50000,
						    .polls = 2000 });
	rxcost_delta(&a, &b, 0, 63900, &f);
	assert_true(f.ns_per_frame == 37.0);
	assert_true(f.others == 1.0);
	rxcost_delta(&a, &b, 0, 50100, &f);
	assert_true(f.napi == 0xffff3000);
	assert_true(f.ns_per_frame == 100.0);
	assert_true(f.frames == 50000.0);
	assert_true(f.others == 1.0);
	/* the port's count unknown: all of them */
	rxcost_delta(&a, &b, 0, -1, &f);
	assert_true(f.napi == 0);
	assert_true(f.frames == 114000.0);
	assert_true(f.others == 0.0);
	/* whole softirqs per frame of the port's counter */
	assert_true(rxcost_softirq_per_frame(&a, &b, 2.0) == 2.0);
	assert_true(isnan(rxcost_softirq_per_frame(&a, &b, 0)));
	/* no napi_poll at all in the interval */
	b.sirq = a.sirq;
	rxcost_delta(&a, &b, 0, 64000, &f);
	assert_true(isnan(f.hook_ns_per_poll));
}

static void test_fit(void **state)
{
	struct rxcost_work w[RXPATH_MAX_WORK + 1];
	double a = 0, c = 0;
	int i;

	(void)state;
	for (i = 0; i <= RXPATH_MAX_WORK; i++)
		w[i] = (struct rxcost_work){ .work = i };
	/* nothing, or one work value: no line */
	assert_int_equal(rxcost_fit(w, RXPATH_MAX_WORK + 1, &a, &c), -ENODATA);
	w[20] = (struct rxcost_work){ .work = 20, .polls = 9, .min_ns = 800 + 20 * 263 };
	assert_int_equal(rxcost_fit(w, RXPATH_MAX_WORK + 1, &a, &c), -ENODATA);
	/* exact points: the line; work 0 and single polls do not count */
	w[24] = (struct rxcost_work){ .work = 24, .polls = 3, .min_ns = 800 + 24 * 263 };
	w[64] = (struct rxcost_work){ .work = 64, .polls = 2, .min_ns = 800 + 64 * 263 };
	w[0] = (struct rxcost_work){ .work = 0, .polls = 500, .min_ns = 9999 };
	w[30] = (struct rxcost_work){ .work = 30, .polls = 1, .min_ns = 1 };
	assert_int_equal(rxcost_fit(w, RXPATH_MAX_WORK + 1, &a, &c), 0);
	assert_true(fabs(c - 263) < 1e-9);
	assert_true(fabs(a - 800) < 1e-6);
	/* least squares through points off the line */
	for (i = 0; i <= RXPATH_MAX_WORK; i++)
		w[i] = (struct rxcost_work){ .work = i };
	w[1] = (struct rxcost_work){ .work = 1, .polls = 2, .min_ns = 2 };
	w[2] = (struct rxcost_work){ .work = 2, .polls = 2, .min_ns = 2 };
	w[3] = (struct rxcost_work){ .work = 3, .polls = 2, .min_ns = 5 };
	assert_int_equal(rxcost_fit(w, RXPATH_MAX_WORK + 1, &a, &c), 0);
	assert_true(fabs(c - 1.5) < 1e-9);
	assert_true(fabs(a - 0) < 1e-9);
}

static void test_open_close(void **state)
{
	const char *names[] = { "lo", "no-such-if" }, *long_name[] = { "a-name-of-16-chars" };
	struct rxcost *r = NULL;
	struct rxcost_sums s;
	struct err err;
	int ret;

	(void)state;
	assert_int_equal(rxcost_open(&r, names, 0, &err), -EINVAL);
	assert_null(r);
	assert_int_equal(rxcost_open(&r, names, RXPATH_MAX_DEVS + 1, &err), -EINVAL);
	skip_unless_root();
	assert_int_equal(rxcost_open(&r, long_name, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "too long"));
	ret = rxcost_open(&r, names, 2, &err);
	if (ret)
		fail_msg("rxcost_open: %s", err.msg);
	assert_non_null(r);
	assert_int_equal(rxcost_read(r, &s), 0);
	assert_int_equal(s.n_devs, 2);
	/* nothing polls a device named no-such-if; lo has no NAPI of its own */
	assert_int_equal(s.n_napis, 0);
	{
		struct rxcost_work w[RXPATH_MAX_WORK + 1];

		assert_int_equal(rxcost_read_work(r, 0, 0, w), 0);
		assert_int_equal(w[64].work, 64);
		assert_true(w[1].polls == 0);
	}
	rxcost_close(&r);
	assert_null(r);
	rxcost_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_field),
		cmocka_unit_test(test_check_format),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_open_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
