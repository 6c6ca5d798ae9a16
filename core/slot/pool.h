/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool: the cgroup of the service's own processes, the master and its
 * workers (and their judging lanes), not the slots: its memory limit,
 * RUN_POOL_MEMORY_MAX, bounds what the pool itself may hold (answers being
 * built, lanes' results), so that a worker over it is killed by the kernel
 * and replaced by the master, never the host run out of memory (issue 11).
 *
 * v1: a memory cgroup <own>/<instance>/pool<uid_base>, beside the slots'
 * <own>/<instance>/uid<N> (a sibling, never their parent: their limits are
 * their own).  v2 alike: <base>/<instance>/pool<uid_base>, where <base> is
 * the cgroup the service prepared (cgroup2.c).
 */
#ifndef GAOL_POOL_H
#define GAOL_POOL_H

#include <stddef.h>

struct pool_cgroup {
	int version;
	char path[1024];         /* the pool's directory; "" when none */
	char parent[1024];       /* the (memory) cgroup the master left */
};

/* Moves the calling process (the master, before it forks) into the pool
 * cgroup with memory limit max bytes.  max 0: nothing done.  0, or -1 with
 * err naming the step and errno. */
int pool_enter(struct pool_cgroup *p, int version, const char *instance, unsigned tag,
	       unsigned long long max, char *err, size_t errlen);
/* At the master's exit, its workers gone: moves it back and removes the
 * pool's directory (v2: and the instance's, when empty). */
void pool_leave(struct pool_cgroup *p);

#endif
