/* SPDX-License-Identifier: Apache-2.0 */
/*
 * watch: which deadline, if any, has passed for the run a worker supervises
 * (docs/design.md, "Judging"): the CPU ceiling, the no-progress window with
 * its two brakes (a thread waiting for the disk, the run waiting for a CPU),
 * the absolute cap, the request's budget, and the set-up bound; or /run's
 * and a build's timeout.  Private to core/run/.
 */
#ifndef GAOL_WATCH_H
#define GAOL_WATCH_H

#include <stdbool.h>

#include "run/sandbox.h"

struct watch {
	long t0, last_progress, last_blocked_check;
	long excused;            /* a build's wall clock not counted: */
	long excused_disk;       /* of which the disk's (excuse_blocked_ms) */
	long long last_cpu_us;
	bool started;            /* the deadlines run (setup_max_ms: from the
				  * program's start, REPORT_START) */
	long long cpu0_us;       /* CPU time at the program's start */
	long long wait_us;       /* the run's CPU wait at the last look, or -1 */
	long long throttled_us;  /* its quota's throttled time then, or -1 */
	long long look_cpu_us;   /* its CPU time then */
};

/* The deadline that has passed at now (DEADLINE_NONE: none). */
enum deadline deadline_passed(const struct slot *s, const struct sandbox_spec *spec,
			      struct watch *w, long now);
/* The program started at start_ms (init's REPORT_START): res->setup_ms and
 * res->start_ms, and a judged run's deadlines count from here. */
void watch_start(const struct slot *s, const struct sandbox_spec *spec, struct watch *w,
		 long start_ms, struct sandbox_result *res);
/* How long poll() may sleep before the deadlines are looked at again. */
long next_wake(const struct sandbox_spec *spec, const struct watch *w, long now);

#endif
