// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_keys.c - libFuzzer target for CURVE certificate files and the allow list
 * (lib/proto/keys.c, docs/security.md).
 *
 * The input is split at lines "--8<--" into up to 8 certificate file texts. Each is
 * parsed with keys_parse_cert() (public only and with the secret), and all of them are
 * written into a scratch directory and loaded with keys_allow_load(). Checked beyond
 * "no crash":
 *  - a parsed pair has a 40-character public key that Z85-decodes; a secret key, when
 *    there is one, derives that public key; want_secret succeeds only with a secret;
 *    its role is one of enum keys_role, named by keys_role_name and parsed back;
 *  - a failure zeroes the pair and names the file in its message;
 *  - round trip: "role = ROLE" / "public-key = KEY" / "secret-key = KEY" lines written
 *    from a parsed pair parse back to the same pair;
 *  - the allow list: refused (EINVAL, naming a file and --set-role or the role) when a
 *    file that parses has no role or the coordinator's, else it holds exactly the files
 *    that parse, each found by its key with its file name and that file's role (for a
 *    key in two files: one of them).
 * The first line is also given to keys_endpoint_is_local() (a command-line endpoint).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "proto/keys.h"
#include "base/log.h"

#define MAX_FILES 8
#define SEP "--8<--\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char dir[64];

static void cleanup(void)
{
	if (dir[0])
		rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(dir, sizeof(dir), "/tmp/fuzz_keys.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	if (log_set_file("/dev/null"))	/* the allow list warns for every file it skips */
		abort();
	return 0;
}

static bool zeroed(const struct keys_pair *kp)
{
	static const struct keys_pair zero;

	return !memcmp(kp, &zero, sizeof(zero));
}

/* The invariants of one parse of TEXT; returns whether it parsed. */
static bool check_one(const char *text, size_t len, bool want_secret, struct keys_pair *kp)
{
	struct err why;
	char derived[KEYS_Z85_LEN + 1], again_text[160];
	struct keys_pair again;
	uint8_t bin[32];
	int err = keys_parse_cert(text, len, "fuzz.key", want_secret, kp, &why);

	if (err) {
		if (!zeroed(kp) || !strstr(why.msg, "'fuzz.key'"))
			abort();
		return false;
	}
	if (strlen(kp->public_z85) != KEYS_Z85_LEN || !zmq_z85_decode(bin, kp->public_z85))
		abort();
	if (want_secret && !kp->secret_z85[0])
		abort();
	if (kp->secret_z85[0] && (zmq_curve_public(derived, kp->secret_z85) ||
				  strcmp(derived, kp->public_z85)))
		abort();
	if ((unsigned)kp->role > KEYS_ROLE_COORDINATOR ||
	    (kp->role && keys_role_parse(keys_role_name(kp->role)) != (int)kp->role))
		abort();
	snprintf(again_text, sizeof(again_text), "%s%s%spublic-key = \"%s\"\n%s%s%s",
		 kp->role ? "role = \"" : "", kp->role ? keys_role_name(kp->role) : "",
		 kp->role ? "\"\n" : "", kp->public_z85, kp->secret_z85[0] ? "secret-key = \"" : "", kp->secret_z85,
		 kp->secret_z85[0] ? "\"\n" : "");
	if (keys_parse_cert(again_text, strlen(again_text), "again.key", want_secret, &again, &why) || memcmp(&again, kp, sizeof(again)))
		abort();
	return true;
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(text, 1, len, f) != len || fclose(f))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *start[MAX_FILES];
	size_t len[MAX_FILES], n = 0, i, n_ok = 0, n_unroled = 0;
	struct keys_pair kp[MAX_FILES];
	bool ok[MAX_FILES];
	struct keys_allow *allow;
	struct err why;
	char *text = malloc(size + 1), path[128], *nl;
	const char *p;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	nl = memchr(text, '\n', size);
	if (nl) {
		*nl = '\0';
		(void)keys_endpoint_is_local(text);
		*nl = '\n';
	}
	for (p = text; n < MAX_FILES; n++) {
		const char *sep = memmem(p, size - (size_t)(p - text), SEP, strlen(SEP));

		start[n] = p;
		len[n] = sep ? (size_t)(sep - p) : size - (size_t)(p - text);
		if (!sep || n == MAX_FILES - 1) {
			len[n] = size - (size_t)(p - text);
			n++;
			break;
		}
		p = sep + strlen(SEP);
	}
	for (i = 0; i < n; i++) {
		size_t one_len = len[i];
		char *one = malloc(one_len + 1);	/* the bytes as read, NULs and all */

		if (!one)
			abort();
		memcpy(one, start[i], one_len);
		one[one_len] = '\0';
		(void)check_one(one, one_len, true, &kp[i]);
		ok[i] = check_one(one, one_len, false, &kp[i]);
		n_ok += ok[i];
		n_unroled += ok[i] && kp[i].role != KEYS_ROLE_AGENT && kp[i].role != KEYS_ROLE_CLIENT;
		snprintf(path, sizeof(path), "%s/cert%zu.key", dir, i);
		write_file(path, one, one_len);
		free(one);
	}
	errno = 0;
	allow = keys_allow_load(dir, &why);
	if (n_unroled) {
		/* a key with no role, or the coordinator's: the whole list refused */
		if (allow || errno != EINVAL || !strstr(why.msg, "key 'cert") ||
		    (!strstr(why.msg, "--set-role") && !strstr(why.msg, "the role 'coordinator'")))
			abort();
		goto out;
	}
	if (!allow)
		abort();
	if (keys_allow_count(allow) != n_ok)
		abort();
	for (i = 0; i < n; i++) {
		uint8_t bin[32];
		const char *name;

		if (!ok[i])
			continue;
		zmq_z85_decode(bin, kp[i].public_z85);
		name = keys_allow_name(allow, bin);
		if (!keys_allow_has(allow, bin) || !name || strncmp(name, "cert", 4))
			abort();
		/* another file may hold the same key; then the name is one of those, and the
		 * role is that file's */
		{
			size_t j;

			for (j = 0; j < n; j++) {
				snprintf(path, sizeof(path), "cert%zu.key", j);
				if (ok[j] && !strcmp(name, path) &&
				    !strcmp(kp[j].public_z85, kp[i].public_z85))
					break;
			}
			if (j == n || keys_allow_role(allow, bin) != kp[j].role)
				abort();
		}
	}
	keys_allow_destroy(&allow);
out:
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/cert%zu.key", dir, i);
		unlink(path);
	}
	free(text);
	return 0;
}
