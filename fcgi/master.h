/* SPDX-License-Identifier: Apache-2.0 */
/*
 * master: the prefork pool.  It forks one worker per slot, replaces a worker
 * that dies (with a back-off, so a crash loop does not spin) and stops the
 * pool gracefully on SIGTERM or SIGINT: workers stop accepting, runs in
 * progress finish, then the master returns.
 */
#ifndef GAOL_FCGI_MASTER_H
#define GAOL_FCGI_MASTER_H

struct engine;

/* Runs a pool of one worker per slot of e (configuration and languages
 * loaded once, here, and inherited by every worker) on listen_fd until it is
 * stopped.  Returns the exit code for main: 0 after a graceful stop, 1 when a
 * worker could not start (a setup fault: the pool fails closed rather than
 * limp along).  Takes listen_fd over and closes it. */
int master_run(struct engine *e, int listen_fd);

#endif
