/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge0/run: a job run on /execute's stages (execute/stages.h) and the
 * stages' raw results worded as Judge0 words them (app/jobs/isolate_job.rb):
 *
 *   files     source_code under the language's entry name; additional_files
 *             as one zip file beside it, unpacked by unzip INSIDE the
 *             compile stage's sandbox (no root process reads more of it
 *             than its directory, judge0/common.c), unzip -n: the source is
 *             never overwritten.  Language 89 has the zip alone and its own
 *             `compile` and `run` scripts.
 *   compile   the language's recipe, the compiler options (checked words) in
 *             GAOL_COMPILER_OPTIONS, which only C and C++ recipes read; the
 *             options are part of the command and so of the cache key.  A
 *             language without a compile recipe has a compile stage only to
 *             unpack a zip.
 *   runs      number_of_runs times; the first that is not Accepted ends them.
 *             cpu_time_limit + cpu_extra_time is the CPU deadline, more than
 *             cpu_time_limit of CPU is Time Limit Exceeded (isolate's -t/-x);
 *             wall_time_limit the wall clock; memory_limit the cgroup's;
 *             max_file_size caps each stream (past it: SIGXFSZ, as isolate's
 *             -f makes it).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <json-c/json.h>

#include "execute/stages.h"
#include "judge/judge.h"
#include "judge0/internal.h"
#include "judge0/judge0.h"
#include "judge0/words.h"
#include "util/util.h"

/* One job's run: the request handed to /execute's stages. */
struct j0run {
	struct engine *e;
	const struct json_object *job;
	const struct client_watch *client;
	const struct lang *lang;
	struct exec_request req;
	struct execution x;
	char *compile_cmd, *execute_cmd;
	char entry[256];
	bool project, has_zip;
	struct json_object *out;  /* the RESULT being made */
};

static const struct json_object *jget(const struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static double jnum(const struct json_object *o, const char *key)
{
	return json_object_get_double(jget(o, key));
}

static bool jbool(const struct json_object *o, const char *key)
{
	return json_object_get_boolean(jget(o, key));
}

/* A byte field of the job (base64), decoded; NULL data when null. */
static int jbytes(const struct json_object *o, const char *key, struct blob *b)
{
	const struct json_object *v = jget(o, key);
	b->data = NULL;
	b->len = 0;
	if (!v || !json_object_is_type(v, json_type_string))
		return 0;
	return judge0_unb64(json_object_get_string((struct json_object *)v),
			    (size_t)json_object_get_string_len(v), &b->data, &b->len);
}

static void set(struct j0run *r, const char *key, struct json_object *v)
{
	json_object_object_add(r->out, key, v);
}

static struct json_object *bytes_or_null(const char *s, size_t len)
{
	return len ? judge0_b64(s, len) : NULL;
}

static void status(struct j0run *r, int id, const char *verdict)
{
	struct json_object *s = json_object_new_object();
	json_object_object_add(s, "id", json_object_new_int(id));
	json_object_object_add(s, "description", json_object_new_string(judge0_status_name(id)));
	set(r, "status", s);
	set(r, "gaol_verdict", json_object_new_string(verdict));
}

static void internal_error(struct j0run *r, const char *why)
{
	status(r, JUDGE0_INTERNAL_ERROR, "IE");
	set(r, "message", json_object_new_string(why));
}

/* ---- the request handed to the stages ---- */

static int add_file(struct j0run *r, const char *name, struct blob *b)
{
	struct req_files *f = &r->req.files;
	struct req_file *v = realloc(f->v, (f->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	f->v = v;
	v[f->n].name = strdup(name);
	v[f->n].data = b->data ? b->data : strdup("");
	v[f->n].len = b->len;
	b->data = NULL;
	return v[f->n++].name && v[f->n - 1].data ? 0 : -1;
}

static int files(struct j0run *r)
{
	struct blob src, zip;
	if (jbytes(r->job, "source_code", &src) < 0 || jbytes(r->job, "additional_files", &zip) < 0)
		return -1;
	int rc = 0;
	r->has_zip = zip.data != NULL;
	if (!r->project) {
		struct req_file first = { NULL, src.data ? src.data : "", src.len };
		exec_entry_name(r->lang, &first, r->entry, sizeof(r->entry));
		rc = add_file(r, r->entry, &src);
	}
	if (rc == 0 && zip.data)
		rc = add_file(r, JUDGE0_ZIP_NAME, &zip);
	free(src.data);
	free(zip.data);
	return rc;
}

/* GAOL_COMPILER_OPTIONS='w1 w2' for the recipe (the words were checked
 * against the language's rule; a ' is quoted all the same). */
static void options_line(const struct json_object *job, char *out, size_t len)
{
	const struct json_object *v = jget(job, "compiler_options");
	struct judge0_words w;
	out[0] = 0;
	if (!v || judge0_words_split(json_object_get_string((struct json_object *)v), &w) < 0)
		return;
	size_t n = (size_t)snprintf(out, len, "GAOL_COMPILER_OPTIONS='");
	for (size_t i = 0; i < w.n && n < len; i++) {
		n += (size_t)snprintf(out + n, len - n, i ? " " : "");
		for (const char *p = w.v[i]; *p && n < len; p++)
			n += (size_t)snprintf(out + n, len - n, *p == '\'' ? "'\\''" : "%c", *p);
	}
	if (n < len)
		snprintf(out + n, len - n, "'\n");
	judge0_words_free(&w);
}

#define UNZIP "(cd src && unzip -n -qq " JUDGE0_ZIP_NAME " && rm -f " JUDGE0_ZIP_NAME ") && "
/* Judge0 runs the first of each pair that is there (isolate_job.rb). */
#define PROJECT_COMPILE "cd src && if [ -f compile.sh ]; then exec /bin/bash ./compile.sh; " \
	"elif [ -f compile ]; then exec /bin/bash ./compile; fi"
#define PROJECT_RUN "cd src && if [ -f run.sh ]; then exec /bin/bash ./run.sh \"$@\"; fi; " \
	"exec /bin/bash ./run \"$@\""

/* The compile stage's command, or NULL when there is none to run. */
static int commands(struct j0run *r)
{
	char opts[2200];
	const char *body = r->project ? PROJECT_COMPILE : r->lang->compile_cmd;
	options_line(r->job, opts, sizeof(opts));
	if (r->project && !(r->execute_cmd = strdup(PROJECT_RUN)))
		return -1;
	if (!body && !r->has_zip)
		return 0;
	if (asprintf(&r->compile_cmd, "set -f\n%s%s%s", opts, r->has_zip ? UNZIP : "",
		     body ? body : "true") < 0)
		return r->compile_cmd = NULL, -1;
	return 0;
}

static unsigned long long ceiling(const struct engine *e, const struct lang *l)
{
	return e->cfg.eval_memory_max ? e->cfg.eval_memory_max : l->mem_max;
}

/* The request /execute's stages read, from the job. */
static int request(struct j0run *r)
{
	struct judge0_words w = { 0 };
	const struct json_object *args = jget(r->job, "command_line_arguments");
	if (args && judge0_words_split(json_object_get_string((struct json_object *)args),
				       &w) < 0)
		return -1;
	r->req.args = w.v;
	r->req.n_args = w.n;
	if (files(r) < 0 || jbytes(r->job, "stdin", &r->req.stdin_data) < 0 || commands(r) < 0)
		return -1;
	long cmax = r->e->cfg.execute_compile_max_ms;
	r->req.compile = (struct exec_limits){ cmax, cmax, -1 };
	r->x = (struct execution){ .e = r->e, .client = r->client, .lang = *r->lang,
				   .req = &r->req,
				   .compile_cmd = r->compile_cmd, .execute_cmd = r->execute_cmd,
				   .compile_mem = ceiling(r->e, r->lang),
				   .output_max = (size_t)(jnum(r->job, "max_file_size") * 1024) };
	r->x.lang.workdir = "src";
	return exec_prepare(&r->x);
}

static void request_free(struct j0run *r)
{
	exec_end(&r->x);
	if (r->req.args) {
		struct judge0_words w = { r->req.args, r->req.n_args };
		judge0_words_free(&w);
	}
	files_free(&r->req.files);
	free(r->req.stdin_data.data);
	free(r->compile_cmd);
	free(r->execute_cmd);
}

/* ---- the stages' results in Judge0's words ---- */

static struct json_object *seconds(long ms)
{
	char s[32];
	snprintf(s, sizeof(s), "%.3f", (double)ms / 1000);
	return json_object_new_string(s);
}

/* The compile stage: 1 go on, 0 the result is made (CE or IE). */
static int compile(struct j0run *r)
{
	struct exec_stage st;
	char fault[256];
	if (!r->compile_cmd)
		return 1;
	int rc = exec_compile(&r->x, &st, fault, sizeof(fault));
	if (rc < 0) {
		internal_error(r, fault);
	} else if (!r->x.cached) {
		bool to = st.res.timed_out;
		set(r, "compile_output", to ? judge0_b64("Compilation time limit exceeded.", 32)
		    : bytes_or_null(st.output, st.output_len));
		if (rc == 0)
			status(r, JUDGE0_COMPILATION_ERROR, "CE");
		if (rc == 0 && st.res.export_over)
			set(r, "message", json_object_new_string("the build left more than "
				"RUN_EVAL_BUILD_MAX bytes or RUN_EVAL_BUILD_FILES files"));
	}
	exec_stage_free(&st);
	return rc == 1;
}

/* Judge0's rule (isolate_job.rb, strip): each line's trailing blanks and
 * the trailing lines go; in place, the new length. */
static size_t judge0_strip(char *s, size_t len)
{
	size_t n = 0, keep = 0;
	len = compare_newlines(s, len);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			n = keep;
		s[n++] = s[i];
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\f' && s[i] != '\v')
			keep = n;
	}
	while (keep && (s[keep - 1] == '\n'))
		keep--;
	return keep;
}

static bool same(const struct blob *expected, const char *out, size_t len)
{
	char *a = malloc(expected->len + 1), *b = malloc(len + 1);
	bool eq = false;
	if (a && b) {
		memcpy(a, expected->data, expected->len);
		memcpy(b, out ? out : "", len);
		size_t al = judge0_strip(a, expected->len), bl = judge0_strip(b, len);
		eq = al == bl && !memcmp(a, b, al);
	}
	free(a);
	free(b);
	return eq;
}

/* Judge0's status of a program ended by signal sig (status.rb). */
static int signal_status(int sig)
{
	switch (sig) {
	case SIGSEGV: return JUDGE0_SIGSEGV;
	case SIGXFSZ: return JUDGE0_SIGXFSZ;
	case SIGFPE: return JUDGE0_SIGFPE;
	case SIGABRT: return JUDGE0_SIGABRT;
	default: return JUDGE0_OTHER;
	}
}

static void killed_by(struct j0run *r, int sig, int id, const char *verdict, const char *msg)
{
	char m[64];
	snprintf(m, sizeof(m), "%s", msg ? msg : "");
	if (!msg)
		snprintf(m, sizeof(m), "Caught fatal signal %d", sig);
	status(r, id, verdict);
	set(r, "exit_code", json_object_new_int(0));
	set(r, "exit_signal", sig ? json_object_new_int(sig) : NULL);
	set(r, "message", json_object_new_string(m));
}

/* One run's status, as isolate's meta and Judge0's determine_status give
 * it; true when Accepted. */
static bool decide(struct j0run *r, const struct sandbox_result *res, const char *out,
		   size_t out_len, const struct blob *expected)
{
	long cpu_limit = (long)(jnum(r->job, "cpu_time_limit") * 1000);
	if (res->client_gone)
		internal_error(r, "the client went away");
	else if (res->output_exceeded)
		killed_by(r, SIGXFSZ, JUDGE0_SIGXFSZ, "OLE", "File size limit exceeded");
	else if (res->timed_out && res->deadline == DEADLINE_BUDGET)
		internal_error(r, "the request's budget (RUN_REQUEST_BUDGET) was spent: "
			       "gaol's limit, not the submission's");
	else if (res->oom_killed)
		killed_by(r, SIGKILL, JUDGE0_OTHER, "MLE", NULL);
	else if (res->timed_out || (cpu_limit > 0 && res->cpu_ms > cpu_limit))
		killed_by(r, res->killed ? SIGKILL : 0, JUDGE0_TIME_LIMIT, "TLE",
			  res->timed_out && res->deadline != DEADLINE_CPU_CEILING ?
			  "Time limit exceeded (wall clock)" : "Time limit exceeded");
	else if (res->killed)
		internal_error(r, "stopped by gaol");
	else if (WIFSIGNALED(res->wait_status))
		killed_by(r, WTERMSIG(res->wait_status), signal_status(WTERMSIG(res->wait_status)),
			  "RE", NULL);
	else if (WEXITSTATUS(res->wait_status)) {
		char m[64];
		snprintf(m, sizeof(m), "Exited with error status %d", WEXITSTATUS(res->wait_status));
		status(r, JUDGE0_NZEC, "RE");
		set(r, "exit_code", json_object_new_int(WEXITSTATUS(res->wait_status)));
		set(r, "message", json_object_new_string(m));
	} else {
		bool ok = !expected->data || same(expected, out, out_len);
		status(r, ok ? JUDGE0_ACCEPTED : JUDGE0_WRONG_ANSWER, ok ? "OK" : "WA");
		set(r, "exit_code", json_object_new_int(0));
		return ok;
	}
	return false;
}

/* The runs, number_of_runs at most; time and memory their means. */
static void runs(struct j0run *r)
{
	const struct json_object *job = r->job;
	unsigned long long mem = (unsigned long long)jnum(job, "memory_limit") * 1024;
	if (mem < 8ULL << 20)
		mem = 8ULL << 20;       /* the least a sandbox's cgroup is given */
	if (mem > ceiling(r->e, r->lang))
		mem = ceiling(r->e, r->lang);
	double cpu = jnum(job, "cpu_time_limit"), extra = jnum(job, "cpu_extra_time");
	struct exec_limits lim = { (long)(jnum(job, "wall_time_limit") * 1000),
				   cpu > 0 ? (long)((cpu + extra) * 1000) : 0, -1 };
	bool merge = jbool(job, "redirect_stderr_to_stdout");
	r->x.stderr_to_stdout = merge;   /* the run's only: a build's stderr is its own */
	struct blob expected;
	long n = (long)jnum(job, "number_of_runs"), done = 0, cpu_sum = 0, wall_sum = 0;
	long long mem_sum = 0;
	if (jbytes(job, "expected_output", &expected) < 0)
		return internal_error(r, "out of memory");
	for (bool ok = true; ok && done < n; done++) {
		struct exec_stage st;
		char fault[256];
		if (exec_run(&r->x, &lim, mem, &st, fault, sizeof(fault)) < 0) {
			internal_error(r, fault);
			exec_stage_free(&st);
			break;
		}
		const char *out = merge ? st.output : st.res.out;
		size_t out_len = merge ? st.output_len : st.res.out_len;
		set(r, "stdout", bytes_or_null(out, out_len));
		set(r, "stderr", merge ? NULL : bytes_or_null(st.res.err, st.res.err_len));
		ok = decide(r, &st.res, out, out_len, &expected);
		cpu_sum += st.res.cpu_ms > 0 ? st.res.cpu_ms : 0;
		wall_sum += st.res.wall_ms;
		mem_sum += st.res.memory_peak_kb > 0 ? st.res.memory_peak_kb : 0;
		exec_stage_free(&st);
	}
	free(expected.data);
	if (done) {
		set(r, "time", seconds(cpu_sum / done));
		set(r, "wall_time", seconds(wall_sum / done));
		set(r, "memory", json_object_new_int64(mem_sum / done));
	}
}

/* ---- a job to a result ---- */

static const char *const run_fields[] = {
	"stdout", "stderr", "compile_output", "message", "exit_code", "exit_signal",
	"status", "time", "wall_time", "memory", "finished_at", "gaol_verdict",
};

/* The job's keys (its language's id and name among them) and the run's
 * fields, null. */
static struct json_object *skeleton(const struct json_object *job)
{
	struct json_object *o = NULL;
	if (json_object_deep_copy((struct json_object *)job, &o, NULL) < 0 || !o)
		return NULL;
	for (size_t i = 0; i < sizeof(run_fields) / sizeof(run_fields[0]); i++)
		json_object_object_add(o, run_fields[i], NULL);
	return o;
}

static void run_job(struct j0run *r)
{
	if (!r->lang) {
		internal_error(r, "the job's language_id maps to no language here");
		return;
	}
	if (request(r) < 0)
		internal_error(r, "out of memory (or a job that is not judge0_job_make's)");
	else if (compile(r))
		runs(r);
	request_free(r);
}

struct json_object *judge0_run(struct engine *e, const struct json_object *job,
			       const struct client_watch *client)
{
	struct j0run r = { .e = e, .job = job, .client = client };
	int id = json_object_get_int(jget(job, "language_id"));
	char now[40];
	if (!(r.out = skeleton(job)))
		return NULL;
	r.lang = judge0_lang(e, id, NULL);
	r.project = id == JUDGE0_MULTI_FILE;
	char err[256];
	if (r.lang && engine_lang_ready(e, r.lang, err, sizeof(err)) < 0)
		internal_error(&r, err);
	else
		run_job(&r);
	judge0_now(now, sizeof(now));
	set(&r, "finished_at", json_object_new_string(now));
	return r.out;
}

struct json_object *judge0_pending(const struct json_object *job, int status_id)
{
	struct j0run r = { .out = skeleton(job) };
	if (r.out)
		status(&r, status_id, status_id == JUDGE0_IN_QUEUE ? "queued" : "running");
	if (r.out)
		set(&r, "gaol_verdict", NULL);
	return r.out;
}
