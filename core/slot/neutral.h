/* SPDX-License-Identifier: Apache-2.0 */
/*
 * neutral: the files a run sees in place of the host's own, so that nothing
 * inside identifies the host: passwd and group with the slot's user, a
 * hostname, a machine id and a boot id made up per slot, an empty kernel
 * command line, and a meminfo that tells the run's own memory limit.
 * Written by the worker into the slot template's tmpfs (slot/template.c)
 * and bound over the host's paths (meminfo by the run's init, into its
 * scratch tmpfs), so that /proc/self/mountinfo names no host path either.
 */
#ifndef GAOL_NEUTRAL_H
#define GAOL_NEUTRAL_H

#include <stddef.h>
#include <sys/types.h>

struct neutral_bind {
	const char *name;        /* in the neutral tmpfs */
	const char *target;      /* in the run's root */
	int required;            /* 0: skipped when the host has no such path */
};

extern const struct neutral_bind neutral_binds[];
extern const size_t neutral_n_binds;

/* An empty file and an empty directory, to hide host paths under. */
#define NEUTRAL_EMPTY_FILE "empty"
#define NEUTRAL_EMPTY_DIR "empty.d"

/* Writes every file of neutral_binds (and the empty ones) into dirfd, a
 * fresh tmpfs.  -1 with errno. */
int neutral_write(int dirfd, uid_t uid);
/* /proc/meminfo for a run limited to mem_bytes, as name in dirfd. */
int neutral_meminfo(int dirfd, const char *name, unsigned long long mem_bytes);

#endif
