/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpus: see cpus.h.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "util/cpus.h"

static cpu_set_t noted;         /* the service's set, as started */
static int noted_n;             /* its size; 0 before cpus_note or when unknown */
static bool pinned;
static unsigned place;          /* the k of the worker's cpus_pin */

void cpus_note(void)
{
	/* More CPUs than a cpu_set_t holds: sched_getaffinity refuses, and
	 * nothing is ever pinned. */
	noted_n = sched_getaffinity(0, sizeof(noted), &noted) == 0 ? CPU_COUNT(&noted) : 0;
}

/* The k-th CPU of the noted set, k < noted_n. */
static int nth_cpu(int k)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &noted) && k-- == 0)
			return c;
	return -1;
}

static bool pin_to(unsigned k)
{
	if (noted_n < 2)
		return false;
	int c = nth_cpu((int)(k % (unsigned)noted_n));
	if (c < 0)
		return false;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(c, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return false;
	pinned = true;
	return true;
}

bool cpus_pin(unsigned k)
{
	place = k;
	return pin_to(k);
}

void cpus_pin_lane(unsigned lane)
{
	if (pinned)
		pin_to(place + lane);
}

int cpus_unpin(void)
{
	if (!pinned || sched_setaffinity(0, sizeof(noted), &noted) == 0)
		return 0;
	/* The noted set is gone (its CPUs taken out of the cpuset, or
	 * offline): every CPU the cgroup still allows, rather than one. */
	cpu_set_t all;
	CPU_ZERO(&all);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	return sched_setaffinity(0, sizeof(all), &all);
}
