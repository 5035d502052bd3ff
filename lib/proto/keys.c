// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* keys.c - see keys.h. Certificate files are written with O_EXCL (or replaced atomically
 * with --force) so that a key is never overwritten by accident; the secret one is created
 * 0600 from the start, never chmod'ed afterwards. */
#include "proto/keys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "base/log.h"
#include "base/util.h"

#define KEYS_FILE_MAX 65536

struct keys_allow_entry {
	uint8_t key[32];
	char *name;
	char *host;			/* NAME without ".key", or NULL: keys_allow_host */
	enum keys_role role;
};

static const char *const role_names[] = {
	[KEYS_ROLE_NONE] = "none",
	[KEYS_ROLE_AGENT] = "agent",
	[KEYS_ROLE_CLIENT] = "client",
	[KEYS_ROLE_COORDINATOR] = "coordinator",
};

struct keys_allow {
	struct keys_allow_entry *v;
	size_t n, cap;
};

const char *keys_role_name(enum keys_role role)
{
	return (unsigned)role < ARRAY_SIZE(role_names) ? role_names[role] : "none";
}

int keys_role_parse(const char *name)
{
	size_t i;

	for (i = KEYS_ROLE_AGENT; i < ARRAY_SIZE(role_names); i++)
		if (!strcmp(name, role_names[i]))
			return (int)i;
	return -EINVAL;
}

bool keys_have_curve(void)
{
	return zmq_has("curve");
}

int keys_generate(struct keys_pair *kp)
{
	memset(kp, 0, sizeof(*kp));
	if (!keys_have_curve())
		return -ENOTSUP;
	if (zmq_curve_keypair(kp->public_z85, kp->secret_z85))
		return -zmq_errno();
	return 0;
}

static bool z85_key_ok(const char *z85)
{
	uint8_t bin[32];

	return strlen(z85) == KEYS_Z85_LEN && zmq_z85_decode(bin, z85) != NULL;
}

static int cert_text(const struct keys_pair *kp, bool secret, char *out, size_t len)
{
	char when[32];

	util_format_time(util_wall_ms(), when, sizeof(when));
	return snprintf(out, len,
		"#   ****  Generated on %s by bpflab keygen  ****\n"
		"#   ZeroMQ CURVE %s Certificate\n"
		"%s"
		"\n"
		"metadata\n"
		"%s%s%s"
		"curve\n"
		"    public-key = \"%s\"\n"
		"%s%s%s",
		when, secret ? "**Secret**" : "Public",
		secret ? "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.\n"
		       : "#   Copy it into the coordinator's --authorized folder to allow this key.\n",
		kp->role ? "    role = \"" : "", kp->role ? keys_role_name(kp->role) : "",
		kp->role ? "\"\n" : "", kp->public_z85, secret ? "    secret-key = \"" : "", secret ? kp->secret_z85 : "",
		secret ? "\"\n" : "");
}

/* Write TEXT to PATH with MODE: O_EXCL unless FORCE, in which case a temporary file
 * replaces PATH atomically. */
static int write_cert(const char *path, const char *text, mode_t mode, bool force)
{
	char tmp[PATH_MAX];
	size_t len = strlen(text), off = 0;
	const char *target = path;
	int fd, err = 0;

	if (force) {
		if (snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >=
		    (int)sizeof(tmp))
			return -ENAMETOOLONG;
		target = tmp;
		unlink(tmp);
	}
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		off += (size_t)n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && force && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(target);
	return err;
}

int keys_save(const char *dir, const char *name, const struct keys_pair *kp, bool force,
	      struct err *why)
{
	char pub[PATH_MAX], sec[PATH_MAX], text[1024];
	struct stat st;
	int err;

	if (!*name || strchr(name, '/') || name[0] == '.') {
		err_set(why, "invalid key name '%s': expected a plain file name", name);
		return -EINVAL;
	}
	if (!z85_key_ok(kp->public_z85) || !z85_key_ok(kp->secret_z85)) {
		err_set(why, "invalid key pair");
		return -EINVAL;
	}
	if (snprintf(pub, sizeof(pub), "%s/%s.key", dir, name) >= (int)sizeof(pub) ||
	    snprintf(sec, sizeof(sec), "%s/%s.key_secret", dir, name) >= (int)sizeof(sec)) {
		err_set(why, "key path in '%s' is too long", dir);
		return -ENAMETOOLONG;
	}
	if (!force) {
		/* refuse before writing either file, so that a pair stays a pair */
		const char *exists = !lstat(pub, &st) ? pub : !lstat(sec, &st) ? sec : NULL;

		if (exists) {
			err_set(why, "key '%s' exists; give --force to replace it",
				 exists);
			return -EEXIST;
		}
	}
	cert_text(kp, true, text, sizeof(text));
	err = write_cert(sec, text, 0600, force);
	if (err) {
		err_set(why, "cannot write '%s': %s", sec, strerror(-err));
		return err;
	}
	cert_text(kp, false, text, sizeof(text));
	err = write_cert(pub, text, 0644, force);
	if (err) {
		err_set(why, "cannot write '%s': %s", pub, strerror(-err));
		unlink(sec);
		return err;
	}
	return 0;
}

/* Find the first line of TEXT that is `NAME = VALUE` (blanks before NAME and around '=')
 * and point *VAL at the value (an opening '"' skipped, *QUOTED set). Returns 1 found,
 * 0 absent, -1 a NAME line without '='. */
static int find_line(const char *text, const char *name, const char **val, bool *quoted)
{
	size_t nlen = strlen(name);
	const char *line = text;

	while (line && *line) {
		const char *p = line, *end = strchr(line, '\n');

		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, name, nlen) && (p[nlen] == ' ' || p[nlen] == '=')) {
			p += nlen;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p++ != '=')
				return -1;
			while (*p == ' ' || *p == '\t')
				p++;
			*quoted = *p == '"';
			*val = p + *quoted;
			return 1;
		}
		line = end ? end + 1 : NULL;
	}
	return 0;
}

/* Find `NAME = "VALUE"` (quotes optional) on a line of TEXT and copy a 40-character key.
 * Returns 1 found and valid, 0 absent, -1 present but not a key. */
static int find_key(const char *text, const char *name, char out[KEYS_Z85_LEN + 1])
{
	const char *p;
	bool quoted;
	size_t len;
	int rc = find_line(text, name, &p, &quoted);

	if (rc != 1)
		return rc;
	len = strspn(p, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		     ".-:+=^!/*?&<>()[]{}@%$#");
	if (len != KEYS_Z85_LEN)
		return -1;
	memcpy(out, p, KEYS_Z85_LEN);
	out[KEYS_Z85_LEN] = '\0';
	return z85_key_ok(out) ? 1 : -1;
}

/* The `role` line of TEXT: 1 with *ROLE, 0 absent, -1 present but not a known role (its
 * first characters, printable, in BAD for the message). */
static int find_role(const char *text, enum keys_role *role, char bad[24])
{
	const char *p, *end;
	char word[16];
	bool quoted;
	size_t len, i;
	int rc = find_line(text, "role", &p, &quoted), r;

	*role = KEYS_ROLE_NONE;
	if (rc != 1) {
		snprintf(bad, 24, "%s", "");
		return rc;
	}
	len = strspn(p, "abcdefghijklmnopqrstuvwxyz");
	end = p + len;
	if (quoted && *end++ != '"')
		len = 0;
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	if (len && len < sizeof(word) && (!*end || *end == '\n')) {
		memcpy(word, p, len);
		word[len] = '\0';
		r = keys_role_parse(word);
		if (r > 0) {
			*role = (enum keys_role)r;
			return 1;
		}
	}
	for (i = 0; i < 20 && p[i] && p[i] != '\n'; i++)
		bad[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
	bad[i] = '\0';
	return -1;
}

int keys_parse_cert(const char *text, size_t len, const char *path, bool want_secret,
		    struct keys_pair *kp, struct err *why)
{
	char bad[24];
	int err = 0, rc;

	memset(kp, 0, sizeof(*kp));
	if (!text || strnlen(text, len) != len) {
		err_set(why, "key '%s' is not a certificate file", path);
		return -EINVAL;
	}
	rc = find_key(text, "public-key", kp->public_z85);
	if (rc != 1) {
		err_set(why, "key '%s' has %s public-key", path,
			 rc ? "an invalid" : "no");
		err = -EINVAL;
		goto out;
	}
	rc = find_role(text, &kp->role, bad);
	if (rc < 0) {
		err_set(why, "key '%s' has an invalid role '%s': expected agent, client "
			 "or coordinator", path, bad);
		err = -EINVAL;
		goto out;
	}
	rc = find_key(text, "secret-key", kp->secret_z85);
	if (rc < 0 || (want_secret && rc != 1)) {
		err_set(why, "key '%s' has %s secret-key%s", path,
			 rc ? "an invalid" : "no",
			 rc ? "" : " (give the NAME.key_secret file)");
		err = -EINVAL;
		goto out;
	}
	if (rc == 1) {
		/* the pair must belong together */
		char derived[KEYS_Z85_LEN + 1];

		if (zmq_curve_public(derived, kp->secret_z85) ||
		    strcmp(derived, kp->public_z85)) {
			err_set(why, "key '%s': public-key does not belong to secret-key",
				 path);
			err = -EINVAL;
		}
	}
out:
	if (err)
		memset(kp, 0, sizeof(*kp));
	return err;
}

int keys_load(const char *path, bool want_secret, struct keys_pair *kp, struct err *why)
{
	char *text = NULL;
	size_t len;
	int err;

	memset(kp, 0, sizeof(*kp));
	err = util_read_file(path, KEYS_FILE_MAX, &text, &len);
	if (err) {
		err_set(why, "cannot read key '%s': %s", path, util_strerror(err));
		return err;
	}
	err = keys_parse_cert(text, len, path, want_secret, kp, why);
	memset(text, 0, len);
	free(text);
	return err;
}

int keys_set_role(const char *path, enum keys_role role, bool force, struct err *why)
{
	struct keys_pair kp;
	char text[1024];
	struct stat st;
	int err;

	if (role == KEYS_ROLE_NONE) {
		err_set(why, "key '%s': no role to give", path);
		return -EINVAL;
	}
	err = keys_load(path, false, &kp, why);
	if (err)
		return err;
	if (kp.role == role)
		goto out;
	if (kp.role != KEYS_ROLE_NONE && !force) {
		err_set(why, "key '%s' has the role '%s'; give --force to change it",
			 path, keys_role_name(kp.role));
		err = -EEXIST;
		goto out;
	}
	if (stat(path, &st)) {
		err = -errno;
		err_set(why, "cannot read key '%s': %s", path, strerror(-err));
		goto out;
	}
	kp.role = role;
	cert_text(&kp, *kp.secret_z85 != '\0', text, sizeof(text));
	err = write_cert(path, text, st.st_mode & 0777, true);
	memset(text, 0, sizeof(text));
	if (err)
		err_set(why, "cannot write '%s': %s", path, strerror(-err));
	else
		err = 1;
out:
	memset(&kp, 0, sizeof(kp));
	return err;
}

int keys_parse_public(const char *arg, char out[KEYS_Z85_LEN + 1], struct err *why)
{
	struct keys_pair kp;
	int err;

	if (strlen(arg) == KEYS_Z85_LEN && z85_key_ok(arg) && access(arg, F_OK)) {
		memcpy(out, arg, KEYS_Z85_LEN + 1);
		return 0;
	}
	err = keys_load(arg, false, &kp, why);
	if (err)
		return err;
	memcpy(out, kp.public_z85, KEYS_Z85_LEN + 1);
	memset(&kp, 0, sizeof(kp));
	return 0;
}

bool keys_endpoint_is_local(const char *ep)
{
	const char *host;

	if (!strncmp(ep, "ipc://", 6) || !strncmp(ep, "inproc://", 9))
		return true;
	if (strncmp(ep, "tcp://", 6))
		return false;
	host = ep + 6;
	/* tcp://SOURCE;HOST:PORT names a source address: judge the destination */
	if (strchr(host, ';'))
		host = strchr(host, ';') + 1;
	if (!strncmp(host, "127.", 4)) {
		size_t n = strspn(host + 4, "0123456789.");

		return n > 0 && host[4 + n] == ':';
	}
	return !strncmp(host, "localhost:", 10) || !strncmp(host, "[::1]:", 6);
}

/* --- allow list --- */

/* The host that the allow list's file NAME speaks for into *HOST (allocated): NAME
 * without ".key", or NULL when NAME does not end in ".key" or nothing is before it.
 * Returns 0, or -ENOMEM. */
static int host_of(const char *name, char **host)
{
	size_t len = strlen(name);

	*host = NULL;
	if (len <= 4 || strcmp(name + len - 4, ".key"))
		return 0;
	*host = strndup(name, len - 4);
	return *host ? 0 : -ENOMEM;
}

static int allow_cmp(const void *a, const void *b)
{
	return memcmp(((const struct keys_allow_entry *)a)->key,
		      ((const struct keys_allow_entry *)b)->key, 32);
}

struct keys_allow *keys_allow_load(const char *dir, struct err *why)
{
	struct keys_allow *allow = calloc(1, sizeof(*allow));
	char unroled[256] = "";		/* the first key without an allowed role */
	enum keys_role unroled_role = KEYS_ROLE_NONE;
	size_t n_unroled = 0;
	struct dirent *de;
	DIR *d = NULL;
	int saved = ENOMEM;

	if (!allow)
		goto fail_msg;
	d = opendir(dir);
	if (!d) {
		saved = errno;
		err_set(why, "cannot read allow list '%s': %s", dir, strerror(saved));
		goto fail;
	}
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		struct err e;
		struct keys_allow_entry *v;
		struct keys_pair kp;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (keys_load(path, false, &kp, &e)) {
			pr_warn("allow list: skipping %s", e.msg);
			continue;
		}
		if (kp.role != KEYS_ROLE_AGENT && kp.role != KEYS_ROLE_CLIENT) {
			if (!n_unroled++) {
				snprintf(unroled, sizeof(unroled), "%s", de->d_name);
				unroled_role = kp.role;
			}
			memset(&kp, 0, sizeof(kp));
			continue;
		}
		v = util_grow(allow->v, &allow->cap, allow->n + 1, sizeof(*v));
		if (!v)
			goto fail_msg;
		allow->v = v;
		zmq_z85_decode(allow->v[allow->n].key, kp.public_z85);
		allow->v[allow->n].role = kp.role;
		allow->v[allow->n].name = strdup(de->d_name);
		if (!allow->v[allow->n].name)
			goto fail_msg;
		if (host_of(de->d_name, &allow->v[allow->n].host)) {
			free(allow->v[allow->n].name);
			goto fail_msg;
		}
		if (kp.role == KEYS_ROLE_AGENT && !allow->v[allow->n].host)
			pr_warn("allow list '%s': agent key '%s' names no host (its file is not "
				"HOST.key), so it cannot register; rename it after its agent's name "
				"(docs/deploy.md, \"Keys\")", dir, de->d_name);
		allow->n++;
		memset(&kp, 0, sizeof(kp));
	}
	closedir(d);
	d = NULL;
	if (n_unroled) {
		saved = EINVAL;
		if (unroled_role == KEYS_ROLE_NONE)
			err_set(why, "allow list '%s': key '%s'%s has no role (made before "
				 "roles); give each key its role with 'bpflab keygen --set-role "
				 "agent|client FILE' (docs/security.md, \"Roles\")", dir, unroled,
				 n_unroled > 1 ? " and others" : "");
		else
			err_set(why, "allow list '%s': key '%s'%s has the role '%s': the "
				 "allow list takes agent and client keys only", dir, unroled,
				 n_unroled > 1 ? " and others" : "", keys_role_name(unroled_role));
		goto fail;
	}
	if (allow->n)
		qsort(allow->v, allow->n, sizeof(*allow->v), allow_cmp);
	return allow;
fail_msg:
	err_set(why, "cannot load allow list '%s': out of memory", dir);
fail:
	if (d)
		closedir(d);
	keys_allow_destroy(&allow);
	errno = saved;
	return NULL;
}

void keys_allow_destroy(struct keys_allow **ap)
{
	struct keys_allow *allow = ap ? *ap : NULL;
	size_t i;

	if (!allow)
		return;
	for (i = 0; i < allow->n; i++) {
		free(allow->v[i].name);
		free(allow->v[i].host);
	}
	free(allow->v);
	free(allow);
	*ap = NULL;
}

static const struct keys_allow_entry *allow_find(const struct keys_allow *allow,
						 const uint8_t key[32])
{
	struct keys_allow_entry probe;

	if (!allow || !allow->n)
		return NULL;
	memcpy(probe.key, key, 32);
	return bsearch(&probe, allow->v, allow->n, sizeof(*allow->v), allow_cmp);
}

bool keys_allow_has(const struct keys_allow *allow, const uint8_t key[32])
{
	return allow_find(allow, key) != NULL;
}

const char *keys_allow_name(const struct keys_allow *allow, const uint8_t key[32])
{
	const struct keys_allow_entry *e = allow_find(allow, key);

	return e ? e->name : NULL;
}

const char *keys_allow_host(const struct keys_allow *allow, const uint8_t key[32])
{
	const struct keys_allow_entry *e = allow_find(allow, key);

	return e ? e->host : NULL;
}

enum keys_role keys_allow_role(const struct keys_allow *allow, const uint8_t key[32])
{
	const struct keys_allow_entry *e = allow_find(allow, key);

	return e ? e->role : KEYS_ROLE_NONE;
}

size_t keys_allow_count(const struct keys_allow *allow)
{
	return allow ? allow->n : 0;
}

/* --- sockets --- */

int keys_set_server(void *sock, const struct keys_pair *kp, const char *domain)
{
	int one = 1;

	if (zmq_setsockopt(sock, ZMQ_CURVE_SERVER, &one, sizeof(one)) ||
	    zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, kp->secret_z85, KEYS_Z85_LEN) ||
	    zmq_setsockopt(sock, ZMQ_ZAP_DOMAIN, domain, strlen(domain)))
		return -zmq_errno();
	return 0;
}

int keys_set_client(void *sock, const struct keys_pair *kp, const char *server_z85)
{
	if (zmq_setsockopt(sock, ZMQ_CURVE_SERVERKEY, server_z85, KEYS_Z85_LEN) ||
	    zmq_setsockopt(sock, ZMQ_CURVE_PUBLICKEY, kp->public_z85, KEYS_Z85_LEN) ||
	    zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, kp->secret_z85, KEYS_Z85_LEN))
		return -zmq_errno();
	return 0;
}
