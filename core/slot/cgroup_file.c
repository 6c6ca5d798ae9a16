/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cgroup files, read and written whole by name (a directory's fd and a
 * file in it): what setting a slot up and sweeping it need.  What a run
 * reads or resets every time is opened once instead (cgroup.c, v1_files).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slot/cgroup_internal.h"

int cg_read_text(int dirfd, const char *file, char *buf, size_t len)
{
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	buf[n] = 0;
	return 0;
}

int cg_write_text(int dirfd, const char *file, const char *text)
{
	int fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	return 0;
}

int cg_write_u64(int dirfd, const char *file, unsigned long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", v);
	return cg_write_text(dirfd, file, buf);
}

int cg_parse_u64(const char *text, unsigned long long *v)
{
	char *end;
	errno = 0;
	*v = strtoull(text, &end, 10);
	return errno || end == text ? -1 : 0;
}

int cg_read_u64(int dirfd, const char *file, unsigned long long *v)
{
	char buf[64];
	if (cg_read_text(dirfd, file, buf, sizeof(buf)) < 0)
		return -1;
	return cg_parse_u64(buf, v);
}
