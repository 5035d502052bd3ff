// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* helpers.c - the shared unit-test helpers of helpers.h. Linked into every unit test;
 * failures go through cmocka (_fail, fail_msg) so that they name the caller's line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sqlite3.h>
#include <zmq.h>

#include "coord.h"
#include "plan/jobspec.h"
#include "plan/plan.h"
#include "proto/proto.h"
#include "base/util.h"
#include "helpers.h"

void assert_near_at(double a, double b, double eps, const char *file, int line)
{
	if (fabs(a - b) <= eps)
		return;
	print_error("%.17g != %.17g (within %g)\n", a, b, eps);
	_fail(file, line);
}

void assert_text_at(const char *got, const char *want, const char *file, int line)
{
	if (got && want && !strcmp(got, want))
		return;
	fprintf(stderr, "--- want\n%s--- got\n%s---\n", want ? want : "(null)\n",
		got ? got : "(null)\n");
	_fail(file, line);
}

void assert_contains_at(const char *hay, const char *needle, const char *file, int line)
{
	if (hay && needle && strstr(hay, needle))
		return;
	fprintf(stderr, "--- expected to find\n%s\n--- in\n%s---\n", needle ? needle : "(null)",
		hay ? hay : "(null)\n");
	_fail(file, line);
}

void assert_contains_unwrapped_at(const char *hay, const char *needle, const char *file,
				  int line)
{
	char *flat = strdup(hay ? hay : ""), *o = flat;
	const char *p;

	assert_non_null(flat);
	for (p = hay ? hay : ""; *p; p++) {
		if (*p != '\n') {
			*o++ = *p;
			continue;
		}
		*o++ = ' ';
		while (p[1] == ' ')
			p++;
	}
	*o = '\0';
	assert_contains_at(flat, needle, file, line);
	free(flat);
}

json_t *json_of(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);

	if (!j)
		fail_msg("bad test json at %d:%d: %s", jerr.line, jerr.column, jerr.text);
	return j;
}

void tmpdir_make(char *template)
{
	if (!mkdtemp(template))
		fail_msg("cannot make a temporary directory from '%s': %s", template,
			 strerror(errno));
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(path);
}

int tmpdir_remove(const char *dir)
{
	if (!dir || !*dir)
		return 0;
	return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

char *file_slurp(const char *path)
{
	char *buf = NULL;
	size_t len;
	int err = util_read_file(path, 1 << 24, &buf, &len);

	if (err)
		fail_msg("cannot read '%s': %s", path, strerror(-err));
	return buf;
}

void file_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fail_msg("cannot write '%s': %s", path, strerror(errno));
	fputs(text, f);
	if (fclose(f))
		fail_msg("cannot write '%s': %s", path, strerror(errno));
}

json_t *coord_pump(struct coord *c, void *sock, int timeout_ms)
{
	int64_t deadline = util_mono_ms() + timeout_ms;
	struct err why;
	json_t *msg;

	while (util_mono_ms() < deadline) {
		assert_int_equal(coord_run_once(c, 5), 0);
		while (proto_recv(sock, &msg, ZMQ_DONTWAIT, &why) == 0) {
			if (strcmp(proto_msg_type(msg), "heartbeat"))
				return msg;
			json_decref(msg);
		}
	}
	return NULL;
}

void skip_say(int host, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, host ? "  skip (host): " : "  skip: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

json_t *coord_ask(struct coord *c, void *sock, json_t *msg, const char *want)
{
	json_t *r;

	assert_non_null(msg);
	assert_int_equal(proto_send(sock, msg, 0), 0);
	json_decref(msg);
	r = coord_pump(c, sock, 5000);
	assert_non_null(r);
	if (strcmp(proto_msg_type(r), want))
		fail_msg("wanted '%s', got '%s': %s", want, proto_msg_type(r),
			 jget_str(r, "message", ""));
	return r;
}

void coord_fix_init(struct coord_fix *f, const char *name)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/bpflab-test-%s.XXXXXX", name);
	tmpdir_make(f->dir);
	snprintf(f->agents_ep, sizeof(f->agents_ep), "ipc://%s/agents.sock", f->dir);
	snprintf(f->clients_ep, sizeof(f->clients_ep), "ipc://%s/clients.sock", f->dir);
	snprintf(f->db, sizeof(f->db), "%s/lab.db", f->dir);
	f->ctx = zmq_ctx_new();
	assert_non_null(f->ctx);
}

void coord_fix_start(struct coord_fix *f, const struct coord_opts *opts)
{
	struct coord_opts o = *opts;

	o.agents = f->agents_ep;
	o.clients = f->clients_ep;
	o.db = f->db;
	f->c = coord_new(&o);
	if (!f->c)
		fail_msg("cannot start the coordinator on '%s': %s", f->db, strerror(errno));
}

void *coord_fix_dealer(struct coord_fix *f, const char *ep)
{
	void *s = zmq_socket(f->ctx, ZMQ_DEALER);
	int zero = 0;

	assert_non_null(s);
	assert_int_equal(zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero)), 0);
	assert_int_equal(zmq_connect(s, ep), 0);
	return s;
}

void *coord_fix_agent(struct coord_fix *f)
{
	return coord_fix_dealer(f, f->agents_ep);
}

void *coord_fix_client(struct coord_fix *f)
{
	return coord_fix_dealer(f, f->clients_ep);
}

_Static_assert(sizeof(((struct coord_fix *)0)->obj_sha) == SHA256_HEX_LEN,
	       "coord_fix.obj_sha holds a sha256 in hex");

void coord_fix_object(struct coord_fix *f, const char *path)
{
	int err;

	free(f->obj);
	f->obj = NULL;
	err = util_read_file(path, 64 << 20, &f->obj, &f->obj_len);
	if (err)
		fail_msg("cannot read '%s': %s", path, strerror(-err));
	util_sha256_hex(f->obj, f->obj_len, f->obj_sha);
}

void coord_fix_release(struct coord_fix *f)
{
	coord_destroy(&f->c);
	if (f->ctx)
		zmq_ctx_term(f->ctx);
	f->ctx = NULL;
	free(f->obj);
	f->obj = NULL;
	tmpdir_remove(f->dir);
	f->dir[0] = '\0';
}

void prog_run(struct prog_out *o, const char *const *argv, const char *dir)
{
	char out_path[256], err_path[256];
	pid_t pid;
	int st;

	snprintf(out_path, sizeof(out_path), "%s/stdout", dir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	o->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	o->out = file_slurp(out_path);
	o->err = file_slurp(err_path);
}

void prog_run_args(struct prog_out *o, const char *prog, const char *const *args,
		   const char *dir)
{
	const char *argv[64] = { prog };
	int i;

	for (i = 0; args[i]; i++) {
		assert_true(i < 62);
		argv[i + 1] = args[i];
	}
	argv[i + 1] = NULL;
	prog_run(o, argv, dir);
}

void db_file_exec(const char *db, const char *stmt)
{
	sqlite3 *h = NULL;
	char *err = NULL;

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	if (sqlite3_exec(h, stmt, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", stmt, err ? err : "?");
	sqlite3_close(h);
}

int file_count(const char *path, const char *needle)
{
	char *text = NULL, *p;
	size_t len;
	int n = 0;

	if (util_read_file(path, 1 << 20, &text, &len))
		return 0;
	for (p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	free(text);
	return n;
}

long long db_file_count(const char *db, const char *sql)
{
	sqlite3 *d = NULL;
	sqlite3_stmt *s = NULL;
	long long n = -1;

	assert_int_equal(sqlite3_open_v2(db, &d, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(d, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(d);
	return n;
}

void prog_out_free(struct prog_out *o)
{
	free(o->out);
	free(o->err);
}

char *prog_stdout(const char *const *argv, const char *dir)
{
	struct prog_out o;
	char *out;

	prog_run(&o, argv, dir);
	if (o.status)
		fail_msg("%s failed (%d): %s", argv[0], o.status, o.err);
	out = o.out;
	o.out = NULL;
	prog_out_free(&o);
	return out;
}

void http_free(struct http *h)
{
	free(h->head);
	free(h->body);
}

/* Decode in place the chunked body BODY (RFC 9112 7.1: hex size, CRLF, data, CRLF...,
 * 0); the test fails on a malformed one. */
static void http_dechunk(char *body)
{
	char *in = body, *out = body, *end;
	unsigned long n;

	for (;;) {
		n = strtoul(in, &end, 16);
		assert_true(end != in && !strncmp(end, "\r\n", 2));
		if (!n)
			break;
		in = end + 2;
		assert_true(strlen(in) >= n + 2 && !strncmp(in + n, "\r\n", 2));
		memmove(out, in, n);
		out += n;
		in += n + 2;
	}
	*out = '\0';
}

void http_req(unsigned port, const char *method, const char *path, const char *extra,
	      struct http *h)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	char req[1024], *all = NULL, *sep;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	/* the Host a browser sends (address and port), unless EXTRA brings its own */
	if (extra && (!strncmp(extra, "Host:", 5) || strstr(extra, "\r\nHost:")))
		snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nConnection: close\r\n%s\r\n\r\n",
			 method, path, extra);
	else
		snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
			 "Connection: close\r\n%s%s\r\n", method, path, port,
			 extra ? extra : "", extra ? "\r\n" : "");
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 16384;
			all = realloc(all, cap);
			assert_non_null(all);
		}
		n = read(fd, all + len, cap - len - 1);
		assert_true(n >= 0);
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	all[len] = '\0';
	sep = strstr(all, "\r\n\r\n");
	assert_non_null(sep);
	*sep = '\0';
	h->head = all;
	h->body = strdup(sep + 4);
	assert_non_null(h->body);
	assert_int_equal(sscanf(all, "HTTP/1.1 %d", &h->status), 1);
	if (strcasestr(all, "\r\nTransfer-Encoding: chunked"))
		http_dechunk(h->body);
}

void expect_plan_refusals(const char *file, const struct refusal *cases, size_t n)
{
	struct err err;
	struct plan *p;
	size_t i;

	for (i = 0; i < n; i++) {
		p = plan_parse(file, cases[i].input, strlen(cases[i].input), NULL, 0, &err);
		if (p) {
			plan_destroy(&p);
			fail_msg("case %zu accepted", i);
		}
		assert_contains(err.msg, cases[i].expect);
	}
}

void expect_spec_refusals(const struct refusal *cases, size_t n)
{
	struct job_spec s;
	struct err why;
	json_t *j;
	size_t i;

	for (i = 0; i < n; i++) {
		j = json_of(cases[i].input);
		if (jobspec_decode(j, "spec", &s, &why) != -EINVAL)
			fail_msg("case %zu decodes", i);
		assert_contains(why.msg, cases[i].expect);
		json_decref(j);
	}
}

uint32_t csum16_add(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

int udp6_checksum_ok(const uint8_t *frame)
{
	const uint8_t *ip = frame + 14, *udp = ip + 40;
	uint16_t len = udp[4] << 8 | udp[5];
	uint32_t sum = csum16_add(udp, len, csum16_add(ip + 8, 32, 0) + len + 17);

	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}
