/*
 * One run in a fresh sandbox.
 *
 * Three processes take part, and each holds only what it needs:
 *
 *   worker   the FastCGI worker (root, host namespaces).  It prepares every
 *            string and table before cloning, then only supervises: it feeds
 *            stdin, reads the payload's stdout and stderr with poll(),
 *            counting bytes as they cross, and holds the deadlines.  To end a
 *            run it kills one process, the run's init; the kernel does the
 *            rest.
 *   init     PID 1 of the run's new PID namespace, still root, in new mount,
 *            IPC, UTS and cgroup namespaces, a network namespace of its own
 *            (only a loopback) and the slot's cgroup (cloned into it on v2,
 *            joined first thing on v1).  It builds the mount view: first
 *            what no request decides (build_static: the read-only root,
 *            /dev, /proc, the cgroup view), then the request's part
 *            (build_request: the writable tmpfs, /sandbox over the language
 *            directory, pivot_root).  It starts the payload and reaps
 *            everything reparented to it.  When the payload exits it kills
 *            and reaps whatever is left (nothing a payload starts - daemons,
 *            setsid, double forks - outlives its run), reports the status
 *            on the report pipe, empties the run's tmpfs and exits.  init
 *            dies with the worker (PR_SET_PDEATHSIG), and the death of a PID
 *            namespace's init kills every process left in it.  The worker
 *            answers at the report, and reaps init and lets the mount
 *            namespace go while idle, before the slot's next run: the
 *            teardown is nobody's wait.
 *   payload  born in the slot's cgroup (never migrated), drops to the slot
 *            UID with no groups, no capabilities and no_new_privs, closes
 *            every other fd, installs seccomp last and execs
 *            /bin/sh -c <command> in /sandbox.
 *
 * A worker builds its next run's sandbox ahead of the request, while idle
 * (slot_prepare): init is cloned and does build_static, then waits on the go
 * pipe; the request arrives there (encode_request), and init goes on with
 * build_request as if it had never waited.  The sandbox is as fresh as one
 * built on demand and serves exactly one run; if it is gone when the request
 * comes, the run builds its own.
 *
 * Every setup step that fails is reported as "sandbox: <step> errno=N" on
 * the report pipe before any user code runs, and the run is refused.  All the
 * run's mounts live in its own mount namespace and vanish with it: there is
 * nothing to unmount or delete afterwards.
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

#include "config.h"
#include "lang.h"
#include "neutral.h"
#include "sandbox.h"
#include "tree.h"

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
	long maxrss_kb;          /* REPORT_EXIT: largest RSS in its process tree */
	int err;                 /* REPORT_FAULT: errno */
	char step[64];
};

/* Everything a run's children need, computed before they need it so that
 * they only make system calls: by the worker before clone, or, for a sandbox
 * built ahead of its request, by init from the request it is sent. */
struct plan {
	const struct slot *slot;
	const struct sandbox_spec *spec;
	bool ahead;              /* built ahead: the request comes on go */
	int out[2], err[2], report[2];
	int in[2];               /* stdin, when spec->stdin_data */
	int file[2];             /* spec->output_file, streamed back by init */
	int go[2];               /* ahead: the request, worker to init */
	int export_fd;           /* spec->export_dir */
	pid_t init;              /* ahead: the init waiting for its request */
	char overlay_opts[8192];
	char scratch_opts[64];
	char *argv[4];
	/* ahead, in init: the request as received */
	struct sandbox_spec got_spec;
	struct lang got_lang;
	struct sandbox_file *got_files;
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

/* The skeleton of a run's root, in the fresh tmpfs at root: empty mount
 * points and the allowlist's symlinks.  Made by init for each run, so that
 * the root is a tmpfs of the run's own and /proc/self/mountinfo shows no host
 * path for it.  -1 with errno. */
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

/* The slot's mount points on the host: its runs' root, their neutral files
 * (neutral.h) and their writable scratch, each a tmpfs mounted in the run's
 * own mount namespace only. */
static int make_skeleton(struct slot *s, char *err, size_t errlen)
{
	static const char *const dirs[] = { "root", "ids", "scratch" };
	char path[PATH_MAX];

	for (size_t i = 0; i < N(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", s->state_dir, dirs[i]);
		if (mkdir_p(path, i == 0 ? 0755 : 0700) < 0) {
			snprintf(err, errlen, "sandbox: skeleton %s errno=%d", path, errno);
			return -1;
		}
	}
	return 0;
}

static int make_netns(struct slot *s, char *err, size_t errlen);
static void drop_ahead(struct slot *slot);
static void reap_exiting(struct slot *slot);

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
	      unsigned lane, char *err, size_t errlen)
{
	memset(slot, 0, sizeof(*slot));
	slot->ready = true;
	slot->netns_fd = -1;
	slot->exiting_mntns = -1;
	for (int i = 0; i < CG_MAX_CONTROLLERS; i++)
		slot->cg.dir_fd[i] = slot->cg.procs_fd[i] = -1;
	slot->cg.peak_fd = -1;
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
		snprintf(err, errlen, "sandbox: state dir %s errno=%d",
			 cfg->state_dir, errno);
		return -1;
	}
	char cg_name[sizeof(name) + sizeof(cfg->instance) + 1];
	snprintf(cg_name, sizeof(cg_name), "%s/%s", cfg->instance, name);
	if (cgroup_slot_setup(&slot->cg, cg_name, err, errlen) < 0)
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
	if (!slot->ready)
		return;
	drop_ahead(slot);
	reap_exiting(slot);
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
	cgroup_slot_close(&slot->cg);
}

/* A network namespace with only a loopback, one per run: a run's sockets,
 * its TIME_WAIT entries and the loopback's counters must not be seen by the
 * next.  Making one costs half a millisecond, so the worker makes the next
 * run's while it is idle (slot_refresh) and a run only makes its own when
 * that did not happen. */
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
	int ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		goto fail;
	if (s->netns_fd >= 0)
		close(s->netns_fd);
	s->netns_fd = ns;
	s->netns_used = false;
	step = "return to host netns";
	if (setns(host, CLONE_NEWNET) < 0)
		goto fail;
	close(host);
	return 0;
fail:
	snprintf(err, errlen, "sandbox: %s errno=%d", step, errno);
	if (host >= 0)
		close(host);
	return -1;
}

/* Between runs, with nothing in the slot's cgroup: empty it of what the
 * last run left charged (page cache), so that the next run's peak does not
 * depend on it.  Best effort: a slot that could not be emptied still runs,
 * with v1's older report. */
static void settle(const struct slot *slot)
{
	if (cgroup_slot_settle(&slot->cg) < 0)
		fprintf(stderr, "gaol: slot %u: cgroup memory.force_empty errno=%d\n",
			slot->index, errno);
}

int slot_refresh(struct slot *slot, char *err, size_t errlen)
{
	if (!slot->ready || !slot->netns_used)
		return 0;
	/* A run (a judging lane's) ended since the last refresh. */
	if (!slot->ahead)
		settle(slot);
	return make_netns(slot, err, errlen);
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
		       const char *data, size_t len, uid_t uid, mode_t mode)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
			O_NOFOLLOW, mode);
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
	if (fchown(fd, uid, uid) < 0 || fchmod(fd, mode) < 0)
		fault(p, "chown request file");
	close(fd);
}

/* The writable layers: one tmpfs sized per language holds the overlay's
 * upper and work directories and /tmp, so one cap bounds every write. */
static int build_scratch(const struct plan *p, const char *scratch, int *scratch_fd)
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

/* null: the run's own /dev/null (a host one would show the host's devtmpfs,
 * sized by its memory, in /proc/self/mountinfo). */
static void build_proc(const struct plan *p, const char *proc, const char *null)
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
			mount_or_fault(p, null, path, NULL, MS_BIND, NULL,
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
			fault(p, "cache overlay mount point");
		/* Named relative to the scratch tmpfs, init's working
		 * directory: mountinfo shows these names, not host paths. */
		snprintf(lower, sizeof(lower), "cache%zu.lower", i);
		snprintf(up, sizeof(up), "cache%zu", i);
		snprintf(work, sizeof(work), "cache%zu.work", i);
		if (symlink(paths[i], lower) < 0 || mkdir(up, 0755) < 0 ||
		    chown(up, uid, uid) < 0 || mkdir(work, 0700) < 0)
			fault(p, "cache overlay layers");
		snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
			 lower, up, work);
		mount_or_fault(p, "overlay", target, "overlay", MS_NOSUID | MS_NODEV,
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
		mount_or_fault(p, "cgroup2", path, "cgroup2", ro, NULL,
			       "mount cgroup view");
		return;
	}
	for (int i = 0; i < cg->n_hierarchies; i++) {
		snprintf(path, sizeof(path), "%s/sys/fs/cgroup/%s", root, cg->hierarchy[i]);
		mount_or_fault(p, "cgroup", path, "cgroup", ro, cg->hierarchy[i],
			       "mount cgroup view");
	}
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

	mount_or_fault(p, "tmpfs", ids, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		       "size=64k,nr_inodes=64,mode=0755", "mount neutral files");
	int dfd = open(ids, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || neutral_write(dfd, p->slot->uid) < 0)
		fault(p, "write neutral files");
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
static void build_static(const struct plan *p)
{
	const char *state = p->slot->state_dir;
	char root[PATH_MAX], path[PATH_MAX], null[PATH_MAX];

	mount_or_fault(p, NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL,
		       "make / private");
	pathcat(root, sizeof(root), state, "/root");
	mount_or_fault(p, "tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV,
		       "size=1m,nr_inodes=1024,mode=0755", "mount root");
	if (fill_root(p->slot, root) < 0)
		fault(p, "skeleton");
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
		fault(p, "sethostname");
}

/* The request's part: its writable layers, /sandbox over its language (and
 * build), then pivot_root into the new root.  Returns the upper layer's fd;
 * *scratch_fd is the writable tmpfs's root. */
static int build_request(const struct plan *p, int *scratch_fd)
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
		fault(p, "overlay layer names");
	pathcat(path, sizeof(path), root, "/sandbox");
	mount_or_fault(p, "overlay", path, "overlay", MS_NOSUID | MS_NODEV,
		       p->overlay_opts, "mount /sandbox overlay");
	build_cache_overlays(p, root);
	/* /proc/meminfo: the run's own limit, not the host's memory. */
	if (neutral_meminfo(*scratch_fd, "meminfo", spec->mem_max ? spec->mem_max
			    : spec->lang->mem_max) < 0)
		fault(p, "write meminfo");
	pathcat(tmp, sizeof(tmp), scratch, "/meminfo");
	pathcat(path, sizeof(path), root, "/proc/meminfo");
	bind_ro(p, tmp, path, "bind meminfo");
	pathcat(tmp, sizeof(tmp), scratch, "/tmp");
	pathcat(path, sizeof(path), root, "/tmp");
	mount_or_fault(p, tmp, path, NULL, MS_BIND, NULL, "bind /tmp");

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
	return upper;
}

static void set_limit(const struct plan *p, int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { soft, hard };
	if (setrlimit(resource, &rl) < 0)
		fault(p, "setrlimit");
}

static __attribute__((noreturn)) void payload_main(const struct plan *p)
{
	const struct slot *s = p->slot;
	const struct lang *lang = p->spec->lang;
	uid_t uid = s->uid;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The worker's signal mask and dispositions are not the program's:
	 * every signal starts unblocked and default. */
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	int in = p->in[0] >= 0 ? p->in[0] : open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in < 0 || dup2(in, 0) < 0 || dup2(p->out[1], 1) < 0 ||
	    dup2(p->err[1], 2) < 0)
		fault(p, "stdio");

	/* A backstop per process; the cgroup's reading is what counts. */
	long limit_ms = p->spec->cpu_limit_ms > 0 ? p->spec->cpu_limit_ms + 2000
						  : p->spec->timeout_ms;
	long cpu_s = limit_ms / 1000 + 1;
	set_limit(p, RLIMIT_CORE, 0, 0);
	set_limit(p, RLIMIT_NOFILE, RUN_NOFILE, RUN_NOFILE);
	set_limit(p, RLIMIT_NPROC, RUN_NPROC, RUN_NPROC);
	set_limit(p, RLIMIT_FSIZE, lang->tmp_size, lang->tmp_size);
	set_limit(p, RLIMIT_CPU, (rlim_t)cpu_s, (rlim_t)cpu_s + 1);
	if (s->cfg->memory_max)
		set_limit(p, RLIMIT_AS, s->cfg->memory_max, s->cfg->memory_max);

	/* Should the host run out of memory, the kernel kills a run first. */
	int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (adj < 0 || write(adj, "1000", 4) != 4)
		fault(p, "oom_score_adj");
	close(adj);
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

/* After the payload: nothing else of the run may go on.  Everything left in
 * the PID namespace is init's child by now (orphans are reparented to it):
 * kill them all, again while any is left, and reap them. */
static void kill_the_rest(void)
{
	for (;;) {
		kill(-1, SIGKILL);
		if (waitpid(-1, NULL, __WALL) < 0 && errno == ECHILD)
			return;
	}
}

static void send_output_file(const struct plan *p, struct report *r)
{
	char path[PATH_MAX], buf[65536];
	snprintf(path, sizeof(path), "/sandbox/%s", p->spec->output_file);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r->err = fd < 0 ? errno : EINVAL;
	} else {
		ssize_t n;
		size_t sent = 0, cap = p->spec->output_max;
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			if (write(p->file[1], buf, (size_t)n) != n)
				break;
			sent += (size_t)n;
			if (cap && sent > cap)
				break;   /* the worker has seen enough to say OLE */
		}
	}
	if (fd >= 0)
		close(fd);
	close(p->file[1]);
}

static int plan_layers(struct plan *p, char *err, size_t errlen);
static int receive_request(struct plan *p);

static int payload_entry(void *arg)
{
	payload_main(arg);
}

static __attribute__((noreturn)) void init_main(struct plan *p)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* init is the first process of the slot's cgroup (cloned into it on
	 * v2, joined here on v1), so the payload is born there and never
	 * migrated; the cgroup namespace makes the slot the root of the view
	 * the payload gets.  An OOM kill in the cgroup picks the payload
	 * (oom_score_adj 1000) first; init asks never to be picked, where the
	 * host lets it (some refuse even root a negative value). */
	int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (adj >= 0) {
		if (write(adj, "-1000", 5) != 5) {
			/* best effort, see above */
		}
		close(adj);
	}
	if (p->slot->cg.version == 1 && cgroup_slot_join(&p->slot->cg) < 0)
		fault(p, "join cgroup");
	if (unshare(CLONE_NEWCGROUP) < 0)
		fault(p, "unshare cgroup");
	if (setns(p->slot->netns_fd, CLONE_NEWNET) < 0)
		fault(p, "enter netns");
	close(p->out[0]);
	close(p->err[0]);
	close(p->report[0]);
	if (p->in[1] >= 0)
		close(p->in[1]);
	if (p->file[0] >= 0)
		close(p->file[0]);
	if (p->go[1] >= 0)
		close(p->go[1]);
	build_static(p);
	if (p->ahead) {
		/* Ready: wait for the request.  The worker gone, so are we. */
		char why[192];
		if (receive_request(p) < 0)
			_exit(0);
		if (plan_layers(p, why, sizeof(why)) < 0)
			fault(p, "request layers");
		if (p->spec->export_dir &&
		    (p->export_fd = open(p->spec->export_dir,
					 O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			fault(p, "open export dir");
	}
	int scratch_fd;
	int upper = build_request(p, &scratch_fd);

	/* The payload shares init's memory until it execs (init waits): the
	 * cheapest way to a new process; it has its own stack, fd table,
	 * credentials and signal handlers, and writes nothing of init's. */
	size_t stack_size = 256 << 10;
	void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		fault(p, "payload stack");
	pid_t payload = clone(payload_entry, (char *)stack + stack_size,
			      CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)p);
	if (payload < 0)
		fault(p, "clone payload");
	close(p->out[1]);
	close(p->err[1]);
	if (p->in[0] >= 0)
		close(p->in[0]);
	for (;;) {
		int status;
		struct rusage ru;
		pid_t w = wait4(-1, &status, __WALL, &ru);
		if (w == payload) {
			struct report r = { .kind = REPORT_EXIT, .status = status,
					    .maxrss_kb = ru.ru_maxrss };
			/* Nothing but init is left when the report goes out,
			 * and nothing writes a file or an export afterwards. */
			kill_the_rest();
			if (p->spec->output_file)
				send_output_file(p, &r);
			if (p->export_fd >= 0 && tree_copy(upper, p->export_fd) < 0)
				fault(p, "export build output");
			report_write(p->report[1], &r);
			/* What the run wrote goes now, after the report but
			 * before init exits: the worker reaps init before the
			 * slot's next run begins (reap_exiting), so that run
			 * never finds this one's files charged to the cgroup,
			 * and the caller does not wait for them.  The mounts go
			 * with the mount namespace, later still (the worker
			 * holds it until it is idle).  The overlay pins what was
			 * written through it: off with it first, then the files
			 * go for good. */
			umount2("/sandbox", MNT_DETACH);
			tree_empty(scratch_fd);
			int shm = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (shm >= 0) {
				tree_empty(shm);
				close(shm);
			}
			_exit(0);
		}
		if (w < 0 && errno != EINTR)
			_exit(1);
	}
}

/* ---- a request sent to a sandbox built ahead of it ----
 * A flat buffer: integers in native order (both ends are this program),
 * strings and byte strings as a 64-bit length and the bytes, a NULL string
 * as length ~0. */

struct wire {
	char *buf;
	size_t len, cap, pos;
	bool bad;
};

static void put(struct wire *w, const void *data, size_t len)
{
	if (w->bad)
		return;
	if (w->len + len > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap < w->len + len)
			cap *= 2;
		char *nb = realloc(w->buf, cap);
		if (!nb) {
			w->bad = true;
			return;
		}
		w->buf = nb;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, data, len);
	w->len += len;
}

static void put_u64(struct wire *w, uint64_t v)
{
	put(w, &v, sizeof(v));
}

static void put_bytes(struct wire *w, const char *s, size_t len)
{
	put_u64(w, s ? len : ~(uint64_t)0);
	if (s)
		put(w, s, len);
}

static void put_str(struct wire *w, const char *s)
{
	put_bytes(w, s, s ? strlen(s) : 0);
}

static void put_strv(struct wire *w, char **v)
{
	uint64_t n = 0;
	while (v && v[n])
		n++;
	put_u64(w, n);
	for (uint64_t i = 0; i < n; i++)
		put_str(w, v[i]);
}

static uint64_t get_u64(struct wire *w)
{
	uint64_t v = 0;
	if (w->pos + sizeof(v) > w->len) {
		w->bad = true;
		return 0;
	}
	memcpy(&v, w->buf + w->pos, sizeof(v));
	w->pos += sizeof(v);
	return v;
}

/* A NUL-terminated copy (NULs inside kept, as files may hold them). */
static char *get_bytes(struct wire *w, size_t *len)
{
	uint64_t n = get_u64(w);
	if (w->bad || n == ~(uint64_t)0)
		return NULL;
	if (n > w->len - w->pos) {
		w->bad = true;
		return NULL;
	}
	char *s = malloc(n + 1);
	if (!s) {
		w->bad = true;
		return NULL;
	}
	memcpy(s, w->buf + w->pos, n);
	s[n] = 0;
	w->pos += n;
	if (len)
		*len = n;
	return s;
}

static char **get_strv(struct wire *w)
{
	uint64_t n = get_u64(w);
	if (w->bad || n > 100000)
		return w->bad = true, NULL;
	char **v = calloc(n + 1, sizeof(*v));
	for (uint64_t i = 0; v && i < n; i++)
		v[i] = get_bytes(w, NULL);
	return v;
}

static int encode_request(const struct sandbox_spec *spec, struct wire *w)
{
	const struct lang *lang = spec->lang;
	memset(w, 0, sizeof(*w));
	put_u64(w, 0);                          /* length, filled in below */
	put_str(w, lang->dir);
	put_str(w, lang->workdir);
	put_u64(w, lang->tmp_size);
	put_u64(w, spec->mem_max ? spec->mem_max : lang->mem_max); /* meminfo */
	put_strv(w, lang->subdirs);
	put_strv(w, lang->overlay_paths);
	put_str(w, spec->command);
	put_u64(w, (uint64_t)spec->timeout_ms);
	put_u64(w, (uint64_t)spec->cpu_limit_ms);
	put_u64(w, spec->output_max);
	put_str(w, spec->lower);
	put_str(w, spec->export_dir);
	put_bytes(w, spec->stdin_data, spec->stdin_len);
	put_str(w, spec->input_file);
	put_str(w, spec->output_file);
	put_u64(w, spec->n_files);
	for (size_t i = 0; i < spec->n_files; i++) {
		put_str(w, spec->files[i].name);
		put_bytes(w, spec->files[i].data, spec->files[i].len);
	}
	if (w->bad)
		return -1;
	uint64_t len = w->len;
	memcpy(w->buf, &len, sizeof(len));
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *b = buf;
	while (len) {
		ssize_t n = read(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* In init: waits for the request and rebuilds spec and lang from it.  The
 * memory is init's, freed with it. */
static int receive_request(struct plan *p)
{
	uint64_t len;
	if (read_all(p->go[0], &len, sizeof(len)) < 0 || len < sizeof(len) ||
	    len > (1ULL << 34))
		return -1;
	struct wire w = { .len = (size_t)len, .pos = sizeof(len) };
	w.buf = malloc(w.len);
	if (!w.buf || read_all(p->go[0], w.buf + sizeof(len), w.len - sizeof(len)) < 0)
		return -1;
	close(p->go[0]);
	struct lang *lang = &p->got_lang;
	struct sandbox_spec *spec = &p->got_spec;
	lang->dir = get_bytes(&w, NULL);
	lang->workdir = get_bytes(&w, NULL);
	lang->tmp_size = get_u64(&w);
	lang->mem_max = get_u64(&w);
	lang->subdirs = get_strv(&w);
	lang->overlay_paths = get_strv(&w);
	spec->lang = lang;
	spec->command = get_bytes(&w, NULL);
	spec->timeout_ms = (long)get_u64(&w);
	spec->cpu_limit_ms = (long)get_u64(&w);
	spec->output_max = (size_t)get_u64(&w);
	spec->lower = get_bytes(&w, NULL);
	spec->export_dir = get_bytes(&w, NULL);
	spec->stdin_data = get_bytes(&w, &spec->stdin_len);
	spec->input_file = get_bytes(&w, NULL);
	spec->output_file = get_bytes(&w, NULL);
	spec->n_files = (size_t)get_u64(&w);
	if (w.bad || spec->n_files > 64)
		return -1;
	p->got_files = calloc(spec->n_files + 1, sizeof(*p->got_files));
	if (!p->got_files)
		return -1;
	for (size_t i = 0; i < spec->n_files; i++) {
		p->got_files[i].name = get_bytes(&w, NULL);
		p->got_files[i].data = get_bytes(&w, &p->got_files[i].len);
	}
	spec->files = p->got_files;
	if (w.bad || !lang->dir || !lang->workdir || !spec->command)
		return -1;
	p->spec = spec;
	/* Unused streams: the payload reads /dev/null, nobody reads the file. */
	if (!spec->stdin_data || spec->input_file) {
		close(p->in[0]);
		p->in[0] = -1;
	}
	if (!spec->output_file) {
		close(p->file[1]);
		p->file[1] = -1;
	}
	free(w.buf);
	return 0;
}

/* ---- the worker's side ---- */

static pid_t spawn_init(struct slot *s, struct plan *p)
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

#define CHUNK 65536

/* Appends what is readable to a stream's buffer (read through the caller's
 * chunk, which holds the new bytes afterwards).  Returns 0 at EOF, 1 when
 * more may come, -1 when the output cap was crossed. */
static int drain(struct stream *st, size_t output_max, char *chunk,
		 size_t *chunk_len)
{
	*chunk_len = 0;
	ssize_t n = read(st->fd, chunk, CHUNK);
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
	*chunk_len = take;
	return over ? -1 : 1;
}

/* Which deadline, if any, has passed.  /run has one, its timeout.  Judging
 * has three, none of them the limit L (SPEC section 6): no CPU growth for
 * 4L + 4 s, CPU time above L + 2 s, wall clock above 5 (L + 2 s). */
struct watch {
	long t0, last_progress;
	long long last_cpu_us;
};

static enum deadline deadline_passed(const struct slot *s, const struct sandbox_spec *spec,
				     struct watch *w, long now)
{
	long L = spec->cpu_limit_ms;
	if (L <= 0)
		return now - w->t0 >= spec->timeout_ms ? DEADLINE_TIMEOUT : DEADLINE_NONE;
	long long cpu = cgroup_slot_cpu_us(&s->cg);
	if (cpu > w->last_cpu_us) {
		w->last_cpu_us = cpu;
		w->last_progress = now;
	}
	if (cpu / 1000 > L + 2000)
		return DEADLINE_CPU_CEILING;
	if (now - w->last_progress >= 4 * L + 4000)
		return DEADLINE_NO_PROGRESS;
	if (now - w->t0 >= 5 * (L + 2000))
		return DEADLINE_ABSOLUTE;
	return DEADLINE_NONE;
}

static long next_wake(const struct sandbox_spec *spec, const struct watch *w, long now)
{
	if (spec->cpu_limit_ms > 0)
		return 10;       /* the CPU reading is sampled */
	long left = w->t0 + spec->timeout_ms - now;
	return left < 0 ? 0 : left;
}

enum { P_OUT, P_ERR, P_FILE, P_REPORT, P_IN, P_N };

static void stop_run(pid_t init, struct sandbox_result *res)
{
	res->killed = true;
	kill(init, SIGKILL);
}

static void supervise(pid_t init, struct plan *p, struct sandbox_result *res,
		      long t0, bool *have_status)
{
	const struct sandbox_spec *spec = p->spec;
	struct stream streams[3] = {
		{ p->out[0], &res->out, &res->out_len, 0, STREAM_STDOUT },
		{ p->err[0], &res->err, &res->err_len, 0, STREAM_STDERR },
		{ p->file[0], &res->file, &res->file_len, 0, STREAM_FILE },
	};
	struct pollfd pfd[P_N] = {
		[P_OUT] = { .fd = p->out[0], .events = POLLIN },
		[P_ERR] = { .fd = p->err[0], .events = POLLIN },
		[P_FILE] = { .fd = p->file[0], .events = POLLIN },
		[P_REPORT] = { .fd = p->report[0], .events = POLLIN },
		[P_IN] = { .fd = p->in[1], .events = POLLOUT },
	};
	struct watch w = { .t0 = t0, .last_progress = t0 };
	size_t fed = 0;
	char chunk[CHUNK];

	for (;;) {
		/* Done when the streams are at their end and init has reported:
		 * it reports after the rest of the run is dead, and its own exit
		 * need not be waited for here. */
		int open_fds = 0;
		for (int i = 0; i < P_REPORT; i++)
			open_fds += pfd[i].fd >= 0;
		if (!open_fds && (*have_status || pfd[P_REPORT].fd < 0))
			break;
		long now = now_ms();
		enum deadline d = deadline_passed(p->slot, spec, &w, now);
		if (d) {
			res->timed_out = true;
			res->deadline = d;
			stop_run(init, res);
			return;
		}
		long wake = next_wake(spec, &w, now);
		int n = poll(pfd, P_N, (int)(wake > INT_MAX ? INT_MAX : wake));
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (pfd[P_IN].fd >= 0 && pfd[P_IN].revents) {
			ssize_t k = pfd[P_IN].revents & POLLOUT
				? write(pfd[P_IN].fd, spec->stdin_data + fed, spec->stdin_len - fed)
				: -1;
			if (k > 0)
				fed += (size_t)k;
			/* All fed, or the program stopped reading: close its stdin. */
			if (fed == spec->stdin_len || (k < 0 && errno != EAGAIN && errno != EINTR)) {
				close(pfd[P_IN].fd);
				pfd[P_IN].fd = p->in[1] = -1;
			}
		}
		for (int i = P_OUT; i <= P_FILE; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			size_t len;
			int r = drain(&streams[i], spec->output_max, chunk, &len);
			if (i == P_OUT && len && spec->on_stdout &&
			    spec->on_stdout(spec->ctx, chunk, len)) {
				res->stopped = true;
				stop_run(init, res);
				return;
			}
			if (r == 0)
				pfd[i].fd = -1;
			if (r < 0) {
				res->output_exceeded = streams[i].which;
				stop_run(init, res);
				return;
			}
		}
		if (pfd[P_REPORT].fd >= 0 && pfd[P_REPORT].revents) {
			struct report r;
			ssize_t got = read(pfd[P_REPORT].fd, &r, sizeof(r));
			if (got == (ssize_t)sizeof(r) && r.kind == REPORT_FAULT &&
			    !res->fault[0]) {
				snprintf(res->fault, sizeof(res->fault),
					 "sandbox: %s errno=%d", r.step, r.err);
			} else if (got == (ssize_t)sizeof(r) && r.kind == REPORT_EXIT) {
				res->wait_status = r.status;
				res->maxrss_kb = r.maxrss_kb;
				res->file_missing = spec->output_file && r.err;
				*have_status = true;
			} else if (got <= 0 && !(got < 0 && errno == EINTR)) {
				pfd[P_REPORT].fd = -1;
			}
		}
	}
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
		close_fd(&p->in[i]);
		close_fd(&p->file[i]);
		close_fd(&p->go[i]);
	}
	close_fd(&p->export_fd);
}

static bool plain_name(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..");
}

/* What the request decides: the overlay's layers, the tmpfs size, the
 * command.  Pure string work, done by whoever has the request. */
static int plan_layers(struct plan *p, char *err, size_t errlen)
{
	const struct sandbox_spec *spec = p->spec;
	const struct lang *lang = spec->lang;
	const char *step = "overlay options";
	errno = ENAMETOOLONG;
	/* The layers' names in the scratch tmpfs (build_request). */
	int n = snprintf(p->overlay_opts, sizeof(p->overlay_opts),
			 "lowerdir=%slang,upperdir=upper,workdir=work",
			 spec->lower ? "build:" : "");
	if (n < 0 || (size_t)n >= sizeof(p->overlay_opts) || strpbrk(lang->dir, ",:") ||
	    (spec->lower && strpbrk(spec->lower, ",:")))
		goto fail;
	errno = EINVAL;
	step = "file names";
	if ((spec->input_file && !plain_name(spec->input_file)) ||
	    (spec->output_file && !plain_name(spec->output_file)))
		goto fail;
	snprintf(p->scratch_opts, sizeof(p->scratch_opts), "size=%llu,mode=0755",
		 lang->tmp_size);
	p->argv[0] = "sh";
	p->argv[1] = "-c";
	p->argv[2] = (char *)spec->command;
	p->argv[3] = NULL;
	return 0;
fail:
	snprintf(err, errlen, "sandbox: %s errno=%d", step, errno);
	return -1;
}

static void plan_reset(struct plan *p, struct slot *s)
{
	memset(p, 0, sizeof(*p));
	p->slot = s;
	for (int i = 0; i < 2; i++)
		p->out[i] = p->err[i] = p->report[i] = p->in[i] = p->file[i] =
			p->go[i] = -1;
	p->export_fd = -1;
}

/* The pipes between worker and run.  Ahead of a request all of them exist,
 * since which are needed is not known yet. */
static int plan_pipes(struct plan *p, bool with_in, bool with_file, bool with_go,
		      char *err, size_t errlen)
{
	if (pipe2(p->out, O_CLOEXEC) < 0 || pipe2(p->err, O_CLOEXEC) < 0 ||
	    pipe2(p->report, O_CLOEXEC) < 0 ||
	    (with_in && (pipe2(p->in, O_CLOEXEC) < 0 ||
			 fcntl(p->in[1], F_SETFL, O_NONBLOCK) < 0)) ||
	    (with_file && pipe2(p->file, O_CLOEXEC) < 0) ||
	    (with_go && pipe2(p->go, O_CLOEXEC) < 0)) {
		snprintf(err, errlen, "sandbox: pipe errno=%d", errno);
		return -1;
	}
	return 0;
}

/* Opens what a run built on demand needs besides its layers (plan_layers
 * has laid those): its pipes and the export directory. */
static int plan_open(struct plan *p, char *err, size_t errlen)
{
	const struct sandbox_spec *spec = p->spec;
	if (plan_pipes(p, spec->stdin_data && !spec->input_file, spec->output_file,
		       false, err, errlen) < 0)
		return -1;
	if (spec->export_dir &&
	    (p->export_fd = open(spec->export_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "sandbox: open export dir errno=%d", errno);
		return -1;
	}
	return 0;
}

/* The worker's ends only, once init has its own. */
static void plan_close_init_ends(struct plan *p)
{
	close_fd(&p->out[1]);
	close_fd(&p->err[1]);
	close_fd(&p->report[1]);
	close_fd(&p->in[0]);
	close_fd(&p->file[1]);
	close_fd(&p->go[0]);
	close_fd(&p->export_fd);
}

static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static void drop_ahead(struct slot *slot)
{
	struct plan *p = slot->ahead;
	if (!p)
		return;
	slot->ahead = NULL;
	kill(p->init, SIGKILL);
	reap(p->init);
	plan_close(p);
	free(p);
}

/* The last run's init exits alone (it reported already): reap it, and let
 * its mount namespace go. */
static void reap_exiting(struct slot *slot)
{
	if (slot->exiting > 0)
		reap(slot->exiting);
	slot->exiting = 0;
	if (slot->exiting_mntns >= 0)
		close(slot->exiting_mntns);
	slot->exiting_mntns = -1;
}

int slot_prepare(struct slot *slot, char *err, size_t errlen)
{
	if (!slot->ready)
		return 0;
	reap_exiting(slot);
	if (slot->ahead)
		return 0;
	settle(slot);       /* the last run's init is reaped: nothing is left */
	if (slot_refresh(slot, err, errlen) < 0)
		return -1;
	struct plan *p = malloc(sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "sandbox: out of memory");
		return -1;
	}
	plan_reset(p, slot);
	p->ahead = true;
	if (plan_pipes(p, true, true, true, err, errlen) < 0) {
		plan_close(p);
		free(p);
		return -1;
	}
	slot->netns_used = true;     /* the init below takes it */
	p->init = spawn_init(slot, p);
	if (p->init < 0) {
		snprintf(err, errlen, "sandbox: clone errno=%d", errno);
		plan_close(p);
		free(p);
		return -1;
	}
	plan_close_init_ends(p);
	slot->ahead = p;
	/* The run after it gets its network namespace now, while this init
	 * builds its mount view on another CPU: a worker whose next request
	 * is already waiting then finds the sandbox ready. */
	return slot_refresh(slot, err, errlen);
}

/* Hands the request to the sandbox built ahead of it.  -1 when that init is
 * gone (it faulted or was killed): the run is then built afresh. */
static int send_request(struct plan *p, const struct sandbox_spec *spec)
{
	struct wire w;
	int rc = encode_request(spec, &w);
	for (size_t off = 0; rc == 0 && off < w.len; ) {
		ssize_t n = write(p->go[1], w.buf + off, w.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			rc = -1;
		else
			off += (size_t)n;
	}
	free(w.buf);
	close_fd(&p->go[1]);
	return rc;
}

int sandbox_run(struct slot *slot, const struct sandbox_spec *spec,
		struct sandbox_result *res)
{
	struct plan local, *p = &local;
	memset(res, 0, sizeof(*res));
	res->cpu_ms = res->memory_peak_kb = -1;
	char why[192];
	reap_exiting(slot);

	/* The request's names and layers are checked here whichever way the
	 * sandbox is built, so a bad one never reaches a run. */
	plan_reset(&local, slot);
	local.spec = spec;
	if (plan_layers(&local, res->fault, sizeof(res->fault)) < 0)
		return -1;
	unsigned long long mem = spec->mem_max ? spec->mem_max : spec->lang->mem_max;
	if (cgroup_slot_begin(&slot->cg, mem, res->fault,
			      sizeof(res->fault)) < 0)
		return -1;
	/* Feeding a program that stops reading (or a sandbox built ahead that
	 * is gone) must not kill the worker. */
	sigset_t pipe_set, old_set;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old_set);

	long t0 = now_ms();
	pid_t init = -1;
	if (slot->ahead) {
		p = slot->ahead;
		slot->ahead = NULL;
		p->spec = spec;
		init = p->init;
		if (send_request(p, spec) < 0) {
			kill(init, SIGKILL);
			reap(init);
			plan_close(p);
			free(p);
			p = &local;
			init = -1;
		} else {
			/* Streams this request does not use. */
			if (!spec->stdin_data || spec->input_file)
				close_fd(&p->in[1]);
			if (!spec->output_file)
				close_fd(&p->file[0]);
		}
	}
	if (init < 0) {
		if (plan_open(&local, res->fault, sizeof(res->fault)) < 0 ||
		    slot_refresh(slot, why, sizeof(why)) < 0) {
			if (!res->fault[0])
				snprintf(res->fault, sizeof(res->fault), "%s", why);
			plan_close(&local);
			sigprocmask(SIG_SETMASK, &old_set, NULL);
			return -1;
		}
		slot->netns_used = true;
		t0 = now_ms();
		init = spawn_init(slot, &local);
		if (init < 0) {
			snprintf(res->fault, sizeof(res->fault), "sandbox: clone errno=%d", errno);
			plan_close(&local);
			sigprocmask(SIG_SETMASK, &old_set, NULL);
			return -1;
		}
		plan_close_init_ends(&local);
	}

	/* The run's mount namespace, held so that init's exit does not tear it
	 * down while the caller waits (see init_main's report). */
	char nspath[64];
	snprintf(nspath, sizeof(nspath), "/proc/%d/ns/mnt", (int)init);
	int mntns = open(nspath, O_RDONLY | O_CLOEXEC);

	bool have_status = false;
	supervise(init, p, res, t0, &have_status);
	int status = 0;
	if (have_status && !res->killed && !res->fault[0] && mntns >= 0) {
		/* init reported after killing and reaping the rest of the run
		 * and emptying its tmpfs: what is left is its own exit and the
		 * namespaces' teardown, done while the worker is idle. */
		slot->exiting = init;
		slot->exiting_mntns = mntns;
	} else {
		while (waitpid(init, &status, 0) < 0 && errno == EINTR)
			;
		if (mntns >= 0)
			close(mntns);
	}
	res->wall_ms = now_ms() - t0;
	plan_close(p);
	if (p != &local)
		free(p);
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, &old_set, NULL);

	struct cgroup_usage u;
	cgroup_slot_read(&slot->cg, &u);
	res->cpu_ms = u.cpu_ms;
	/* On v1 the cgroup's peak is max_usage less what earlier runs left
	 * charged (page cache).  A run that reached the limit made the kernel
	 * reclaim that cache, and the difference under-reports: then the
	 * largest process's own RSS is the floor. */
	res->memory_peak_kb = u.memory_peak_kb;
	if (u.limit_hit && res->maxrss_kb > res->memory_peak_kb)
		res->memory_peak_kb = res->maxrss_kb;
	res->oom_killed = u.oom_killed;

	/* Faults are only reported before execve (the report pipe is
	 * close-on-exec) or by init after the payload, about the export; one
	 * means the run cannot be used. */
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
	free(res->file);
	res->out = res->err = res->file = NULL;
	res->out_len = res->err_len = res->file_len = 0;
}
