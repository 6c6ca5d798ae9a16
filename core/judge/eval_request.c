/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eval_request: the body of POST /evaluate parsed and checked
 * (docs/api.md, "POST /evaluate").
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



/* A field that may be absent (or null); present, it must have type t. */
static int field(struct json_object *obj, const char *key, enum json_type t,
		 bool required, struct json_object **out, char *err, size_t errlen)
{
	*out = NULL;
	struct json_object *v;
	if (!json_object_object_get_ex(obj, key, &v) || !v) {
		if (required)
			return fail(err, errlen, "%s is required", key);
		return 0;
	}
	if (!json_object_is_type(v, t))
		return fail(err, errlen, "%s must be %s, not %s", key,
			    t == json_type_string ? "a string" :
			    t == json_type_int ? "an integer" :
			    t == json_type_array ? "an array" : "an object",
			    json_type_to_name(json_object_get_type(v)));
	*out = v;
	return 0;
}

static int int_field(struct json_object *obj, const char *key, long min, long max,
		     long *out, char *err, size_t errlen)
{
	struct json_object *v;
	if (field(obj, key, json_type_int, false, &v, err, errlen) < 0)
		return -1;
	if (!v)
		return 0;
	errno = 0;
	int64_t n = json_object_get_int64(v);
	if (errno || n < min || n > max)
		return fail(err, errlen, "%s must be between %ld and %ld", key, min, max);
	*out = (long)n;
	return 0;
}

static int name_field(struct json_object *obj, const char *key, const char *def,
		      char **out, char *err, size_t errlen)
{
	struct json_object *v;
	if (field(obj, key, json_type_string, false, &v, err, errlen) < 0)
		return -1;
	const char *s = v ? json_object_get_string(v) : def;
	if ((v && (size_t)json_object_get_string_len(v) != strlen(s)) || !name_is_plain(s))
		return fail(err, errlen, "%s must be a plain file name", key);
	*out = strdup(s);
	return *out ? 0 : fail(err, errlen, "out of memory");
}

static int parse_tests(struct json_object *arr, size_t tests_max, struct eval_request *r,
		       char *err, size_t errlen)
{
	size_t n = json_object_array_length(arr);
	if (n == 0)
		return 0;            /* CompiCode answers {"results": []} */
	if (n > tests_max)
		return fail(err, errlen, "test_cases has %zu entries, at most %zu "
			    "(RUN_EVAL_TESTS_MAX)", n, tests_max);
	r->tests = calloc(n, sizeof(*r->tests));
	if (!r->tests)
		return fail(err, errlen, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(arr, i), *in, *exp;
		char what[64];
		snprintf(what, sizeof(what), "test_cases[%zu]", i);
		if (!json_object_is_type(t, json_type_object))
			return fail(err, errlen, "%s must be an object", what);
		if (field(t, "input", json_type_string, false, &in, err, errlen) < 0 ||
		    field(t, "expected_output", json_type_string, true, &exp, err, errlen) < 0) {
			char inner[256];
			snprintf(inner, sizeof(inner), "%s", err);
			return fail(err, errlen, "%s.%s", what, inner);
		}
		r->n_tests = i + 1;
		if ((in ? copy_blob(in, &r->tests[i].input) : (r->tests[i].input.data = strdup(""),
				r->tests[i].input.data ? 0 : -1)) < 0 ||
		    copy_blob(exp, &r->tests[i].expected) < 0)
			return fail(err, errlen, "out of memory");
	}
	return 0;
}

/* input_mode or docker-evaluator's input_type ("stdin" or "file"); the file
 * names are input_file/output_file, or docker-evaluator's file_io_name N,
 * which names N.in and N.out. */
static int io_fields(struct json_object *obj, struct eval_request *r, char *err,
		     size_t errlen)
{
	struct json_object *mode, *type, *name;
	if (field(obj, "input_mode", json_type_string, false, &mode, err, errlen) < 0 ||
	    field(obj, "input_type", json_type_string, false, &type, err, errlen) < 0 ||
	    field(obj, "file_io_name", json_type_string, false, &name, err, errlen) < 0)
		return -1;
	const char *key = mode ? "input_mode" : "input_type";
	const char *m = mode ? json_object_get_string(mode)
			     : type ? json_object_get_string(type) : "stdin";
	if (strcmp(m, "stdin") && strcmp(m, "file"))
		return fail(err, errlen, "%s must be \"stdin\" or \"file\"", key);
	r->file_io = !strcmp(m, "file");
	const char *n = name ? json_object_get_string(name) : "";
	if (*n && !json_object_object_get_ex(obj, "input_file", NULL) &&
	    !json_object_object_get_ex(obj, "output_file", NULL)) {
		if (strlen(n) > 200 || (size_t)json_object_get_string_len(name) != strlen(n))
			return fail(err, errlen, "file_io_name must be a plain file name");
		char in[256], out[256];
		snprintf(in, sizeof(in), "%s.in", n);
		snprintf(out, sizeof(out), "%s.out", n);
		if (!name_is_plain(in) || !name_is_plain(out))
			return fail(err, errlen, "file_io_name must be a plain file name");
		r->input_file = strdup(in);
		r->output_file = strdup(out);
		return r->input_file && r->output_file ? 0 : fail(err, errlen, "out of memory");
	}
	if (name_field(obj, "input_file", "input.txt", &r->input_file, err, errlen) < 0 ||
	    name_field(obj, "output_file", "output.txt", &r->output_file, err, errlen) < 0)
		return -1;
	return 0;
}

/* `files` beside a program's code: at most files_max with the code. */
static int more_files(struct json_object *obj, size_t files_max, struct req_files *out,
		      char *err, size_t errlen)
{
	struct json_object *v;
	if (field(obj, "files", json_type_array, false, &v, err, errlen) < 0)
		return -1;
	return v ? files_parse(v, files_max ? files_max - 1 : 0, out, err, errlen) : 0;
}

static int program_fields(struct json_object *o, size_t files_max, struct eval_program *pr,
			  char *err, size_t errlen)
{
	struct json_object *v;
	if (field(o, "language", json_type_string, true, &v, err, errlen) < 0)
		return -1;
	if (!(pr->language = strdup(json_object_get_string(v))))
		return fail(err, errlen, "out of memory");
	if (field(o, "code", json_type_string, true, &v, err, errlen) < 0)
		return -1;
	if (copy_blob(v, &pr->code) < 0)
		return fail(err, errlen, "out of memory");
	if (more_files(o, files_max, &pr->files, err, errlen) < 0 ||
	    int_field(o, "time_limit_ms", 1, EVAL_TIME_LIMIT_MAX_MS, &pr->time_limit_ms,
		      err, errlen) < 0 ||
	    int_field(o, "memory_limit_mb", EVAL_MEMORY_MIN_MB, EVAL_MEMORY_MAX_MB,
		      &pr->memory_limit_mb, err, errlen) < 0)
		return -1;
	if (!json_object_object_get_ex(o, "points_max", &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return fail(err, errlen, "points_max must be a number");
	pr->points_max = json_object_get_double(v);
	if (!(pr->points_max > 0 && pr->points_max <= 1e9))
		return fail(err, errlen, "points_max must be above 0 and at most 1e9");
	return 0;
}

/* "checker" or "interactor": absent, or a program; a fault names it. */
static int program(struct json_object *obj, const char *key, size_t files_max,
		   struct eval_program *pr, char *err, size_t errlen)
{
	struct json_object *o;
	char inner[384];
	if (field(obj, key, json_type_object, false, &o, err, errlen) < 0)
		return -1;
	if (!o)
		return 0;
	pr->given = true;
	pr->time_limit_ms = EVAL_AIDE_TIME_DEFAULT_MS;
	pr->memory_limit_mb = EVAL_AIDE_MEMORY_DEFAULT_MB;
	if (program_fields(o, files_max, pr, inner, sizeof(inner)) < 0)
		return fail(err, errlen, "%s.%s", key, inner);
	return 0;
}

/* files, checker, interactor (docs/api.md, "Checkers and interactors"). */
static int aide_fields(struct json_object *obj, size_t files_max, struct eval_request *r,
		       char *err, size_t errlen)
{
	if (more_files(obj, files_max, &r->files, err, errlen) < 0 ||
	    program(obj, "checker", files_max, &r->checker, err, errlen) < 0 ||
	    program(obj, "interactor", files_max, &r->interactor, err, errlen) < 0)
		return -1;
	if (r->interactor.given && r->file_io)
		return fail(err, errlen, "an interactor talks to the solution on stdin and "
			    "stdout: input_mode \"file\" cannot go with it");
	return 0;
}

int eval_files_with(const struct blob *code, const struct req_files *more,
		    const char *entry, const char *what, struct req_files *out,
		    char *err, size_t errlen)
{
	char inner[384];
	out->n = 0;
	out->v = calloc(more->n + 1, sizeof(*out->v));
	if (!out->v)
		return fail(err, errlen, "out of memory");
	for (size_t i = 0; i <= more->n; i++) {
		const struct req_file *f = i ? &more->v[i - 1] : NULL;
		const char *data = f ? f->data : code->data;
		size_t len = f ? f->len : code->len;
		struct req_file *g = &out->v[out->n++];
		g->len = len;
		g->data = malloc(len + 1);
		g->name = f && f->name ? strdup(f->name) : NULL;
		if (!g->data || (f && f->name && !g->name))
			return fail(err, errlen, "out of memory");
		memcpy(g->data, data ? data : "", len);
		g->data[len] = 0;
	}
	if (files_name(out, entry, inner, sizeof(inner)) < 0)
		return fail(err, errlen, "%s: %s (the code is the first file, named %s)",
			    what, inner, entry);
	return 0;
}

int eval_request_parse(const char *body, size_t len, size_t tests_max, size_t files_max,
		       struct eval_request *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->time_limit_ms = EVAL_TIME_LIMIT_DEFAULT_MS;
	struct json_object *obj = json_body_parse(body, len, err, errlen), *v;
	if (!obj)
		return -1;
	int rc = -1;
	if (field(obj, "code", json_type_string, true, &v, err, errlen) < 0 ||
	    copy_blob(v, &r->code) < 0)
		goto out;
	if (field(obj, "language", json_type_string, true, &v, err, errlen) < 0)
		goto out;
	if (!(r->language = strdup(json_object_get_string(v)))) {
		fail(err, errlen, "out of memory");
		goto out;
	}
	if (field(obj, "test_cases", json_type_array, true, &v, err, errlen) < 0 ||
	    parse_tests(v, tests_max, r, err, errlen) < 0)
		goto out;
	if (int_field(obj, "time_limit_ms", 1, EVAL_TIME_LIMIT_MAX_MS, &r->time_limit_ms,
		      err, errlen) < 0 ||
	    int_field(obj, "memory_limit_mb", EVAL_MEMORY_MIN_MB, EVAL_MEMORY_MAX_MB,
		      &r->memory_limit_mb, err, errlen) < 0)
		goto out;
	if (int_field(obj, "wall_time_limit_ms", 1, EVAL_TIME_LIMIT_MAX_MS,
		      &r->wall_time_limit_ms, err, errlen) < 0 ||
	    io_fields(obj, r, err, errlen) < 0)
		goto out;
	if (field(obj, "comparison", json_type_string, false, &v, err, errlen) < 0)
		goto out;
	if (v && strcmp(json_object_get_string(v), "lines") &&
	    strcmp(json_object_get_string(v), "tokens")) {
		fail(err, errlen, "comparison must be \"lines\" or \"tokens\"");
		goto out;
	}
	r->tokens = v && !strcmp(json_object_get_string(v), "tokens");
	if (aide_fields(obj, files_max, r, err, errlen) < 0)
		goto out;
	rc = 0;
out:
	json_object_put(obj);
	if (rc < 0)
		eval_request_free(r);
	return rc;
}

void eval_request_free(struct eval_request *r)
{
	free(r->code.data);
	free(r->language);
	for (size_t i = 0; i < r->n_tests; i++) {
		free(r->tests[i].input.data);
		free(r->tests[i].expected.data);
	}
	free(r->tests);
	free(r->input_file);
	free(r->output_file);
	files_free(&r->files);
	files_free(&r->solution_files);
	struct eval_program *progs[] = { &r->checker, &r->interactor };
	for (size_t i = 0; i < 2; i++) {
		free(progs[i]->language);
		free(progs[i]->code.data);
		files_free(&progs[i]->files);
	}
	memset(r, 0, sizeof(*r));
}

