/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mounts: the run's mount view, built by init in its own mount namespace on
 * the slot's template (slot/template.h: the read-only root, /dev, the
 * neutral files), which the clone copied into it.  First what no request
 * decides (mounts_build_static: /proc, /dev/shm, the cgroup view), which a
 * worker may do ahead of the request; then the request's part
 * (mounts_build_request: the writable tmpfs, /sandbox over the language
 * directory, pivot_root).  Every step that fails ends init with its name
 * (init_fail).  All of it vanishes with the mount namespace: nothing to
 * unmount or delete afterwards.
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


#include "inside/inside.h"
#include "slot/neutral.h"
#include "util/util.h"

#define SHM_SIZE "64m"

/* /proc entries that tune or poke the kernel: bound read-only over
 * themselves.  Absent ones are skipped. */
static const char *const proc_readonly[] = {
	"sys", "sysrq-trigger", "irq", "bus", "fs",
};

/* /proc entries that leak host information: /dev/null on top. */
static const char *const proc_masked[] = {
	"kcore", "keys", "timer_list", "sched_debug", "kallsyms",
};

static void pathcat(char *out, size_t len, const char *a, const char *b)
{
	snprintf(out, len, "%s%s", a, b);
}

static void mount_or_fail(const struct plan *p, const char *src, const char *dst,
			   const char *type, unsigned long flags, const char *data,
			   const char *step)
{
	if (mount(src, dst, type, flags, data) < 0)
		init_fail(p, step);
}

/* The bind at dst made read-only (a bind takes its source's flags). */
static void remount_ro(const struct plan *p, const char *dst, const char *step)
{
	mount_or_fail(p, NULL, dst, NULL,
		       MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
		       NULL, step);
}

static void bind_ro(const struct plan *p, const char *src, const char *dst,
		    const char *step)
{
	mount_or_fail(p, src, dst, NULL, MS_BIND, NULL, step);
	remount_ro(p, dst, step);
}

/* A bind over dst when dst exists (src always does); false when it does
 * not.  Tried rather than looked up first: one system call per entry of
 * every run, not two. */
static bool bind_if_there(const struct plan *p, const char *src, const char *dst,
			  const char *step)
{
	if (mount(src, dst, NULL, MS_BIND, NULL) == 0)
		return true;
	if (errno != ENOENT)
		init_fail(p, step);
	return false;
}

static void write_file(const struct plan *p, int dirfd, const char *name,
		       const char *data, size_t len, uid_t uid, mode_t mode)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
			O_NOFOLLOW, mode);
	if (fd < 0)
		init_fail(p, "write request file");
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			init_fail(p, "write request file");
		}
		data += n;
		len -= (size_t)n;
	}
	if (fchown(fd, uid, uid) < 0 || fchmod(fd, mode) < 0)
		init_fail(p, "chown request file");
	close(fd);
}

/* A request file at a path of plain parts (api/files.h checked them):
 * its directories made, owned by the run's UID, none followed if a link. */
static void write_request_file(const struct plan *p, int dirfd, const char *name,
			       const char *data, size_t len, uid_t uid)
{
	const char *slash;
	int fd = dirfd;
	while ((slash = strchr(name, '/'))) {
		char part[256];
		size_t n = (size_t)(slash - name);
		if (n >= sizeof(part))
			init_fail(p, "request file name");
		memcpy(part, name, n);
		part[n] = 0;
		if (mkdirat(fd, part, 0755) == 0 && fchownat(fd, part, uid, uid, 0) < 0)
			init_fail(p, "chown request directory");
		int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			init_fail(p, "mkdir request directory");
		if (fd != dirfd)
			close(fd);
		fd = next;
		name = slash + 1;
	}
	write_file(p, fd, name, data, len, uid, 0644);
	if (fd != dirfd)
		close(fd);
}

/* The writable layers: one tmpfs sized per language holds the overlay's
 * upper and work directories and /tmp, so one cap bounds every write. */
static int build_scratch(const struct plan *p, const char *scratch, int *scratch_fd)
{
	const struct lang *lang = p->spec->lang;
	uid_t uid = p->slot->uid;

	mount_or_fail(p, "tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV,
		       p->scratch_opts, "mount scratch tmpfs");
	int sfd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0)
		init_fail(p, "open scratch");
	if (mkdirat(sfd, "upper", 0755) < 0 || fchownat(sfd, "upper", uid, uid, 0) < 0)
		init_fail(p, "mkdir upper");
	if (mkdirat(sfd, "work", 0700) < 0)
		init_fail(p, "mkdir work");
	if (mkdirat(sfd, "tmp", 0777) < 0 || fchmodat(sfd, "tmp", 01777, 0) < 0)
		init_fail(p, "mkdir tmp");
	int ufd = openat(sfd, "upper", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ufd < 0)
		init_fail(p, "open upper");
	/* The language's directories again, owned by the slot: the payload may
	 * create files anywhere in /sandbox, the template stays read-only. */
	for (char **d = lang->subdirs; d && *d; d++)
		if (mkdirat(ufd, *d, 0755) < 0 || fchownat(ufd, *d, uid, uid, 0) < 0)
			init_fail(p, "mkdir skeleton");
	if (mkdirat(ufd, lang->workdir, 0755) < 0 && errno != EEXIST)
		init_fail(p, "mkdir workdir");
	if (fchownat(ufd, lang->workdir, uid, uid, 0) < 0)
		init_fail(p, "chown workdir");
	int wfd = openat(ufd, lang->workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (wfd < 0)
		init_fail(p, "open workdir");
	for (size_t i = 0; i < p->spec->n_files; i++)
		write_request_file(p, wfd, p->spec->files[i].name, p->spec->files[i].data,
				   p->spec->files[i].len, uid);
	/* A judged program's input file: root's, read-only to the program. */
	if (p->spec->input_file)
		write_file(p, ufd, p->spec->input_file, p->spec->stdin_data,
			   p->spec->stdin_len, 0, 0444);
	close(wfd);
	*scratch_fd = sfd;
	return ufd;
}

/* null: the run's own /dev/null (a host one would show the host's devtmpfs,
 * sized by its memory, in /proc/self/mountinfo). */
static void build_proc(const struct plan *p, const char *proc, const char *null)
{
	char path[PATH_MAX];
	mount_or_fail(p, "proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		       NULL, "mount /proc");
	for (size_t i = 0; i < N(proc_readonly); i++) {
		snprintf(path, sizeof(path), "%s/%s", proc, proc_readonly[i]);
		if (bind_if_there(p, path, path, "mask /proc"))
			remount_ro(p, path, "mask /proc");
	}
	for (size_t i = 0; i < N(proc_masked); i++) {
		snprintf(path, sizeof(path), "%s/%s", proc, proc_masked[i]);
		bind_if_there(p, null, path, "mask /proc");
	}
}

/* RUN_OVERLAY_PATHS: toolchain caches (Go's, Cargo's) that must be written
 * at run time.  Each is the read-only lower layer of a private overlay whose
 * writes land in the run's scratch tmpfs: pre-warmed for every run,
 * poisonable by none.  A path missing on the host is skipped. */
static void build_cache_overlays(const struct plan *p, const char *root)
{
	char **paths = p->spec->lang->overlay_paths;
	uid_t uid = p->slot->uid;
	for (size_t i = 0; paths && paths[i]; i++) {
		struct stat st;
		char target[PATH_MAX], lower[64], up[64], work[64], opts[256];
		if (stat(paths[i], &st) < 0 || !S_ISDIR(st.st_mode) || strpbrk(paths[i], ",:"))
			continue;
		snprintf(target, sizeof(target), "%s%s", root, paths[i]);
		/* Outside the allowlisted binds the mount point is made in the
		 * skeleton, once. */
		if (access(target, F_OK) < 0 && mkdir_p(target, 0755) < 0)
			init_fail(p, "cache overlay mount point");
		/* Named relative to the scratch tmpfs, init's working
		 * directory: mountinfo shows these names, not host paths. */
		snprintf(lower, sizeof(lower), "cache%zu.lower", i);
		snprintf(up, sizeof(up), "cache%zu", i);
		snprintf(work, sizeof(work), "cache%zu.work", i);
		if (symlink(paths[i], lower) < 0 || mkdir(up, 0755) < 0 ||
		    chown(up, uid, uid) < 0 || mkdir(work, 0700) < 0)
			init_fail(p, "cache overlay layers");
		snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
			 lower, up, work);
		mount_or_fail(p, "overlay", target, "overlay", MS_NOSUID | MS_NODEV,
			       opts, "mount cache overlay");
	}
}

/* The run's own cgroup, read-only at /sys/fs/cgroup, rooted at the slot by
 * the cgroup namespace init entered: the JVM, Go and .NET size their heaps
 * and thread pools from the run's limits, not the host's. */
static void mount_cgroup_view(const struct plan *p, const char *root)
{
	const struct slot_cgroup *cg = &p->slot->cg;
	unsigned long ro = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
	char path[PATH_MAX];
	if (cg->version == 2) {
		snprintf(path, sizeof(path), "%s/sys/fs/cgroup", root);
		mount_or_fail(p, "cgroup2", path, "cgroup2", ro, NULL,
			       "mount cgroup view");
		return;
	}
	for (int i = 0; i < cg->n_hierarchies; i++) {
		snprintf(path, sizeof(path), "%s/sys/fs/cgroup/%s", root, cg->hierarchy[i]);
		mount_or_fail(p, "cgroup", path, "cgroup", ro, cg->hierarchy[i],
			       "mount cgroup view");
	}
}

/* The part of the run's mount view that no request decides, on the slot's
 * template (slot/template.h), which the clone copied into this mount
 * namespace: what is the run's own, /proc (its PID namespace's), /dev/shm,
 * the neutral files in /proc and the cgroup view (its cgroup namespace's).
 * A worker builds it ahead of the request (slot_prepare), or the run does. */
void mounts_build_static(const struct plan *p)
{
	const char *state = p->slot->state_dir;
	char root[PATH_MAX], path[PATH_MAX], null[PATH_MAX], src[PATH_MAX];

	/* Nothing done here reaches the worker's template, nor the host. */
	mount_or_fail(p, NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL,
		       "make / private");
	pathcat(root, sizeof(root), state, "/root");
	pathcat(path, sizeof(path), root, "/dev/shm");
	mount_or_fail(p, "tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		       "size=" SHM_SIZE ",mode=1777", "mount /dev/shm");
	pathcat(path, sizeof(path), root, "/proc");
	pathcat(null, sizeof(null), root, "/dev/null");
	build_proc(p, path, null);
	for (size_t i = 0; i < neutral_n_binds; i++) {
		if (strncmp(neutral_binds[i].target, "/proc/", 6))
			continue;       /* the template's */
		pathcat(path, sizeof(path), root, neutral_binds[i].target);
		/* Read-only: the template's neutral tmpfs is. */
		snprintf(src, sizeof(src), "%s/ids/%s", state, neutral_binds[i].name);
		if (neutral_binds[i].required)
			mount_or_fail(p, src, path, NULL, MS_BIND, NULL, "bind neutral files");
		else
			bind_if_there(p, src, path, "bind neutral files");
	}
	mount_cgroup_view(p, root);
	if (sethostname("gaol", 4) < 0)
		init_fail(p, "sethostname");
}

/* The request's part: its writable layers, /sandbox over its language (and
 * build), then pivot_root into the new root.  Returns the upper layer's fd. */
int mounts_build_request(const struct plan *p)
{
	const char *state = p->slot->state_dir;
	char root[PATH_MAX], path[PATH_MAX], scratch[PATH_MAX], tmp[PATH_MAX];

	pathcat(root, sizeof(root), state, "/root");
	pathcat(scratch, sizeof(scratch), state, "/scratch");
	int scratch_fd;
	int upper = build_scratch(p, scratch, &scratch_fd);
	/* The overlays' layers are named relative to the scratch tmpfs (symlinks
	 * to the language directory and the build), so that mountinfo shows
	 * "lowerdir=build:lang,upperdir=upper", no host path. */
	const struct sandbox_spec *spec = p->spec;
	if (fchdir(scratch_fd) < 0 || symlink(spec->lang->dir, "lang") < 0 ||
	    (spec->lower && symlink(spec->lower, "build") < 0))
		init_fail(p, "overlay layer names");
	pathcat(path, sizeof(path), root, "/sandbox");
	mount_or_fail(p, "overlay", path, "overlay", MS_NOSUID | MS_NODEV,
		       p->overlay_opts, "mount /sandbox overlay");
	if (spec->data_dir) {
		/* A checker's files: the worker's, read-only, none of them
		 * charged to this run's memory. */
		pathcat(tmp, sizeof(tmp), path, "/judge");
		if (mkdir(tmp, 0755) < 0)
			init_fail(p, "mkdir /sandbox/judge");
		bind_ro(p, spec->data_dir, tmp, "bind judge files");
	}
	build_cache_overlays(p, root);
	/* /proc/meminfo: the run's own limit, not the host's memory. */
	if (neutral_meminfo(scratch_fd, "meminfo", spec->mem_max ? spec->mem_max
			    : spec->lang->mem_max) < 0)
		init_fail(p, "write meminfo");
	close(scratch_fd);
	pathcat(tmp, sizeof(tmp), scratch, "/meminfo");
	pathcat(path, sizeof(path), root, "/proc/meminfo");
	bind_ro(p, tmp, path, "bind meminfo");
	pathcat(tmp, sizeof(tmp), scratch, "/tmp");
	pathcat(path, sizeof(path), root, "/tmp");
	mount_or_fail(p, tmp, path, NULL, MS_BIND, NULL, "bind /tmp");

	if (chdir(root) < 0)
		init_fail(p, "chdir root");
	if (syscall(SYS_pivot_root, ".", ".old") < 0)
		init_fail(p, "pivot_root");
	if (chdir("/") < 0)
		init_fail(p, "chdir /");
	if (umount2("/.old", MNT_DETACH) < 0)
		init_fail(p, "detach old root");
	mount_or_fail(p, NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
		       MS_NOSUID | MS_NODEV, NULL, "remount / read-only");
	return upper;
}

