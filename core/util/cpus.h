/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpus: which CPU a worker's own work runs on (docs/design.md, "CPU
 * placement").  A worker, its judging lanes and the inits they clone stay on
 * one CPU of the service's set each (round-robin by slot), so that the
 * hand-offs of a run (worker, init, payload, init, worker) wake a process on
 * the CPU it last ran on; the program a run executes gets the whole set back
 * before execve.  Nothing here allocates: init and the payload call it.
 */
#ifndef GAOL_UTIL_CPUS_H
#define GAOL_UTIL_CPUS_H

#include <stdbool.h>

/* The CPUs this process may use, as the service was started: the set a
 * program gets back.  Called once, before any pinning. */
void cpus_note(void);

/* This process onto the k-th CPU of the noted set (k modulo its size), and
 * k kept as this worker's place for its lanes.  false when nothing was
 * pinned: fewer than two CPUs, or the kernel refused. */
bool cpus_pin(unsigned k);

/* A judging lane of a pinned worker: onto the CPU lane places after the
 * worker's own; nothing when the worker is not pinned. */
void cpus_pin_lane(unsigned lane);

/* The whole noted set again, when this process was pinned (the payload,
 * before execve); should the kernel refuse it (its CPUs taken out of the
 * cpuset since the start), every CPU the cgroup allows.  -1 when even that
 * was refused, 0 otherwise. */
int cpus_unpin(void);

#endif
