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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cache.h"
#include "engine.h"
#include "eval_admit.h"
#include "fail.h"
#include "judge.h"
#include "utf8.h"

#define STDERR_KEEP 65536        /* of a test's stderr, as CompiCode keeps */
#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* ---- the request ---- */

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

static bool plain_file_name(const char *s)
{
	if (!*s || strlen(s) > 255 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

static int name_field(struct json_object *obj, const char *key, const char *def,
		      char **out, char *err, size_t errlen)
{
	struct json_object *v;
	if (field(obj, key, json_type_string, false, &v, err, errlen) < 0)
		return -1;
	const char *s = v ? json_object_get_string(v) : def;
	if ((v && (size_t)json_object_get_string_len(v) != strlen(s)) || !plain_file_name(s))
		return fail(err, errlen, "%s must be a plain file name", key);
	*out = strdup(s);
	return *out ? 0 : fail(err, errlen, "out of memory");
}

static int parse_tests(struct json_object *arr, struct eval_request *r, char *err,
		       size_t errlen)
{
	size_t n = json_object_array_length(arr);
	if (n == 0)
		return fail(err, errlen, "test_cases must not be empty");
	if (n > EVAL_TESTS_MAX)
		return fail(err, errlen, "test_cases has %zu entries, at most %d", n,
			    EVAL_TESTS_MAX);
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
		    field(t, "expected_output", json_type_string, false, &exp, err, errlen) < 0) {
			char inner[256];
			snprintf(inner, sizeof(inner), "%s", err);
			return fail(err, errlen, "%s.%s", what, inner);
		}
		r->n_tests = i + 1;
		if ((in ? copy_blob(in, &r->tests[i].input) : (r->tests[i].input.data = strdup(""),
				r->tests[i].input.data ? 0 : -1)) < 0 ||
		    (exp ? copy_blob(exp, &r->tests[i].expected) : (r->tests[i].expected.data = strdup(""),
				r->tests[i].expected.data ? 0 : -1)) < 0)
			return fail(err, errlen, "out of memory");
	}
	return 0;
}

int eval_request_parse(const char *body, size_t len, struct eval_request *r,
		       char *err, size_t errlen)
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
	    parse_tests(v, r, err, errlen) < 0)
		goto out;
	if (int_field(obj, "time_limit_ms", 1, EVAL_TIME_LIMIT_MAX_MS, &r->time_limit_ms,
		      err, errlen) < 0 ||
	    int_field(obj, "memory_limit_mb", EVAL_MEMORY_MIN_MB, EVAL_MEMORY_MAX_MB,
		      &r->memory_limit_mb, err, errlen) < 0)
		goto out;
	if (field(obj, "input_mode", json_type_string, false, &v, err, errlen) < 0)
		goto out;
	if (v && strcmp(json_object_get_string(v), "stdin") &&
	    strcmp(json_object_get_string(v), "file")) {
		fail(err, errlen, "input_mode must be \"stdin\" or \"file\"");
		goto out;
	}
	r->file_io = v && !strcmp(json_object_get_string(v), "file");
	if (name_field(obj, "input_file", "input.txt", &r->input_file, err, errlen) < 0 ||
	    name_field(obj, "output_file", "output.txt", &r->output_file, err, errlen) < 0)
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
	memset(r, 0, sizeof(*r));
}

/* ---- comparing output ---- */

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int compare_init(struct compare *c, const char *expected, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->expected = malloc(len + 1);
	if (!c->expected)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		if (!(expected[i] == '\r' && i + 1 < len && expected[i + 1] == '\n'))
			c->expected[n++] = expected[i];
	size_t start = 0;
	while (start < n && blank(c->expected[start]))
		start++;
	while (n > start && blank(c->expected[n - 1]))
		n--;
	memmove(c->expected, c->expected + start, n - start);
	c->len = n - start;
	return 0;
}

static void compare_char(struct compare *c, char ch)
{
	if (!c->started) {
		if (blank(ch))
			return;
		c->started = true;
	}
	if (c->pos < c->len && c->expected[c->pos] == ch)
		c->pos++;
	else if (!(c->pos == c->len && blank(ch)))
		c->differs = true;   /* only blanks may follow the end */
}

int compare_feed(struct compare *c, const char *buf, size_t len)
{
	for (size_t i = 0; i < len && !c->differs; i++) {
		char ch = buf[i];
		if (c->pending_cr) {
			c->pending_cr = false;
			if (ch != '\n')
				compare_char(c, '\r');
		}
		if (ch == '\r') {
			c->pending_cr = true;
			continue;
		}
		compare_char(c, ch);
	}
	return c->differs;
}

bool compare_finish(struct compare *c)
{
	if (c->pending_cr) {
		c->pending_cr = false;
		compare_char(c, '\r');
	}
	return !c->differs && c->pos == c->len;
}

void compare_free(struct compare *c)
{
	free(c->expected);
	c->expected = NULL;
}

bool compare_equal(const char *expected, size_t elen, const char *actual, size_t alen)
{
	struct compare c;
	if (compare_init(&c, expected, elen) < 0)
		return false;
	compare_feed(&c, actual, alen);
	bool eq = compare_finish(&c);
	compare_free(&c);
	return eq;
}

/* ---- verdicts ---- */

static const char *const verdict_names[] = {
	[V_OK] = "OK", [V_WA] = "WA", [V_TLE] = "TLE", [V_MLE] = "MLE",
	[V_RE] = "RE", [V_OLE] = "OLE", [V_CE] = "CE", [V_IE] = "IE",
};

const char *verdict_name(enum verdict v)
{
	return verdict_names[v];
}

enum verdict verdict_of(const struct sandbox_result *r, long limit_ms, bool output_equal)
{
	if (!r->ran)
		return V_IE;
	if (r->output_exceeded)
		return V_OLE;
	if (r->oom_killed)
		return V_MLE;
	/* A deadline ended it: it ran past the limit, or never started. */
	if (r->timed_out)
		return r->cpu_ms > 0 ? V_TLE : V_IE;
	if (r->cpu_ms > limit_ms)
		return V_TLE;
	if (r->stopped)
		return V_WA;
	if (!WIFEXITED(r->wait_status) || WEXITSTATUS(r->wait_status) != 0)
		return V_RE;
	return output_equal ? V_OK : V_WA;
}

static int exit_code_of(const struct sandbox_result *r)
{
	if (r->killed || !r->ran)
		return -1;
	if (WIFEXITED(r->wait_status))
		return WEXITSTATUS(r->wait_status);
	return 128 + WTERMSIG(r->wait_status);
}

void verdict_details(enum verdict v, const struct sandbox_result *r, char *out, size_t len)
{
	switch (v) {
	case V_OK:
		snprintf(out, len, "OK (%ldms)", r->cpu_ms > 0 ? r->cpu_ms : 0);
		break;
	case V_WA:
		snprintf(out, len, "Wrong Answer");
		break;
	case V_TLE:
		if (r->deadline == DEADLINE_NO_PROGRESS)
			snprintf(out, len, "Time Limit Exceeded (no CPU progress for %ldms)",
				 r->wall_ms);
		else
			snprintf(out, len, "Time Limit Exceeded");
		break;
	case V_MLE:
		snprintf(out, len, "Memory Limit Exceeded");
		break;
	case V_RE:
		if (!WIFEXITED(r->wait_status))
			snprintf(out, len, "Runtime Error (exit code %d, %s)", exit_code_of(r),
				 sigabbrev_np(WTERMSIG(r->wait_status)) ?
				 sigabbrev_np(WTERMSIG(r->wait_status)) : "signal");
		else
			snprintf(out, len, "Runtime Error (exit code %d)", exit_code_of(r));
		break;
	case V_OLE:
		snprintf(out, len, "Output Limit Exceeded");
		break;
	case V_CE:
		snprintf(out, len, "Compilation Error");
		break;
	case V_IE:
		snprintf(out, len, "Internal Error (the test did not run)");
		break;
	}
}

/* ---- running ---- */

struct judging {
	struct engine *e;
	const struct lang *lang;
	const struct eval_request *req;
	const char *lower;       /* the build's output */
	unsigned long long mem;
};

static struct json_object *str_or_null_utf8(const char *s, size_t len)
{
	return utf8_json_string(s ? s : "", s ? len : 0);
}

static int feed(void *ctx, const char *buf, size_t len)
{
	return compare_feed(ctx, buf, len);
}

static struct json_object *run_test(const struct judging *j, struct slot *lane, size_t i)
{
	const struct eval_request *req = j->req;
	const struct eval_test *t = &req->tests[i];
	struct compare cmp;
	struct json_object *o = json_object_new_object();
	if (compare_init(&cmp, t->expected.data, t->expected.len) < 0)
		return o;
	long L = req->time_limit_ms;
	struct sandbox_spec spec = {
		.lang = j->lang,
		.command = j->lang->run_cmd,
		.timeout_ms = 5 * (L + 2000),
		.output_max = j->e->cfg.output_max,
		.lower = j->lower,
		.stdin_data = t->input.data,
		.stdin_len = t->input.len,
		.input_file = req->file_io ? req->input_file : NULL,
		.output_file = req->file_io ? req->output_file : NULL,
		.mem_max = j->mem,
		.cpu_limit_ms = L,
		.on_stdout = req->file_io ? NULL : feed,
		.ctx = &cmp,
	};
	struct sandbox_result res;
	if (sandbox_run(lane, &spec, &res) < 0)
		fprintf(stderr, "gaol: evaluate: %s\n", res.fault);
	bool equal;
	const char *actual = res.out;
	size_t actual_len = res.out_len;
	if (req->file_io) {
		equal = !res.file_missing && compare_equal(t->expected.data, t->expected.len,
							     res.file, res.file_len);
		actual = res.file;
		actual_len = res.file_len;
	} else {
		equal = compare_finish(&cmp);
	}
	enum verdict v = verdict_of(&res, L, equal);
	char details[128];
	verdict_details(v, &res, details, sizeof(details));
	int code = exit_code_of(&res);
	int sig = res.ran && !res.killed && WIFSIGNALED(res.wait_status)
		  ? WTERMSIG(res.wait_status) : 0;
	char signame[32];
	if (sig)
		snprintf(signame, sizeof(signame), "SIG%s",
			 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");

	json_object_object_add(o, "input", utf8_json_string(t->input.data, t->input.len));
	json_object_object_add(o, "expected", utf8_json_string(t->expected.data, t->expected.len));
	json_object_object_add(o, "actual", str_or_null_utf8(actual, actual_len));
	json_object_object_add(o, "error", str_or_null_utf8(res.err,
		res.err_len > STDERR_KEEP ? STDERR_KEEP : res.err_len));
	json_object_object_add(o, "success", json_object_new_boolean(
		res.ran && !res.killed && code == 0 && v != V_TLE && v != V_MLE));
	json_object_object_add(o, "passed", json_object_new_boolean(v == V_OK));
	json_object_object_add(o, "runtime_ms", json_object_new_int64(res.wall_ms));
	json_object_object_add(o, "verdict", json_object_new_string(verdict_name(v)));
	json_object_object_add(o, "cpu_ms", res.cpu_ms < 0 ? NULL : json_object_new_int64(res.cpu_ms));
	json_object_object_add(o, "wall_ms", json_object_new_int64(res.wall_ms));
	json_object_object_add(o, "memory_kb", res.memory_peak_kb < 0 ? NULL
			       : json_object_new_int64(res.memory_peak_kb));
	json_object_object_add(o, "exit_code", code < 0 ? NULL : json_object_new_int(code));
	json_object_object_add(o, "signal", sig ? json_object_new_string(signame) : NULL);
	json_object_object_add(o, "details", json_object_new_string(details));
	sandbox_result_free(&res);
	compare_free(&cmp);
	return o;
}

/* Lane k > 0, in a child: every P-th test from k, one JSON object per line
 * into fd, "<index> <json>\n". */
static void __attribute__((noreturn)) lane_child(const struct judging *j, unsigned k,
						 unsigned P, int fd)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	FILE *f = fdopen(fd, "w");
	for (size_t i = k; f && i < j->req->n_tests; i += P) {
		struct json_object *o = run_test(j, &j->e->lanes[k - 1], i);
		fprintf(f, "%zu %s\n", i, json_object_to_json_string_ext(o, JSON_FLAGS));
		json_object_put(o);
	}
	_exit(f && fclose(f) == 0 ? 0 : 1);
}

static struct json_object *internal_error(const struct eval_test *t)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "input", utf8_json_string(t->input.data, t->input.len));
	json_object_object_add(o, "expected", utf8_json_string(t->expected.data, t->expected.len));
	json_object_object_add(o, "actual", json_object_new_string(""));
	json_object_object_add(o, "error", json_object_new_string(""));
	json_object_object_add(o, "success", json_object_new_boolean(0));
	json_object_object_add(o, "passed", json_object_new_boolean(0));
	json_object_object_add(o, "runtime_ms", json_object_new_int(0));
	json_object_object_add(o, "verdict", json_object_new_string("IE"));
	/* Every result has the same fields; what was not measured is null. */
	json_object_object_add(o, "cpu_ms", NULL);
	json_object_object_add(o, "wall_ms", NULL);
	json_object_object_add(o, "memory_kb", NULL);
	json_object_object_add(o, "exit_code", NULL);
	json_object_object_add(o, "signal", NULL);
	json_object_object_add(o, "details", json_object_new_string(
		"Internal Error (the test did not run)"));
	return o;
}

static void run_tests(const struct judging *j, struct json_object **results)
{
	size_t n = j->req->n_tests;
	unsigned P = j->e->cfg.eval_parallel;
	if (P > n)
		P = (unsigned)n;
	pid_t pids[EVAL_PARALLEL_MAX] = { 0 };
	int fds[EVAL_PARALLEL_MAX];
	for (unsigned k = 1; k < P; k++) {
		fds[k] = memfd_create("gaol-lane", MFD_CLOEXEC);
		pids[k] = fds[k] < 0 ? -1 : fork();
		if (pids[k] == 0)
			lane_child(j, k, P, fds[k]);
		/* The child used the lane's network namespace: the worker makes
		 * a fresh one when idle (the child's flag is the child's). */
		j->e->lanes[k - 1].netns_used = true;
	}
	for (size_t i = 0; i < n; i += P)
		results[i] = run_test(j, &j->e->slot, i);
	for (unsigned k = 1; k < P; k++) {
		if (pids[k] > 0)
			while (waitpid(pids[k], NULL, 0) < 0 && errno == EINTR)
				;
		if (fds[k] < 0)
			continue;
		FILE *f = fdopen(fds[k], "r");
		if (!f) {
			close(fds[k]);
			continue;
		}
		rewind(f);
		char *line = NULL;
		size_t cap = 0;
		while (getline(&line, &cap, f) > 0) {
			char *end;
			unsigned long idx = strtoul(line, &end, 10);
			if (idx < n && *end == ' ' && !results[idx])
				results[idx] = json_tokener_parse(end + 1);
		}
		free(line);
		fclose(f);
	}
	/* A lane that died leaves holes: those tests did not run. */
	for (size_t i = 0; i < n; i++)
		if (!results[i])
			results[i] = internal_error(&j->req->tests[i]);
}

/* ---- building ---- */

struct build {
	bool ok, cached;
	char lower[4096];
	struct json_object *json;
};

static const char *source_name(const struct lang *lang)
{
	return lang->solution_file;
}

static int build(struct engine *e, const struct lang *lang, const struct eval_request *req,
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
	json_object_object_add(b->json, "exit_code", res.killed ? NULL
		: json_object_new_int(WIFEXITED(res.wait_status) ? WEXITSTATUS(res.wait_status)
				      : 128 + WTERMSIG(res.wait_status)));
	json_object_object_add(b->json, "timed_out", json_object_new_boolean(res.timed_out));
	json_object_object_add(b->json, "wall_ms", json_object_new_int64(res.wall_ms));
	json_object_object_add(b->json, "cpu_ms", res.cpu_ms < 0 ? NULL
			       : json_object_new_int64(res.cpu_ms));
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

/* ---- the request, end to end ---- */

void engine_evaluate(struct engine *e, const char *body, size_t len, struct answer *a)
{
	char err[512];
	struct eval_request req;

	memset(a, 0, sizeof(*a));
	if (len > e->cfg.input_max) {
		answer_error(a, 413, "request body exceeds RUN_INPUT_MAX (%zu bytes)",
			     e->cfg.input_max);
		return;
	}
	if (eval_request_parse(body, len, &req, err, sizeof(err)) < 0) {
		answer_error(a, 422, "%s", err);
		return;
	}
	const struct lang *lang = langs_find(&e->langs, req.language, true);
	if (!lang) {
		answer_error(a, 422, "unknown language \"%s\"", req.language);
		goto out;
	}
	if (!lang->installed) {
		answer_error(a, 400, "language not installed: %s", lang->slug);
		goto out;
	}
	if (eval_admit(&e->cfg, lang, req.memory_limit_mb, req.time_limit_ms, err,
		       sizeof(err)) < 0) {
		answer_error(a, 422, "%s", err);
		goto out;
	}
	struct build b = { 0 };
	if (build(e, lang, &req, &b, err, sizeof(err)) < 0) {
		json_object_put(b.json);
		answer_error(a, 500, "%s", err);
		goto out;
	}
	struct json_object **results = calloc(req.n_tests, sizeof(*results));
	if (!results) {
		json_object_put(b.json);
		answer_error(a, 500, "out of memory");
		goto out;
	}
	if (b.ok) {
		struct judging j = {
			.e = e, .lang = lang, .req = &req, .lower = b.lower,
			.mem = req.memory_limit_mb ? (unsigned long long)req.memory_limit_mb << 20 : 0,
		};
		run_tests(&j, results);
	} else {
		for (size_t i = 0; i < req.n_tests; i++) {
			results[i] = internal_error(&req.tests[i]);
			json_object_object_add(results[i], "verdict", json_object_new_string("CE"));
			json_object_object_add(results[i], "details",
					       json_object_new_string("Compilation Error"));
		}
	}
	struct json_object *obj = json_object_new_object();
	struct json_object *arr = json_object_new_array_ext((int)req.n_tests);
	for (size_t i = 0; i < req.n_tests; i++)
		json_object_array_add(arr, results[i]);
	free(results);
	json_object_object_add(obj, "compile", b.json);
	json_object_object_add(obj, "results", arr);
	answer_json(a, 200, obj);
out:
	eval_request_free(&req);
}
