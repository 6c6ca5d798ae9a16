/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stages: /execute's compile and run stages, for the fronts built on them
 * (POST /execute itself, Judge0's API in core/judge0/): one request's
 * execution, its compile stage (the compile cache keeps its output), and
 * any number of run stages over that output, each a fresh sandbox of the
 * engine's slot.  A front fills struct execution, calls exec_compile once
 * and exec_run as often as it needs, then exec_end; it reads each stage's
 * raw result (the sandbox's, and the output interleaved as read) and words
 * it its own way.
 */
#ifndef GAOL_EXECUTE_STAGES_H
#define GAOL_EXECUTE_STAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "api/engine.h"
#include "execute/execute.h"

/* One stage's outcome: the sandbox's result and both streams interleaved
 * as they were read (what a 2>&1 would have written). */
struct exec_stage {
	struct sandbox_result res;
	char *output;
	size_t output_len, output_cap;
};

/* One request's execution: what its stages share.  The front sets what is
 * above the line; exec_prepare and the stages the rest. */
struct execution {
	struct engine *e;
	const struct client_watch *client;  /* the request's: stop when it leaves */
	struct lang lang;        /* the language, its workdir "src" */
	const struct exec_request *req;
	const char *compile_cmd; /* NULL: the language's compile recipe */
	const char *execute_cmd; /* NULL: the language's execute recipe */
	const char *key_extra;   /* more of the compile-cache key (what
				  * compile_cmd adds to the recipe); NULL: none */
	size_t output_max;       /* each stream's cap in a run; 0:
				  * RUN_EXECUTE_OUTPUT_MAX */
	bool stderr_to_stdout;   /* a run's fd 2 is its fd 1 (plan/spec.h) */
	/* ---- */
	struct sandbox_file *files;
	long end_ms;             /* RUN_REQUEST_BUDGET */
	unsigned long long compile_mem, run_mem;
	char lower[4400];        /* the compile stage's output, "" when none */
	int pin;
	char uncached[4400];
	bool cached;             /* the compile stage was a cache hit */
};

/* The entry point's name when the request gave none: a Java file's public
 * class (f is the first file), else the language's execute_file. */
void exec_entry_name(const struct lang *lang, const struct req_file *f, char *out,
		     size_t len);
/* The sandbox files of x->req's (named) files, the budget's end, no pin:
 * 0, or -1 when there is no memory. */
int exec_prepare(struct execution *x);
/* The compile stage: 1 built (or a cache hit: x->cached, and st->res.ran
 * false), 0 it failed (st says how), -1 a fault of the service (fault). */
int exec_compile(struct execution *x, struct exec_stage *st, char *fault, size_t faultlen);
/* One run of the execute recipe over the compile stage's output (or the
 * files) with the request's stdin and args, limits lim and memory mem:
 * 0 with st, -1 with the fault. */
int exec_run(struct execution *x, const struct exec_limits *lim, unsigned long long mem,
	     struct exec_stage *st, char *fault, size_t faultlen);
void exec_stage_free(struct exec_stage *st);
/* s[0..len) in base64 (RFC 4648, padded) as a JSON string. */
struct json_object *exec_base64(const char *s, size_t len);
/* Gives back what the stages kept (the cache pin, an uncached build). */
void exec_end(struct execution *x);

#endif
