/* SPDX-License-Identifier: Apache-2.0 */
/*
 * slot: a worker's slot, prepared once by the worker before any run: the
 * mount points its runs' mount views are built on, the cgroup, the payload's environment, the seccomp program and the
 * next run's network namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>


#include "util/fail.h"
#include "conf/config.h"
#include "slot/keep.h"
#include "slot/netns.h"
#include "slot/slot.h"
#include "slot/template.h"
#include "util/prof.h"
#include "util/util.h"

#define SANDBOX_PATH "/usr/bin:/bin"

/* The slot's mount points: its runs' root and their neutral files (the
 * template's, mounted in its own mount namespace only: slot/template.h),
 * and the runs' writable scratch (each run's tmpfs, in its own). */
static int make_skeleton(struct slot *s, char *err, size_t errlen)
{
	static const char *const dirs[] = { "root", "ids", "scratch" };
	char path[PATH_MAX];

	for (size_t i = 0; i < N(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", s->state_dir, dirs[i]);
		if (mkdir_p(path, i == 0 ? 0755 : 0700) < 0) {
			return fail(err, errlen, "sandbox: skeleton %s errno=%d", path, errno);
		}
	}
	return 0;
}

static int build_env(struct slot *s, const struct gaol_config *cfg)
{
	static const char *const passed[] = { "LANG", "LC_ALL", "TZ" };
	size_t n = 0, cap = 8 + N(passed) + cfg->n_env_allow;
	char **env = calloc(cap, sizeof(*env));
	if (!env)
		return -1;
	/* PWD: what /bin/sh sets for the command it starts (from its working
	 * directory, /sandbox), so that a program started without it
	 * (init.c, lang_direct_argv) has it too. */
	if (asprintf(&env[n++], "PATH=%s", SANDBOX_PATH) < 0 ||
	    asprintf(&env[n++], "HOME=/sandbox") < 0 ||
	    asprintf(&env[n++], "PWD=/sandbox") < 0)
		return -1;
	if (!getenv("LANG") && asprintf(&env[n++], "LANG=C.UTF-8") < 0)
		return -1;
	for (size_t i = 0; i < N(passed) + cfg->n_env_allow; i++) {
		const char *key = i < N(passed) ? passed[i] : cfg->env_allow[i - N(passed)];
		const char *val = getenv(key);
		if (!val || !strcmp(key, "PATH") || !strcmp(key, "HOME"))
			continue;
		if (asprintf(&env[n++], "%s=%s", key, val) < 0)
			return -1;
	}
	env[n] = NULL;
	s->envp = env;
	return 0;
}

int slot_init(struct slot *slot, const struct gaol_config *cfg, char *const *reach,
	      int cgroup_version, unsigned index, unsigned lane, bool netns_reuse,
	      char *err, size_t errlen)
{
	memset(slot, 0, sizeof(*slot));
	slot->ready = true;
	slot->netns_fd = -1;
	slot->netns_fresh_len = -1;
	for (int i = 0; i < NETNS_WATCHED; i++)
		slot->netns_files[i] = -1;
	/* A slot's network namespace may serve its next run when proven
	 * unchanged, looked at only once every init that entered it is reaped
	 * (netns.c): between a worker's requests, and between the tests one
	 * judging lane runs one after the other (sandbox_run reaps first).  A
	 * lane's child never hands it back: the worker makes the lane a new
	 * one when idle (slot_spent). */
	slot->netns_reuse = netns_reuse;
	slot->reach = reach;
	slot->keep = lane ? 0 : cfg->keep;
	slot->exiting_mntns = -1;
	slot->template_ns = slot->template_root = -1;
	for (int i = 0; i < CG_MAX_CONTROLLERS; i++)
		slot->cg.dir_fd[i] = slot->cg.procs_fd[i] = -1;
	slot->cg.peak_fd = slot->cg.run_fd = slot->cg.home_procs_fd = -1;
	slot->index = index;
	slot->uid = cfg->uid_base + index;
	slot->cfg = cfg;
	/* A slot is named by its UID (and lane), in the state directory and
	 * the cgroup tree alike (under GAOL_INSTANCE's parent): two services
	 * with different RUN_UID_BASE never meet.  The lanes of one worker judge one request's test cases
	 * side by side: same UID, a cgroup each. */
	char name[32];
	if (lane)
		snprintf(name, sizeof(name), "uid%u-%u", (unsigned)slot->uid, lane);
	else
		snprintf(name, sizeof(name), "uid%u", (unsigned)slot->uid);
	snprintf(slot->state_dir, sizeof(slot->state_dir), "%s/%s", cfg->state_dir, name);
	if (mkdir_p(cfg->state_dir, 0711) < 0) {
		return fail(err, errlen, "sandbox: state dir %s errno=%d",
			    cfg->state_dir, errno);
	}
	char cg_name[sizeof(name) + sizeof(cfg->instance) + 1];
	snprintf(cg_name, sizeof(cg_name), "%s/%s", cfg->instance, name);
	if (cgroup_slot_setup(&slot->cg, cgroup_version, cg_name, err, errlen) < 0)
		return -1;
	/* Kept: what earlier starts' runs left charged to its cgroups goes
	 * first, as between a worker's runs. */
	if (slot->keep == KEEP_ON)
		slot_settle(slot);
	int kept = slot->keep ? keep_load(slot) : 0;
	if (make_skeleton(slot, err, errlen) < 0 ||
	    (!(kept & KEEP_TEMPLATE) && template_build(slot, err, errlen) < 0))
		return -1;
	if (build_env(slot, cfg) < 0) {
		return fail(err, errlen, "sandbox: environment errno=%d", errno);
	}
	if (seccomp_policy_build(&slot->seccomp, err, errlen) < 0)
		return -1;
	if (!(kept & KEEP_NETNS) && netns_make(slot, err, errlen) < 0)
		return -1;
	if (slot->keep != KEEP_ON)
		return 0;
	if (!(kept & KEEP_NETNS))
		netns_remember(slot);   /* what the next start compares it with */
	return keep_save(slot, kept, err, errlen);
}

void slot_free(struct slot *slot)
{
	if (!slot->ready)
		return;
	template_drop(slot);
	slot->ready = false;
	if (slot->envp) {
		for (char **e = slot->envp; *e; e++)
			free(*e);
		free(slot->envp);
		slot->envp = NULL;
	}
	seccomp_policy_free(&slot->seccomp);
	if (slot->netns_fd >= 0)
		close(slot->netns_fd);
	slot->netns_fd = -1;
	netns_free(slot);
	/* Kept: the cgroups stay for the next start, whose set-up empties
	 * them first (a one-shot's last init is killed, not waited for). */
	cgroup_slot_close(&slot->cg, slot->keep != KEEP_ON);
	if (slot->keep == KEEP_CLEANUP) {
		char err[256];
		if (keep_drop(slot, err, sizeof(err)) < 0)
			fprintf(stderr, "gaol: slot %u: %s\n", slot->index, err);
	}
}

uid_t slot_uid(const struct slot *slot)
{
	return slot->uid;
}

const char *slot_state_dir(const struct slot *slot)
{
	return slot->state_dir;
}

void slot_describe_cgroup(const struct slot *slot, char *buf, size_t len)
{
	const struct slot_cgroup *cg = &slot->cg;
	snprintf(buf, len, "%s (%s)", cg->version == 2 ? "v2" : "v1",
		 cg->version == 2 ? cg->path[0] : "memory, pids, cpu, cpuacct");
}

void slot_spent(struct slot *slot)
{
	/* Never reused: the child's inits may not all be reaped yet. */
	slot->netns_used = true;
	slot->netns_fresh_len = -1;
}

/* Between runs, with nothing in the slot's cgroup: a new memory cgroup in
 * place of one that holds what the last run left charged (page cache, v1),
 * or the leaves of finished runs removed (v2), so that the next run's peak
 * does not depend on it (cgroup_slot_settle).  A failure is logged; the
 * next run then fails to start if the slot has no memory cgroup. */
void slot_settle(struct slot *slot)
{
	long long t = prof_begin();
	if (cgroup_slot_settle(&slot->cg) < 0)
		fprintf(stderr, "gaol: slot %u: cgroup settle (memory) errno=%d\n",
			slot->index, errno);
	prof_end(PROF_SETTLE, t);
}

int slot_refresh(struct slot *slot, char *err, size_t errlen)
{
	if (!slot->ready)
		return 0;
	if (!slot->netns_used) {
		netns_remember(slot);   /* before a run first enters it */
		return 0;
	}
	/* A run (a judging lane's) ended since the last refresh. */
	if (!slot->ahead)
		slot_settle(slot);
	if (netns_unchanged(slot)) {
		slot->netns_used = false;
		return 0;
	}
	/* Remembered now: a judging lane's next test enters it straight away
	 * (start_fresh), and without a snapshot it would never serve another. */
	if (netns_make(slot, err, errlen) < 0)
		return -1;
	netns_remember(slot);
	return 0;
}

int slot_renew(struct slot *slot, char *err, size_t errlen)
{
	if (!slot->ready || !slot->netns_used)
		return 0;
	if (netns_unchanged(slot)) {
		slot->netns_used = false;
		return 0;
	}
	return netns_make(slot, err, errlen);
}
