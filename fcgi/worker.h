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

/* Serves on listen_fd (non-blocking, shared by all workers) until stop_fd,
 * the read end of the master's stop pipe, becomes readable or hangs up, or a
 * SIGTERM/SIGINT reaches this process.  Returns the process's exit code. */
struct engine;

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
/* stopping: shared with the master and every worker; once set, accepted
 * requests are answered 503. */
int worker_main(struct engine *e, unsigned slot, int listen_fd, int stop_fd,
		volatile int *stopping);

#endif
