/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge0/job: a submission validated into a job (judge0.h), as Judge0's
 * model validates it (app/models/submission.rb): each refused field gets
 * its messages under its own name, the whole answered 422.  Judge0's
 * numbers keep Judge0's units (seconds, kilobytes); they become gaol's
 * limits only when the job runs (judge0/run.c).
 */
#define _GNU_SOURCE
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "api/files.h"
#include "api/request.h"
#include "judge0/internal.h"
#include "judge0/judge0.h"
#include "judge0/words.h"

/* A job under construction: the object and Judge0's errors object. */
struct make {
	struct engine *e;
	struct json_object *sub, *job, *errors;
	struct judge0_limits lim;
	bool b64;
	const struct lang *lang;
	int id;
};

static void refuse(struct make *m, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void refuse(struct make *m, const char *field, const char *fmt, ...)
{
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct json_object *arr;
	if (!json_object_object_get_ex(m->errors, field, &arr)) {
		arr = json_object_new_array();
		json_object_object_add(m->errors, field, arr);
	}
	json_object_array_add(arr, json_object_new_string(msg));
}

/* A member that is present and not null (Rails' blank nil). */
static struct json_object *given(struct make *m, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(m->sub, key, &v) ? v : NULL;
}

/* A number as Rails' numericality reads it: a JSON number or a numeric
 * string.  false when it is neither. */
static bool number_of(struct json_object *v, double *d)
{
	if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) {
		*d = json_object_get_double(v);
		return isfinite(*d);
	}
	if (!json_object_is_type(v, json_type_string))
		return false;
	const char *s = json_object_get_string(v);
	char *end;
	*d = strtod(s, &end);
	return *s && !*end && isfinite(*d);
}

/* A limit: its default when absent, else checked as Judge0 checks it
 * (greater than / at least lo, at most hi); "%g" as Rails prints it. */
static void limit(struct make *m, const char *key, double def, double lo, bool lo_open,
		  double hi, bool integer)
{
	struct json_object *v = given(m, key);
	double d = def;
	if (v && !number_of(v, &d)) {
		refuse(m, key, "is not a number");
		return;
	}
	if (v && integer && d != floor(d))
		refuse(m, key, "must be an integer");
	else if (v && lo_open && !(d > lo))
		refuse(m, key, "must be greater than %g", lo);
	else if (v && !lo_open && !(d >= lo))
		refuse(m, key, "must be greater than or equal to %g", lo);
	else if (v && d > hi)
		refuse(m, key, integer ? "must be less than or equal to %.0f" :
		       "must be less than or equal to %.1f", hi);  /* Rails: 15.0 */
	json_object_object_add(m->job, key, integer ? json_object_new_int64((long long)d)
			       : json_object_new_double(d));
}

static void limits(struct make *m)
{
	const struct judge0_limits *l = &m->lim;
	limit(m, "number_of_runs", (double)l->number_of_runs, 0, true,
	      (double)l->max_number_of_runs, true);
	limit(m, "cpu_time_limit", l->cpu_time_limit, 0, false, l->max_cpu_time_limit, false);
	limit(m, "cpu_extra_time", l->cpu_extra_time, 0, false, l->max_cpu_extra_time, false);
	limit(m, "wall_time_limit", l->wall_time_limit, 1, false, l->max_wall_time_limit, false);
	limit(m, "memory_limit", (double)l->memory_limit, 2048, false,
	      (double)l->max_memory_limit, true);
	limit(m, "stack_limit", (double)l->stack_limit, 0, false, (double)l->max_stack_limit,
	      true);
	limit(m, "max_processes_and_or_threads", (double)l->max_processes_and_or_threads, 0,
	      true, (double)l->max_max_processes_and_or_threads, true);
	limit(m, "max_file_size", (double)l->max_file_size, 0, false,
	      (double)l->max_max_file_size, true);
}

/* A boolean: default false.  A true gaol cannot honour is refused with
 * Judge0's words for an option its operator disallowed. */
static void flag(struct make *m, const char *key, bool allowed, const char *why)
{
	struct json_object *v = given(m, key);
	bool b = false;
	if (v && json_object_is_type(v, json_type_boolean))
		b = json_object_get_boolean(v);
	else if (v && json_object_is_type(v, json_type_string))
		b = !strcmp(json_object_get_string(v), "true");
	else if (v)
		refuse(m, key, "must be true or false");
	if (b && !allowed)
		refuse(m, key, "%s", why);
	json_object_object_add(m->job, key, json_object_new_boolean(b && allowed));
}

static void flags(struct make *m)
{
	flag(m, "enable_per_process_and_thread_time_limit", false,
	     "this option cannot be enabled");
	flag(m, "enable_per_process_and_thread_memory_limit", false,
	     "this option cannot be enabled");
	flag(m, "redirect_stderr_to_stdout", true, "");
	flag(m, "enable_network", false, "enabling network is not allowed");
}

/* A text member's bytes (decoded from base64 when m->b64 or always_b64),
 * stored in the job as base64.  Absent: def (NULL stores null). */
static void bytes(struct make *m, const char *key, bool always_b64, const char *def)
{
	struct json_object *v = given(m, key);
	if (!v) {
		json_object_object_add(m->job, key, def ? json_object_new_string(def) : NULL);
		return;
	}
	if (!json_object_is_type(v, json_type_string)) {
		refuse(m, key, "must be a string");
		return;
	}
	const char *s = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);
	char *raw = NULL;
	size_t rlen = len;
	if ((m->b64 || always_b64) && judge0_unb64(s, len, &raw, &rlen) < 0) {
		refuse(m, key, "is not valid base64");
		return;
	}
	json_object_object_add(m->job, key, judge0_b64(raw ? raw : s, rlen));
	free(raw);
}

/* A plain string member of at most JUDGE0_TEXT_MAX characters, or null. */
static const char *text(struct make *m, const char *key)
{
	struct json_object *v = given(m, key);
	if (!v || (json_object_is_type(v, json_type_string) && !json_object_get_string_len(v))) {
		json_object_object_add(m->job, key, NULL);
		return NULL;
	}
	if (!json_object_is_type(v, json_type_string)) {
		refuse(m, key, "must be a string");
		return NULL;
	}
	if (json_object_get_string_len(v) > JUDGE0_TEXT_MAX)
		refuse(m, key, "is too long (maximum is %d characters)", JUDGE0_TEXT_MAX);
	json_object_object_add(m->job, key, json_object_get(v));
	return json_object_get_string(v);
}

static void language(struct make *m)
{
	struct json_object *v = given(m, "language_id");
	double d;
	const struct lang_judge0 *j;
	if (!v) {
		refuse(m, "language_id", "can't be blank");
		return;
	}
	if (!number_of(v, &d) || d != floor(d) || d < 0 || d > 1e9) {
		refuse(m, "language_id", "is not a number");
		return;
	}
	m->id = (int)d;
	json_object_object_add(m->job, "language_id", json_object_new_int(m->id));
	m->lang = judge0_lang(m->e, m->id, &j);
	char err[256], name[256];
	if (m->lang) {
		struct json_object *l = json_object_new_object();
		judge0_lang_name(m->lang, j, name, sizeof(name));
		json_object_object_add(l, "id", json_object_new_int(m->id));
		json_object_object_add(l, "name", json_object_new_string(name));
		json_object_object_add(m->job, "language", l);
	}
	if (!m->lang)
		refuse(m, "language_id", "language with id %d doesn't exist", m->id);
	else if (engine_lang_ready(m->e, m->lang, err, sizeof(err)) < 0 || !m->lang->installed ||
		 !m->lang->execute_cmd)
		refuse(m, "language_id", "language with id %d (%s) is not installed on this "
		       "host", m->id, m->lang->slug), m->lang = NULL;
}

/* Each option word must match the language's rule (lang.json's
 * judge0_options); a language without one takes none. */
static void options(struct make *m, const char *opts)
{
	struct judge0_words w;
	if (!opts || !m->lang)
		return;
	if (!m->lang->judge0_options) {
		refuse(m, "compiler_options", "setting compiler options is not allowed for %s",
		       m->lang->slug);
		return;
	}
	int rc = judge0_words_split(opts, &w);
	if (rc == -2)
		refuse(m, "compiler_options", "has a quote that is not closed");
	if (rc < 0)
		return;
	regex_t re;
	if (regcomp(&re, m->lang->judge0_options, REG_EXTENDED | REG_NOSUB) == 0) {
		for (size_t i = 0; i < w.n; i++)
			if (regexec(&re, w.v[i], 0, NULL, 0))
				refuse(m, "compiler_options", "option %.100s is not allowed for %s "
				       "(allowed: %s)", w.v[i], m->lang->slug,
				       m->lang->judge0_options);
		regfree(&re);
	}
	judge0_words_free(&w);
}

static void arguments(struct make *m, const char *args)
{
	struct judge0_words w;
	if (!args)
		return;
	int rc = judge0_words_split(args, &w);
	if (rc == -2)
		refuse(m, "command_line_arguments", "has a quote that is not closed");
	if (rc == 0)
		judge0_words_free(&w);
}

/* additional_files: base64 of a zip whose names pass the files rule. */
static void zip(struct make *m, bool project)
{
	struct json_object *v;
	bytes(m, "additional_files", true, NULL);
	if (!json_object_object_get_ex(m->job, "additional_files", &v) || !v) {
		if (project && !json_object_object_get_ex(m->errors, "additional_files", NULL))
			refuse(m, "additional_files", "can't be blank");
		return;
	}
	char *raw, err[256];
	size_t len;
	if (judge0_unb64(json_object_get_string(v), (size_t)json_object_get_string_len(v),
			 &raw, &len) < 0)
		return;
	if (judge0_zip_check((const unsigned char *)raw, len, m->e->cfg.files_max,
			     (unsigned long long)m->lim.max_extract_size * 1024, err,
			     sizeof(err)) < 0)
		refuse(m, "additional_files", "%s", err);
	free(raw);
}

static void fields(struct make *m)
{
	bool project = m->id == JUDGE0_MULTI_FILE;
	struct json_object *src = given(m, "source_code");
	bool blank = !src || (json_object_is_type(src, json_type_string) &&
			      !json_object_get_string_len(src));
	if (!project && blank)
		refuse(m, "source_code", "can't be blank");
	else if (project && !blank)
		refuse(m, "source_code", "must be blank");
	else
		bytes(m, "source_code", false, "");
	bytes(m, "stdin", false, "");
	bytes(m, "expected_output", false, NULL);
	zip(m, project);
	options(m, text(m, "compiler_options"));
	arguments(m, text(m, "command_line_arguments"));
	text(m, "callback_url");
	limits(m);
	flags(m);
}

int judge0_job_make(struct engine *e, struct json_object *sub, bool base64_encoded,
		    struct json_object **job, struct json_object **errors)
{
	struct make m = { .e = e, .sub = sub, .b64 = base64_encoded };
	*job = *errors = NULL;
	if (!json_object_is_type(sub, json_type_object))
		return -2;
	m.job = json_object_new_object();
	m.errors = json_object_new_object();
	if (!m.job || !m.errors) {
		json_object_put(m.job);
		json_object_put(m.errors);
		return -2;
	}
	judge0_limits(e, &m.lim);
	language(&m);
	fields(&m);
	if (json_object_object_length(m.errors)) {
		json_object_put(m.job);
		*errors = m.errors;
		return -1;
	}
	json_object_put(m.errors);
	*job = m.job;
	return 0;
}

int judge0_job_parse(struct engine *e, const char *body, size_t len, bool base64_encoded,
		     struct json_object **job, struct answer *a)
{
	char err[512];
	struct json_object *sub = json_body_parse(body, len, err, sizeof(err)), *errors;
	if (!sub) {
		answer_error(a, OUTCOME_BAD_REQUEST, "%s", err);
		return -1;
	}
	int rc = judge0_job_make(e, sub, base64_encoded, job, &errors);
	json_object_put(sub);
	if (rc == -1)
		answer_json(a, OUTCOME_INVALID, errors);
	else if (rc == -2)
		answer_error(a, OUTCOME_FAULT, "out of memory");
	return rc < 0 ? -1 : 0;
}
