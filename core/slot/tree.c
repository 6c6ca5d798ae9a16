/*
 * tree: directory trees handled as root on behalf of untrusted programs
 * (see tree.h).  Nothing here follows a symbolic link.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slot/tree.h"

#define DEPTH_MAX 128

/* Copies a finished build's files out of the run's upper layer, as root,
 * trusting nothing in it: regular files, directories and symlinks only (a
 * symlink is only ever followed inside a later sandbox), no set-id bits,
 * nothing followed while copying. */
static int copy_at(int src, int dst, int depth)
{
	if (depth > DEPTH_MAX) {
		errno = ELOOP;
		return -1;
	}
	int fd = dup(src);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d)
		return -1;
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(src, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			int s2 = openat(src, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (s2 < 0 || (mkdirat(dst, e->d_name, 0755) < 0 && errno != EEXIST)) {
				rc = -1;
			} else {
				int d2 = openat(dst, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				rc = d2 < 0 ? -1 : copy_at(s2, d2, depth + 1);
				if (d2 >= 0)
					close(d2);
			}
			if (s2 >= 0)
				close(s2);
		} else if (S_ISREG(st.st_mode)) {
			int in = openat(src, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			int out = openat(dst, e->d_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
					 O_CLOEXEC, (st.st_mode & 0111) | 0644);
			char buf[65536];
			ssize_t n = 0;
			while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
				if (write(out, buf, (size_t)n) != n) {
					n = -1;
					break;
				}
			if (in < 0 || out < 0 || n < 0)
				rc = -1;
			if (in >= 0)
				close(in);
			if (out >= 0)
				close(out);
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(src, e->d_name, target, sizeof(target) - 1);
			if (n < 0)
				rc = -1;
			else {
				target[n] = 0;
				rc = symlinkat(target, dst, e->d_name);
			}
		}
		/* devices (overlay whiteouts), fifos, sockets: not a build's */
	}
	closedir(d);
	return rc;
}

int tree_copy(int src, int dst)
{
	return copy_at(src, dst, 0);
}

static int remove_at(int at, const char *name, int depth);

/* Removes every entry of the directory fd (which it takes), entries at
 * depth + 1. */
static int empty_at(int fd, int depth)
{
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    remove_at(dirfd(d), e->d_name, depth + 1) < 0)
			rc = -1;
	closedir(d);
	return rc;
}

static int remove_at(int at, const char *name, int depth)
{
	struct stat st;
	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0);
	if (depth > DEPTH_MAX) {
		errno = ELOOP;
		return -1;
	}
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = empty_at(fd, depth);
	if (unlinkat(at, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

int tree_remove_at(int dirfd, const char *name)
{
	return remove_at(dirfd, name, 0);
}

int tree_empty(int dirfd)
{
	return empty_at(dup(dirfd), 0);
}
