/* SPDX-License-Identifier: Apache-2.0 */
/*
 * netns: a slot's loopback-only network namespace: made (with a snapshot of
 * everything a run can read of it), and proven unchanged since, so that a
 * worker's own slot may give it to its next run instead of a new one.
 */
#ifndef GAOL_NETNS_H
#define GAOL_NETNS_H

#include <stdbool.h>
#include <stddef.h>

struct slot;

#define NETNS_SNAPSHOT_MAX (64 << 10)   /* a snapshot's bytes, at most */

/* A new namespace with only a loopback, up, as the slot's next one (with
 * s->netns_reuse, the files compared are opened in it).  0, or -1 with err. */
int netns_make(struct slot *s, char *err, size_t errlen);
/* Takes the snapshot of a namespace no run has entered yet, once: a worker
 * does it while idle, before the sandbox built ahead enters it (a one-shot
 * gaol-run never pays for it).  Without one, the namespace is not reused. */
void netns_remember(struct slot *s);
/* Whether what a run can read of the slot's namespace (its socket tables,
 * counters, routes, addresses, flow labels) is byte for byte what it was
 * when new.  Only meaningful when every process that entered it is gone. */
bool netns_unchanged(struct slot *s);
/* Namespace ns (a file of one kept by slot/keep.c), when what a run can
 * read of it is still fresh[0..len), the snapshot taken when it was new,
 * with every process that entered it gone: then it is the slot's (netns_fd,
 * unused), and true.  False, and the caller keeps ns, otherwise. */
bool netns_adopt(struct slot *s, int ns, const char *fresh, long len);
/* The snapshot's buffers. */
void netns_free(struct slot *s);
#endif
