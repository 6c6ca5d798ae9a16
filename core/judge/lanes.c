/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lanes: one request's tests run on the worker's lanes (docs/design.md,
 * "Judging").  Lane 0 is the worker's own slot; lanes 1.. are forked
 * children, each with a slot of its own (engine_lane), that take every P-th
 * test and hand their results back in a memfd, one JSON object a line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "judge/cache.h"
#include "api/engine.h"
#include "util/fail.h"
#include "judge/judge.h"
#include "util/utf8.h"
#include "util/cpus.h"
#include "util/util.h"
#include "judge/internal.h"

static int feed(void *ctx, const char *buf, size_t len)
{
	return compare_feed(ctx, buf, len);
}

/* The JSON a result may spend on echoed output: an equal share of
 * RUN_ANSWER_MAX per test, three quarters of it for `actual`, a quarter for
 * `error` (whose bytes are also at most RUN_EVAL_STDERR_MAX). */
static void echo_caps(const struct judging *j, size_t *actual, size_t *error)
{
	size_t share = j->e->cfg.answer_max / j->req->n_tests;
	*actual = share / 4 * 3;
	*error = share / 4;
}

/* How many bytes of s fit in budget bytes of JSON, at the most each byte
 * can take there: 6 for a control character (\u0000), 2 for a quote or a
 * backslash, 3 for a byte of a non-ASCII sequence (an invalid one becomes
 * U+FFFD), else 1.  Output of plain text costs what it weighs; a flood of
 * NUL bytes six times that. */
static size_t fit_json(const char *s, size_t n, size_t budget)
{
	size_t used = 0, i;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t w = c < 0x20 || c == 0x7f ? 6 : c == '"' || c == '\\' ? 2 : c >= 0x80 ? 3 : 1;
		if (used + w > budget)
			break;
		used += w;
	}
	return i;
}

/* A copy of s with CRLF and a lone CR made LF, as CompiCode returns
 * program output (never NULL unless out of memory). */
static char *newlines_made_lf(const char *s, size_t len, size_t *out_len)
{
	char *c = malloc(len + 1);
	if (!c)
		return NULL;
	if (len)
		memcpy(c, s, len);
	*out_len = compare_newlines(c, len);
	c[*out_len] = 0;
	return c;
}

/* A byte count as CompiCode words it: "8 MB", else bytes. */
static void size_words(size_t n, char *out, size_t len)
{
	if (n && n % (1u << 20) == 0)
		snprintf(out, len, "%zu MB", n >> 20);
	else
		snprintf(out, len, "%zu bytes", n);
}

/* What CompiCode's UI shows for a test, into a JSON string: its fixed
 * texts for a timeout and the output limit, else the program's stderr with
 * "Runtime Error: Segmentation fault (signal 11)" after it for a signal. */
static struct json_object *error_text(const struct judging *j, const struct sandbox_result *res,
				      enum verdict v, long limit_ms, size_t keep)
{
	char msg[160], size[48];
	switch (v) {
	case V_TLE:
		snprintf(msg, sizeof(msg), "Execution Timeout (over %g seconds)", limit_ms / 1000.0);
		return json_object_new_string(msg);
	case V_OLE:
		size_words(j->e->cfg.eval_output_max, size, sizeof(size));
		snprintf(msg, sizeof(msg), "Output Limit Exceeded (over %s)", size);
		return json_object_new_string(msg);
	case V_MLE:
		size_words((size_t)(j->mem ? j->mem : j->lang->mem_max), size, sizeof(size));
		snprintf(msg, sizeof(msg), "Memory Limit Exceeded (over %s)", size);
		return json_object_new_string(msg);
	case V_IE:
		return json_object_new_string("Internal Error (the test did not run)");
	default:
		break;
	}
	size_t n = 0;
	char *err = newlines_made_lf(res->err ? res->err : "",
				     res->err ? fit_json(res->err, res->err_len, keep) : 0, &n);
	if (!err)
		return json_object_new_string("");
	int sig = res->ran && !res->killed && WIFSIGNALED(res->wait_status)
		  ? WTERMSIG(res->wait_status) : 0;
	if (sig) {
		snprintf(msg, sizeof(msg), "%sRuntime Error: %s (signal %d)",
			 n && err[n - 1] != '\n' ? "\n" : "", strsignal(sig), sig);
		char *more = realloc(err, n + strlen(msg) + 1);
		if (more) {
			err = more;
			memcpy(err + n, msg, strlen(msg) + 1);
			n += strlen(msg);
		}
	}
	struct json_object *o = utf8_json_string(err, n);
	free(err);
	return o;
}

static const char *deadline_name(enum deadline d)
{
	switch (d) {
	case DEADLINE_NO_PROGRESS: return "no_progress";
	case DEADLINE_CPU_CEILING: return "cpu";
	case DEADLINE_ABSOLUTE: return "wall";
	case DEADLINE_BUDGET: return "budget";
	case DEADLINE_SETUP: return "setup";
	default: return NULL;
	}
}

/* A limit as the language gets it: L * time_factor + time_extra_ms. */
static long lang_limit(const struct lang *lang, long L)
{
	return L ? (long)(L * lang->time_factor + 0.5) + lang->time_extra_ms : 0;
}

/* The verdict of one run, on the measurement (verdict_of), except that a
 * wall-clock limit the request asked for is a TLE when it passed. */
static enum verdict test_verdict(const struct sandbox_result *res, long cpu_limit,
				 long wall_limit, bool equal)
{
	if (res->ran && wall_limit && !res->output_exceeded && !res->oom_killed &&
	    ((res->timed_out && res->deadline == DEADLINE_ABSOLUTE) || res->wall_ms > wall_limit))
		return V_TLE;
	return verdict_of(res, cpu_limit, equal);
}

static void add_fields(struct json_object *o, const struct judging *j,
		       const struct eval_test *t, const struct sandbox_result *res,
		       enum verdict v, long limit_ms, const char *actual, size_t actual_len)
{
	char details[128], signame[32];
	verdict_details(v, res, details, sizeof(details));
	int code = sandbox_exit_code(res);
	int sig = res->ran && !res->killed && WIFSIGNALED(res->wait_status)
		  ? WTERMSIG(res->wait_status) : 0;
	if (sig)
		snprintf(signame, sizeof(signame), "SIG%s",
			 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	bool clean = res->ran && ((!res->killed && code == 0) || res->stopped);
	size_t n = 0, keep, keep_err;
	echo_caps(j, &keep, &keep_err);
	char *lf = newlines_made_lf(actual ? actual : "", actual ? actual_len : 0, &n);
	/* The kernel's CPU backstop (RLIMIT_CPU's SIGXCPU) is the CPU
	 * deadline too, should it come first. */
	const char *dl = res->timed_out ? deadline_name(res->deadline)
			 : v == V_TLE && sig == SIGXCPU ? "cpu" : NULL;

	json_object_object_add(o, "input", utf8_json_string(t->input.data, t->input.len));
	json_object_object_add(o, "expected", utf8_json_string(t->expected.data, t->expected.len));
	size_t fit = lf ? fit_json(lf, n, keep) : 0;
	json_object_object_add(o, "actual", utf8_json_string(lf ? lf : "", fit));
	json_object_object_add(o, "actual_truncated", json_object_new_boolean(fit < n));
	json_object_object_add(o, "error", error_text(j, res, v, limit_ms, keep_err));
	/* CompiCode's: the program exited cleanly, whatever it printed (or
	 * was stopped at its first wrong line, before it had failed). */
	json_object_object_add(o, "success", json_object_new_boolean(
		clean && (v == V_OK || v == V_WA)));
	json_object_object_add(o, "passed", json_object_new_boolean(v == V_OK));
	json_object_object_add(o, "runtime_ms", json_object_new_int64(res->wall_ms));
	json_object_object_add(o, "verdict", json_object_new_string(verdict_name(v)));
	json_object_object_add(o, "cpu_ms", res->cpu_ms < 0 ? NULL : json_object_new_int64(res->cpu_ms));
	json_object_object_add(o, "wall_ms", json_object_new_int64(res->wall_ms));
	json_object_object_add(o, "setup_ms", res->setup_ms < 0 ? NULL
			       : json_object_new_int64(res->setup_ms));
	json_object_object_add(o, "memory_kb", res->memory_peak_kb < 0 ? NULL
			       : json_object_new_int64(res->memory_peak_kb));
	json_object_object_add(o, "exit_code", code < 0 ? NULL : json_object_new_int(code));
	json_object_object_add(o, "signal", sig ? json_object_new_string(signame) : NULL);
	json_object_object_add(o, "details", json_object_new_string(details));
	json_object_object_add(o, "deadline", dl ? json_object_new_string(dl) : NULL);
	free(lf);
}

/* With a checker or an interactor (docs/api.md, "Checkers and
 * interactors"): the solution's own OLE, MLE and TLE first; then the
 * interactor's word; then the solution's RE; then the checker's, on the
 * solution's output or the interactor's file.  *by: whose word it was. */
static enum verdict aided_verdict(struct judging *j, unsigned k, const struct eval_test *t,
				  enum verdict v, const char *actual, size_t len,
				  struct aide_result *inter, struct aide_result *chk,
				  const struct aide_result **by)
{
	*by = NULL;
	if (v == V_OLE || v == V_MLE || v == V_TLE || v == V_IE)
		return v;
	if (j->interactor && inter->out.verdict != V_OK) {
		*by = inter;
		return inter->out.verdict;
	}
	if (v != V_OK)
		return v;
	if (!j->checker) {
		*by = inter;
		return V_OK;
	}
	aide_check(j, k, t, j->interactor ? inter->file : actual,
		   j->interactor ? inter->file_len : len, chk);
	*by = chk;
	return chk->out.verdict;
}

/* The fields a checker or an interactor adds to a test's result, and
 * what its word changes of the rest. */
static void aided_fields(struct json_object *o, struct judging *j, enum verdict v,
			 const struct sandbox_result *res, struct aide_result *inter,
			 struct aide_result *chk, const struct aide_result *by)
{
	double score = by ? by->out.score : v == V_OK;
	double points = by ? by->out.points : NAN;
	char details[400];
	if (j->checker)
		json_object_object_add(o, "checker", chk->json);
	if (j->interactor)
		json_object_object_add(o, "interactor", inter->json);
	chk->json = inter->json = NULL;
	json_object_object_add(o, "points", isnan(points) ? NULL : json_object_new_double(points));
	json_object_object_add(o, "score", json_object_new_double(v == V_OK ? 1 : score));
	if (v == V_PC) {
		snprintf(details, sizeof(details), "Partially Correct (%g)", score);
		json_object_object_add(o, "details", json_object_new_string(details));
	}
	if (v == V_IE && by) {
		json_object_object_add(o, "details", json_object_new_string(by->why));
		json_object_object_add(o, "error", json_object_new_string(by->why));
	}
	/* success: the solution ended cleanly, whoever judged it. */
	int code = sandbox_exit_code(res);
	bool clean = res->ran && !res->killed && code == 0;
	json_object_object_add(o, "success", json_object_new_boolean(
		clean && (v == V_OK || v == V_WA || v == V_PE || v == V_PC || (v == V_IE && by))));
}

/* An interactive test's relay into the solution's spec: 0, or -1 (the
 * interactor did not start: r says why). */
static int pair_up(struct judging *j, unsigned k, const struct eval_test *t, long idle_ms,
		   struct sandbox_spec *spec, struct aide_pair *pr, struct aide_result *r)
{
	if (aide_pair_start(j, k, t, idle_ms, pr, r) < 0)
		return -1;
	spec->stdin_data = "";
	spec->stdin_len = 0;
	spec->relay = true;
	spec->relay_in = pr->sol_in;
	spec->relay_out = pr->sol_out;
	pr->sol_in = pr->sol_out = -1;       /* sandbox_run's to close */
	spec->pair_cpu_us = pr->cpu;
	spec->pair_self = 0;
	return 0;
}

static struct json_object *run_test(struct judging *j, unsigned k, size_t i)
{
	struct slot *lane = engine_lane(j->e, k);
	const struct eval_request *req = j->req;
	const struct eval_test *t = &req->tests[i];
	struct compare cmp;
	if (now_ms() >= j->end_ms)
		return judge_past_budget(t);
	struct json_object *o = json_object_new_object();
	if (compare_init_mode(&cmp, t->expected.data, t->expected.len, req->tokens) < 0)
		return o;
	long L = lang_limit(j->lang, req->time_limit_ms);
	long W = lang_limit(j->lang, req->wall_time_limit_ms);
	unsigned long long mem = j->mem ? j->mem : j->lang->mem_max;
	struct sandbox_spec spec = {
		.lang = j->lang,
		.command = j->lang->run_cmd,
		/* The three deadlines, none of them the limit L itself
		 * (docs/design.md, "Judging"): CPU time above L + 2 s, no CPU
		 * growth for L + 2 s (a sleeping program), wall clock above
		 * 5 (L + 2 s), or the wall-clock limit the request asked for. */
		.timeout_ms = W ? W : 5 * (L + 2000),
		.cpu_deadline_ms = L + 2000,
		.idle_deadline_ms = L + 2000,
		/* All of them from the program's start: a sandbox slow to
		 * come up is never the program's time (setup_ms says it),
		 * and one that does not come up at all is IE. */
		.setup_max_ms = JUDGE_SETUP_MAX_MS,
		.output_max = j->e->cfg.eval_output_max,
		.err_keep = j->e->cfg.eval_stderr_max ? j->e->cfg.eval_stderr_max : (size_t)-1 >> 1,
		.stack_max = j->lang->stack_is_memory ? mem : 0,
		.lower = j->lower,
		.stdin_data = t->input.data,
		.stdin_len = t->input.len,
		.input_file = req->file_io ? req->input_file : NULL,
		.output_file = req->file_io ? req->output_file : NULL,
		.mem_max = j->mem,
		/* A checker reads the whole output (up to the cap). */
		.on_stdout = req->file_io || j->checker || j->interactor ? NULL : feed,
		.ctx = &cmp,
		.budget_end_ms = j->end_ms,
		.client = j->client,
	};
	struct sandbox_result res;
	struct aide_pair pr;
	struct aide_result inter = { 0 }, chk = { 0 };
	if (j->interactor && pair_up(j, k, t, L + 2000, &spec, &pr, &inter) < 0) {
		compare_free(&cmp);
		json_object_put(o);
		o = judge_not_run(t, V_IE, inter.why);
		json_object_object_add(o, "details", json_object_new_string(inter.why));
		return o;
	}
	if (sandbox_run(lane, &spec, &res) < 0)
		fprintf(stderr, "gaol: evaluate: %s\n", res.fault);
	if (j->interactor)
		aide_pair_end(j, k, &pr, res.client_gone, &inter);
	j->gone = j->gone || res.client_gone;
	bool equal;
	const char *actual = res.out;
	size_t actual_len = res.out_len;
	if (req->file_io) {
		equal = !res.file_missing && compare_equal_mode(t->expected.data, t->expected.len,
								  res.file, res.file_len, req->tokens);
		actual = res.file;
		actual_len = res.file_len;
	} else {
		equal = compare_finish(&cmp);
	}
	bool aided = j->checker || j->interactor;
	const struct aide_result *by = NULL;
	enum verdict v = test_verdict(&res, L, W, equal || aided);
	if (aided && !(req->file_io && res.file_missing))
		v = aided_verdict(j, k, t, v, actual, actual_len, &inter, &chk, &by);
	else if (aided && v == V_OK)
		v = V_WA;                /* no output file: nothing to check */
	/* The limit the timeout text names: the wall clock's when it passed. */
	long shown = W && res.wall_ms >= W ? W : L;
	add_fields(o, j, t, &res, v, shown, actual, actual_len);
	if (aided)
		aided_fields(o, j, v, &res, &inter, &chk, by);
	aide_result_free(&inter);
	aide_result_free(&chk);
	json_object_object_add(o, "time_limit_ms", json_object_new_int64(L));
	sandbox_result_free(&res);
	compare_free(&cmp);
	return o;
}

/* Lane k > 0, in a child: every P-th test from k, one JSON object per line
 * into fd, "<index> <json>\n". */
static void __attribute__((noreturn)) lane_child(struct judging *j, unsigned k,
						 unsigned P, int fd)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The worker's sandbox built ahead serves the worker's next test: a
	 * copy of its stdin pipe here would hold that program's input open
	 * until this lane exits (a program reading to its end waited for
	 * the whole lane: issue 29). */
	sandbox_forget(&j->e->slot);
	cpus_pin_lane(k);       /* a CPU of its own, next to its worker's */
	FILE *f = fdopen(fd, "w");
	for (size_t i = k; f && i < j->req->n_tests && !judge_client_gone(j); i += P) {
		struct json_object *o = run_test(j, k, i);
		/* Flushed line by line: the worker streams it as it comes. */
		fprintf(f, "%zu %s\n", i, json_object_to_json_string_ext(o, JSON_FLAGS));
		fflush(f);
		json_object_put(o);
	}
	_exit(f && fclose(f) == 0 ? 0 : 1);
}

struct json_object *judge_not_run(const struct eval_test *t, enum verdict v,
				  const char *error)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "input", utf8_json_string(t->input.data, t->input.len));
	json_object_object_add(o, "expected", utf8_json_string(t->expected.data, t->expected.len));
	json_object_object_add(o, "actual", json_object_new_string(""));
	json_object_object_add(o, "actual_truncated", json_object_new_boolean(0));
	json_object_object_add(o, "error", utf8_json_string(error ? error : "",
							       error ? strlen(error) : 0));
	json_object_object_add(o, "success", json_object_new_boolean(0));
	json_object_object_add(o, "passed", json_object_new_boolean(0));
	json_object_object_add(o, "runtime_ms", json_object_new_int(0));
	json_object_object_add(o, "verdict", json_object_new_string(verdict_name(v)));
	/* Every result has the same fields; what was not measured is null. */
	json_object_object_add(o, "cpu_ms", NULL);
	json_object_object_add(o, "wall_ms", NULL);
	json_object_object_add(o, "setup_ms", NULL);
	json_object_object_add(o, "memory_kb", NULL);
	json_object_object_add(o, "exit_code", NULL);
	json_object_object_add(o, "signal", NULL);
	char details[64];
	verdict_details(v, NULL, details, sizeof(details));
	json_object_object_add(o, "details", json_object_new_string(details));
	json_object_object_add(o, "time_limit_ms", NULL);
	json_object_object_add(o, "deadline", NULL);
	return o;
}

struct json_object *judge_past_budget(const struct eval_test *t)
{
	/* TLE in docker-evaluator's plain words; which limit it was is the
	 * "deadline" field's, as for a test the budget stopped mid-run. */
	struct json_object *o = judge_not_run(t, V_TLE, VERDICT_BUDGET_ERROR);
	json_object_object_add(o, "deadline", json_object_new_string("budget"));
	return o;
}

/* What lane k wrote since *off: whole lines only, "<index> <json>". */
static void read_lane(struct judging *j, int fd, off_t *off)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= *off)
		return;
	size_t len = (size_t)(st.st_size - *off);
	char *buf = malloc(len + 1);
	ssize_t got = buf ? pread(fd, buf, len, *off) : -1;
	if (got <= 0) {
		free(buf);
		return;
	}
	buf[got] = 0;
	char *line = buf, *nl;
	while ((nl = strchr(line, '\n'))) {
		*nl = 0;
		char *end;
		unsigned long idx = strtoul(line, &end, 10);
		if (idx < j->req->n_tests && idx >= j->next && *end == ' ' && !j->results[idx])
			j->results[idx] = json_tokener_parse(end + 1);
		line = nl + 1;
	}
	*off += line - buf;
	free(buf);
}

void judge_run_tests(struct judging *j)
{
	size_t n = j->req->n_tests;
	unsigned P = j->e->cfg.eval_parallel;
	if (P > n)
		P = (unsigned)n;
	pid_t pids[EVAL_PARALLEL_MAX] = { 0 };
	int fds[EVAL_PARALLEL_MAX];
	off_t offs[EVAL_PARALLEL_MAX] = { 0 };
	for (unsigned k = 1; k < P; k++) {
		fds[k] = memfd_create("gaol-lane", MFD_CLOEXEC);
		pids[k] = fds[k] < 0 ? -1 : fork();
		if (pids[k] == 0)
			lane_child(j, k, P, fds[k]);
		/* The child used the lane's network namespace: the worker makes
		 * a fresh one when idle (the child's flag is the child's). */
		slot_spent(engine_lane(j->e, k));
		if (j->checker || j->interactor)
			slot_spent(engine_aide(j->e, k));
	}
	for (size_t i = 0; i < n && !judge_client_gone(j); i += P) {
		j->results[i] = run_test(j, 0, i);
		for (unsigned k = 1; k < P; k++)
			read_lane(j, fds[k], &offs[k]);
		judge_emit(j);
	}
	for (unsigned k = 1; k < P; k++) {
		/* A client gone: the lanes' runs end with them (PDEATHSIG). */
		if (pids[k] > 0 && j->gone)
			kill(pids[k], SIGKILL);
		/* Woken by the lane's exit (its pidfd), not only by the
		 * 20 ms tick that streams what it wrote: a lane that ends
		 * just after lane 0 costs no tick. */
		int pfd = pids[k] > 0 ? pidfd_open(pids[k], 0) : -1;
		while (pids[k] > 0) {
			int rc = waitpid(pids[k], NULL, WNOHANG);
			if (rc != 0 && !(rc < 0 && errno == EINTR))
				break;
			for (unsigned m = 1; m < P; m++)
				read_lane(j, fds[m], &offs[m]);
			judge_emit(j);
			if (judge_client_gone(j))
				kill(pids[k], SIGKILL);
			if (pfd < 0 || poll(&(struct pollfd){ .fd = pfd, .events = POLLIN }, 1, 20) < 0)
				usleep(20000);
		}
		if (pfd >= 0)
			close(pfd);
		read_lane(j, fds[k], &offs[k]);
		if (fds[k] >= 0)
			close(fds[k]);
	}
	/* A lane that died leaves holes: those tests did not run. */
	for (size_t i = j->next; i < n; i++)
		if (!j->results[i])
			j->results[i] = judge_not_run(&j->req->tests[i], V_IE,
						      "Internal Error (the test did not run)");
	judge_emit(j);
}
