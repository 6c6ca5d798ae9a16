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

static int copy_file(int src, int dst, const char *name, const struct stat *st)
{
	int in = openat(src, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int out = openat(dst, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 (st->st_mode & 0111) | 0644);
	char buf[65536];
	ssize_t n = 0;
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	int rc = in < 0 || out < 0 || n < 0 ? -1 : 0;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/* Copies a finished build's files out of the run's upper layer, as root,
 * trusting nothing in it: regular files, directories and symlinks only (a
 * symlink is only ever followed inside a later sandbox), no set-id bits,
 * nothing followed while copying.  user[depth] is the destination of the
 * directory being read. */
static int copy_visit(struct walk *w, int src, const char *name, const struct stat *st)
{
	int dst = (int)w->user[w->depth];
	if (!st)
		return WALK_STOP;
	if (S_ISDIR(st->st_mode)) {
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
	if (S_ISREG(st->st_mode))
		return copy_file(src, dst, name, st) < 0 ? WALK_STOP : WALK_SKIP;
	if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(src, name, target, sizeof(target) - 1);
		if (n < 0)
			return WALK_STOP;
		target[n] = 0;
		return symlinkat(target, dst, name) < 0 ? WALK_STOP : WALK_SKIP;
	}
	/* devices (overlay whiteouts), fifos, sockets: not a build's */
	return WALK_SKIP;
}

static int copy_leave(struct walk *w, int dirfd, const char *name)
{
	(void)dirfd;
	(void)name;
	close((int)w->user[w->depth + 1]);
	w->user[w->depth + 1] = -1;
	return 0;
}

int tree_copy(int src, int dst)
{
	struct walk w = { .visit = copy_visit, .leave = copy_leave };
	w.user[0] = dst;
	for (int i = 1; i <= WALK_DEPTH_MAX + 1; i++)
		w.user[i] = -1;
	int rc = walk_tree(&w, src);
	/* A stopped walk leaves the destinations it had opened. */
	for (int i = 1; i <= WALK_DEPTH_MAX + 1; i++)
		if (w.user[i] >= 0)
			close((int)w.user[i]);
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
