/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Slot cgroups.  Each worker owns one slot, and each slot one cgroup (one per
 * controller on v1), created at start-up under the service's own cgroup (on
 * v1 with mkdir where libcgroup says each controller is mounted).  A run never gets a cgroup of its own: the slot's is reused, and
 * its counters are taken as differences or resets around the run, so the
 * per-run cost is a handful of small reads and writes on descriptors opened
 * once.
 *
 * v1 (hybrid hosts such as this project's CI): memory, pids, cpu and cpuacct
 * hierarchies.  The payload joins them itself between fork and exec by
 * writing "0" into each cgroup.procs opened here, before it has run any of
 * its own code.  Page cache charged by earlier runs would stay charged to
 * the slot, and a run that reaches the limit makes the kernel reclaim it:
 * max_usage less the usage at the start would then under-report by what
 * the runs before left (a 512 MB kill read as 180 MB).  So between runs,
 * while the worker is idle, a slot whose memory cgroup holds 4 MiB or more
 * gets a new one (cgroup_slot_settle), and the peak is max_usage less the
 * little the run's init holds at the start.
 *
 * v2: a leaf per run under the slot's cgroup (cgroup2.c has the tree and
 * why).  The payload's PID 1 is cloned straight into it (CLONE_INTO_CGROUP);
 * CPU time, OOM kills and the peak are the leaf's own, less what the init
 * of a sandbox built ahead charged before the request (as on v1).  Before
 * Linux 5.19 there is no memory.peak: sandbox.c's fallback (docs/api.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libcgroup.h>

#include "util/fail.h"
#include "slot/cgroup.h"
#include "slot/cgroup_internal.h"
#include "util/util.h"

static const char *const v1_controllers[CG_MAX_CONTROLLERS] = {
	[CG_MEMORY] = "memory", [CG_PIDS] = "pids", [CG_CPU] = "cpu",
	[CG_CPUACCT] = "cpuacct",
};

static int cg_version(void)
{
	/* Empty (or absent) means hybrid. */
	return file_contains("/sys/fs/cgroup/cgroup.controllers", "memory") ? 2 : 1;
}

/* v1: the files every run reads or resets, opened once at setup: a run
 * then costs a pread or pwrite each, not an openat, a read and a close
 * (a cgroup file read from offset 0 is generated anew, as a fresh open's). */
static const struct {
	int controller;
	const char *name;
	int flags;
} v1_files[CG_V1_FILES] = {
	[CG_V1_LIMIT] = { CG_MEMORY, "memory.limit_in_bytes", O_RDONLY },
	[CG_V1_USAGE] = { CG_MEMORY, "memory.usage_in_bytes", O_RDONLY },
	[CG_V1_MAX_USAGE] = { CG_MEMORY, "memory.max_usage_in_bytes", O_RDWR },
	[CG_V1_OOM] = { CG_MEMORY, "memory.oom_control", O_RDONLY },
	[CG_V1_CPUACCT] = { CG_CPUACCT, "cpuacct.usage", O_RDWR },
};

/* Opens the files every run reads: of every controller (only < 0) or of
 * one, in place of those open. */
static int v1_open_files(struct slot_cgroup *cg, int only)
{
	for (int f = 0; f < CG_V1_FILES; f++) {
		if (only >= 0 && v1_files[f].controller != only)
			continue;
		close_fd(&cg->v1_fd[f]);
		cg->v1_fd[f] = openat(cg->dir_fd[v1_files[f].controller], v1_files[f].name,
				      v1_files[f].flags | O_CLOEXEC);
		if (cg->v1_fd[f] < 0)
			return -1;
	}
	return 0;
}

static int v1_read_text(const struct slot_cgroup *cg, int f, char *buf, size_t len)
{
	ssize_t n = pread(cg->v1_fd[f], buf, len - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int v1_read_u64(const struct slot_cgroup *cg, int f, unsigned long long *v)
{
	char buf[64];
	if (v1_read_text(cg, f, buf, sizeof(buf)) < 0)
		return -1;
	return cg_parse_u64(buf, v);
}

static int v1_reset(const struct slot_cgroup *cg, int f)
{
	return pwrite(cg->v1_fd[f], "0", 1, 0) == 1 ? 0 : -1;
}

/* The service's own cgroup for a controller ("" for v2's unified one), as
 * a path relative to the hierarchy's root, without leading slash.  (Before
 * cg_parse_proc_cgroup, v2's "0::/..." line was never matched: "0:" was
 * compared with "0", and gaol could not start on a v2-only host.) */
int cgroup_own_path(const char *controller, char *out, size_t len)
{
	char text[4096];
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return -1;
	text[n] = 0;
	if (cg_parse_proc_cgroup(text, controller, out, len) < 0) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* v1: where each controller gaol uses is mounted, read from /proc/self/mounts
 * once per process (as libcgroup's cgroup_init did, which v1 no longer calls:
 * it cleared tables of every controller and mount for a tenth of a
 * gaol-run's start-up). */
static const char *const v1_known[] = { "memory", "pids", "cpu", "cpuacct", "cpuset" };
static char v1_mounts[N(v1_known)][512];
static bool v1_mounts_read;

int cgroup_v1_mount_point(const char *controller, char *out, size_t len)
{
	if (!v1_mounts_read) {
		char *text = file_read_text("/proc/self/mounts");
		if (!text)
			return -1;
		for (size_t i = 0; i < N(v1_known); i++)
			if (cg_parse_v1_mount_point(text, v1_known[i], v1_mounts[i],
						    sizeof(v1_mounts[i])) < 0)
				v1_mounts[i][0] = 0;
		free(text);
		v1_mounts_read = true;
	}
	for (size_t i = 0; i < N(v1_known); i++) {
		if (strcmp(controller, v1_known[i]))
			continue;
		if (!v1_mounts[i][0])
			return -1;
		snprintf(out, len, "%s", v1_mounts[i]);
		return 0;
	}
	return -1;
}

static int mount_point(const char *controller, char *out, size_t len)
{
	return cgroup_v1_mount_point(controller, out, len);
}

int cgroup_service_prepare(int *version, char *err, size_t errlen)
{
	int v = cg_version();
	*version = v;
	if (v == 1)
		return 0;
	int rc = cgroup_init();
	if (rc) {
		return fail(err, errlen, "cgroup: libcgroup init: %s", cgroup_strerror(rc));
	}
	return cg2_service_prepare(err, errlen);
}

/* mkdir of each component of path from first on (an existing one will do):
 * 0, or the errno of the one that failed. */
static int mkdir_components(char *path, char *first)
{
	for (char *c = first;; c++) {
		char *slash = strchr(c, '/');
		if (slash)
			*slash = 0;
		int e = mkdir(path, 0755) < 0 && errno != EEXIST ? errno : 0;
		if (slash)
			*slash = '/';
		if (e || !slash)
			return e;
		c = slash;
	}
}

/* v1: where the slot's next memory cgroup is made before it takes the
 * slot's name: <slot>.new beside it. */
static int v1_memory_next(const struct slot_cgroup *cg, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s.new", cg->path[CG_MEMORY]) < len)
		return 0;
	errno = ENAMETOOLONG;
	return -1;
}

/* v1: the <slot>.new memory cgroup a worker killed in the middle of
 * v1_memory_replace left, if any, goes. */
static void v1_memory_next_remove(const struct slot_cgroup *cg)
{
	char next[sizeof(cg->path[CG_MEMORY]) + 8];
	if (cg->path[CG_MEMORY][0] && v1_memory_next(cg, next, sizeof(next)) == 0)
		rmdir(next);
}

/* v1: creates <base>/<slot_name> for one controller and opens its
 * directory.  slot_name is <instance>/<slot> (GAOL_INSTANCE), so the
 * instances on one machine each have a parent of their own.  <base> is the
 * service's own cgroup (or the parent of its pool's), so it exists: only
 * slot_name's components are made, with mkdir, as root, which is the owner
 * wanted.  (libcgroup's cgroup_create_cgroup did the same mkdir -p from /,
 * then chowned the directory and every file in it to root, which owned them
 * already, and wrote no value: this start-up's largest cost but the
 * network namespace, for nothing.) */
static int create(const char *controller, const char *base, const char *slot_name,
		  char *path, size_t plen, char *err, size_t errlen)
{
	char mp[512];
	if (mount_point(controller, mp, sizeof(mp)) < 0) {
		return fail(err, errlen, "cgroup: no mount point for %s", controller);
	}
	int n = snprintf(path, plen, "%s%s%s/%s", mp, *base ? "/" : "", base, slot_name);
	if (n < 0 || (size_t)n >= plen) {
		return fail(err, errlen, "cgroup: path too long for %s/%s", base, slot_name);
	}
	/* Each component of slot_name, parent first: an existing one is fine.
	 * A parent removed meanwhile by another process whose slot was the
	 * last of this instance (cgroup_slot_close) is made again. */
	int e = 0;
	for (int tries = 0; tries < 8; tries++) {
		e = mkdir_components(path, path + n - strlen(slot_name));
		if (e != ENOENT)
			break;
	}
	if (e) {
		return fail(err, errlen, "cgroup: create %s%s%s (%s) errno=%d", base,
			    *base ? "/" : "", slot_name, controller, e);
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fail(err, errlen, "cgroup: open %s errno=%d", path, errno);
	return fd;
}

int cgroup_slot_setup(struct slot_cgroup *cg, int version, const char *slot_name,
		      char *err, size_t errlen)
{
	memset(cg, 0, sizeof(*cg));
	for (int i = 0; i < CG_MAX_CONTROLLERS; i++)
		cg->dir_fd[i] = cg->procs_fd[i] = -1;
	for (int f = 0; f < CG_V1_FILES; f++)
		cg->v1_fd[f] = -1;
	cg->peak_fd = cg->run_fd = cg->home_procs_fd = -1;
	cg->version = version;
	if (cg->version == 2) {
		int fd = cg2_slot_create(cg, slot_name, err, errlen);
		if (fd < 0)
			return -1;
		for (int i = 0; i < CG_MAX_CONTROLLERS; i++)
			cg->dir_fd[i] = fd;
		/* The limits are the leaves' (cg2_leaf_open); the slot's pids.max
		 * is a second wall, as on v1. */
		if (cg_write_u64(fd, "pids.max", CG_PIDS_MAX) < 0 ||
		    cg_write_text(fd, "cpu.weight", "100") < 0) {
			return fail(err, errlen, "cgroup: configure %s errno=%d",
				    cg->path[0], errno);
		}
		cgroup_slot_kill_all(cg);
		return 0;
	}

	for (int i = 0; i < CG_MAX_CONTROLLERS; i++) {
		char base[512];
		if (cgroup_own_path(v1_controllers[i], base, sizeof(base)) < 0) {
			return fail(err, errlen, "cgroup: v1 controller %s is not mounted",
				    v1_controllers[i]);
		}
		cgroup_unnest_pool(base, slot_name);
		char home[1100];
		if (i == CG_MEMORY && mount_point("memory", home, 512) == 0) {
			snprintf(home + strlen(home), sizeof(home) - strlen(home),
				 "%s%s/cgroup.procs", *base ? "/" : "", base);
			cg->home_procs_fd = open(home, O_WRONLY | O_CLOEXEC);
		}
		int fd = create(v1_controllers[i], base, slot_name, cg->path[i],
				sizeof(cg->path[i]), err, errlen);
		if (fd < 0)
			return -1;
		cg->dir_fd[i] = fd;
		/* cpu and cpuacct may be one hierarchy: join it once. */
		int seen = 0;
		for (int j = 0; j < i; j++)
			if (!strcmp(cg->path[j], cg->path[i]))
				seen = 1;
		if (seen)
			continue;
		int pfd = openat(fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
		if (pfd < 0) {
			return fail(err, errlen, "cgroup: open %s/cgroup.procs errno=%d",
				    cg->path[i], errno);
		}
		const char *mp = cg->path[i] + strlen(cg->path[i]);
		/* path is <mount point>/<own>/<instance>/<slot>: the hierarchy's name is
		 * the mount point's last component. */
		char mpath[512];
		if (mount_point(v1_controllers[i], mpath, sizeof(mpath)) == 0)
			mp = strrchr(mpath, '/') ? strrchr(mpath, '/') + 1 : mpath;
		snprintf(cg->hierarchy[cg->n_procs], sizeof(cg->hierarchy[0]), "%s", mp);
		cg->procs_fd[cg->n_procs++] = pfd;
	}
	cg->n_hierarchies = cg->n_procs;
	/* Not joined, but shown: the JVM on v1 reads its limits only when it
	 * also finds a cpuset hierarchy. */
	char mpath[512];
	if (mount_point("cpuset", mpath, sizeof(mpath)) == 0 && strrchr(mpath, '/'))
		snprintf(cg->hierarchy[cg->n_hierarchies++], sizeof(cg->hierarchy[0]), "%s",
			 strrchr(mpath, '/') + 1);
	if (cg_write_text(cg->dir_fd[CG_CPU], "cpu.shares", "1024") < 0 ||
	    cg_write_u64(cg->dir_fd[CG_PIDS], "pids.max", CG_PIDS_MAX) < 0 ||
	    cg_write_text(cg->dir_fd[CG_MEMORY], "memory.swappiness", "0") < 0) {
		return fail(err, errlen, "cgroup: configure %s errno=%d",
			    cg->path[CG_CPU], errno);
	}
	if (v1_open_files(cg, -1) < 0) {
		return fail(err, errlen, "cgroup: open %s's files errno=%d",
			    cg->path[CG_MEMORY], errno);
	}
	v1_memory_next_remove(cg);
	cgroup_slot_kill_all(cg);
	return 0;
}

/* v1 needs memsw >= limit at every moment: raise memsw first, lower it last.
 * The current limit is read, not remembered: a judging lane's child process
 * may have changed it. */
static int set_v1_memory(struct slot_cgroup *cg, unsigned long long bytes)
{
	int fd = cg->dir_fd[CG_MEMORY];
	unsigned long long now;
	if (v1_read_u64(cg, CG_V1_LIMIT, &now) < 0)
		return -1;
	if (now == bytes)
		return 0;
	int has_memsw = faccessat(fd, "memory.memsw.limit_in_bytes", F_OK, 0) == 0;
	if (has_memsw && bytes > now &&
	    cg_write_u64(fd, "memory.memsw.limit_in_bytes", bytes) < 0)
		return -1;
	if (cg_write_u64(fd, "memory.limit_in_bytes", bytes) < 0)
		return -1;
	if (has_memsw && bytes < now &&
	    cg_write_u64(fd, "memory.memsw.limit_in_bytes", bytes) < 0)
		return -1;
	return 0;
}

int cgroup_slot_begin(struct slot_cgroup *cg, unsigned long long mem_max,
		      char *err, size_t errlen)
{
	char buf[512];
	const char *step;

	if (cg->version == 2)
		return cg2_begin(cg, mem_max, err, errlen);

	step = "memory.limit_in_bytes";
	if (set_v1_memory(cg, mem_max) < 0)
		goto fail;
	cg->mem_limit = mem_max;
	step = "cpuacct.usage";
	if (v1_reset(cg, CG_V1_CPUACCT) < 0)
		goto fail;
	step = "memory.max_usage_in_bytes";
	if (v1_reset(cg, CG_V1_MAX_USAGE) < 0 ||
	    v1_read_u64(cg, CG_V1_USAGE, &cg->mem_baseline) < 0)
		goto fail;
	step = "memory.oom_control";
	if (v1_read_text(cg, CG_V1_OOM, buf, sizeof(buf)) < 0 ||
	    cg_parse_v1_oom_control(buf, &cg->oom_before) < 0)
		goto fail;
	return 0;
fail:
	return fail(err, errlen, "sandbox: cgroup %s errno=%d", step, errno);
}

/* Below this, what earlier runs left charged is left: the most a run's
 * peak can then under-report by, when the kernel takes it back during
 * that run.  A run of a shell builtin leaves 0.2-0.9 MiB (dentries, inodes
 * and slab the kernel cannot reclaim at once), and a new cgroup per run
 * would cost every run a mkdir and an rmdir; a toolchain run leaves
 * megabytes of page cache, and the slot then gets a new cgroup. */
#define SETTLE_BELOW (4ULL << 20)

/* v1: (re)opens the slot's memory cgroup at path (the slot's, or the one
 * that is to take its name), made first when it is missing: its directory,
 * cgroup.procs (procs_fd[0]: memory is the first hierarchy) and the files
 * every run reads, the old descriptors closed; swappiness as at setup, and
 * the last run's limit (each run writes its own in cgroup_slot_begin;
 * meanwhile the sandbox built ahead waits in it). */
static int v1_memory_open_at(struct slot_cgroup *cg, const char *path)
{
	close_fd(&cg->dir_fd[CG_MEMORY]);
	close_fd(&cg->procs_fd[0]);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -1;
	int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	cg->dir_fd[CG_MEMORY] = dir;
	cg->procs_fd[0] = openat(dir, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (cg->procs_fd[0] < 0 || cg_write_text(dir, "memory.swappiness", "0") < 0 ||
	    v1_open_files(cg, CG_MEMORY) < 0)
		return -1;
	return cg->mem_limit ? set_v1_memory(cg, cg->mem_limit) : 0;
}

/* v1: a new memory cgroup in place of the slot's, made and set up under a
 * name of its own (swappiness, the limit, the files every run reads) and
 * then renamed to the slot's: the slot's name never names a memory cgroup
 * without its limit, and names none only between the rmdir and the rename
 * (a monitor reading the slot's cgroup does not see it vanish for the
 * setup's writes).  0; -1 with the old one kept (it could not be removed:
 * the caller empties it instead) or lost (-1 from v1_memory_open_at). */
static int v1_memory_replace(struct slot_cgroup *cg)
{
	char next[sizeof(cg->path[CG_MEMORY]) + 8];
	if (v1_memory_next(cg, next, sizeof(next)) < 0)
		return -1;
	rmdir(next);                    /* left by a worker killed in between */
	if (v1_memory_open_at(cg, next) < 0 || rmdir(cg->path[CG_MEMORY]) < 0) {
		int e = errno;
		rmdir(next);
		if (v1_memory_open_at(cg, cg->path[CG_MEMORY]) < 0)
			return -1;
		errno = e;
		return -1;
	}
	if (rename(next, cg->path[CG_MEMORY]) == 0)
		return 0;
	/* Not renamed: the slot's name is made again, as before there was a
	 * rename (the new one has never held a process). */
	rmdir(next);
	return v1_memory_open_at(cg, cg->path[CG_MEMORY]);
}

/* v1: whether the memory cgroup this process holds is still the slot's (a
 * judging lane's child renews its lane's, and the worker holds that lane's
 * descriptors too). */
static bool v1_memory_current(const struct slot_cgroup *cg)
{
	struct stat held, now;
	return fstat(cg->dir_fd[CG_MEMORY], &held) == 0 && stat(cg->path[CG_MEMORY], &now) == 0 &&
	       held.st_ino == now.st_ino && held.st_dev == now.st_dev;
}

/* v1: whether the memory hierarchy is mounted alone (no other controller's
 * settings go with its directory). */
static bool v1_memory_alone(const struct slot_cgroup *cg)
{
	for (int i = 0; i < CG_MAX_CONTROLLERS; i++)
		if (i != CG_MEMORY && !strcmp(cg->path[i], cg->path[CG_MEMORY]))
			return false;
	return true;
}

int cgroup_slot_settle(struct slot_cgroup *cg)
{
	if (cg->version == 2) {
		if (cg->run_state == CG_RUN_DONE)
			cg2_leaf_remove(cg);
		cg2_sweep_leaves(cg->dir_fd[0], cg->run_fd >= 0 ? cg->run_name : "");
		return 0;
	}
	if (!v1_memory_current(cg) && v1_memory_open_at(cg, cg->path[CG_MEMORY]) < 0)
		return -1;
	unsigned long long usage;
	if (v1_read_u64(cg, CG_V1_USAGE, &usage) == 0 && usage < SETTLE_BELOW)
		return 0;
	/* What is left is mostly page cache: the toolchain's files, read
	 * first by a run of this slot.  memory.force_empty would drop it from
	 * the page cache, and the next run of that language, in any slot,
	 * would read it from the disk again (and leave it charged to its slot:
	 * on a slow disk, seconds per run).  A new cgroup in place of this one
	 * leaves it cached; the removed cgroup holds its charge until the
	 * kernel reclaims the pages, as a finished run's leaf does on v2. */
	if (v1_memory_alone(cg) && v1_memory_replace(cg) == 0)
		return 0;
	if (!v1_memory_current(cg) && v1_memory_open_at(cg, cg->path[CG_MEMORY]) < 0)
		return -1;
	return cg_write_text(cg->dir_fd[CG_MEMORY], "memory.force_empty", "0");
}

int cgroup_run_leaf(struct slot_cgroup *cg, char *err, size_t errlen)
{
	if (cg->run_state != CG_RUN_OPEN && cg2_leaf_open(cg, err, errlen) < 0)
		return -1;
	cg->run_state = CG_RUN_TAKEN;
	return cg->run_fd;
}

void cgroup_run_end(struct slot_cgroup *cg)
{
	if (cg->version == 2 && cg->run_state == CG_RUN_DONE)
		cg2_leaf_remove(cg);
}

int cgroup_slot_join(const struct slot_cgroup *cg)
{
	for (int i = 0; i < cg->n_procs; i++)
		if (write(cg->procs_fd[i], "0", 1) != 1)
			return -1;
	return 0;
}

int cgroup_slot_read(struct slot_cgroup *cg, struct cgroup_usage *u)
{
	char buf[512];
	unsigned long long v;

	u->cpu_ms = -1;
	u->memory_peak_kb = -1;
	u->oom_killed = false;
	u->limit_hit = false;
	u->peak_unknown = false;
	if (cg->version == 2)
		return cg2_read(cg, u);
	if (v1_read_u64(cg, CG_V1_CPUACCT, &v) == 0)
		u->cpu_ms = (long)(v / 1000000);
	if (v1_read_u64(cg, CG_V1_MAX_USAGE, &v) == 0) {
		u->memory_peak_kb = (long)((v > cg->mem_baseline ? v - cg->mem_baseline : 0) / 1024);
		/* (memory.failcnt is not kept by every kernel: some leave it 0,
		 * so the peak against the limit is what tells) */
		u->limit_hit = v + 65536 >= cg->mem_limit;
	}
	if (v1_read_text(cg, CG_V1_OOM, buf, sizeof(buf)) == 0 &&
	    cg_parse_v1_oom_control(buf, &v) == 0)
		u->oom_killed = v > cg->oom_before;
	return 0;
}

long long cgroup_slot_cpu_us(const struct slot_cgroup *cg)
{
	unsigned long long v;
	if (cg->version == 2)
		return cg2_cpu_us(cg);
	if (v1_read_u64(cg, CG_V1_CPUACCT, &v) < 0)
		return -1;
	return (long long)(v / 1000);
}

/* Looks at each thread listed in dir's file (v1: the pids hierarchy's
 * tasks; v2: the run leaf's cgroup.threads): its state, and its run-queue
 * wait (summed, -1 when the host keeps none).  At most CG_PIDS_MAX. */
static int scan_threads(int dir, const char *file, struct run_threads *t)
{
	char ids[CG_PIDS_MAX * 12];
	unsigned long long v, sum = 0;
	bool waits = false;
	if (dir < 0 || cg_read_text(dir, file, ids, sizeof(ids)) < 0)
		return -1;
	for (char *save, *tok = strtok_r(ids, "\n", &save); tok;
	     tok = strtok_r(NULL, "\n", &save)) {
		char path[64], text[512];
		/* A thread that ended since the list was read: neither blocked
		 * nor waiting, and its wait is gone with it (the total can only
		 * shrink: no excuse). */
		snprintf(path, sizeof(path), "/proc/%s/stat", tok);
		char state = cg_read_text(AT_FDCWD, path, text, sizeof(text)) == 0
			     ? cg_parse_stat_state(text) : 0;
		t->blocked = t->blocked || state == 'D';
		t->runnable = t->runnable || state == 'R';
		snprintf(path, sizeof(path), "/proc/%s/schedstat", tok);
		if (cg_read_text(AT_FDCWD, path, text, sizeof(text)) == 0 &&
		    cg_parse_schedstat_wait(text, &v) == 0) {
			sum += v;
			waits = true;
		}
	}
	t->wait_us = waits ? (long long)(sum / 1000) : t->wait_us;
	return 0;
}

int cgroup_run_threads(const struct slot_cgroup *cg, struct run_threads *t)
{
	char text[256];
	unsigned long long v;
	memset(t, 0, sizeof(*t));
	t->wait_us = t->throttled_us = -1;
	char stat[1024];
	int cpu = cg->version == 1 ? cg->dir_fd[CG_CPU] : cg->run_fd;
	if (cpu >= 0 && cg_read_text(cpu, "cpu.stat", stat, sizeof(stat)) == 0 &&
	    cg_parse_stat_key(stat, cg->version == 1 ? "throttled_time" : "throttled_usec", &v) == 0)
		t->throttled_us = (long long)(cg->version == 1 ? v / 1000 : v);
	if (cg->version == 1)
		return scan_threads(cg->dir_fd[CG_PIDS], "tasks", t);
	int rc = scan_threads(cg->run_fd, "cgroup.threads", t);
	/* The leaf's own pressure where the kernel keeps it (PSI is compiled
	 * in but off by default in some, Debian's: psi=1 turns it on); it
	 * counts a wait while it lasts, and once for threads that wait at
	 * the same time. */
	if (cg->run_fd >= 0 && cg_read_text(cg->run_fd, "cpu.pressure", text, sizeof(text)) == 0 &&
	    cg_parse_pressure_some(text, &v) == 0)
		t->wait_us = (long long)v;
	return rc;
}

void cgroup_slot_kill_all(const struct slot_cgroup *cg)
{
	/* v2: the processes are in the run leaves, which go with them. */
	if (cg->version == 2) {
		cg2_sweep_leaves(cg->dir_fd[0], cg->run_fd >= 0 ? cg->run_name : "");
		cg2_kill_and_wait(cg->dir_fd[0]);
		return;
	}
	/* The pids hierarchy holds every process of the slot on v1.  Repeat
	 * until empty: a fork can race a kill.  Short waits first, as on v2
	 * (cg2_kill_and_wait): most often only an init is left, exiting. */
	int fd = cg->dir_fd[CG_PIDS];
	for (int round = 0; round < 95; round++) {
		char buf[4096];
		if (cg_read_text(fd, "cgroup.procs", buf, sizeof(buf)) < 0 || !buf[0])
			return;
		for (char *tok = strtok(buf, "\n"); tok; tok = strtok(NULL, "\n"))
			kill((pid_t)atoi(tok), SIGKILL);
		usleep(round < 50 ? 1000 : 10000);
	}
}

/* v1: the instance's directory (the parent of the slot's, path), when the
 * slot was the last in it (EBUSY otherwise: left), as on v2. */
static void rmdir_instance(char *path)
{
	char *slash = strrchr(path, '/');
	if (!slash)
		return;
	*slash = 0;
	rmdir(path);
	*slash = '/';
}

void cgroup_slot_close(struct slot_cgroup *cg, bool remove)
{
	if (!remove)            /* kept (slot/keep.h): no path, no rmdir */
		for (int i = 0; i < CG_MAX_CONTROLLERS; i++)
			cg->path[i][0] = 0;
	if (cg->version == 2 && cg->dir_fd[0] >= 0) {
		if (remove) {
			cg2_leaf_remove(cg);
			cg2_sweep_leaves(cg->dir_fd[0], "");
		}
		cgroup_run_abandon(cg);
		cg2_close_slot(cg);
		return;
	}
	for (int f = 0; f < CG_V1_FILES; f++)
		close_fd(&cg->v1_fd[f]);
	v1_memory_next_remove(cg);
	for (int i = 0; i < CG_MAX_CONTROLLERS; i++) {
		int fd = cg->dir_fd[i];
		/* An empty slot cgroup goes with its worker; one still holding a
		 * process stays, for the next start-up's sweep. */
		if (cg->path[i][0] && rmdir(cg->path[i]) == 0)
			rmdir_instance(cg->path[i]);
		cg->path[i][0] = 0;
		if (fd >= 0) {
			close(fd);
			for (int j = i; j < CG_MAX_CONTROLLERS; j++)
				if (cg->dir_fd[j] == fd)
					cg->dir_fd[j] = -1;
		}
	}
	for (int i = 0; i < cg->n_procs; i++)
		close(cg->procs_fd[i]);
	cg->n_procs = 0;
	close_fd(&cg->home_procs_fd);
	if (cg->peak_fd >= 0)
		close(cg->peak_fd);
	cg->peak_fd = -1;
}
