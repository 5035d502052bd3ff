// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_attach.c - agent/attach.c for real: XDP programs attached native and
 * generic through bpf_link and gone after detach, one program on two ports as two
 * instances, tcx, and the refusals: a sha256 mismatch, a missing program, a program of the
 * wrong type, and a verifier rejection that returns the verifier log (and its last lines
 * in the error, also under verifier_stats); what each load cost (bpf_prog_info, the stats
 * log's summary), the same on two loads. The clsact
 * fallback of the tc hooks, forced with tc_mode (this kernel has tcx too): the filter is
 * there while attached and frames go through it, the detach leaves the port as it was
 * (someone else's clsact qdisc and filter survive, a qdisc the agent created goes), and
 * attach_tc_cleanup() clears what a killed agent left. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/pkt_cls.h>
#include <sys/socket.h>

#include "attach.h"
#include "base/log.h"
#include "base/util.h"
#include "test_agent_lab.h"

static int setup(void **state)
{
	return lab_setup_bpf(&lab, "attach");
}

static struct attach_opts opts(void)
{
	struct attach_opts o = {
		.bpf_dir = BPF_DIR,
		.ports = lab.ports,
		.n_ports = 2,
	};
	return o;
}

/* The attach list of a test (helpers.h). */
static json_t *spec(const char *text)
{
	return json_of(text);
}

static void xdp_ids(int ifindex, __u32 *drv, __u32 *skb)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	assert_int_equal(bpf_xdp_query(ifindex, 0, &q), 0);
	*drv = q.drv_prog_id;
	*skb = q.skb_prog_id;
}

/* The kernel's info on the BPF object behind FD (a bpf_link_info, bpf_prog_info, ...). */
static void obj_info(int fd, void *info, __u32 len)
{
	memset(info, 0, len);
	assert_int_equal(bpf_obj_get_info_by_fd(fd, info, &len), 0);
}

static __u32 link_id(int link_fd, __u32 *type, __u32 *ifindex)
{
	struct bpf_link_info info;

	obj_info(link_fd, &info, sizeof(info));
	*type = info.type;
	*ifindex = info.xdp.ifindex;
	return info.id;
}

static __u32 prog_id(int prog_fd)
{
	struct bpf_prog_info info;

	obj_info(prog_fd, &info, sizeof(info));
	return info.id;
}

static void assert_link_gone(__u32 id)
{
	int fd = bpf_link_get_fd_by_id(id);

	if (fd >= 0)
		close(fd);
	assert_true(fd < 0);
}

static void test_attach_native_and_generic(void **state)
{
	json_t *attach;
	struct attach_set *set;
	struct attach_opts o = opts();
	char *log = NULL;
	struct err err;
	__u32 drv, skb, type, ifindex, ids[2];
	int i;

	SKIP_UNLESS_LAB();
	attach = spec("[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"},"
		      "{\"port\":\"a\",\"hook\":\"xdp\",\"mode\":\"generic\","
		      "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_pass\"}]");
	set = attach_new();
	assert_non_null(set);
	assert_int_equal(attach_load(set, attach, &o, &log, &err), 0);
	assert_null(log);
	assert_int_equal(attach_count(set), 2);
	assert_string_equal(attach_get(set, 0)->subject, "xdp_drop");
	assert_string_equal(attach_get(set, 1)->subject, "xdp_pass");
	assert_int_equal(attach_links(set, &err), 0);

	for (i = 0; i < 2; i++) {
		const struct attach_prog *p = attach_get(set, i);

		assert_true(p->link_fd >= 0);
		ids[i] = link_id(p->link_fd, &type, &ifindex);
		assert_int_equal(type, BPF_LINK_TYPE_XDP);
		assert_int_equal(ifindex, p->ifindex);
	}
	xdp_ids(lab.ifb, &drv, &skb);
	assert_int_equal(drv, prog_id(attach_get(set, 0)->prog_fd));
	assert_int_equal(skb, 0);
	xdp_ids(lab.ifa, &drv, &skb);
	assert_int_equal(drv, 0);
	assert_int_equal(skb, prog_id(attach_get(set, 1)->prog_fd));
	/* bpftool sees the links too */
	assert_int_equal(lab_sh("bpftool link show id %u >/dev/null", ids[0]), 0);

	attach_detach(set);
	xdp_ids(lab.ifb, &drv, &skb);
	assert_int_equal(drv + skb, 0);
	xdp_ids(lab.ifa, &drv, &skb);
	assert_int_equal(drv + skb, 0);
	assert_link_gone(ids[0]);
	assert_link_gone(ids[1]);
	assert_int_not_equal(lab_sh("bpftool link show id %u >/dev/null 2>&1", ids[0]), 0);
	attach_detach(set);		/* twice is fine */
	attach_destroy(&set);
	assert_null(set);
	attach_destroy(&set);
	json_decref(attach);
}

static void test_attach_same_program_twice(void **state)
{
	json_t *attach;
	struct attach_set *set = attach_new();
	struct attach_opts o = opts();
	struct err err;
	__u32 ids[2];
	int i;

	SKIP_UNLESS_LAB();
	attach = spec("[{\"port\":\"a\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"},"
		      "{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"}]");
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), 0);
	assert_string_equal(attach_get(set, 0)->subject, "xdp_drop@a");
	assert_string_equal(attach_get(set, 1)->subject, "xdp_drop@b");
	/* two instances: each attachment has its own program and so its own bpf_stats */
	for (i = 0; i < 2; i++)
		ids[i] = prog_id(attach_get(set, i)->prog_fd);
	assert_int_not_equal(ids[0], ids[1]);
	assert_int_equal(attach_links(set, &err), 0);
	attach_destroy(&set);
	xdp_ids(lab.ifa, &ids[0], &ids[1]);
	assert_int_equal(ids[0] + ids[1], 0);
	json_decref(attach);
}

static void test_attach_objects_from_message(void **state)
{
	char hex[SHA256_HEX_LEN], *text, *b64;
	struct err err;
	struct attach_opts o = opts();
	struct attach_set *set;
	json_t *attach, *objects;
	size_t len;

	SKIP_UNLESS_LAB();
	assert_int_equal(util_read_file(BPF_DIR "/xdp_basic.bpf.o", 1 << 24, &text, &len), 0);
	util_sha256_hex(text, len, hex);
	b64 = util_base64_encode(text, len);
	objects = json_pack("{s:{s:s, s:s}}", "xdp_basic.bpf.o", "sha256", hex, "data", b64);
	attach = json_pack("[{s:s, s:s, s:s, s:s, s:s, s:s}]", "port", "b", "hook", "xdp", "mode",
			   "native", "object", "xdp_basic.bpf.o", "program", "xdp_drop",
			   "sha256", hex);
	o.objects = objects;
	o.bpf_dir = NULL;		/* only the message */
	o.require_sha256 = true;
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), 0);
	assert_int_equal(attach_links(set, &err), 0);
	attach_destroy(&set);

	/* the message's own hash disagrees with its bytes */
	json_object_set_new(json_object_get(objects, "xdp_basic.bpf.o"), "sha256",
			    json_string("0000"));
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "the job message says 0000"));
	assert_false(err.input);	/* bytes changed on the way, not a wrong plan */
	attach_destroy(&set);

	/* require_sha256 refuses an entry without one */
	json_object_del(json_array_get(attach, 0), "sha256");
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "has no sha256"));
	assert_true(err.input);
	attach_destroy(&set);

	free(text);
	free(b64);
	json_decref(objects);
	json_decref(attach);
}

static void test_attach_sha256_mismatch(void **state)
{
	struct attach_opts o = opts();
	char want[128];
	struct err err;
	struct attach_set *set;
	json_t *attach;

	SKIP_UNLESS_LAB();
	attach = spec("[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\","
		      "\"sha256\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]");
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), -EBADMSG);
	snprintf(want, sizeof(want), ", the job wants %s",
		 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_non_null(strstr(err.msg, "object 'xdp_basic.bpf.o' has sha256 "));
	assert_non_null(strstr(err.msg, want));
	attach_destroy(&set);
	json_decref(attach);
}

static void test_attach_refusals(void **state)
{
	static const struct {
		const char *json;
		int err;
		const char *msg;
		bool input;	/* the spec is wrong (not this host, not a file) */
	} cases[] = {
		{ "[{\"port\":\"b\",\"hook\":\"xdp\",\"object\":\"xdp_basic.bpf.o\","
		  "\"program\":\"nope\"}]", -ENOENT, "object 'xdp_basic.bpf.o' has no program 'nope'", true },
		{ "[{\"port\":\"b\",\"hook\":\"xdp\",\"object\":\"test_agent.bpf.o\","
		  "\"program\":\"tc_pass\"}]", -EINVAL, "is not an xdp program", true },
		{ "[{\"port\":\"z\",\"hook\":\"xdp\",\"object\":\"xdp_basic.bpf.o\","
		  "\"program\":\"xdp_drop\"}]", -ENODEV, "port role 'z' is not one of the job's ports", true },
		{ "[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"offload\","
		  "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"}]", -EOPNOTSUPP,
		  "xdp mode 'offload' is not supported yet", true },
		{ "[{\"port\":\"b\",\"hook\":\"xdp\",\"object\":\"missing.bpf.o\","
		  "\"program\":\"xdp_drop\"}]", -ENOENT, "cannot read object", false },
		{ "[{\"port\":\"b\",\"hook\":\"frob\",\"object\":\"xdp_basic.bpf.o\","
		  "\"program\":\"xdp_drop\"}]", -EINVAL, "unknown hook 'frob'", true },
		{ "[{\"port\":\"b\"}]", -EINVAL, "needs port, hook, object and program", true },
		{ "[{\"port\":\"b\",\"hook\":\"xdp\",\"tc_mode\":\"clsact\","
		  "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"}]", -EINVAL,
		  "attach entry 0: tc_mode must be auto, tcx or clsact, and only with a tc hook",
		  true },
		{ "[{\"port\":\"b\",\"hook\":\"tc-ingress\",\"tc_mode\":\"netkit\","
		  "\"object\":\"test_agent.bpf.o\",\"program\":\"tc_pass\"}]", -EINVAL,
		  "tc_mode must be auto, tcx or clsact", true },
	};
	struct attach_opts o = opts();
	size_t i;

	SKIP_UNLESS_LAB();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct attach_set *set = attach_new();
		json_t *attach = spec(cases[i].json);
		struct err err;

		assert_int_equal(attach_load(set, attach, &o, NULL, &err), cases[i].err);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].msg);
		if (err.input != cases[i].input)
			fail_msg("case %zu: '%s' %s input", i, err.msg, err.input ? "is" : "is not");
		attach_destroy(&set);
		json_decref(attach);
	}
}

/* Load xdp_bad (the verifier refuses it), with VERIFIER_STATS or not: the error names
 * the program and ends with the verifier's last lines, the log has the reason. */
static void expect_refused(bool verifier_stats)
{
	struct attach_opts o = opts();
	char *log = NULL;
	struct err err;
	struct attach_set *set;
	json_t *attach;

	o.verifier_stats = verifier_stats;
	attach = spec("[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"test_agent.bpf.o\",\"program\":\"xdp_bad\"}]");
	set = attach_new();
	assert_int_not_equal(attach_load(set, attach, &o, &log, &err), 0);
	assert_non_null(strstr(err.msg, "cannot load program 'xdp_bad' of object 'test_agent.bpf.o'"));
	if (!strstr(err.msg, " (verifier: ") || !strstr(err.msg, "processed "))
		fail_msg("the error lacks the verifier's last lines: %s", err.msg);
	assert_non_null(log);
	if (!strstr(log, "invalid access to packet"))
		fail_msg("verifier log lacks the reason:\n%s", log);
	free(log);
	attach_destroy(&set);
	json_decref(attach);
}

static void test_attach_verifier_log(void **state)
{
	SKIP_UNLESS_LAB();
	expect_refused(false);
}

/* Load xdp_sport_count (a program with a map lookup and branches) on b once, with
 * VERIFIER_STATS or not, into *OUT. */
static void load_figures(bool verifier_stats, struct attach_prog *out)
{
	struct attach_opts o = opts();
	char *log = NULL;
	struct err err;
	struct attach_set *set = attach_new();
	json_t *attach;

	o.verifier_stats = verifier_stats;
	attach = spec("[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"test_agent.bpf.o\",\"program\":\"xdp_sport_count\"}]");
	assert_non_null(set);
	if (attach_load(set, attach, &o, &log, &err))
		fail_msg("load: %s", err.msg);
	*out = *attach_get(set, 0);
	out->subject = out->program = out->object = out->role = out->stats_log = NULL;
	attach_destroy(&set);
	json_decref(attach);
}

/* What a load cost, from this machine's kernel: verified insns above 0 (kernel 5.16+),
 * JIT'd bytes and translated insns, the same on a second load (the verifier is
 * deterministic); with verifier_stats the log's summary too, its processed insns the
 * verified insns, and a second load gives the same figures but the time. */
static void test_attach_load_figures(void **state)
{
	struct attach_prog a, b, s1, s2;

	SKIP_UNLESS_LAB();
	load_figures(false, &a);
	load_figures(false, &b);
	assert_true(a.has_info);
	assert_true(a.verified_insns > 0);
	assert_true(a.xlated_insns > 0);
	assert_true(a.jited_bytes > 0);
	assert_int_equal(a.verified_insns, b.verified_insns);
	assert_int_equal(a.xlated_insns, b.xlated_insns);
	assert_int_equal(a.jited_bytes, b.jited_bytes);
	assert_false(a.stats.has_processed);

	load_figures(true, &s1);
	load_figures(true, &s2);
	assert_true(s1.stats.has_processed);
	assert_true(s1.stats.has_time);
	assert_int_equal(s1.stats.processed_insns, a.verified_insns);
	assert_int_equal(s1.verified_insns, a.verified_insns);
	assert_true(s1.stats.total_states > 0);
	assert_true(s1.stats.peak_states > 0);
	assert_int_equal(s1.stats.insn_limit, 1000000);
	assert_int_equal(s2.stats.processed_insns, s1.stats.processed_insns);
	assert_int_equal(s2.stats.total_states, s1.stats.total_states);
	assert_int_equal(s2.stats.peak_states, s1.stats.peak_states);
}

/* A refusal under verifier_stats still gives the reason (loaded again without the stats
 * log level). */
static void test_attach_refusal_with_stats(void **state)
{
	SKIP_UNLESS_LAB();
	expect_refused(true);
}

/* The counting pair of plans/bpf-stats-variants.yaml on vb, forced to clsact: ingress
 * counts and redirects to vb's egress, egress counts. */
#define CLSACT_PAIR \
	"[{\"port\":\"b\",\"hook\":\"tc-ingress\",\"tc_mode\":\"clsact\"," \
	"\"object\":\"tc_stats_variants.bpf.o\",\"program\":\"cnt_ingress\"," \
	"\"counters\":[{\"map\":\"stats\",\"keys\":{\"0\":\"ingress\",\"1\":\"egress\"}}]}," \
	"{\"port\":\"b\",\"hook\":\"tc-egress\",\"tc_mode\":\"clsact\"," \
	"\"object\":\"tc_stats_variants.bpf.o\",\"program\":\"cnt_egress\"}]"

/* Someone else's filter, as tc would add it: tc_pass at tc's default priority. */
#define OTHER_PRIO 0xc000u
#define OTHER_HANDLE 1u

/* True when IFINDEX has a clsact qdisc (`tc qdisc show`). */
static bool clsact_on(int ifindex)
{
	char name[IF_NAMESIZE];

	assert_non_null(if_indextoname(ifindex, name));
	return lab_sh("tc qdisc show dev %s | grep -q '^qdisc clsact '", name) == 0;
}

/* The program id of the filter (HANDLE, PRIO) on IFINDEX's clsact hook POINT; 0 when
 * there is none. */
static __u32 tc_filter_prog(int ifindex, enum bpf_tc_attach_point point, __u32 handle,
			    __u32 prio)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = ifindex, .attach_point = point);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, q, .handle = handle, .priority = prio);

	return bpf_tc_query(&h, &q) ? 0 : q.prog_id;
}

/* Someone else's ingress filter on vb (tc_pass, OTHER_PRIO), with a clsact qdisc when
 * there is none; returns its object, whose program the filter holds. */
static struct bpf_object *other_filter_up(void)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = lab.ifb, .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, a, .handle = OTHER_HANDLE, .priority = OTHER_PRIO);
	struct bpf_object *obj = bpf_object__open_file(BPF_DIR "/test_agent.bpf.o", NULL);
	struct bpf_program *prog;
	int rc;

	assert_non_null(obj);
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), "tc_pass"));
	assert_int_equal(bpf_object__load(obj), 0);
	a.prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "tc_pass"));
	rc = bpf_tc_hook_create(&h);
	assert_true(rc == 0 || rc == -EEXIST);
	assert_int_equal(bpf_tc_attach(&h, &a), 0);
	return obj;
}

/* Remove the qdisc (and so someone else's filter) and close its object. */
static void other_filter_down(struct bpf_object *obj)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = lab.ifb,
			    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

	assert_int_equal(bpf_tc_hook_destroy(&h), 0);
	bpf_object__close(obj);
	assert_false(clsact_on(lab.ifb));
}

/* N broadcast frames out of va (so into vb's ingress) through an AF_PACKET socket. */
static void send_frames(int n)
{
	struct sockaddr_ll to = {
		.sll_family = AF_PACKET,
		.sll_ifindex = lab.ifa,
		.sll_halen = ETH_ALEN,
		.sll_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	unsigned char frame[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1,
				    0x88, 0xb5 };	/* local experimental ethertype */
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0), i;

	assert_true(fd >= 0);
	for (i = 0; i < n; i++)
		assert_int_equal(sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&to,
					sizeof(to)), sizeof(frame));
	close(fd);
}

static void test_attach_tcx(void **state)
{
	struct attach_opts o = opts();
	struct err err;
	struct attach_set *set;
	json_t *attach;
	__u32 type, ifindex, id;
	int rc;

	SKIP_UNLESS_LAB();
	attach = spec("[{\"port\":\"b\",\"hook\":\"tc-ingress\","
		      "\"object\":\"test_agent.bpf.o\",\"program\":\"tc_pass\"},"
		      "{\"port\":\"a\",\"hook\":\"tc-egress\","
		      "\"object\":\"test_agent.bpf.o\",\"program\":\"tc_pass\"}]");
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), 0);
	rc = attach_links(set, &err);
	assert_int_equal(rc, 0);
	if (attach_get(set, 0)->tc_attached == JOB_TC_CLSACT) {
		/* a kernel before 6.6: auto fell back to clsact (the tests below) */
		assert_int_equal(attach_get(set, 0)->link_fd, -1);
	} else {
		assert_int_equal(attach_get(set, 0)->tc_attached, JOB_TC_TCX);
		assert_int_equal(attach_get(set, 1)->tc_attached, JOB_TC_TCX);
		assert_int_equal(attach_get(set, 0)->tc_handle, 0);
		id = link_id(attach_get(set, 0)->link_fd, &type, &ifindex);
		assert_int_not_equal(type, BPF_LINK_TYPE_XDP);
		attach_detach(set);
		assert_link_gone(id);
		/* kept after the detach, for the job's result */
		assert_int_equal(attach_get(set, 0)->tc_attached, JOB_TC_TCX);
	}
	attach_destroy(&set);
	json_decref(attach);

	/* tc_mode tcx: a tcx link or a clear error, never clsact */
	attach = spec("[{\"port\":\"b\",\"hook\":\"tc-ingress\",\"tc_mode\":\"tcx\","
		      "\"object\":\"test_agent.bpf.o\",\"program\":\"tc_pass\"}]");
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), 0);
	rc = attach_links(set, &err);
	if (rc)
		assert_non_null(strstr(err.msg, "tcx needs Linux 6.6 or later"));
	else
		assert_int_equal(attach_get(set, 0)->tc_attached, JOB_TC_TCX);
	assert_false(clsact_on(lab.ifb));
	attach_destroy(&set);
	json_decref(attach);
}

static void test_attach_clsact_keeps_others(void **state)
{
	struct attach_opts o = opts();
	struct err err;
	struct bpf_object *other;
	struct attach_set *set;
	json_t *attach;
	__u32 other_id, ids[2];
	uint64_t in = 0, out = 0;
	int i;

	SKIP_UNLESS_LAB();
	other = other_filter_up();
	other_id = tc_filter_prog(lab.ifb, BPF_TC_INGRESS, OTHER_HANDLE, OTHER_PRIO);
	assert_int_not_equal(other_id, 0);

	attach = spec(CLSACT_PAIR);
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), 0);
	if (attach_links(set, &err))
		fail_msg("%s", err.msg);
	for (i = 0; i < 2; i++) {
		const struct attach_prog *p = attach_get(set, i);

		assert_int_equal(p->tc_attached, JOB_TC_CLSACT);
		assert_int_equal(p->link_fd, -1);
		/* the qdisc was there: the plain handle, and the qdisc is not this set's */
		assert_int_equal(p->tc_handle, ATTACH_TC_HANDLE);
		assert_false(p->tc_own_qdisc);
		ids[i] = prog_id(p->prog_fd);
	}
	/* the filters are there, holding the set's programs, beside the other one */
	assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, ATTACH_TC_HANDLE,
					ATTACH_TC_PRIO), ids[0]);
	assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_EGRESS, ATTACH_TC_HANDLE,
					ATTACH_TC_PRIO), ids[1]);
	assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, OTHER_HANDLE, OTHER_PRIO),
			 other_id);

	/* frames go through them: every frame into vb is counted at ingress, redirected to
	 * vb's egress and counted there */
	send_frames(200);
	assert_int_equal(attach_counter_count(set), 2);
	assert_int_equal(attach_counter_read(set, 0, &in), 0);
	assert_int_equal(attach_counter_read(set, 1, &out), 0);
	if (in < 200 || out < 200)
		fail_msg("200 frames sent, counted %llu at ingress and %llu at egress",
			 (unsigned long long)in, (unsigned long long)out);

	/* the detach leaves vb as it was: the qdisc and the other filter stay */
	attach_detach(set);
	assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, ATTACH_TC_HANDLE,
					ATTACH_TC_PRIO), 0);
	assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_EGRESS, ATTACH_TC_HANDLE,
					ATTACH_TC_PRIO), 0);
	assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, OTHER_HANDLE, OTHER_PRIO),
			 other_id);
	assert_true(clsact_on(lab.ifb));
	assert_int_equal(attach_get(set, 0)->tc_attached, JOB_TC_CLSACT);
	attach_detach(set);		/* twice is fine */
	attach_destroy(&set);
	json_decref(attach);
	other_filter_down(other);
}

static void test_attach_clsact_own_qdisc(void **state)
{
	struct attach_opts o = opts();
	struct err err;
	struct bpf_object *other;
	struct attach_set *set;
	json_t *attach;

	SKIP_UNLESS_LAB();
	assert_false(clsact_on(lab.ifb));
	attach = spec(CLSACT_PAIR);
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), 0);
	if (attach_links(set, &err))
		fail_msg("%s", err.msg);
	/* the first entry created the qdisc; both handles say so */
	assert_true(attach_get(set, 0)->tc_own_qdisc);
	assert_false(attach_get(set, 1)->tc_own_qdisc);
	assert_int_equal(attach_get(set, 0)->tc_handle, ATTACH_TC_HANDLE_OWNER);
	assert_int_equal(attach_get(set, 1)->tc_handle, ATTACH_TC_HANDLE_OWNER);
	assert_true(clsact_on(lab.ifb));
	assert_int_not_equal(tc_filter_prog(lab.ifb, BPF_TC_EGRESS, ATTACH_TC_HANDLE_OWNER,
					    ATTACH_TC_PRIO), 0);
	/* a second set on the same port (as a second agent there would be) finds the
	 * qdisc there: its own filter beside the first set's, and its detach leaves the
	 * first set's filters and qdisc alone */
	{
		struct attach_set *second = attach_new();

		assert_int_equal(attach_load(second, attach, &o, NULL, &err), 0);
		assert_int_equal(attach_links(second, &err), 0);
		assert_int_equal(attach_get(second, 0)->tc_handle, ATTACH_TC_HANDLE);
		assert_false(attach_get(second, 0)->tc_own_qdisc);
		assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, ATTACH_TC_HANDLE,
						ATTACH_TC_PRIO),
				 prog_id(attach_get(second, 0)->prog_fd));
		attach_destroy(&second);
		assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, ATTACH_TC_HANDLE,
						ATTACH_TC_PRIO), 0);
		assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, ATTACH_TC_HANDLE_OWNER,
						ATTACH_TC_PRIO),
				 prog_id(attach_get(set, 0)->prog_fd));
		assert_true(clsact_on(lab.ifb));
	}
	attach_detach(set);
	/* the agent's own qdisc goes with its filters */
	assert_false(clsact_on(lab.ifb));
	attach_destroy(&set);

	/* ... unless someone else put a filter on it meanwhile: then both stay */
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, &err), 0);
	assert_int_equal(attach_links(set, &err), 0);
	other = other_filter_up();
	attach_detach(set);
	assert_true(clsact_on(lab.ifb));
	assert_int_not_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, OTHER_HANDLE, OTHER_PRIO), 0);
	attach_destroy(&set);
	other_filter_down(other);
	json_decref(attach);
}

/* Attach ATTACH in a child that is then killed (SIGKILL, no detach), as an agent that
 * dies in a job. */
static void attach_and_die(const char *attach_text)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid) {
		struct attach_opts o = opts();
		struct attach_set *set = attach_new();
		json_t *attach = spec(attach_text);
		struct err err;

		if (attach_load(set, attach, &o, NULL, &err) ||
		    attach_links(set, &err))
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static void test_attach_clsact_leftovers(void **state)
{
	struct err err;
	struct bpf_object *other;
	__u32 other_id;

	SKIP_UNLESS_LAB();
	/* nothing to clean */
	assert_int_equal(attach_tc_cleanup(lab.ports, 2, &err), 0);

	/* a killed agent that created the qdisc: its filters stay (not owned by fds) ... */
	attach_and_die(CLSACT_PAIR);
	assert_int_not_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, ATTACH_TC_HANDLE_OWNER,
					    ATTACH_TC_PRIO), 0);
	assert_true(clsact_on(lab.ifb));
	/* ... until the next job's prepare: filters and qdisc go */
	assert_int_equal(attach_tc_cleanup(lab.ports, 2, &err), 2);
	assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, ATTACH_TC_HANDLE_OWNER,
					ATTACH_TC_PRIO), 0);
	assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_EGRESS, ATTACH_TC_HANDLE_OWNER,
					ATTACH_TC_PRIO), 0);
	assert_false(clsact_on(lab.ifb));

	/* a killed agent on someone else's qdisc: only its filters go */
	other = other_filter_up();
	other_id = tc_filter_prog(lab.ifb, BPF_TC_INGRESS, OTHER_HANDLE, OTHER_PRIO);
	attach_and_die(CLSACT_PAIR);
	assert_int_not_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, ATTACH_TC_HANDLE,
					    ATTACH_TC_PRIO), 0);
	assert_int_equal(attach_tc_cleanup(lab.ports, 2, &err), 2);
	assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, ATTACH_TC_HANDLE,
					ATTACH_TC_PRIO), 0);
	assert_int_equal(tc_filter_prog(lab.ifb, BPF_TC_INGRESS, OTHER_HANDLE, OTHER_PRIO),
			 other_id);
	assert_true(clsact_on(lab.ifb));
	assert_int_equal(attach_tc_cleanup(lab.ports, 2, &err), 0);
	other_filter_down(other);

	/* ... also when that qdisc is empty once they are gone: it stays */
	assert_int_equal(lab_sh("tc qdisc add dev vb clsact"), 0);
	attach_and_die(CLSACT_PAIR);
	assert_int_equal(attach_tc_cleanup(lab.ports, 2, &err), 2);
	assert_true(clsact_on(lab.ifb));
	assert_int_equal(lab_sh("tc qdisc del dev vb clsact"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach_native_and_generic),
		cmocka_unit_test(test_attach_same_program_twice),
		cmocka_unit_test(test_attach_objects_from_message),
		cmocka_unit_test(test_attach_sha256_mismatch),
		cmocka_unit_test(test_attach_refusals),
		cmocka_unit_test(test_attach_verifier_log),
		cmocka_unit_test(test_attach_load_figures),
		cmocka_unit_test(test_attach_refusal_with_stats),
		cmocka_unit_test(test_attach_tcx),
		cmocka_unit_test(test_attach_clsact_keeps_others),
		cmocka_unit_test(test_attach_clsact_own_qdisc),
		cmocka_unit_test(test_attach_clsact_leftovers),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}
