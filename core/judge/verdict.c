/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verdict: the one table of verdicts (CE included) and how a run's
 * measurement becomes one (docs/design.md, "Judging").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
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
	[V_PE] = { "PE", "Presentation Error" },
	[V_PC] = { "PC", "Partially Correct" },  /* with the score (lanes.c) */
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


/* ---- a checker's word, testlib's way ---- */

static bool starts(const char *msg, size_t len, const char *word)
{
	size_t n = strlen(word);
	return len >= n && !memcmp(msg, word, n);
}

/* "partially correct (k)": k (0..100), else -1. */
static int partial_k(const char *msg, size_t len)
{
	const char head[] = "partially correct (";
	if (!starts(msg, len, head))
		return -1;
	int k = 0;
	size_t i = sizeof(head) - 1;
	for (; i < len && i < sizeof(head) + 3 && msg[i] >= '0' && msg[i] <= '9'; i++)
		k = k * 10 + (msg[i] - '0');
	return i > sizeof(head) - 1 && i < len && msg[i] == ')' ? k : -1;
}

/* OK at a full score, WA at none, PC between. */
static enum verdict by_score(double score)
{
	return score >= 1 ? V_OK : score > 0 ? V_PC : V_WA;
}

static double clamp01(double x)
{
	return x > 1 ? 1 : x > 0 ? x : 0;
}

/* "points <x> ...": x, or NAN. */
static double points_of(const char *msg, size_t len)
{
	char num[64];
	if (!starts(msg, len, "points "))
		return NAN;
	size_t n = len - 7 < sizeof(num) - 1 ? len - 7 : sizeof(num) - 1;
	memcpy(num, msg + 7, n);
	num[n] = 0;
	char *end;
	double x = strtod(num, &end);
	return end > num && isfinite(x) && x >= 0 ? x : NAN;
}

void checker_outcome_of(int code, const char *msg, size_t len, double points_max,
			struct checker_outcome *o)
{
	while (len && (*msg == ' ' || *msg == '\n' || *msg == '\r' || *msg == '\t'))
		msg++, len--;
	o->points = NAN;
	o->score = 0;
	/* testlib's _pc(k) exits with k itself: the message says it was a
	 * partial answer, whatever the code also means. */
	int k = partial_k(msg, len);
	if (k >= 0 && code == k) {
		o->score = clamp01(k / 100.0);
		o->verdict = by_score(o->score);
		return;
	}
	switch (code) {
	case 0:
		o->verdict = V_OK;
		o->score = 1;
		return;
	case 1:
		o->verdict = V_WA;
		return;
	case 2: case 4: case 8:      /* PE, "dirt", unexpected end of file */
		o->verdict = V_PE;
		return;
	case 7:
		o->points = points_of(msg, len);
		if (isnan(o->points))
			break;
		o->score = points_max > 0 ? clamp01(o->points / points_max) : 0;
		o->verdict = by_score(o->score);   /* no points_max: score 0 */
		return;
	default:
		break;
	}
	o->verdict = V_IE;           /* 3 (FAIL), a signal, a limit, or unknown */
}
