/* SPDX-License-Identifier: Apache-2.0 */
/*
 * prune: which of the host's mounts a slot's template keeps a copy of.
 *
 * A run's init starts in a copy of its slot's template (slot/template.h),
 * and before its pivot_root it reaches the host's file system only by the
 * paths that lead to what it mounts or opens: in the state directory, the
 * slot's own (skeleton, scratch and neutral files) and the compile cache; the
 * languages' directories and their overlay paths, and /proc.  Every other
 * host mount in the template is copied into each run's mount namespace,
 * detached again at its pivot_root and freed with it: about a microsecond
 * per mount and run here, most of a run on a host with thousands of mounts
 * (container runtimes, snaps).  So the template keeps a host mount only when
 * one of those paths runs through it (or ends in it) or it lies beneath one
 * whose whole tree a run uses; the rest are detached once, when the template
 * is built.
 *
 * "Through" is where a lookup really goes: each prefix of a path is
 * resolved (symlinks included) and every mount on the way to what it
 * resolves to is kept.  The host's later mounts still reach the template
 * (it is the host's slave) where their mount point is still there.
 */
#ifndef GAOL_PRUNE_H
#define GAOL_PRUNE_H

#include <stdbool.h>
#include <stddef.h>

struct reach {
	char **way;              /* resolved paths whose mounts on the way are kept */
	size_t n_way, cap_way;
	char **under;            /* resolved trees whose every mount is kept */
	size_t n_under, cap_under;
};

/* Adds path (absolute) and, when whole, every mount beneath it.  A prefix
 * that does not resolve adds nothing.  0, or -1 (out of memory). */
int reach_add(struct reach *r, const char *path, bool whole);
/* Whether the mount at mount_point (absolute, resolved, as mountinfo shows
 * it) is one a run may pass through or use. */
bool reach_needs(const struct reach *r, const char *mount_point);
void reach_free(struct reach *r);
/* In the namespace to prune: detaches every mount of mountinfo (the text
 * of /proc/self/mountinfo there) that r does not need, one detach where
 * such a mount sits on a needed one (what is beneath it goes with it: each
 * detach waits for an RCU grace period).  Returns how many detaches. */
int prune_mounts(const struct reach *r, const char *mountinfo);

#endif
