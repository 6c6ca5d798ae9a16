/* SPDX-License-Identifier: Apache-2.0 */
/*
 * worker: one process of the pool.  It takes slot i of the engine (its UID and
 * cgroup), then accepts FastCGI requests on the shared listening socket and
 * answers them one at a time until it is told to stop.
 */
#ifndef GAOL_FCGI_WORKER_H
#define GAOL_FCGI_WORKER_H

/* Exit codes the master reads. */
enum {
	WORKER_EXIT_STOPPED = 0,   /* told to stop, or a signal: respawn if due */
	WORKER_EXIT_SETUP = 78,    /* engine_take_slot failed (EX_CONFIG): fatal */
	WORKER_EXIT_ACCEPT = 71,   /* the listening socket failed (EX_OSERR) */
};

struct engine;

/* Serves on listen_fd (non-blocking, shared by all workers) until stop_fd,
 * the read end of the master's stop pipe, becomes readable or hangs up, or a
 * SIGTERM/SIGINT reaches this process.  Returns the process's exit code.
 * stopping: shared with the master and every worker; once set, accepted
 * requests are answered 503. */
int worker_main(struct engine *e, unsigned slot, int listen_fd, int stop_fd,
		volatile int *stopping);

#endif
