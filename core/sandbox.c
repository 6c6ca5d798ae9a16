/*
 * One run in a fresh sandbox.
 *
 * Three processes take part, and each holds only what it needs:
 *
 *   worker   the FastCGI worker (root, host namespaces).  It prepares every
 *            string and table before cloning, then only supervises: it reads
 *            the payload's stdout and stderr with poll(), counting bytes as
 *            they cross, and holds the deadline.  To end a run it kills one
 *            process, the run's init; the kernel does the rest.
 *   init     PID 1 of the run's new PID namespace, still root, in new mount,
 *            IPC and UTS namespaces and the slot's loopback-only network
 *            namespace.  It builds the mount view (build_root), forks the
 *            payload, reaps everything that is reparented to it, and when
 *            the payload exits reports its status on the report pipe and
 *            exits.  The death of a PID namespace's
 *            init kills every process left in it, so nothing a payload starts
 *            (daemons, setsid, double forks) outlives its run.  init dies with
 *            the worker (PR_SET_PDEATHSIG).
 *   payload  joins the slot's cgroup (v1), unshares a cgroup namespace, drops
 *            to the slot UID with no groups, no capabilities and
 *            no_new_privs, closes every other fd, installs seccomp last and
 *            execs /bin/sh -c <command> in /sandbox.
 *
 * Every setup step that fails is reported as "sandbox: <step> errno=N" on
 * the report pipe before any user code runs, and the run is refused.  All the
 * run's mounts live in its own mount namespace and vanish with it: there is
 * nothing to unmount or delete afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

#include "config.h"
#include "lang.h"
#include "sandbox.h"

#define RUN_PIDS_MAX 512
#define RUN_NOFILE 256
#define RUN_NPROC 256
#define SANDBOX_PATH "/usr/bin:/bin"
#define SHM_SIZE "64m"

/* The new root: read-only binds of these host paths (symlinks are copied as
 * symlinks, missing paths skipped).  Everything else of the host is absent. */
static const char *const root_allow[] = {
	"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};

/* Mount points and directories of the skeleton root, made once per slot. */
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

enum { REPORT_FAULT = 1, REPORT_EXIT = 2 };

struct report {
	int kind;
	int status;              /* REPORT_EXIT: the payload's wait status */
	int err;                 /* REPORT_FAULT: errno */
	char step[64];
};

/* Everything a run's children need, computed by the worker before clone so
 * that they only make system calls. */
struct plan {
	const struct slot *slot;
	const struct sandbox_spec *spec;
	int out[2], err[2], report[2];
	char overlay_opts[8192];
	char scratch_opts[64];
	char *argv[4];
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* ---- slot preparation (once per worker) ---- */

static int mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, mode) < 0 && errno != EEXIST)
		return -1;
	return chmod(tmp, mode);
}

static int write_whole(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	size_t len = strlen(text);
	ssize_t n = write(fd, text, len);
	int e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)len ? 0 : -1;
}

/* The slot's identity as programs look it up: a passwd and a group file with
 * the slot UID as "gaol", home /sandbox, bound over the host's. */
static int make_identity(struct slot *s, char *path, size_t len)
{
	char text[512];
	snprintf(path, len, "%s/passwd", s->state_dir);
	snprintf(text, sizeof(text),
		 "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
		 "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
		 "gaol:x:%u:%u:gaol sandbox:/sandbox:/bin/sh\n",
		 (unsigned)s->uid, (unsigned)s->uid);
	if (write_whole(path, text) < 0)
		return -1;
	snprintf(path, len, "%s/group", s->state_dir);
	snprintf(text, sizeof(text), "root:x:0:\nnogroup:x:65534:\ngaol:x:%u:\n",
		 (unsigned)s->uid);
	if (write_whole(path, text) < 0)
		return -1;
	snprintf(path, len, "%s/empty", s->state_dir);
	return write_whole(path, "");
}

/* The skeleton root on the host: empty mount points and the allowlist's
 * symlinks.  It is only ever seen through a read-only bind. */
static int make_skeleton(struct slot *s, char *err, size_t errlen)
{
	char path[PATH_MAX];
	const char *step = path;

	snprintf(path, sizeof(path), "%s/root", s->state_dir);
	if (mkdir_p(path, 0755) < 0)
		goto fail;
	for (size_t i = 0; i < N(root_dirs); i++) {
		snprintf(path, sizeof(path), "%s/root/%s", s->state_dir, root_dirs[i]);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			goto fail;
	}
	for (size_t i = 0; i < N(root_allow); i++) {
		struct stat st;
		char target[PATH_MAX];
		if (lstat(root_allow[i], &st) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/root%s", s->state_dir, root_allow[i]);
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(root_allow[i], target, sizeof(target) - 1);
			if (n < 0)
				goto fail;
			target[n] = 0;
			unlink(path);
			rmdir(path);
			if (symlink(target, path) < 0)
				goto fail;
		} else if (S_ISDIR(st.st_mode)) {
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				goto fail;
		}
	}
	for (int i = 0; i < s->cg.n_procs; i++) {
		snprintf(path, sizeof(path), "%s/root/sys/fs/cgroup/%s", s->state_dir,
			 s->cg.hierarchy[i]);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			goto fail;
	}
	snprintf(path, sizeof(path), "%s/scratch", s->state_dir);
	if (mkdir_p(path, 0700) < 0)
		goto fail;
	if (make_identity(s, path, sizeof(path)) < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "sandbox: skeleton %s errno=%d", step, errno);
	return -1;
}

static int make_netns(struct slot *s, char *err, size_t errlen);

static int build_env(struct slot *s, const struct gaol_config *cfg)
{
	static const char *const passed[] = { "LANG", "LC_ALL", "TZ" };
	size_t n = 0, cap = 8 + N(passed) + cfg->n_env_allow;
	char **env = calloc(cap, sizeof(*env));
	if (!env)
		return -1;
	if (asprintf(&env[n++], "PATH=%s", SANDBOX_PATH) < 0 ||
	    asprintf(&env[n++], "HOME=/sandbox") < 0)
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

int slot_init(struct slot *slot, const struct gaol_config *cfg, unsigned index,
	      char *err, size_t errlen)
{
	memset(slot, 0, sizeof(*slot));
	slot->netns_fd = -1;
	slot->index = index;
	slot->uid = cfg->uid_base + index;
	slot->cfg = cfg;
	/* A slot is named by its UID, in the state directory and the cgroup
	 * tree alike: two services with different RUN_UID_BASE never meet. */
	snprintf(slot->state_dir, sizeof(slot->state_dir), "%s/uid%u",
		 cfg->state_dir, (unsigned)slot->uid);
	if (mkdir_p(cfg->state_dir, 0711) < 0) {
		snprintf(err, errlen, "sandbox: state dir %s errno=%d",
			 cfg->state_dir, errno);
		return -1;
	}
	if (cgroup_slot_setup(&slot->cg, slot->uid, err, errlen) < 0)
		return -1;
	if (make_skeleton(slot, err, errlen) < 0)
		return -1;
	if (build_env(slot, cfg) < 0) {
		snprintf(err, errlen, "sandbox: environment errno=%d", errno);
		return -1;
	}
	if (seccomp_policy_build(&slot->seccomp, err, errlen) < 0)
		return -1;
	return make_netns(slot, err, errlen);
}

void slot_free(struct slot *slot)
{
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
	cgroup_slot_close(&slot->cg);
}

/* A network namespace with only a loopback, made once per slot and entered
 * by each run: nothing in it outlives a run (its sockets die with their
 * processes, and the payload has no capability to change routes, addresses
 * or sysctls), and a fresh one per run costs half a millisecond. */
static int make_netns(struct slot *s, char *err, size_t errlen)
{
	const char *step = "open host netns";
	int host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (host < 0)
		goto fail;
	step = "unshare net";
	if (unshare(CLONE_NEWNET) < 0)
		goto fail;
	step = "loopback up";
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = { 0 };
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		goto fail;
	close(fd);
	step = "open slot netns";
	s->netns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (s->netns_fd < 0)
		goto fail;
	step = "return to host netns";
	if (setns(host, CLONE_NEWNET) < 0)
		goto fail;
	close(host);
	return 0;
fail:
	snprintf(err, errlen, "sandbox: %s errno=%d", step, errno);
	return -1;
}

/* ---- inside the run: init and payload ---- */

static void report_write(int fd, const struct report *r)
{
	ssize_t n;
	do
		n = write(fd, r, sizeof(*r));
	while (n < 0 && errno == EINTR);
}

/* A setup step failed: say which, and stop before any user code runs. */
static __attribute__((noreturn)) void fault(const struct plan *p, const char *step)
{
	struct report r = { .kind = REPORT_FAULT, .err = errno };
	snprintf(r.step, sizeof(r.step), "%s", step);
	report_write(p->report[1], &r);
	_exit(127);
}

static void pathcat(char *out, size_t len, const char *a, const char *b)
{
	snprintf(out, len, "%s%s", a, b);
}

static void mount_or_fault(const struct plan *p, const char *src, const char *dst,
			   const char *type, unsigned long flags, const char *data,
			   const char *step)
{
	if (mount(src, dst, type, flags, data) < 0)
		fault(p, step);
}

static void bind_ro(const struct plan *p, const char *src, const char *dst,
		    const char *step)
{
	mount_or_fault(p, src, dst, NULL, MS_BIND, NULL, step);
	mount_or_fault(p, NULL, dst, NULL,
		       MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
		       NULL, step);
}

static void write_file(const struct plan *p, int dirfd, const char *name,
		       const char *data, size_t len, uid_t uid)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
			O_NOFOLLOW, 0644);
	if (fd < 0)
		fault(p, "write request file");
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fault(p, "write request file");
		}
		data += n;
		len -= (size_t)n;
	}
	if (fchown(fd, uid, uid) < 0)
		fault(p, "chown request file");
	close(fd);
}

/* The writable layers: one tmpfs sized per language holds the overlay's
 * upper and work directories and /tmp, so one cap bounds every write. */
static void build_scratch(const struct plan *p, const char *scratch)
{
	const struct lang *lang = p->spec->lang;
	uid_t uid = p->slot->uid;

	mount_or_fault(p, "tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV,
		       p->scratch_opts, "mount scratch tmpfs");
	int sfd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0)
		fault(p, "open scratch");
	if (mkdirat(sfd, "upper", 0755) < 0 || fchownat(sfd, "upper", uid, uid, 0) < 0)
		fault(p, "mkdir upper");
	if (mkdirat(sfd, "work", 0700) < 0)
		fault(p, "mkdir work");
	if (mkdirat(sfd, "tmp", 0777) < 0 || fchmodat(sfd, "tmp", 01777, 0) < 0)
		fault(p, "mkdir tmp");
	int ufd = openat(sfd, "upper", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ufd < 0)
		fault(p, "open upper");
	/* The language's directories again, owned by the slot: the payload may
	 * create files anywhere in /sandbox, the template stays read-only. */
	for (char **d = lang->subdirs; d && *d; d++)
		if (mkdirat(ufd, *d, 0755) < 0 || fchownat(ufd, *d, uid, uid, 0) < 0)
			fault(p, "mkdir skeleton");
	if (mkdirat(ufd, lang->workdir, 0755) < 0 && errno != EEXIST)
		fault(p, "mkdir workdir");
	if (fchownat(ufd, lang->workdir, uid, uid, 0) < 0)
		fault(p, "chown workdir");
	int wfd = openat(ufd, lang->workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (wfd < 0)
		fault(p, "open workdir");
	for (size_t i = 0; i < p->spec->n_files; i++)
		write_file(p, wfd, p->spec->files[i].name, p->spec->files[i].data,
			   p->spec->files[i].len, uid);
	close(wfd);
	close(ufd);
	close(sfd);
}

static void build_dev(const struct plan *p, const char *dev)
{
	char path[PATH_MAX];
	mount_or_fault(p, "tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC,
		       "size=64k,nr_inodes=64,mode=0755", "mount /dev");
	int dfd = open(dev, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		fault(p, "open /dev");
	for (size_t i = 0; i < N(dev_nodes); i++) {
		if (mknodat(dfd, dev_nodes[i].name, S_IFCHR | 0666,
			    makedev(dev_nodes[i].major, dev_nodes[i].minor)) < 0 ||
		    fchmodat(dfd, dev_nodes[i].name, 0666, 0) < 0)
			fault(p, "mknod /dev");
	}
	for (size_t i = 0; i < N(dev_links); i++)
		if (symlinkat(dev_links[i].target, dfd, dev_links[i].name) < 0)
			fault(p, "symlink /dev");
	if (mkdirat(dfd, "shm", 01777) < 0 || fchmodat(dfd, "shm", 01777, 0) < 0)
		fault(p, "mkdir /dev/shm");
	close(dfd);
	pathcat(path, sizeof(path), dev, "/shm");
	mount_or_fault(p, "tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		       "size=" SHM_SIZE ",mode=1777", "mount /dev/shm");
	mount_or_fault(p, NULL, dev, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID |
		       MS_NOEXEC, "size=64k,nr_inodes=64,mode=0755", "remount /dev");
}

static void build_proc(const struct plan *p, const char *proc)
{
	char path[PATH_MAX];
	mount_or_fault(p, "proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		       NULL, "mount /proc");
	for (size_t i = 0; i < N(proc_readonly); i++) {
		snprintf(path, sizeof(path), "%s/%s", proc, proc_readonly[i]);
		if (access(path, F_OK) == 0)
			bind_ro(p, path, path, "mask /proc");
	}
	for (size_t i = 0; i < N(proc_masked); i++) {
		snprintf(path, sizeof(path), "%s/%s", proc, proc_masked[i]);
		if (access(path, F_OK) == 0)
			mount_or_fault(p, "/dev/null", path, NULL, MS_BIND, NULL,
				       "mask /proc");
	}
}

/* The run's mount view (SPEC section 5), then pivot_root into it. */
static void build_root(const struct plan *p)
{
	const char *state = p->slot->state_dir;
	char root[PATH_MAX], path[PATH_MAX], scratch[PATH_MAX];

	mount_or_fault(p, NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL,
		       "make / private");
	pathcat(root, sizeof(root), state, "/root");
	pathcat(scratch, sizeof(scratch), state, "/scratch");
	mount_or_fault(p, root, root, NULL, MS_BIND, NULL, "bind root");
	for (size_t i = 0; i < N(root_allow); i++) {
		struct stat st;
		if (lstat(root_allow[i], &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		pathcat(path, sizeof(path), root, root_allow[i]);
		bind_ro(p, root_allow[i], path, "bind allowlist");
	}
	static const char *const identity[] = { "passwd", "group" };
	for (size_t i = 0; i < N(identity); i++) {
		char src[PATH_MAX];
		snprintf(src, sizeof(src), "%s/%s", state, identity[i]);
		snprintf(path, sizeof(path), "%s/etc/%s", root, identity[i]);
		bind_ro(p, src, path, "bind identity");
	}
	for (size_t i = 0; i < N(root_masked); i++) {
		char src[PATH_MAX];
		if (access(root_masked[i], F_OK) < 0)
			continue;
		snprintf(src, sizeof(src), "%s/empty", state);
		pathcat(path, sizeof(path), root, root_masked[i]);
		bind_ro(p, src, path, "mask service config");
	}
	build_scratch(p, scratch);
	pathcat(path, sizeof(path), root, "/sandbox");
	mount_or_fault(p, "overlay", path, "overlay", MS_NOSUID | MS_NODEV,
		       p->overlay_opts, "mount /sandbox overlay");
	char tmp[PATH_MAX];
	pathcat(tmp, sizeof(tmp), scratch, "/tmp");
	pathcat(path, sizeof(path), root, "/tmp");
	mount_or_fault(p, tmp, path, NULL, MS_BIND, NULL, "bind /tmp");
	pathcat(path, sizeof(path), root, "/dev");
	build_dev(p, path);
	pathcat(path, sizeof(path), root, "/proc");
	build_proc(p, path);
	if (sethostname("gaol", 4) < 0)
		fault(p, "sethostname");

	if (chdir(root) < 0)
		fault(p, "chdir root");
	if (syscall(SYS_pivot_root, ".", ".old") < 0)
		fault(p, "pivot_root");
	if (chdir("/") < 0)
		fault(p, "chdir /");
	if (umount2("/.old", MNT_DETACH) < 0)
		fault(p, "detach old root");
	mount_or_fault(p, NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
		       MS_NOSUID | MS_NODEV, NULL, "remount / read-only");
}

static void set_limit(const struct plan *p, int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { soft, hard };
	if (setrlimit(resource, &rl) < 0)
		fault(p, "setrlimit");
}

/* The run's own cgroup, read-only at /sys/fs/cgroup, rooted at the slot by
 * the cgroup namespace just entered: the JVM, Go and .NET size their heaps
 * and thread pools from the run's limits, not the host's. */
static void mount_cgroup_view(const struct plan *p)
{
	const struct slot_cgroup *cg = &p->slot->cg;
	unsigned long ro = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
	char path[128];
	if (cg->version == 2) {
		mount_or_fault(p, "cgroup2", "/sys/fs/cgroup", "cgroup2", ro, NULL,
			       "mount cgroup view");
		return;
	}
	for (int i = 0; i < cg->n_procs; i++) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", cg->hierarchy[i]);
		mount_or_fault(p, "cgroup", path, "cgroup", ro, cg->hierarchy[i],
			       "mount cgroup view");
	}
}

static __attribute__((noreturn)) void payload_main(const struct plan *p)
{
	const struct slot *s = p->slot;
	const struct lang *lang = p->spec->lang;
	uid_t uid = s->uid;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (s->cg.version == 1 && cgroup_slot_join(&s->cg) < 0)
		fault(p, "join cgroup");
	if (unshare(CLONE_NEWCGROUP) < 0)
		fault(p, "unshare cgroup");
	mount_cgroup_view(p);

	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(p->out[1], 1) < 0 ||
	    dup2(p->err[1], 2) < 0)
		fault(p, "stdio");

	long cpu_s = p->spec->timeout_ms / 1000 + 1;
	set_limit(p, RLIMIT_CORE, 0, 0);
	set_limit(p, RLIMIT_NOFILE, RUN_NOFILE, RUN_NOFILE);
	set_limit(p, RLIMIT_NPROC, RUN_NPROC, RUN_NPROC);
	set_limit(p, RLIMIT_FSIZE, lang->tmp_size, lang->tmp_size);
	set_limit(p, RLIMIT_CPU, (rlim_t)cpu_s, (rlim_t)cpu_s + 1);
	if (s->cfg->memory_max)
		set_limit(p, RLIMIT_AS, s->cfg->memory_max, s->cfg->memory_max);

	if (setgroups(0, NULL) < 0)
		fault(p, "setgroups");
	if (setresgid(uid, uid, uid) < 0)
		fault(p, "setresgid");
	if (setresuid(uid, uid, uid) < 0)
		fault(p, "setresuid");
	/* The drop is verified, not assumed. */
	if (setuid(0) == 0 || setgid(0) == 0 || geteuid() == 0 || getegid() == 0) {
		errno = EPERM;
		fault(p, "privilege drop check");
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fault(p, "no_new_privs");
	int rfd = p->report[1];
	if (rfd > 3 && syscall(SYS_close_range, 3, rfd - 1, 0) < 0)
		fault(p, "close fds");
	if (syscall(SYS_close_range, rfd + 1, ~0U, 0) < 0)
		fault(p, "close fds");
	if (chdir("/sandbox") < 0)
		fault(p, "chdir /sandbox");
	errno = -seccomp_policy_install(&s->seccomp);
	if (errno)
		fault(p, "seccomp");
	execve("/bin/sh", p->argv, s->envp);
	fault(p, "execve /bin/sh");
}

static __attribute__((noreturn)) void init_main(const struct plan *p)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setns(p->slot->netns_fd, CLONE_NEWNET) < 0)
		fault(p, "enter netns");
	close(p->out[0]);
	close(p->err[0]);
	close(p->report[0]);
	build_root(p);

	pid_t payload = fork();
	if (payload < 0)
		fault(p, "fork payload");
	if (payload == 0)
		payload_main(p);
	close(p->out[1]);
	close(p->err[1]);
	for (;;) {
		int status;
		pid_t w = waitpid(-1, &status, __WALL);
		if (w == payload) {
			struct report r = { .kind = REPORT_EXIT, .status = status };
			report_write(p->report[1], &r);
			_exit(0);   /* and the kernel kills whatever is left */
		}
		if (w < 0 && errno != EINTR)
			_exit(1);
	}
}

/* ---- the worker's side ---- */

static pid_t spawn_init(struct slot *s, const struct plan *p)
{
	unsigned long flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
			      CLONE_NEWUTS;
	pid_t pid;
	if (s->cg.version == 2) {
		struct clone_args args = {
			.flags = flags | CLONE_INTO_CGROUP,
			.exit_signal = SIGCHLD,
			.cgroup = (uint64_t)s->cg.dir_fd[0],
		};
		pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	} else {
		pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	}
	if (pid == 0)
		init_main(p);
	return pid;
}

struct stream {
	int fd;
	char **buf;
	size_t *len;
	size_t cap;
	int which;
};

/* Appends what is readable to a stream's buffer.  Returns 0 at EOF, 1 when
 * more may come, -1 when the output cap was crossed. */
static int drain(struct stream *st, size_t output_max)
{
	char chunk[65536];
	ssize_t n = read(st->fd, chunk, sizeof(chunk));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	size_t take = (size_t)n;
	int over = 0;
	if (output_max && *st->len + take > output_max) {
		take = output_max - *st->len;
		over = 1;
	}
	if (*st->len + take + 1 > st->cap) {
		size_t cap = st->cap ? st->cap : 4096;
		while (cap < *st->len + take + 1)
			cap *= 2;
		char *nb = realloc(*st->buf, cap);
		if (!nb)
			return -1;
		*st->buf = nb;
		st->cap = cap;
	}
	memcpy(*st->buf + *st->len, chunk, take);
	*st->len += take;
	(*st->buf)[*st->len] = 0;
	return over ? -1 : 1;
}

static void supervise(pid_t init, const struct plan *p, struct sandbox_result *res,
		      long t0, bool *have_status)
{
	struct stream streams[2] = {
		{ p->out[0], &res->out, &res->out_len, 0, STREAM_STDOUT },
		{ p->err[0], &res->err, &res->err_len, 0, STREAM_STDERR },
	};
	struct pollfd pfd[3] = {
		{ .fd = p->out[0], .events = POLLIN },
		{ .fd = p->err[0], .events = POLLIN },
		{ .fd = p->report[0], .events = POLLIN },
	};
	long deadline = t0 + p->spec->timeout_ms;

	while (pfd[0].fd >= 0 || pfd[1].fd >= 0 || pfd[2].fd >= 0) {
		long left = deadline - now_ms();
		if (left <= 0) {
			res->timed_out = res->killed = true;
			kill(init, SIGKILL);
			return;
		}
		int n = poll(pfd, 3, (int)(left > INT_MAX ? INT_MAX : left));
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2 && n > 0; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			int r = drain(&streams[i], p->spec->output_max);
			if (r == 0)
				pfd[i].fd = -1;
			if (r < 0) {
				res->output_exceeded = streams[i].which;
				res->killed = true;
				kill(init, SIGKILL);
				return;
			}
		}
		if (n > 0 && pfd[2].fd >= 0 && pfd[2].revents) {
			struct report r;
			ssize_t got = read(pfd[2].fd, &r, sizeof(r));
			if (got == (ssize_t)sizeof(r) && r.kind == REPORT_FAULT &&
			    !res->fault[0]) {
				snprintf(res->fault, sizeof(res->fault),
					 "sandbox: %s errno=%d", r.step, r.err);
			} else if (got == (ssize_t)sizeof(r) && r.kind == REPORT_EXIT) {
				res->wait_status = r.status;
				*have_status = true;
			} else if (got <= 0 && !(got < 0 && errno == EINTR)) {
				pfd[2].fd = -1;
			}
		}
	}
}

static int plan_run(struct plan *p, struct slot *s, const struct sandbox_spec *spec,
		    char *err, size_t errlen)
{
	const struct lang *lang = spec->lang;
	memset(p, 0, sizeof(*p));
	p->slot = s;
	p->spec = spec;
	p->out[0] = p->out[1] = p->err[0] = p->err[1] = -1;
	p->report[0] = p->report[1] = -1;
	int n = snprintf(p->overlay_opts, sizeof(p->overlay_opts),
			 "lowerdir=%s,upperdir=%s/scratch/upper,workdir=%s/scratch/work",
			 lang->dir, s->state_dir, s->state_dir);
	if (n < 0 || (size_t)n >= sizeof(p->overlay_opts) ||
	    strpbrk(lang->dir, ",:")) {
		snprintf(err, errlen, "sandbox: overlay options errno=%d", ENAMETOOLONG);
		return -1;
	}
	snprintf(p->scratch_opts, sizeof(p->scratch_opts), "size=%llu,mode=0755",
		 lang->tmp_size);
	p->argv[0] = "sh";
	p->argv[1] = "-c";
	p->argv[2] = (char *)spec->command;
	p->argv[3] = NULL;
	if (pipe2(p->out, O_CLOEXEC) < 0 || pipe2(p->err, O_CLOEXEC) < 0 ||
	    pipe2(p->report, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "sandbox: pipe errno=%d", errno);
		return -1;
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void plan_close(struct plan *p)
{
	for (int i = 0; i < 2; i++) {
		close_fd(&p->out[i]);
		close_fd(&p->err[i]);
		close_fd(&p->report[i]);
	}
}

int sandbox_run(struct slot *slot, const struct sandbox_spec *spec,
		struct sandbox_result *res)
{
	struct plan plan;
	memset(res, 0, sizeof(*res));
	res->cpu_ms = res->memory_peak_kb = -1;

	if (plan_run(&plan, slot, spec, res->fault, sizeof(res->fault)) < 0) {
		plan_close(&plan);
		return -1;
	}
	if (cgroup_slot_begin(&slot->cg, spec->lang->mem_max, RUN_PIDS_MAX,
			      res->fault, sizeof(res->fault)) < 0) {
		plan_close(&plan);
		return -1;
	}
	long t0 = now_ms();
	pid_t init = spawn_init(slot, &plan);
	if (init < 0) {
		snprintf(res->fault, sizeof(res->fault), "sandbox: clone errno=%d", errno);
		plan_close(&plan);
		return -1;
	}
	close_fd(&plan.out[1]);
	close_fd(&plan.err[1]);
	close_fd(&plan.report[1]);

	bool have_status = false;
	supervise(init, &plan, res, t0, &have_status);
	int status;
	while (waitpid(init, &status, 0) < 0 && errno == EINTR)
		;
	res->wall_ms = now_ms() - t0;
	plan_close(&plan);

	struct cgroup_usage u;
	cgroup_slot_read(&slot->cg, &u);
	res->cpu_ms = u.cpu_ms;
	res->memory_peak_kb = u.memory_peak_kb;
	res->oom_killed = u.oom_killed;

	/* Faults are only reported before execve (the report pipe is
	 * close-on-exec), so one means no user code ran. */
	if (res->fault[0])
		return -1;
	if (!have_status && !res->killed) {
		snprintf(res->fault, sizeof(res->fault),
			 "sandbox: init died status=%d", status);
		return -1;
	}
	res->ran = true;
	return 0;
}

void sandbox_result_free(struct sandbox_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
	res->out_len = res->err_len = 0;
}
