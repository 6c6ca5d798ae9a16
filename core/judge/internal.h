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

struct json_object;

struct judging {
	struct engine *e;
	const struct lang *lang;
	const struct eval_request *req;
	const char *lower;       /* the build's output */
	unsigned long long mem;
};

struct build {
	bool ok, cached;
	char lower[4096];
	struct json_object *json;
	char *error;             /* !ok: CompiCode's text, "Compilation Error:\n..." */
};


/* Builds req's source (or finds it in the compile cache): 0 with b filled
 * (b->ok: it compiled), or -1 with the fault (build.c). */
int judge_build(struct engine *e, const struct lang *lang, const struct eval_request *req,
		struct build *b, char *fault, size_t faultlen);
/* Runs every test on the worker's lanes, results[i] for test i (lanes.c). */
void judge_run_tests(const struct judging *j, struct json_object **results);
/* A test that did not run, with verdict v (IE, or CE for every test when
 * the build failed): every field there, what was not measured null. */
struct json_object *judge_not_run(const struct eval_test *t, enum verdict v,
				  const char *error);

#endif
