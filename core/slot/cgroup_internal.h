/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup_internal: what cgroup.c (both versions, v1) and cgroup2.c (the
 * v2 tree and its per-run leaves) share; nothing outside core/slot/cgroup*.
 */
#ifndef GAOL_CGROUP_INTERNAL_H
#define GAOL_CGROUP_INTERNAL_H

#include <stddef.h>

#include "slot/cgroup.h"

/* Small files of a cgroup directory: 0, or -1 with errno. */
int cg_read_text(int dirfd, const char *file, char *buf, size_t len);
int cg_write_text(int dirfd, const char *file, const char *text);
int cg_write_u64(int dirfd, const char *file, unsigned long long v);
int cg_read_u64(int dirfd, const char *file, unsigned long long *v);
/* A decimal at the start of text.  0, or -1. */
int cg_parse_u64(const char *text, unsigned long long *v);

/* v2 (cgroup2.c) */
int cg2_service_prepare(char *err, size_t errlen);
int cg2_slot_create(struct slot_cgroup *cg, const char *slot_name, char *err,
		    size_t errlen);
void cg2_kill_and_wait(int dirfd);
void cg2_sweep_leaves(int slotfd, const char *keep);
int cg2_leaf_open(struct slot_cgroup *cg, char *err, size_t errlen);
void cg2_leaf_remove(struct slot_cgroup *cg);
int cg2_begin(struct slot_cgroup *cg, unsigned long long mem_max, char *err, size_t errlen);
int cg2_read(struct slot_cgroup *cg, struct cgroup_usage *u);
long long cg2_cpu_us(const struct slot_cgroup *cg);
void cg2_close_slot(struct slot_cgroup *cg);

#endif
