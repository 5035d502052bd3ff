// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* spool.c - see spool.h. Files are named job-ID.json; anything else in the directory
 * (including the .tmp files of an interrupted atomic write) is ignored. */
#include "spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "proto/proto.h"
#include "base/util.h"

struct spool {
	char *dir;			/* NULL: memory only */
	json_t *mem;			/* id -> message, memory mode */
};

struct spool *spool_new(const char *dir)
{
	struct spool *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	if (!dir) {
		s->mem = json_object();
		if (!s->mem) {
			free(s);
			errno = ENOMEM;
			return NULL;
		}
		return s;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		err = errno;
		pr_warn("cannot create spool directory '%s': %s", dir, strerror(err));
		free(s);
		errno = err;
		return NULL;
	}
	s->dir = strdup(dir);
	if (!s->dir) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void spool_destroy(struct spool **sp)
{
	struct spool *s = *sp;

	if (!s)
		return;
	free(s->dir);
	json_decref(s->mem);
	free(s);
	*sp = NULL;
}

static int spool_path(const struct spool *s, const char *id, char *path, size_t len)
{
	if (snprintf(path, len, "%s/job-%s.json", s->dir, id) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* fsync DIR, so that a rename into it survives a crash of the machine. */
static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

int spool_put(struct spool *s, const char *id, const char *text, size_t len)
{
	char path[PATH_MAX];
	int err;

	if (!s->dir)
		return json_object_set_new(s->mem, id, json_stringn_nocheck(text, len)) ?
		       -ENOMEM : 0;
	err = spool_path(s, id, path, sizeof(path));
	if (err)
		return err;
	err = util_write_file_atomic(path, text, len);
	if (!err)
		err = sync_dir(s->dir);
	return err;
}

int spool_drop(struct spool *s, const char *id)
{
	char path[PATH_MAX];
	int err;

	if (!s->dir) {
		json_object_del(s->mem, id);
		return 0;
	}
	err = spool_path(s, id, path, sizeof(path));
	if (err)
		return err;
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The ids of the spooled files, sorted. */
static int list_ids(const struct spool *s, char ***idsp, int *np)
{
	DIR *d = opendir(s->dir);
	char **ids = NULL;
	struct dirent *e;
	int n = 0, err = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char **nids;

		if (len <= 9 || strncmp(e->d_name, "job-", 4) ||
		    strcmp(e->d_name + len - 5, ".json"))
			continue;
		nids = realloc(ids, (n + 1) * sizeof(*ids));
		if (!nids) {
			err = -ENOMEM;
			break;
		}
		ids = nids;
		ids[n] = strndup(e->d_name + 4, len - 9);
		if (!ids[n]) {
			err = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(ids, n, sizeof(*ids), cmp_str);
	*idsp = ids;
	*np = n;
	return err;
}

int spool_foreach(struct spool *s,
		  int (*fn)(void *ctx, const char *id, const char *text, size_t len), void *ctx)
{
	char **ids = NULL;
	int n = 0, i, err = 0;

	if (!s->dir) {
		const char *id;
		json_t *text;

		json_object_foreach(s->mem, id, text) {
			err = fn(ctx, id, json_string_value(text), json_string_length(text));
			if (err)
				return err;
		}
		return 0;
	}
	err = list_ids(s, &ids, &n);
	for (i = 0; !err && i < n; i++) {
		struct err why;
		char path[PATH_MAX], *text;
		json_t *msg;
		size_t len;
		int e;

		if (spool_path(s, ids[i], path, sizeof(path)))
			continue;
		e = util_read_file(path, PROTO_MAX_BYTES, &text, &len);
		if (e) {
			pr_warn("cannot read spooled result '%s': %s", path, strerror(-e));
			continue;
		}
		/* a torn or foreign file is not sent (the resend is rare: parsed to check) */
		msg = proto_decode(text, len, &why);
		if (!msg)
			pr_warn("spooled result '%s' is unreadable: %s", path, why.msg);
		else
			err = fn(ctx, ids[i], text, len);
		json_decref(msg);
		free(text);
	}
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return err;
}

static int count_one(void *ctx, const char *id, const char *text, size_t len)
{
	(void)id;
	(void)text;
	(void)len;
	(*(int *)ctx)++;
	return 0;
}

static int add_id(void *ctx, const char *id, const char *text, size_t len)
{
	char *end;
	long long v = strtoll(id, &end, 10);

	(void)text;
	(void)len;
	json_array_append_new(ctx, *id && !*end ? json_integer(v) : json_string(id));
	return 0;
}

json_t *spool_ids(struct spool *s)
{
	json_t *ids = json_array();

	if (ids)
		spool_foreach(s, add_id, ids);
	return ids;
}

int spool_count(struct spool *s)
{
	int n = 0;

	if (!s->dir)
		return (int)json_object_size(s->mem);
	spool_foreach(s, count_one, &n);
	return n;
}
