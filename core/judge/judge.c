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

#include "judge/admit.h"
#include "judge/cache.h"
#include "api/engine.h"
#include "util/fail.h"
#include "judge/judge.h"
#include "util/utf8.h"
#include "util/util.h"
#include "judge/internal.h"

/* ---- the request, end to end ---- */

void engine_evaluate(struct engine *e, const char *body, size_t len, struct answer *a)
{
	char err[512];
	struct eval_request req;

	memset(a, 0, sizeof(*a));
	if (engine_body_too_large(e, len, a))
		return;
	if (eval_request_parse(body, len, &req, err, sizeof(err)) < 0) {
		answer_error(a, OUTCOME_INVALID, "%s", err);
		return;
	}
	const struct lang *lang = langs_find(&e->langs, req.language, LANG_BY_SLUG_OR_ALIAS);
	if (!lang) {
		answer_error(a, OUTCOME_INVALID, "unknown language \"%s\"", req.language);
		goto out;
	}
	if (!lang->installed) {
		answer_error(a, OUTCOME_BAD_REQUEST, "language not installed: %s", lang->slug);
		goto out;
	}
	if (eval_admit(&e->cfg, lang, req.memory_limit_mb, req.time_limit_ms, err,
		       sizeof(err)) < 0) {
		answer_error(a, OUTCOME_INVALID, "%s", err);
		goto out;
	}
	struct build b = { 0 };
	if (judge_build(e, lang, &req, &b, err, sizeof(err)) < 0) {
		json_object_put(b.json);
		judge_build_end(&b);
		answer_error(a, OUTCOME_FAULT, "%s", err);
		goto out;
	}
	struct json_object **results = calloc(req.n_tests, sizeof(*results));
	if (!results) {
		json_object_put(b.json);
		judge_build_end(&b);
		answer_error(a, OUTCOME_FAULT, "out of memory");
		goto out;
	}
	if (b.ok) {
		struct judging j = {
			.e = e, .lang = lang, .req = &req, .lower = b.lower,
			.mem = req.memory_limit_mb ? (unsigned long long)req.memory_limit_mb << 20 : 0,
		};
		judge_run_tests(&j, results);
	} else {
		for (size_t i = 0; i < req.n_tests; i++) {
			results[i] = judge_not_run(&req.tests[i], V_CE);
		}
	}
	judge_build_end(&b);    /* the tests are done with the build */
	struct json_object *obj = json_object_new_object();
	struct json_object *arr = json_object_new_array_ext((int)req.n_tests);
	for (size_t i = 0; i < req.n_tests; i++)
		json_object_array_add(arr, results[i]);
	free(results);
	json_object_object_add(obj, "compile", b.json);
	json_object_object_add(obj, "results", arr);
	answer_json(a, OUTCOME_OK, obj);
out:
	eval_request_free(&req);
}

