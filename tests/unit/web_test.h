/* web_test.h - what the dashboard's unit tests (test_web.c, test_web_more.c) share: the
 * results of plan k, the real `bpflab` run for the output to compare with, a server on
 * an ephemeral port of 127.0.0.1, and one GET compared byte for byte with that output.
 * Static inline: each test uses what it needs. Include after helpers.h and web.h.
 */
#ifndef BPFLAB_TEST_WEB_TEST_H
#define BPFLAB_TEST_WEB_TEST_H

#include <stdio.h>
#include <stdlib.h>

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"

/* Plan k's results: 4 repetitions on each of three kernels, a step from the first to the
 * second; the second kernel's name carries markup, to be escaped wherever it shows. */
static const char *const web_test_kernel_csv[3][2] = {
	{ "6.1.0", "variant,prog,set,value\ndrop,xdp_drop,1,10.1\ndrop,xdp_drop,2,10.3\n"
	  "drop,xdp_drop,3,10.2\ndrop,xdp_drop,4,10.0\n" },
	{ "6.2.0<i>", "variant,prog,set,value\ndrop,xdp_drop,1,20.1\ndrop,xdp_drop,2,20.3\n"
	  "drop,xdp_drop,3,20.2\ndrop,xdp_drop,4,20.0\n" },
	{ "6.3.0", "variant,prog,set,value\ndrop,xdp_drop,1,21.1\ndrop,xdp_drop,2,21.3\n"
	  "drop,xdp_drop,3,21.2\ndrop,xdp_drop,4,21.0\n" },
};

/* The stdout of `bpflab PRE... ARGS...` (both NULL-terminated; PRE may be NULL) run in
 * DIR, which must succeed (heap). */
static inline char *web_test_cli(const char *dir, const char *const *pre,
				 const char *const *args)
{
	const char *argv[40] = { BPFLAB };
	int n = 1, i;

	for (i = 0; pre && pre[i]; i++)
		argv[n++] = pre[i];
	for (i = 0; args[i] && n < 39; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return prog_stdout(argv, dir);
}

/* A server over FILE on 127.0.0.1, port 0, with TOKEN (may be NULL); the test fails
 * when it does not start. */
static inline struct web *web_test_start(const char *file, const char *token)
{
	struct web_opts o = { .db = file, .http = "127.0.0.1:0", .token = token };
	char err[512];
	bool usage;
	struct web *w = web_new(&o, &usage, err, sizeof(err));

	if (!w)
		fail_msg("web_new: %s", err);
	assert_true(web_port(w) > 0);
	return w;
}

/* GET PATH from the server on PORT into H: status 200 and the body WANT (freed). */
static inline void web_test_same(unsigned port, const char *path, char *want,
				 struct http *h)
{
	http_req(port, "GET", path, NULL, h);
	if (h->status != 200)
		fail_msg("%s: status %d: %s", path, h->status, h->body);
	assert_text(h->body, want);
	free(want);
}

#endif
