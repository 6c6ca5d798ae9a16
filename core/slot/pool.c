/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool: the service's own processes in a memory-limited cgroup (pool.h).
 * Only the memory controller: CPU and pids of the pool are not the threat,
 * and the slots keep theirs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fail.h"
#include "slot/cgroup.h"
#include "slot/pool.h"

static int write_file(const char *dir, const char *file, const char *text)
{
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	int e = errno;
	close(fd);
	errno = e;
	return n < 0 ? -1 : 0;
}

static int enter_v1(struct pool_cgroup *p, const char *instance, unsigned tag,
		    unsigned long long max, char *err, size_t errlen)
{
	char mp[512], own[512], dir[1024], num[32];
	const char *step = "memory mount point";
	if (cgroup_v1_mount_point("memory", mp, sizeof(mp)) < 0)
		goto fail;
	step = "own memory cgroup";
	if (cgroup_own_path("memory", own, sizeof(own)) < 0)
		goto fail;
	snprintf(p->parent, sizeof(p->parent), "%s%s%s", mp, *own ? "/" : "", own);
	snprintf(dir, sizeof(dir), "%s/%s", p->parent, instance);
	step = "mkdir";
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		goto fail;
	snprintf(p->path, sizeof(p->path), "%s/pool%u", dir, tag);
	if (mkdir(p->path, 0755) < 0 && errno != EEXIST)
		goto fail;
	snprintf(num, sizeof(num), "%llu", max);
	step = "memory.limit_in_bytes";
	if (write_file(p->path, step, num) < 0)
		goto fail;
	snprintf(num, sizeof(num), "%d", (int)getpid());
	step = "cgroup.procs";
	if (write_file(p->path, step, num) < 0)
		goto fail;
	return 0;
fail:
	fail(err, errlen, "pool cgroup: %s %s errno=%d", step, p->path, errno);
	p->path[0] = 0;
	return -1;
}

/* v2: <base>/<instance>/pool<tag>, a sibling of the slots as on v1 (the
 * master comes from <base>/supervisor, or the root cgroup itself). */
static int enter_v2(struct pool_cgroup *p, const char *instance, unsigned tag,
		    unsigned long long max, char *err, size_t errlen)
{
	char mp[512], own[512], base[512], dir[1100], num[32];
	const char *step = "own v2 cgroup";
	cgroup2_mount_point(mp, sizeof(mp));
	if (cgroup_own_path("", own, sizeof(own)) < 0 ||
	    cgroup2_base(instance, base, sizeof(base)) < 0)
		goto fail;
	snprintf(p->parent, sizeof(p->parent), "%s%s%s", mp, *own ? "/" : "", own);
	snprintf(dir, sizeof(dir), "%s%s%s/%s", mp, *base ? "/" : "", base, instance);
	step = "mkdir";
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		goto fail;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		goto fail;
	int rc = cgroup2_delegate(dfd, dir, err, errlen);
	close(dfd);
	if (rc < 0)
		return -1;
	snprintf(p->path, sizeof(p->path), "%s/pool%u", dir, tag);
	if (mkdir(p->path, 0755) < 0 && errno != EEXIST)
		goto fail;
	snprintf(num, sizeof(num), "%llu", max);
	step = "memory.max";
	if (write_file(p->path, step, num) < 0)
		goto fail;
	step = "memory.swap.max";
	if (write_file(p->path, step, "0") < 0 && errno != ENOENT)
		goto fail;
	snprintf(num, sizeof(num), "%d", (int)getpid());
	step = "cgroup.procs";
	if (write_file(p->path, step, num) < 0)
		goto fail;
	return 0;
fail:
	fail(err, errlen, "pool cgroup: %s %s errno=%d", step, p->path, errno);
	p->path[0] = 0;
	return -1;
}

int pool_enter(struct pool_cgroup *p, int version, const char *instance, unsigned tag,
	       unsigned long long max, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->version = version;
	if (!max)
		return 0;
	if (version == 1)
		return enter_v1(p, instance, tag, max, err, errlen);
	return enter_v2(p, instance, tag, max, err, errlen);
}

void pool_leave(struct pool_cgroup *p)
{
	char num[32];
	if (!p->path[0])
		return;
	snprintf(num, sizeof(num), "%d", (int)getpid());
	if (write_file(p->parent, "cgroup.procs", num) == 0 && rmdir(p->path) == 0 &&
	    p->version == 2) {
		/* v2: the instance's directory too, when the slots are gone. */
		char *slash = strrchr(p->path, '/');
		*slash = 0;
		rmdir(p->path);
	}
	p->path[0] = 0;
}
