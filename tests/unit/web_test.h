/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* web_test.h - what the dashboard's unit tests (test_web.c, test_web_more.c) share: the
 * results of plan k, the real `bpflab` run for the output to compare with, a server on
 * an ephemeral port of 127.0.0.1 (in process, or bpflabd --http), and one GET compared
 * byte for byte with that output.
 * Static inline: each test uses what it needs. Include after helpers.h and web.h.
 */
#ifndef BPFLAB_TEST_WEB_TEST_H
#define BPFLAB_TEST_WEB_TEST_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"
#define BPFLABD BPFLAB_BUILDDIR "/bin/bpflabd"

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

/* Plan k's runs in DB (web_test_kernel_csv, one `result import` a kernel), the CSV
 * files written into DIR. */
static inline void web_test_import_k(const char *dir, const char *db)
{
	char file[400];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(file, sizeof(file), "%s/k%d.csv", dir, i);
		file_put(file, web_test_kernel_csv[i][1]);
		free(web_test_cli(dir, (const char *[]){ "--db", db, NULL }, (const char *[]){
			"result", "import", file, "--plan", "k", "--kernel",
			web_test_kernel_csv[i][0], NULL }));
	}
}

/* A group's setup: DIR (a mkdtemp template) made, DB (DB_LEN bytes) DIR/lab.db with plan
 * k's runs (web_test_import_k), no coordinator in the environment. Returns 0 or -1. */
static inline int web_test_setup_k(char *dir, char *db, size_t db_len)
{
	if (!mkdtemp(dir))
		return -1;
	unsetenv("BPFLAB_COORDINATOR");
	snprintf(db, db_len, "%s/lab.db", dir);
	web_test_import_k(dir, db);
	return 0;
}

/* How many times NEEDLE occurs in HAY. */
static inline int web_test_count(const char *hay, const char *needle)
{
	int n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

/* A server over FILE on 127.0.0.1, port 0, with TOKEN (may be NULL); the test fails
 * when it does not start. */
static inline struct web *web_test_start(const char *file, const char *token)
{
	struct web_opts o = { .db = file, .http = "127.0.0.1:0", .token = token };
	struct err err;
	bool usage;
	struct web *w = web_new(&o, &usage, &err);

	if (!w)
		fail_msg("web_new: %s", err.msg);
	assert_true(web_port(w) > 0);
	return w;
}

/* A copy DIR/busy.db of DB in rollback-journal mode, with *WRITER holding its write lock
 * (run 1 set cancelled, not committed: readers wait the busy timeout, then 503), served
 * on 127.0.0.1 (web_test_start). COMMIT and close *WRITER to let readers in. */
static inline struct web *web_test_locked(const char *dir, const char *db, sqlite3 **writer)
{
	char copy[400], cmd[900];
	struct web *w;

	snprintf(copy, sizeof(copy), "%s/busy.db", dir);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \".backup '%s'\"", db, copy);
	assert_int_equal(system(cmd), 0);
	db_file_exec(copy, "PRAGMA journal_mode = DELETE");
	w = web_test_start(copy, NULL);
	assert_int_equal(sqlite3_open(copy, writer), SQLITE_OK);
	assert_int_equal(sqlite3_exec(*writer, "BEGIN EXCLUSIVE; UPDATE runs SET state = "
				      "'cancelled' WHERE id = 1", NULL, NULL, NULL), SQLITE_OK);
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

/* bpflabd over a copy DIR/coord.db of DB, its sockets in DIR (plaintext ipc), with
 * --http 127.0.0.1:0: its pid, the port it logged in *PORT, its client endpoint in CL
 * (CL_LEN bytes); the test fails when it logs no address within 5 s. Stop it with
 * web_test_bpflabd_stop. */
static inline pid_t web_test_bpflabd(const char *dir, const char *db, unsigned *port,
				     char *cl, size_t cl_len)
{
	static const char logged[] = "dashboard at http://127.0.0.1:";
	char copy[400], log[400], ag[450], cmd[900], *text, *at;
	pid_t pid;
	int i;

	snprintf(copy, sizeof(copy), "%s/coord.db", dir);
	snprintf(log, sizeof(log), "%s/bpflabd.log", dir);
	snprintf(ag, sizeof(ag), "ipc://%s/agents.sock", dir);
	snprintf(cl, cl_len, "ipc://%s/clients.sock", dir);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \".backup '%s'\"", db, copy);
	assert_int_equal(system(cmd), 0);
	file_put(log, "");
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		execl(BPFLABD, BPFLABD, "--agents", ag, "--clients", cl, "--db", copy,
		      "--plaintext", "--log", log, "--http", "127.0.0.1:0", (char *)NULL);
		_exit(127);
	}
	*port = 0;
	for (i = 0; i < 100 && !*port; i++) {
		usleep(50 * 1000);
		text = file_slurp(log);
		at = strstr(text, logged);
		if (at)
			*port = (unsigned)atoi(at + strlen(logged));
		free(text);
	}
	if (!*port) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("bpflabd logged no dashboard address: %s", file_slurp(log));
	}
	return pid;
}

/* SIGTERM to bpflabd PID, which must exit 0. */
static inline void web_test_bpflabd_stop(pid_t pid)
{
	int status;

	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

#endif
