/* SPDX-License-Identifier: Apache-2.0 */
/*
 * neutral: the run's stand-ins for host files (see neutral.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slot/neutral.h"

const struct neutral_bind neutral_binds[] = {
	{ "passwd", "/etc/passwd", 1 },
	{ "group", "/etc/group", 1 },
	{ "hostname", "/etc/hostname", 0 },
	{ "machine-id", "/etc/machine-id", 0 },
	{ "boot_id", "/proc/sys/kernel/random/boot_id", 0 },
	{ "cmdline", "/proc/cmdline", 0 },
};
const size_t neutral_n_binds = sizeof(neutral_binds) / sizeof(neutral_binds[0]);

static int put(int dirfd, const char *name, const char *text)
{
	size_t len = strlen(text);
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, len);
	int saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)len ? 0 : -1;
}

/* 32 random hex digits: machine-id(5)'s format; with dashes, a boot id's. */
static int random_id(char *out, size_t size, int dashes)
{
	unsigned char b[16];
	size_t o = 0;

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return -1;
	for (int i = 0; i < 16 && o + 3 < size; i++) {
		if (dashes && (i == 4 || i == 6 || i == 8 || i == 10))
			out[o++] = '-';
		o += (size_t)snprintf(out + o, size - o, "%02x", b[i]);
	}
	snprintf(out + o, size - o, "\n");
	return 0;
}

int neutral_write(int dirfd, uid_t uid)
{
	char text[512], id[64];

	snprintf(text, sizeof(text),
		 "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
		 "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
		 "gaol:x:%u:%u:gaol sandbox:/sandbox:/bin/sh\n",
		 (unsigned)uid, (unsigned)uid);
	if (put(dirfd, "passwd", text) < 0)
		return -1;
	snprintf(text, sizeof(text), "root:x:0:\nnogroup:x:65534:\ngaol:x:%u:\n",
		 (unsigned)uid);
	if (put(dirfd, "group", text) < 0 || put(dirfd, "hostname", "gaol\n") < 0 ||
	    put(dirfd, "cmdline", "\n") < 0 || put(dirfd, NEUTRAL_EMPTY_FILE, "") < 0)
		return -1;
	if (random_id(id, sizeof(id), 0) < 0 || put(dirfd, "machine-id", id) < 0 ||
	    random_id(id, sizeof(id), 1) < 0 || put(dirfd, "boot_id", id) < 0)
		return -1;
	return mkdirat(dirfd, NEUTRAL_EMPTY_DIR, 0555);
}

int neutral_meminfo(int dirfd, const char *name, unsigned long long mem_bytes)
{
	unsigned long long kb = mem_bytes >> 10;
	char text[512];

	/* The fields programs size themselves by (free, psutil, runtimes that
	 * read meminfo rather than the cgroup): the whole limit is free. */
	snprintf(text, sizeof(text),
		 "MemTotal:       %llu kB\nMemFree:        %llu kB\n"
		 "MemAvailable:   %llu kB\nBuffers:               0 kB\n"
		 "Cached:                0 kB\nSwapCached:            0 kB\n"
		 "Active:                0 kB\nInactive:              0 kB\n"
		 "SwapTotal:             0 kB\nSwapFree:              0 kB\n"
		 "Shmem:                 0 kB\nSlab:                  0 kB\n"
		 "SReclaimable:          0 kB\nSUnreclaim:            0 kB\n",
		 kb, kb, kb);
	return put(dirfd, name, text);
}
