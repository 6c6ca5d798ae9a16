/* SPDX-License-Identifier: Apache-2.0 */
/*
 * slot: what a worker prepares once, before any run: its identity (UID and
 * passwd), cgroup, state directory and skeleton root, the payload's
 * environment, the seccomp program, and each run's fresh network namespace.
 * The run-time half (a sandbox built ahead, the exiting init) is
 * core/run/sandbox.c's.
 */
#ifndef GAOL_SLOT_H
#define GAOL_SLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "slot/cgroup.h"
#include "slot/seccomp_policy.h"

struct gaol_config;

#define NETNS_WATCHED 7          /* files of /proc/net compared (slot/netns.c) */
struct plan;

/* A worker's slot: the identity and the cgroup its runs use. */
struct slot {
	bool ready;              /* slot_init ran: slot_free has work */
	unsigned index;
	uid_t uid;
	struct slot_cgroup cg;
	const struct gaol_config *cfg;
	char *const *reach;      /* host paths a run's init reaches (slot/prune.h) */
	char state_dir[4096];    /* <state>/uid<UID>[-<lane>]: root, scratch */
	char **envp;             /* the payload's environment (allowlist) */
	int netns_fd;            /* the next run's loopback-only network namespace */
	bool netns_used;         /* a run entered it: make a fresh one, or reuse it */
	bool netns_reuse;        /* it may be reused when proven unchanged (netns.c) */
	char *netns_fresh;       /* what a run could read of it when new */
	long netns_fresh_len;    /* its length; -1: none, never reuse */
	char *netns_now;         /* the same, read again before a reuse */
	int netns_files[NETNS_WATCHED]; /* what is compared, opened from inside it
				  * (-ENOENT: absent on this kernel) */
	struct plan *ahead;      /* a sandbox built ahead of its request */
	pid_t exiting;           /* the last run's init, exiting on its own */
	int exiting_mntns;       /* and its mount namespace, held until idle */
	int template_ns;         /* its runs' fixed mount view (slot/template.h) */
	int template_root;       /* and the root there (a chroot's, if any) */
	int keep;                /* kept between starts (slot/keep.h): KEEP_* */
	struct seccomp_policy seccomp;
};

/* Prepares slot index (lane 0, or a judging lane) for this process: uid,
 * cgroup (of the service's cgroup_version), state directory, template,
 * network namespace, seccomp program.  reach: the host paths (NULL-ended,
 * kept by the caller) a run's init reaches besides the state directory and
 * /proc, whose mounts alone the template keeps (slot/prune.h); NULL: it
 * keeps every host mount.  netns_reuse: its network namespace may serve a
 * next run when proven unchanged (false: none is watched, as for a slot
 * that has no next run). */
int slot_init(struct slot *slot, const struct gaol_config *cfg, char *const *reach,
	      int cgroup_version, unsigned index, unsigned lane, bool netns_reuse,
	      char *err, size_t errlen);
void slot_free(struct slot *slot);
/* Prepares what the next run needs fresh (its network namespace: the one a
 * run used again only when proven unchanged, slot/netns.h), off the
 * request's path: the worker calls it while idle, a judging lane before
 * each test, once the last test's init is reaped.  0, or -1 with err. */
int slot_refresh(struct slot *slot, char *err, size_t errlen);
/* As slot_refresh, for the worker's own slot once every init that entered
 * its network namespace is reaped: that namespace is given to the next run
 * again when it is proven unchanged since it was new (slot/netns.h). */
int slot_renew(struct slot *slot, char *err, size_t errlen);
/* Between runs, with nothing in the slot's cgroup: v1 reclaims what earlier
 * runs left charged to it (cgroup_slot_settle).  Best effort, logged. */
void slot_settle(struct slot *slot);
/* Another process (a judging lane's child) ran in this slot and entered its
 * network namespace: the next run needs a fresh one, never that one. */
void slot_spent(struct slot *slot);

/* What the self-check reports and uses of a slot, read-only: its UID, its
 * state directory, and its cgroup as "v1 (controllers)" or "v2 (path)". */
uid_t slot_uid(const struct slot *slot);
const char *slot_state_dir(const struct slot *slot);
void slot_describe_cgroup(const struct slot *slot, char *buf, size_t len);
#endif
