/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup: one cgroup per slot, created at start-up under the service's own
 * cgroup, on cgroup v2 or on v1 (hybrid hosts included).  On v1 they are
 * made, configured and removed here, where /proc/self/mounts says each
 * controller is mounted, and a run reuses its slot's (reset
 * counters read through descriptors opened once).  On v2 each run gets a
 * leaf of its own under the slot's, made and removed per run (cgroup2.c).
 */
#ifndef GAOL_CGROUP_H
#define GAOL_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

#define CG_MAX_CONTROLLERS 4
/* A slot's pids limit, set once at setup: a fork bomb's wall. */
#define CG_PIDS_MAX 512

enum { CG_MEMORY, CG_PIDS, CG_CPU, CG_CPUACCT };
/* v1: the files of the slot's cgroups that every run reads or resets. */
enum { CG_V1_LIMIT, CG_V1_USAGE, CG_V1_MAX_USAGE, CG_V1_OOM, CG_V1_CPUACCT, CG_V1_FILES };

struct slot_cgroup {
	int version;             /* 1 or 2; 0 when not set up */
	/* v1: one directory per controller (CG_*); v2: all point at one. */
	int dir_fd[CG_MAX_CONTROLLERS];
	char path[CG_MAX_CONTROLLERS][512];
	int procs_fd[CG_MAX_CONTROLLERS]; /* v1: cgroup.procs, to join */
	/* v1: the worker's own memory cgroup's cgroup.procs, where a run's
	 * init goes once its payload is born when the host refuses it a
	 * negative oom_score_adj (inside/init.c); -1 if not open. */
	int home_procs_fd;
	int v1_fd[CG_V1_FILES];           /* v1: opened once, read with pread */
	/* v1: the hierarchies' names ("memory", "cpu,cpuacct"), which are both
	 * the mount options and the directory under /sys/fs/cgroup. */
	char hierarchy[CG_MAX_CONTROLLERS + 1][64];
	int n_hierarchies;               /* joined ones, then view-only cpuset */
	int n_procs;
	unsigned long long mem_limit;     /* the limit of the run in progress */
	/* per run */
	unsigned long long oom_before;
	unsigned long long cpu_before_us; /* v2 */
	unsigned long long mem_baseline;  /* v1: usage charged before the run */
	int peak_fd;                      /* v2: the leaf's memory.peak */
	/* v2: the run's leaf <slot>/run<pid>-<seq> (cgroup2.c) */
	int run_fd;
	int run_state;                    /* CG_RUN_* */
	unsigned run_seq;
	char run_name[48];
	bool peak_reset;                  /* memory.peak was reset (6.12) */
};

/* v2: a run leaf made (OPEN), an init cloned into it (TAKEN), its usage
 * read (DONE: removed when its init is gone). */
enum { CG_RUN_NONE, CG_RUN_OPEN, CG_RUN_TAKEN, CG_RUN_DONE };

struct cgroup_usage {
	long cpu_ms;
	long memory_peak_kb;
	bool oom_killed;
	bool limit_hit;          /* usage reached the limit: the kernel reclaimed */
	bool peak_unknown;       /* v2 before 5.19: no memory.peak (sandbox.c's
				  * fallback, docs/api.md) */
};

/* Service-wide preparation, once, before any slot: on v2 the service moves
 * itself into a leaf so that its cgroup may hand controllers to the slots.
 * Sets *version to 1 or 2, which every slot's setup is then given. */
int cgroup_service_prepare(int *version, char *err, size_t errlen);
/* RUN_CGROUP_FAVORDYNMODS (dynmods.c): the host's cgroup2 superblock
 * remounted with favordynmods, its other options kept, unless it has it
 * already.  0, or -1 with why in err. */
int cgroup_favor_dynmods(char *err, size_t errlen);
/* The calling process's cgroup for a controller ("" for v2's unified one),
 * relative to the hierarchy's root, without leading slash.  0 or -1. */
int cgroup_own_path(const char *controller, char *out, size_t len);
/* A slot's base: own (a process's cgroup path) without a trailing
 * "<instance>/pool<N>" (slot/pool.h), so that slots are made beside the
 * pool, not in it.  instance may go on with "/<slot>". */
void cgroup_unnest_pool(char *own, const char *instance);
/* v2, for the pool (slot/pool.c) as for the slots: where the unified
 * hierarchy is mounted; gaol's base, the process's cgroup without a
 * trailing "supervisor" or "<instance>/pool<N>"; and dir (open as dirfd)
 * given our controllers for its children.  0, or -1 (with err for the
 * last). */
int cgroup2_mount_point(char *out, size_t len);
int cgroup2_base(const char *instance, char *out, size_t len);
int cgroup2_delegate(int dirfd, const char *dir, char *err, size_t errlen);
/* v1: where the hierarchy of controller (memory, pids, cpu, cpuacct or
 * cpuset) is mounted, from /proc/self/mounts (read once).  0 or -1. */
int cgroup_v1_mount_point(const char *controller, char *out, size_t len);
/* Creates (or takes over, killing what a predecessor left in it) the cgroup
 * <name> under the service's own, of the given cgroup version (from
 * cgroup_service_prepare); name is "<instance>/<slot>". */
int cgroup_slot_setup(struct slot_cgroup *cg, int version, const char *name,
		      char *err, size_t errlen);
int cgroup_slot_begin(struct slot_cgroup *cg, unsigned long long mem_max,
		      char *err, size_t errlen);
/* Between runs, with nothing running in the slot: on v1, when 4 MiB or more
 * is left charged (page cache: under that is the most a peak can
 * under-report by), the slot gets a new memory cgroup, so that the next
 * run's peak is its own whatever ran before, and the cache stays cached
 * (memory.force_empty when that cannot be); descriptors another process
 * made stale are opened again.  v2 removes the leaves of finished runs (a
 * judging lane's child leaves its last one).  -1 with errno on failure:
 * without its memory cgroup the slot's next run fails to start. */
int cgroup_slot_settle(struct slot_cgroup *cg);
/* v2: the directory fd the next init is cloned into (CLONE_INTO_CGROUP):
 * the run's fresh leaf, made now unless cgroup_slot_begin made it for this
 * init.  -1 with err. */
int cgroup_run_leaf(struct slot_cgroup *cg, char *err, size_t errlen);
/* v2: the finished run's leaf is removed, once its init is reaped. */
void cgroup_run_end(struct slot_cgroup *cg);
/* Moves the calling process into the slot cgroup (v1 path; on v2 the payload
 * is cloned into it).  Async-signal-safe: used between fork and exec. */
int cgroup_slot_join(const struct slot_cgroup *cg);
int cgroup_slot_read(struct slot_cgroup *cg, struct cgroup_usage *u);
/* CPU time spent in the slot since cgroup_slot_begin, in microseconds, read
 * while the run goes on (the judging deadlines watch it); -1 on error. */
long long cgroup_slot_cpu_us(const struct slot_cgroup *cg);
/* The run's threads as the no-progress deadline sees them, read while the
 * run goes on: whether one waits in the kernel uninterruptibly (state D:
 * mostly the disk) or is runnable (state R: running, or waiting for a CPU),
 * and how long the run waited for a CPU in all, us, a total that grows
 * during the run (-1 when the host keeps none): v2 the run leaf's
 * cpu.pressure "some" total, else (v1, v2 without PSI) the threads'
 * run-queue wait from /proc/<tid>/schedstat, summed, which a thread's
 * wait reaches only when it gets a CPU again.  0, or -1. */
struct run_threads {
	bool blocked, runnable;
	long long wait_us;
	/* The time the slot's CPU quota held the run back (cpu.stat's
	 * throttled time, us; -1 when unread): a wait the threads' own count
	 * loses for every process that ended between two looks. */
	long long throttled_us;
};
int cgroup_run_threads(const struct slot_cgroup *cg, struct run_threads *t);
/* Kills whatever is left in the slot cgroup (sweep). */
void cgroup_slot_kill_all(const struct slot_cgroup *cg);
/* v2: the run's leaf is left as it is, with whatever is still in it (a
 * kept slot's last run, slot/keep.h): the next set-up's sweep removes it. */
void cgroup_run_abandon(struct slot_cgroup *cg);
/* The slot's descriptors closed, and its cgroups removed (remove) or left
 * for a later start (a kept slot, slot/keep.h). */
void cgroup_slot_close(struct slot_cgroup *cg, bool remove);

/* Pure parsers of the kernel's file formats, unit-tested for both versions. */
int cg_parse_v2_cpu_stat(const char *text, unsigned long long *usage_usec);
int cg_parse_v2_events(const char *text, const char *key,
		       unsigned long long *value);
int cg_parse_v1_oom_control(const char *text, unsigned long long *oom_kills);
/* A /proc/<pid>/cgroup text: the path of controller's line ("" for v2's
 * 0:: line), relative, without the leading slash.  0 or -1. */
int cg_parse_proc_cgroup(const char *text, const char *controller, char *out, size_t len);
/* A /proc/self/mounts text: the mount point of the first v1 (type cgroup)
 * hierarchy with controller among its options, unescaped.  0 or -1. */
int cg_parse_v1_mount_point(const char *text, const char *controller, char *out,
			    size_t len);
/* A /proc/<tid>/schedstat text: its run-queue wait, ns.  0 or -1. */
int cg_parse_schedstat_wait(const char *text, unsigned long long *wait_ns);
/* A cpu.pressure text: the "some" line's total, us.  0 or -1. */
int cg_parse_pressure_some(const char *text, unsigned long long *total_us);
/* A cpu.stat text's value of key ("throttled_time", "throttled_usec"): 0
 * or -1. */
int cg_parse_stat_key(const char *text, const char *key, unsigned long long *v);
/* A /proc/<pid>/stat text: the state letter ('R', 'S', 'D', ...), or 0. */
char cg_parse_stat_state(const char *text);
/* Whether name is one of the comma-separated items of list[0..len). */
bool cg_list_has(const char *list, size_t len, const char *name);
/* A /proc/self/mountinfo text: the first cgroup2 mount's point, unescaped,
 * and its superblock's options.  0 or -1. */
int cg_parse_cgroup2_mountinfo(const char *text, char *point, size_t plen, char *opts,
			       size_t olen);
/* Of memory, pids and cpu, those not in a cgroup.controllers (or
 * subtree_control) list, space separated into missing: 0 when none is. */
int cg2_missing_controller(const char *list, char *missing, size_t len);

#endif
