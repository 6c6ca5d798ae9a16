/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reqlog: one JSON line per request (see reqlog.h).  The line is built from
 * the request's and the answer's JSON, so the engine needs no logging hooks:
 * what the client was told is what the log says.  It goes out with one
 * write(2) (a writev of line and newline), shorter than PIPE_BUF, so the
 * lines of concurrent workers never interleave.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#include <json.h>

#include "judge0/judge0.h"
#include "lang/lang.h"
#include "metrics.h"
#include "reqlog.h"
#include "status.h"

#define LINE_MAX_BYTES 4000   /* under PIPE_BUF (4096): one atomic write */

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* nginx's $request_id is 32 hex digits; anything printable and plain
 * (letters, digits, - _ .) up to REQLOG_ID_MAX is taken, so that another
 * proxy's ids pass too, and nothing can break the X-Request-Id header. */
static int id_is_plain(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (n >= REQLOG_ID_MAX ||
		    !(isalnum((unsigned char)*s) || *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return n > 0;
}

void reqlog_begin(struct reqlog *l, const FCGX_Request *req)
{
	const char *id = FCGX_GetParam("GAOL_REQUEST_ID", req->envp);

	memset(l, 0, sizeof *l);
	clock_gettime(CLOCK_MONOTONIC, &l->started);
	clock_gettime(CLOCK_REALTIME, &l->at);
	if (id && id_is_plain(id)) {
		snprintf(l->id, sizeof l->id, "%s", id);
	} else {
		/* The form of nginx's: 16 random bytes in hex. */
		unsigned char r[16] = { 0 };
		if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
			memset(r, 0, sizeof r);
		for (size_t i = 0; i < sizeof r; i++)
			snprintf(l->id + 2 * i, 3, "%02x", r[i]);
	}
}

static unsigned long long fnv1a64(const char *s, size_t n)
{
	unsigned long long h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static const char *string_field(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	       json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A Judge0 submission's language_id, as the slug of the language that
 * answers it; NULL when there is none. */
static const char *judge0_slug(const struct engine *e, struct json_object *o)
{
	struct json_object *v;
	const struct lang *l;

	if (!json_object_object_get_ex(o, "language_id", &v) ||
	    !json_object_is_type(v, json_type_int))
		return NULL;
	int64_t id = json_object_get_int64(v);
	l = id > 0 && id <= INT_MAX ? judge0_lang(e, (int)id, NULL) : NULL;
	return l ? l->slug : NULL;
}

void reqlog_body(struct reqlog *l, const struct engine *e, const char *body, size_t len)
{
	struct json_tokener *tok;
	struct json_object *o;
	static const char *const code_keys[] = { "solution_text", "source_code", "code" };
	struct json_object *v;
	const char *lang;

	l->bytes_in = len;
	if (!body || !(tok = json_tokener_new()))
		return;
	o = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return;
	}
	/* /run names them lang_slug and solution_text, /evaluate language and
	 * code, Judge0 language_id and source_code (as sent: base64 when the
	 * query says so). */
	lang = string_field(o, "lang_slug");
	if (!lang)
		lang = string_field(o, "language");
	if (!lang)
		lang = judge0_slug(e, o);
	if (lang)
		snprintf(l->language, sizeof l->language, "%s", lang);
	for (size_t i = 0; i < sizeof code_keys / sizeof *code_keys; i++)
		if (json_object_object_get_ex(o, code_keys[i], &v) &&
		    json_object_is_type(v, json_type_string)) {
			l->code_bytes = (size_t)json_object_get_string_len(v);
			l->code_hash = fnv1a64(json_object_get_string(v), l->code_bytes);
			break;
		}
	json_object_put(o);
}

static void add_int(struct json_object *line, const char *key, struct json_object *from,
		    const char *from_key)
{
	struct json_object *v;

	if (json_object_object_get_ex(from, from_key, &v) &&
	    json_object_is_type(v, json_type_int))
		json_object_object_add(line, key, json_object_new_int64(json_object_get_int64(v)));
}

/* POST /run: how the program ended, as the answer says. */
static void run_outcome(struct json_object *line, struct json_object *ans,
			const char *language)
{
	struct json_object *v;
	const char *outcome = "exit";

	if (json_object_object_get_ex(ans, "timed_out", &v) && json_object_get_boolean(v))
		outcome = "timeout";
	else if (json_object_object_get_ex(ans, "oom_killed", &v) && json_object_get_boolean(v))
		outcome = "oom";
	else if (string_field(ans, "signal"))
		outcome = "signal";
	json_object_object_add(line, "outcome", json_object_new_string(outcome));
	add_int(line, "exit_code", ans, "exit_code");
	add_int(line, "wall_ms", ans, "wall_ms");
	add_int(line, "cpu_ms", ans, "cpu_ms");
	add_int(line, "memory_peak_kb", ans, "memory_peak_kb");
	metrics_run(language, outcome,
		    json_object_object_get_ex(ans, "wall_ms", &v) ? json_object_get_int64(v) : -1,
		    json_object_object_get_ex(ans, "cpu_ms", &v) ? json_object_get_int64(v) : -1);
}

/* POST /evaluate: the first verdict that is not OK (CE when the build
 * failed), each verdict's count, and the runs' summed times and peak. */
static void evaluate_outcome(struct json_object *line, struct json_object *ans,
			     const char *language)
{
	struct json_object *compile, *results, *v, *counts = json_object_new_object();
	const char *verdict = "OK";
	long long wall = 0, cpu = 0, peak = 0;

	if (json_object_object_get_ex(ans, "compile", &compile)) {
		if (json_object_object_get_ex(compile, "ok", &v) && !json_object_get_boolean(v))
			verdict = "CE";
		if (json_object_object_get_ex(compile, "cached", &v)) {
			json_object_object_add(line, "compile_cached",
					       json_object_new_boolean(json_object_get_boolean(v)));
			metrics_compile(json_object_get_boolean(v));
		}
	}
	if (json_object_object_get_ex(ans, "results", &results) &&
	    json_object_is_type(results, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(results); i++) {
			struct json_object *r = json_object_array_get_idx(results, i), *n, *w, *c;
			const char *ver = string_field(r, "verdict");
			if (!ver)
				continue;
			metrics_run(language, ver,
				    json_object_object_get_ex(r, "wall_ms", &w) ? json_object_get_int64(w) : -1,
				    json_object_object_get_ex(r, "cpu_ms", &c) ? json_object_get_int64(c) : -1);
			if (strcmp(verdict, "OK") == 0 && strcmp(ver, "OK") != 0)
				verdict = ver;
			n = json_object_object_get(counts, ver);
			json_object_object_add(counts, ver, json_object_new_int(
						       n ? json_object_get_int(n) + 1 : 1));
			if (json_object_object_get_ex(r, "wall_ms", &v))
				wall += json_object_get_int64(v);
			if (json_object_object_get_ex(r, "cpu_ms", &v))
				cpu += json_object_get_int64(v);
			if (json_object_object_get_ex(r, "memory_kb", &v) &&
			    json_object_get_int64(v) > peak)
				peak = json_object_get_int64(v);
		}
	}
	json_object_object_add(line, "verdict", json_object_new_string(verdict));
	json_object_object_add(line, "verdicts", counts);
	if (json_object_object_get_ex(ans, "client_gone", &v))  /* judging stopped */
		json_object_object_add(line, "client_gone", json_object_get(v));
	json_object_object_add(line, "wall_ms", json_object_new_int64(wall));
	json_object_object_add(line, "cpu_ms", json_object_new_int64(cpu));
	json_object_object_add(line, "memory_peak_kb", json_object_new_int64(peak));
}

/* The answer's side: the error of a refused request, or how the run went. */
static void add_answer(struct json_object *line, const struct reqlog *l,
		       const struct answer *a)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *ans = NULL;
	const char *err;

	if (tok && a->body)
		ans = json_tokener_parse_ex(tok, a->body, (int)a->len);
	json_tokener_free(tok);
	if (!ans || !json_object_is_type(ans, json_type_object)) {
		json_object_put(ans);
		return;
	}
	if ((err = string_field(ans, "error"))) {
		json_object_object_add(line, "error", json_object_new_string_len(
					       err, (int)strnlen(err, 300)));
		/* engine.c's words for a sandbox that could not be built. */
		if (a->outcome == OUTCOME_FAULT && strncmp(err, "sandbox:", 8) == 0)
			metrics_sandbox_failure();
	} else if (a->outcome == OUTCOME_OK && l->route && strcmp(l->route, "/run") == 0) {
		run_outcome(line, ans, l->language);
	} else if (a->outcome == OUTCOME_OK && l->route && strcmp(l->route, "/evaluate") == 0) {
		evaluate_outcome(line, ans, l->language);
	}
	json_object_put(ans);
}

void reqlog_end(const struct reqlog *l, int slot, const char *method,
		const struct answer *a, size_t bytes_out)
{
	struct json_object *line = json_object_new_object();
	struct timespec now;
	char when[40], hash[24];
	struct tm tm;
	const char *text;
	size_t n;

	if (!line)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	gmtime_r(&l->at.tv_sec, &tm);
	n = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + n, sizeof when - n, ".%03ldZ", l->at.tv_nsec / 1000000);
	json_object_object_add(line, "time", json_object_new_string(when));
	json_object_object_add(line, "request_id", json_object_new_string(l->id));
	json_object_object_add(line, "method", json_object_new_string(method));
	json_object_object_add(line, "route", l->route ? json_object_new_string(l->route) : NULL);
	json_object_object_add(line, "status", json_object_new_int(http_status(a->body ? a->outcome : OUTCOME_FAULT)));
	json_object_object_add(line, "slot", slot >= 0 ? json_object_new_int(slot) : NULL);
	json_object_object_add(line, "language", l->language[0] ?
			       json_object_new_string(l->language) : NULL);
	if (l->code_bytes || l->code_hash) {
		snprintf(hash, sizeof hash, "%016llx", l->code_hash);
		json_object_object_add(line, "code_bytes", json_object_new_int64((int64_t)l->code_bytes));
		json_object_object_add(line, "code_fnv1a64", json_object_new_string(hash));
	}
	json_object_object_add(line, "bytes_in", json_object_new_int64((int64_t)l->bytes_in));
	json_object_object_add(line, "bytes_out", json_object_new_int64((int64_t)bytes_out));
	json_object_object_add(line, "request_ms", json_object_new_int64(
				       (int64_t)(ms_between(&l->started, &now) + 0.5)));
	metrics_request(l->route, http_status(a->body ? a->outcome : OUTCOME_FAULT));
	if (l->route && strcmp(l->route, "/metrics") != 0)
		add_answer(line, l, a);

	text = json_object_to_json_string_ext(line, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	n = strlen(text);
	if (n > LINE_MAX_BYTES)
		n = LINE_MAX_BYTES;   /* never happens with these fields; a cut line beats two writes */
	/* One write of line and newline (a writev is one write to a pipe,
	 * atomic under PIPE_BUF), without a 4 KB copy on the stack. */
	struct iovec iov[2] = { { (void *)text, n }, { "\n", 1 } };
	while (writev(STDERR_FILENO, iov, 2) < 0 && errno == EINTR)
		;
	json_object_put(line);
}
