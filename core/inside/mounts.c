/*
 * mounts: the run's mount view, built by init in its own mount namespace.
 * First what no request decides (mounts_build_static: the root, a tmpfs of
 * the run's own with the read-only binds, the neutral files, /dev, /proc, the
 * cgroup view), which a worker may do
 * ahead of the request; then the request's part (mounts_build_request: the
 * writable tmpfs, /sandbox over the language directory, pivot_root).  Every
 * step that fails ends init with its name (init_fail).  All of it vanishes
 * with the mount namespace: nothing to unmount or delete afterwards.
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


#include "api/config.h"
#include "inside/inside.h"
#include "inside/neutral.h"
#include "util/util.h"

#define SHM_SIZE "64m"

/* The new root: read-only binds of these host paths (symlinks are copied as
 * symlinks, missing paths skipped).  Everything else of the host is absent. */
const char *const root_allow[] = {
	"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};
const size_t root_allow_n = N(root_allow);

/* Mount points and directories of a run's root, made by init in its tmpfs. */
static const char *const root_dirs[] = {
	"dev", "proc", "tmp", "sandbox", "sys", "sys/fs", "sys/fs/cgroup", ".old",
};

/* Host files inside the allowlist that are the service's own: hidden under
 * an empty file.  Absent ones are skipped. */
static const char *const root_masked[] = {
	"/etc/default/gaol", "/etc/gaol",
};

/* /proc entries that tune or poke the kernel: bound read-only over
 * themselves.  Absent ones are skipped. */
static const char *const proc_readonly[] = {
	"sys", "sysrq-trigger", "irq", "bus", "fs",
};

/* /proc entries that leak host information: /dev/null on top. */
static const char *const proc_masked[] = {
	"kcore", "keys", "timer_list", "sched_debug", "kallsyms",
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

static void bind_ro(const struct plan *p, const char *src, const char *dst,
		    const char *step)
{
	mount_or_fail(p, src, dst, NULL, MS_BIND, NULL, step);
	mount_or_fail(p, NULL, dst, NULL,
		       MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
		       NULL, step);
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
		write_file(p, wfd, p->spec->files[i].name, p->spec->files[i].data,
			   p->spec->files[i].len, uid, 0644);
	/* A judged program's input file: root's, read-only to the program. */
	if (p->spec->input_file)
		write_file(p, ufd, p->spec->input_file, p->spec->stdin_data,
			   p->spec->stdin_len, 0, 0444);
	close(wfd);
	*scratch_fd = sfd;
	return ufd;
}

static void build_dev(const struct plan *p, const char *dev)
{
	char path[PATH_MAX];
	mount_or_fail(p, "tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC,
		       "size=64k,nr_inodes=64,mode=0755", "mount /dev");
	int dfd = open(dev, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		init_fail(p, "open /dev");
	for (size_t i = 0; i < N(dev_nodes); i++) {
		if (mknodat(dfd, dev_nodes[i].name, S_IFCHR | 0666,
			    makedev(dev_nodes[i].major, dev_nodes[i].minor)) < 0 ||
		    fchmodat(dfd, dev_nodes[i].name, 0666, 0) < 0)
			init_fail(p, "mknod /dev");
	}
	for (size_t i = 0; i < N(dev_links); i++)
		if (symlinkat(dev_links[i].target, dfd, dev_links[i].name) < 0)
			init_fail(p, "symlink /dev");
	if (mkdirat(dfd, "shm", 01777) < 0 || fchmodat(dfd, "shm", 01777, 0) < 0)
		init_fail(p, "mkdir /dev/shm");
	close(dfd);
	pathcat(path, sizeof(path), dev, "/shm");
	mount_or_fail(p, "tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		       "size=" SHM_SIZE ",mode=1777", "mount /dev/shm");
	mount_or_fail(p, NULL, dev, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID |
		       MS_NOEXEC, "size=64k,nr_inodes=64,mode=0755", "remount /dev");
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
		if (access(path, F_OK) == 0)
			bind_ro(p, path, path, "mask /proc");
	}
	for (size_t i = 0; i < N(proc_masked); i++) {
		snprintf(path, sizeof(path), "%s/%s", proc, proc_masked[i]);
		if (access(path, F_OK) == 0)
			mount_or_fail(p, null, path, NULL, MS_BIND, NULL,
				       "mask /proc");
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

/* The skeleton of a run's root, in the fresh tmpfs at root: empty mount
 * points and the allowlist's symlinks.  -1 with errno. */
static int fill_root(const struct slot *s, const char *root)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < N(root_dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, root_dirs[i]);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -1;
	}
	for (size_t i = 0; i < N(root_allow); i++) {
		struct stat st;
		char target[PATH_MAX];
		if (lstat(root_allow[i], &st) < 0)
			continue;
		snprintf(path, sizeof(path), "%s%s", root, root_allow[i]);
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(root_allow[i], target, sizeof(target) - 1);
			if (n < 0)
				return -1;
			target[n] = 0;
			if (symlink(target, path) < 0)
				return -1;
		} else if (S_ISDIR(st.st_mode) && mkdir(path, 0755) < 0 && errno != EEXIST) {
			return -1;
		}
	}
	/* Mount points of RUN_ROOT_EXTRA (under a bound directory they exist
	 * already, in the host's tree, once it is bound). */
	for (size_t i = 0; i < s->cfg->n_root_extra; i++) {
		snprintf(path, sizeof(path), "%s%s", root, s->cfg->root_extra[i]);
		if (mkdir_p(path, 0755) < 0)
			return -1;
	}
	for (int i = 0; i < s->cg.n_hierarchies; i++) {
		snprintf(path, sizeof(path), "%s/sys/fs/cgroup/%s", root, s->cg.hierarchy[i]);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -1;
	}
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

/* What would name the host: its service configuration, /usr/local, its
 * identity files and boot's details (neutral.h), each under a file of the
 * run's own tmpfs at ids. */
static void bind_neutral(const struct plan *p, const char *root, const char *ids)
{
	char src[PATH_MAX], path[PATH_MAX];

	mount_or_fail(p, "tmpfs", ids, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		       "size=64k,nr_inodes=64,mode=0755", "mount neutral files");
	int dfd = open(ids, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || neutral_write(dfd, p->slot->uid) < 0)
		init_fail(p, "write neutral files");
	close(dfd);
	for (size_t i = 0; i < N(root_masked); i++) {
		if (access(root_masked[i], F_OK) < 0)
			continue;
		snprintf(src, sizeof(src), "%s/%s", ids, NEUTRAL_EMPTY_FILE);
		pathcat(path, sizeof(path), root, root_masked[i]);
		bind_ro(p, src, path, "mask service config");
	}
	pathcat(path, sizeof(path), root, "/usr/local");
	if (!usr_local_wanted(p->slot->cfg) && access(path, F_OK) == 0) {
		snprintf(src, sizeof(src), "%s/%s", ids, NEUTRAL_EMPTY_DIR);
		bind_ro(p, src, path, "mask /usr/local");
	}
	for (size_t i = 0; i < neutral_n_binds; i++) {
		pathcat(path, sizeof(path), root, neutral_binds[i].target);
		if (!neutral_binds[i].required && access(path, F_OK) < 0)
			continue;
		snprintf(src, sizeof(src), "%s/%s", ids, neutral_binds[i].name);
		bind_ro(p, src, path, "bind neutral files");
	}
}

/* The part of the run's mount view that no request decides: the new root
 * (a tmpfs of the run's own) with its read-only binds, /dev, /proc and the
 * neutral files.  A worker builds it ahead of the request (slot_prepare), or
 * the run does. */
void mounts_build_static(const struct plan *p)
{
	const char *state = p->slot->state_dir;
	char root[PATH_MAX], path[PATH_MAX], null[PATH_MAX];

	mount_or_fail(p, NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL,
		       "make / private");
	pathcat(root, sizeof(root), state, "/root");
	mount_or_fail(p, "tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV,
		       "size=1m,nr_inodes=1024,mode=0755", "mount root");
	if (fill_root(p->slot, root) < 0)
		init_fail(p, "skeleton");
	for (size_t i = 0; i < N(root_allow); i++) {
		struct stat st;
		if (lstat(root_allow[i], &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		pathcat(path, sizeof(path), root, root_allow[i]);
		bind_ro(p, root_allow[i], path, "bind allowlist");
	}
	const struct gaol_config *cfg = p->slot->cfg;
	for (size_t i = 0; i < cfg->n_root_extra; i++) {
		pathcat(path, sizeof(path), root, cfg->root_extra[i]);
		bind_ro(p, cfg->root_extra[i], path, "bind RUN_ROOT_EXTRA");
	}
	pathcat(path, sizeof(path), root, "/dev");
	build_dev(p, path);
	pathcat(path, sizeof(path), root, "/proc");
	pathcat(null, sizeof(null), root, "/dev/null");
	build_proc(p, path, null);
	pathcat(path, sizeof(path), state, "/ids");
	bind_neutral(p, root, path);
	mount_cgroup_view(p, root);
	if (sethostname("gaol", 4) < 0)
		init_fail(p, "sethostname");
}

/* The request's part: its writable layers, /sandbox over its language (and
 * build), then pivot_root into the new root.  Returns the upper layer's fd;
 * *scratch_fd is the writable tmpfs's root. */
int mounts_build_request(const struct plan *p, int *scratch_fd)
{
	const char *state = p->slot->state_dir;
	char root[PATH_MAX], path[PATH_MAX], scratch[PATH_MAX], tmp[PATH_MAX];

	pathcat(root, sizeof(root), state, "/root");
	pathcat(scratch, sizeof(scratch), state, "/scratch");
	int upper = build_scratch(p, scratch, scratch_fd);
	/* The overlays' layers are named relative to the scratch tmpfs (symlinks
	 * to the language directory and the build), so that mountinfo shows
	 * "lowerdir=build:lang,upperdir=upper", no host path. */
	const struct sandbox_spec *spec = p->spec;
	if (fchdir(*scratch_fd) < 0 || symlink(spec->lang->dir, "lang") < 0 ||
	    (spec->lower && symlink(spec->lower, "build") < 0))
		init_fail(p, "overlay layer names");
	pathcat(path, sizeof(path), root, "/sandbox");
	mount_or_fail(p, "overlay", path, "overlay", MS_NOSUID | MS_NODEV,
		       p->overlay_opts, "mount /sandbox overlay");
	build_cache_overlays(p, root);
	/* /proc/meminfo: the run's own limit, not the host's memory. */
	if (neutral_meminfo(*scratch_fd, "meminfo", spec->mem_max ? spec->mem_max
			    : spec->lang->mem_max) < 0)
		init_fail(p, "write meminfo");
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

