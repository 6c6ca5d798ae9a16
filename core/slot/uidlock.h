/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uidlock: a slot's UID belongs to one gaol at a time.  Several instances
 * (GAOL_INSTANCE) may share a machine, but never a UID: a slot is named by
 * its UID, and taking a slot kills whatever runs in its cgroup, so two
 * services sharing a UID would kill each other's runs.  Each UID in use is
 * held as an flock(2) on /run/lock/gaol/uid<N>.lock; a second holder is
 * refused at start-up, with the first one named.
 */
#ifndef GAOL_UIDLOCK_H
#define GAOL_UIDLOCK_H

#include <stddef.h>
#include <sys/types.h>

/* Root's own directory, not /run/lock itself: there anyone may create (and
 * lock) a file of that name and so keep gaol from starting. */
#define UIDLOCK_DIR "/run/lock/gaol"

struct uid_locks {
	uid_t first;
	int *fd;                /* one per UID from first, close-on-exec */
	unsigned n;
	struct uid_locks *next; /* the process's other holdings */
};

/* Locks UIDs first..first+count-1 for instance (or none, and -1 with the
 * reason: which UID, and which instance and pid hold it).  The locks are
 * held by the open file descriptions: processes forked later share them,
 * and the kernel drops them when the last of those processes ends, however
 * it ends. */
int uidlock_take(struct uid_locks *l, const char *instance, uid_t first,
		 unsigned count, char *err, size_t errlen);
void uidlock_release(struct uid_locks *l);
/* For a process forked or cloned from a holder that may outlive it: a run's
 * init.  Its copies of the holder's lock descriptors are closed, so that
 * the UIDs are free the moment the holder ends (a one-shot gaol-run does
 * not wait for its kept slot's last init to end: sandbox.h).  Async-signal
 * safe: closes only. */
void uidlock_close_inherited(void);

#endif
