/*
 * Judging (POST /evaluate).
 *
 * Who does what, for one request, in one worker:
 *   build    one sandbox runs the language's `build` command on the source,
 *            10 s at most; its init copies what the build left in /sandbox
 *            into a fresh compile-cache entry (cache.c).  An identical
 *            earlier submission skips this step: the entry is looked up by
 *            language, toolchain version, build command and source.
 *   tests    each test case runs the `run` command in a fresh sandbox whose
 *            lower layers are the cache entry and the language directory, so
 *            nothing is copied per test.  The worker has RUN_EVAL_PARALLEL
 *            lanes (a cgroup and a network namespace each, the worker's UID):
 *            lane 0 is the worker itself, lanes 1.. are forked children that
 *            take every P-th test and hand their results back in a memfd.
 *   verdict  decided after each run on what the cgroup measured: CPU time
 *            against the limit, the kernel's own OOM kill, the output
 *            compared as it streamed (the first difference stops the run).
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
#include "judge/internal.h"

/* ---- the request, end to end ---- */

/* A 422: {"error": reason, "detail": reason}; "detail" is the key FastAPI
 * and CompiCode's executor answer it under. */
static void answer_invalid(struct answer *a, const char *reason)
{
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "error", utf8_json_string(reason, strlen(reason)));
	json_object_object_add(obj, "detail", utf8_json_string(reason, strlen(reason)));
	answer_json(a, OUTCOME_INVALID, obj);
}

/* {"results": [...]} with every test answered by not_run(v, error). */
static void answer_none_ran(struct answer *a, const struct eval_request *req,
			    struct json_object *compile, enum verdict v, const char *error)
{
	struct json_object *obj = json_object_new_object();
	struct json_object *arr = json_object_new_array_ext((int)req->n_tests);
	for (size_t i = 0; i < req->n_tests; i++)
		json_object_array_add(arr, judge_not_run(&req->tests[i], v, error));
	if (compile)
		json_object_object_add(obj, "compile", compile);
	json_object_object_add(obj, "results", arr);
	answer_json(a, OUTCOME_OK, obj);
}

/* The language by slug or alias, whatever its case ("Python", "CPP"). */
static const struct lang *find_language(struct engine *e, const char *name)
{
	char lower[64];
	size_t n = strlen(name);
	if (n >= sizeof(lower))
		return NULL;
	for (size_t i = 0; i <= n; i++)
		lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
	return langs_find(&e->langs, lower, LANG_BY_SLUG_OR_ALIAS);
}

static void judge_request(struct engine *e, const struct lang *lang,
			  const struct eval_request *req, struct answer *a)
{
	char err[512];
	struct build b = { 0 };
	if (judge_build(e, lang, req, &b, err, sizeof(err)) < 0) {
		json_object_put(b.json);
		free(b.error);
		answer_error(a, OUTCOME_FAULT, "%s", err);
		return;
	}
	if (!b.ok) {
		answer_none_ran(a, req, b.json, V_CE, b.error);
		free(b.error);
		return;
	}
	struct json_object **results = calloc(req->n_tests, sizeof(*results));
	if (!results) {
		json_object_put(b.json);
		answer_error(a, OUTCOME_FAULT, "out of memory");
		return;
	}
	struct judging j = {
		.e = e, .lang = lang, .req = req, .lower = b.lower,
		.mem = req->memory_limit_mb ? (unsigned long long)req->memory_limit_mb << 20 : 0,
	};
	judge_run_tests(&j, results);
	struct json_object *obj = json_object_new_object();
	struct json_object *arr = json_object_new_array_ext((int)req->n_tests);
	for (size_t i = 0; i < req->n_tests; i++)
		json_object_array_add(arr, results[i]);
	free(results);
	json_object_object_add(obj, "compile", b.json);
	json_object_object_add(obj, "results", arr);
	answer_json(a, OUTCOME_OK, obj);
}

void engine_evaluate(struct engine *e, const char *body, size_t len, struct answer *a)
{
	char err[512];
	struct eval_request req;

	memset(a, 0, sizeof(*a));
	if (len > e->cfg.eval_input_max) {
		answer_error(a, OUTCOME_TOO_LARGE,
			     "request body exceeds RUN_EVAL_INPUT_MAX (%zu bytes)",
			     e->cfg.eval_input_max);
		return;
	}
	if (eval_request_parse(body, len, &req, err, sizeof(err)) < 0) {
		answer_invalid(a, err);
		return;
	}
	/* As CompiCode's executor: no test, nothing to say, whatever the
	 * language; an unknown language is every test's error. */
	const struct lang *lang = req.n_tests ? find_language(e, req.language) : NULL;
	if (!req.n_tests) {
		answer_none_ran(a, &req, NULL, V_IE, "");
	} else if (!lang) {
		char msg[160];
		snprintf(msg, sizeof(msg), "Unsupported language: %.100s", req.language);
		answer_none_ran(a, &req, NULL, V_IE, msg);
	} else if (!lang->installed) {
		answer_error(a, OUTCOME_BAD_REQUEST, "language not installed: %s", lang->slug);
	} else if (!lang->build_cmd || !lang->run_cmd) {
		snprintf(err, sizeof(err), "language %s cannot be judged (no build/run target)",
			 lang->slug);
		answer_invalid(a, err);
	} else {
		judge_request(e, lang, &req, a);
	}
	eval_request_free(&req);
}
