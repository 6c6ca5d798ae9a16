/* SPDX-License-Identifier: Apache-2.0 */
/*
 * execute: POST /execute end to end (see execute.h).
 *
 *   request   parsed (execute_request.c), the language found by slug, alias
 *             or Piston's name, its real version matched against the
 *             selector, the limits admitted under the ceilings; nothing has
 *             run when any of it is refused.
 *   compile   the language's `compile` recipe, in a sandbox of its own, its
 *             /sandbox exported into a compile-cache entry (judge/cache.h)
 *             keyed by every file's name and bytes; a hit skips it.
 *   run       the `execute` recipe in a fresh sandbox over that entry (or,
 *             with no compile stage, over the files themselves), the
 *             request's stdin fed, its args as the shell's "$@".
 * Both stages are the one engine's runs: same sandbox, accounting, cleanup
 * and client-hangup stop as /run and /evaluate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <json-c/json.h>

#include "api/engine.h"
#include "execute/execute.h"
#include "execute/stages.h"
#include "judge/cache.h"
#include "judge/judge.h"
#include "lang/semver.h"
#include "util/utf8.h"
#include "util/util.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

void answer_message(struct answer *a, int outcome, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "message", utf8_json_string(msg, strlen(msg)));
	json_object_object_add(o, "error", utf8_json_string(msg, strlen(msg)));
	answer_json(a, (enum outcome)outcome, o);
}

/* The stage's output, interleaved as read (sandbox_spec.on_output). */
static void on_output(void *ctx, int which, const char *buf, size_t len)
{
	struct exec_stage *st = ctx;
	(void)which;
	if (st->output_len + len + 1 > st->output_cap) {
		size_t cap = st->output_cap ? st->output_cap : 4096;
		while (cap < st->output_len + len + 1)
			cap *= 2;
		char *nb = realloc(st->output, cap);
		if (!nb)
			return;
		st->output = nb;
		st->output_cap = cap;
	}
	memcpy(st->output + st->output_len, buf, len);
	st->output_len += len;
}

void exec_stage_free(struct exec_stage *st)
{
	if (st->res.ran || st->res.out || st->res.err)
		sandbox_result_free(&st->res);
	free(st->output);
	memset(st, 0, sizeof(*st));
}

struct json_object *exec_base64(const char *s, size_t len)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((len + 2) / 3 * 4 + 1);
	size_t n = 0;
	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		unsigned w = (unsigned char)s[i] << 16;
		if (i + 1 < len)
			w |= (unsigned char)s[i + 1] << 8;
		if (i + 2 < len)
			w |= (unsigned char)s[i + 2];
		out[n++] = tab[w >> 18 & 63];
		out[n++] = tab[w >> 12 & 63];
		out[n++] = i + 1 < len ? tab[w >> 6 & 63] : '=';
		out[n++] = i + 2 < len ? tab[w & 63] : '=';
	}
	struct json_object *j = json_object_new_string_len(out, (int)n);
	free(out);
	return j;
}

static struct json_object *text(bool b64, const char *s, size_t len)
{
	return b64 ? exec_base64(s ? s : "", len) : utf8_json_string(s ? s : "", len);
}

/* Piston's status and isolate's message for a stage that ran. */
static const char *stage_status(const struct sandbox_result *res, char *msg, size_t len)
{
	msg[0] = 0;
	if (res->output_exceeded == STREAM_STDOUT)
		return snprintf(msg, len, "stdout length exceeded"), "OL";
	if (res->output_exceeded == STREAM_STDERR)
		return snprintf(msg, len, "stderr length exceeded"), "EL";
	if (res->timed_out)
		return snprintf(msg, len, res->deadline == DEADLINE_CPU_CEILING ?
				"Time limit exceeded" : "Time limit exceeded (wall clock)"), "TO";
	if (res->killed)
		return snprintf(msg, len, "Stopped by gaol"), "XX";
	if (WIFSIGNALED(res->wait_status))
		return snprintf(msg, len, "Caught fatal signal %d", WTERMSIG(res->wait_status)),
		       "SG";
	if (WIFEXITED(res->wait_status) && WEXITSTATUS(res->wait_status))
		return snprintf(msg, len, "Exited with error status %d",
				WEXITSTATUS(res->wait_status)), "RE";
	return NULL;
}

static struct json_object *signal_name(const struct sandbox_result *res, const char *status)
{
	char name[32];
	if (status && (!strcmp(status, "OL") || !strcmp(status, "EL") || !strcmp(status, "TO")))
		return json_object_new_string("SIGKILL");
	if (res->killed || !WIFSIGNALED(res->wait_status))
		return NULL;
	const char *abbrev = sigabbrev_np(WTERMSIG(res->wait_status));
	snprintf(name, sizeof(name), "SIG%s", abbrev ? abbrev : "UNKNOWN");
	return json_object_new_string(name);
}

static struct json_object *stage_json(const struct exec_stage *st, bool b64)
{
	const struct sandbox_result *res = &st->res;
	char msg[96];
	const char *status = stage_status(res, msg, sizeof(msg));
	struct json_object *o = json_object_new_object();
	bool exited = !res->killed && WIFEXITED(res->wait_status);
	json_object_object_add(o, "stdout", text(b64, res->out, res->out_len));
	json_object_object_add(o, "stderr", text(b64, res->err, res->err_len));
	json_object_object_add(o, "output", text(b64, st->output, st->output_len));
	json_object_object_add(o, "code", exited ? json_object_new_int(
		WEXITSTATUS(res->wait_status)) : NULL);
	json_object_object_add(o, "signal", signal_name(res, status));
	json_object_object_add(o, "message", msg[0] ? json_object_new_string(msg) : NULL);
	json_object_object_add(o, "status", status ? json_object_new_string(status) : NULL);
	json_object_object_add(o, "cpu_time", res->cpu_ms < 0 ? NULL
			       : json_object_new_int64(res->cpu_ms));
	json_object_object_add(o, "wall_time", json_object_new_int64(res->wall_ms));
	json_object_object_add(o, "memory", res->memory_peak_kb < 0 ? NULL
			       : json_object_new_int64(res->memory_peak_kb * 1024LL));
	json_object_object_add(o, "timed_out", json_object_new_boolean(res->timed_out));
	json_object_object_add(o, "oom_killed", json_object_new_boolean(res->oom_killed));
	json_object_object_add(o, "memory_peak_kb", res->memory_peak_kb < 0 ? NULL
			       : json_object_new_int64(res->memory_peak_kb));
	return o;
}

/* /bin/sh -c cmd $0 "$@": the entry point, then words (NULL-ended). */
static char **sh_argv(const char *cmd, const char *entry, char *const *words, size_t n)
{
	char **v = calloc(n + 5, sizeof(*v));
	if (!v)
		return NULL;
	v[0] = "sh";
	v[1] = "-c";
	v[2] = (char *)cmd;
	v[3] = (char *)entry;
	for (size_t i = 0; i < n; i++)
		v[4 + i] = words[i];
	return v;
}

/* Runs one stage; 0 with res, or -1 with the fault in res. */
static int stage_run(struct execution *x, const char *cmd, char **argv,
		     const struct exec_limits *lim, unsigned long long mem,
		     const char *export_dir, bool with_stdin, struct exec_stage *st)
{
	const struct gaol_config *cfg = &x->e->cfg;
	struct sandbox_spec spec = {
		.lang = &x->lang,
		.command = cmd,
		.sh_argv = argv,
		.files = x->lower[0] ? NULL : x->files,
		.n_files = x->lower[0] ? 0 : x->req->files.n,
		.timeout_ms = lim->timeout_ms,
		.cpu_deadline_ms = lim->cpu_ms,
		.idle_deadline_ms = lim->timeout_ms,  /* the wall clock decides */
		.output_max = x->output_max && x->output_max < cfg->execute_output_max ?
			      x->output_max : cfg->execute_output_max,
		.stack_max = x->lang.stack_is_memory ? mem : 0,
		.lower = x->lower[0] ? x->lower : NULL,
		.export_dir = export_dir,
		.export_max_bytes = cfg->eval_build_max,
		.export_max_entries = cfg->eval_build_files,
		.stdin_data = with_stdin ? (x->req->stdin_data.data ? x->req->stdin_data.data : "")
			      : NULL,
		.stdin_len = with_stdin ? x->req->stdin_data.len : 0,
		.mem_max = mem,
		.on_output = on_output,
		.ctx = st,
		.budget_end_ms = x->end_ms,
		.client = x->client,
		.stderr_to_stdout = x->stderr_to_stdout,
	};
	return sandbox_run(&x->e->slot, &spec, &st->res);
}

/* The compile command: a front's own (Judge0's compiler options), else the
 * language's. */
static const char *compile_cmd(const struct execution *x)
{
	return x->compile_cmd ? x->compile_cmd : x->lang.compile_cmd;
}

/* The compile cache's key: the command, every file's name and bytes, in
 * order, and a front's own part (the same key as a checker's:
 * judge_files_key). */
static int key_make(struct execution *x, struct cache_key *key)
{
	return judge_files_key(key, &x->lang, compile_cmd(x), x->key_extra, x->files,
			       x->req->files.n);
}

/* A hit: the compiler did not run (its words are not kept). */
static struct json_object *compile_hit(void)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "stdout", json_object_new_string(""));
	json_object_object_add(o, "stderr", json_object_new_string(""));
	json_object_object_add(o, "output", json_object_new_string(""));
	json_object_object_add(o, "code", json_object_new_int(0));
	json_object_object_add(o, "signal", NULL);
	json_object_object_add(o, "message", NULL);
	json_object_object_add(o, "status", NULL);
	json_object_object_add(o, "cpu_time", NULL);
	json_object_object_add(o, "wall_time", json_object_new_int(0));
	json_object_object_add(o, "memory", NULL);
	json_object_object_add(o, "cached", json_object_new_boolean(1));
	return o;
}

/* Runs the compile recipe into dir; 1 built, 0 failed, -1 fault. */
static int compile_into(struct execution *x, const char *dir, struct exec_stage *st,
			char *fault, size_t faultlen)
{
	size_t n = x->req->files.n;
	char **names = calloc(n + 1, sizeof(*names)), **argv;
	for (size_t i = 0; names && i < n; i++)
		names[i] = (char *)x->files[i].name;
	argv = names ? sh_argv(compile_cmd(x), x->files[0].name, names, n) : NULL;
	int rc = argv ? stage_run(x, compile_cmd(x), argv, &x->req->compile,
				  x->compile_mem, dir, false, st) : -1;
	free(argv);
	free(names);
	if (rc < 0) {
		snprintf(fault, faultlen, "%s", argv ? st->res.fault : "out of memory");
		return -1;
	}
	const struct sandbox_result *res = &st->res;
	return !res->killed && WIFEXITED(res->wait_status) && !WEXITSTATUS(res->wait_status) &&
	       res->export_over == 0;
}

int exec_compile(struct execution *x, struct exec_stage *st, char *fault, size_t faultlen)
{
	char cache_dir[4200], tmp[4400], dir[4400];
	struct cache_key key;
	memset(st, 0, sizeof(*st));
	config_cache_dir(&x->e->cfg, cache_dir, sizeof(cache_dir));
	if (key_make(x, &key) < 0)
		return snprintf(fault, faultlen, "out of memory"), -1;
	if (cache_lookup(cache_dir, &key, x->lower, sizeof(x->lower), &x->pin)) {
		cache_key_free(&key);
		x->cached = true;
		return 1;
	}
	int rc = cache_reserve(cache_dir, tmp, sizeof(tmp), dir, sizeof(dir));
	if (rc < 0) {
		snprintf(fault, faultlen, "cache: reserve errno=%d", errno);
	} else if ((rc = compile_into(x, dir, st, fault, faultlen)) == 1) {
		int c = cache_commit(cache_dir, &key, tmp, "{}", x->e->cfg.eval_cache_max,
				     x->lower, sizeof(x->lower), &x->pin);
		if (c < 0)
			rc = -1, snprintf(fault, faultlen, "cache: commit errno=%d", errno);
		else if (c == 1)
			snprintf(x->uncached, sizeof(x->uncached), "%s", tmp);
	} else {
		cache_remove_tree(tmp);
	}
	cache_key_free(&key);
	return rc;
}

/* /execute's compile stage in Piston's words: 1 built (*out says how, or
 * that the cache had it), 0 failed, -1 a fault. */
static int compile_stage(struct execution *x, struct json_object **out, char *fault,
			 size_t faultlen)
{
	struct exec_stage st;
	int rc = exec_compile(x, &st, fault, faultlen);
	if (rc >= 0 && x->cached) {
		*out = compile_hit();
	} else if (rc >= 0) {
		*out = stage_json(&st, x->req->base64);
		json_object_object_add(*out, "cached", json_object_new_boolean(0));
		if (st.res.export_over) {
			json_object_object_add(*out, "status", json_object_new_string("XX"));
			json_object_object_add(*out, "message", json_object_new_string(
				"the compile stage left more than RUN_EVAL_BUILD_MAX bytes or "
				"RUN_EVAL_BUILD_FILES files"));
		}
	}
	exec_stage_free(&st);
	return rc;
}

int exec_run(struct execution *x, const struct exec_limits *lim, unsigned long long mem,
	     struct exec_stage *st, char *fault, size_t faultlen)
{
	const char *cmd = x->execute_cmd ? x->execute_cmd : x->lang.execute_cmd;
	char **argv = sh_argv(cmd, x->files[0].name, x->req->args, x->req->n_args);
	memset(st, 0, sizeof(*st));
	if (!argv)
		return snprintf(fault, faultlen, "out of memory"), -1;
	int rc = stage_run(x, cmd, argv, lim, mem, NULL, true, st);
	free(argv);
	if (rc < 0)
		snprintf(fault, faultlen, "%s", st->res.fault);
	return rc;
}

static int run_stage(struct execution *x, struct json_object **out, char *fault,
		     size_t faultlen)
{
	struct exec_stage st;
	int rc = exec_run(x, &x->req->run, x->run_mem, &st, fault, faultlen);
	if (rc == 0)
		*out = stage_json(&st, x->req->base64);
	exec_stage_free(&st);
	return rc;
}

int exec_prepare(struct execution *x)
{
	const struct exec_request *r = x->req;
	x->pin = -1;
	x->end_ms = now_ms() + x->e->cfg.request_budget_ms;
	x->files = calloc(r->files.n, sizeof(*x->files));
	if (!x->files)
		return -1;
	for (size_t i = 0; i < r->files.n; i++)
		x->files[i] = (struct sandbox_file){ r->files.v[i].name, r->files.v[i].data,
						    r->files.v[i].len };
	return 0;
}

void exec_end(struct execution *x)
{
	cache_unpin(&x->pin);
	if (x->uncached[0])
		cache_remove_tree(x->uncached);
	x->uncached[0] = 0;
	free(x->files);
	x->files = NULL;
}

/* ---- the request, end to end ---- */

/* By slug, alias or Piston's name, whatever the case ("Python", "C++"). */
static const struct lang *find_language(const struct engine *e, const char *name)
{
	char lower[64];
	size_t n = strlen(name);
	if (n >= sizeof(lower))
		return NULL;
	for (size_t i = 0; i <= n; i++)
		lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
	const struct lang *l = langs_find(&e->langs, lower, LANG_BY_SLUG_OR_ALIAS);
	for (size_t i = 0; !l && i < e->langs.n; i++)
		if (e->langs.v[i].piston_language && !strcmp(e->langs.v[i].piston_language, lower))
			l = &e->langs.v[i];
	return l;
}

/* The entry point's name when the request gave none (judge_entry_name). */
void exec_entry_name(const struct lang *lang, const struct req_file *f, char *out,
		     size_t len)
{
	judge_entry_name(lang, f->data, out, len);
}

/* A stage's memory: -1 the ceiling; above it, a 400 naming the field. */
static int admit_memory(const struct engine *e, const struct lang *lang, const char *field,
			long long asked, unsigned long long *mem, struct answer *a)
{
	unsigned long long max = e->cfg.eval_memory_max ? e->cfg.eval_memory_max : lang->mem_max;
	if (asked > 0 && (unsigned long long)asked > max) {
		answer_message(a, OUTCOME_BAD_REQUEST, "%s cannot exceed the configured limit "
			       "of %llu (%s)", field, max, e->cfg.eval_memory_max ?
			       "RUN_MEMORY_LIMIT_MAX" : "the language's memory limit");
		return -1;
	}
	if (asked >= 0 && asked < 8 << 20) {
		answer_message(a, OUTCOME_BAD_REQUEST, "%s must be -1 or at least 8 MiB", field);
		return -1;
	}
	*mem = asked < 0 ? max : (unsigned long long)asked;
	return 0;
}

static int admit_time(const char *field, long asked, long max, const char *name,
		      struct answer *a)
{
	if (asked <= max)
		return 0;
	answer_message(a, OUTCOME_BAD_REQUEST, "%s cannot exceed the configured limit of "
		       "%ld (%s)", field, max, name);
	return -1;
}

static int admit(struct execution *x, const struct exec_request *r, struct answer *a)
{
	const struct gaol_config *cfg = &x->e->cfg;
	long cmax = cfg->execute_compile_max_ms, rmax = cfg->execute_run_max_ms;
	const char *cn = "RUN_EXECUTE_COMPILE_TIMEOUT_MAX", *rn = "RUN_EXECUTE_RUN_TIMEOUT_MAX";
	if (admit_time("compile_timeout", r->compile.timeout_ms, cmax, cn, a) < 0 ||
	    admit_time("compile_cpu_time", r->compile.cpu_ms, cmax, cn, a) < 0 ||
	    admit_time("run_timeout", r->run.timeout_ms, rmax, rn, a) < 0 ||
	    admit_time("run_cpu_time", r->run.cpu_ms, rmax, rn, a) < 0)
		return -1;
	if (admit_memory(x->e, &x->lang, "compile_memory_limit", r->compile.memory,
			 &x->compile_mem, a) < 0 ||
	    admit_memory(x->e, &x->lang, "run_memory_limit", r->run.memory, &x->run_mem, a) < 0)
		return -1;
	return 0;
}

/* The language, ready and installed, whose version the selector accepts;
 * NULL with the 400 (or 500) answered. */
static const struct lang *choose(struct engine *e, const struct exec_request *r,
				 struct answer *a)
{
	char err[512];
	const struct lang *lang = find_language(e, r->language);
	if (!lang) {
		answer_message(a, OUTCOME_BAD_REQUEST, "%s-%s runtime is unknown (language: "
			       "GET /runtimes lists them)", r->language, r->version);
	} else if (engine_lang_ready(e, lang, err, sizeof(err)) < 0) {
		answer_message(a, OUTCOME_FAULT, "%s", err);
	} else if (!lang->installed) {
		answer_message(a, OUTCOME_BAD_REQUEST, "language: %s is not installed here "
			       "(make deps LANGS=%s)", r->language, lang->slug);
	} else if (!lang->execute_cmd) {
		answer_message(a, OUTCOME_BAD_REQUEST, "language: %s cannot /execute (no "
			       "execute recipe)", lang->slug);
	} else if (strcmp(r->version, "*") && (!lang->semver ||
		   !semver_satisfies(lang->semver, r->version))) {
		answer_message(a, OUTCOME_BAD_REQUEST, "version: %s-%s runtime is unknown; "
			       "installed: %s %s", r->language, r->version,
			       lang->piston_language ? lang->piston_language : lang->slug,
			       lang->semver ? lang->semver : "(version unknown)");
	} else {
		return lang;
	}
	return NULL;
}

static struct json_object *answer_object(const struct execution *x, struct json_object *compile,
					 struct json_object *run)
{
	struct json_object *o = json_object_new_object();
	const struct lang *l = &x->lang;
	json_object_object_add(o, "language", json_object_new_string(
		l->piston_language ? l->piston_language : l->slug));
	json_object_object_add(o, "version", json_object_new_string(l->semver ? l->semver : ""));
	if (run)
		json_object_object_add(o, "run", run);
	if (compile)
		json_object_object_add(o, "compile", compile);
	return o;
}

static void execute_stages(struct execution *x, struct answer *a)
{
	char fault[256];
	struct json_object *compile = NULL, *run = NULL;
	int built = 1;
	if (x->lang.compile_cmd)
		built = compile_stage(x, &compile, fault, sizeof(fault));
	if (built == 1 && run_stage(x, &run, fault, sizeof(fault)) < 0)
		built = -1;
	if (built < 0) {
		json_object_put(compile);
		answer_message(a, OUTCOME_FAULT, "%s", fault);
		return;
	}
	answer_json(a, OUTCOME_OK, answer_object(x, compile, run));
}

static void execute_request(struct engine *e, struct exec_request *r,
			    const struct client_watch *client, struct answer *a)
{
	char err[512], entry[256];
	const struct lang *lang = choose(e, r, a);
	if (!lang)
		return;
	struct execution x = { .e = e, .client = client, .lang = *lang, .req = r };
	x.lang.workdir = "src";
	exec_entry_name(lang, &r->files.v[0], entry, sizeof(entry));
	if (files_name(&r->files, entry, err, sizeof(err)) < 0) {
		answer_message(a, OUTCOME_BAD_REQUEST, "%s", err);
		return;
	}
	if (admit(&x, r, a) < 0)
		return;
	if (exec_prepare(&x) < 0) {
		answer_message(a, OUTCOME_FAULT, "out of memory");
		return;
	}
	execute_stages(&x, a);
	exec_end(&x);
}

void engine_execute(struct engine *e, const char *body, size_t len,
		    const struct request_io *io, struct answer *a)
{
	char err[512];
	struct exec_request r;
	memset(a, 0, sizeof(*a));
	if (exec_request_parse(&e->cfg, body, len, &r, err, sizeof(err)) < 0) {
		answer_message(a, OUTCOME_BAD_REQUEST, "%s", err);
		return;
	}
	execute_request(e, &r, io ? io->client : NULL, a);
	exec_request_free(&r);
}

/* ---- the lists ---- */

static struct json_object *aliases_of(const struct lang *l)
{
	struct json_object *arr = json_object_new_array();
	if (l->piston_language && strcmp(l->piston_language, l->slug))
		json_object_array_add(arr, json_object_new_string(l->slug));
	for (char **p = l->aliases; p && *p; p++)
		if (!l->piston_language || strcmp(*p, l->piston_language))
			json_object_array_add(arr, json_object_new_string(*p));
	return arr;
}

void engine_runtimes(const struct engine *e, struct answer *a)
{
	struct json_object *arr = json_object_new_array();
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < e->langs.n; i++) {
		const struct lang *l = &e->langs.v[i];
		if (!l->installed || !l->execute_cmd)
			continue;
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "language", json_object_new_string(
			l->piston_language ? l->piston_language : l->slug));
		json_object_object_add(o, "version", json_object_new_string(
			l->semver ? l->semver : "0.0.0"));
		json_object_object_add(o, "aliases", aliases_of(l));
		if (l->piston_runtime)
			json_object_object_add(o, "runtime", json_object_new_string(l->piston_runtime));
		json_object_object_add(o, "slug", json_object_new_string(l->slug));
		json_object_array_add(arr, o);
	}
	answer_json(a, OUTCOME_OK, arr);
}

void engine_packages(const struct engine *e, struct answer *a)
{
	struct json_object *arr = json_object_new_array();
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < e->langs.n; i++) {
		const struct lang *l = &e->langs.v[i];
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "language", json_object_new_string(
			l->piston_language ? l->piston_language : l->slug));
		json_object_object_add(o, "language_version", l->semver ?
				       json_object_new_string(l->semver) : NULL);
		json_object_object_add(o, "installed", json_object_new_boolean(
			l->installed && l->execute_cmd));
		json_object_array_add(arr, o);
	}
	answer_json(a, OUTCOME_OK, arr);
}
