/* SPDX-License-Identifier: Apache-2.0 */
/*
 * async: Judge0's asynchronous side in gaol-fcgi (docs/api.md, "Judge0's
 * queue"; docs/design.md, "The queue").  It owns the routes that touch the
 * queue (POST /submissions, whose wait=true it hands to judge0/; GET and
 * DELETE /submissions/{token}; POST and GET /submissions/batch) and the
 * loop of the workers that serve the queue instead of HTTP.  The on-disk
 * states are queue/'s; a job's and a result's contents are judge0/'s.
 *
 * The queue's handle is opened once by the master before it forks (like
 * the configuration), and each process keeps its inherited directories.
 */
#ifndef GAOL_FCGI_ASYNC_H
#define GAOL_FCGI_ASYNC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/engine.h"
#include "http.h"

struct queue;

/* In the master, before the workers: opens RUN_QUEUE_DIR and queues again
 * what was running when the service last stopped.  -1 with err. */
int async_start(const struct engine *e, char *err, size_t errlen);
/* The master, after a queue worker died: its job is queued again. */
void async_recover(void);
/* The queue (NULL before async_start). */
struct queue *async_queue(void);

/* Whether slot serves the queue (the last RUN_QUEUE_SLOTS of the pool). */
bool async_serves_queue(const struct gaol_config *cfg, unsigned slot);

/* A queue worker's loop, on its taken slot: claim, run, write, until
 * stop_fd hangs up or *signalled is set.  Its exit code. */
int async_worker_loop(struct engine *e, int stop_fd,
		      volatile sig_atomic_t *signalled);

/* The routes' handlers (fcgi/http.c's table: POST /submissions, POST and
 * GET /submissions/batch, GET and DELETE /submissions/{token}). */
handler_fn async_submit, async_batch_create, async_batch_show, async_show,
	async_delete;

#endif
