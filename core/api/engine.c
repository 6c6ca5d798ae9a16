/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine: one request in, one outcome and JSON body out.  This file
 * says which outcome each thing that can happen to a /run is (docs/api.md,
 * "Errors and status codes"); the HTTP status of an outcome, and the
 * transport (FastCGI, the command line), live in fcgi/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <json-c/json.h>

#include "api/engine.h"
#include "api/request.h"
#include "conf/version.h"
#include "util/cpus.h"
#include "util/fail.h"
#include "util/utf8.h"
#include "util/util.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

void answer_json(struct answer *a, enum outcome outcome, struct json_object *obj)
{
	size_t len = 0;
	const char *text = json_object_to_json_string_length(obj, JSON_FLAGS, &len);
	a->outcome = outcome;
	a->body = malloc(len + 1);
	if (a->body) {
		memcpy(a->body, text, len + 1);
		a->len = len;
	} else {
		a->outcome = OUTCOME_FAULT;
		a->len = 0;
	}
	json_object_put(obj);
}

void answer_error(struct answer *a, enum outcome outcome, const char *fmt, ...)
{
	char reason[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "error", utf8_json_string(reason, strlen(reason)));
	answer_json(a, outcome, obj);
}

void answer_free(struct answer *a)
{
	free(a->body);
	a->body = NULL;
	a->len = 0;
}

/* The host paths a run's init reaches besides the state directory and
 * /proc (slot/prune.h): the languages' directories (their layer of
 * /sandbox) and overlay paths. */
static int note_reach(struct engine *e, char *err, size_t errlen)
{
	size_t n = 2;
	for (size_t i = 0; i < e->langs.n; i++)
		for (char **p = e->langs.v[i].overlay_paths; p && *p; p++)
			n++;
	n += e->langs.n;
	if (!(e->reach = calloc(n, sizeof(*e->reach))))
		return fail(err, errlen, "out of memory");
	size_t k = 0;
	e->reach[k++] = e->cfg.langs_dir;
	for (size_t i = 0; i < e->langs.n; i++) {
		e->reach[k++] = e->langs.v[i].dir;
		for (char **p = e->langs.v[i].overlay_paths; p && *p; p++)
			e->reach[k++] = *p;
	}
	return 0;
}

static int load(struct engine *e, bool lazy, char *err, size_t errlen)
{
	/* Not the judging lanes (100 KB, the last member): each is set up
	 * whole when taken (engine_take_lanes), and a process that takes
	 * none, as a one-shot gaol-run /run, never touches their pages. */
	memset(e, 0, offsetof(struct engine, lanes));
	if (config_from_env(&e->cfg, err, errlen) < 0)
		return -1;
	cpus_note();    /* the CPUs a run's program gets, whatever pins a worker */
	if ((lazy ? langs_load_names : langs_load)(&e->cfg, &e->langs, err, errlen) < 0 ||
	    note_reach(e, err, errlen) < 0)
		return -1;
	if (cgroup_service_prepare(&e->cgroup_version, err, errlen) < 0)
		return -1;
	/* v1 only: on v2 each init is cloned into its cgroup (dynmods.c). */
	if (e->cfg.favor_dynmods && e->cgroup_version == 1)
		return cgroup_favor_dynmods(err, errlen);
	return 0;
}

int engine_load(struct engine *e, char *err, size_t errlen)
{
	return load(e, false, err, errlen);
}

int engine_load_one_shot(struct engine *e, char *err, size_t errlen)
{
	return load(e, true, err, errlen);
}

int engine_lang_ready(struct engine *e, const struct lang *lang, char *err, size_t errlen)
{
	/* The set's own (writable) entry. */
	return lang_complete(&e->cfg, &e->langs.v[lang - e->langs.v], err, errlen);
}

/* Every language ready (lang_complete), for what names them all: 0, or -1
 * with the first one's fault. */
static int all_ready(struct engine *e, char *err, size_t errlen)
{
	for (size_t i = 0; i < e->langs.n; i++)
		if (engine_lang_ready(e, &e->langs.v[i], err, errlen) < 0)
			return -1;
	return 0;
}

struct slot *engine_lane(struct engine *e, unsigned k)
{
	return k == 0 ? &e->slot : &e->lanes[k - 1];
}

/* A one-shot's templates serve one request: pruning them (a detach, and an
 * RCU grace period, per host mount no run needs) would cost more than it
 * saves, so they keep every host mount (slot/prune.h).  A kept slot's
 * template serves the starts after it. */
static char *const *engine_reach(const struct engine *e)
{
	return e->one_shot && !e->cfg.keep ? NULL : e->reach;
}

int engine_take_run_slot(struct engine *e, unsigned slot_index, char *err, size_t errlen)
{
	e->slot_index = slot_index;
	/* A one-shot's slot has no next run to give its network namespace
	 * to, unless it is kept for the next start (slot/keep.h). */
	bool reuse = !e->cfg.netns_fresh && (!e->one_shot || e->cfg.keep);
	return slot_init(&e->slot, &e->cfg, engine_reach(e), e->cgroup_version, slot_index, 0,
			 reuse, err, errlen);
}

int engine_take_lanes(struct engine *e, char *err, size_t errlen)
{
	/* Lane 0 judges test after test too: its next test may reuse the
	 * namespace its last one left (a one-shot's slot included). */
	e->slot.netns_reuse = !e->cfg.netns_fresh;
	for (unsigned k = e->n_lanes + 1; k < e->cfg.eval_parallel; k++) {
		if (slot_init(engine_lane(e, k), &e->cfg, engine_reach(e), e->cgroup_version,
			      e->slot_index, k, !e->cfg.netns_fresh, err, errlen) < 0)
			return -1;
		e->n_lanes = k;
	}
	return 0;
}

int engine_take_aides(struct engine *e, char *err, size_t errlen)
{
	unsigned index = CONFIG_AIDE_INDEX(&e->cfg, e->slot_index);
	for (unsigned k = e->n_aides; k < e->cfg.eval_parallel; k++) {
		/* Lane k + 1 of the aide's UID: named apart from any slot's. */
		if (slot_init(&e->aides[k], &e->cfg, engine_reach(e), e->cgroup_version,
			      index, k + 1, !e->cfg.netns_fresh, err, errlen) < 0)
			return -1;
		e->n_aides = k + 1;
	}
	return 0;
}

struct slot *engine_aide(struct engine *e, unsigned k)
{
	return &e->aides[k];
}

int engine_take_slot(struct engine *e, unsigned slot_index, char *err, size_t errlen)
{
	if (engine_take_run_slot(e, slot_index, err, errlen) < 0)
		return -1;
	return engine_take_lanes(e, err, errlen);
}

int engine_init(struct engine *e, unsigned slot_index, char *err, size_t errlen)
{
	if (engine_load(e, err, errlen) < 0)
		return -1;
	return engine_take_slot(e, slot_index, err, errlen);
}

void engine_idle(struct engine *e)
{
	char err[256];
	/* The next run's sandbox, built now as far as no request decides it;
	 * judging lanes (used by forked children) are built per run. */
	if (slot_prepare(&e->slot, err, sizeof(err)) < 0)
		fprintf(stderr, "gaol: slot %u: %s\n", e->slot_index, err);
	for (unsigned k = 1; k <= e->n_lanes; k++)
		if (slot_refresh(engine_lane(e, k), err, sizeof(err)) < 0)
			fprintf(stderr, "gaol: slot %u lane %u: %s\n", e->slot_index, k, err);
	for (unsigned k = 0; k < e->n_aides; k++)
		if (slot_refresh(engine_aide(e, k), err, sizeof(err)) < 0)
			fprintf(stderr, "gaol: slot %u aide %u: %s\n", e->slot_index, k, err);
}

/* The engine owns both the slot (slot/) and its runs (run/): what the runs
 * left goes first, then the slot. */
static void slot_end(struct slot *s)
{
	if (s->ready)
		sandbox_release(s);
	slot_free(s);
}

void engine_release_slot(struct engine *e)
{
	for (unsigned k = 1; k <= e->n_lanes; k++)
		slot_end(engine_lane(e, k));
	e->n_lanes = 0;
	for (unsigned k = 0; k < e->n_aides; k++)
		slot_end(engine_aide(e, k));
	e->n_aides = 0;
	slot_end(&e->slot);
}

void engine_free_now(struct engine *e)
{
	sandbox_release_now(&e->slot);
	engine_free(e);
}

void engine_free(struct engine *e)
{
	engine_release_slot(e);
	free(e->reach);
	e->reach = NULL;
	langs_free(&e->langs);
	config_free(&e->cfg);
}

/* "python, js" */
static void installed_list(struct engine *e, char *out, size_t len)
{
	const struct lang_set *set = &e->langs;
	char err[512];
	size_t used = 0;
	out[0] = 0;
	if (all_ready(e, err, sizeof(err)) < 0)
		fprintf(stderr, "gaol: %s\n", err);
	for (size_t i = 0; i < set->n; i++) {
		if (!set->v[i].installed)
			continue;
		int n = snprintf(out + used, len - used, "%s%s", used ? ", " : "",
				 set->v[i].slug);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
}

static const char *signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "SIG%d", sig);
	return buf;
}

/* A measurement (milliseconds, kilobytes), null when unknown (-1). */
static struct json_object *measured_or_null(long v)
{
	return v < 0 ? NULL : json_object_new_int64(v);
}

/* Codebattle's parser (output_parser_v2.ex) tells a timeout and an OOM kill
 * from other failures only by what a killed `make test` reports: exit 143
 * with "SIGTERM" for its runner's timeout, exit 2 with make's "Killed" for
 * the OOM killer.  The answer says it in those terms (exit_code, a line
 * added to stderr) and keeps timed_out, oom_killed and signal as they really
 * were.  A harness that lived through an OOM kill of a child keeps its exit 0. */
static int codebattle_exit(const struct sandbox_result *res, int code, long timeout_ms,
			   unsigned long long mem_max, char *note, size_t len)
{
	note[0] = 0;
	if (res->timed_out) {
		snprintf(note, len, "gaol: timed out after %ld ms: SIGTERM (exit 143, as "
			 "Codebattle's runner reports a timeout; the run was stopped "
			 "with SIGKILL)\n", timeout_ms);
		return 143;
	}
	if (res->oom_killed && code != 0) {
		snprintf(note, len, "gaol: Killed: memory limit (%llu bytes) exceeded "
			 "(exit 2, as make reports it)\n", mem_max);
		return 2;
	}
	return code;
}

static void answer_run(struct answer *a, const struct sandbox_result *res,
		       const struct lang *lang, long timeout_ms)
{
	struct json_object *obj = json_object_new_object();
	struct json_object *signal = NULL;
	char name[32], note[256];
	int code = -1;

	if (res->killed) {
		/* gaol's own stop (the timeout): init and the run get SIGKILL. */
		signal = json_object_new_string("SIGKILL");
	} else {
		code = exit_code(res->wait_status);
		if (code >= 0 && WIFSIGNALED(res->wait_status)) {
			int sig = WTERMSIG(res->wait_status);
			signal = json_object_new_string(signal_name(sig, name, sizeof(name)));
		}
	}
	code = codebattle_exit(res, code, timeout_ms, lang->mem_max, note, sizeof(note));
	json_object_object_add(obj, "exit_code", code < 0 ? NULL : json_object_new_int(code));
	json_object_object_add(obj, "stdout", utf8_json_string(res->out ? res->out : "",
							       res->out_len));
	/* The note goes after what the program wrote, on a line of its own. */
	char *err = NULL;
	int n = asprintf(&err, "%.*s%s%s", (int)res->err_len, res->err ? res->err : "",
			 note[0] && res->err_len && res->err[res->err_len - 1] != '\n' ? "\n" : "",
			 note);
	json_object_object_add(obj, "stderr", n < 0 ? json_object_new_string("")
			       : utf8_json_string(err, (size_t)n));
	free(err);
	json_object_object_add(obj, "timed_out", json_object_new_boolean(res->timed_out));
	json_object_object_add(obj, "oom_killed", json_object_new_boolean(res->oom_killed));
	json_object_object_add(obj, "signal", signal);
	json_object_object_add(obj, "wall_ms", json_object_new_int64(res->wall_ms));
	json_object_object_add(obj, "cpu_ms", measured_or_null(res->cpu_ms));
	json_object_object_add(obj, "memory_peak_kb", measured_or_null(res->memory_peak_kb));
	answer_json(a, OUTCOME_OK, obj);
}

bool engine_body_too_large(const struct engine *e, size_t len, struct answer *a)
{
	if (len <= e->cfg.input_max)
		return false;
	answer_error(a, OUTCOME_TOO_LARGE, "request body exceeds RUN_INPUT_MAX (%zu bytes)",
		     e->cfg.input_max);
	return true;
}

/* How long the program may run.  Codebattle's HTTP client waits exactly the
 * request's timeout for the answer (remote_zig.ex: receive_timeout is
 * container_run_timeout), so the program is stopped early enough for the
 * kill, the sandbox's teardown and the answer to fit in it even on a busy
 * host (50+ ms seen): a reserve of a tenth of the timeout, 100 to 500 ms
 * (at most half), and what passed since the request arrived. */
static long run_budget_ms(long timeout_ms, long arrived_ms)
{
	long reserve = timeout_ms / 10;
	if (reserve < 100)
		reserve = 100;
	if (reserve > 500)
		reserve = 500;
	if (reserve > timeout_ms / 2)
		reserve = timeout_ms / 2;
	long budget = timeout_ms - reserve - (now_ms() - arrived_ms);
	return budget < 1 ? 1 : budget;
}

void engine_run(struct engine *e, const char *body, size_t len,
		const struct request_io *io, struct answer *a)
{
	char err[512];
	struct run_request req;
	long arrived = now_ms();

	memset(a, 0, sizeof(*a));
	if (engine_body_too_large(e, len, a))
		return;
	if (run_request_parse(body, len, e->cfg.timeout_default_ms,
			      e->cfg.timeout_max_ms, &req, err, sizeof(err)) < 0) {
		answer_error(a, OUTCOME_BAD_REQUEST, "%s", err);
		return;
	}
	const struct lang *lang = langs_find(&e->langs, req.lang_slug, LANG_BY_SLUG);
	char installed[1024];
	if (!lang) {
		installed_list(e, installed, sizeof(installed));
		answer_error(a, OUTCOME_BAD_REQUEST, "unknown lang_slug \"%s\" (installed: %s)",
			     req.lang_slug, installed);
		goto out;
	}
	if (engine_lang_ready(e, lang, err, sizeof(err)) < 0) {
		answer_error(a, OUTCOME_FAULT, "%s", err);
		goto out;
	}
	if (!lang->installed) {
		installed_list(e, installed, sizeof(installed));
		answer_error(a, OUTCOME_BAD_REQUEST, "language not installed: %s (installed: %s)",
			     lang->slug, installed);
		goto out;
	}
	if (lang->checker_required && !req.checker.data) {
		answer_error(a, OUTCOME_BAD_REQUEST, "checker_text is required for %s", lang->slug);
		goto out;
	}
	if (!lang->test_cmd) {
		answer_error(a, OUTCOME_BAD_REQUEST, "language %s is for /evaluate only (no /run harness)",
			     lang->slug);
		goto out;
	}

	struct sandbox_file files[3];
	size_t n = 0;
	files[n++] = (struct sandbox_file){ lang->solution_file, req.solution.data,
					    req.solution.len };
	if (lang->checker_file && req.checker.data)
		files[n++] = (struct sandbox_file){ lang->checker_file, req.checker.data,
						    req.checker.len };
	if (req.asserts.data)
		files[n++] = (struct sandbox_file){ "asserts.json", req.asserts.data,
						    req.asserts.len };
	struct sandbox_spec spec = {
		.lang = lang,
		.command = lang->test_cmd,
		.files = files,
		.n_files = n,
		.timeout_ms = run_budget_ms(req.timeout_ms, arrived),
		.output_max = e->cfg.output_max,
		.client = io ? io->client : NULL,
	};
	struct sandbox_result res;
	if (sandbox_run(&e->slot, &spec, &res) < 0) {
		answer_error(a, OUTCOME_FAULT, "%s", res.fault);
	} else if (res.output_exceeded) {
		answer_error(a, OUTCOME_TOO_LARGE, "%s exceeds RUN_OUTPUT_MAX (%zu bytes)",
			     res.output_exceeded == STREAM_STDOUT ? "stdout" : "stderr",
			     e->cfg.output_max);
	} else {
		answer_run(a, &res, lang, req.timeout_ms);
	}
	sandbox_result_free(&res);
out:
	run_request_free(&req);
}

void engine_health(const struct engine *e, struct answer *a)
{
	struct json_object *obj = json_object_new_object();
	struct json_object *ok = json_object_new_array();
	struct json_object *missing = json_object_new_array();
	struct json_object *toolchains = json_object_new_object();
	for (size_t i = 0; i < e->langs.n; i++) {
		const struct lang *l = &e->langs.v[i];
		json_object_array_add(l->installed ? ok : missing,
				      json_object_new_string(l->slug));
		/* Which toolchain serves it: the first line its probe printed
		 * (csharp says whether it is Mono or a .NET SDK). */
		const char *v = l->version ? l->version : "";
		if (l->installed && *v)
			json_object_object_add(toolchains, l->slug,
					       utf8_json_string(v, strcspn(v, "\n")));
	}
	json_object_object_add(obj, "ok", json_object_new_boolean(1));
	json_object_object_add(obj, "service", json_object_new_string("gaol"));
	json_object_object_add(obj, "version", json_object_new_string(gaol_version()));
	json_object_object_add(obj, "build", json_object_new_string(gaol_build()));
	json_object_object_add(obj, "slots", json_object_new_int((int)e->cfg.concurrency));
	json_object_object_add(obj, "slot", json_object_new_int((int)e->slot_index));
	json_object_object_add(obj, "cgroup", json_object_new_string(
				       e->cgroup_version == 2 ? "v2" : "v1"));
	json_object_object_add(obj, "languages", ok);
	json_object_object_add(obj, "not_installed", missing);
	json_object_object_add(obj, "toolchains", toolchains);
	answer_json(a, OUTCOME_OK, obj);
}
