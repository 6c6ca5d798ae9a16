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

static const char *source_name(const struct lang *lang)
{
	return lang->solution_file;
}

/* CompiCode's text for a failed build: "Compilation Error:\n<what the
 * compiler said>" (line ends made LF), or its timeout text. */
static char *build_error(const struct sandbox_result *res, const char *output, size_t len)
{
	char *s = NULL;
	if (res->timed_out) {
		if (asprintf(&s, "Compilation Timeout (over %g seconds)",
			     EVAL_COMPILE_TIMEOUT_MS / 1000.0) < 0)
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

int judge_build(struct engine *e, const struct lang *lang, const struct eval_request *req,
		struct build *b, char *fault, size_t faultlen)
{
	char cache_dir[4200];
	snprintf(cache_dir, sizeof(cache_dir), "%s/cache", e->cfg.state_dir);
	struct cache_key key;
	/* The toolchain's version and the language directory's files (build
	 * scripts, headers) are part of what a build is. */
	char version[1024];
	snprintf(version, sizeof(version), "%s\ntree %s", lang->version ? lang->version : "",
		 lang->fingerprint ? lang->fingerprint : "");
	if (cache_key_make(&key, lang->slug, version, lang->build_cmd,
			   source_name(lang), req->code.data, req->code.len) < 0) {
		snprintf(fault, faultlen, "out of memory");
		return -1;
	}
	b->json = json_object_new_object();
	if (cache_lookup(cache_dir, &key, b->lower, sizeof(b->lower))) {
		b->ok = b->cached = true;
		json_object_object_add(b->json, "ok", json_object_new_boolean(1));
		json_object_object_add(b->json, "cached", json_object_new_boolean(1));
		json_object_object_add(b->json, "output", json_object_new_string(""));
		cache_key_free(&key);
		return 0;
	}
	char tmp[4400], out[4400];
	if (cache_reserve(cache_dir, tmp, sizeof(tmp), out, sizeof(out)) < 0) {
		snprintf(fault, faultlen, "cache: reserve errno=%d", errno);
		cache_key_free(&key);
		return -1;
	}
	struct sandbox_file file = { source_name(lang), req->code.data, req->code.len };
	struct sandbox_spec spec = {
		.lang = lang,
		.command = lang->build_cmd,
		.files = &file,
		.n_files = 1,
		.timeout_ms = EVAL_COMPILE_TIMEOUT_MS,
		.output_max = e->cfg.output_max,
		.export_dir = out,
	};
	struct sandbox_result res;
	if (sandbox_run(&e->slot, &spec, &res) < 0) {
		snprintf(fault, faultlen, "%s", res.fault);
		sandbox_result_free(&res);
		cache_remove_tree(tmp);
		cache_key_free(&key);
		return -1;
	}
	b->ok = !res.killed && WIFEXITED(res.wait_status) && WEXITSTATUS(res.wait_status) == 0;
	/* What the compiler said: its stdout, then its stderr. */
	size_t olen = res.out_len + res.err_len;
	char *output = malloc(olen + 1);
	if (output) {
		memcpy(output, res.out ? res.out : "", res.out_len);
		memcpy(output + res.out_len, res.err ? res.err : "", res.err_len);
	}
	json_object_object_add(b->json, "ok", json_object_new_boolean(b->ok));
	json_object_object_add(b->json, "cached", json_object_new_boolean(0));
	json_object_object_add(b->json, "output", utf8_json_string(output ? output : "",
								   output ? olen : 0));
	int code = sandbox_exit_code(&res);
	json_object_object_add(b->json, "exit_code", code < 0 ? NULL : json_object_new_int(code));
	json_object_object_add(b->json, "timed_out", json_object_new_boolean(res.timed_out));
	json_object_object_add(b->json, "wall_ms", json_object_new_int64(res.wall_ms));
	json_object_object_add(b->json, "cpu_ms", res.cpu_ms < 0 ? NULL
			       : json_object_new_int64(res.cpu_ms));
	if (!b->ok)
		b->error = build_error(&res, output ? output : "", output ? olen : 0);
	free(output);
	sandbox_result_free(&res);
	int rc = 0;
	if (b->ok && cache_commit(cache_dir, &key, tmp, e->cfg.eval_cache_max,
				  b->lower, sizeof(b->lower)) < 0) {
		snprintf(fault, faultlen, "cache: commit errno=%d", errno);
		rc = -1;
	}
	if (!b->ok)
		cache_remove_tree(tmp);
	cache_key_free(&key);
	return rc;
}

