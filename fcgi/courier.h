/* SPDX-License-Identifier: Apache-2.0 */
/*
 * courier: gaol-courier, a child of the master that holds no slot and runs
 * no program.  It sends Judge0's callbacks (a PUT of the submission, as
 * Judge0 sends it: base64_encoded, the default fields) with libcurl, a
 * bounded number of tries each, and sweeps the results kept past
 * RUN_RESULT_TTL and RUN_RESULT_MAX.  A callback is marked on disk by the
 * queue worker that ends its submission (queue/queue.h), so one that was
 * being sent when the service stopped is sent again at the next start: at
 * least once, as Judge0's own retries are.
 */
#ifndef GAOL_FCGI_COURIER_H
#define GAOL_FCGI_COURIER_H

#include <sys/types.h>

#include "api/engine.h"

/* Forks the courier; its pid, or -1 with errno.  It ends with the master
 * (PR_SET_PDEATHSIG) or when killed.  stop_w: the write end of the pool's
 * stop pipe, closed in the child (the workers stop when it hangs up). */
pid_t courier_start(const struct engine *e, pid_t master, int stop_w);

#endif
