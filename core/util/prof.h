/* SPDX-License-Identifier: Apache-2.0 */
/*
 * prof: where a worker's cycle goes (issue 13), step by step.  Compiled in
 * only with -DGAOL_PROFILE (`make BUILD=build-prof CFLAGS='-O2 -g
 * -DGAOL_PROFILE'`); otherwise every call is an empty inline.  The totals
 * are this process's own (a worker's, or gaol-run --repeat's), printed by
 * gaol-run --repeat as a mean per cycle.  Nothing here allocates.
 */
#ifndef GAOL_PROF_H
#define GAOL_PROF_H

#include <stdio.h>

enum prof_step {
	PROF_RUN,        /* engine_run: the request, end to end */
	PROF_BEGIN,      /*   its cgroup set-up (cgroup_slot_begin) */
	PROF_HANDOFF,    /*   the request to the sandbox built ahead (or a clone) */
	PROF_SUPERVISE,  /*   from there to init's report: */
	PROF_INIT_WAKE,  /*     init has the request (go pipe, decoded) */
	PROF_INIT_VIEW,  /*     the request's view (tmpfs, overlay, pivot_root) */
	PROF_PAYLOAD,    /*     the payload, clone to reaped */
	PROF_INIT_END,   /*     the rest killed, report read by the worker */
	PROF_REAP,       /* reaping the last run's init (idle) */
	PROF_MNTNS_DROP, /* letting its mount namespace go (idle) */
	PROF_SETTLE,     /* memory.force_empty (idle) */
	PROF_NETNS,      /* a new network namespace (idle) */
	PROF_NETNS_CHECK,/* proving the used one empty, to reuse it (idle) */
	PROF_CLONE,      /* pipes and the clone of the next init (idle) */
	PROF_STEPS
};

#ifdef GAOL_PROFILE
long long prof_begin(void);
void prof_end(enum prof_step step, long long t0);
/* Adds a span measured elsewhere (init's clock is the same monotonic one). */
void prof_add(enum prof_step step, long long us);
/* The mean of each step per cycle (cycles of them), and how many times each
 * happened. */
void prof_report(FILE *out, long cycles);
#else
static inline long long prof_begin(void) { return 0; }
static inline void prof_end(enum prof_step step, long long t0) { (void)step; (void)t0; }
static inline void prof_add(enum prof_step step, long long us) { (void)step; (void)us; }
static inline void prof_report(FILE *out, long cycles) { (void)out; (void)cycles; }
#endif
#endif
