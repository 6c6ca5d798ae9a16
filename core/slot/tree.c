/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tree: directory trees handled as root on behalf of untrusted programs
 * (see tree.h).  Nothing here follows a symbolic link; the walking is
 * util/walk.c's, at most WALK_DEPTH_MAX deep (deeper is ELOOP).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slot/tree.h"
#include "util/walk.h"

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* A copy's account of what it wrote against its limits (w->ctx). */
struct copy {
	struct tree_limits lim;
	unsigned long long bytes, entries;
	enum tree_over over;
};

/* Copies the data in [off, end) of in to the same place in out.  0, 1 when
 * it would pass the byte limit (nothing of it written), or -1. */
static int copy_extent(int in, int out, off_t off, off_t end, struct copy *c)
{
	char buf[65536];
	if (c->lim.bytes && c->bytes + (unsigned long long)(end - off) > c->lim.bytes) {
		c->over = TREE_OVER_BYTES;
		return 1;
	}
	while (off < end) {
		size_t want = (size_t)(end - off) < sizeof(buf) ? (size_t)(end - off) : sizeof(buf);
		ssize_t n = pread(in, buf, want, off);
		if (n <= 0)
			return n < 0 ? -1 : 0;   /* shorter than it said: done */
		if (pwrite(out, buf, (size_t)n, off) != n)
			return -1;
		c->bytes += (unsigned long long)n;
		off += n;
	}
	return 0;
}

/* Copies a regular file's data extents only (SEEK_DATA/SEEK_HOLE): a hole
 * stays a hole, so 100 MB of nothing is not 100 MB of the host's disk.  A
 * file system without holes answers SEEK_DATA with the whole file. */
static int copy_data(int in, int out, off_t size, struct copy *c)
{
	off_t off = 0;
	while (off < size) {
		off_t data = lseek(in, off, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? 0 : -1;   /* only a hole is left */
		off_t hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return -1;
		if (hole > size)
			hole = size;
		int rc = copy_extent(in, out, data, hole, c);
		if (rc)
			return rc;
		off = hole;
	}
	return 0;
}

static int copy_file(int src, int dst, const char *name, const struct stat *st,
		     struct copy *c)
{
	int in = openat(src, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int out = openat(dst, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 (st->st_mode & 0111) | 0644);
	int rc = in < 0 || out < 0 ? -1 : copy_data(in, out, st->st_size, c);
	/* The length, holes at the end included; a length the host's file
	 * system cannot hold is a build too big, not a fault. */
	if (rc == 0 && ftruncate(out, st->st_size) < 0) {
		if (errno == EFBIG || errno == EINVAL) {
			c->over = TREE_OVER_BYTES;
			rc = 1;
		} else {
			rc = -1;
		}
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

static int copy_dir(struct walk *w, int src, int dst, const char *name)
{
	struct copy *c = w->ctx;
	if (w->depth + 1 >= WALK_DEPTH_MAX) {
		c->over = TREE_OVER_DEPTH;   /* said before the walker's ELOOP */
		return WALK_STOP;
	}
	int s2 = openat(src, name, OPEN_DIR);
	if (s2 < 0 || (mkdirat(dst, name, 0755) < 0 && errno != EEXIST)) {
		if (s2 >= 0)
			close(s2);
		return WALK_STOP;
	}
	int d2 = openat(dst, name, OPEN_DIR);
	if (d2 < 0) {
		close(s2);
		return WALK_STOP;
	}
	w->user[w->depth + 1] = d2;
	return s2;
}

/* Copies a finished build's files out of the run's upper layer, as root,
 * trusting nothing in it: regular files, directories and symlinks only (a
 * symlink is only ever followed inside a later sandbox), no set-id bits,
 * nothing followed while copying, and no more than the limits allow (a
 * build is the tenant's code: it may leave anything).  user[depth] is the
 * destination of the directory being read. */
static int copy_visit(struct walk *w, int src, const char *name, const struct stat *st)
{
	struct copy *c = w->ctx;
	int dst = (int)w->user[w->depth];
	if (!st)
		return WALK_STOP;
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode))
		return WALK_SKIP;   /* devices (overlay whiteouts), fifos, sockets */
	if (c->lim.entries && ++c->entries > c->lim.entries) {
		c->over = TREE_OVER_ENTRIES;
		return WALK_STOP;
	}
	if (S_ISDIR(st->st_mode))
		return copy_dir(w, src, dst, name);
	if (S_ISREG(st->st_mode))
		return copy_file(src, dst, name, st, c) ? WALK_STOP : WALK_SKIP;
	char target[PATH_MAX];
	ssize_t n = readlinkat(src, name, target, sizeof(target) - 1);
	if (n < 0)
		return WALK_STOP;
	target[n] = 0;
	return symlinkat(target, dst, name) < 0 ? WALK_STOP : WALK_SKIP;
}

static int copy_leave(struct walk *w, int dirfd, const char *name)
{
	(void)dirfd;
	(void)name;
	close((int)w->user[w->depth + 1]);
	w->user[w->depth + 1] = -1;
	return 0;
}

int tree_copy(int src, int dst, const struct tree_limits *lim, enum tree_over *over)
{
	struct copy c = { .lim = *lim, .over = TREE_WITHIN };
	struct walk w = { .visit = copy_visit, .leave = copy_leave, .ctx = &c };
	w.user[0] = dst;
	for (int i = 1; i <= WALK_DEPTH_MAX + 1; i++)
		w.user[i] = -1;
	int rc = walk_tree(&w, src);
	int saved = errno;
	/* A stopped walk leaves the destinations it had opened. */
	for (int i = 1; i <= WALK_DEPTH_MAX + 1; i++)
		if (w.user[i] >= 0)
			close((int)w.user[i]);
	*over = c.over;
	if (c.over != TREE_WITHIN)
		return 0;
	errno = saved;
	return rc;
}

/* Removal: entries go as they are seen, a directory once it is empty.  An
 * error is remembered and the rest removed all the same. */
struct removal {
	int rc;
	int depth0;              /* the depth of the walk's top entries */
};

static int remove_visit(struct walk *w, int at, const char *name, const struct stat *st)
{
	struct removal *r = w->ctx;
	if (!st) {
		if (errno != ENOENT)
			r->rc = -1;
		return WALK_SKIP;
	}
	if (!S_ISDIR(st->st_mode)) {
		if (unlinkat(at, name, 0) < 0)
			r->rc = -1;
		return WALK_SKIP;
	}
	if (w->depth + r->depth0 > WALK_DEPTH_MAX) {
		errno = ELOOP;
		r->rc = -1;
		return WALK_SKIP;
	}
	int fd = openat(at, name, OPEN_DIR);
	if (fd < 0)
		r->rc = -1;
	return fd < 0 ? WALK_SKIP : fd;
}

static int remove_leave(struct walk *w, int at, const char *name)
{
	struct removal *r = w->ctx;
	if (unlinkat(at, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		r->rc = -1;
	return 0;
}

static int empty_at(int fd, int depth0)
{
	struct removal r = { .rc = 0, .depth0 = depth0 };
	struct walk w = { .visit = remove_visit, .leave = remove_leave, .ctx = &r };
	if (walk_tree(&w, fd) < 0)
		return -1;
	return r.rc;
}

int tree_remove_at(int dirfd, const char *name)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0);
	int fd = openat(dirfd, name, OPEN_DIR);
	if (fd < 0)
		return -1;
	int rc = empty_at(fd, 1);
	close(fd);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

int tree_empty(int dirfd)
{
	return empty_at(dirfd, 1);
}
