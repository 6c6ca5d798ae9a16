/* SPDX-License-Identifier: Apache-2.0 */
/* prof: step timing of a worker's cycle (prof.h); empty without
 * -DGAOL_PROFILE. */
#include "util/prof.h"

#ifdef GAOL_PROFILE
#include "util/util.h"

static const char *const names[PROF_STEPS] = {
	[PROF_RUN] = "run", [PROF_BEGIN] = "  cgroup begin",
	[PROF_HANDOFF] = "  hand-off", [PROF_SUPERVISE] = "  to the report",
	[PROF_INIT_WAKE] = "    init has the request", [PROF_INIT_VIEW] = "    request's view",
	[PROF_PAYLOAD] = "    payload", [PROF_INIT_END] = "    kill rest, report",
	[PROF_REAP] = "reap last init", [PROF_MNTNS_DROP] = "drop its mount namespace",
	[PROF_SETTLE] = "memory.force_empty",
	[PROF_NETNS] = "new netns", [PROF_NETNS_CHECK] = "netns emptiness check",
	[PROF_CLONE] = "pipes + clone next init",
};
/* A debugging build's counters: this process's alone. */
static long long total_us[PROF_STEPS];
static long count[PROF_STEPS];

long long prof_begin(void)
{
	return now_us();
}

void prof_end(enum prof_step step, long long t0)
{
	total_us[step] += now_us() - t0;
	count[step]++;
}

void prof_add(enum prof_step step, long long us)
{
	total_us[step] += us;
	count[step]++;
}

void prof_report(FILE *out, long cycles)
{
	if (cycles <= 0)
		return;
	fprintf(out, "gaol-run: profile, mean ms per cycle (times per cycle):\n");
	for (int i = 0; i < PROF_STEPS; i++)
		fprintf(out, "  %-26s %7.3f  (%.2f)\n", names[i],
			total_us[i] / 1e3 / (double)cycles, count[i] / (double)cycles);
}
#else
typedef int prof_unused;  /* ISO C wants something in a translation unit */
#endif
