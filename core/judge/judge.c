/* SPDX-License-Identifier: Apache-2.0 */
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
#include <stdarg.h>
#include <limits.h>
#include <poll.h>
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

/* ---- the answer, written as it is made ---- */

/* Each result's verdict and measurements, for the request log and the
 * metrics (fcgi/reqlog.c reads the answer's body): what the streamed
 * answer said, without its outputs. */
static void summarise(struct judging *j, struct json_object *r)
{
	static const char *const keep[] = { "verdict", "wall_ms", "cpu_ms", "memory_kb" };
	struct json_object *d = json_object_new_object(), *v, *arr;

	for (size_t k = 0; k < sizeof(keep) / sizeof(keep[0]); k++)
		if (json_object_object_get_ex(r, keep[k], &v))
			json_object_object_add(d, keep[k], json_object_get(v));
	if (json_object_object_get_ex(j->summary, "results", &arr))
		json_object_array_add(arr, d);
	else
		json_object_put(d);
}

static void put(struct judging *j, const char *s, size_t len)
{
	const struct answer_stream *out = j->stream;
	if (j->gone)
		return;
	if (out->write(out->ctx, s, len) < 0)
		j->gone = true;     /* the client left: nothing more to tell */
	j->bytes += len;
}

/* The aides' builds, as "checker_compile" and "interactor_compile" (null:
 * nothing was built, or nothing ran). */
static void put_aides(struct judging *j)
{
	struct aide *aides[] = { j->checker, j->interactor };
	for (size_t i = 0; i < 2; i++) {
		if (!aides[i])
			continue;
		const char *c = aides[i]->b.json
			? json_object_to_json_string_ext(aides[i]->b.json, JSON_FLAGS) : "null";
		put(j, ",\"", 2);
		put(j, aides[i]->role, strlen(aides[i]->role));
		put(j, "_compile\":", 10);
		put(j, c, strlen(c));
	}
}

void judge_emit(struct judging *j)
{
	size_t n = j->req->n_tests;
	if (!j->stream)
		return;             /* gathered whole (gaol-run) */
	for (; j->next < n && j->results[j->next]; j->next++) {
		struct json_object *r = j->results[j->next];
		if (!j->begun) {
			/* The status is 200 from here on: a fault after this
			 * point can only cut the body short (docs/api.md). */
			j->stream->begin(j->stream->ctx);
			j->begun = true;
			const char *c = json_object_to_json_string_ext(j->compile, JSON_FLAGS);
			put(j, "{\"compile\":", 11);
			put(j, c, strlen(c));
			put_aides(j);
			put(j, ",\"results\":[", 12);
			json_object_object_add(j->summary, "compile", j->compile);
			j->compile = NULL;
		}
		const char *t = json_object_to_json_string_ext(r, JSON_FLAGS);
		struct json_object *sc;
		if (json_object_object_get_ex(r, "score", &sc))
			j->score += json_object_get_double(sc);
		if (j->next)
			put(j, ",", 1);
		put(j, t, strlen(t));
		summarise(j, r);
		json_object_put(r);
		j->results[j->next] = NULL;
	}
	if (j->next == n && j->begun) {
		put(j, "]", 1);
		if (j->checker || j->interactor) {
			char score[48];
			snprintf(score, sizeof(score), ",\"score\":%.17g", j->score);
			put(j, score, strlen(score));
		}
		put(j, "}", 1);
		j->begun = false;
	}
}

bool judge_client_gone(struct judging *j)
{
	const struct client_watch *c = j->client;
	struct pollfd p = { .fd = c ? c->fd : -1, .events = POLLIN | POLLRDHUP };
	if (!j->gone && c && poll(&p, 1, 0) > 0 && c->gone(p.fd, p.revents))
		j->gone = true;
	return j->gone;
}

static const struct aide *aide_broken(const struct judging *j);

/* The tests' answer: streamed (then a carries the log's summary), or
 * gathered into one object. */
static void judge_answer(struct judging *j, struct build *b, struct answer *a)
{
	size_t n = j->req->n_tests;
	j->compile = b->json;
	b->json = NULL;
	j->summary = json_object_new_object();
	json_object_object_add(j->summary, "results", json_object_new_array());
	const struct aide *broken = aide_broken(j);
	if (b->ok && broken && !broken->b.budget_spent) {
		char why[128];
		snprintf(why, sizeof(why), "%s failed: it does not build", broken->title);
		for (size_t i = 0; i < n; i++) {
			j->results[i] = judge_not_run(&j->req->tests[i], V_IE, why);
			json_object_object_add(j->results[i], "details", json_object_new_string(why));
		}
		judge_emit(j);
	} else if (b->ok && !broken) {
		judge_run_tests(j);
	} else if (b->budget_spent || (b->ok && broken)) {
		/* Not the tenant's failed build: the request ran out of time. */
		for (size_t i = 0; i < n; i++)
			j->results[i] = judge_past_budget(&j->req->tests[i]);
		judge_emit(j);
	} else {
		for (size_t i = 0; i < n; i++)
			j->results[i] = judge_not_run(&j->req->tests[i], V_CE, b->error);
		judge_emit(j);
	}
	if (j->stream) {
		if (j->gone)        /* for the request log: the client left */
			json_object_object_add(j->summary, "client_gone",
					       json_object_new_boolean(1));
		answer_json(a, OUTCOME_OK, j->summary);
		a->streamed = true;
		return;
	}
	json_object_put(j->summary);
	struct json_object *obj = json_object_new_object();
	struct json_object *arr = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, j->results[i]);
	json_object_object_add(obj, "compile", j->compile);
	j->compile = NULL;
	struct aide *aides[] = { j->checker, j->interactor };
	for (size_t i = 0; i < 2; i++) {
		char key[32];
		if (!aides[i])
			continue;
		snprintf(key, sizeof(key), "%s_compile", aides[i]->role);
		json_object_object_add(obj, key, json_object_get(aides[i]->b.json));
	}
	json_object_object_add(obj, "results", arr);
	if (j->checker || j->interactor) {
		double score = 0;
		for (size_t i = 0; i < n; i++) {
			struct json_object *sc;
			if (json_object_object_get_ex(json_object_array_get_idx(arr, i), "score", &sc))
				score += json_object_get_double(sc);
		}
		json_object_object_add(obj, "score", json_object_new_double(score));
	}
	answer_json(a, OUTCOME_OK, obj);
}

/* A checker or an interactor that did not build (it did not compile, or
 * the budget stopped it), or NULL. */
static const struct aide *aide_broken(const struct judging *j)
{
	const struct aide *aides[] = { j->checker, j->interactor };
	for (size_t i = 0; i < 2; i++)
		if (aides[i] && !aides[i]->b.ok)
			return aides[i];
	return NULL;
}

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

/* The solution's checker and interactor built, once the solution is:
 * 0, or -1 with the fault. */
static int build_aides(struct judging *j, const struct build *b, char *err, size_t errlen)
{
	struct aide *aides[] = { j->checker, j->interactor };
	for (size_t i = 0; i < 2; i++)
		if (b->ok && aides[i] && aide_build(j, aides[i], err, errlen) < 0)
			return -1;
	return 0;
}

static void judge_request(struct engine *e, const struct request_io *io,
			  const struct lang *lang, const struct eval_request *req,
			  long t0, struct aide *checker, struct aide *interactor,
			  struct answer *a)
{
	char err[512];
	struct build b = { 0 };
	long end_ms = t0 + e->cfg.request_budget_ms;
	if (judge_build(e, io->client, lang, req, end_ms, &b, err, sizeof(err)) < 0) {
		json_object_put(b.json);
		free(b.error);
		judge_build_end(&b);
		answer_error(a, OUTCOME_FAULT, "%s", err);
		return;
	}
	struct judging j = {
		.e = e, .stream = io->stream, .client = io->client,
		.lang = lang, .req = req, .lower = b.lower,
		.mem = req->memory_limit_mb ? (unsigned long long)req->memory_limit_mb << 20 : 0,
		.end_ms = end_ms,
		.results = calloc(req->n_tests, sizeof(struct json_object *)),
		.checker = checker,
		.interactor = interactor,
	};
	if (!j.results || build_aides(&j, &b, err, sizeof(err)) < 0) {
		json_object_put(b.json);
		free(b.error);
		judge_build_end(&b);
		free(j.results);
		answer_error(a, OUTCOME_FAULT, "%s", j.results ? err : "out of memory");
		return;
	}
	judge_answer(&j, &b, a);
	judge_build_end(&b);    /* the tests are done with the build */
	for (size_t i = j.next; i < req->n_tests; i++)
		json_object_put(io->stream ? j.results[i] : NULL);
	json_object_put(j.compile);
	free(j.results);
	free(b.error);
}

/* A 422 with a reason made of fmt. */
static void answer_invalidf(struct answer *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void answer_invalidf(struct answer *a, const char *fmt, ...)
{
	char why[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	answer_invalid(a, why);
}

/* The request's checker or interactor made ready to build: its language
 * (named as a solution's may be), one with /execute's recipes, its limits
 * admitted, its files named.  0; or -1 with the answer given: a 4xx
 * naming the program, or a fault. */
static int aide_prepare(struct engine *e, const struct eval_program *prog, const char *role,
			const char *title, struct aide *x, struct answer *a)
{
	char err[512], entry[256], what[32];
	x->prog = prog;
	x->role = role;
	x->title = title;
	const struct lang *lang = find_language(e, prog->language);
	if (!lang) {
		answer_invalidf(a, "%s.language: unknown language %.100s", role, prog->language);
		return -1;
	}
	if (engine_lang_ready(e, lang, err, sizeof(err)) < 0) {
		answer_error(a, OUTCOME_FAULT, "%s", err);
		return -1;
	}
	if (!lang->installed) {
		answer_error(a, OUTCOME_BAD_REQUEST, "%s.language: language not installed: %s",
			     role, lang->slug);
		return -1;
	}
	if (!lang->execute_cmd) {
		answer_invalidf(a, "%s.language: %s has no execute recipe to run a %s", role,
				lang->slug, role);
		return -1;
	}
	if (eval_admit(&e->cfg, lang, prog->memory_limit_mb, prog->time_limit_ms, err,
		       sizeof(err)) < 0) {
		answer_invalidf(a, "%s.%s", role, err);
		return -1;
	}
	x->lang = *lang;
	x->lang.workdir = "src";             /* /execute's recipes' */
	judge_entry_name(lang, prog->code.data, entry, sizeof(entry));
	snprintf(what, sizeof(what), "%s.files", role);
	if (eval_files_with(&prog->code, &prog->files, entry, what, &x->files, err,
			    sizeof(err)) < 0) {
		answer_invalid(a, err);
		return -1;
	}
	return 0;
}

/* The request with its files, checker and interactor checked: judged. */
static void judge_prepared(struct engine *e, const struct request_io *io,
			   const struct lang *lang, struct eval_request *req, long t0,
			   struct answer *a)
{
	char err[512];
	struct aide checker = { 0 }, interactor = { 0 };
	bool aided = req->checker.given || req->interactor.given;
	if (req->files.n && eval_files_with(&req->code, &req->files, lang->solution_file,
					    "files", &req->solution_files, err,
					    sizeof(err)) < 0)
		answer_invalid(a, err);
	else if (req->checker.given &&
		 aide_prepare(e, &req->checker, "checker", "Checker", &checker, a) < 0)
		;
	else if (req->interactor.given &&
		 aide_prepare(e, &req->interactor, "interactor", "Interactor", &interactor, a) < 0)
		;
	else if (aided && engine_take_aides(e, err, sizeof(err)) < 0)
		answer_error(a, OUTCOME_FAULT, "%s", err);
	else
		judge_request(e, io, lang, req, t0, req->checker.given ? &checker : NULL,
			      req->interactor.given ? &interactor : NULL, a);
	aide_free(&checker);
	aide_free(&interactor);
}

void engine_evaluate(struct engine *e, const char *body, size_t len,
		     const struct request_io *io, struct answer *a)
{
	static const struct request_io none;
	char err[512];
	struct eval_request req;
	long t0 = now_ms();

	memset(a, 0, sizeof(*a));
	if (len > e->cfg.eval_input_max) {
		answer_error(a, OUTCOME_TOO_LARGE,
			     "request body exceeds RUN_EVAL_INPUT_MAX (%zu bytes)",
			     e->cfg.eval_input_max);
		return;
	}
	if (eval_request_parse(body, len, e->cfg.eval_tests_max, e->cfg.files_max, &req, err, sizeof(err)) < 0) {
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
	} else if (engine_lang_ready(e, lang, err, sizeof(err)) < 0) {
		answer_error(a, OUTCOME_FAULT, "%s", err);
	} else if (!lang->installed) {
		answer_error(a, OUTCOME_BAD_REQUEST, "language not installed: %s", lang->slug);
	} else if (eval_admit(&e->cfg, lang, req.memory_limit_mb, req.time_limit_ms, err,
			      sizeof(err)) < 0) {
		answer_invalid(a, err);
	} else {
		judge_prepared(e, io ? io : &none, lang, &req, t0, a);
	}
	eval_request_free(&req);
}

void engine_sweep(const struct engine *e)
{
	char dir[4200];

	config_cache_dir(&e->cfg, dir, sizeof(dir));
	cache_sweep(dir);
}
