/* SPDX-License-Identifier: Apache-2.0 */
/*
 * worker: the accept loop of one pool process (see worker.h).
 *
 * Why a worker never hangs in accept(), and how it stops:
 * libfcgi's OS_Accept() (os_unix.c) calls accept() in a loop that retries on
 * EINTR unless the request was set up with FCGI_FAIL_ACCEPT_ON_INTR.  Even with
 * that flag a blocking accept() is a trap: a SIGTERM landing between our "must
 * I stop?" check and the accept() call is lost, and an idle worker then sleeps
 * until the next connection, which during a stop may never come.  So a worker
 * never blocks inside libfcgi:
 * - The listening socket is non-blocking (the master sets O_NONBLOCK once on
 *   the open file description all workers share).  Linux does not hand
 *   O_NONBLOCK on to accepted sockets, so libfcgi's reads and writes on a
 *   connection stay blocking, as it expects.
 * - The worker waits in ppoll() on the listening socket and on the read end of
 *   the master's stop pipe.  SIGTERM and SIGINT are blocked while the stop flag
 *   is checked and unblocked atomically inside ppoll() only (the pselect
 *   pattern): a signal is either seen by the check or interrupts the wait.
 * - When ppoll() reports a pending connection, FCGX_Accept_r() takes it.  If
 *   another worker was quicker, accept() fails with EAGAIN; OS_Accept() does
 *   not retry that errno and returns it, and the worker goes back to waiting.
 *
 * The master stops the pool by closing the write end of the stop pipe, not by
 * signalling: a busy worker gets no signal in the middle of a run (the
 * engine's supervision never sees an EINTR it did not ask for) and notices
 * the stop when it next waits, and exits; the master answers 503 to whatever
 * is queued on the socket meanwhile.  A SIGTERM sent to one worker directly (an
 * operator, a control-group kill) is honoured the same way: the handler sets
 * a flag, SA_RESTART lets a run in progress go on, and the worker exits when
 * it is next idle; the master replaces it.
 *
 * Dispositions are handlers, never SIG_IGN: SIG_IGN survives execve, so an
 * ignored SIGPIPE or SIGINT would leak into every program the engine starts,
 * while a handler is reset to the default by execve.
 */
#define _GNU_SOURCE     /* ppoll, pipe2 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "api/engine.h"
#include "util/cpus.h"
#include "async.h"
#include "http.h"
#include "signals.h"
#include "worker.h"

static volatile sig_atomic_t stop_signalled;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_signalled = 1;
}

/* A write to a web server that went away fails with EPIPE instead. */
static void on_sigpipe(int sig)
{
	(void)sig;
}

enum wake {
	WAKE_CONNECTION,        /* a connection is waiting on the socket */
	WAKE_SIGNALLED,         /* SIGTERM/SIGINT to this worker */
	WAKE_POOL_STOP,         /* the master closed the stop pipe */
	WAKE_AGAIN,             /* a signal that is not ours: wait again */
	WAKE_FAULT,             /* the socket itself failed; errno says why */
};

static enum wake wait_for_work(int listen_fd, int stop_fd)
{
	struct pollfd pfd[2] = {
		{ .fd = listen_fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	sigset_t stop_signals, usual;
	int n, saved;

	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	sigprocmask(SIG_BLOCK, &stop_signals, &usual);
	if (stop_signalled) {
		sigprocmask(SIG_SETMASK, &usual, NULL);
		return WAKE_SIGNALLED;
	}
	n = ppoll(pfd, 2, NULL, &usual);
	saved = errno;
	sigprocmask(SIG_SETMASK, &usual, NULL);

	if (n < 0) {
		errno = saved;
		return saved == EINTR ? WAKE_AGAIN : WAKE_FAULT;
	}
	if (pfd[1].revents)
		return WAKE_POOL_STOP;
	if (pfd[0].revents & POLLIN)
		return WAKE_CONNECTION;
	if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
		errno = EBADF;
		return WAKE_FAULT;
	}
	return WAKE_AGAIN;
}

/* accept() errors that say "not now" rather than "this socket is broken". */
static bool accept_error_is_transient(int err)
{
	switch (err) {
	case EAGAIN:            /* another worker took the connection */
	case EINTR:
	case ECONNABORTED:
	case EPROTO:
		return true;
	case EMFILE:            /* out of something: pause, then try again */
	case ENFILE:
	case ENOBUFS:
	case ENOMEM: {
		struct timespec pause = { 0, 100 * 1000 * 1000 };
		nanosleep(&pause, NULL);
		return true;
	}
	default:
		return false;
	}
}

/* Whatever started gaol-fcgi may have left signals ignored (a shell ignores
 * SIGINT and SIGQUIT in its background jobs, systemd ignores SIGPIPE), and
 * SIG_IGN survives execve: the programs the engine runs would inherit it. */
static void unignore_signals(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sig != SIGKILL && sig != SIGSTOP &&
		    sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			signal(sig, SIG_DFL);
	}
}

/* The last RUN_QUEUE_SLOTS workers serve Judge0's queue, not the socket. */
static int serve_queue(struct engine *e, int listen_fd, int stop_fd,
		       FCGX_Request *req)
{
	int code;

	FCGX_Free(req, 0);
	close(listen_fd);
	code = async_worker_loop(e, stop_fd, &stop_signalled);
	engine_free(e);
	return code;
}

int worker_main(struct engine *engine, unsigned slot, int listen_fd, int stop_fd,
		volatile int *stopping)
{
	int code = WORKER_EXIT_STOPPED;
	struct engine e = *engine;      /* configuration and languages: the master's */
	FCGX_Request req;
	char err[512];

	unignore_signals();
	if (install_handler(SIGTERM, on_stop_signal) < 0 ||
	    install_handler(SIGINT, on_stop_signal) < 0 ||
	    install_handler(SIGPIPE, on_sigpipe) < 0) {
		fprintf(stderr, "gaol-fcgi: slot %u: sigaction errno=%d\n", slot,
			errno);
		return WORKER_EXIT_SETUP;
	}
	/* Before the slot: the sandbox built ahead is cloned on its CPU too. */
	if (!e.cfg.unpinned)
		cpus_pin(slot);
	if (engine_take_slot(&e, slot, err, sizeof err) < 0) {
		fprintf(stderr, "gaol-fcgi: slot %u: %s\n", slot, err);
		return WORKER_EXIT_SETUP;
	}
	if (FCGX_InitRequest(&req, listen_fd, FCGI_FAIL_ACCEPT_ON_INTR) != 0) {
		fprintf(stderr, "gaol-fcgi: slot %u: FCGX_InitRequest failed\n",
			slot);
		engine_free(&e);
		return WORKER_EXIT_SETUP;
	}
	if (e.cfg.debug)
		fprintf(stderr, "gaol-fcgi: slot %u: ready, pid %d\n", slot,
			(int)getpid());
	if (async_serves_queue(&e.cfg, slot))
		return serve_queue(&e, listen_fd, stop_fd, &req);

	for (;;) {
		enum wake w = wait_for_work(listen_fd, stop_fd);
		enum http_after after;
		int rc;

		if (w == WAKE_SIGNALLED || w == WAKE_POOL_STOP)
			break;
		if (w == WAKE_FAULT) {
			fprintf(stderr, "gaol-fcgi: slot %u: listening socket errno=%d\n",
				slot, errno);
			code = WORKER_EXIT_ACCEPT;
			break;
		}
		if (w == WAKE_AGAIN)
			continue;

		/* Till the body is read: http_serve stops it before a handler. */
		if (read_timer(REQUEST_READ_MS, REQUEST_READ_MS) < 0)
			fprintf(stderr, "gaol-fcgi: slot %u: read timer errno=%d\n", slot,
				errno);
		rc = FCGX_Accept_r(&req);
		if (rc < 0) {
			read_timer(0, 0);
			if (rc > -4096 && accept_error_is_transient(-rc))
				continue;
			/* libfcgi returns -errno, or a code of its own below -4096. */
			fprintf(stderr, "gaol-fcgi: slot %u: accept %s=%d\n", slot,
				rc > -4096 ? "errno" : "libfcgi error", rc > -4096 ? -rc : rc);
			code = WORKER_EXIT_ACCEPT;
			break;
		}
		if (*stopping) {
			read_timer(0, 0);
			http_refuse_stopping(&req);
			FCGX_Finish_r(&req);
			continue;
		}
		after = http_serve(&e, &req);
		read_timer(0, 0);       /* a path with no route: not stopped yet */
		/* The 200 of /shutdown is still in libfcgi's buffer: the pool is
		 * marked stopping before a client can read it and send more. */
		if (after == HTTP_AFTER_SHUTDOWN) {
			*stopping = 1;
			if (kill(getppid(), SIGTERM) < 0)
				fprintf(stderr, "gaol-fcgi: slot %u: kill master errno=%d\n",
					slot, errno);
		}
		FCGX_Finish_r(&req);
		engine_idle(&e);
	}

	FCGX_Finish_r(&req);
	engine_free(&e);
	return code;
}
