/* SPDX-License-Identifier: Apache-2.0 */
/*
 * template: the read-only part of every run's mount view that no run
 * changes, built once per slot by its worker, in a mount namespace of the
 * slot's own (a copy of the host's, its slave: the host's later mounts
 * reach it, none of its reach the host; of the host's mounts it keeps only
 * those a run reaches, slot/prune.h): at <slot>/root a 1 MiB tmpfs with
 * the skeleton (mount points, the allowlist's top-level symlinks), the
 * allowlist and RUN_ROOT_EXTRA bound read-only, /dev, and the neutral files
 * (slot/neutral.h) over the host's outside /proc; at <slot>/ids the
 * neutral tmpfs the runs' /proc binds come from.  Nothing of it is mounted
 * in the host's namespace: the slot holds the namespace by an fd, and it
 * goes with the slot.  The clone that starts a run's init is made from
 * inside it (template_clone), so the run's mount namespace starts as its
 * copy, and init adds what is the run's own (mounts_build_static,
 * mounts_build_request).
 */
#ifndef GAOL_TEMPLATE_H
#define GAOL_TEMPLATE_H

#include <stddef.h>
#include <sys/types.h>

#include "slot/slot.h"

/* Builds the slot's template.  0, or -1 with the reason in err. */
int template_build(struct slot *s, char *err, size_t errlen);
/* Mount namespace ns (a file of one kept by slot/keep.c) as the slot's
 * template, when it is one and this process runs in no chroot.  0, or -1
 * (the caller keeps ns). */
int template_adopt(struct slot *s, int ns);
/* clone_fn(arg) (a clone with CLONE_NEWNS) made from inside the slot's
 * template namespace; the caller is back in its own afterwards.  What
 * clone_fn returned: the child's pid, 0 in the child, -1 with errno. */
pid_t template_clone(const struct slot *s, long (*clone_fn)(void *), void *arg);
/* The template goes. */
void template_drop(struct slot *s);

#endif
