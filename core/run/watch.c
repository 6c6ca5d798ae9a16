/* SPDX-License-Identifier: Apache-2.0 */
/*
 * watch: the deadlines of one run, enforced while the worker supervises it
 * (sandbox.c calls them from its poll loop; see watch.h).  /run has one,
 * its timeout; a build its timeout less what it waited for the disk;
 * judging three, which the judge computed (judge/lanes.c, run_test), all
 * counted from the program's start.  Here they are only enforced.
 */
#define _GNU_SOURCE
#include <stdbool.h>

#include "run/watch.h"
#include "slot/cgroup.h"
#include "slot/slot.h"

/* A run whose CPU time stands still this long is asked, this often, whether
 * it waits for the disk. */
#define STILL_MS 500
#define BLOCKED_CHECK_MS 100

/* A build's waits that are not its own, from one look at its threads (one
 * per BLOCKED_CHECK_MS): *disk, the time since the look before when a
 * thread waits in the kernel (state D); *cpu, the CPU wait the host counted
 * since then (the threads' summed waits, or the quota's throttled time,
 * whichever is more), within the wall clock not yet excused. */
static void build_waits(const struct slot *s, struct watch *w, long now, long *disk,
			long *cpu)
{
	struct run_threads t;
	*disk = *cpu = 0;
	if (now - w->last_blocked_check < BLOCKED_CHECK_MS)
		return;
	long since = now - w->last_blocked_check;
	w->last_blocked_check = now;
	if (cgroup_run_threads(&s->cg, &t) < 0)
		return;
	long long waited = t.wait_us >= 0 && w->wait_us >= 0 && t.wait_us > w->wait_us
		? (t.wait_us - w->wait_us) / 1000 : 0;
	long long held = t.throttled_us >= 0 && w->throttled_us >= 0 &&
		t.throttled_us > w->throttled_us ? (t.throttled_us - w->throttled_us) / 1000 : 0;
	w->wait_us = t.wait_us;
	w->throttled_us = t.throttled_us;
	if (held > waited)
		waited = held;
	/* A look may see a wait that began before the look before (a quota's
	 * throttled time lands when its period ends; a thread in D hides the
	 * CPU wait of its look): what is excused is bounded by the wall clock
	 * since the start, not by the time since the last look. */
	if (t.blocked)
		*disk = since;
	long left = now - w->t0 - w->excused - *disk;
	*cpu = waited < left ? (long)waited : left > 0 ? left : 0;
}

/* The no-progress window's two brakes (docs/design.md, "Judging"), one
 * look at the run's threads every BLOCKED_CHECK_MS.  Waiting in the kernel
 * uninterruptibly is not idling: a runtime that faults its cold libraries
 * in from a slow disk spends seconds so with almost no CPU, so once the CPU
 * stood still STILL_MS a thread in D is progress (a program that contrives
 * to stay so meets the absolute deadline).  Waiting for a CPU does not
 * advance the window: when the run's CPU time has not moved at all since
 * the look before, the time it waited is taken off (at most the window):
 * the wait the host counted since then, or, a thread being runnable now,
 * the whole time since then (v1's count reaches a wait only when the
 * thread gets a CPU again: under a quota, seconds later).  A run whose CPU
 * time moved, however little, is not waiting for a CPU: a JVM whose
 * program sleeps ticks, and under a load of 20 its threads' waits summed
 * nearly to the wall clock, which kept a sleeper's window from ending. */
static void brakes(const struct slot *s, struct watch *w, long now, long long cpu)
{
	if (now - w->last_blocked_check < BLOCKED_CHECK_MS)
		return;
	long since = now - w->last_blocked_check;
	bool frozen = cpu == w->look_cpu_us;
	struct run_threads t;
	w->last_blocked_check = now;
	w->look_cpu_us = cpu;
	if (w->last_progress > now - since) {
		/* Progress since the look before: no look needed, and what
		 * the run waited until now is no excuse (a new baseline). */
		w->wait_us = -1;
		return;
	}
	if (cgroup_run_threads(&s->cg, &t) < 0)
		return;
	long window = now - w->last_progress;
	long long waited = t.wait_us >= 0 && w->wait_us >= 0 && t.wait_us > w->wait_us
		? (t.wait_us - w->wait_us) / 1000 : 0;
	if (t.wait_us >= 0)
		w->wait_us = t.wait_us;
	if (t.blocked && window >= STILL_MS) {
		w->last_progress = now;
		return;
	}
	if (!frozen)
		return;
	if (t.runnable && waited < since)
		waited = since;
	w->last_progress += (long)(waited < window ? waited : window);
}

/* A build's (or /run's) one deadline: its wall clock, less up to
 * excuse_blocked_ms of what a build waited for the disk (a compiler read
 * from a cold page cache) and less all it waited for a CPU (behind a loaded
 * host's other work: issue 29 saw correct C++ builds CE at a load of 23 on
 * two cores, after 10 s of waiting excused).  The request's budget bounds
 * a build whatever it waited for. */
static enum deadline timeout_passed(const struct slot *s, const struct sandbox_spec *spec,
				    struct watch *w, long now)
{
	if (spec->excuse_blocked_ms > 0) {
		long disk, cpu, room = spec->excuse_blocked_ms - w->excused_disk;
		build_waits(s, w, now, &disk, &cpu);
		disk = disk < room ? disk : room;
		w->excused_disk += disk;
		w->excused += disk + cpu;
	}
	return now - w->t0 - w->excused >= spec->timeout_ms ? DEADLINE_TIMEOUT : DEADLINE_NONE;
}

/* The CPU time that counts as progress: the run's own, or with a peer (an
 * interactor and its solution) the pair's, each run writing its own. */
static long long pair_cpu(const struct sandbox_spec *spec, long long cpu)
{
	if (!spec->pair_cpu_us)
		return cpu;
	spec->pair_cpu_us[spec->pair_self & 1] = cpu > 0 ? cpu : 0;
	return spec->pair_cpu_us[0] + spec->pair_cpu_us[1];
}

enum deadline deadline_passed(const struct slot *s, const struct sandbox_spec *spec,
				     struct watch *w, long now)
{
	if (spec->budget_end_ms && now >= spec->budget_end_ms)
		return DEADLINE_BUDGET;
	if (spec->cpu_deadline_ms <= 0)
		return timeout_passed(s, spec, w, now);
	if (!w->started)        /* the deadlines count from the program's start */
		return now - w->t0 >= spec->setup_max_ms ? DEADLINE_SETUP : DEADLINE_NONE;
	/* Progress is a hundredth of a CPU or more since the last progress: a
	 * runtime that only ticks while its program sleeps (the JVM's service
	 * threads, about a thousandth) is not making any. */
	long long cpu = cgroup_slot_cpu_us(&s->cg);
	long long seen = pair_cpu(spec, cpu);
	if (seen > w->last_cpu_us &&
	    (seen - w->last_cpu_us) / 10 >= now - w->last_progress) {
		w->last_cpu_us = seen;
		w->last_progress = now;
	}
	brakes(s, w, now, cpu);
	if ((cpu - w->cpu0_us) / 1000 > spec->cpu_deadline_ms)
		return DEADLINE_CPU_CEILING;
	if (now - w->last_progress >= spec->idle_deadline_ms)
		return DEADLINE_NO_PROGRESS;
	if (now - w->t0 >= spec->timeout_ms)
		return DEADLINE_ABSOLUTE;
	return DEADLINE_NONE;
}

/* The program has started (REPORT_START at start_ms): a judged run's
 * deadlines count from here, its CPU time from what the cgroup reads now
 * (init's own set-up is not the program's).  The wait for the sandbox
 * (from t0) is the result's setup_ms. */
void watch_start(const struct slot *s, const struct sandbox_spec *spec,
			struct watch *w, long start_ms, struct sandbox_result *res)
{
	if (start_ms < w->t0)
		start_ms = w->t0;
	res->setup_ms = start_ms - w->t0;
	res->start_ms = start_ms;
	if (w->started || spec->setup_max_ms <= 0)
		return;
	long long cpu = cgroup_slot_cpu_us(&s->cg);
	w->started = true;
	w->t0 = w->last_progress = w->last_blocked_check = start_ms;
	w->cpu0_us = w->look_cpu_us = cpu > 0 ? cpu : 0;
	w->last_cpu_us = pair_cpu(spec, w->cpu0_us);
}

long next_wake(const struct sandbox_spec *spec, const struct watch *w, long now)
{
	if (spec->cpu_deadline_ms > 0)
		return 10;       /* the CPU reading is sampled (and set-up's bound) */
	long left = w->t0 + w->excused + spec->timeout_ms - now;
	if (spec->excuse_blocked_ms > 0 && left > BLOCKED_CHECK_MS)
		left = BLOCKED_CHECK_MS;
	if (spec->budget_end_ms && spec->budget_end_ms - now < left)
		left = spec->budget_end_ms - now;
	return left < 0 ? 0 : left;
}
