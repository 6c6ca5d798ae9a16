/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup v2 (a unified hierarchy alone: Debian 12, Ubuntu 22.04/24.04,
 * RHEL 9).  The tree gaol makes below the cgroup it was started in (<own>):
 *
 *   <own>                       controllers +memory +pids +cpu for children
 *     supervisor/               gaol's processes, moved out of <own> (unless
 *                               <own> is the root, which the rule exempts)
 *     <instance>/               (GAOL_INSTANCE) no process of its own
 *       pool<N>/                the master and workers (RUN_POOL_MEMORY_MAX)
 *       uid<N>[-<lane>]/        a slot: no process of its own
 *         run<pid>-<seq>/       one run's leaf: its init cloned straight into
 *                               it (CLONE_INTO_CGROUP), removed after it
 *
 * A cgroup with processes cannot hand controllers to its children (the
 * no-internal-process rule), hence supervisor/ and the leaves.  A fresh leaf
 * per run makes its memory.peak (Linux 5.19) the run's own without a reset
 * (6.12); CPU time and OOM kills are read from the leaf too.  The leaf's
 * name carries the process that made it: a judging lane is a fork of its
 * worker, and its counter starts where the worker's stood.
 *
 * libcgroup finds the hierarchy (cgroup_init, the mount point); the
 * directories and cgroup.subtree_control are written here.  libcgroup
 * 2.0.2's cgroup_create_cgroup enables each controller in every ancestor's
 * subtree_control from the hierarchy's root down
 * (cgroupv2_subtree_control_recursive): outside the subtree delegated to
 * gaol (systemd: a delegated service writes only below its own cgroup), and
 * failing with EBUSY where an ancestor holds processes.  gaol writes only
 * below <own>, and a run's leaf costs one mkdir.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

static const char *const wanted[] = { "memory", "pids", "cpu" };

/* Is every one of our controllers named in a space-separated list? */
int cg2_missing_controller(const char *list, char *missing, size_t len)
{
	missing[0] = 0;
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		size_t n = strlen(wanted[i]);
		const char *p = list;
		bool found = false;
		while ((p = strstr(p, wanted[i]))) {
			if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
				found = true;
			p += n;
		}
		if (!found) {
			size_t used = strlen(missing);
			snprintf(missing + used, len - used, "%s%s", used ? " " : "", wanted[i]);
		}
	}
	return missing[0] ? -1 : 0;
}

int cgroup2_mount_point(char *out, size_t len)
{
	char *mp = NULL;
	if (cgroup_get_subsys_mount_point("memory", &mp) || !mp) {
		snprintf(out, len, "/sys/fs/cgroup");
		return 0;
	}
	snprintf(out, len, "%s", mp);
	free(mp);
	return 0;
}

/* gaol's base, <own> above: the process's v2 cgroup without a trailing
 * supervisor or "<instance>/pool<N>" (where the service prepared itself). */
int cgroup2_base(const char *instance, char *out, size_t len)
{
	if (cgroup_own_path("", out, len) < 0)
		return -1;
	cgroup_unnest_pool(out, instance);
	char *last = strrchr(out, '/');
	if (last && !strcmp(last + 1, "supervisor"))
		*last = 0;
	else if (!strcmp(out, "supervisor"))
		out[0] = 0;
	return 0;
}

/* Hands our controllers to dir's children.  The error names what is
 * missing: the controller is not offered to dir (not delegated), or dir
 * still holds a process (the rule), or the tree is not writable. */
int cgroup2_delegate(int dirfd, const char *dir, char *err, size_t errlen)
{
	char list[512], missing[64];
	if (cg_read_text(dirfd, "cgroup.controllers", list, sizeof(list)) < 0) {
		return fail(err, errlen, "cgroup: read %s/cgroup.controllers errno=%d", dir, errno);
	}
	if (cg2_missing_controller(list, missing, sizeof(missing)) < 0) {
		return fail(err, errlen, "cgroup v2: controller(s) %s not available "
			    "in %s (cgroup.controllers \"%.*s\"): its parent does not "
			    "delegate them; run gaol with systemd's Delegate=yes "
			    "(gaol.service) or from the root cgroup", missing, dir,
			    (int)strcspn(list, "\n"), list);
	}
	if (cg_read_text(dirfd, "cgroup.subtree_control", list, sizeof(list)) == 0 &&
	    cg2_missing_controller(list, missing, sizeof(missing)) == 0)
		return 0;
	if (cg_write_text(dirfd, "cgroup.subtree_control", "+memory +pids +cpu") == 0)
		return 0;
	if (errno == EBUSY)
		return fail(err, errlen, "cgroup v2: cannot enable memory, pids, cpu "
			    "for the children of %s: it holds processes (the "
			    "no-internal-process rule); start gaol in a cgroup of its "
			    "own (gaol.service, Delegate=yes) or from the root cgroup",
			    dir);
	return fail(err, errlen, "cgroup v2: write %s/cgroup.subtree_control errno=%d%s",
		    dir, errno, errno == EACCES || errno == EROFS || errno == EPERM
		    ? " (the cgroup tree is not writable: not delegated to gaol?)" : "");
}

/* The root of the hierarchy has no cgroup.type: the rule does not bind it. */
static bool is_root(int dirfd)
{
	return faccessat(dirfd, "cgroup.type", F_OK, 0) < 0 && errno == ENOENT;
}

/* Every process of dirfd's cgroup into its child "supervisor". */
static int move_all(int dirfd, int to)
{
	char buf[4096];
	for (int round = 0; round < 20; round++) {
		if (cg_read_text(dirfd, "cgroup.procs", buf, sizeof(buf)) < 0)
			return -1;
		if (!buf[0])
			return 0;
		for (char *tok = strtok(buf, "\n"); tok; tok = strtok(NULL, "\n"))
			if (cg_write_text(to, "cgroup.procs", tok) < 0 && errno != ESRCH)
				return -1;
	}
	errno = EBUSY;
	return -1;
}

/* Start-up: gaol's own processes out of <own> (into <own>/supervisor), and
 * <own>'s controllers handed down.  Under systemd's Delegate=yes <own> is
 * the service's cgroup and holds gaol alone.  Started by hand in the root
 * cgroup, nothing moves (and nothing is left behind). */
int cg2_service_prepare(char *err, size_t errlen)
{
	char mp[512], own[512], dir[1100];
	cgroup2_mount_point(mp, sizeof(mp));
	if (cgroup2_base("", own, sizeof(own)) < 0) {
		return fail(err, errlen, "cgroup v2: no 0:: line in /proc/self/cgroup errno=%d",
			    errno);
	}
	snprintf(dir, sizeof(dir), "%s%s%s", mp, own[0] ? "/" : "", own);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		return fail(err, errlen, "cgroup v2: open %s errno=%d", dir, errno);
	}
	/* What the parent offers is checked before anything moves. */
	char list[512], missing[64];
	int rc = -1;
	if (cg_read_text(dfd, "cgroup.controllers", list, sizeof(list)) == 0 &&
	    cg2_missing_controller(list, missing, sizeof(missing)) < 0) {
		rc = cgroup2_delegate(dfd, dir, err, errlen);     /* names them */
		goto out;
	}
	if (!is_root(dfd)) {
		char self[512];
		if (cgroup_own_path("", self, sizeof(self)) == 0 && strcmp(self, own) != 0) {
			rc = 0;             /* in supervisor (or the pool) already */
		} else if (mkdirat(dfd, "supervisor", 0755) < 0 && errno != EEXIST) {
			fail(err, errlen, "cgroup v2: mkdir %s/supervisor errno=%d%s", dir,
			     errno, errno == EACCES || errno == EROFS
			     ? " (the cgroup tree is not writable: not delegated?)" : "");
			goto out;
		} else {
			int sfd = openat(dfd, "supervisor", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			rc = sfd < 0 ? -1 : move_all(dfd, sfd);
			if (sfd >= 0)
				close(sfd);
			if (rc < 0) {
				fail(err, errlen, "cgroup v2: move %s's processes into "
				     "%s/supervisor errno=%d", dir, dir, errno);
				goto out;
			}
		}
	}
	rc = cgroup2_delegate(dfd, dir, err, errlen);
out:
	close(dfd);
	return rc;
}

/* mkdir (EEXIST is fine) and hand our controllers down. */
static int make_delegating(int parent, const char *name, const char *path, char *err,
			   size_t errlen)
{
	if (mkdirat(parent, name, 0755) < 0 && errno != EEXIST) {
		return fail(err, errlen, "cgroup v2: mkdir %s errno=%d", path, errno);
	}
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		return fail(err, errlen, "cgroup v2: open %s errno=%d", path, errno);
	}
	if (cgroup2_delegate(fd, path, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* <base>/<instance>/<slot>, each level handing the controllers down (the
 * slot's to its run leaves).  Returns the slot's directory fd. */
int cg2_slot_create(struct slot_cgroup *cg, const char *slot_name, char *err, size_t errlen)
{
	char mp[512], base[512], instance[128];
	size_t il = strcspn(slot_name, "/");
	snprintf(instance, sizeof(instance), "%.*s", (int)il, slot_name);
	cgroup2_mount_point(mp, sizeof(mp));
	if (cgroup2_base(instance, base, sizeof(base)) < 0) {
		return fail(err, errlen, "cgroup v2: own cgroup errno=%d", errno);
	}
	char dir[1100];
	snprintf(dir, sizeof(dir), "%s%s%s", mp, base[0] ? "/" : "", base);
	/* Another process of the instance may remove an empty <instance>
	 * between our two mkdirs (its last slot closing): try again. */
	for (int attempt = 0; attempt < 3; attempt++) {
		int bfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (bfd < 0) {
			return fail(err, errlen, "cgroup v2: open %s errno=%d", dir, errno);
		}
		snprintf(cg->path[0], sizeof(cg->path[0]), "%s/%s", dir, instance);
		int ifd = make_delegating(bfd, instance, cg->path[0], err, errlen);
		close(bfd);
		if (ifd < 0)
			return -1;
		snprintf(cg->path[0], sizeof(cg->path[0]), "%s/%s", dir, slot_name);
		int sfd = make_delegating(ifd, slot_name + il + 1, cg->path[0], err, errlen);
		int e = errno;
		close(ifd);
		if (sfd >= 0 || e != ENOENT)
			return sfd;
	}
	return -1;
}

/* Kills what is in the cgroup at dirfd and waits until it is empty
 * (cgroup.events: populated 0): cgroup.kill (5.14), else SIGKILL to each
 * process until none is left (a fork may race a kill). */
void cg2_kill_and_wait(int dirfd)
{
	char buf[4096];
	bool killed = cg_write_text(dirfd, "cgroup.kill", "1") == 0;
	for (int round = 0; round < 500; round++) {
		unsigned long long populated = 1;
		if (cg_read_text(dirfd, "cgroup.events", buf, sizeof(buf)) < 0 ||
		    (cg_parse_v2_events(buf, "populated", &populated) == 0 && !populated))
			return;
		if (!killed && cg_read_text(dirfd, "cgroup.procs", buf, sizeof(buf)) == 0)
			for (char *tok = strtok(buf, "\n"); tok; tok = strtok(NULL, "\n"))
				kill((pid_t)atoi(tok), SIGKILL);
		usleep(round < 50 ? 1000 : 10000);
	}
}

/* Removes the slot's run leaves, but keep (a leaf of this process's still
 * in use, or "").  Each is killed first: a lane's child may have left its
 * last run's init exiting. */
void cg2_sweep_leaves(int slotfd, const char *keep)
{
	/* A descriptor of its own: a dup() would share the offset, and the
	 * second sweep would start where the first ended. */
	int fd = openat(slotfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.' || !strcmp(de->d_name, keep))
			continue;
		int leaf = openat(slotfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (leaf < 0)
			continue;
		cg2_kill_and_wait(leaf);
		close(leaf);
		unlinkat(slotfd, de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

void cgroup_run_abandon(struct slot_cgroup *cg)
{
	if (cg->version != 2)
		return;
	close_fd(&cg->run_fd);
	close_fd(&cg->peak_fd);
	cg->run_name[0] = 0;
	cg->run_state = CG_RUN_NONE;
}

/* The finished run's leaf goes: killed (anything left), empty, removed. */
void cg2_leaf_remove(struct slot_cgroup *cg)
{
	if (cg->run_fd < 0)
		return;
	cg2_kill_and_wait(cg->run_fd);
	close(cg->run_fd);
	cg->run_fd = -1;
	if (cg->peak_fd >= 0)
		close(cg->peak_fd);
	cg->peak_fd = -1;
	unlinkat(cg->dir_fd[0], cg->run_name, AT_REMOVEDIR);
	cg->run_name[0] = 0;
	cg->run_state = CG_RUN_NONE;
}

/* A fresh leaf for the next init, with the run's limits: memory.max (the
 * last one set, or none yet for a sandbox built ahead of its request),
 * no swap, OOM kills of the whole leaf, the pids wall, the CPU weight. */
int cg2_leaf_open(struct slot_cgroup *cg, char *err, size_t errlen)
{
	cg2_leaf_remove(cg);
	snprintf(cg->run_name, sizeof(cg->run_name), "run%d-%u", (int)getpid(), ++cg->run_seq);
	const char *step = "mkdir";
	if (mkdirat(cg->dir_fd[0], cg->run_name, 0755) < 0)
		goto fail;
	step = "open";
	cg->run_fd = openat(cg->dir_fd[0], cg->run_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->run_fd < 0)
		goto fail;
	cg->run_state = CG_RUN_OPEN;
	step = "memory.max";
	if (cg->mem_limit && cg_write_u64(cg->run_fd, "memory.max", cg->mem_limit) < 0)
		goto fail;
	/* memory.swap.max is absent without swap accounting: no swap then. */
	step = "memory.swap.max";
	if (cg_write_text(cg->run_fd, step, "0") < 0 && errno != ENOENT)
		goto fail;
	step = "memory.oom.group";
	if (cg_write_text(cg->run_fd, step, "1") < 0)
		goto fail;
	step = "pids.max";
	if (cg_write_u64(cg->run_fd, step, CG_PIDS_MAX) < 0)
		goto fail;
	step = "cpu.weight";
	if (cg_write_text(cg->run_fd, step, "100") < 0)
		goto fail;
	cg->cpu_before_us = cg->oom_before = cg->mem_baseline = 0;
	cg->peak_fd = openat(cg->run_fd, "memory.peak", O_RDWR | O_CLOEXEC);
	return 0;
fail:
	fail(err, errlen, "sandbox: cgroup leaf %s %s errno=%d", cg->run_name, step, errno);
	int e = errno;
	if (cg->run_fd >= 0)
		cg2_leaf_remove(cg);
	else
		cg->run_name[0] = 0;
	errno = e;
	return -1;
}

/* The request's limit into the run's leaf, and what is charged already:
 * a sandbox built ahead has an init in it since the worker was idle (its
 * mounts, as v1's baseline).  A run built now gets its leaf here, empty. */
int cg2_begin(struct slot_cgroup *cg, unsigned long long mem_max, char *err, size_t errlen)
{
	char buf[512];
	const char *step = "memory.max";
	cg->mem_limit = mem_max;
	cg->peak_reset = false;
	if (cg->run_state != CG_RUN_OPEN && cg->run_state != CG_RUN_TAKEN)
		return cg2_leaf_open(cg, err, errlen);
	if (cg_write_u64(cg->run_fd, "memory.max", mem_max) < 0)
		goto fail;
	step = "cpu.stat";
	if (cg_read_text(cg->run_fd, "cpu.stat", buf, sizeof(buf)) < 0 ||
	    cg_parse_v2_cpu_stat(buf, &cg->cpu_before_us) < 0)
		goto fail;
	step = "memory.events";
	if (cg_read_text(cg->run_fd, "memory.events", buf, sizeof(buf)) < 0 ||
	    cg_parse_v2_events(buf, "oom_kill", &cg->oom_before) < 0)
		goto fail;
	step = "memory.current";
	if (cg_read_u64(cg->run_fd, "memory.current", &cg->mem_baseline) < 0)
		goto fail;
	/* Linux 6.12 resets the peak to the usage now, through this fd. */
	if (cg->peak_fd >= 0 && write(cg->peak_fd, "reset", 5) == 5)
		cg->peak_reset = true;
	return 0;
fail:
	return fail(err, errlen, "sandbox: cgroup %s/%s errno=%d", cg->run_name, step, errno);
}

int cg2_read(struct slot_cgroup *cg, struct cgroup_usage *u)
{
	char buf[512];
	unsigned long long v;
	if (cg->run_fd < 0)
		return -1;
	cg->run_state = CG_RUN_DONE;
	if (cg_read_text(cg->run_fd, "cpu.stat", buf, sizeof(buf)) == 0 &&
	    cg_parse_v2_cpu_stat(buf, &v) == 0 && v >= cg->cpu_before_us)
		u->cpu_ms = (long)((v - cg->cpu_before_us) / 1000);
	unsigned long long max_events = 0;
	if (cg_read_text(cg->run_fd, "memory.events", buf, sizeof(buf)) == 0) {
		if (cg_parse_v2_events(buf, "oom_kill", &v) == 0)
			u->oom_killed = v > cg->oom_before;
		cg_parse_v2_events(buf, "max", &max_events);
	}
	ssize_t n = cg->peak_fd >= 0 ? pread(cg->peak_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n > 0) {
		buf[n] = 0;
		v = strtoull(buf, NULL, 10);
		u->memory_peak_kb = (long)((v > cg->mem_baseline ? v - cg->mem_baseline : 0) / 1024);
		u->limit_hit = cg->mem_limit && v + 65536 >= cg->mem_limit;
	} else {
		/* Before 5.19: no memory.peak.  "max" counts the times the
		 * usage met memory.max (the kernel reclaimed, or killed). */
		u->peak_unknown = true;
		u->limit_hit = max_events > 0 || u->oom_killed;
	}
	return 0;
}

long long cg2_cpu_us(const struct slot_cgroup *cg)
{
	char buf[512];
	unsigned long long v;
	if (cg->run_fd < 0 || cg_read_text(cg->run_fd, "cpu.stat", buf, sizeof(buf)) < 0 ||
	    cg_parse_v2_cpu_stat(buf, &v) < 0)
		return -1;
	return v >= cg->cpu_before_us ? (long long)(v - cg->cpu_before_us) : 0;
}

/* The slot's directory goes with its worker (empty by now), and the
 * instance's when it was the last in it (EBUSY otherwise: left). */
void cg2_close_slot(struct slot_cgroup *cg)
{
	close(cg->dir_fd[0]);
	for (int i = 0; i < CG_MAX_CONTROLLERS; i++)
		cg->dir_fd[i] = -1;
	if (cg->path[0][0] && rmdir(cg->path[0]) == 0) {
		char *slash = strrchr(cg->path[0], '/');
		if (slash) {
			*slash = 0;
			rmdir(cg->path[0]);
		}
	}
	cg->path[0][0] = 0;
}
