/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gaol-run: the engine from the command line.  Reads a /run request (or an
 * /evaluate one: it has test_cases) on stdin and prints the response the
 * service would send, for debugging, scripting and benchmarks.  Exit status: 0 for a 200 answer, 1 for any other status (the
 * status is printed on stderr), 2 when the engine cannot start.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "api/engine.h"
#include "status.h"
#include "judge/judge.h"
#include "util/cpus.h"
#include "util/util.h"
#include "util/prof.h"
#include "conf/version.h"
#include "slot/keep.h"
#include "slot/uidlock.h"

static void cli_usage(void)
{
	fprintf(stderr, "usage: gaol-run [--langs DIR] [--slot N] [--keep] [--repeat N [--gap MS]] < request.json\n"
		"       gaol-run [--slot N] --check\n"
		"       gaol-run [--slot N] --cleanup\n"
		"       gaol-run --version\n"
		"  --langs DIR  language directories to use (default: GAOL_LANGS_DIR)\n"
		"  --slot N     slot to run in (default: RUN_CONCURRENCY, the first\n"
		"               slot beyond a running pool's)\n"
		"  --check      build one sandbox and report each mechanism\n"
		"  --keep       keep the slot's cgroups, template and network\n"
		"               namespace for the next start with --keep (as\n"
		"               isolate keeps a box between --init and --cleanup);\n"
		"               every run still gets a fresh sandbox\n"
		"  --cleanup    remove what --keep kept of the slot\n"
		"  --repeat N   run the request N times in this process, as a worker\n"
		"               does (the next sandbox built between runs), and print\n"
		"               the median, p10 and p90 of a run and the mean cycle\n"
		"               (a run and the work after it) on stderr\n"
		"  --gap MS     with --repeat: pause between runs, as between the\n"
		"               requests of a service that is not saturated\n");
}

static char *read_stream(FILE *f, size_t max, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n > max)
			break;
		if (got == 0)
			break;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	*len = n;
	return buf;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* An /evaluate request has test cases; anything else goes to /run, which
 * answers what is wrong with it. */
static int is_evaluate(const char *body, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj = tok ? json_tokener_parse_ex(tok, body, (int)len) : NULL;
	int yes = obj && json_object_is_type(obj, json_type_object) &&
		  json_object_object_get_ex(obj, "test_cases", NULL);
	json_object_put(obj);
	if (tok)
		json_tokener_free(tok);
	return yes;
}

/* An option's decimal value in [lo, hi]; -1 (after the usage) otherwise. */
static int number(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < lo || v > hi) {
		cli_usage();
		return -1;
	}
	*out = v;
	return 0;
}

/* The engine in slot (default: RUN_CONCURRENCY, the first slot beyond a
 * running pool's), its UID ours alone while we run in it (uidlock.h).
 * Without lanes (run_only) the slot alone is taken: main takes the judging
 * lanes when the request turns out to be an /evaluate.  A single run
 * (one_shot) has no next run to give its slot's network namespace to: none
 * is watched for reuse (slot/netns.c), unless kept; the judging lanes of an
 * /evaluate, which run test after test, may (engine_take_lanes). */
static int open_engine(struct engine *e, long slot, bool run_only, bool one_shot,
		       int keep, struct uid_locks *uid)
{
	char err[1024];
	struct gaol_config probe;

	if (slot < 0) {
		if (config_from_env(&probe, err, sizeof(err)) < 0) {
			fprintf(stderr, "gaol-run: %s\n", err);
			return -1;
		}
		slot = probe.concurrency;
		config_free(&probe);
	}
	/* A single run pays for its own language's start-up shells only. */
	if ((one_shot ? engine_load_one_shot : engine_load)(e, err, sizeof(err)) < 0) {
		fprintf(stderr, "gaol-run: %s\n", err);
		return -1;
	}
	e->one_shot = one_shot;
	e->cfg.keep = keep;
	/* --repeat is a worker's cycle: on a CPU of its own, as a worker is
	 * (util/cpus.h).  A single run is one process's start-up, its init
	 * building on the other CPU meanwhile: not pinned. */
	if (run_only && !one_shot && !e->cfg.unpinned)
		cpus_pin((unsigned)slot);
	/* Its checkers' and interactors' UID too (CONFIG_AIDE_UID), held
	 * until the process ends. */
	static struct uid_locks aide;
	if (uidlock_take(uid, e->cfg.instance, e->cfg.uid_base + (uid_t)slot, 1,
			 err, sizeof(err)) < 0 ||
	    uidlock_take(&aide, e->cfg.instance, CONFIG_AIDE_UID(&e->cfg, (uid_t)slot), 1,
			 err, sizeof(err)) < 0 ||
	    (run_only ? engine_take_run_slot(e, (unsigned)slot, err, sizeof(err))
	     : engine_take_slot(e, (unsigned)slot, err, sizeof(err))) < 0) {
		fprintf(stderr, "gaol-run: %s\n", err);
		engine_free(e);
		uidlock_release(uid);
		return -1;
	}
	return 0;
}

/* An /evaluate's judging lanes (engine_take_lanes; lane 0 is the slot).
 * 0, or -1 after saying why. */
static int take_lanes(struct engine *e)
{
	char err[1024];
	if (engine_take_lanes(e, err, sizeof(err)) < 0) {
		fprintf(stderr, "gaol-run: %s\n", err);
		return -1;
	}
	return 0;
}

/* --cleanup: the slot goes, and what --keep kept of it.  0, or 1 when the
 * keep directory is still there (why is on stderr). */
static int cleanup(struct engine *e, struct uid_locks *uid)
{
	char kept[PATH_MAX + 8];
	snprintf(kept, sizeof(kept), "%s.keep", slot_state_dir(&e->slot));
	engine_free(e);
	uidlock_release(uid);
	return access(kept, F_OK) == 0 ? 1 : 0;
}

/* The command line.  0, or 2 (usage) after saying why. */
struct options {
	long slot, repeat, gap_ms;
	int check, version, keep;
};

static int parse_args(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .slot = -1, .repeat = 1 };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--langs") && i + 1 < argc) {
			char dir[PATH_MAX];
			if (!realpath(argv[++i], dir)) {
				perror(argv[i]);
				return 2;
			}
			setenv("GAOL_LANGS_DIR", dir, 1);
		} else if (!strcmp(argv[i], "--slot") && i + 1 < argc) {
			if (number(argv[++i], 0, 1000, &o->slot) < 0)
				return 2;
		} else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
			if (number(argv[++i], 1, 100000, &o->repeat) < 0)
				return 2;
		} else if (!strcmp(argv[i], "--gap") && i + 1 < argc) {
			if (number(argv[++i], 0, 60000, &o->gap_ms) < 0)
				return 2;
		} else if (!strcmp(argv[i], "--version")) {
			o->version = 1;
		} else if (!strcmp(argv[i], "--check")) {
			o->check = 1;
		} else if (!strcmp(argv[i], "--keep")) {
			o->keep = KEEP_ON;
		} else if (!strcmp(argv[i], "--cleanup")) {
			o->keep = KEEP_CLEANUP;
		} else {
			cli_usage();
			return 2;
		}
	}
	/* --cleanup runs nothing; --check builds a sandbox of its own. */
	if ((o->keep && o->check) || (o->keep == KEEP_CLEANUP && o->repeat > 1)) {
		cli_usage();
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	if (parse_args(argc, argv, &o))
		return 2;
	if (o.version) {
		printf("gaol-run %s (build %s)\n", gaol_version(), gaol_build());
		return 0;
	}
	long slot = o.slot, repeat = o.repeat, gap_ms = o.gap_ms;
	int check = o.check;

	struct engine e;
	struct uid_locks uid = { 0 };
	if (open_engine(&e, slot, !check, !check && repeat == 1, o.keep, &uid) < 0)
		return 2;
	if (o.keep == KEEP_CLEANUP)
		return cleanup(&e, &uid);
	if (check) {
		int missing = engine_selfcheck(&e, stdout);
		engine_free(&e);
		uidlock_release(&uid);
		return missing ? 1 : 0;
	}
	size_t len = 0;
	char *body = read_stream(stdin, e.cfg.input_max, &len);
	struct answer a = { 0 };
	double *ms = calloc((size_t)repeat, sizeof(*ms));
	int evaluate = body && is_evaluate(body, len);
	if (evaluate && take_lanes(&e) < 0) {
		free(body);
		free(ms);
		engine_free(&e);
		uidlock_release(&uid);
		return 2;
	}
	double start = now_us() / 1e3;
	for (long i = 0; i < repeat; i++) {
		answer_free(&a);
		double t0 = now_us() / 1e3;
		if (!body || !ms)
			answer_error(&a, OUTCOME_FAULT, "out of memory");
		else if (evaluate)
			engine_evaluate(&e, body, len, NULL, &a);
		else {
			long long tp = prof_begin();
			engine_run(&e, body, len, NULL, &a);
			prof_end(PROF_RUN, tp);
		}
		if (ms)
			ms[i] = now_us() / 1e3 - t0;
		if (i + 1 < repeat) {
			engine_idle(&e);  /* what a worker does after answering */
			if (gap_ms)
				nanosleep(&(struct timespec){ gap_ms / 1000,
							      (gap_ms % 1000) * 1000000L }, NULL);
		}
	}
	if (repeat > 1 && ms) {
		/* The cycle is a run and the worker's work after it (and the
		 * gap): what one worker can sustain. */
		double cycle = (now_us() / 1e3 - start) / (double)repeat;
		qsort(ms, (size_t)repeat, sizeof(*ms), by_value);
		fprintf(stderr, "gaol-run: %ld runs: median %.3f ms, p10 %.3f ms, p90 %.3f ms, "
			"cycle %.3f ms\n", repeat, ms[repeat / 2], ms[repeat / 10],
			ms[repeat * 9 / 10], cycle);
		prof_report(stderr, repeat);
	}
	free(ms);
	fwrite(a.body, 1, a.len, stdout);
	fputc('\n', stdout);
	if (a.outcome != OUTCOME_OK)
		fprintf(stderr, "gaol-run: status %d\n", http_status(a.outcome));
	int rc = a.outcome == OUTCOME_OK ? 0 : 1;
	answer_free(&a);
	free(body);
	if (repeat == 1)
		engine_free_now(&e);
	else
		engine_free(&e);
	uidlock_release(&uid);
	return rc;
}
