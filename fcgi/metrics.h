/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics: gaol-fcgi's Prometheus counters, and GET /metrics in the text
 * exposition format (answered by the worker itself, no sandbox).
 *
 * The counters live in one shared anonymous mapping that the master makes
 * before it forks the workers (metrics_init), so every worker adds to the
 * same numbers with atomic operations, and a worker that dies and is
 * respawned neither loses nor resets them.  A restart of the master (the
 * service) starts them at zero, as Prometheus expects of a new process.
 *
 * The mapping is set once at start-up, like the configuration; after that
 * only its counters change.
 */
#ifndef GAOL_FCGI_METRICS_H
#define GAOL_FCGI_METRICS_H

#include <stdbool.h>

#include "api/engine.h"

/* In the master, before the workers fork.  -1 with errno when the mapping
 * cannot be made (the pool then runs without metrics: /metrics is 500). */
int metrics_init(const struct engine *e);

void metrics_request(const char *route, int status);
/* One run: a /run, or one test case of /evaluate (outcome = its verdict). */
void metrics_run(const char *language, const char *outcome, long long wall_ms,
		 long long cpu_ms);
void metrics_sandbox_failure(void);
void metrics_compile(bool cached);
void metrics_worker_restart(void);
void metrics_slot_busy(unsigned slot, bool busy);
/* Judge0's queue: a job's wait from its creation to its claim; a callback
 * sent (2xx) or given up; the results kept now (the courier's sweep). */
void metrics_queue_wait(long long ms);
void metrics_callback(bool sent);
void metrics_results(unsigned long long kept, unsigned long long bytes);

/* GET /metrics: the exposition text in a. */
void metrics_render(const struct engine *e, struct answer *a);

#endif
