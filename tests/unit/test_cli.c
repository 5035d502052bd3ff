// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_cli.c - the bpflab binary as a person runs it: fork/exec of build/bin/bpflab with
 * its output captured, checking exit statuses (0 ok, 1 failure, 2 bad usage or a bad
 * plan), --help at each level, JSON errors, the timeout message, and real exchanges:
 *
 * - with a fake coordinator (a ROUTER socket on an ipc path in this process, answering
 *   canned replies and recording what it got), for run submit [--wait], host list and
 *   error replies;
 * - with a database file filled through the store's own functions (plan -> run -> jobs
 *   -> results), for `bpflab --db FILE result show`, so that the whole path from samples
 *   to the posted table is checked with real code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include "base/version.h"
#include "plan/objects.h"
#include "plan/plan.h"
#include "proto/proto.h"
#include "store/store.h"
#include "base/util.h"
#include "helpers.h"

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"
#define QUICKSTART BPFLAB_SRCDIR "/plans/quickstart.yaml"

static char tmpdir[] = "/tmp/bpflab-test-cli-XXXXXX";

/* Run bpflab with ARGS (NULL-terminated, without argv[0]); capture stdout and stderr. */
static void run_cli(struct prog_out *o, const char *const *args)
{
	const char *argv[64] = { BPFLAB };
	int i, n = 1;

	/* the fake coordinator is plaintext: say so when talking to one */
	for (i = 0; args[i]; i++)
		if (!strcmp(args[i], "-c") && args[i + 1])
			argv[n++] = "--plaintext";
	for (i = 0; args[i]; i++)
		argv[n + i] = args[i];
	argv[n + i] = NULL;
	prog_run(o, argv, tmpdir);
}

/* ---- a fake coordinator ---- */

struct fake {
	void *ctx, *sock;
	char endpoint[300];
	pthread_t thread;
	atomic_int stop;
	atomic_int requests;		/* requests received */
	atomic_int run_shows;
	bool fail_run;			/* the followed run ends failed */
	json_t *submit;			/* the last submit message */
};

static json_t *fake_reply(struct fake *f, const json_t *msg)
{
	const char *type = proto_msg_type(msg);

	if (!strcmp(type, "submit")) {
		json_decref(f->submit);
		f->submit = json_deep_copy(msg);
		return json_pack("{s:i, s:s, s:i, s:i, s:[s]}", "v", 1, "type", "submitted",
				 "run", 3, "jobs", 9, "hosts", "h1");
	}
	if (!strcmp(type, "host_list"))
		return json_loads("{\"v\":1,\"type\":\"hosts\",\"hosts\":["
				  "{\"id\":1,\"name\":\"h1\",\"state\":\"busy\","
				  "\"kernel_release\":\"6.18.44\",\"last_seen_ms\":1,\"job\":17,"
				  "\"inventory\":{\"ports\":[{\"role\":\"a\",\"name\":\"h1-a\","
				  "\"driver\":\"veth\"},{\"role\":\"b\",\"name\":\"h1-b\","
				  "\"driver\":\"veth\"}]}},"
				  "{\"id\":2,\"name\":\"h2\",\"state\":\"gone\","
				  "\"kernel_release\":\"6.1.0\",\"last_seen_ms\":1,\"job\":null,"
				  "\"inventory\":{}}]}", 0, NULL);
	if (!strcmp(type, "noise_list"))	/* no host calibrated */
		return json_pack("{s:i, s:s, s:[]}", "v", 1, "type", "noise", "noise");
	if (!strcmp(type, "run_show") && jget_int(msg, "run", 0) == 3) {
		int n = atomic_fetch_add(&f->run_shows, 1);
		bool end = n >= 1;

		return json_pack("{s:i, s:s, s:{s:i, s:s, s:s, s:i, s:i, s:i, s:[]}}", "v", 1,
				 "type", "run", "run", "id", 3, "plan", "quickstart", "state",
				 !end ? "running" : f->fail_run ? "failed" : "done",
				 "jobs_total", 9, "jobs_done", !end ? 4 : f->fail_run ? 8 : 9,
				 "jobs_failed", end && f->fail_run ? 1 : 0, "jobs");
	}
	return proto_error_new(type, "unknown run %lld", jget_int(msg, "run", 0));
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;

	while (!atomic_load(&f->stop)) {
		zmq_pollitem_t item = { .socket = f->sock, .events = ZMQ_POLLIN };
		struct err why;
		char id[PROTO_MAX_IDENTITY];
		size_t id_len;
		json_t *msg, *reply;

		if (zmq_poll(&item, 1, 50) <= 0)
			continue;
		if (proto_recv_from(f->sock, id, &id_len, &msg, 0, &why))
			continue;
		atomic_fetch_add(&f->requests, 1);
		reply = fake_reply(f, msg);
		proto_send_to(f->sock, id, id_len, reply, 0);
		json_decref(reply);
		json_decref(msg);
	}
	return NULL;
}

static void fake_start(struct fake *f, bool fail_run)
{
	int linger = 0;

	memset(f, 0, sizeof(*f));
	f->fail_run = fail_run;
	snprintf(f->endpoint, sizeof(f->endpoint), "ipc://%s/clients.sock", tmpdir);
	f->ctx = zmq_ctx_new();
	assert_non_null(f->ctx);
	f->sock = zmq_socket(f->ctx, ZMQ_ROUTER);
	assert_non_null(f->sock);
	zmq_setsockopt(f->sock, ZMQ_LINGER, &linger, sizeof(linger));
	assert_int_equal(zmq_bind(f->sock, f->endpoint), 0);
	assert_int_equal(pthread_create(&f->thread, NULL, fake_main, f), 0);
}

static void fake_stop(struct fake *f)
{
	atomic_store(&f->stop, 1);
	pthread_join(f->thread, NULL);
	zmq_close(f->sock);
	zmq_ctx_term(f->ctx);
	json_decref(f->submit);
}

/* ---- usage ---- */

static void test_cli_help(void **state)
{
	struct prog_out o;
	char want[64];

	run_cli(&o, (const char *[]){ "--help", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "Usage: bpflab [OPTIONS] OBJECT { COMMAND | help }\n");
	assert_contains(o.out, "       bpflab run submit FILE [-s KEY=VALUE]... [--hosts NAME[,NAME]...]\n"
			       "               [--wait]\n");
	assert_contains(o.out, "       bpflab result compare { RUN_A RUN_B | --plan NAME --by FIELD\n"
			       "               [--baseline VALUE] [--candidate VALUE] } [--metric M]\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "run", "--help", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "Usage: bpflab run submit FILE [-s KEY=VALUE]... [--hosts NAME[,NAME]...]\n"
			       "               [--wait]\n"
			       "       bpflab run list\n"
			       "       bpflab run show ID\n"
			       "       bpflab run cancel ID\n"
			       "       bpflab run watch ID\n"
			       "       bpflab run help\n");
	assert_contains(o.out, "OPTIONS := {");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "run", "submit", "--help", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "Usage: bpflab run submit FILE [-s KEY=VALUE]... [--hosts NAME[,NAME]...]\n"
			       "               [--wait]\n\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "result", "help", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "Usage: bpflab result show RUN [--csv | --form FORM [--metric METRIC]\n"
			       "               [--subject SUBJECT] | --trials | --seconds [--metric METRIC]\n"
			       "               [--subject SUBJECT]] [--all-rows] [--wide]\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "-V", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "bpflab ");
	prog_out_free(&o);

	/* an unambiguous prefix of an object and of a command is the name */
	run_cli(&o, (const char *[]){ "res", "sh", "--help", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "Usage: bpflab result show RUN");
	prog_out_free(&o);
	run_cli(&o, (const char *[]){ "ver", NULL });
	assert_int_equal(o.status, 0);
	snprintf(want, sizeof(want), "bpflab %s\n", bpflab_version);
	assert_string_equal(o.out, want);
	prog_out_free(&o);
	/* the top-level commands are in the object list of the usage */
	run_cli(&o, (const char *[]){ "--help", NULL });
	assert_contains(o.out, "       bpflab keygen [OPTIONS]\n       bpflab serve [OPTIONS]\n");
	prog_out_free(&o);

	/* --help anywhere on the line, also for keygen, and nothing else is done */
	run_cli(&o, (const char *[]){ "keygen", "--out", tmpdir, "--name", "x", "--help", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "Usage: bpflab keygen --role ROLE [--out DIR] [--name NAME] "
			"[--force]\n");
	assert_contains(o.out, "  --force ");
	prog_out_free(&o);
	{
		char key[300];

		snprintf(key, sizeof(key), "%s/%s.key", tmpdir, "x");
		assert_int_equal(access(key, F_OK), -1);
	}
}

/* Columns of the longest line of TEXT (UTF-8 characters, so "±" counts once); *LINE gets
 * a copy of that line's start for the failure message. */
static size_t widest_line(const char *text, char *line, size_t line_sz)
{
	size_t widest = 0, cols = 0;
	const char *start = text, *p;

	for (p = text;; p++) {
		if (*p == '\n' || !*p) {
			if (cols > widest) {
				widest = cols;
				snprintf(line, line_sz, "%.*s", (int)(p - start), start);
			}
			if (!*p)
				break;
			cols = 0;
			start = p + 1;
		} else if (((unsigned char)*p & 0xc0) != 0x80) {
			cols++;
		}
	}
	return widest;
}

static void assert_help_fits(const char *const *args)
{
	char line[512];
	struct prog_out o;
	size_t w;

	run_cli(&o, args);
	assert_int_equal(o.status, 0);
	w = widest_line(o.out, line, sizeof(line));
	if (w > 80)
		fail_msg("'bpflab %s%s%s --help': %zu columns: '%s'", args[0] ? args[0] : "",
			 args[0] && args[1] ? " " : "", args[0] && args[1] ? args[1] : "", w, line);
	prog_out_free(&o);
}

/* Every help text fits 80 columns: bpflab --help, each OBJECT --help (the objects from
 * the OBJECT := { ... } line) and each OBJECT COMMAND --help (the commands its usage
 * lists). */
static void test_cli_help_width(void **state)
{
	char objs[256], *obj, *save = NULL, needle[64];
	int nobj = 0, ncmd = 0;
	const char *p, *q;
	struct prog_out top, o;

	(void)state;
	run_cli(&top, (const char *[]){ "--help", NULL });
	assert_int_equal(top.status, 0);
	assert_help_fits((const char *[]){ "--help", NULL });
	p = strstr(top.out, "OBJECT := { ");
	assert_non_null(p);
	p += strlen("OBJECT := { ");
	q = strstr(p, " }");
	assert_non_null(q);
	snprintf(objs, sizeof(objs), "%.*s", (int)(q - p), p);
	for (obj = strtok_r(objs, " |", &save); obj; obj = strtok_r(NULL, " |", &save)) {
		nobj++;
		assert_help_fits((const char *[]){ obj, "--help", NULL });
		run_cli(&o, (const char *[]){ obj, "--help", NULL });
		snprintf(needle, sizeof(needle), " bpflab %s ", obj);
		for (p = strstr(o.out, needle); p; p = strstr(p, needle)) {
			char cmd[32];

			p += strlen(needle);
			if (sscanf(p, "%31[a-z]", cmd) != 1 || !strcmp(cmd, "help"))
				continue;
			ncmd++;
			assert_help_fits((const char *[]){ obj, cmd, "--help", NULL });
		}
		prog_out_free(&o);
	}
	assert_help_fits((const char *[]){ "keygen", "--help", NULL });
	assert_true(nobj >= 6);
	assert_true(ncmd >= 20);
	prog_out_free(&top);
}

static void test_cli_bad_usage(void **state)
{
	static const struct {
		const char *args[16];
		const char *err;
	} cases[] = {
		{ { NULL }, "Usage: bpflab" },
		{ { "frob", NULL }, "bpflab: unknown object 'frob'\nsee 'bpflab --help'\n" },
		{ { "run", "frob", NULL },
		  "bpflab: unknown command 'frob' for 'run'\nsee 'bpflab run --help'\n" },
		/* prefixes only when they name one; the candidates otherwise */
		{ { "r", "list", NULL },
		  "bpflab: ambiguous object 'r': 'run', 'result'\nsee 'bpflab --help'\n" },
		{ { "bisect", "st", NULL },
		  "bpflab: ambiguous command 'st' for 'bisect': 'start', 'status', 'step'\n" },
		{ { "reslut", "show", "1", NULL },
		  "bpflab: unknown object 'reslut' (did you mean 'result'?)\n" },
		{ { "result", "shwo", "1", NULL },
		  "bpflab: unknown command 'shwo' for 'result' (did you mean 'show'?)\n"
		  "see 'bpflab result --help'\n" },
		{ { "run", "lsit", NULL }, "unknown command 'lsit' for 'run' (did you mean 'list'?)" },
		{ { "--frob", NULL }, "unknown option '--frob'" },
		{ { "-c", NULL }, "option '-c' needs a value" },
		{ { "plan", NULL }, "missing command for 'plan'" },
		{ { "run", "list", "--bogus", NULL },
		  "unknown option '--bogus' for 'run list'\nsee 'bpflab run list --help'\n" },
		{ { "run", "list", "extra", NULL }, "unexpected argument 'extra'" },
		{ { "run", "show", NULL }, "missing run ID" },
		{ { "run", "show", "x", NULL }, "invalid run id 'x'" },
		{ { "run", "submit", NULL }, "missing plan FILE\nsee 'bpflab run submit --help'" },
		{ { "run", "submit", "p.yaml", "-s", "novalue", NULL },
		  "invalid override 'novalue'" },
		{ { "result", "show", NULL }, "missing RUN" },
		{ { "--timeout", "0", "host", NULL }, "invalid timeout '0'" },
		/* each command takes its own options, not those of its neighbours */
		{ { "result", "history", "--plan", "p", "--metric", "m", "--format", "bmf", NULL },
		  "unknown option '--format' for 'result history'" },
		{ { "result", "export", "1", "--format", "bmf", "--metric", "m", NULL },
		  "unknown option '--metric' for 'result export'" },
		{ { "bisect", "status", "--plan", "p", NULL },
		  "unknown option '--plan' for 'bisect status'" },
		{ { "bisect", "step", "-s", "a=b", NULL }, "unknown option '-s' for 'bisect step'" },
		{ { "result", "history", "--plan", "p", "--metric", "m", "--by", "plan", NULL },
		  "a history goes by host (one per host), kernel.release, kernel.build, "
		  "kernel.version, kernel.config, day or port.driver, or two or three of them "
		  "joined by ',', not 'plan'" },
		{ { "result", "history", "--plan", "p", "--metric", "m", "--by", "host", "--csv",
		    NULL }, "--by host goes without --csv and --plot" },
		{ { "result", "compare", "1", "2", "--baseline", "1", NULL },
		  "--baseline and --candidate go with --by" },
		{ { "result", "import", "--before", "a.json", "--after", "b.json", "--variant", "v",
		    "--plan", "p", "--metric", "m", NULL }, "--metric and --unit go with a CSV" },
		{ { "result", "import", "x.csv", "--plan", "p", "--variant", "v", NULL },
		  "--variant goes with --before and --after" },
		{ { "host", "boot", "g1", "6.6", "--wait", "0", NULL }, "invalid --wait '0'" },
		{ { "--db", "x.db", "host", "boot", "g1", "6.6", NULL }, "cannot boot with --db" },
		{ { "--db", "x.db", "run", "watch", "1", NULL }, "needs the coordinator, not --db" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prog_out o;

		run_cli(&o, cases[i].args);
		if (o.status != 2)
			fprintf(stderr, "case %zu: status %d\n%s", i, o.status, o.err);
		assert_int_equal(o.status, 2);
		assert_contains(o.err, cases[i].err);
		assert_string_equal(o.out, "");
		prog_out_free(&o);
	}
}

static void test_cli_json_errors(void **state)
{
	struct prog_out o;
	json_t *j;

	run_cli(&o, (const char *[]){ "-j", "frob", NULL });
	assert_int_equal(o.status, 2);
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "error")),
			    "unknown object 'frob'");
	json_decref(j);
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "result", "show", "1", "--csv", "--json", NULL });
	assert_int_equal(o.status, 2);
	assert_contains(o.out, "{\"error\":");
	prog_out_free(&o);
}

static void test_cli_no_coordinator(void **state)
{
	char ep[300], want[400];
	struct prog_out o;

	snprintf(ep, sizeof(ep), "ipc://%s/nobody.sock", tmpdir);
	snprintf(want, sizeof(want), "bpflab: no reply from coordinator at '%s' after 1 s "
		 "(is bpflabd running?)\n", ep);
	run_cli(&o, (const char *[]){ "-c", ep, "--timeout", "1", "host", "list", NULL });
	assert_int_equal(o.status, 1);
	assert_string_equal(o.err, want);
	prog_out_free(&o);
}

/* ---- plans ---- */

static void test_cli_plan_check(void **state)
{
	char bad[300], want[400];
	struct prog_out o;

	run_cli(&o, (const char *[]){ "--bpf-dir", BPF_DIR, "plan", "check", QUICKSTART, NULL });
	assert_int_equal(o.status, 0);
	assert_string_equal(o.out, QUICKSTART ": ok, 9 jobs (3 variants x 1 point x "
				   "3 repetitions)\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--bpf-dir", BPF_DIR, "plan", "check", QUICKSTART, "-s",
				      "repeat=1", NULL });
	assert_int_equal(o.status, 0);
	assert_string_equal(o.out, QUICKSTART ": ok, 3 jobs (3 variants x 1 point x "
				   "1 repetition)\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--bpf-dir", BPF_DIR, "plan", "show", QUICKSTART, NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "seq  rep  variant  point  attach\n"
			       "  0    1  drop     -      xdp_drop on b (xdp native)\n");
	prog_out_free(&o);

	/* a plan that does not validate: FILE:LINE:COLUMN on stderr, exit 2 */
	snprintf(bad, sizeof(bad), "%s/bad.yaml", tmpdir);
	file_put(bad, "name: bad\nrepeat: many\n");
	snprintf(want, sizeof(want), "%s:", bad);
	run_cli(&o, (const char *[]){ "--bpf-dir", BPF_DIR, "plan", "check", bad, NULL });
	assert_int_equal(o.status, 2);
	assert_string_equal(o.out, "");
	assert_true(!strncmp(o.err, want, strlen(want)));
	assert_true(o.err[strlen(want)] >= '1' && o.err[strlen(want)] <= '9');
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "-j", "--bpf-dir", BPF_DIR, "plan", "check", bad, NULL });
	assert_int_equal(o.status, 2);
	assert_contains(o.out, "\"ok\":false");
	prog_out_free(&o);

	/* a file that is not there: a failure, not a usage error */
	snprintf(bad, sizeof(bad), "%s/missing.yaml", tmpdir);
	run_cli(&o, (const char *[]){ "plan", "check", bad, NULL });
	assert_int_equal(o.status, 1);
	prog_out_free(&o);
}

/* ---- through a coordinator ---- */

static void test_cli_submit_bad_plan_sends_nothing(void **state)
{
	char bad[300];
	struct fake f;
	struct prog_out o;

	fake_start(&f, false);
	snprintf(bad, sizeof(bad), "%s/bad.yaml", tmpdir);
	file_put(bad, "name: bad\nrepeat: many\n");
	run_cli(&o, (const char *[]){ "-c", f.endpoint, "--bpf-dir", BPF_DIR, "run", "submit",
				      bad, NULL });
	assert_int_equal(o.status, 2);
	usleep(100 * 1000);
	assert_int_equal(atomic_load(&f.requests), 0);
	prog_out_free(&o);
	fake_stop(&f);
}

static void test_cli_submit_wait(void **state)
{
	char *text, *obj, hex[SHA256_HEX_LEN];
	const json_t *o_json;
	size_t text_len, obj_len, data_len;
	void *data;
	struct fake f;
	struct prog_out o;

	fake_start(&f, false);
	run_cli(&o, (const char *[]){ "-c", f.endpoint, "--bpf-dir", BPF_DIR, "run", "submit",
				      QUICKSTART, "-s", "traffic.packet.size=1500", "--wait",
				      NULL });
	assert_int_equal(o.status, 0);
	assert_string_equal(o.out, "run 3 submitted: 9 jobs on 1 host (h1)\n");
	assert_contains(o.err, "run 3: 4/9 jobs done, 0 failed\n");
	assert_contains(o.err, "run 3: 9/9 jobs done, 0 failed\n");
	prog_out_free(&o);

	/* what was sent: the plan text as it is, the overrides, the object's bytes */
	assert_non_null(f.submit);
	assert_string_equal(jget_str(f.submit, "plan_file", ""), QUICKSTART);
	assert_int_equal(util_read_file(QUICKSTART, 1 << 20, &text, &text_len), 0);
	assert_string_equal(jget_str(f.submit, "plan_text", ""), text);
	free(text);
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(f.submit, "overrides"), 0)),
			    "traffic.packet.size=1500");
	o_json = json_object_get(json_object_get(f.submit, "objects"), "xdp_basic.bpf.o");
	assert_non_null(o_json);
	assert_int_equal(util_read_file(BPF_DIR "/xdp_basic.bpf.o", 1 << 26, &obj, &obj_len), 0);
	util_sha256_hex(obj, obj_len, hex);
	assert_string_equal(jget_str(o_json, "sha256", ""), hex);
	assert_int_equal(util_base64_decode(jget_str(o_json, "data", ""), &data, &data_len),
			 0);
	assert_int_equal(data_len, obj_len);
	assert_memory_equal(data, obj, obj_len);
	free(data);
	free(obj);
	fake_stop(&f);

	/* a failed job: exit 1; JSON output carries the final run */
	fake_start(&f, true);
	run_cli(&o, (const char *[]){ "-j", "-c", f.endpoint, "--bpf-dir", BPF_DIR, "run",
				      "submit", QUICKSTART, "--wait", NULL });
	assert_int_equal(o.status, 1);
	assert_contains(o.err, "run 3: 8/9 jobs done, 1 failed\n");
	{
		json_t *j = json_loads(o.out, 0, NULL);

		assert_non_null(j);
		assert_int_equal(jget_int(j, "run", 0), 3);
		assert_string_equal(jget_str(json_object_get(j, "final"), "state", ""),
				    "failed");
		json_decref(j);
	}
	prog_out_free(&o);
	fake_stop(&f);
}

static void test_cli_queries_coordinator(void **state)
{
	struct fake f;
	struct prog_out o;

	fake_start(&f, false);
	run_cli(&o, (const char *[]){ "-c", f.endpoint, "host", NULL });
	assert_int_equal(o.status, 0);
	assert_string_equal(o.out,
		"name  state  kernel   ports                     job\n"
		"h1    busy   6.18.44  a=h1-a veth, b=h1-b veth   17\n"
		"h2    gone   6.1.0    -                           -\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "-c", f.endpoint, "host", "list", "-j", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "[{\"id\":1,\"name\":\"h1\"");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "-c", f.endpoint, "run", "show", "42", NULL });
	assert_int_equal(o.status, 1);
	assert_string_equal(o.err, "bpflab: unknown run 42\n");
	prog_out_free(&o);
	fake_stop(&f);
}

/* ---- from a database file ---- */

static const struct {
	const char *variant, *prog;
	double pps[3], ns[3];
} db_values[] = {
	{ "drop", "xdp_drop", { 19.86e6, 19.91e6, 20.03e6 }, { 35.9, 35.6, 35.5 } },
	{ "pass", "xdp_pass", { 3.12e6, 3.10e6, 3.15e6 }, { 20.1, 20.3, 20.0 } },
	{ "tx", "xdp_tx", { 7.01e6, 7.02e6, 0 }, { 40.2, 40.4, 0 } },
};

/* A database with one quickstart run on host h1; tx's third repetition failed. */
static void make_db(const char *path)
{
	json_t *inv = json_loads("{\"hostname\":\"h1\",\"agent\":\"h1\",\"kernel\":"
				 "{\"release\":\"6.18.44\",\"version\":\"#1 SMP\"},"
				 "\"ports\":[{\"role\":\"a\",\"name\":\"h1-a\",\"driver\":\"veth\"},"
				 "{\"role\":\"b\",\"name\":\"h1-b\",\"driver\":\"veth\"}]}", 0, NULL);
	struct err perr = { .msg = "" };
	struct store_job_new *jn;
	struct plan_objects objs = { 0 };
	struct plan_job *jobs;
	struct store *st;
	struct plan *plan;
	int64_t host, run, job_id, run_id;
	struct err err;
	json_t *spec, *a;
	int n, i, k;
	size_t x;

	st = store_open(path, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1.0", inv, 1000, &host, NULL), 0);
	plan = plan_load(QUICKSTART, NULL, 0, &perr);
	assert_non_null(plan);
	assert_int_equal(plan_objects_resolve(plan, BPF_DIR, &objs, &perr), 0);
	assert_int_equal(plan_expand(plan, &jobs, &n, &perr), 0);
	jn = calloc(n, sizeof(*jn));
	assert_non_null(jn);
	for (i = 0; i < n; i++) {
		/* what the coordinator does on submit: stamp each attach with its sha256 */
		json_array_foreach(json_object_get(jobs[i].spec, "attach"), x, a) {
			const struct plan_object *o = plan_objects_find(
				&objs, json_string_value(json_object_get(a, "object")));

			assert_non_null(o);
			json_object_set_new(a, "sha256", json_string(o->sha256));
		}
		jn[i].host_id = host;
		jn[i].job = &jobs[i];
	}
	assert_int_equal(store_run_create(st, plan, NULL, &objs, jn, n, 2000, &run), 0);

	while (store_job_next(st, host, &job_id, &run_id, &spec) == 0) {
		const char *variant = json_string_value(json_object_get(spec, "variant"));
		int rep = (int)json_integer_value(json_object_get(spec, "rep"));
		json_t *res;
		bool ok;

		assert_int_equal(store_job_dispatch(st, job_id, 3000), 0);
		for (k = 0; strcmp(db_values[k].variant, variant); k++)
			;
		ok = db_values[k].pps[rep - 1] > 0;
		res = json_pack("{s:i, s:s, s:I, s:s, s:O, s:i, s:i, s:[]}", "v", 1, "type",
				"result", "job", (json_int_t)job_id, "status", ok ? "ok" : "failed",
				"env", inv, "started_ms", 3000, "finished_ms", 4000, "samples");
		assert_non_null(res);
		if (ok) {
			json_array_append_new(json_object_get(res, "samples"),
				json_pack("{s:s, s:s, s:f, s:s, s:s, s:n}", "metric", "port.rx_pps",
					  "subject", "b", "value", db_values[k].pps[rep - 1],
					  "unit", "pps", "window", "rate", "seq"));
			json_array_append_new(json_object_get(res, "samples"),
				json_pack("{s:s, s:s, s:f, s:s, s:s, s:i}", "metric", "port.rx_pps",
					  "subject", "b", "value", 1.0, "unit", "pps",
					  "window", "rate", "seq", 0));
			json_array_append_new(json_object_get(res, "samples"),
				json_pack("{s:s, s:s, s:f, s:s, s:s, s:n}", "metric",
					  "prog.ns_per_run", "subject", db_values[k].prog,
					  "value", db_values[k].ns[rep - 1], "unit", "ns",
					  "window", "cost", "seq"));
		} else {
			json_object_set_new(res, "error", json_string("cannot attach 'xdp_tx'"));
		}
		{
			struct store_ingest ing;

			assert_int_equal(store_ingest_result(st, host, res, 5000, &ing), 0);
		}
		json_decref(res);
		json_decref(spec);
	}
	free(jn);
	plan_jobs_free(jobs, n);
	plan_objects_release(&objs);
	plan_destroy(&plan);
	store_close(&st);
	json_decref(inv);
}

static void test_cli_db_result(void **state)
{
	char db[300], hex[SHA256_HEX_LEN], head[128], *text, *want;
	size_t len;
	struct prog_out o;
	json_t *j, *rows;

	snprintf(db, sizeof(db), "%s/lab.db", tmpdir);
	make_db(db);
	assert_int_equal(util_read_file(QUICKSTART, 1 << 20, &text, &len), 0);
	util_sha256_hex(text, len, hex);
	free(text);
	snprintf(head, sizeof(head), "run 1  quickstart  plan %.12s  failed\n", hex);

	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", NULL });
	assert_int_equal(o.status, 0);
	assert_true(asprintf(&want, "%s%s", head,
		"host h1  kernel 6.18.44\n"
		"\n"
		"port.rx_pps  (packets/s, bpf_stats off)\n"
		"variant  port  results-1 results-2 results-3     mean ± spread\n"
		"drop     b        19.86M    19.91M    20.03M   19.93M ± 0.09M\n"
		"pass     b         3.12M     3.10M     3.15M    3.12M ± 0.03M\n"
		"tx       b         7.01M     7.02M         -    7.02M ± 0.01M\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog      results-1 results-2 results-3   total = mean ± spread\n"
		"drop     xdp_drop       35.9      35.6      35.5           35.7 ± 0.2\n"
		"pass     xdp_pass       20.1      20.3      20.0           20.1 ± 0.2\n"
		"tx       xdp_tx         40.2      40.4         -           40.3 ± 0.1\n") > 0);
	assert_string_equal(o.out, want);
	free(want);
	prog_out_free(&o);

	/* the same numbers in JSON, through the same query */
	run_cli(&o, (const char *[]){ "result", "show", "1", "--db", db, "-j", NULL });
	assert_int_equal(o.status, 0);
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	rows = json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(j, "groups"), 0), "sections"), 0), "rows");
	assert_string_equal(jget_str(json_array_get(rows, 0), "variant", ""), "drop");
	assert_true(jget_num(json_array_get(rows, 0), "spread", 0) == 85000);
	json_decref(j);
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", "--csv", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "run,job,host,variant,rep,point,metric,subject,window,value,unit\n");
	assert_contains(o.out, ",h1,drop,1,,port.rx_pps,b,rate,19860000,pps\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "run", "list", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "quickstart  failed");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "2", NULL });
	assert_int_equal(o.status, 1);
	prog_out_free(&o);
}

/* A host's inventory with kernel KERNEL and port b. New reference. */
static json_t *boot_inventory(const char *name, const char *kernel)
{
	json_t *inv = json_pack("{s:s, s:s, s:{s:s}, s:[{s:s, s:s, s:s}]}", "hostname", name,
				"agent", name, "kernel", "release", kernel, "ports", "role", "b",
				"name", "vb", "driver", "veth");

	assert_non_null(inv);
	return inv;
}

/* A database whose hosts switched kernels (schema 008, lib/store/store_boot.c):
 * g1 switching, connected; g2 switching, gone (kexec in progress); g3 whose switch
 * failed; g4 whose switch is done; h5 never asked to switch. */
static void make_boot_db(const char *path)
{
	static const char *const names[] = { "g1", "g2", "g3", "g4", "h5" };
	int64_t id[5];
	struct err err;
	struct store *st;
	size_t i;

	st = store_open(path, false, &err);
	assert_non_null(st);
	for (i = 0; i < 5; i++) {
		json_t *inv = boot_inventory(names[i], i == 3 ? "6.6.0" : "6.1.0");

		assert_int_equal(store_host_hello(st, names[i], "0.1.0", inv, 1000, &id[i], NULL),
				 0);
		json_decref(inv);
	}
	assert_int_equal(store_boot_begin(st, id[0], "6.6.0", "6.1.0", 2000, NULL), 0);
	assert_int_equal(store_boot_begin(st, id[1], "6.6.0", "6.1.0", 2001, NULL), 0);
	assert_int_equal(store_host_gone(st, id[1], NULL), 0);
	assert_int_equal(store_boot_begin(st, id[2], "9.9", "6.1.0", 2002, NULL), 0);
	assert_int_equal(store_boot_end(st, id[2], "failed", "boot 9.9: the kernel provider "
					"failed (exit status 1)", 2500), 0);
	assert_int_equal(store_boot_begin(st, id[3], "6.6.0", "6.1.0", 2003, NULL), 0);
	assert_int_equal(store_boot_end(st, id[3], "done", NULL, 2600), 0);
	store_close(&st);
}

/* The host of NAME in the host list HOSTS. */
static const json_t *host_named(const json_t *hosts, const char *name)
{
	const json_t *h;
	size_t i;

	json_array_foreach(hosts, i, h)
		if (!strcmp(jget_str(h, "name", ""), name))
			return h;
	fail_msg("no host '%s' in the host list", name);
	return NULL;
}

/* `bpflab --db FILE host list` shows the stored kernel switches as the coordinator's
 * host list does (coordinator/boot.c, coord_boot_hosts): "boot" objects, state
 * "booting" for a host still switching, and a failed switch named under the table. */
static void test_cli_db_host_boots(void **state)
{
	char db[300];
	const json_t *h, *b;
	struct prog_out o;
	json_t *j;

	(void)state;
	snprintf(db, sizeof(db), "%s/boots.db", tmpdir);
	make_boot_db(db);

	run_cli(&o, (const char *[]){ "--db", db, "host", "list", "-j", NULL });
	assert_int_equal(o.status, 0);
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_array_size(j), 5);

	h = host_named(j, "g1");
	assert_string_equal(jget_str(h, "state", ""), "booting");
	b = json_object_get(h, "boot");
	assert_non_null(b);
	assert_string_equal(jget_str(b, "kernel", ""), "6.6.0");
	assert_string_equal(jget_str(b, "from", ""), "6.1.0");
	assert_string_equal(jget_str(b, "state", ""), "booting");
	assert_int_equal(jget_int(b, "since_ms", 0), 2000);
	assert_null(json_object_get(b, "error"));
	assert_int_equal(json_object_size(b), 4);

	h = host_named(j, "g2");	/* gone while switching: stays gone, as through bpflabd */
	assert_string_equal(jget_str(h, "state", ""), "gone");
	assert_string_equal(jget_str(json_object_get(h, "boot"), "state", ""), "booting");

	h = host_named(j, "g3");
	assert_string_equal(jget_str(h, "state", ""), "idle");
	b = json_object_get(h, "boot");
	assert_string_equal(jget_str(b, "state", ""), "failed");
	assert_string_equal(jget_str(b, "kernel", ""), "9.9");
	assert_contains(jget_str(b, "error", ""), "the kernel provider failed");
	assert_int_equal(jget_int(b, "since_ms", 0), 2002);

	h = host_named(j, "g4");
	assert_string_equal(jget_str(h, "state", ""), "idle");
	assert_string_equal(jget_str(json_object_get(h, "boot"), "state", ""), "done");

	assert_null(json_object_get(host_named(j, "h5"), "boot"));
	json_decref(j);
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "host", NULL });
	assert_int_equal(o.status, 0);
	assert_string_equal(o.out,
		"name  state    kernel  ports      job\n"
		"g1    booting  6.1.0   b=vb veth    -\n"
		"g2    gone     6.1.0   b=vb veth    -\n"
		"g3    idle     6.1.0   b=vb veth    -\n"
		"g4    idle     6.6.0   b=vb veth    -\n"
		"h5    idle     6.1.0   b=vb veth    -\n"
		"host g3: switch to kernel 9.9 failed: boot 9.9: the kernel provider failed "
		"(exit status 1)\n");
	assert_string_equal(o.err, "");
	prog_out_free(&o);
}

static int setup(void **state)
{
	char ep[300];

	if (!mkdtemp(tmpdir))
		return -1;
	/* never reach a real lab by accident */
	snprintf(ep, sizeof(ep), "ipc://%s/default.sock", tmpdir);
	setenv("BPFLAB_COORDINATOR", ep, 1);
	unsetenv("BPFLAB_BPF_DIR");
	return 0;
}

static int teardown(void **state)
{
	return tmpdir_remove(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_help),
		cmocka_unit_test(test_cli_help_width),
		cmocka_unit_test(test_cli_bad_usage),
		cmocka_unit_test(test_cli_json_errors),
		cmocka_unit_test(test_cli_no_coordinator),
		cmocka_unit_test(test_cli_plan_check),
		cmocka_unit_test(test_cli_submit_bad_plan_sends_nothing),
		cmocka_unit_test(test_cli_submit_wait),
		cmocka_unit_test(test_cli_queries_coordinator),
		cmocka_unit_test(test_cli_db_result),
		cmocka_unit_test(test_cli_db_host_boots),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
