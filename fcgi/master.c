/* SPDX-License-Identifier: Apache-2.0 */
/*
 * master: the prefork pool (see master.h).
 *
 * Processes.  The master holds the listening socket and the write end of the
 * stop pipe and runs no request.  Worker i (worker.c) holds slot i of the
 * engine, UID RUN_UID_BASE+i and its cgroup, and serves one request at a time;
 * the engine's sandboxes are the workers' children.
 *
 * - A worker never outlives the master: right after fork() it asks for SIGKILL
 *   on the master's death (PR_SET_PDEATHSIG), then checks getppid() in case the
 *   master died before that took effect.
 * - A worker that dies is replaced in its slot.  One that lived less than
 *   HEALTHY_LIFE_MS is a crash loop in the making: its next start waits
 *   BACKOFF_FIRST_MS, doubling up to BACKOFF_MAX_MS; a longer life resets it.
 * - A worker whose engine_take_slot() failed exits WORKER_EXIT_SETUP.  That is a
 *   setup fault (configuration, languages, cgroups) which a respawn would only
 *   repeat, so the pool stops and the master returns 1: it fails closed, and
 *   systemd's Restart= decides what comes next.
 * - SIGTERM or SIGINT: the master closes the write end of the stop pipe.
 *   Each worker sees the pipe hang up when it is next idle and exits; runs in
 *   progress finish first.  Meanwhile the master itself accepts on the socket
 *   and answers every request 503, so that a client is told at once instead
 *   of waiting in the queue for a run to end.  When the last worker is gone
 *   the master answers what is still queued, closes the socket and returns 0.
 *   A further signal during the stop means "now": the workers get SIGKILL.
 *
 * - GET /health on the master's own socket (health.h) is read and answered by
 *   a child forked when a request is queued there ("gaol-health"): libfcgi
 *   reads with blocking reads, and the master must never wait on a client.
 *
 * - gaol-courier (courier.h), forked at start and again 1 s after it dies,
 *   sends Judge0's callbacks and sweeps the results kept; it holds no slot.
 *   The last RUN_QUEUE_SLOTS workers serve the queue instead of the socket
 *   (async.h); when one dies, the job it held is queued again at once.
 *
 * Signal handlers only set flags.  The loop keeps those signals blocked and
 * waits for them in ppoll() with the usual mask, so none slips in between a
 * check of the flags and the wait.
 */
#define _GNU_SOURCE     /* ppoll, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "async.h"
#include "courier.h"
#include "http.h"
#include "api/engine.h"
#include "health.h"
#include "master.h"
#include "metrics.h"
#include "signals.h"
#include "worker.h"
#include "util/util.h"

#define HEALTHY_LIFE_MS  10000
#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS   10000
#define FORK_RETRY_MS    1000
#define REFUSE_BATCH     64     /* 503s per wake-up, so signals are seen */
#define COURIER_RESTART_MS 1000

struct worker_slot {
	pid_t pid;               /* 0: not running */
	long long started_ms;
	long long respawn_at_ms; /* not before this time */
	unsigned short_lives;    /* lives shorter than HEALTHY_LIFE_MS in a row */
};

struct pool {
	struct engine *engine;
	struct worker_slot *slots;
	unsigned n;
	int listen_fd;
	FCGX_Request refused;    /* the master's own request: 503 while stopping */
	int health_fd;           /* the master's /health socket, or -1 */
	char health_path[128];
	FCGX_Request health;
	pid_t health_child;      /* answering /health now, or 0 */
	pid_t courier;           /* gaol-courier, or 0 */
	long long courier_at_ms; /* start it again not before this time */
	int stop_r, stop_w;      /* stop pipe: the master closes stop_w to stop */
	volatile int *stopping_shared; /* one page shared with the workers */
	pid_t master;
	sigset_t usual;          /* mask of the workers, and of ppoll()'s wait */
	bool stopping;
	int stop_requests_seen;  /* signals already acted upon */
	bool killed;
	int status;              /* what master_run() returns */
};

static volatile sig_atomic_t stop_requests;

static void on_stop(int sig)
{
	(void)sig;
	if (stop_requests < 1000)
		stop_requests++;
}

/* SIGCHLD only has to interrupt ppoll(); the loop reaps every time. */
static void on_child(int sig)
{
	(void)sig;
}

static void start_worker(struct pool *p, unsigned i)
{
	struct worker_slot *w = &p->slots[i];
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "gaol-fcgi: slot %u: fork errno=%d (retrying)\n", i,
			errno);
		w->respawn_at_ms = now_ms() + FORK_RETRY_MS;
		return;
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != p->master)
			_exit(WORKER_EXIT_STOPPED);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		sigprocmask(SIG_SETMASK, &p->usual, NULL);
		close(p->stop_w);
		if (p->health_fd >= 0)
			close(p->health_fd);
		_exit(worker_main(p->engine, i, p->listen_fd, p->stop_r,
				  p->stopping_shared));
	}
	w->pid = pid;
	w->started_ms = now_ms();
}

static void begin_stop(struct pool *p)
{
	if (p->stopping)
		return;
	p->stopping = true;
	*p->stopping_shared = 1;
	p->stop_requests_seen = stop_requests;
	FCGX_InitRequest(&p->refused, p->listen_fd, FCGI_FAIL_ACCEPT_ON_INTR);
	close(p->stop_w);
	p->stop_w = -1;
}

/* A read of a request on the master's sockets may block this long before
 * the connection is dropped: libfcgi reads with blocking reads, and a client
 * that connects and sends nothing must not hold the master (or the /health
 * child). */
#define HEALTH_READ_MS 200

/* on: SIGALRM every HEALTH_READ_MS, so a read that blocks fails with EINTR
 * and libfcgi drops that connection and takes the next; off: SIGALRM's
 * default again (the workers forked later inherit it). */
static int read_ticks(bool on)
{
	return on ? read_timer(HEALTH_READ_MS, HEALTH_READ_MS) : read_timer(0, 0);
}

/* While stopping: whatever is waiting on the socket gets 503.  The socket is
 * non-blocking, so this ends with EAGAIN once the queue is empty; a client
 * that sends nothing is dropped after HEALTH_READ_MS. */
static void refuse_queued(struct pool *p)
{
	if (read_ticks(true) < 0)
		fprintf(stderr, "gaol-fcgi: master: read timer errno=%d\n", errno);
	for (int i = 0; i < REFUSE_BATCH; i++) {
		if (FCGX_Accept_r(&p->refused) < 0)
			break;
		http_refuse_stopping(&p->refused);
	}
	FCGX_Finish_r(&p->refused);
	read_ticks(false);
}

static void describe_exit(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "was killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "ended with wait status %#x", status);
}

static void reap_workers(struct pool *p)
{
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		long long now = now_ms(), delay = 0;
		struct worker_slot *w = NULL;
		unsigned i;
		char how[96];

		if (pid == p->health_child) {
			p->health_child = 0;
			continue;
		}
		if (pid == p->courier) {
			p->courier = 0;
			p->courier_at_ms = now_ms() + COURIER_RESTART_MS;
			continue;
		}
		for (i = 0; i < p->n && !w; i++)
			if (p->slots[i].pid == pid)
				w = &p->slots[i];
		if (!w)
			continue;
		i = (unsigned)(w - p->slots);
		w->pid = 0;
		describe_exit(status, how, sizeof how);
		/* Its claim is unlocked now: the job runs again, elsewhere. */
		if (async_serves_queue(&p->engine->cfg, i))
			async_recover();

		if (WIFEXITED(status) && WEXITSTATUS(status) == WORKER_EXIT_SETUP) {
			if (!p->stopping) {
				fprintf(stderr, "gaol-fcgi: slot %u could not start; "
					"stopping the pool\n", i);
				p->status = 1;
				begin_stop(p);
			}
			continue;
		}
		if (p->stopping)
			continue;
		/* A worker that died in a request left its slot marked busy. */
		metrics_slot_busy(i, false);
		metrics_worker_restart();   /* it is started again below */

		if (now - w->started_ms < HEALTHY_LIFE_MS) {
			if (w->short_lives < 16)
				w->short_lives++;
			delay = (long long)BACKOFF_FIRST_MS << (w->short_lives - 1);
			if (delay > BACKOFF_MAX_MS)
				delay = BACKOFF_MAX_MS;
		} else {
			w->short_lives = 0;
		}
		w->respawn_at_ms = now + delay;
		fprintf(stderr, "gaol-fcgi: slot %u: worker %d %s; "
			"restarting in %lld ms\n", i, (int)pid, how, delay);
	}
}

static unsigned workers_alive(const struct pool *p)
{
	unsigned alive = 0;

	for (unsigned i = 0; i < p->n; i++)
		alive += p->slots[i].pid != 0;
	return alive;
}

/* Answers what is queued on the /health socket: 503 while stopping, else
 * whether a worker is alive (ok). */
static void serve_health_queue(struct pool *p, bool ok)
{
	for (;;) {
		if (FCGX_Accept_r(&p->health) < 0)
			break;
		if (p->stopping)
			http_refuse_stopping(&p->health);
		else
			http_serve_health(p->engine, &p->health, ok);
	}
	FCGX_Finish_r(&p->health);
}

/* GET /health on the master's own socket: answered at once, whatever the
 * workers are doing, by a child of the master.  libfcgi reads a request
 * with blocking reads, and a client that connects and sends nothing must
 * not hold the master, which replaces dead workers and hears SIGTERM; in
 * the child a timer interrupts any read that blocks for HEALTH_READ_MS, and
 * libfcgi drops that connection and takes the next.  The child ends when
 * the queue is empty; the master does not poll the socket while it lives. */
static void answer_health(struct pool *p)
{
	bool ok = workers_alive(p) > 0;
	pid_t pid = fork();

	if (pid < 0) {
		/* Answered here, its reads cut as in the child: polled
		 * again, the socket would only ask for another fork. */
		fprintf(stderr, "gaol-fcgi: master: fork for /health errno=%d; "
			"answering it in the master\n", errno);
		read_ticks(true);
		serve_health_queue(p, ok);
		read_ticks(false);
		return;
	}
	if (pid > 0) {
		p->health_child = pid;
		return;
	}
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != p->master)
		_exit(1);
	prctl(PR_SET_NAME, "gaol-health");
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	close(p->listen_fd);
	if (p->stop_w >= 0)
		close(p->stop_w);
	if (read_ticks(true) < 0)
		_exit(1);
	sigprocmask(SIG_SETMASK, &p->usual, NULL);
	serve_health_queue(p, ok);
	_exit(0);
}

/* The /health child goes with the master (stopping, it is killed: it holds
 * no request of a worker's). */
static void end_health_child(struct pool *p)
{
	if (!p->health_child)
		return;
	kill(p->health_child, SIGKILL);
	while (waitpid(p->health_child, NULL, 0) < 0 && errno == EINTR)
		;
	p->health_child = 0;
}

/* The /health socket beside the pool's; a fault is a start-up error. */
static int open_health(struct pool *p)
{
	char err[256];

	p->health_fd = health_listen(p->listen_fd, p->health_path,
				     sizeof(p->health_path), err, sizeof(err));
	if (p->health_fd < 0 && err[0]) {
		fprintf(stderr, "gaol-fcgi: master: %s\n", err);
		return -1;
	}
	if (p->health_fd < 0)
		fprintf(stderr, "gaol-fcgi: the pool's socket has no path: "
			"/health is answered by the workers\n");
	else
		FCGX_InitRequest(&p->health, p->health_fd, FCGI_FAIL_ACCEPT_ON_INTR);
	return 0;
}

/* Starts the workers that are due; returns ms until the next one is (-1:
 * none pending). */
static long long start_due_workers(struct pool *p)
{
	long long next = -1, now = now_ms();

	for (unsigned i = 0; i < p->n && !p->stopping; i++) {
		struct worker_slot *w = &p->slots[i];

		if (w->pid)
			continue;
		if (w->respawn_at_ms <= now)
			start_worker(p, i);
		if (!w->pid && (next < 0 || w->respawn_at_ms - now < next))
			next = w->respawn_at_ms - now;
	}
	return next;
}

/* gaol-courier, when it is due; ms until it is (-1: nothing pending). */
static long long start_due_courier(struct pool *p, long long next)
{
	long long now = now_ms(), wait;

	if (p->stopping || p->courier)
		return next;
	if (p->courier_at_ms <= now) {
		pid_t pid = courier_start(p->engine, p->master, p->stop_w);
		if (pid > 0)
			p->courier = pid;
		else
			p->courier_at_ms = now + COURIER_RESTART_MS;
	}
	if (p->courier)
		return next;
	wait = p->courier_at_ms - now;
	return next < 0 || wait < next ? wait : next;
}

static void end_courier(struct pool *p)
{
	if (!p->courier)
		return;
	kill(p->courier, SIGKILL);
	while (waitpid(p->courier, NULL, 0) < 0 && errno == EINTR)
		;
	p->courier = 0;
}

static void kill_workers(struct pool *p)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->slots[i].pid)
			kill(p->slots[i].pid, SIGKILL);
}

/* Waits up to next ms (-1: until something happens) for a signal, a
 * /health request or, while stopping, a request to refuse; answers those. */
static void wait_and_answer(struct pool *p, long long next)
{
	struct pollfd pfd[2] = {
		{ .fd = p->stopping ? p->listen_fd : -1, .events = POLLIN }, /* -1: not polled */
		{ .fd = p->health_child ? -1 : p->health_fd, .events = POLLIN },
	};
	struct timespec ts = { .tv_sec = next / 1000,
			       .tv_nsec = (next % 1000) * 1000000 };

	if (ppoll(pfd, 2, next < 0 ? NULL : &ts, &p->usual) < 0 &&
	    errno != EINTR) {
		fprintf(stderr, "gaol-fcgi: master: ppoll errno=%d\n", errno);
		p->status = 1;
		begin_stop(p);
	}
	if (pfd[0].revents & POLLIN)
		refuse_queued(p);
	if (pfd[1].revents & POLLIN)
		answer_health(p);
}

int master_run(struct engine *e, int listen_fd)
{
	unsigned n_slots = e->cfg.concurrency;
	struct pool p = {
		.engine = e, .n = n_slots, .listen_fd = listen_fd, .master = getpid(),
	};
	sigset_t ours;
	int pipefd[2];

	/* Before the fork: what was running when the service last stopped is
	 * queued again before any worker can claim it. */
	char err[256];
	if (async_start(e, err, sizeof err) < 0) {
		fprintf(stderr, "gaol-fcgi: %s\n", err);
		close(listen_fd);
		return 1;
	}
	p.slots = calloc(n_slots, sizeof *p.slots);
	if (!p.slots || pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "gaol-fcgi: master: slots, stop pipe errno=%d\n", errno);
		free(p.slots);
		return 1;
	}
	p.stop_r = pipefd[0];
	p.stop_w = pipefd[1];
	/* Set by the master when it stops and by the worker that answers
	 * POST /shutdown before its 200 leaves: a request a worker accepts
	 * after that is refused (503), however the wake-ups race. */
	p.stopping_shared = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p.stopping_shared == MAP_FAILED) {
		fprintf(stderr, "gaol-fcgi: master: shared stop flag errno=%d\n", errno);
		free(p.slots);
		return 1;
	}
	*p.stopping_shared = 0;

	sigemptyset(&p.usual);
	sigemptyset(&ours);
	sigaddset(&ours, SIGTERM);
	sigaddset(&ours, SIGINT);
	sigaddset(&ours, SIGCHLD);
	sigprocmask(SIG_SETMASK, &ours, NULL);
	if (install_handler(SIGTERM, on_stop) < 0 ||
	    install_handler(SIGINT, on_stop) < 0 ||
	    install_handler(SIGCHLD, on_child) < 0) {
		fprintf(stderr, "gaol-fcgi: master: sigaction errno=%d\n",
			errno);
		free(p.slots);
		return 1;
	}

	if (open_health(&p) < 0) {
		free(p.slots);
		return 1;
	}
	for (;;) {
		reap_workers(&p);
		if (stop_requests > 0 && !p.stopping) {
			fprintf(stderr, "gaol-fcgi: stopping: runs in progress "
				"finish first\n");
			begin_stop(&p);
		}
		if (p.stopping && !p.killed && stop_requests > p.stop_requests_seen) {
			fprintf(stderr, "gaol-fcgi: stopping now: killing the "
				"workers\n");
			kill_workers(&p);
			p.killed = true;
		}
		if (p.stopping && workers_alive(&p) == 0)
			break;
		wait_and_answer(&p, start_due_courier(&p, start_due_workers(&p)));
	}

	end_health_child(&p);
	end_courier(&p);
	refuse_queued(&p);
	close(p.listen_fd);
	if (p.health_fd >= 0) {
		close(p.health_fd);
		unlink(p.health_path);
	}
	close(p.stop_r);
	free(p.slots);
	if (p.status == 0)
		fprintf(stderr, "gaol-fcgi: stopped\n");
	return p.status;
}
