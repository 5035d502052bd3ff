/* test_agent_attach.c - agent/attach.c for real: XDP programs attached native and
 * generic through bpf_link and gone after detach, one program on two ports as two
 * instances, tcx, and the refusals: a sha256 mismatch, a missing program, a program of the
 * wrong type, and a verifier rejection that returns the verifier log. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "attach.h"
#include "log.h"
#include "util.h"
#include "test_agent_lab.h"

static int setup(void **state)
{
	return lab_setup_bpf(&lab, "attach");
}

static struct attach_opts opts(void)
{
	struct attach_opts o = {
		.sz = sizeof(o),
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
	char err[512] = "", *log = NULL;
	__u32 drv, skb, type, ifindex, ids[2];
	int i;

	SKIP_UNLESS_LAB();
	attach = spec("[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"},"
		      "{\"port\":\"a\",\"hook\":\"xdp\",\"mode\":\"generic\","
		      "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_pass\"}]");
	set = attach_new();
	assert_non_null(set);
	assert_int_equal(attach_load(set, attach, &o, &log, err, sizeof(err)), 0);
	assert_null(log);
	assert_int_equal(attach_count(set), 2);
	assert_string_equal(attach_get(set, 0)->subject, "xdp_drop");
	assert_string_equal(attach_get(set, 1)->subject, "xdp_pass");
	assert_int_equal(attach_links(set, err, sizeof(err)), 0);

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
	char err[512] = "";
	__u32 ids[2];
	int i;

	SKIP_UNLESS_LAB();
	attach = spec("[{\"port\":\"a\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"},"
		      "{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"}]");
	assert_int_equal(attach_load(set, attach, &o, NULL, err, sizeof(err)), 0);
	assert_string_equal(attach_get(set, 0)->subject, "xdp_drop@a");
	assert_string_equal(attach_get(set, 1)->subject, "xdp_drop@b");
	/* two instances: each attachment has its own program and so its own bpf_stats */
	for (i = 0; i < 2; i++)
		ids[i] = prog_id(attach_get(set, i)->prog_fd);
	assert_int_not_equal(ids[0], ids[1]);
	assert_int_equal(attach_links(set, err, sizeof(err)), 0);
	attach_destroy(&set);
	xdp_ids(lab.ifa, &ids[0], &ids[1]);
	assert_int_equal(ids[0] + ids[1], 0);
	json_decref(attach);
}

static void test_attach_objects_from_message(void **state)
{
	char hex[SHA256_HEX_LEN], err[512] = "", *text, *b64;
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
	assert_int_equal(attach_load(set, attach, &o, NULL, err, sizeof(err)), 0);
	assert_int_equal(attach_links(set, err, sizeof(err)), 0);
	attach_destroy(&set);

	/* the message's own hash disagrees with its bytes */
	json_object_set_new(json_object_get(objects, "xdp_basic.bpf.o"), "sha256",
			    json_string("0000"));
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "the job message says 0000"));
	attach_destroy(&set);

	/* require_sha256 refuses an entry without one */
	json_object_del(json_array_get(attach, 0), "sha256");
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "has no sha256"));
	attach_destroy(&set);

	free(text);
	free(b64);
	json_decref(objects);
	json_decref(attach);
}

static void test_attach_sha256_mismatch(void **state)
{
	struct attach_opts o = opts();
	char err[512] = "", want[128];
	struct attach_set *set;
	json_t *attach;

	SKIP_UNLESS_LAB();
	attach = spec("[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\","
		      "\"sha256\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]");
	set = attach_new();
	assert_int_equal(attach_load(set, attach, &o, NULL, err, sizeof(err)), -EBADMSG);
	snprintf(want, sizeof(want), ", the job wants %s",
		 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_non_null(strstr(err, "object 'xdp_basic.bpf.o' has sha256 "));
	assert_non_null(strstr(err, want));
	attach_destroy(&set);
	json_decref(attach);
}

static void test_attach_refusals(void **state)
{
	static const struct {
		const char *json;
		int err;
		const char *msg;
	} cases[] = {
		{ "[{\"port\":\"b\",\"hook\":\"xdp\",\"object\":\"xdp_basic.bpf.o\","
		  "\"program\":\"nope\"}]", -ENOENT, "object 'xdp_basic.bpf.o' has no program 'nope'" },
		{ "[{\"port\":\"b\",\"hook\":\"xdp\",\"object\":\"test_agent.bpf.o\","
		  "\"program\":\"tc_pass\"}]", -EINVAL, "is not an xdp program" },
		{ "[{\"port\":\"z\",\"hook\":\"xdp\",\"object\":\"xdp_basic.bpf.o\","
		  "\"program\":\"xdp_drop\"}]", -ENODEV, "port role 'z' is not one of the job's ports" },
		{ "[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"offload\","
		  "\"object\":\"xdp_basic.bpf.o\",\"program\":\"xdp_drop\"}]", -EOPNOTSUPP,
		  "xdp mode 'offload' is not supported yet" },
		{ "[{\"port\":\"b\",\"hook\":\"xdp\",\"object\":\"missing.bpf.o\","
		  "\"program\":\"xdp_drop\"}]", -ENOENT, "cannot read object" },
		{ "[{\"port\":\"b\",\"hook\":\"frob\",\"object\":\"xdp_basic.bpf.o\","
		  "\"program\":\"xdp_drop\"}]", -EINVAL, "unknown hook 'frob'" },
		{ "[{\"port\":\"b\"}]", -EINVAL, "needs port, hook, object and program" },
	};
	struct attach_opts o = opts();
	size_t i;

	SKIP_UNLESS_LAB();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct attach_set *set = attach_new();
		json_t *attach = spec(cases[i].json);
		char err[512] = "";

		assert_int_equal(attach_load(set, attach, &o, NULL, err, sizeof(err)), cases[i].err);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].msg);
		attach_destroy(&set);
		json_decref(attach);
	}
}

static void test_attach_verifier_log(void **state)
{
	struct attach_opts o = opts();
	char err[512] = "", *log = NULL;
	struct attach_set *set;
	json_t *attach;

	SKIP_UNLESS_LAB();
	attach = spec("[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"native\","
		      "\"object\":\"test_agent.bpf.o\",\"program\":\"xdp_bad\"}]");
	set = attach_new();
	assert_int_not_equal(attach_load(set, attach, &o, &log, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "cannot load program 'xdp_bad' of object 'test_agent.bpf.o'"));
	assert_non_null(log);
	if (!strstr(log, "invalid access to packet"))
		fail_msg("verifier log lacks the reason:\n%s", log);
	free(log);
	attach_destroy(&set);
	json_decref(attach);
}

static void test_attach_tcx(void **state)
{
	struct attach_opts o = opts();
	char err[512] = "";
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
	assert_int_equal(attach_load(set, attach, &o, NULL, err, sizeof(err)), 0);
	rc = attach_links(set, err, sizeof(err));
	if (rc) {
		/* a kernel before 6.6: a clear error, nothing left attached */
		assert_non_null(strstr(err, "tcx"));
		assert_int_equal(attach_get(set, 0)->link_fd, -1);
	} else {
		id = link_id(attach_get(set, 0)->link_fd, &type, &ifindex);
		assert_int_not_equal(type, BPF_LINK_TYPE_XDP);
		attach_detach(set);
		assert_link_gone(id);
	}
	attach_destroy(&set);
	json_decref(attach);
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
		cmocka_unit_test(test_attach_tcx),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}
