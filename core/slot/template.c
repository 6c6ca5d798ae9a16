/* SPDX-License-Identifier: Apache-2.0 */
/*
 * template: the part of a run's mount view that no run changes, built once
 * per slot by its worker in a mount namespace of the slot's own, which the
 * clone that starts each run's init copies (see template.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <stdlib.h>
#include <unistd.h>

#include "conf/config.h"
#include "slot/neutral.h"
#include "slot/prune.h"
#include "slot/template.h"
#include "util/fail.h"
#include "util/util.h"

/* The new root: read-only binds of these host paths (symlinks are copied as
 * symlinks, missing paths skipped).  Everything else of the host is absent. */
static const char *const root_allow[] = {
	"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};

/* Mount points and directories of a run's root. */
static const char *const root_dirs[] = {
	"dev", "proc", "tmp", "sandbox", "sys", "sys/fs", "sys/fs/cgroup", ".old",
};

/* Host files inside the allowlist that are the service's own: hidden under
 * an empty file.  Absent ones are skipped. */
static const char *const root_masked[] = {
	"/etc/default/gaol", "/etc/gaol",
};

static const struct {
	const char *name;
	unsigned major, minor;
} dev_nodes[] = {
	{ "null", 1, 3 }, { "zero", 1, 5 }, { "full", 1, 7 },
	{ "random", 1, 8 }, { "urandom", 1, 9 },
};

static const struct {
	const char *name, *target;
} dev_links[] = {
	{ "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
	{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
};

/* A step of the build failed: "sandbox: template: <step> errno=N" in err. */
static int step_failed(char *err, size_t errlen, const char *step)
{
	return fail(err, errlen, "sandbox: template: %s errno=%d", step, errno);
}

/* Each step below returns 0, or -1 with the step and errno in err: TRY is
 * that for one system call, in a function with err and errlen. */
#define TRY(call, step)                                                        \
	do {                                                                   \
		if ((call) < 0)                                                \
			return step_failed(err, errlen, (step));               \
	} while (0)

static int bind_ro(const char *src, const char *dst, const char *step, char *err,
		   size_t errlen)
{
	TRY(mount(src, dst, NULL, MS_BIND, NULL), step);
	TRY(mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
		  NULL), step);
	return 0;
}

/* The skeleton: empty mount points and the allowlist's top-level symlinks. */
static int fill_root(const struct slot *s, const char *root, char *err, size_t errlen)
{
	char path[PATH_MAX], target[PATH_MAX];

	for (size_t i = 0; i < N(root_dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, root_dirs[i]);
		TRY(mkdir(path, 0755), "skeleton");
	}
	for (size_t i = 0; i < N(root_allow); i++) {
		struct stat st;
		if (lstat(root_allow[i], &st) < 0)
			continue;
		snprintf(path, sizeof(path), "%s%s", root, root_allow[i]);
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(root_allow[i], target, sizeof(target) - 1);
			TRY(n, "skeleton");
			target[n] = 0;
			TRY(symlink(target, path), "skeleton");
		} else if (S_ISDIR(st.st_mode)) {
			TRY(mkdir(path, 0755), "skeleton");
		}
	}
	/* Mount points of RUN_ROOT_EXTRA (under a bound directory they exist
	 * already, in the host's tree, once it is bound). */
	for (size_t i = 0; i < s->cfg->n_root_extra; i++) {
		snprintf(path, sizeof(path), "%s%s", root, s->cfg->root_extra[i]);
		TRY(mkdir_p(path, 0755), "skeleton");
	}
	for (int i = 0; i < s->cg.n_hierarchies; i++) {
		snprintf(path, sizeof(path), "%s/sys/fs/cgroup/%s", root, s->cg.hierarchy[i]);
		TRY(mkdir(path, 0755), "skeleton");
	}
	return 0;
}

/* /dev: a small read-only tmpfs of device nodes; /dev/shm in it is each
 * run's own tmpfs (mounts_build_static). */
static int build_dev(const char *dev, char *err, size_t errlen)
{
	TRY(mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC,
		  "size=64k,nr_inodes=64,mode=0755"), "mount /dev");
	int dfd = open(dev, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	TRY(dfd, "open /dev");
	const char *failed = NULL;
	for (size_t i = 0; i < N(dev_nodes) && !failed; i++)
		if (mknodat(dfd, dev_nodes[i].name, S_IFCHR | 0666,
			    makedev(dev_nodes[i].major, dev_nodes[i].minor)) < 0 ||
		    fchmodat(dfd, dev_nodes[i].name, 0666, 0) < 0)
			failed = "mknod /dev";
	for (size_t i = 0; i < N(dev_links) && !failed; i++)
		if (symlinkat(dev_links[i].target, dfd, dev_links[i].name) < 0)
			failed = "symlink /dev";
	if (!failed && (mkdirat(dfd, "shm", 01777) < 0 || fchmodat(dfd, "shm", 01777, 0) < 0))
		failed = "mkdir /dev/shm";
	int saved = errno;
	close(dfd);
	errno = saved;
	if (failed)
		return step_failed(err, errlen, failed);
	TRY(mount(NULL, dev, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC,
		  "size=64k,nr_inodes=64,mode=0755"), "remount /dev");
	return 0;
}

/* /usr/local is the host's own (nothing a language needs is there): hidden
 * under an empty directory unless RUN_ROOT_EXTRA asks for it or a path in it. */
static bool usr_local_wanted(const struct gaol_config *cfg)
{
	for (size_t i = 0; i < cfg->n_root_extra; i++)
		if (strncmp(cfg->root_extra[i], "/usr/local", 10) == 0 &&
		    (cfg->root_extra[i][10] == '\0' || cfg->root_extra[i][10] == '/'))
			return true;
	return false;
}

/* What would name the host, outside /proc: the service's configuration,
 * /usr/local, the identity files (neutral.h), each under a file of the
 * slot's neutral tmpfs at ids (which stays mounted for the runs' /proc
 * binds: mounts_build_static). */
static int bind_neutral(const struct slot *s, const char *root, const char *ids,
			char *err, size_t errlen)
{
	char src[PATH_MAX], path[PATH_MAX];

	TRY(mount("tmpfs", ids, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=64k,nr_inodes=64,mode=0755"), "mount neutral files");
	int dfd = open(ids, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	TRY(dfd, "write neutral files");
	int rc = neutral_write(dfd, s->uid);
	int saved = errno;
	close(dfd);
	errno = saved;
	TRY(rc, "write neutral files");
	/* Read-only from here on: a bind of one of its files is read-only
	 * without a remount of its own (the runs' /proc binds). */
	TRY(mount(NULL, ids, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=64k,nr_inodes=64,mode=0755"), "neutral files read-only");
	for (size_t i = 0; i < N(root_masked); i++) {
		if (access(root_masked[i], F_OK) < 0)
			continue;
		snprintf(src, sizeof(src), "%s/%s", ids, NEUTRAL_EMPTY_FILE);
		snprintf(path, sizeof(path), "%s%s", root, root_masked[i]);
		if (bind_ro(src, path, "mask service config", err, errlen) < 0)
			return -1;
	}
	snprintf(path, sizeof(path), "%s/usr/local", root);
	if (!usr_local_wanted(s->cfg) && access(path, F_OK) == 0) {
		snprintf(src, sizeof(src), "%s/%s", ids, NEUTRAL_EMPTY_DIR);
		if (bind_ro(src, path, "mask /usr/local", err, errlen) < 0)
			return -1;
	}
	for (size_t i = 0; i < neutral_n_binds; i++) {
		if (!strncmp(neutral_binds[i].target, "/proc/", 6))
			continue;       /* each run's own /proc: mounts_build_static */
		snprintf(path, sizeof(path), "%s%s", root, neutral_binds[i].target);
		if (!neutral_binds[i].required && access(path, F_OK) < 0)
			continue;
		snprintf(src, sizeof(src), "%s/%s", ids, neutral_binds[i].name);
		if (bind_ro(src, path, "bind neutral files", err, errlen) < 0)
			return -1;
	}
	return 0;
}

static int build(const struct slot *s, const char *root, const char *ids, char *err,
		 size_t errlen)
{
	char path[PATH_MAX];

	TRY(mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV,
		  "size=1m,nr_inodes=1024,mode=0755"), "mount root");
	if (fill_root(s, root, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < N(root_allow); i++) {
		struct stat st;
		if (lstat(root_allow[i], &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		snprintf(path, sizeof(path), "%s%s", root, root_allow[i]);
		if (bind_ro(root_allow[i], path, "bind allowlist", err, errlen) < 0)
			return -1;
	}
	for (size_t i = 0; i < s->cfg->n_root_extra; i++) {
		snprintf(path, sizeof(path), "%s%s", root, s->cfg->root_extra[i]);
		if (bind_ro(s->cfg->root_extra[i], path, "bind RUN_ROOT_EXTRA", err,
			    errlen) < 0)
			return -1;
	}
	snprintf(path, sizeof(path), "%s/dev", root);
	if (build_dev(path, err, errlen) < 0 || bind_neutral(s, root, ids, err, errlen) < 0)
		return -1;
	/* Private: a run's copy of it shares no mount event with it. */
	TRY(mount(NULL, root, NULL, MS_REC | MS_PRIVATE, NULL), "make template private");
	return 0;
}

/* The mount namespace the process started in (the host's), and its root
 * there (a chroot's, if it runs in one), to come back to; opened once, and
 * shared with the judging lanes a worker forks. */
static int home_ns = -1, home_root = -1;

/* Into mount namespace ns with root as the root: setns() alone would put
 * the root (and working directory) at the namespace's own root, out of a
 * chroot the service runs in. */
static int enter(int ns, int root)
{
	if (setns(ns, CLONE_NEWNS) < 0 || fchdir(root) < 0 || chroot(".") < 0)
		return -1;
	return 0;
}

static int go_home(int cwd)
{
	int rc = enter(home_ns, home_root);
	if (cwd >= 0 && fchdir(cwd) < 0)
		rc = -1;
	return rc;
}

static int open_home(char *err, size_t errlen)
{
	if (home_ns < 0 && (home_ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0)
		return fail(err, errlen, "sandbox: template: open own mount namespace errno=%d",
			    errno);
	if (home_root < 0 && (home_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return fail(err, errlen, "sandbox: template: open own root errno=%d", errno);
	return 0;
}

/* Back home, or not on at all: a process stranded in a template's
 * namespace must not go on. */
static void go_home_or_abort(int cwd)
{
	if (go_home(cwd) < 0) {
		fprintf(stderr, "gaol: sandbox: template: back to the worker's mount "
			"namespace errno=%d\n", errno);
		abort();
	}
}

int template_adopt(struct slot *s, int ns)
{
	char err[128];
	if (open_home(err, sizeof(err)) < 0)
		return -1;
	int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0)
		return -1;
	if (setns(ns, CLONE_NEWNS) < 0) {
		close(cwd);
		return -1;
	}
	/* Its root, which is ours only when this process runs in no chroot
	 * (the template's root was the builder's own: template_build). */
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	go_home_or_abort(cwd);
	close(cwd);
	struct stat a, b;
	if (root < 0 || fstat(root, &a) < 0 || fstat(home_root, &b) < 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		if (root >= 0)
			close(root);
		return -1;
	}
	s->template_ns = ns;
	s->template_root = root;
	return 0;
}

/* What a run's init reaches of the host (slot/prune.h): resolved here, in
 * the host's namespace, of which the template is a copy.  Of the state
 * directory, the slot's own tree (skeleton, scratch, neutral files) and the
 * compile cache, whose entries a judged run stacks; not the other slots',
 * nor what a kept slot pins there (slot/keep.h): a copy of a pin here would
 * keep its namespace alive after the pin is replaced or cleaned up. */
static int note_reach(const struct slot *s, struct reach *r)
{
	char cache[4200];
	config_cache_dir(s->cfg, cache, sizeof(cache));
	if (reach_add(r, s->cfg->state_dir, false) < 0 || reach_add(r, s->state_dir, true) < 0 ||
	    reach_add(r, cache, true) < 0 || reach_add(r, "/proc", false) < 0)
		return -1;
	for (char *const *p = s->reach; p && *p; p++)
		if (reach_add(r, *p, true) < 0)
			return -1;
	return 0;
}

/* In the template's namespace: the host's mounts no run reaches go. */
static void prune(const struct reach *r)
{
	char *mountinfo = file_read_text("/proc/self/mountinfo");
	if (mountinfo)
		prune_mounts(r, mountinfo);
	free(mountinfo);
}

int template_build(struct slot *s, char *err, size_t errlen)
{
	char root[PATH_MAX], ids[PATH_MAX];
	struct reach reach;

	if (open_home(err, errlen) < 0)
		return -1;
	memset(&reach, 0, sizeof(reach));
	if (s->reach && note_reach(s, &reach) < 0) {
		reach_free(&reach);
		return fail(err, errlen, "sandbox: template: out of memory");
	}
	int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0) {
		int saved = errno;
		reach_free(&reach);
		return fail(err, errlen, "sandbox: template: open working directory errno=%d",
			    saved);
	}
	snprintf(root, sizeof(root), "%s/root", s->state_dir);
	snprintf(ids, sizeof(ids), "%s/ids", s->state_dir);
	/* A slave of the host's: the host's later mounts (a language's
	 * toolchain on a new filesystem) reach it, none of its reach the host. */
	int rc = 0;
	if (unshare(CLONE_NEWNS) < 0)
		rc = step_failed(err, errlen, "own mount namespace");
	else if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		rc = step_failed(err, errlen, "make / a slave");
	else if ((s->template_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		rc = step_failed(err, errlen, "open its root");
	else if ((rc = build(s, root, ids, err, errlen)) == 0 && s->reach)
		prune(&reach);
	reach_free(&reach);
	if (rc == 0 && (s->template_ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0)
		rc = step_failed(err, errlen, "open its mount namespace");
	/* Back home, whatever happened: a failed template's namespace goes
	 * when nothing holds it. */
	if (go_home(cwd) < 0) {
		close(cwd);
		return fail(err, errlen, "sandbox: template: back to the worker's mount "
			    "namespace errno=%d", errno);
	}
	close(cwd);
	if (rc < 0)
		template_drop(s);
	return rc;
}

pid_t template_clone(const struct slot *s, long (*clone_fn)(void *), void *arg)
{
	int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0)
		return -1;
	if (enter(s->template_ns, s->template_root) < 0) {
		int saved = errno;
		if (go_home(cwd) < 0)
			abort();        /* see below */
		close(cwd);
		errno = saved;
		return -1;
	}
	pid_t pid = (pid_t)clone_fn(arg);
	int saved = errno;
	if (pid == 0) {
		close(cwd);
		return 0;       /* the child, in a copy of the template */
	}
	go_home_or_abort(cwd);
	close(cwd);
	errno = saved;
	return pid;
}

void template_drop(struct slot *s)
{
	if (s->template_ns >= 0)
		close(s->template_ns);
	if (s->template_root >= 0)
		close(s->template_root);
	s->template_ns = s->template_root = -1;
}
