/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keep: a one-shot gaol-run's slot kept between starts (gaol-run --keep), as
 * isolate keeps a box between --init and --cleanup.  What a start would
 * build and a run never changes is kept: the slot's cgroups (not removed at
 * the end), its template mount namespace (slot/template.h) and its network
 * namespace, each held by a bind mount of its namespace file in
 * <state>/<slot>.keep/, a directory bound on itself and private (what is
 * mounted in it reaches no other mount namespace).  Every run still gets
 * its own PID, mount, IPC and UTS namespaces, tmpfs and overlay; the network
 * namespace serves the next start only when proven unchanged since it was
 * new (slot/netns.c: the same proof as a worker's, with the snapshot of it
 * when new kept in the directory beside it), else a new one takes its
 * place.  The template is used again only when what it was built from (this
 * build of gaol, the slot's UID, the cgroup hierarchies, RUN_ROOT_EXTRA,
 * the host paths whose mounts it kept: slot/prune.h) is the same, else it
 * is built again.  gaol-run --cleanup removes all of it.
 */
#ifndef GAOL_KEEP_H
#define GAOL_KEEP_H

#include <stddef.h>

#include "slot/slot.h"

/* What gaol-run asks of its slot (cfg->keep, slot->keep): nothing kept,
 * --keep, or --cleanup. */
#define KEEP_OFF 0
#define KEEP_ON 1
#define KEEP_CLEANUP 2

#define KEEP_TEMPLATE 1   /* keep_load found the template */
#define KEEP_NETNS 2      /* and a network namespace proven unchanged */

/* What the slot's keep directory holds and may serve this start: the
 * template (s->template_ns, s->template_root) and the network namespace
 * (s->netns_fd, with its snapshot), as KEEP_* bits; 0 for neither (none
 * kept yet, a reboot, another build). */
int keep_load(struct slot *s);
/* Holds what this start built (the bits of keep_load it did not find) in
 * the keep directory.  0, or -1 with the reason in err. */
int keep_save(struct slot *s, int loaded, char *err, size_t errlen);
/* Removes the keep directory and what is mounted in it (gaol-run
 * --cleanup).  0, or -1 with the reason in err. */
int keep_drop(const struct slot *s, char *err, size_t errlen);

#endif
