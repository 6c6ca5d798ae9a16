/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge/internal.h: what the files of core/judge/ share: one request's
 * judging (the build's output, the lanes), and the build's outcome.
 */
#ifndef GAOL_JUDGE_INTERNAL_H
#define GAOL_JUDGE_INTERNAL_H

#include <stdbool.h>

#include "api/engine.h"
#include "judge/judge.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* How long a test's sandbox may take to come up, from the hand-off to its
 * program's start, before the test is IE (deadline "setup"): a sandbox
 * built ahead takes a few milliseconds, one built on demand on a loaded
 * two-core host well under a second.  The request's budget still counts
 * it (docs/api.md, "How a request is judged"). */
#define JUDGE_SETUP_MAX_MS 10000

struct json_object;
struct aide;

struct judging {
	struct engine *e;
	const struct answer_stream *stream;  /* the request's (NULL: none) */
	const struct client_watch *client;   /* the request's (NULL: none) */
	const struct lang *lang;
	const struct eval_request *req;
	const char *lower;       /* the build's output */
	unsigned long long mem;
	long end_ms;             /* now_ms() at which RUN_REQUEST_BUDGET is spent */
	bool gone;               /* the client went away: judge no more */
	/* The answer as it is made (judge.c, judge_emit): results[i] for test
	 * i; those below next are written out and freed already. */
	struct json_object **results;
	size_t next;
	struct json_object *compile;   /* the build's, until written */
	struct json_object *summary;   /* the request log's digest */
	size_t bytes;                  /* written */
	bool begun;
	struct aide *checker, *interactor;   /* NULL: none asked */
	double score;                  /* the results' scores, summed */
};

struct build {
	bool ok, cached;
	char lower[4400];
	struct json_object *json;
	int pin;                 /* the cache entry in use, pinned (cache.h) */
	char uncached[4400];     /* a build the cache could not keep: removed
				  * when the request ends */
	char *error;             /* !ok: CompiCode's text, "Compilation Error:\n..." */
	bool budget_spent;       /* !ok: the request's budget stopped the build */
};


/* A request's checker or interactor (aide.c): its program, built once. */
struct aide {
	const struct eval_program *prog;
	const char *role;            /* "checker", "interactor" */
	const char *title;           /* "Checker", "Interactor": its failures */
	struct lang lang;            /* its language, in /execute's workdir "src" */
	struct req_files files;      /* the code first, then its files, named */
	struct sandbox_file *sfiles;
	struct build b;              /* b.lower "": nothing built, files per run */
	bool built;                  /* judge_build_files ran (b to end) */
};

/* What one run of a checker or an interactor said. */
struct aide_result {
	struct checker_outcome out;  /* out.verdict IE: it failed */
	struct json_object *json;    /* the test's "checker" / "interactor" */
	char why[320];               /* IE: "Checker failed: <message>" */
	char *file;                  /* an interactor's output file */
	size_t file_len;
};

/* An interactive test's pair (aide.c): the interactor's keeper, a process
 * of the worker's forked per test, and the solution's ends of the relay. */
struct aide_pair {
	pid_t keeper;
	int sol_in, sol_out;         /* the solution's relay_in, relay_out */
	int memfd;                   /* the keeper's result */
	volatile long long *cpu;     /* the pair's CPU times, shared */
};

/* Builds req's source (or finds it in the compile cache), stopping the
 * build at end_ms, the request's budget: 0 with b filled (b->ok: it
 * compiled), or -1 with the fault (build.c). */
int judge_build(struct engine *e, const struct client_watch *client,
		const struct lang *lang, const struct eval_request *req,
		long end_ms, struct build *b, char *fault, size_t faultlen);
/* Builds files (the first the entry point, $0) with lang's `compile`
 * recipe, through the compile cache as /execute does: a checker or an
 * interactor.  A language without one builds nothing (b->ok, b->lower "").
 * 0 with b filled, or -1 with the fault (build.c). */
int judge_build_files(struct engine *e, const struct client_watch *client,
		      const struct lang *lang, const struct sandbox_file *files, size_t n,
		      long end_ms, struct build *b, char *fault, size_t faultlen);
/* At the request's end: unpins the entry, removes an uncached build. */
void judge_build_end(struct build *b);
/* Runs every test on the worker's lanes into j->results, handing each to
 * judge_emit as soon as it is there (lanes.c). */
void judge_run_tests(struct judging *j);
/* Writes out the results ready in order from j->next (judge.c). */
void judge_emit(struct judging *j);
/* Whether the client of the request has gone (a poll that does not wait). */
bool judge_client_gone(struct judging *j);
/* A test that did not run, with verdict v (IE, or CE for every test when
 * the build failed): every field there, what was not measured null. */
struct json_object *judge_not_run(const struct eval_test *t, enum verdict v,
				  const char *error);
/* The aides: prepared (names, language) by the caller; built here.
 * 0, or -1 with the fault. */
int aide_build(struct judging *j, struct aide *a, char *fault, size_t faultlen);
void aide_free(struct aide *a);
/* The checker on test t's output[0..len) in lane k's aide slot. */
void aide_check(struct judging *j, unsigned k, const struct eval_test *t,
		const char *output, size_t len, struct aide_result *r);
/* Starts test t's interactor in lane k's aide slot; the solution's run
 * then relays through pr->sol_in and pr->sol_out.  0, or -1 (r says). */
int aide_pair_start(struct judging *j, unsigned k, const struct eval_test *t,
		    long sol_limit_ms, struct aide_pair *pr, struct aide_result *r);
/* After the solution's run: the interactor's end and its word. */
void aide_pair_end(struct judging *j, unsigned k, struct aide_pair *pr, bool kill_it,
		   struct aide_result *r);
void aide_result_free(struct aide_result *r);

/* A test not started because the request's budget was spent (TLE). */
struct json_object *judge_past_budget(const struct eval_test *t);

#endif
