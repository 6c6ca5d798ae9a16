/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inside: the code that runs in the run's own processes, init (PID 1 of the
 * run's PID namespace) and the payload before its execve.  It only makes
 * system calls on what the worker prepared (struct plan): no malloc here
 * (grep -En 'alloc|strdup|asprintf' core/inside/[a-z]*.c finds nothing), so
 * nothing in the worker's heap is touched by a process that shares it.
 */
#ifndef GAOL_INSIDE_H
#define GAOL_INSIDE_H

#include <stddef.h>

#include "plan/plan.h"

/* init's life, from clone to exit (init.c). */
__attribute__((noreturn)) void init_main(struct plan *p);
/* A setup step failed: say which on the report pipe, and stop before any
 * user code runs. */
__attribute__((noreturn)) void init_fail(const struct plan *p, const char *step);

/* The mount view (mounts.c): what no request decides, then the request's
 * part and pivot_root.  mounts_build_request returns the upper layer's fd. */
void mounts_build_static(const struct plan *p);
int mounts_build_request(const struct plan *p);

#endif
