/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dir: what a language directory holds, read at start-up: the fingerprint
 * of its files (part of the compile cache's key) and its subdirectories
 * (recreated in each run's writable layer).
 */
#define _GNU_SOURCE		/* strchrnul, close_range, pidfd_open */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/fail.h"
#include "util/util.h"
#include "lang/internal.h"
#include "util/walk.h"

#define SUBDIR_DEPTH_MAX    32

/* Sums a hash of every entry's path, type, size and mtime below the top:
 * the sum does not depend on the order readdir gives.  At most 64 deep. */
static int fingerprint_visit(struct walk *w, int at, const char *name, const struct stat *st)
{
	uint64_t *sum = w->ctx;
	char path[PATH_MAX];

	if (!st)
		return WALK_SKIP;
	snprintf(path, sizeof(path), "/%s", w->path);
	uint64_t h = fnv1a(path, strlen(path), FNV_OFFSET);
	h = fnv1a(&st->st_mode, sizeof(st->st_mode), h);
	h = fnv1a(&st->st_size, sizeof(st->st_size), h);
	h = fnv1a(&st->st_mtim, sizeof(st->st_mtim), h);
	*sum += h;
	if (!S_ISDIR(st->st_mode))
		return WALK_SKIP;
	if (w->depth + 1 > 64)
		return WALK_STOP;
	int sub = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return sub < 0 ? WALK_STOP : sub;
}

/* What the language directory holds, as one word: part of the compile
 * cache's key, so that a changed build script or header is a new key. */
int dir_fingerprint(const char *dir, char **out)
{
	uint64_t sum = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd == -1)
		return -1;
	struct walk w = { .visit = fingerprint_visit, .ctx = &sum };
	rc = walk_tree(&w, fd);
	close(fd);
	if (rc == -1 || asprintf(out, "%016llx", (unsigned long long)sum) < 0)
		return -1;
	return 0;
}


/* Adds every directory below the top to the list (its path, "a/b"), at
 * most SUBDIR_DEPTH_MAX deep.  Symbolic links are not followed. */
struct subdirs {
	struct strv sv;
	char *err;
	size_t errlen;
	bool failed;             /* err says why */
};

static int subdir_visit(struct walk *w, int at, const char *name, const struct stat *st)
{
	struct subdirs *l = w->ctx;
	const char *path = w->path;
	int fd;

	if (!st || !S_ISDIR(st->st_mode))
		return WALK_SKIP;
	l->failed = true;
	if (w->path_cut)
		fail(l->err, l->errlen, "%.*s/%s: path too long",
		     (int)(w->name_off ? w->name_off - 1 : 0), path, name);
	else if (w->depth == SUBDIR_DEPTH_MAX)
		fail(l->err, l->errlen, "%s: nested more than %d deep", path,
		     SUBDIR_DEPTH_MAX);
	else if (strv_add(&l->sv, path, strlen(path)) == -1)
		fail(l->err, l->errlen, "out of memory");
	else if ((fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC)) == -1)
		fail(l->err, l->errlen, "open %s errno=%d", path, errno);
	else {
		l->failed = false;
		return fd;
	}
	return WALK_STOP;
}

int dir_list_subdirs(const char *dir, char ***subdirs, char *err, size_t errlen)
{
	struct subdirs l = { .err = err, .errlen = errlen };
	struct walk w = { .visit = subdir_visit, .ctx = &l };
	int fd, rc;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return fail(err, errlen, "open errno=%d", errno);
	rc = walk_tree(&w, fd);
	close(fd);
	if (rc == -1) {
		if (!l.failed)
			fail(err, errlen, "readdir errno=%d", errno);
		strv_free(strv_finish(&l.sv));
		return -1;
	}
	struct strv sv = l.sv;
	if (sv.n > 0)
		qsort(sv.v, sv.n, sizeof(*sv.v), strv_cmp);
	if ((*subdirs = strv_finish(&sv)) == NULL)
		return fail(err, errlen, "out of memory");
	return 0;
}

