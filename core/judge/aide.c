/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aide: a request's checker and interactor (docs/api.md, "Checkers and
 * interactors"; docs/design.md, "Checkers and interactors").
 *
 * Both are programs of the tenant's, built once per request through the
 * compile cache by their language's /execute recipes (`compile`, then
 * `execute` with testlib's arguments), and run per test in a sandbox of
 * their own: lane k's aide slot, a UID of the second range
 * (CONFIG_AIDE_UID), its own cgroup and limits.  What they read of a test
 * (input, the solution's output, the expected answer) the worker writes
 * into the aide slot's judge/ directory, bound read-only at /sandbox/judge:
 * the solution's sandbox never holds any of it, and those pages are the
 * worker's, not the checker's memory.
 *
 * An interactive test has two runs at once.  The lane supervises the
 * solution; a keeper, a process of the worker's forked for the test,
 * supervises the interactor.  Between them two pipes the worker made,
 * each run's supervisor copying its program's stdout into one and the
 * other's bytes into its stdin (run/sandbox.c, spec->relay): the two
 * sandboxes share no pipe end and no directory.  The keeper hands its
 * result back in a memfd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "api/engine.h"
#include "judge/internal.h"
#include "judge/judge.h"
#include "util/fail.h"
#include "util/utf8.h"
#include "util/util.h"

#define AIDE_ERR_KEEP 65536      /* a checker's stderr kept: its message */
#define AIDE_MESSAGE_MAX 1024    /* of it in the answer */
#define AIDE_OUT_MAX 65536       /* a checker's stdout, read and dropped */
#define INTERACTOR_FILE "tout"   /* /sandbox/tout: what it writes for the checker */

int aide_build(struct judging *j, struct aide *a, char *fault, size_t faultlen)
{
	a->sfiles = calloc(a->files.n, sizeof(*a->sfiles));
	if (!a->sfiles)
		return fail(fault, faultlen, "out of memory");
	for (size_t i = 0; i < a->files.n; i++)
		a->sfiles[i] = (struct sandbox_file){ a->files.v[i].name, a->files.v[i].data,
						      a->files.v[i].len };
	a->built = true;
	return judge_build_files(j->e, j->client, &a->lang, a->sfiles, a->files.n, j->end_ms,
				 &a->b, fault, faultlen);
}

void aide_free(struct aide *a)
{
	if (a->built)
		judge_build_end(&a->b);
	json_object_put(a->b.json);
	free(a->b.error);
	free(a->sfiles);
	files_free(&a->files);
	memset(a, 0, sizeof(*a));
}

void aide_result_free(struct aide_result *r)
{
	json_object_put(r->json);
	free(r->file);
	memset(r, 0, sizeof(*r));
}

/* ---- the files a checker reads ---- */

/* <aide slot>/judge: the worker's, root's, read-only to the runs. */
static void data_dir(struct judging *j, unsigned k, char *out, size_t len)
{
	snprintf(out, len, "%s/judge", engine_aide(j->e, k)->state_dir);
}

static int put_file(const char *dir, const char *name, const char *data, size_t len)
{
	char path[4400];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd < 0)
		return -1;
	int rc = write_all(fd, data, len);
	close(fd);
	return rc < 0 ? -1 : 0;
}

/* input, output and answer into lane k's judge directory (output NULL:
 * the interactor's, input alone). */
static int put_test(struct judging *j, unsigned k, const struct eval_test *t,
		    const char *output, size_t len, char *dir, size_t dirlen)
{
	data_dir(j, k, dir, dirlen);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	if (put_file(dir, "input", t->input.data, t->input.len) < 0)
		return -1;
	if (!output)
		return 0;
	if (put_file(dir, "output", output, len) < 0 ||
	    put_file(dir, "answer", t->expected.data, t->expected.len) < 0)
		return -1;
	return 0;
}

/* The test's files gone once it is judged: nothing of a test outlives it. */
static void clear_test(const char *dir)
{
	static const char *const names[] = { "input", "output", "answer" };
	char path[4400];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
}

/* ---- a run's word ---- */

static void trimmed(const char *s, size_t n, const char **out, size_t *len)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	while (n && (*s == '\n' || *s == '\r' || *s == ' '))
		s++, n--;
	*out = s;
	*len = n < AIDE_MESSAGE_MAX ? n : AIDE_MESSAGE_MAX;
}

static struct json_object *result_json(const struct sandbox_result *res,
				       const struct checker_outcome *o, const char *msg,
				       size_t mlen)
{
	struct json_object *js = json_object_new_object();
	int code = res->ran ? sandbox_exit_code(res) : -1;
	json_object_object_add(js, "exit_code", code < 0 ? NULL : json_object_new_int(code));
	json_object_object_add(js, "verdict", json_object_new_string(verdict_name(o->verdict)));
	json_object_object_add(js, "message", utf8_json_string(msg, mlen));
	json_object_object_add(js, "cpu_ms", res->cpu_ms < 0 ? NULL
			       : json_object_new_int64(res->cpu_ms));
	json_object_object_add(js, "memory_kb", res->memory_peak_kb < 0 ? NULL
			       : json_object_new_int64(res->memory_peak_kb));
	return js;
}

/* Why a run that did not end by itself failed, or NULL. */
static const char *stopped_why(const struct sandbox_result *res, long limit_ms,
			       char *buf, size_t len)
{
	if (!res->ran)
		snprintf(buf, len, "it did not run (%s)", res->fault);
	else if (res->oom_killed)
		snprintf(buf, len, "it exceeded its memory limit");
	else if (res->output_exceeded)
		snprintf(buf, len, "it exceeded the output limit");
	else if (res->timed_out && res->deadline == DEADLINE_BUDGET)
		snprintf(buf, len, "the request's budget (RUN_REQUEST_BUDGET) was spent");
	else if (res->timed_out && res->deadline == DEADLINE_NO_PROGRESS)
		snprintf(buf, len, "it made no progress (it waited, and so did its peer)");
	else if (res->timed_out || res->cpu_ms > limit_ms)
		snprintf(buf, len, "it exceeded its time limit (%ld ms)", limit_ms);
	else if (res->killed)
		snprintf(buf, len, "it was stopped");
	else
		return NULL;
	return buf;
}

/* testlib's verdict of a run (or IE: it failed), into r. */
static void judge_run(const struct aide *a, const struct sandbox_result *res,
		      struct aide_result *r)
{
	char buf[256];
	const char *msg = "";
	size_t mlen = 0;
	if (res->ran && res->err)
		trimmed(res->err, res->err_len, &msg, &mlen);
	const char *why = stopped_why(res, a->prog->time_limit_ms, buf, sizeof(buf));
	if (why) {
		r->out = (struct checker_outcome){ V_IE, NAN, 0 };
	} else {
		checker_outcome_of(sandbox_exit_code(res), msg, mlen, a->prog->points_max, &r->out);
		/* FAIL says why in its message; a bare exit code is named. */
		snprintf(buf, sizeof(buf), "%.*s", (int)(mlen > 240 ? 240 : mlen), msg);
		if (!mlen)
			snprintf(buf, sizeof(buf), "exit code %d", sandbox_exit_code(res));
		why = buf;
	}
	if (r->out.verdict == V_IE)
		snprintf(r->why, sizeof(r->why), "%s failed: %s", a->title, why);
	r->json = result_json(res, &r->out, msg, mlen);
}

/* The spec every run of an aide shares: its program with testlib's
 * arguments, its own limits, the judge directory. */
static void aide_spec(struct judging *j, const struct aide *a, char *const *argv,
		      const char *dir, struct sandbox_spec *spec)
{
	long L = a->prog->time_limit_ms;
	*spec = (struct sandbox_spec){
		.lang = &a->lang,
		.command = a->lang.execute_cmd,
		.sh_argv = argv,
		.files = a->b.lower[0] ? NULL : a->sfiles,
		.n_files = a->b.lower[0] ? 0 : a->files.n,
		.lower = a->b.lower[0] ? a->b.lower : NULL,
		.timeout_ms = 5 * (L + 2000),   /* as a solution's (lanes.c) */
		.cpu_deadline_ms = L,
		.idle_deadline_ms = L + 2000,
		.setup_max_ms = JUDGE_SETUP_MAX_MS,
		.output_max = AIDE_OUT_MAX,
		.err_keep = AIDE_ERR_KEEP,
		.mem_max = (unsigned long long)a->prog->memory_limit_mb << 20,
		.data_dir = dir,
		.budget_end_ms = j->end_ms,
		.client = j->client,
	};
}

void aide_check(struct judging *j, unsigned k, const struct eval_test *t,
		const char *output, size_t len, struct aide_result *r)
{
	const struct aide *a = j->checker;
	char dir[4400];
	struct sandbox_result res;
	memset(r, 0, sizeof(*r));
	if (put_test(j, k, t, output ? output : "", output ? len : 0, dir, sizeof(dir)) < 0) {
		memset(&res, 0, sizeof(res));
		res.cpu_ms = res.memory_peak_kb = -1;
		fail(res.fault, sizeof(res.fault), "judge files errno=%d", errno);
	} else {
		char *argv[] = { "sh", "-c", a->lang.execute_cmd, a->files.v[0].name,
				 "/sandbox/judge/input", "/sandbox/judge/output",
				 "/sandbox/judge/answer", NULL };
		struct sandbox_spec spec;
		aide_spec(j, a, argv, dir, &spec);
		if (sandbox_run(engine_aide(j->e, k), &spec, &res) < 0)
			fprintf(stderr, "gaol: evaluate: checker: %s\n", res.fault);
	}
	judge_run(a, &res, r);
	sandbox_result_free(&res);
	clear_test(dir);
	j->gone = j->gone || res.client_gone;
}

/* ---- an interactive test ---- */

/* The keeper: runs the interactor with the relay's far ends, and writes
 * its result into memfd (struct, stderr, output file). */
static void __attribute__((noreturn)) keeper(struct judging *j, unsigned k,
					     const struct eval_test *t, long sol_idle_ms,
					     int in, int out, struct aide_pair *pr)
{
	const struct aide *a = j->interactor;
	char dir[4400];
	struct sandbox_result res;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* As a lane's child (lanes.c): no copy of the worker's sandbox built
	 * ahead, whose stdin would then never end. */
	sandbox_forget(&j->e->slot);
	if (put_test(j, k, t, NULL, 0, dir, sizeof(dir)) < 0)
		_exit(2);
	char *argv[] = { "sh", "-c", a->lang.execute_cmd, a->files.v[0].name,
			 "/sandbox/judge/input", "/sandbox/" INTERACTOR_FILE, NULL };
	struct sandbox_spec spec;
	aide_spec(j, a, argv, dir, &spec);
	spec.client = NULL;                  /* the lane watches it */
	spec.output_max = j->e->cfg.eval_output_max;   /* to the solution */
	/* The pair's CPU counts; a second longer than the solution's, so
	 * that a pair where neither runs is the solution's TLE. */
	spec.idle_deadline_ms = sol_idle_ms + 1000;
	spec.stdin_data = "";
	spec.relay = true;
	spec.relay_in = in;
	spec.relay_out = out;
	spec.output_file = INTERACTOR_FILE;
	spec.pair_cpu_us = pr->cpu;
	spec.pair_self = 1;
	if (sandbox_run(engine_aide(j->e, k), &spec, &res) < 0)
		res.ran = false;
	clear_test(dir);
	int fd = pr->memfd;
	bool ok = write_all(fd, (const char *)&res, sizeof(res)) == 0 &&
		  write_all(fd, res.err ? res.err : "", res.err_len) == 0 &&
		  write_all(fd, res.file ? res.file : "", res.file_len) == 0;
	_exit(ok ? 0 : 1);
}

int aide_pair_start(struct judging *j, unsigned k, const struct eval_test *t,
		    long sol_idle_ms, struct aide_pair *pr, struct aide_result *r)
{
	int to_int[2] = { -1, -1 }, to_sol[2] = { -1, -1 };
	memset(r, 0, sizeof(*r));
	memset(pr, 0, sizeof(*pr));
	pr->keeper = -1;
	pr->sol_in = pr->sol_out = -1;
	pr->memfd = memfd_create("gaol-interactor", MFD_CLOEXEC);
	void *m = mmap(NULL, 2 * sizeof(long long), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pr->cpu = m == MAP_FAILED ? NULL : m;
	if (pr->memfd < 0 || !pr->cpu || pipe2(to_int, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    pipe2(to_sol, O_CLOEXEC | O_NONBLOCK) < 0 || (pr->keeper = fork()) < 0) {
		snprintf(r->why, sizeof(r->why), "Interactor failed: it did not start (errno=%d)",
			 errno);
		close_fd(&to_int[0]), close_fd(&to_int[1]);
		close_fd(&to_sol[0]), close_fd(&to_sol[1]);
		return -1;
	}
	if (pr->keeper == 0) {
		close(to_int[1]);
		close(to_sol[0]);
		keeper(j, k, t, sol_idle_ms, to_int[0], to_sol[1], pr);
	}
	close(to_int[0]);
	close(to_sol[1]);
	pr->sol_in = to_sol[0];
	pr->sol_out = to_int[1];
	return 0;
}

/* The keeper's result out of the memfd: 0, or -1. */
static int keeper_result(int fd, struct sandbox_result *res)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(*res) ||
	    pread(fd, res, sizeof(*res), 0) != (ssize_t)sizeof(*res) ||
	    sizeof(*res) + res->err_len + res->file_len != (size_t)st.st_size) {
		memset(res, 0, sizeof(*res));
		return -1;
	}
	res->err = malloc(res->err_len + 1);
	res->file = malloc(res->file_len + 1);
	if (!res->err || !res->file ||
	    pread(fd, res->err, res->err_len, sizeof(*res)) != (ssize_t)res->err_len ||
	    pread(fd, res->file, res->file_len, (off_t)(sizeof(*res) + res->err_len)) !=
	    (ssize_t)res->file_len) {
		free(res->err);
		free(res->file);
		memset(res, 0, sizeof(*res));
		return -1;
	}
	res->err[res->err_len] = res->file[res->file_len] = 0;
	res->out = NULL;
	res->out_len = 0;
	return 0;
}

void aide_pair_end(struct judging *j, unsigned k, struct aide_pair *pr, bool kill_it,
		   struct aide_result *r)
{
	struct sandbox_result res;
	int status = 0;
	/* The solution's run closed its relay ends: the interactor sees its
	 * end, and ends; killed with it when the client left. */
	if (kill_it && pr->keeper > 0)
		kill(pr->keeper, SIGKILL);
	while (pr->keeper > 0 && waitpid(pr->keeper, &status, 0) < 0 && errno == EINTR)
		;
	/* The keeper used the slot's network namespace. */
	slot_spent(engine_aide(j->e, k));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    keeper_result(pr->memfd, &res) < 0) {
		memset(&res, 0, sizeof(res));
		res.cpu_ms = res.memory_peak_kb = -1;
		snprintf(res.fault, sizeof(res.fault), "its keeper ended with status %d", status);
	}
	judge_run(j->interactor, &res, r);
	r->file = res.file;
	r->file_len = res.file_len;
	res.file = NULL;
	if (res.ran && res.file_missing)
		r->file_len = 0;
	sandbox_result_free(&res);
	close_fd(&pr->memfd);
	close_fd(&pr->sol_in);
	close_fd(&pr->sol_out);
	if (pr->cpu)
		munmap((void *)pr->cpu, 2 * sizeof(long long));
	pr->cpu = NULL;
}
