/* SPDX-License-Identifier: Apache-2.0 */
/*
 * health: the master's /health socket (see health.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/fail.h"
#include "health.h"

#define HEALTH_BACKLOG 64

/* The pool socket's path into pool (sun_path's size), and the health
 * socket's beside it into path.  -1 when the pool's socket has no path. */
static int health_path(int pool_fd, char *pool, char *path, size_t pathlen)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	static const char suffix[] = ".sock";
	const size_t slen = sizeof(suffix) - 1;

	memset(&sa, 0, sizeof(sa));
	if (getsockname(pool_fd, (struct sockaddr *)&sa, &len) < 0 ||
	    sa.sun_family != AF_UNIX || sa.sun_path[0] != '/')
		return -1;            /* TCP, abstract or unnamed: no path */
	size_t whole = strnlen(sa.sun_path, sizeof(sa.sun_path) - 1), n = whole;
	memcpy(pool, sa.sun_path, whole);
	pool[whole] = '\0';
	if (n > slen && strcmp(pool + n - slen, suffix) == 0)
		n -= slen;
	int w = snprintf(path, pathlen, "%.*s%s", (int)n, pool,
			 n < whole ? "-health.sock" : ".health");
	return w < 0 || (size_t)w >= pathlen || (size_t)w >= sizeof(sa.sun_path) ? -1 : 0;
}

int health_listen(int pool_fd, char *path, size_t pathlen, char *err,
		  size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat pool;
	const char *step = "socket";
	char pool_path[sizeof(sa.sun_path)];

	err[0] = '\0';
	if (health_path(pool_fd, pool_path, path, pathlen) < 0)
		return -1;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	/* A socket file left by a predecessor that was killed: the pool's
	 * socket is ours, so the name beside it is ours too. */
	step = "unlink";
	if (unlink(path) < 0 && errno != ENOENT)
		goto fail;
	/* Nobody but root may connect until it has the pool socket's owner
	 * and mode (nginx's workers). */
	mode_t old = umask(0177);
	step = "bind";
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0)
		goto fail;
	step = "chown";
	if (stat(pool_path, &pool) < 0 || chown(path, pool.st_uid, pool.st_gid) < 0)
		goto fail;
	step = "chmod";
	if (chmod(path, pool.st_mode & 0777) < 0)
		goto fail;
	step = "listen";
	if (listen(fd, HEALTH_BACKLOG) < 0)
		goto fail;
	return fd;
fail:
	fail(err, errlen, "health socket %s: %s errno=%d", path, step, errno);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	return -1;
}
