/* SPDX-License-Identifier: Apache-2.0 */
/*
 * execute/request: the body of POST /execute parsed and checked
 * (docs/api.md, "POST /execute").  Limits are checked against the
 * operator's ceilings later, when the language (whose memory limit is a
 * ceiling) is known.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "conf/config.h"
#include "execute/execute.h"
#include "util/fail.h"
#include "util/json.h"

#define EXEC_DEPTH_MAX 8
#define EXEC_ARGS_MAX 1024

static const char *type_of(struct json_object *v)
{
	return json_type_to_name(json_object_get_type(v));
}

/* A string member: absent or null leaves *out. */
static int string_member(struct json_object *o, const char *key, bool required,
			 char **out, char *err, size_t errlen)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return required ? fail(err, errlen, "%s is required as a string", key) : 0;
	if (!json_object_is_type(v, json_type_string))
		return fail(err, errlen, "%s must be a string, not %s", key, type_of(v));
	const char *s = json_object_get_string(v);
	if (strlen(s) != (size_t)json_object_get_string_len(v))
		return fail(err, errlen, "%s contains a NUL character", key);
	free(*out);
	if (!(*out = strdup(s)))
		return fail(err, errlen, "out of memory");
	return 0;
}

/* A limit: an integer (a number with no fraction), min or more. */
static int limit_member(struct json_object *o, const char *key, long long min,
			long long *out, char *err, size_t errlen)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	double d = json_object_get_double(v);
	if (!(json_object_is_type(v, json_type_int) ||
	      (json_object_is_type(v, json_type_double) && d == (double)(long long)d)))
		return fail(err, errlen, "%s must be a number, not %s", key, type_of(v));
	errno = 0;
	long long n = json_object_get_int64(v);
	if (errno || n < min)
		return fail(err, errlen, "%s must be %s", key,
			    min < 0 ? "-1 or more" : "above 0");
	*out = n;
	return 0;
}

static int parse_args(struct json_object *o, struct exec_request *r, char *err,
		      size_t errlen)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, "args", &v) || !v)
		v = NULL;
	else if (!json_object_is_type(v, json_type_array))
		return fail(err, errlen, "args must be an array of strings, not %s", type_of(v));
	size_t n = v ? json_object_array_length(v) : 0;
	if (n > EXEC_ARGS_MAX)
		return fail(err, errlen, "args: more than %d", EXEC_ARGS_MAX);
	if (!(r->args = calloc(n + 1, sizeof(*r->args))))
		return fail(err, errlen, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(v, i);
		if (!json_object_is_type(a, json_type_string))
			return fail(err, errlen, "args[%zu] must be a string, not %s", i,
				    type_of(a));
		const char *s = json_object_get_string(a);
		if (strlen(s) != (size_t)json_object_get_string_len(a))
			return fail(err, errlen, "args[%zu] contains a NUL character", i);
		if (!(r->args[i] = strdup(s)))
			return fail(err, errlen, "out of memory");
		r->n_args = i + 1;
	}
	return 0;
}

static int parse_limits(struct json_object *o, struct exec_request *r, char *err,
			size_t errlen)
{
	long long ct = EXEC_COMPILE_TIMEOUT_MS, rt = EXEC_RUN_TIMEOUT_MS, cc = -1, rc = -1;
	r->compile.memory = r->run.memory = -1;
	if (limit_member(o, "compile_timeout", 1, &ct, err, errlen) < 0 ||
	    limit_member(o, "run_timeout", 1, &rt, err, errlen) < 0 ||
	    limit_member(o, "compile_cpu_time", 1, &cc, err, errlen) < 0 ||
	    limit_member(o, "run_cpu_time", 1, &rc, err, errlen) < 0 ||
	    limit_member(o, "compile_memory_limit", -1, &r->compile.memory, err, errlen) < 0 ||
	    limit_member(o, "run_memory_limit", -1, &r->run.memory, err, errlen) < 0)
		return -1;
	if (ct > 86400000 || rt > 86400000 || cc > 86400000 || rc > 86400000)
		return fail(err, errlen, "a timeout or CPU time above a day");
	r->compile.timeout_ms = (long)ct;
	r->run.timeout_ms = (long)rt;
	/* Piston's CPU times default to its timeouts. */
	r->compile.cpu_ms = cc < 0 ? (long)ct : (long)cc;
	r->run.cpu_ms = rc < 0 ? (long)rt : (long)rc;
	return 0;
}

static int parse_fields(const struct gaol_config *cfg, struct json_object *o,
			struct exec_request *r, char *err, size_t errlen)
{
	struct json_object *v;
	char *enc = NULL;
	if (string_member(o, "language", true, &r->language, err, errlen) < 0 ||
	    string_member(o, "version", false, &r->version, err, errlen) < 0 ||
	    string_member(o, "output_encoding", false, &enc, err, errlen) < 0)
		return free(enc), -1;
	if (enc && strcmp(enc, "utf8") && strcmp(enc, "base64")) {
		free(enc);
		return fail(err, errlen, "output_encoding must be utf8 or base64");
	}
	r->base64 = enc && !strcmp(enc, "base64");
	free(enc);
	if (!r->version && !(r->version = strdup("*")))
		return fail(err, errlen, "out of memory");
	if (json_object_object_get_ex(o, "stdin", &v) && v) {
		if (!json_object_is_type(v, json_type_string))
			return fail(err, errlen, "stdin must be a string, not %s", type_of(v));
		if (copy_blob(v, &r->stdin_data) < 0)
			return fail(err, errlen, "out of memory");
	}
	json_object_object_get_ex(o, "files", &v);
	if (files_parse(v, cfg->files_max, &r->files, err, errlen) < 0)
		return -1;
	if (parse_args(o, r, err, errlen) < 0)
		return -1;
	return parse_limits(o, r, err, errlen);
}

int exec_request_parse(const struct gaol_config *cfg, const char *body, size_t len,
		       struct exec_request *r, char *err, size_t errlen)
{
	struct json_fault f;
	memset(r, 0, sizeof(*r));
	struct json_object *o = json_strict_object(body, len, EXEC_DEPTH_MAX, true, &f);
	if (!o) {
		if (f.kind == JSON_NOT_OBJECT)
			return fail(err, errlen, "the body must be a JSON object, not %s", f.type);
		return fail(err, errlen, "the body is not valid JSON (byte %zu)", f.byte);
	}
	int rc = parse_fields(cfg, o, r, err, errlen);
	json_object_put(o);
	if (rc < 0)
		exec_request_free(r);
	return rc;
}

void exec_request_free(struct exec_request *r)
{
	free(r->language);
	free(r->version);
	files_free(&r->files);
	free(r->stdin_data.data);
	for (size_t i = 0; r->args && r->args[i]; i++)
		free(r->args[i]);
	free(r->args);
	memset(r, 0, sizeof(*r));
}
