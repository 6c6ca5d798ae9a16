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

#define SUBDIR_DEPTH_MAX    32

/* Sums a hash of every entry's path, type, size and mtime below dirfd: the
 * sum does not depend on the order readdir gives. */
static int
fingerprint_at(int dirfd, const char *rel, int depth, uint64_t *sum)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	char path[PATH_MAX];
	int fd, sub, rc = 0;

	if (depth > 64 || (fd = dup(dirfd)) == -1)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		snprintf(path, sizeof(path), "%s/%s", rel, e->d_name);
		uint64_t h = fnv1a(path, strlen(path), FNV_OFFSET);
		h = fnv1a(&st.st_mode, sizeof(st.st_mode), h);
		h = fnv1a(&st.st_size, sizeof(st.st_size), h);
		h = fnv1a(&st.st_mtim, sizeof(st.st_mtim), h);
		*sum += h;
		if (S_ISDIR(st.st_mode)) {
			sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1) {
				rc = -1;
				break;
			}
			rc = fingerprint_at(sub, path, depth + 1, sum);
			close(sub);
		}
	}
	closedir(d);
	return rc;
}

/* What the language directory holds, as one word: part of the compile
 * cache's key, so that a changed build script or header is a new key. */
int
dir_fingerprint(const char *dir, char **out)
{
	uint64_t sum = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd == -1)
		return -1;
	rc = fingerprint_at(fd, "", 0, &sum);
	close(fd);
	if (rc == -1 || asprintf(out, "%016llx", (unsigned long long)sum) < 0)
		return -1;
	return 0;
}


/* Adds every directory below dirfd (rel is its path, "" at the top) to sv.
 * Symbolic links are not followed.  Takes dirfd. */
static int
walk_dirs(int dirfd, const char *rel, int depth, struct strv *sv, char *err,
	  size_t errlen)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, rc = 0, n;

	if ((d = fdopendir(dirfd)) == NULL) {
		close(dirfd);
		return fail(err, errlen, "opendir %s errno=%d", rel, errno);
	}
	while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_type == DT_UNKNOWN) {
			if (fstatat(dirfd, de->d_name, &st,
				    AT_SYMLINK_NOFOLLOW) == -1)
				continue;
			if (!S_ISDIR(st.st_mode))
				continue;
		} else if (de->d_type != DT_DIR) {
			continue;
		}
		n = snprintf(path, sizeof(path), "%s%s%s", rel,
			     *rel != '\0' ? "/" : "", de->d_name);
		if (n < 0 || (size_t)n >= sizeof(path))
			rc = fail(err, errlen, "%s/%s: path too long", rel,
				  de->d_name);
		else if (depth == SUBDIR_DEPTH_MAX)
			rc = fail(err, errlen, "%s: nested more than %d deep",
				  path, SUBDIR_DEPTH_MAX);
		else if (strv_add(sv, path, (size_t)n) == -1)
			rc = fail(err, errlen, "out of memory");
		else if ((fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY |
				      O_NOFOLLOW | O_CLOEXEC)) == -1)
			rc = fail(err, errlen, "open %s errno=%d", path, errno);
		else
			rc = walk_dirs(fd, path, depth + 1, sv, err, errlen);
	}
	if (rc == 0 && errno != 0)
		rc = fail(err, errlen, "readdir %s errno=%d", rel, errno);
	closedir(d);
	return rc;
}

int
dir_list_subdirs(const char *dir, char ***subdirs, char *err, size_t errlen)
{
	struct strv sv = { 0 };
	int fd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return fail(err, errlen, "open errno=%d", errno);
	if (walk_dirs(fd, "", 0, &sv, err, errlen) == -1) {
		strv_free(strv_finish(&sv));
		return -1;
	}
	if (sv.n > 0)
		qsort(sv.v, sv.n, sizeof(*sv.v), strv_cmp);
	if ((*subdirs = strv_finish(&sv)) == NULL)
		return fail(err, errlen, "out of memory");
	return 0;
}

