/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verdict: the one table of verdicts (CE included) and how a run's
 * measurement becomes one (docs/design.md, "Judging").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "judge/cache.h"
#include "api/engine.h"
#include "util/fail.h"
#include "judge/judge.h"
#include "util/utf8.h"
#include "util/util.h"


/* Each verdict's name, and its details when they are fixed words. */
static const struct {
	const char *name;
	const char *details;
} verdicts[] = {
	[V_OK] = { "OK", NULL },                 /* "OK (<cpu>ms)" */
	[V_WA] = { "WA", "Wrong Answer" },
	[V_TLE] = { "TLE", "Time Limit Exceeded" },
	[V_MLE] = { "MLE", "Memory Limit Exceeded" },
	[V_RE] = { "RE", NULL },                 /* with the exit code */
	[V_OLE] = { "OLE", "Output Limit Exceeded" },
	[V_CE] = { "CE", "Compilation Error" },
	[V_IE] = { "IE", "Internal Error (the test did not run)" },
};

const char *verdict_name(enum verdict v)
{
	return verdicts[v].name;
}

enum verdict verdict_of(const struct sandbox_result *r, long limit_ms, bool output_equal)
{
	if (!r->ran || r->client_gone)
		return V_IE;     /* not judged: nobody is waiting for it */
	if (r->output_exceeded)
		return V_OLE;
	if (r->oom_killed)
		return V_MLE;
	if (r->deadline == DEADLINE_BUDGET)
		return V_TLE;    /* the request's, not the test's: details say */
	if (r->deadline == DEADLINE_SETUP)
		return V_IE;     /* the sandbox never came up: not the program */
	/* A deadline ended it: it ran past the limit, or never started. */
	if (r->timed_out)
		return r->cpu_ms > 0 ? V_TLE : V_IE;
	if (r->cpu_ms > limit_ms)
		return V_TLE;
	if (r->stopped)
		return V_WA;
	if (!WIFEXITED(r->wait_status) || WEXITSTATUS(r->wait_status) != 0)
		return V_RE;
	return output_equal ? V_OK : V_WA;
}

void verdict_details(enum verdict v, const struct sandbox_result *r, char *out, size_t len)
{
	switch (v) {
	case V_OK:
		snprintf(out, len, "OK (%ldms)", r->cpu_ms > 0 ? r->cpu_ms : 0);
		break;
	case V_RE:
		/* docker-evaluator's words exactly: a signal N is exit code
		 * 128 + N, as `timeout` reports it; the signal's name and which
		 * deadline ended a TLE are fields of their own (lanes.c). */
		snprintf(out, len, "Runtime Error (exit code %d)", sandbox_exit_code(r));
		break;
	default:
		snprintf(out, len, "%s", verdicts[v].details);
		break;
	}
}

