/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build: a submission compiled once in its own sandbox, or found in the
 * compile cache (cache.c), and what the answer's "compile" says of it.
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
#include "slot/tree.h"
#include "util/walk.h"

static const char *source_name(const struct lang *lang)
{
	return lang->solution_file;
}

/* Every file's name and bytes, in order: what a build of several files
 * is keyed by (malloc'd; NULL when out of memory). */
static char *files_blob(const struct sandbox_file *files, size_t n, size_t *len)
{
	size_t cap = 1;
	for (size_t i = 0; i < n; i++)
		cap += strlen(files[i].name) + 24 + files[i].len;
	char *blob = malloc(cap), *p = blob;
	if (!blob)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		p += sprintf(p, "%s%c%020zu", files[i].name, 0, files[i].len);
		memcpy(p, files[i].data, files[i].len);
		p += files[i].len;
	}
	*len = (size_t)(p - blob);
	return blob;
}

struct build_job;
static int build_cached(struct engine *e, const struct client_watch *client,
			const struct build_job *job, struct cache_key *key_in, long end_ms,
			struct build *b, char *fault, size_t faultlen);

/* A build whose files passed a limit is the tenant's failed build (CE),
 * said in its output like a compiler's complaint. */
static int over_message(const struct engine *e, int over, char *buf, size_t len)
{
	switch (over) {
	case TREE_OVER_BYTES:
		return snprintf(buf, len, "\ngaol: the build left more than %llu bytes in "
				"/sandbox (RUN_EVAL_BUILD_MAX)\n", e->cfg.eval_build_max);
	case TREE_OVER_ENTRIES:
		return snprintf(buf, len, "\ngaol: the build left more than %llu files in "
				"/sandbox (RUN_EVAL_BUILD_FILES)\n", e->cfg.eval_build_files);
	case TREE_OVER_DEPTH:
		return snprintf(buf, len, "\ngaol: the build left a directory tree deeper than "
				"%d levels in /sandbox\n", WALK_DEPTH_MAX - 1);
	default:
		buf[0] = 0;
		return 0;
	}
}

/* "compile" of a build that ran: what the compiler said (its stdout, then
 * its stderr, then gaol's word on a build past its limits) and how it
 * ended.  Without "cached": that is the caller's to add. */
static struct json_object *describe_run(const struct engine *e, bool ok,
					const struct sandbox_result *res)
{
	char over[192];
	size_t olen = (size_t)over_message(e, res->export_over, over, sizeof(over));
	size_t len = res->out_len + res->err_len + olen;
	char *output = malloc(len + 1);
	if (output) {
		memcpy(output, res->out ? res->out : "", res->out_len);
		memcpy(output + res->out_len, res->err ? res->err : "", res->err_len);
		memcpy(output + res->out_len + res->err_len, over, olen);
	}
	struct json_object *j = json_object_new_object();
	json_object_object_add(j, "ok", json_object_new_boolean(ok));
	json_object_object_add(j, "output", utf8_json_string(output ? output : "",
							     output ? len : 0));
	int code = sandbox_exit_code(res);
	json_object_object_add(j, "exit_code", code < 0 ? NULL : json_object_new_int(code));
	json_object_object_add(j, "timed_out", json_object_new_boolean(res->timed_out));
	json_object_object_add(j, "wall_ms", json_object_new_int64(res->wall_ms));
	json_object_object_add(j, "cpu_ms", res->cpu_ms < 0 ? NULL
			       : json_object_new_int64(res->cpu_ms));
	free(output);
	return j;
}

/* "compile" of a cache hit.  When the operator hides hits, the answer is
 * the one the build first gave (stored with the entry), so a hit and a
 * miss look alike. */
static struct json_object *describe_hit(const struct engine *e, int pin)
{
	if (e->cfg.eval_hide_cached) {
		char *record = cache_record(pin);
		struct json_object *j = record ? json_tokener_parse(record) : NULL;
		free(record);
		if (j && json_object_is_type(j, json_type_object))
			return j;
		json_object_put(j);
	}
	struct json_object *j = json_object_new_object();
	json_object_object_add(j, "ok", json_object_new_boolean(1));
	if (!e->cfg.eval_hide_cached)
		json_object_object_add(j, "cached", json_object_new_boolean(1));
	json_object_object_add(j, "output", json_object_new_string(""));
	return j;
}

/* Keeps a successful build: in the cache (pinned), or, when it does not
 * fit, for this request only. */
static int keep(struct engine *e, const char *cache_dir, const struct cache_key *key,
		const char *tmp, struct build *b, char *fault, size_t faultlen)
{
	const char *record = json_object_to_json_string_ext(b->json, JSON_C_TO_STRING_PLAIN);
	int rc = cache_commit(cache_dir, key, tmp, record, e->cfg.eval_cache_max,
			      b->lower, sizeof(b->lower), &b->pin);
	if (rc < 0) {
		return fail(fault, faultlen, "cache: commit errno=%d", errno);
	}
	if (rc == 1)
		snprintf(b->uncached, sizeof(b->uncached), "%s", tmp);
	return 0;
}

/* CompiCode's text for a failed build: "Compilation Error:\n<what the
 * compiler said>" (line ends made LF), or its timeout text. */
static char *build_error(const struct sandbox_result *res, long limit_ms,
			 const char *output, size_t len)
{
	char *s = NULL;
	if (res->timed_out) {
		if (asprintf(&s, "Compilation Timeout (over %g seconds)",
			     limit_ms / 1000.0) < 0)
			return NULL;
		return s;
	}
	const char head[] = "Compilation Error:\n";
	s = malloc(sizeof(head) + len);
	if (!s)
		return NULL;
	memcpy(s, head, sizeof(head) - 1);
	memcpy(s + sizeof(head) - 1, output, len);
	size_t n = compare_newlines(s + sizeof(head) - 1, len);
	s[sizeof(head) - 1 + n] = 0;
	return s;
}

/* What a build runs: a language's recipe on files, with sh's words. */
struct build_job {
	const struct lang *lang;
	const char *command;
	char *const *argv;       /* NULL: sh -c command */
	const struct sandbox_file *files;
	size_t n;
};

static int run_build(struct engine *e, const struct client_watch *client,
		     const struct build_job *job, long end_ms, const char *out,
		     struct build *b, char *fault, size_t faultlen)
{
	struct sandbox_spec spec = {
		.lang = job->lang,
		.command = job->command,
		.sh_argv = job->argv,
		.files = job->files,
		.n_files = job->n,
		.timeout_ms = e->cfg.eval_compile_ms,
		/* A compiler read from a cold page cache on a slow disk
		 * spends its wait in state D: up to as long again of that
		 * is not charged (docs/api.md, "How a request is judged"). */
		.excuse_blocked_ms = e->cfg.eval_compile_ms,
		.output_max = e->cfg.output_max,
		.export_dir = out,
		.export_max_bytes = e->cfg.eval_build_max,
		.export_max_entries = e->cfg.eval_build_files,
		/* The budget is the request's: it stops a build too, however
		 * long the build's own limit. */
		.budget_end_ms = end_ms,
		.client = client,
	};
	struct sandbox_result res;
	if (sandbox_run(&e->slot, &spec, &res) < 0) {
		fail(fault, faultlen, "%s", res.fault);
		sandbox_result_free(&res);
		return -1;
	}
	b->ok = !res.killed && WIFEXITED(res.wait_status) && WEXITSTATUS(res.wait_status) == 0 &&
		res.export_over == TREE_WITHIN;
	b->json = describe_run(e, b->ok, &res);
	b->budget_spent = res.timed_out && res.deadline == DEADLINE_BUDGET;
	if (!b->ok && !b->budget_spent) {
		const char *text = json_object_get_string(json_object_object_get(b->json, "output"));
		b->error = build_error(&res, e->cfg.eval_compile_ms, text ? text : "",
				       text ? strlen(text) : 0);
	}
	sandbox_result_free(&res);
	return 0;
}

/* The key of a solution's build: its source alone, as ever, or with the
 * request's files every file's name and bytes. */
static int solution_key(struct cache_key *key, const struct lang *lang,
			const struct eval_request *req, const struct build_job *job)
{
	/* The toolchain's version and the language directory's files (build
	 * scripts, headers) are part of what a build is. */
	char version[1024];
	snprintf(version, sizeof(version), "%s\ntree %s", lang->version ? lang->version : "",
		 lang->fingerprint ? lang->fingerprint : "");
	if (job->n <= 1)
		return cache_key_make(key, lang->slug, version, lang->build_cmd,
				      source_name(lang), req->code.data, req->code.len);
	size_t len = 0;
	char *blob = files_blob(job->files, job->n, &len);
	int rc = blob ? cache_key_make(key, lang->slug, version, lang->build_cmd, "files",
				       blob, len) : -1;
	free(blob);
	return rc;
}

int judge_build(struct engine *e, const struct client_watch *client,
		const struct lang *lang, const struct eval_request *req,
		long end_ms, struct build *b, char *fault, size_t faultlen)
{
	struct sandbox_file one = { source_name(lang), req->code.data, req->code.len };
	struct build_job job = { lang, lang->build_cmd, NULL, &one, 1 };
	struct sandbox_file *files = NULL;
	if (req->solution_files.n) {
		files = calloc(req->solution_files.n, sizeof(*files));
		if (!files)
			return fail(fault, faultlen, "out of memory");
		for (size_t i = 0; i < req->solution_files.n; i++)
			files[i] = (struct sandbox_file){ req->solution_files.v[i].name,
				req->solution_files.v[i].data, req->solution_files.v[i].len };
		job.files = files;
		job.n = req->solution_files.n;
	}
	struct cache_key key;
	int rc = solution_key(&key, lang, req, &job) < 0
		? fail(fault, faultlen, "out of memory")
		: build_cached(e, client, &job, &key, end_ms, b, fault, faultlen);
	free(files);
	return rc;
}

/* Looks the build up in the cache under key (consumed), or runs it. */
static int build_cached(struct engine *e, const struct client_watch *client,
			const struct build_job *job, struct cache_key *key_in, long end_ms,
			struct build *b, char *fault, size_t faultlen)
{
	char cache_dir[4200];
	struct cache_key key = *key_in;
	b->pin = -1;
	b->uncached[0] = 0;
	config_cache_dir(&e->cfg, cache_dir, sizeof(cache_dir));
	if (cache_lookup(cache_dir, &key, b->lower, sizeof(b->lower), &b->pin)) {
		b->ok = b->cached = true;
		b->json = describe_hit(e, b->pin);
		cache_key_free(&key);
		return 0;
	}
	char tmp[4400] = "", out[4400];
	int rc = cache_reserve(cache_dir, tmp, sizeof(tmp), out, sizeof(out));
	if (rc < 0)
		fail(fault, faultlen, "cache: reserve errno=%d", errno);
	else
		rc = run_build(e, client, job, end_ms, out, b, fault, faultlen);
	if (rc == 0 && b->ok)
		rc = keep(e, cache_dir, &key, tmp, b, fault, faultlen);
	else
		cache_remove_tree(tmp);
	if (rc == 0 && !e->cfg.eval_hide_cached)
		json_object_object_add(b->json, "cached", json_object_new_boolean(0));
	cache_key_free(&key);
	return rc;
}

int judge_build_files(struct engine *e, const struct client_watch *client,
		      const struct lang *lang, const struct sandbox_file *files, size_t n,
		      long end_ms, struct build *b, char *fault, size_t faultlen)
{
	b->pin = -1;
	b->lower[0] = b->uncached[0] = 0;
	if (!lang->compile_cmd) {
		b->ok = true;    /* nothing to build: the files go to each run */
		return 0;
	}
	char **argv = calloc(n + 5, sizeof(*argv));
	if (!argv)
		return fail(fault, faultlen, "out of memory");
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = lang->compile_cmd;
	for (size_t i = 0; i < n; i++)
		argv[3 + i + 1] = (char *)files[i].name;
	argv[3] = (char *)files[0].name;   /* $0, the entry point; "$@" all */
	struct build_job job = { lang, lang->compile_cmd, argv, files, n };
	struct cache_key key;
	int rc = judge_files_key(&key, lang, lang->compile_cmd, NULL, files, n) < 0
		? fail(fault, faultlen, "out of memory")
		: build_cached(e, client, &job, &key, end_ms, b, fault, faultlen);
	free(argv);
	return rc;
}

int judge_files_key(struct cache_key *key, const struct lang *lang, const char *compile_cmd,
		    const char *extra, const struct sandbox_file *files, size_t n)
{
	size_t len = 0;
	char *blob = files_blob(files, n, &len);
	if (!blob)
		return -1;
	char version[1024];
	snprintf(version, sizeof(version), "%s\ntree %s\nexecute%s%s", lang->version ?
		 lang->version : "", lang->fingerprint ? lang->fingerprint : "",
		 extra ? "\n" : "", extra ? extra : "");
	int rc = cache_key_make(key, lang->slug, version, compile_cmd, "files",
				blob, len);
	free(blob);
	return rc;
}

void judge_entry_name(const struct lang *lang, const char *code, char *out, size_t len)
{
	snprintf(out, len, "%s", lang->execute_file ? lang->execute_file : "main");
	if (!lang->entry_public_class)
		return;
	for (const char *p = code; (p = strstr(p, "public ")); p++) {
		const char *q = p + 7;
		while (!strncmp(q, "final ", 6) || !strncmp(q, "abstract ", 9))
			q += q[0] == 'f' ? 6 : 9;
		if (strncmp(q, "class ", 6))
			continue;
		q += 6;
		while (*q == ' ')
			q++;
		size_t k = 0;
		while (q[k] == '_' || q[k] == '$' || (q[k] >= 'a' && q[k] <= 'z') ||
		       (q[k] >= 'A' && q[k] <= 'Z') || (q[k] >= '0' && q[k] <= '9' && k))
			k++;
		if (k && k < 200) {
			snprintf(out, len, "%.*s.java", (int)k, q);
			return;
		}
	}
}

void judge_build_end(struct build *b)
{
	cache_unpin(&b->pin);
	if (b->uncached[0])
		cache_remove_tree(b->uncached);
	b->uncached[0] = 0;
}
