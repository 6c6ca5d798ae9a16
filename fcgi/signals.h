/* SPDX-License-Identifier: Apache-2.0 */
/*
 * signals: what the front end's processes (the master, its /health child,
 * the workers, http.c's handlers) set for signals: a handler that only sets
 * a flag, and the SIGALRM timer that bounds a request's reads.  A file of its
 * own, so that http.c, worker.c and master.c each use it without using
 * each other.
 */
#ifndef GAOL_FCGI_SIGNALS_H
#define GAOL_FCGI_SIGNALS_H

/* sigaction with handler, an empty mask and SA_RESTART (never SIG_IGN: an
 * ignored signal survives execve into the programs the engine starts). */
int install_handler(int sig, void (*handler)(int));
/* A request's params and body must have arrived this long after the worker
 * began to accept it (and each next connection libfcgi takes in the same
 * accept, when one was dropped, within the next such tick): a client that
 * sends nothing, or stalls, is dropped then and holds the worker no longer. */
#define REQUEST_READ_MS 10000
/* SIGALRM after first_ms, then every every_ms (0: once), with a handler that
 * does nothing and no SA_RESTART, so that a read(2) that blocks until then
 * fails with EINTR and libfcgi drops that connection or ends the stream.
 * (0, 0): the timer stopped, then SIGALRM's default again (what is forked
 * and run afterwards inherits it).  -1 with errno when it could not. */
int read_timer(unsigned first_ms, unsigned every_ms);

#endif
