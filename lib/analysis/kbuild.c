// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* kbuild.c - see kbuild.h. A kernel build's identity (SHA-256 of release, version and
 * config hash) and its label among the builds of one set of value rows. Called by
 * lib/store/store_query.c for every value query; single-threaded per call.
 */
#include "analysis/kbuild.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jget.h"

void kbuild_id(const char *release, const char *version, const char *config_sha256,
	       char out[SHA256_HEX_LEN])
{
	char *text = NULL;
	int n = asprintf(&text, "%s\n%s\n%s", release ? release : "", version ? version : "",
			 config_sha256 ? config_sha256 : "");

	if (n < 0) {	/* no memory: hash the parts one after another instead */
		char buf[3 * 256];

		n = snprintf(buf, sizeof(buf), "%.255s\n%.255s\n%.255s", release ? release : "",
			     version ? version : "", config_sha256 ? config_sha256 : "");
		util_sha256_hex(buf, (size_t)n, out);
		return;
	}
	util_sha256_hex(text, (size_t)n, out);
	free(text);
}

void kbuild_id_of_row(const json_t *row, char out[SHA256_HEX_LEN])
{
	kbuild_id(json_string_value(json_object_get(row, "kernel_release")),
		  json_string_value(json_object_get(row, "kernel_version")),
		  json_string_value(json_object_get(row, "config_sha256")), out);
}

void kbuild_label_hashed(const char *release, const char *id, char *out, size_t len)
{
	release = release ? release : "";
	snprintf(out, len, "%s%s#%.*s", release, *release ? " " : "", KBUILD_SHORT, id);
}

bool kbuild_commit_of_release(const char *release, char out[KBUILD_COMMIT_LEN])
{
	static const char tag[] = "-bpflab-";
	const char *p = release ? strstr(release, tag) : NULL, *hex;
	size_t i;

	out[0] = '\0';
	for (; p; p = strstr(p + 1, tag)) {
		hex = p + sizeof(tag) - 1;
		for (i = 0; i < 12 && ((hex[i] >= '0' && hex[i] <= '9') ||
				       (hex[i] >= 'a' && hex[i] <= 'f')); i++)
			;
		if (i == 12 && (!hex[12] || !strcmp(hex + 12, "-dirty"))) {
			snprintf(out, KBUILD_COMMIT_LEN, "%s", hex);
			return true;
		}
	}
	return false;
}

bool kbuild_matches(const char *name, const char *release, const char *id)
{
	size_t rl, hl, i;

	release = release ? release : "";
	if (*release && !strcmp(name, release))
		return true;
	rl = strlen(release);
	if (strncmp(name, release, rl))
		return false;
	name += rl;
	if (rl && *name++ != ' ')
		return false;
	if (*name++ != '#')
		return false;
	hl = strlen(name);
	if (hl < 4 || hl > SHA256_HEX_LEN - 1)
		return false;
	for (i = 0; i < hl; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return false;
	return !strncmp(name, id, hl);
}

/* The least number of hex digits, from KBUILD_SHORT, that tells the ids (the keys of
 * IDS) apart. */
static int short_len(const json_t *ids)
{
	const char *a, *b;
	json_t *x, *y;
	int len = KBUILD_SHORT;

	json_object_foreach((json_t *)ids, a, x)
		json_object_foreach((json_t *)ids, b, y)
			while (a != b && len < SHA256_HEX_LEN - 1 && !strncmp(a, b, (size_t)len))
				len++;
	return len;
}

int kbuild_label_rows(json_t *rows)
{
	json_t *rel = json_object(), *row, *ids;
	char id[SHA256_HEX_LEN], last[3][256] = { "", "", "" }, label[512];
	const char *k;
	bool have_last = false;
	size_t i;
	int err = -ENOMEM;

	if (!rel)
		return -ENOMEM;
	/* the identity of each row (consecutive rows mostly share their build) */
	json_array_foreach(rows, i, row) {
		const char *r = jget_str(row, "kernel_release", ""), *v = jget_str(row, "kernel_version", "");
		const char *c = jget_str(row, "config_sha256", "");

		if (!*r && !*v && !*c) {
			json_object_del(row, "kernel_build_id");
			continue;
		}
		if (!have_last || strcmp(last[0], r) || strcmp(last[1], v) || strcmp(last[2], c) ||
		    strlen(r) >= sizeof(last[0]) || strlen(v) >= sizeof(last[1]) ||
		    strlen(c) >= sizeof(last[2])) {
			kbuild_id(r, v, c, id);
			snprintf(last[0], sizeof(last[0]), "%s", r);
			snprintf(last[1], sizeof(last[1]), "%s", v);
			snprintf(last[2], sizeof(last[2]), "%s", c);
			have_last = true;
		}
		ids = json_object_get(rel, r);
		if (!ids && json_object_set_new(rel, r, ids = json_object()))
			goto out;
		if (!ids || json_object_set_new(ids, id, json_true()) ||
		    json_object_set_new(row, "kernel_build_id", json_string(id)))
			goto out;
	}
	/* a release's builds: how many digits tell them apart (0: one build) */
	json_object_foreach(rel, k, ids)
		if (json_object_set_new(ids, "", json_integer(json_object_size(ids) > 1 ?
							      short_len(ids) : 0)))
			goto out;
	json_array_foreach(rows, i, row) {
		const char *b = jget_str(row, "kernel_build_id", ""), *r = jget_str(row, "kernel_release", "");
		int len = (int)json_integer_value(json_object_get(json_object_get(rel, r), ""));

		if (!*b)
			label[0] = '\0';
		else if (!len)
			snprintf(label, sizeof(label), "%s", r);
		else
			snprintf(label, sizeof(label), "%s%s#%.*s", r, *r ? " " : "", len, b);
		if (json_object_set_new(row, "kernel_build", json_string(label)))
			goto out;
	}
	err = 0;
out:
	json_decref(rel);
	return err;
}
