// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* coordinator.c - how much one bpflabd holds: simulated agents with heartbeats, the time
 * to hand out a run of 10,000 jobs, and the rate at which the samples agents send end up
 * stored, beside the rate of inserting the same rows straight into SQLite.
 *
 * It starts the real bpflabd binary (plaintext, ipc endpoints in a temporary folder, its
 * own database) and, in this process, N simulated agents (DEALER sockets, default 1,000)
 * spread over a few threads. A simulated agent says hello with a small inventory (ports
 * a and b on driver veth) and objects_kept as bpflab-agent's (its jobs name an object
 * sent before by sha256 alone, docs/protocol.md), heartbeats every second, and answers
 * each job at once with a result of S samples. The main thread is the client (a DEALER on the clients endpoint).
 *
 *   (a) idle: every agent registered and heartbeating; bpflabd's CPU use (utime + stime
 *       of /proc/PID/stat over a window) and whether it still counts every host idle;
 *   (b) dispatch: a run of 10,000 jobs (count: all, 10 jobs on each of 1,000 hosts),
 *       results of one sample: submit to the last job received by an agent;
 *   (c) ingest: the same with results of S samples (default 100): samples stored per
 *       second from the first result sent to the last ack, the stored count checked in
 *       the database, and bpflabd's CPU time per sample; then the same rows inserted
 *       straight into a fresh database of the same schema, one transaction per result
 *       and all in one, and the ratios.
 *
 * Killed (Ctrl-C, a timeout), it leaves neither bpflabd nor its temporary folder behind
 * (start_janitor). Prints figures; asserts nothing. Usage:
 *   build/bench/coordinator [--agents N] [--threads T] [--samples S] [--idle-seconds I]
 *                           [--bpflabd PATH] [--per-machine K] [--objects-every-job]
 * --per-machine K: every K agents in a row say one machine.id (their jobs run one after
 * another, coordinator/machine.c). --objects-every-job: the hello says no objects_kept
 * (every job message carries the objects' bytes, as before).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "proto/proto.h"
#include "store/store.h"
#include "base/util.h"

#define JOBS_PER_HOST 10
#define HEARTBEAT_MS 1000

static int n_agents = 1000, n_threads = 4, n_samples = 100, idle_seconds = 10;
static int per_machine;		/* agents that say one machine.id (0: none says one) */
static bool objects_kept = true;	/* hello says objects_kept, as bpflab-agent does */
static char dir[64], agents_ep[128], clients_ep[128];

/* shared between the agent threads and the main thread */
static atomic_int registered, stop, result_samples;
static atomic_long jobs_received, acks, samples_sent;
static atomic_llong last_job_ms, first_result_ms, last_ack_ms;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- simulated agents --- */

struct sim {
	void *sock;
	int64_t last_send;
	bool welcomed;
};

static void sim_send(struct sim *s, const char *text, size_t len)
{
	if (zmq_send(s->sock, text, len, ZMQ_DONTWAIT) >= 0)
		s->last_send = util_mono_ms();
}

/* A result of N samples for JOB, built as text (the agents must not be the bottleneck). */
static char *result_text(long long job, int n, size_t *len)
{
	size_t cap = 256 + (size_t)n * 96, used;
	char *t = malloc(cap);
	int64_t ms = util_wall_ms();
	int i;

	if (!t)
		return NULL;
	used = snprintf(t, cap, "{\"v\":1,\"type\":\"result\",\"job\":%lld,\"status\":\"ok\","
			"\"started_ms\":%lld,\"finished_ms\":%lld,\"samples\":[", job,
			(long long)ms, (long long)ms);
	for (i = 0; i < n; i++)
		used += snprintf(t + used, cap - used, "%s{\"metric\":\"port.rx_pps\",\"subject\":"
				 "\"b\",\"value\":%d.5,\"unit\":\"pps\",\"window\":\"rate\","
				 "\"seq\":%d}", i ? "," : "", 1000000 + i, i);
	used += snprintf(t + used, cap - used, "]}");
	*len = used;
	return t;
}

/* A message to a simulated agent, parsed as bpflab-agent parses it (lib/proto's own
 * parser, through proto_recv), so that the agents' share of the 2 CPUs is the real one. */
static void on_message(struct sim *s, const char *buf, size_t len)
{
	struct err why;
	json_t *msg = proto_parse(buf, len, &why);
	const char *type = json_string_value(json_object_get(msg, "type"));
	long long job;
	char *text;
	size_t tlen;
	int n;

	if (!type)
		goto out;
	if (!strcmp(type, "welcome")) {
		if (!s->welcomed)
			atomic_fetch_add(&registered, 1);
		s->welcomed = true;
	} else if (!strcmp(type, "job")) {
		job = json_integer_value(json_object_get(json_object_get(msg, "job"), "id"));
		atomic_fetch_add(&jobs_received, 1);
		atomic_store(&last_job_ms, util_mono_ms());
		n = atomic_load(&result_samples);
		text = result_text(job, n, &tlen);
		if (text) {
			long long zero = 0;

			atomic_compare_exchange_strong(&first_result_ms, &zero, util_mono_ms());
			sim_send(s, text, tlen);
			atomic_fetch_add(&samples_sent, n);
			free(text);
		}
	} else if (!strcmp(type, "ack")) {
		atomic_fetch_add(&acks, 1);
		atomic_store(&last_ack_ms, util_mono_ms());
	}
out:
	json_decref(msg);
}

static void *agents_thread(void *arg)
{
	int first = (int)(intptr_t)arg * n_agents / n_threads;
	int last = ((int)(intptr_t)arg + 1) * n_agents / n_threads, n = last - first, i;
	struct sim *sims = calloc(n, sizeof(*sims));
	zmq_pollitem_t *items = calloc(n, sizeof(*items));
	void *ctx = zmq_ctx_new();
	char hello[512], buf[65536];
	const char hb[] = "{\"v\":1,\"type\":\"heartbeat\"}";

	zmq_ctx_set(ctx, ZMQ_MAX_SOCKETS, n + 16);
	for (i = 0; i < n; i++) {
		int zero = 0, len;

		sims[i].sock = zmq_socket(ctx, ZMQ_DEALER);
		zmq_setsockopt(sims[i].sock, ZMQ_LINGER, &zero, sizeof(zero));
		if (zmq_connect(sims[i].sock, agents_ep)) {
			fprintf(stderr, "coordinator: cannot connect agent %d: %s\n", first + i,
				zmq_strerror(zmq_errno()));
			exit(1);
		}
		char machine[64] = "";

		if (per_machine)
			snprintf(machine, sizeof(machine), "\"machine\":{\"id\":\"m%d\"},",
				 (first + i) / per_machine);
		len = snprintf(hello, sizeof(hello),
			       "{\"v\":1,\"type\":\"hello\",\"agent\":\"sim%d\",\"version\":\"bench\","
			       "\"inventory\":{%s\"hostname\":\"sim%d\",\"agent\":\"sim%d\",\"kernel\":"
			       "{\"release\":\"6.18.0\"},\"cpu\":{\"count\":2},\"labels\":{},"
			       "\"ports\":[{\"role\":\"a\",\"name\":\"veth-a\",\"driver\":\"veth\"},"
			       "{\"role\":\"b\",\"name\":\"veth-b\",\"driver\":\"veth\"}]}%s}",
			       first + i, machine, first + i, first + i,
			       objects_kept ? ",\"objects_kept\":64" : "");
		sim_send(&sims[i], hello, len);
		items[i] = (zmq_pollitem_t){ .socket = sims[i].sock, .events = ZMQ_POLLIN };
	}
	while (!atomic_load(&stop)) {
		int64_t now;

		if (zmq_poll(items, n, 100) < 0 && zmq_errno() != EINTR)
			break;
		for (i = 0; i < n; i++) {
			int got;

			while (items[i].revents & ZMQ_POLLIN) {
				got = zmq_recv(sims[i].sock, buf, sizeof(buf), ZMQ_DONTWAIT);
				if (got < 0)
					break;
				on_message(&sims[i], buf, (size_t)got < sizeof(buf) ? (size_t)got : sizeof(buf));
			}
		}
		now = util_mono_ms();
		for (i = 0; i < n; i++)
			if (now - sims[i].last_send >= HEARTBEAT_MS)
				sim_send(&sims[i], hb, sizeof(hb) - 1);
	}
	for (i = 0; i < n; i++)
		zmq_close(sims[i].sock);
	zmq_ctx_term(ctx);
	free(items);
	free(sims);
	return NULL;
}

/* --- the coordinator process --- */

static long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	p = strrchr(buf, ')');	/* fields 14 and 15 after the command name */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
			 &st) != 2)
		return -1;
	return (long)(ut + st);
}

static pid_t start_bpflabd(const char *bin)
{
	char db[128], log[128];
	pid_t pid;

	snprintf(db, sizeof(db), "%s/bench.db", dir);
	snprintf(log, sizeof(log), "%s/bpflabd.log", dir);
	pid = fork();
	if (pid == 0) {
		/* stopped with this process, however it ends (start_janitor) */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl(bin, bin, "--plaintext", "--agents", agents_ep, "--clients", clients_ep,
		      "--db", db, "--log", log, (char *)NULL);
		fprintf(stderr, "coordinator: cannot run '%s': %s\n", bin, strerror(errno));
		_exit(127);
	}
	return pid;
}

/* A process that cleans up after this one when it is killed (Ctrl-C, a timeout, pkill),
 * as the end of main does otherwise: bpflabd gets SIGTERM when this process ends
 * (PR_SET_PDEATHSIG); the janitor, a shell in a session of its own (not named as this
 * program: `pkill coordinator` spares it), waits for the end of its pipe and, unless a
 * byte on it says the folder is gone, removes DIR once bpflabd (PID) is (5 s at most).
 * Returns the pipe's write end, or -1 (no janitor). */
static int start_janitor(pid_t pid)
{
	static const char script[] =
		"IFS= read -r done; [ -n \"$done\" ] && exit 0; "
		"i=0; while [ $i -lt 50 ] && kill -0 \"$1\" 2>/dev/null; do "
		"sleep 0.1; i=$((i + 1)); done; rm -rf \"$2\"";
	char pid_text[24];
	int p[2];
	pid_t j;

	if (pipe(p))
		return -1;
	snprintf(pid_text, sizeof(pid_text), "%d", (int)pid);
	j = fork();
	if (j == 0) {
		close(p[1]);
		setsid();
		if (dup2(p[0], STDIN_FILENO) < 0)
			_exit(1);
		execl("/bin/sh", "sh", "-c", script, "bpflab-bench-janitor", pid_text, dir,
		      (char *)NULL);
		_exit(1);
	}
	close(p[0]);
	if (j < 0) {
		close(p[1]);
		return -1;
	}
	return p[1];
}

/* --- the client --- */

static json_t *request(void *sock, json_t *req)
{
	struct err why;
	json_t *reply = NULL;
	zmq_pollitem_t it = { .socket = sock, .events = ZMQ_POLLIN };

	if (proto_send(sock, req, 0))
		return NULL;
	if (zmq_poll(&it, 1, 120000) != 1)
		return NULL;
	if (proto_recv(sock, &reply, 0, &why))
		return NULL;
	return reply;
}

static json_t *submit_msg(const char *obj_path)
{
	static const char plan[] =
		"name: bench\n"
		"hosts: {match: {port.driver: veth}, count: all}\n"
		"ports: [a, b]\n"
		"traffic: {generator: xdp-live, from: a, packet: {size: 64, proto: udp4, flows: 1},"
		" duration: 1s, warmup: 0s}\n"
		"variants:\n"
		"  drop: [{port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o,"
		" program: xdp_drop}]\n"
		"  pass: [{port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o,"
		" program: xdp_pass}]\n"
		"repeat: 5\n"
		"metrics: [port.rx_pps]\n";
	char sha[SHA256_HEX_LEN], *data = NULL, *b64;
	size_t len = 0;
	json_t *msg;

	if (util_read_file(obj_path, 16 << 20, &data, &len)) {
		fprintf(stderr, "coordinator: cannot read '%s'\n", obj_path);
		return NULL;
	}
	util_sha256_hex(data, len, sha);
	b64 = util_base64_encode(data, len);
	free(data);
	msg = json_pack("{s:i, s:s, s:s, s:s, s:[], s:{s:{s:s, s:s}}}", "v", 1, "type", "submit",
			"plan_file", "bench.yaml", "plan_text", plan, "overrides", "objects",
			"xdp_basic.bpf.o", "sha256", sha, "data", b64);
	free(b64);
	return msg;
}

/* Submit a run whose results carry SAMPLES samples and wait for every ack. Returns the
 * run id, or -1. Fills the submit-to-last-job and first-result-to-last-ack times. */
static long long run_once(void *client, const char *obj, int samples, double *t_dispatch,
			  double *t_ingest, long *jobs, pid_t pid, double *cpu, double *cpu_s)
{
	long acks0 = atomic_load(&acks);
	long long run;
	json_t *msg = submit_msg(obj), *reply;
	double t0, deadline;
	int64_t t0_ms;
	long c0;

	if (!msg)
		return -1;
	atomic_store(&result_samples, samples);
	atomic_store(&first_result_ms, 0);
	c0 = cpu_ticks(pid);
	t0 = now_s();
	t0_ms = util_mono_ms();

	reply = request(client, msg);
	json_decref(msg);
	if (!reply || strcmp(proto_msg_type(reply), "submitted")) {
		fprintf(stderr, "coordinator: submit failed: %s\n",
			reply ? jget_str(reply, "message", "?") : "no reply");
		json_decref(reply);
		return -1;
	}
	run = jget_int(reply, "run", -1);
	*jobs = jget_int(reply, "jobs", 0);
	json_decref(reply);
	deadline = t0 + 600;
	while (atomic_load(&acks) - acks0 < *jobs && now_s() < deadline)
		usleep(10000);
	if (atomic_load(&acks) - acks0 < *jobs) {
		fprintf(stderr, "coordinator: only %ld of %ld jobs acknowledged\n",
			atomic_load(&acks) - acks0, *jobs);
		return -1;
	}
	*cpu_s = (double)(cpu_ticks(pid) - c0) / sysconf(_SC_CLK_TCK);
	*cpu = 100.0 * *cpu_s / (now_s() - t0);
	*t_dispatch = (atomic_load(&last_job_ms) - t0_ms) / 1e3;
	*t_ingest = (atomic_load(&last_ack_ms) - atomic_load(&first_result_ms)) / 1e3;
	return run;
}

static long long db_count(const char *db, const char *sql)
{
	sqlite3 *d = NULL;
	sqlite3_stmt *s = NULL;
	long long n = -1;

	if (sqlite3_open_v2(db, &d, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(d, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(d);
	return n;
}

/* --- straight into SQLite --- */

/* Insert N_JOBS x PER rows like the coordinator's into a fresh database of the same
 * schema (store_open migrates it), one transaction per job when PER_JOB_TX, else one in
 * all. Returns rows per second. */
static double direct_insert(int n_jobs, int per, bool per_job_tx)
{
	struct err err;
	char path[128];
	struct store *st;
	sqlite3 *d = NULL;
	sqlite3_stmt *ins = NULL;
	double t0, t;
	int j, i;

	snprintf(path, sizeof(path), "%s/direct-%d.db", dir, per_job_tx);
	st = store_open(path, false, &err);
	if (!st) {
		fprintf(stderr, "coordinator: %s\n", err.msg);
		return 0;
	}
	store_close(&st);
	sqlite3_open(path, &d);
	sqlite3_exec(d, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
		     "PRAGMA foreign_keys=ON; BEGIN; "
		     "INSERT INTO plans VALUES (1, 'bench', 'x', 'x', 0); "
		     "INSERT INTO runs (id, plan_id, plan_file, submitted_ms) VALUES (1, 1, 'b', 0); "
		     "INSERT INTO hosts (id, name, inventory, first_seen_ms, last_seen_ms) "
		     "VALUES (1, 'h', '{}', 0, 0); "
		     "INSERT INTO job_specs (id, text) VALUES (1, '{}');", NULL, NULL, NULL);
	for (j = 1; j <= n_jobs; j++) {
		char sql[256];

		snprintf(sql, sizeof(sql), "INSERT INTO jobs (id, run_id, seq, host_id, variant, "
			 "variant_idx, rep, spec_id) VALUES (%d, 1, %d, 1, 'drop', 0, 1, 1)", j, j);
		sqlite3_exec(d, sql, NULL, NULL, NULL);
	}
	sqlite3_exec(d, "COMMIT", NULL, NULL, NULL);
	/* as lib/store/store.c does since schema 007: the series id once (the store caches it),
	 * then one row of integers, a real and the unit per sample */
	sqlite3_exec(d, "INSERT INTO series (id, metric, subject, window) "
		     "VALUES (1, 'port.rx_pps', 'b', 'rate')", NULL, NULL, NULL);
	sqlite3_prepare_v2(d, "INSERT INTO sample_values (job_id, series_id, seq, value, unit) "
			   "VALUES (?1, ?2, ?3, ?4, ?5)", -1, &ins, NULL);
	t0 = now_s();
	if (!per_job_tx)
		sqlite3_exec(d, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	for (j = 1; j <= n_jobs; j++) {
		if (per_job_tx)
			sqlite3_exec(d, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		for (i = 0; i < per; i++) {
			sqlite3_bind_int64(ins, 1, j);
			sqlite3_bind_int64(ins, 2, 1);
			sqlite3_bind_int64(ins, 3, i);
			sqlite3_bind_double(ins, 4, 1000000.5 + i);
			sqlite3_bind_text(ins, 5, "pps", -1, SQLITE_STATIC);
			if (sqlite3_step(ins) != SQLITE_DONE)
				fprintf(stderr, "coordinator: insert: %s\n", sqlite3_errmsg(d));
			sqlite3_reset(ins);
		}
		if (per_job_tx)
			sqlite3_exec(d, "COMMIT", NULL, NULL, NULL);
	}
	if (!per_job_tx)
		sqlite3_exec(d, "COMMIT", NULL, NULL, NULL);
	t = now_s() - t0;
	sqlite3_finalize(ins);
	sqlite3_close(d);
	return (double)n_jobs * per / t;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "agents", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "samples", required_argument, NULL, 's' },
		{ "idle-seconds", required_argument, NULL, 'i' },
		{ "bpflabd", required_argument, NULL, 'b' },
		{ "per-machine", required_argument, NULL, 'm' },
		{ "objects-every-job", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	char bin[PATH_MAX + 32], obj[PATH_MAX + 32], self[PATH_MAX], db[160], sql[256];
	struct rlimit rl;
	pthread_t *th;
	void *cctx = NULL, *client = NULL;
	double t_reg, cpu_idle, t_disp, t_disp2, t_ing, cpu1, cpu2, rate, direct_tx, direct_bulk;
	double t0, cpu1_s, cpu2_s;
	long c0, jobs1 = 0, jobs2 = 0, samples0;
	long long run1, run2, stored, idle;
	json_t *req, *reply;
	pid_t pid;
	int opt, i, status, janitor, rc = 1;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	*strrchr(self, '/') = '\0';		/* build/bench */
	snprintf(bin, sizeof(bin), "%s/../bin/bpflabd", self);
	snprintf(obj, sizeof(obj), "%s/../bpf/xdp_basic.bpf.o", self);
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': n_agents = atoi(optarg); break;
		case 't': n_threads = atoi(optarg); break;
		case 's': n_samples = atoi(optarg); break;
		case 'i': idle_seconds = atoi(optarg); break;
		case 'b': snprintf(bin, sizeof(bin), "%s", optarg); break;
		case 'm': per_machine = atoi(optarg); break;
		case 'o': objects_kept = false; break;
		default:
			fprintf(stderr, "usage: coordinator [--agents N] [--threads T] [--samples S] "
				"[--idle-seconds I] [--bpflabd PATH] [--per-machine K] "
				"[--objects-every-job]\n");
			return 2;
		}
	}
	if (n_agents < 1 || n_threads < 1 || n_threads > n_agents || n_samples < 1) {
		fprintf(stderr, "coordinator: bad --agents, --threads or --samples\n");
		return 2;
	}
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))	/* bpflabd inherits it: a socket per agent */
		fprintf(stderr, "coordinator: cannot raise the open file limit: %s\n",
			strerror(errno));
	snprintf(dir, sizeof(dir), "/tmp/bpflab-bench-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(agents_ep, sizeof(agents_ep), "ipc://%s/agents.sock", dir);
	snprintf(clients_ep, sizeof(clients_ep), "ipc://%s/clients.sock", dir);
	snprintf(db, sizeof(db), "%s/bench.db", dir);
	pid = start_bpflabd(bin);
	janitor = start_janitor(pid);
	usleep(300000);

	/* (a) agents and heartbeats */
	th = calloc(n_threads, sizeof(*th));
	t0 = now_s();
	for (i = 0; i < n_threads; i++)
		pthread_create(&th[i], NULL, agents_thread, (void *)(intptr_t)i);
	while (atomic_load(&registered) < n_agents && now_s() - t0 < 60)
		usleep(10000);
	t_reg = now_s() - t0;
	if (atomic_load(&registered) < n_agents) {
		fprintf(stderr, "coordinator: only %d of %d agents registered in 60 s\n",
			atomic_load(&registered), n_agents);
		goto out;
	}
	sleep(2);
	c0 = cpu_ticks(pid);
	t0 = now_s();
	sleep(idle_seconds);
	cpu_idle = 100.0 * (cpu_ticks(pid) - c0) / sysconf(_SC_CLK_TCK) / (now_s() - t0);
	cctx = zmq_ctx_new();
	client = zmq_socket(cctx, ZMQ_DEALER);
	zmq_connect(client, clients_ep);
	req = proto_msg_new("host_list");
	reply = request(client, req);
	json_decref(req);
	idle = 0;
	for (i = 0; reply && i < (int)json_array_size(json_object_get(reply, "hosts")); i++)
		idle += !strcmp(jget_str(json_array_get(json_object_get(reply, "hosts"), i),
					      "state", ""), "idle");
	json_decref(reply);

	/* (b) dispatch, results of one sample */
	run1 = run_once(client, obj, 1, &t_disp, &t_ing, &jobs1, pid, &cpu1, &cpu1_s);
	if (run1 < 0)
		goto out;
	/* (c) ingest, results of n_samples */
	samples0 = atomic_load(&samples_sent);
	run2 = run_once(client, obj, n_samples, &t_disp2, &t_ing, &jobs2, pid, &cpu2, &cpu2_s);
	if (run2 < 0)
		goto out;
	rate = (atomic_load(&samples_sent) - samples0) / t_ing;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id "
		 "WHERE j.run_id = %lld", run2);
	stored = db_count(db, sql);
	direct_tx = direct_insert((int)jobs2, n_samples, true);
	direct_bulk = direct_insert((int)jobs2, n_samples, false);

	printf("bpflabd (%s), %d simulated agents in %d threads over ipc, heartbeat %d ms",
	       bin, n_agents, n_threads, HEARTBEAT_MS);
	if (per_machine)
		printf(", %d agents a machine", per_machine);
	printf("\n");
	printf("(a) agents held: %d registered in %.2f s; %lld of %d idle after %d s of "
	       "heartbeats; bpflabd CPU %.1f %% of one CPU\n", n_agents, t_reg, idle, n_agents,
	       idle_seconds, cpu_idle);
	printf("(b) run of %ld jobs (%d per host): submit to last job dispatched %.2f s "
	       "(%.0f jobs/s); bpflabd CPU %.0f %%, %.2f s: %.0f us a job\n", jobs1, JOBS_PER_HOST,
	       t_disp, jobs1 / t_disp, cpu1, cpu1_s, cpu1_s / jobs1 * 1e6);
	printf("(c) run of %ld jobs x %d samples: %ld samples sent, %lld stored; stored at "
	       "%.0f samples/s (first result to last ack %.2f s); bpflabd CPU %.0f %%\n",
	       jobs2, n_samples, jobs2 * n_samples, stored, rate, t_ing, cpu2);
	/* CPU time, unlike the rates, hardly depends on what else the machine runs */
	printf("    bpflabd CPU time: %.2f s, %.2f us a sample (dispatch of the jobs included)\n",
	       cpu2_s, cpu2_s / (jobs2 * n_samples) * 1e6);
	printf("    straight into SQLite, same rows and schema: %.0f rows/s one transaction "
	       "per result, %.0f rows/s in one transaction\n", direct_tx, direct_bulk);
	printf("    ratio stored via bpflabd / straight: %.3f (per result), %.3f (one "
	       "transaction)\n", rate / direct_tx, rate / direct_bulk);
	rc = 0;
out:
	atomic_store(&stop, 1);
	for (i = 0; i < n_threads; i++)
		if (th[i])
			pthread_join(th[i], NULL);
	free(th);
	if (client)
		zmq_close(client);
	if (cctx)
		zmq_ctx_term(cctx);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	snprintf(sql, sizeof(sql), "rm -rf '%s'", dir);
	if (system(sql))
		fprintf(stderr, "coordinator: cannot remove '%s'\n", dir);
	if (janitor >= 0 && write(janitor, "x", 1) != 1)
		fprintf(stderr, "coordinator: cannot tell the janitor: %s\n", strerror(errno));
	return rc;
}
