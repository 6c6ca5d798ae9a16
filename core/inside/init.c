/* SPDX-License-Identifier: Apache-2.0 */
/*
 * init: PID 1 of the run, then the payload it starts.  The design comment
 * in core/run/sandbox.c says which process holds what; here is what init
 * and the payload do, in order, with only what the plan holds.
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


#include "conf/config.h"
#include "inside/inside.h"
#include "slot/tree.h"
#include "slot/uidlock.h"
#include "util/cpus.h"
#include "util/prof.h"
#include "util/util.h"

#define RUN_NOFILE 256
#define RUN_NPROC 256

static void report_write(int fd, const struct report *r)
{
	ssize_t n;
	do
		n = write(fd, r, sizeof(*r));
	while (n < 0 && errno == EINTR);
}

__attribute__((noreturn)) void init_fail(const struct plan *p, const char *step)
{
	struct report r = { .kind = REPORT_FAULT, .err = errno };
	snprintf(r.step, sizeof(r.step), "%s", step);
	report_write(p->report[1], &r);
	_exit(127);
}
/* enter_run could not set init's oom_score_adj to -1000. */
static bool init_exposed;

static void set_limit(const struct plan *p, int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { soft, hard };
	if (setrlimit(resource, &rl) < 0)
		init_fail(p, "setrlimit");
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
	/* Nor is the worker's CPU (util/cpus.h): the program may use every
	 * CPU of the service's.  Refused only when the cgroup allows none. */
	(void)cpus_unpin();

	int in = p->in[0] >= 0 ? p->in[0] : open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in < 0 || dup2(in, 0) < 0 || dup2(p->out[1], 1) < 0 ||
	    dup2(p->spec->stderr_to_stdout ? p->out[1] : p->err[1], 2) < 0)
		init_fail(p, "stdio");

	/* A backstop per process; the cgroup's reading is what counts.  The
	 * kernel checks RLIMIT_CPU against tick-sampled user and system time,
	 * which a program starved beside CPU hogs is over-charged (3 s against
	 * the cgroup's 2.7 s measured): a judged run's backstop is half as
	 * much again as its CPU deadline, so that the deadline ends it. */
	long limit_ms = p->spec->cpu_deadline_ms > 0 ? p->spec->cpu_deadline_ms * 3 / 2
						     : p->spec->timeout_ms;
	long cpu_s = limit_ms / 1000 + 1;
	set_limit(p, RLIMIT_CORE, 0, 0);
	set_limit(p, RLIMIT_NOFILE, RUN_NOFILE, RUN_NOFILE);
	set_limit(p, RLIMIT_NPROC, RUN_NPROC, RUN_NPROC);
	set_limit(p, RLIMIT_FSIZE, lang->tmp_size, lang->tmp_size);
	set_limit(p, RLIMIT_CPU, (rlim_t)cpu_s, (rlim_t)cpu_s + 1);
	if (s->cfg->memory_max)
		set_limit(p, RLIMIT_AS, s->cfg->memory_max, s->cfg->memory_max);
	/* A judged program's stack may be as large as its memory (judge/). */
	if (p->spec->stack_max)
		set_limit(p, RLIMIT_STACK, p->spec->stack_max, p->spec->stack_max);

	/* Should the host run out of memory, the kernel kills a run first. */
	int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (adj < 0 || write(adj, "1000", 4) != 4)
		init_fail(p, "oom_score_adj");
	close(adj);
	/* init (PID 1 here) could not ask never to be picked: it leaves the
	 * run's memory cgroup now, while it waits for this exec, so that an
	 * OOM kill there cannot choose it, whose RSS is the worker's. */
	if (init_exposed && s->cg.version == 1 &&
	    (s->cg.home_procs_fd < 0 || write(s->cg.home_procs_fd, "1", 1) != 1))
		init_fail(p, "init out of the memory cgroup");
	if (setgroups(0, NULL) < 0)
		init_fail(p, "setgroups");
	if (setresgid(uid, uid, uid) < 0)
		init_fail(p, "setresgid");
	if (setresuid(uid, uid, uid) < 0)
		init_fail(p, "setresuid");
	/* The drop is verified, not assumed. */
	if (setuid(0) == 0 || setgid(0) == 0 || geteuid() == 0 || getegid() == 0) {
		errno = EPERM;
		init_fail(p, "privilege drop check");
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		init_fail(p, "no_new_privs");
	int rfd = p->report[1];
	if (rfd > 3 && syscall(SYS_close_range, 3, rfd - 1, 0) < 0)
		init_fail(p, "close fds");
	if (syscall(SYS_close_range, rfd + 1, ~0U, 0) < 0)
		init_fail(p, "close fds");
	if (chdir("/sandbox") < 0)
		init_fail(p, "chdir /sandbox");
	if (seccomp_policy_install(&s->seccomp) < 0)
		init_fail(p, "seccomp");
	/* "exec <program> <words>" needs no shell to start it (plan_layers,
	 * lang_direct_argv); when that execve fails (no such file, not
	 * executable, a script without #!), dash does it again and answers as
	 * it always would. */
	if (p->direct_argv[0])
		execve(p->direct_argv[0], p->direct_argv, s->envp);
	execve("/bin/sh", p->spec->sh_argv ? p->spec->sh_argv : p->argv, s->envp);
	init_fail(p, "execve /bin/sh");
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

/* A build's files, out of the run's upper layer into the export directory,
 * within the spec's limits; a build past them is the tenant's doing, said
 * in the report (the worker answers it as a failed build), not a fault. */
static void export_build(const struct plan *p, int upper, struct report *r)
{
	struct tree_limits lim = { .bytes = p->spec->export_max_bytes,
				   .entries = p->spec->export_max_entries };
	enum tree_over over = TREE_WITHIN;
	if (tree_copy(upper, p->export_fd, &lim, &over) < 0)
		init_fail(p, "export build output");
	r->export_over = (int)over;
}

static int payload_entry(void *arg)
{
	payload_main(arg);
}

/* init's first steps: its cgroup, its namespaces, its place in an OOM. */
static void enter_run(const struct plan *p)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* init is the first process of the slot's cgroup (cloned into it on
	 * v2, joined here on v1), so the payload is born there and never
	 * migrated; the cgroup namespace makes the slot the root of the view
	 * the payload gets.  An OOM kill in the cgroup picks the payload
	 * (oom_score_adj 1000) first; init asks never to be picked, where the
	 * host lets it.  Some refuse even root a negative value (a container
	 * without CAP_SYS_RESOURCE): there init, whose RSS counts the worker's
	 * pages, could outscore a payload under a small limit, and so on v1 it
	 * leaves the memory cgroup before the payload's exec (payload_main). */
	int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	init_exposed = adj < 0 || write(adj, "-1000", 5) != 5;
	if (adj >= 0)
		close(adj);
	if (p->slot->cg.version == 1 && cgroup_slot_join(&p->slot->cg) < 0)
		init_fail(p, "join cgroup");
	if (unshare(CLONE_NEWCGROUP) < 0)
		init_fail(p, "unshare cgroup");
	if (setns(p->slot->netns_fd, CLONE_NEWNET) < 0)
		init_fail(p, "enter netns");
}

/* An interactive run's relay pipes are the worker's: a copy held here
 * would keep the peer from ever seeing their end. */
static void close_relay(const struct sandbox_spec *spec)
{
	if (spec->relay) {
		close(spec->relay_in);
		close(spec->relay_out);
	}
}

__attribute__((noreturn)) void init_main(struct plan *p)
{
	/* The slot's UID is the worker's (or gaol-run's) to hold, not ours:
	 * a kept slot's init may outlive a one-shot gaol-run. */
	uidlock_close_inherited();
	enter_run(p);
	close(p->out[0]);
	close(p->err[0]);
	close(p->report[0]);
	if (p->in[1] >= 0)
		close(p->in[1]);
	if (p->file[0] >= 0)
		close(p->file[0]);
	if (p->go[1] >= 0)
		close(p->go[1]);
	if (!p->ahead)
		close_relay(p->spec);
	mounts_build_static(p);
	if (p->ahead) {
		/* Ready: wait for the request.  The worker gone, so are we. */
		static struct received got;
		char why[192];
		if (wire_receive_request(p, &got) < 0)
			_exit(0);
		if (plan_layers(p, why, sizeof(why)) < 0)
			init_fail(p, "request layers");
		if (p->spec->export_dir &&
		    (p->export_fd = open(p->spec->export_dir,
					 O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			init_fail(p, "open export dir");
	}
	long long prof_us[3] = { prof_begin() };
	int upper = mounts_build_request(p);
	prof_us[1] = prof_begin();

	/* The payload shares init's memory until it execs (init waits): the
	 * cheapest way to a new process; it has its own stack, fd table,
	 * credentials and signal handlers, and writes nothing of init's. */
	size_t stack_size = 256 << 10;
	void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		init_fail(p, "payload stack");
	pid_t payload = clone(payload_entry, (char *)stack + stack_size,
			      CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)p);
	if (payload < 0)
		init_fail(p, "clone payload");
	/* CLONE_VFORK: back here once the payload has exec'd (or failed,
	 * which it reported first).  The deadlines count from now. */
	struct report started = { .kind = REPORT_START, .start_us = now_us() };
	report_write(p->report[1], &started);
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
#ifdef GAOL_PROFILE
			prof_us[2] = prof_begin();
			memcpy(r.prof_us, prof_us, sizeof(prof_us));
#endif
			(void)prof_us;
			/* Nothing but init is left when the report goes out,
			 * and nothing writes a file or an export afterwards. */
			kill_the_rest();
			if (p->spec->output_file)
				send_output_file(p, &r);
			if (p->export_fd >= 0)
				export_build(p, upper, &r);
			report_write(p->report[1], &r);
			/* What the run wrote goes with its mount namespace,
			 * whose last holder is the worker: it reaps init and
			 * lets the namespace go before the slot's next run
			 * begins (reap_exiting), so that run never finds this
			 * one's files charged to the cgroup.  The kernel frees
			 * the run's tmpfs and /dev/shm there whole, for less
			 * than init's walk of them took (docs/bench.md, tenth
			 * pass). */
			_exit(0);
		}
		if (w < 0 && errno != EINTR)
			_exit(1);
	}
}
