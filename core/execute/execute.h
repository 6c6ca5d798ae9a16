/* SPDX-License-Identifier: Apache-2.0 */
/*
 * execute: POST /execute, gaol's plain run (docs/api.md, "POST /execute"),
 * and the lists beside it (GET /runtimes, GET /api/v2/packages).  A
 * request's files are compiled once by the language's `compile` recipe
 * (the compile cache keeps the result), then run once by its `execute`
 * recipe with the request's stdin and args: each stage a fresh sandbox
 * with its own limits and its own answer, in Piston's v2 shape.  Piston's
 * paths are the same handlers (fcgi/http.c); only the words differ.
 */
#ifndef GAOL_EXECUTE_H
#define GAOL_EXECUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "api/files.h"
#include "api/request.h"

struct engine;
struct answer;
struct gaol_config;
struct request_io;

/* One stage's limits; -1 where the request did not say. */
struct exec_limits {
	long timeout_ms;
	long cpu_ms;
	long long memory;        /* bytes; -1 also when asked: the ceiling */
};

struct exec_request {
	char *language;
	char *version;           /* "*" when absent */
	struct req_files files;
	struct blob stdin_data;  /* data NULL: empty */
	char **args;             /* NULL-terminated */
	size_t n_args;
	struct exec_limits compile, run;
	bool base64;             /* "output_encoding": "base64" */
};

#define EXEC_COMPILE_TIMEOUT_MS 10000   /* Piston's defaults */
#define EXEC_RUN_TIMEOUT_MS 3000

/* Parses an /execute body: 0, or -1 with the reason naming the field. */
int exec_request_parse(const struct gaol_config *cfg, const char *body, size_t len,
		       struct exec_request *r, char *err, size_t errlen);
void exec_request_free(struct exec_request *r);

/* POST /execute (and /api/v2/execute) with body[0..len). */
void engine_execute(struct engine *e, const char *body, size_t len,
		    const struct request_io *io, struct answer *a);
/* GET /runtimes (and /api/v2/runtimes): the installed languages that can
 * be executed, under Piston's names, with their real versions. */
void engine_runtimes(const struct engine *e, struct answer *a);
/* GET /api/v2/packages: every language, installed or not. */
void engine_packages(const struct engine *e, struct answer *a);
/* An error in both shapes: Piston's {"message"} and gaol's {"error"}. */
void answer_message(struct answer *a, int outcome, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
