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
			put(j, ",\"results\":[", 12);
			json_object_object_add(j->summary, "compile", j->compile);
			j->compile = NULL;
		}
		const char *t = json_object_to_json_string_ext(r, JSON_FLAGS);
		if (j->next)
			put(j, ",", 1);
		put(j, t, strlen(t));
		summarise(j, r);
		json_object_put(r);
		j->results[j->next] = NULL;
	}
	if (j->next == n && j->begun) {
		put(j, "]}", 2);
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

/* The tests' answer: streamed (then a carries the log's summary), or
 * gathered into one object. */
static void judge_answer(struct judging *j, struct build *b, struct answer *a)
{
	size_t n = j->req->n_tests;
	j->compile = b->json;
	b->json = NULL;
	j->summary = json_object_new_object();
	json_object_object_add(j->summary, "results", json_object_new_array());
	if (b->ok) {
		judge_run_tests(j);
	} else if (b->budget_spent) {
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
	json_object_object_add(obj, "results", arr);
	answer_json(a, OUTCOME_OK, obj);
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

static void judge_request(struct engine *e, const struct request_io *io,
			  const struct lang *lang, const struct eval_request *req,
			  long t0, struct answer *a)
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
	};
	if (!j.results) {
		json_object_put(b.json);
		free(b.error);
		judge_build_end(&b);
		answer_error(a, OUTCOME_FAULT, "out of memory");
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
	if (eval_request_parse(body, len, e->cfg.eval_tests_max, &req, err, sizeof(err)) < 0) {
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
		judge_request(e, io ? io : &none, lang, &req, t0, a);
	}
	eval_request_free(&req);
}

void engine_sweep(const struct engine *e)
{
	char dir[4200];

	config_cache_dir(&e->cfg, dir, sizeof(dir));
	cache_sweep(dir);
}
