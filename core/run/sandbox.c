/* SPDX-License-Identifier: Apache-2.0 */
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
 *            joined first thing on v1).  It starts in a copy of the slot's
 *            template mount namespace (slot/template.h: the read-only root,
 *            /dev, the neutral files) and builds the rest of the view: first
 *            what no request decides (mounts_build_static: /proc, /dev/shm,
 *            the cgroup view), then the request's part
 *            (mounts_build_request: the writable tmpfs, /sandbox over the
 *            language directory, pivot_root); core/inside/ holds both.  It starts the payload and reaps
 *            everything reparented to it.  When the payload exits it kills
 *            and reaps whatever is left (nothing a payload starts - daemons,
 *            setsid, double forks - outlives its run), reports the status
 *            on the report pipe and exits (its files go with its mount
 *            namespace, below).  init dies with the worker
 *            (PR_SET_PDEATHSIG), and the death of a PID namespace's init
 *            kills every process left in it.  The worker
 *            answers at the report, and reaps init and lets the mount
 *            namespace go (the run's tmpfs and /dev/shm with it) while
 *            idle, before the slot's next run: the teardown is nobody's
 *            wait.
 *   payload  born in the slot's cgroup (never migrated), drops to the slot
 *            UID with no groups, no capabilities and no_new_privs, closes
 *            every other fd, installs seccomp last and execs
 *            /bin/sh -c <command> in /sandbox.
 *
 * A worker builds its next run's sandbox ahead of the request, while idle
 * (slot_prepare): init is cloned and does mounts_build_static, then waits
 * on the go pipe; the request arrives there (plan/wire.c), and init goes on
 * with mounts_build_request as if it had never waited.  The sandbox is as
 * fresh as one built on demand and serves exactly one run; if it is gone when the request
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
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>

#include "util/fail.h"
#include "inside/inside.h"
#include "plan/plan.h"
#include "run/relay.h"
#include "run/sandbox.h"
#include "run/watch.h"
#include "slot/keep.h"
#include "slot/netns.h"
#include "slot/template.h"
#include "util/prof.h"
#include "util/util.h"

/* ---- the worker's side ---- */

struct init_clone {
	unsigned long flags;
	int leaf;               /* v2: the run's cgroup, or -1 */
};

static long clone_init(void *arg)
{
	const struct init_clone *c = arg;
	if (c->leaf < 0)
		return syscall(SYS_clone, c->flags | SIGCHLD, NULL, NULL, NULL, NULL);
	struct clone_args args = {
		.flags = c->flags | CLONE_INTO_CGROUP,
		.exit_signal = SIGCHLD,
		.cgroup = (uint64_t)c->leaf,
	};
	return syscall(SYS_clone3, &args, sizeof(args));
}

/* init starts in copies of the slot's template mount namespace
 * (slot/template.h) and of nothing else of the worker's. */
static pid_t spawn_init(struct slot *s, struct plan *p)
{
	struct init_clone c = {
		.flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS,
		.leaf = -1,
	};
	if (s->cg.version == 2) {
		/* A fresh leaf per run: its peak, CPU and OOM kills are its own. */
		char why[192];
		c.leaf = cgroup_run_leaf(&s->cg, why, sizeof(why));
		if (c.leaf < 0) {
			fprintf(stderr, "gaol: %s\n", why);
			return -1;
		}
	}
	pid_t pid = template_clone(s, clone_init, &c);
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
_Static_assert(CHUNK <= RELAY_CHUNK, "a chunk read fits the relay's buffer");

/* Appends what is readable to a stream's buffer (read through the caller's
 * chunk, which holds the new bytes afterwards).  Returns 0 at EOF, 1 when
 * more may come, -1 when the output cap was crossed; with keep_only, what
 * is past the cap is dropped and the stream goes on. */
static int drain(struct stream *st, size_t output_max, bool keep_only, char *chunk,
		 size_t *chunk_len)
{
	*chunk_len = 0;
	ssize_t n = read(st->fd, chunk, CHUNK);
	if (n <= 0)
		return n < 0 && (errno == EINTR || errno == EAGAIN);
	size_t take = (size_t)n;
	int over = 0;
	if (output_max && *st->len + take > output_max) {
		take = output_max - *st->len;
		over = !keep_only;
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

enum { P_OUT, P_ERR, P_FILE, P_REPORT, P_IN, P_CLIENT, P_RIN, P_ROUT, P_N };

static void stop_run(pid_t init, struct sandbox_result *res)
{
	res->killed = true;
	kill(init, SIGKILL);
}

/* Feeds the program's stdin as far as the pipe takes it; closes it when all
 * is fed or the program stopped reading. */
static void feed_stdin(struct plan *p, struct pollfd *pfd, size_t *fed)
{
	const struct sandbox_spec *spec = p->spec;
	ssize_t k = pfd->revents & POLLOUT
		? write(pfd->fd, spec->stdin_data + *fed, spec->stdin_len - *fed)
		: -1;
	if (k > 0)
		*fed += (size_t)k;
	if (*fed == spec->stdin_len || (k < 0 && errno != EAGAIN && errno != EINTR)) {
		close(pfd->fd);
		pfd->fd = p->in[1] = -1;
	}
}

#ifdef GAOL_PROFILE
static long long prof_handoff_us;   /* when the request went to init */
#endif

/* One report from init: a setup step's fault, the program's start, or the
 * payload's exit. */
static void read_report(struct plan *p, struct watch *w, struct pollfd *pfd,
			struct sandbox_result *res, bool *have_status)
{
	const struct sandbox_spec *spec = p->spec;
	struct report r;
	ssize_t got = read(pfd->fd, &r, sizeof(r));
	if (got == (ssize_t)sizeof(r) && r.kind == REPORT_START) {
		watch_start(p->slot, spec, w, (long)(r.start_us / 1000), res);
	} else if (got == (ssize_t)sizeof(r) && r.kind == REPORT_FAULT && !res->fault[0]) {
		fail(res->fault, sizeof(res->fault), "sandbox: %s errno=%d", r.step, r.err);
	} else if (got == (ssize_t)sizeof(r) && r.kind == REPORT_EXIT) {
		res->wait_status = r.status;
		res->maxrss_kb = r.maxrss_kb;
		res->export_over = r.export_over;
		res->file_missing = spec->output_file && r.err;
		*have_status = true;
#ifdef GAOL_PROFILE
		prof_add(PROF_INIT_WAKE, r.prof_us[0] - prof_handoff_us);
		prof_add(PROF_INIT_VIEW, r.prof_us[1] - r.prof_us[0]);
		prof_add(PROF_PAYLOAD, r.prof_us[2] - r.prof_us[1]);
		prof_add(PROF_INIT_END, prof_begin() - r.prof_us[2]);
#endif
	} else if (got <= 0 && !(got < 0 && errno == EINTR)) {
		pfd->fd = -1;
	}
}

/* The client's connection stirred: gone, or (anything else) watched no
 * more, so that unread data cannot wake poll() in a loop. */
static bool client_left(const struct sandbox_spec *spec, struct pollfd *pfd)
{
	if (pfd->fd < 0 || !pfd->revents)
		return false;
	if (spec->client->gone(pfd->fd, pfd->revents))
		return true;
	pfd->fd = -1;
	return false;
}

/* What the program's streams hold, read into the result (and on to
 * on_output, on_stdout and the relay).  true: the run was stopped. */
static bool read_streams(pid_t init, struct plan *p, struct sandbox_result *res,
			 struct stream *streams, struct pollfd *pfd, struct relay *rl,
			 char *chunk)
{
	const struct sandbox_spec *spec = p->spec;
	for (int i = P_OUT; i <= P_FILE; i++) {
		if (pfd[i].fd < 0 || !pfd[i].revents)
			continue;
		size_t len;
		bool keep = i == P_ERR && spec->err_keep;
		int r = drain(&streams[i], keep ? spec->err_keep : spec->output_max,
			      keep, chunk, &len);
		if (i != P_FILE && len && spec->on_output)
			spec->on_output(spec->ctx, streams[i].which, chunk, len);
		if (i == P_OUT && (len || r == 0))
			relay_stdout(rl, chunk, len, r);
		if (i == P_OUT && len && spec->on_stdout &&
		    spec->on_stdout(spec->ctx, chunk, len)) {
			res->stopped = true;
			stop_run(init, res);
			return true;
		}
		if (r == 0)
			pfd[i].fd = -1;
		if (r < 0) {
			res->output_exceeded = streams[i].which;
			stop_run(init, res);
			return true;
		}
	}
	return false;
}

static void supervise_loop(pid_t init, struct plan *p, struct sandbox_result *res,
			   long t0, bool *have_status, struct relay *rl)
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
		[P_CLIENT] = { .fd = spec->client ? spec->client->fd : -1,
			       .events = POLLIN | POLLRDHUP },
		[P_RIN] = { .fd = -1, .events = POLLIN },
		[P_ROUT] = { .fd = -1, .events = POLLOUT },
	};
	relay_poll(rl, &pfd[P_RIN], &pfd[P_ROUT], &pfd[P_IN], &pfd[P_OUT]);
	struct watch w = { .t0 = t0, .last_progress = t0, .last_blocked_check = t0,
			   .wait_us = -1, .throttled_us = -1,
			   .started = spec->setup_max_ms <= 0 };
	size_t fed = 0;
	/* Not on the stack: 64 KiB of it, probed page by page on every call,
	 * were 17 of the worker's pages copied per run while init (which
	 * shares them until it exits) lived.  Mapped once per process. */
	static char *chunk;
	if (!chunk && !(chunk = unshared_alloc(CHUNK))) {
		fail(res->fault, sizeof(res->fault), "sandbox: out of memory");
		stop_run(init, res);
		return;
	}

	for (;;) {
		/* Done when the streams are at their end and init has reported:
		 * it reports after the rest of the run is dead, and its own exit
		 * need not be waited for here. */
		int open_fds = 0;
		for (int i = 0; i < P_REPORT; i++)
			open_fds += pfd[i].fd != -1;   /* parked included */
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
		relay_arm(rl);
		long wake = next_wake(spec, &w, now);
		int n = poll(pfd, P_N, (int)(wake > INT_MAX ? INT_MAX : wake));
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (client_left(spec, &pfd[P_CLIENT])) {
			res->client_gone = true;
			stop_run(init, res);
			return;
		}
		if (rl->on)
			relay_step(rl);
		else if (pfd[P_IN].fd >= 0 && pfd[P_IN].revents)
			feed_stdin(p, &pfd[P_IN], &fed);
		if (read_streams(init, p, res, streams, pfd, rl, chunk))
			return;
		if (pfd[P_REPORT].fd >= 0 && pfd[P_REPORT].revents)
			read_report(p, &w, &pfd[P_REPORT], res, have_status);
	}
}

static void supervise_run(pid_t init, struct plan *p, struct sandbox_result *res,
			  long t0, bool *have_status)
{
	struct relay rl;
	if (relay_open(&rl, p->spec, &p->in[1], &p->out[0]) < 0) {
		fail(res->fault, sizeof(res->fault), "sandbox: out of memory");
		stop_run(init, res);
	} else {
		supervise_loop(init, p, res, t0, have_status, &rl);
	}
	relay_close(&rl);   /* the peer sees the end of both copies */
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
	long long t = prof_begin();
	if (slot->exiting > 0) {
		reap(slot->exiting);
		prof_end(PROF_REAP, t);
	}
	slot->exiting = 0;
	t = prof_begin();
	if (slot->exiting_mntns >= 0) {
		close(slot->exiting_mntns);
		prof_end(PROF_MNTNS_DROP, t);
	}
	slot->exiting_mntns = -1;
	cgroup_run_end(&slot->cg);      /* v2: the finished run's leaf goes */
}

void sandbox_forget(struct slot *slot)
{
	struct plan *p = slot->ahead;
	slot->ahead = NULL;
	if (p) {
		plan_close(p);
		free(p);
	}
	close_fd(&slot->exiting_mntns);
	slot->exiting = 0;
}

void sandbox_release(struct slot *slot)
{
	drop_ahead(slot);
	reap_exiting(slot);
}

void sandbox_release_now(struct slot *slot)
{
	if (slot->exiting > 0)
		kill(slot->exiting, SIGKILL);
	if (slot->keep == KEEP_ON && slot->exiting > 0) {
		slot->exiting = 0;      /* not waited for: see sandbox.h */
		cgroup_run_abandon(&slot->cg);
	}
	sandbox_release(slot);
}

int slot_prepare(struct slot *slot, char *err, size_t errlen)
{
	if (!slot->ready)
		return 0;
	reap_exiting(slot);
	if (slot->ahead)
		return 0;
	slot_settle(slot);      /* the last run's init is reaped: nothing is left */
	if (slot_renew(slot, err, errlen) < 0)
		return -1;
	long long t = prof_begin();
	struct plan *p = malloc(sizeof(*p));
	if (!p) {
		return fail(err, errlen, "sandbox: out of memory");
	}
	plan_reset(p, slot);
	p->ahead = true;
	if (plan_pipes(p, PIPE_STDIN | PIPE_FILE | PIPE_GO, err, errlen) < 0) {
		plan_close(p);
		free(p);
		return -1;
	}
	netns_remember(slot);        /* as it is before a run enters it */
	slot->netns_used = true;     /* the init below takes it */
	p->init = spawn_init(slot, p);
	if (p->init < 0) {
		fail(err, errlen, "sandbox: clone errno=%d", errno);
		plan_close(p);
		free(p);
		return -1;
	}
	plan_close_init_ends(p);
	slot->ahead = p;
	prof_end(PROF_CLONE, t);
	/* Without reuse, the run after it gets its network namespace now,
	 * while this init builds its mount view on another CPU: a worker
	 * whose next request is already waiting then finds the sandbox
	 * ready.  With it, that run most likely gets this one again. */
	return slot->netns_reuse ? 0 : slot_refresh(slot, err, errlen);
}

/* Hands the request to the sandbox built ahead of it.  -1 when that init is
 * gone (it faulted or was killed): the run is then built afresh. */
static int send_request(struct plan *p, const struct sandbox_spec *spec)
{
	int rc = wire_send_request(p->go[1], spec);
	close_fd(&p->go[1]);
	return rc;
}

/* Takes the sandbox built ahead of this request, if there is one and its
 * init is still there to take the request: its init (and *pp its plan), or
 * -1 (the run is then built afresh). */
static pid_t take_ahead(struct slot *slot, const struct sandbox_spec *spec,
			struct plan **pp)
{
	struct plan *p = slot->ahead;
	if (!p)
		return -1;
	slot->ahead = NULL;
	p->spec = spec;
	if (send_request(p, spec) < 0) {
		kill(p->init, SIGKILL);
		reap(p->init);
		plan_close(p);
		free(p);
		return -1;
	}
	/* Streams this request does not use. */
	if (!spec->stdin_data || spec->input_file)
		close_fd(&p->in[1]);
	if (!spec->output_file)
		close_fd(&p->file[0]);
	*pp = p;
	return p->init;
}

/* Builds the run's sandbox on demand, from the plan laid for it: its init,
 * or -1 with the fault.  *t0 is when the run began.  The run's limits and
 * counters are set after the refresh, which may give the slot a new memory
 * cgroup (v1, cgroup_slot_settle): on the cgroup its init joins. */
static pid_t start_fresh(struct slot *slot, struct plan *p, unsigned long long mem,
			 long *t0, char *fault, size_t faultlen)
{
	char why[192];
	if (plan_open(p, fault, faultlen) < 0 || slot_refresh(slot, why, sizeof(why)) < 0) {
		if (!fault[0])
			return fail(fault, faultlen, "%s", why);
	}
	if (cgroup_slot_begin(&slot->cg, mem, fault, faultlen) < 0)
		return -1;
	slot->netns_used = true;
	*t0 = now_ms();
	pid_t init = spawn_init(slot, p);
	if (init < 0) {
		return fail(fault, faultlen, "sandbox: clone errno=%d", errno);
	}
	plan_close_init_ends(p);
	return init;
}

/* After supervision: a run that reported cleanly leaves its init to exit,
 * and its mount namespace to go, while the worker is idle; any other is
 * waited for now.  Returns init's wait status when it was waited for. */
static int settle_init(struct slot *slot, pid_t init, int mntns, bool have_status,
		       const struct sandbox_result *res)
{
	int status = 0;
	if (have_status && !res->killed && !res->fault[0] && mntns >= 0) {
		/* init reported after killing and reaping the rest of the run
		 * and emptying its tmpfs: what is left is its own exit and the
		 * namespaces' teardown, done while the worker is idle. */
		slot->exiting = init;
		slot->exiting_mntns = mntns;
		return 0;
	}
	while (waitpid(init, &status, 0) < 0 && errno == EINTR)
		;
	if (mntns >= 0)
		close(mntns);
	return status;
}

/* What the cgroup measured of the run. */
static void read_usage(struct slot *slot, struct sandbox_result *res)
{
	struct cgroup_usage u;
	cgroup_slot_read(&slot->cg, &u);
	res->cpu_ms = u.cpu_ms;
	/* On v1 the cgroup's peak is max_usage less what earlier runs left
	 * charged (page cache).  A run that reached the limit made the kernel
	 * reclaim that cache, and the difference under-reports: then the
	 * largest process's own RSS is the floor, never above the limit: the
	 * program's ru_maxrss also counts the RSS of init's memory, which it
	 * shared until its exec (the kernel keeps the old mm's high-water
	 * mark), and that is the worker's size (130 MB reported for a 64 MB
	 * limit by a long-lived ASan build). */
	res->memory_peak_kb = u.memory_peak_kb;
	long cap_kb = slot->cg.mem_limit ? (long)(slot->cg.mem_limit / 1024) : LONG_MAX;
	if (u.limit_hit && res->maxrss_kb > res->memory_peak_kb)
		res->memory_peak_kb = res->maxrss_kb < cap_kb ? res->maxrss_kb : cap_kb;
	/* v2 before Linux 5.19 has no memory.peak (docs/api.md): the limit
	 * when the run met it, else the largest RSS of its processes. */
	if (u.peak_unknown)
		res->memory_peak_kb = u.limit_hit ? (long)(slot->cg.mem_limit / 1024)
			: res->maxrss_kb > 0 ? res->maxrss_kb : -1;
	res->oom_killed = u.oom_killed;
}

/* The run's mount namespace, held so that init's exit does not tear it
 * down while the caller waits (see init_main's report); -1 if gone. */
static int open_mntns(pid_t init)
{
	char nspath[64];
	snprintf(nspath, sizeof(nspath), "/proc/%d/ns/mnt", (int)init);
	return open(nspath, O_RDONLY | O_CLOEXEC);
}

int sandbox_run(struct slot *slot, const struct sandbox_spec *spec,
		struct sandbox_result *res)
{
	struct plan local, *p = &local;
	sigset_t pipe_set, old_set;
	bool blocked = false, have_status = false, supervised = false;
	unsigned long long mem = spec->mem_max ? spec->mem_max : spec->lang->mem_max;
	long t0;
	pid_t init;
	int mntns, status, rc = -1;

	memset(res, 0, sizeof(*res));
	res->cpu_ms = res->memory_peak_kb = res->setup_ms = -1;
	reap_exiting(slot);

	/* The request's names and layers are checked here whichever way the
	 * sandbox is built, so a bad one never reaches a run. */
	plan_reset(&local, slot);
	local.spec = spec;
	if (plan_layers(&local, res->fault, sizeof(res->fault)) < 0)
		goto out;
	/* Feeding a program that stops reading (or a sandbox built ahead that
	 * is gone) must not kill the worker. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old_set);
	blocked = true;

	/* Limits and counters are set before init can start the run: here
	 * for a sandbox built ahead, in start_fresh (after the refresh) else. */
	if (slot->ahead) {
		long long tb = prof_begin();
		if (cgroup_slot_begin(&slot->cg, mem, res->fault, sizeof(res->fault)) < 0)
			goto out;
		prof_end(PROF_BEGIN, tb);
	}
	t0 = now_ms();
	long long tp = prof_begin();
#ifdef GAOL_PROFILE
	prof_handoff_us = tp;
#endif
	init = take_ahead(slot, spec, &p);
	if (init < 0)
		init = start_fresh(slot, &local, mem, &t0, res->fault, sizeof(res->fault));
	if (init < 0)
		goto out;
	prof_end(PROF_HANDOFF, tp);

	mntns = open_mntns(init);
	tp = prof_begin();
	supervised = true;      /* closes the relay's ends, whatever happens */
	supervise_run(init, p, res, t0, &have_status);
	prof_end(PROF_SUPERVISE, tp);
	status = settle_init(slot, init, mntns, have_status, res);
	/* A judged run's wall clock is its program's, from its start; a
	 * /run's or a build's from the hand-off, set-up included. */
	res->wall_ms = now_ms() - (spec->setup_max_ms > 0 && res->setup_ms >= 0
				   ? res->start_ms : t0);
	read_usage(slot, res);

	/* Faults are only reported before execve (the report pipe is
	 * close-on-exec) or by init after the payload, about the export; one
	 * means the run cannot be used. */
	if (res->fault[0])
		goto out;
	if (!have_status && !res->killed) {
		fail(res->fault, sizeof(res->fault), "sandbox: init died status=%d",
		     status);
		goto out;
	}
	res->ran = true;
	rc = 0;
out:
	relay_abandon(spec, supervised);
	plan_close(p);
	if (p != &local)
		free(p);
	if (blocked) {
		/* A SIGPIPE the run raised is the run's: gone before the
		 * worker's mask is back. */
		struct timespec zero = { 0, 0 };
		while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
			;
		sigprocmask(SIG_SETMASK, &old_set, NULL);
	}
	return rc;
}

int sandbox_exit_code(const struct sandbox_result *res)
{
	if (res->killed || !res->ran)
		return -1;
	return exit_code(res->wait_status);
}

void sandbox_result_free(struct sandbox_result *res)
{
	free(res->out);
	free(res->err);
	free(res->file);
	res->out = res->err = res->file = NULL;
	res->out_len = res->err_len = res->file_len = 0;
}

