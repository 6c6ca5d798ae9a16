/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge0/format: Judge0's statuses, its query parameters, and a result as
 * a client sees it (app/serializers/submission_serializer.rb,
 * app/services/fields/submission.rb).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "judge0/internal.h"
#include "judge0/judge0.h"
#include "util/utf8.h"

static const char *const statuses[JUDGE0_STATUS_MAX + 1] = {
	[JUDGE0_IN_QUEUE] = "In Queue",
	[JUDGE0_PROCESSING] = "Processing",
	[JUDGE0_ACCEPTED] = "Accepted",
	[JUDGE0_WRONG_ANSWER] = "Wrong Answer",
	[JUDGE0_TIME_LIMIT] = "Time Limit Exceeded",
	[JUDGE0_COMPILATION_ERROR] = "Compilation Error",
	[JUDGE0_SIGSEGV] = "Runtime Error (SIGSEGV)",
	[JUDGE0_SIGXFSZ] = "Runtime Error (SIGXFSZ)",
	[JUDGE0_SIGFPE] = "Runtime Error (SIGFPE)",
	[JUDGE0_SIGABRT] = "Runtime Error (SIGABRT)",
	[JUDGE0_NZEC] = "Runtime Error (NZEC)",
	[JUDGE0_OTHER] = "Runtime Error (Other)",
	[JUDGE0_INTERNAL_ERROR] = "Internal Error",
	[JUDGE0_EXEC_FORMAT_ERROR] = "Exec Format Error",
};

const char *judge0_status_name(int id)
{
	return id >= 1 && id <= JUDGE0_STATUS_MAX ? statuses[id] : NULL;
}

/* Every field a client may ask for: Judge0's submission columns (less
 * id), status and language, then gaol's verdict. */
static const char *const all_fields[] = {
	"source_code", "language_id", "stdin", "expected_output", "stdout", "status_id",
	"created_at", "finished_at", "time", "memory", "stderr", "token", "number_of_runs",
	"cpu_time_limit", "cpu_extra_time", "wall_time_limit", "memory_limit", "stack_limit",
	"max_processes_and_or_threads", "enable_per_process_and_thread_time_limit",
	"enable_per_process_and_thread_memory_limit", "max_file_size", "compile_output",
	"exit_code", "exit_signal", "message", "wall_time", "compiler_options",
	"command_line_arguments", "redirect_stderr_to_stdout", "callback_url",
	"additional_files", "enable_network", "started_at", "queued_at", "updated_at",
	"queue_host", "execution_host", "status", "language", "gaol_verdict", NULL,
};

static const char default_fields[] =
	"token,time,memory,stdout,stderr,compile_output,message,status";

/* Stored as base64 (judge0.h), shown as text unless base64_encoded. */
static const char *const byte_fields[] = {
	"source_code", "stdin", "expected_output", "stdout", "stderr", "compile_output", NULL,
};

/* Judge0's decimals, which Rails writes as strings ("5.0"). */
static const char *const decimal_fields[] = {
	"cpu_time_limit", "cpu_extra_time", "wall_time_limit", NULL,
};

static bool listed(const char *const *list, const char *name, size_t len)
{
	for (; *list; list++)
		if (strlen(*list) == len && !strncmp(*list, name, len))
			return true;
	return false;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..len) percent-decoded ('+' a space) into out (size cap). */
static void url_decode(const char *s, size_t len, char *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < len && n + 1 < cap; i++) {
		if (s[i] == '%' && i + 2 < len && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			out[n++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			out[n++] = s[i] == '+' ? ' ' : s[i];
		}
	}
	out[n] = 0;
}

/* The names of fields that are none of Judge0's, "a, b", into bad. */
static void invalid_fields(const char *fields, char *bad, size_t cap)
{
	bad[0] = 0;
	for (const char *p = fields; *p;) {
		size_t k = strcspn(p, ",");
		if (k && !(k == 1 && *p == '*') && !listed(all_fields, p, k))
			snprintf(bad + strlen(bad), cap - strlen(bad), "%s%.*s", bad[0] ? ", " : "",
				 (int)k, p);
		p += k + (p[k] == ',');
	}
}

static void query_pair(const char *p, size_t len, struct judge0_query *q)
{
	const char *eq = memchr(p, '=', len);
	size_t klen = eq ? (size_t)(eq - p) : len;
	char val[sizeof(q->tokens)];
	url_decode(eq ? eq + 1 : "", eq ? len - klen - 1 : 0, val, sizeof(val));
	if (klen == 14 && !strncmp(p, "base64_encoded", klen))
		q->base64_encoded = !strcmp(val, "true");
	else if (klen == 4 && !strncmp(p, "wait", klen))
		q->wait = !strcmp(val, "true");
	else if (klen == 6 && !strncmp(p, "fields", klen))
		snprintf(q->fields, sizeof(q->fields), "%s", val);
	else if (klen == 6 && !strncmp(p, "tokens", klen))
		snprintf(q->tokens, sizeof(q->tokens), "%s", val);
}

int judge0_query_parse(const char *query, struct judge0_query *q, struct answer *a)
{
	char bad[600];
	memset(q, 0, sizeof(*q));
	for (const char *p = query ? query : ""; *p;) {
		size_t k = strcspn(p, "&");
		query_pair(p, k, q);
		p += k + (p[k] == '&');
	}
	invalid_fields(q->fields, bad, sizeof(bad));
	if (!bad[0])
		return 0;
	answer_error(a, OUTCOME_BAD_REQUEST, "invalid fields: [%s]", bad);
	return -1;
}

/* A stored byte field as the client asked it; NULL with *bad when it is
 * not UTF-8 and the client asked for text. */
static struct json_object *byte_field(struct json_object *v, bool b64, bool *bad)
{
	char *raw;
	size_t len;
	if (!v || b64)
		return json_object_get(v);
	if (judge0_unb64(json_object_get_string(v), (size_t)json_object_get_string_len(v),
			 &raw, &len) < 0)
		return *bad = true, NULL;
	struct json_object *s = NULL;
	if (utf8_valid_prefix(raw, len) == len)
		s = json_object_new_string_len(raw, (int)len);
	else
		*bad = true;
	free(raw);
	return s;
}

static struct json_object *field(const struct json_object *result, const char *name, bool b64,
				 bool *bad)
{
	struct json_object *v = NULL, *st;
	char s[32];
	if (!strcmp(name, "status_id"))
		return json_object_object_get_ex(result, "status", &st) &&
		       json_object_object_get_ex(st, "id", &v) ? json_object_get(v) : NULL;
	json_object_object_get_ex(result, name, &v);
	if (listed(byte_fields, name, strlen(name)))
		return byte_field(v, b64, bad);
	if (v && listed(decimal_fields, name, strlen(name))) {
		snprintf(s, sizeof(s), "%.1f", json_object_get_double(v));
		return json_object_new_string(s);
	}
	if (v && b64 && !strcmp(name, "message"))
		return judge0_b64(json_object_get_string(v), (size_t)json_object_get_string_len(v));
	return json_object_get(v);
}

enum judge0_format_rc judge0_format(const struct json_object *result, const char *fields,
				    bool base64_encoded, struct json_object **out)
{
	bool bad = false, all = false;
	const char *list = fields && *fields ? fields : default_fields;
	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		all = all || (strcspn(p, ",") == 1 && *p == '*');
	struct json_object *o = json_object_new_object();
	if (!o)
		return JUDGE0_FORMAT_NO_MEMORY;
	for (size_t i = 0; all && all_fields[i]; i++)
		json_object_object_add(o, all_fields[i], field(result, all_fields[i],
							       base64_encoded, &bad));
	for (const char *p = list; !all && *p;) {
		size_t k = strcspn(p, ",");
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)k, p);
		if (k && listed(all_fields, p, k))
			json_object_object_add(o, name, field(result, name, base64_encoded, &bad));
		p += k + (p[k] == ',');
	}
	if (bad) {
		json_object_put(o);
		return JUDGE0_FORMAT_NOT_UTF8;
	}
	*out = o;
	return JUDGE0_FORMAT_OK;
}

struct json_object *judge0_conversion_error(const char *token)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "error", json_object_new_string(
		"some attributes for this submission cannot be converted to UTF-8, use "
		"base64_encoded=true query parameter"));
	if (token)
		json_object_object_add(o, "token", json_object_new_string(token));
	return o;
}
