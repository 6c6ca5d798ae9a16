/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge: POST /evaluate (docs/api.md, "POST /evaluate"; docs/design.md,
 * "Judging").  A program is built once in
 * its own sandbox (or found in the compile cache), then each test case runs in
 * a fresh sandbox whose lower layers are the language directory and the
 * build's output, a few at once on the worker's lanes.  The time limit is CPU
 * time read from the run's cgroup; the verdict is decided on the measurement
 * after the run.  The pure parts (request, comparison, verdict) are exposed
 * for the unit tests.
 */
#ifndef GAOL_JUDGE_H
#define GAOL_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "api/files.h"
#include "api/request.h"
#include "run/sandbox.h"

struct engine;
struct answer;
struct request_io;

struct eval_test {
	struct blob input;
	struct blob expected;
};

/* A checker's or an interactor's program (docs/api.md, "Checkers and
 * interactors"): its own language, files and limits. */
struct eval_program {
	bool given;
	char *language;
	struct blob code;            /* the entry point */
	struct req_files files;      /* beside it (none: n 0) */
	long time_limit_ms;          /* CPU time per test */
	long memory_limit_mb;
	double points_max;           /* a checker's: points / points_max is the
				      * score; 0: none given */
};

#define EVAL_AIDE_TIME_DEFAULT_MS 10000
#define EVAL_AIDE_MEMORY_DEFAULT_MB 256

struct eval_request {
	struct blob code;
	char *language;
	struct eval_test *tests;
	size_t n_tests;
	long time_limit_ms;          /* CPU time per test; default 2000 */
	long wall_time_limit_ms;     /* wall clock per test; 0: none asked */
	bool tokens;                 /* "comparison": "tokens" */
	long memory_limit_mb;        /* 0: the language's memory limit */
	bool file_io;                /* input_mode (or input_type) "file" */
	char *input_file;            /* file I/O names, plain file names */
	char *output_file;
	struct req_files files;      /* more source files beside the solution */
	struct req_files solution_files; /* the code first, then files, named
				      * (judge.c, when files were given) */
	struct eval_program checker, interactor;
};

#define EVAL_TIME_LIMIT_DEFAULT_MS 2000
#define EVAL_TIME_LIMIT_MAX_MS 60000
#define EVAL_MEMORY_MIN_MB 8
#define EVAL_MEMORY_MAX_MB 16384
#define EVAL_TESTS_MAX_DEFAULT 1000   /* RUN_EVAL_TESTS_MAX's default */

/* Parses an /evaluate body of at most tests_max test cases
 * (RUN_EVAL_TESTS_MAX).  Returns 0, or -1 with the reason (OUTCOME_INVALID). */
int eval_request_parse(const char *body, size_t len, size_t tests_max, size_t files_max,
		       struct eval_request *r, char *err, size_t errlen);
/* The request's files with code first, named (files_name) with entry:
 * the one list a build writes and the compile cache keys.  0, or -1 with
 * err naming `what` ("files", "checker.files"). */
int eval_files_with(const struct blob *code, const struct req_files *more,
		    const char *entry, const char *what, struct req_files *out,
		    char *err, size_t errlen);
void eval_request_free(struct eval_request *r);

/* Output compared as it streams: leading and trailing whitespace are ignored
 * and CRLF and a lone CR equal LF (README, "POST /evaluate"); in token mode
 * any run of whitespace equals any other. */
struct compare {
	char *expected;              /* normalised: CRLF, CR -> LF, trimmed */
	size_t len;
	size_t pos;
	bool started;                /* past the actual output's leading blanks */
	bool pending_cr;
	bool tokens;
	bool pending_space;          /* tokens: blanks seen since the last token */
	bool differs;
};

int compare_init(struct compare *c, const char *expected, size_t len);
int compare_init_mode(struct compare *c, const char *expected, size_t len, bool tokens);
/* Returns 1 at the first difference (and from then on), else 0. */
int compare_feed(struct compare *c, const char *buf, size_t len);
/* Whether everything fed equals the expected output. */
bool compare_finish(struct compare *c);
void compare_free(struct compare *c);
/* The whole comparison at once, for output files. */
bool compare_equal(const char *expected, size_t elen, const char *actual, size_t alen);
bool compare_equal_mode(const char *expected, size_t elen, const char *actual, size_t alen,
			bool tokens);
/* CRLF and a lone CR made LF in place; the new length. */
size_t compare_newlines(char *s, size_t len);

enum verdict { V_OK, V_WA, V_TLE, V_MLE, V_RE, V_OLE, V_CE, V_IE, V_PE, V_PC };

/* What a checker's (or an interactor's) exit and message say, testlib's
 * way (docs/api.md, "Checkers and interactors"). */
struct checker_outcome {
	enum verdict verdict;        /* OK, WA, PE, PC, or IE: it failed */
	double points;               /* a points answer's number, else NAN */
	double score;                /* 0..1 */
};
/* exit_code: as a shell gives it (-1: it did not end by itself); msg its
 * stderr; points_max the request's (0: none). */
void checker_outcome_of(int exit_code, const char *msg, size_t len, double points_max,
			struct checker_outcome *out);
/* The error of a test never started because its request's
 * wall-clock budget was spent (verdict TLE). */
#define VERDICT_BUDGET_ERROR "Time Limit Exceeded: the request's budget (RUN_REQUEST_BUDGET) was spent"


const char *verdict_name(enum verdict v);
/* Decided on the measurement, after the run (docs/design.md, "Judging"). */
enum verdict verdict_of(const struct sandbox_result *r, long limit_ms,
			bool output_equal);
/* docker-evaluator's details string: "OK (12ms)", "Runtime Error (exit code 1)".
 * r may be NULL for CE and IE, which measured nothing. */
void verdict_details(enum verdict v, const struct sandbox_result *r, char *out,
		     size_t len);

/* The entry point's name of a program in lang's /execute recipes: the
 * language's execute_file, or Java's public class. */
void judge_entry_name(const struct lang *lang, const char *code, char *out, size_t len);
struct cache_key;
struct sandbox_file;
/* The compile cache's key of files built by compile_cmd (lang's `compile`
 * recipe, or a front's: POST /execute's, Judge0's, a checker's or an
 * interactor's), with a front's own part (extra, or NULL): 0, or -1. */
int judge_files_key(struct cache_key *key, const struct lang *lang, const char *compile_cmd,
		    const char *extra, const struct sandbox_file *files, size_t n);

/* Start-up sweep of what a crashed predecessor left in the state directory:
 * the compile cache's half-done builds.  Slot cgroups are swept as each
 * slot is taken. */
void engine_sweep(const struct engine *e);

/* POST /evaluate with body[0..len). */
void engine_evaluate(struct engine *e, const char *body, size_t len,
		     const struct request_io *io, struct answer *a);

#endif
