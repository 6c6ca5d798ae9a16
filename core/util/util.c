/* SPDX-License-Identifier: Apache-2.0 */
/* util: see util.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

long now_ms(void)
{
	return (long)(now_us() / 1000);
}

uint64_t fnv1a(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *b = buf;
	while (len) {
		ssize_t n = write(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

int read_all(int fd, void *buf, size_t len)
{
	char *b = buf;
	while (len) {
		ssize_t n = read(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

int file_write_at(int dirfd, const char *name, int flags, mode_t mode,
		  const void *buf, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | flags,
			mode);
	if (fd < 0)
		return -1;
	if (write_all(fd, buf, len) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

long file_read_at(int dirfd, const char *name, void *buf, size_t cap)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char *b = buf, extra;
	size_t len = 0;
	ssize_t got = 0;
	while (len < cap && ((got = read(fd, b + len, cap - len)) > 0 ||
			     (got < 0 && errno == EINTR)))
		len += got > 0 ? (size_t)got : 0;
	bool whole = got >= 0 && (len < cap || read(fd, &extra, 1) == 0);
	close(fd);
	return whole ? (long)len : -1;
}

bool file_contains(const char *path, const char *needle)
{
	char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return strstr(buf, needle) != NULL;
}

char *file_read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	size_t cap = 0, n = 0;
	char *text = NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *t = realloc(text, cap = cap ? cap * 2 : 16384);
			if (!t) {
				free(text);
				text = NULL;
				break;
			}
			text = t;
		}
		size_t got = fread(text + n, 1, cap - n - 1, f);
		if (!got)
			break;
		n += got;
	}
	bool failed = ferror(f);
	fclose(f);
	if (!text || failed) {
		free(text);
		return NULL;
	}
	text[n] = 0;
	return text;
}

int mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, mode) < 0 && errno != EEXIST)
		return -1;
	return chmod(tmp, mode);
}

bool name_is_plain(const char *s)
{
	if (!s || !*s || strlen(s) > 255 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

int exit_code(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return -1;
}

void *unshared_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* Before Linux 4.14 the memory is shared as any other: only slower. */
	(void)madvise(p, len, MADV_WIPEONFORK);
	return p;
}
