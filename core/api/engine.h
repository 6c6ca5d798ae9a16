/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine: what one worker does for one request, without knowing HTTP.  The
 * adapter (fcgi/) hands it a body and gets back an outcome kind and a JSON
 * body; which HTTP status an outcome is, is fcgi/status.c's table alone.
 * Every answer, errors included, is JSON.
 */
#ifndef GAOL_ENGINE_H
#define GAOL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conf/config.h"
#include "lang/lang.h"
#include "run/sandbox.h"

/* Where an answer goes while it is made (POST /evaluate): the adapter's.
 * begin is called once, before the first byte, and fixes the status at
 * OUTCOME_OK; write returns -1 when the client is gone. */
struct answer_stream {
	void (*begin)(void *ctx);
	int (*write)(void *ctx, const char *data, size_t len);
	void *ctx;
};

/* What one request brings besides its body, passed with it and gone with
 * it (the engine keeps none of it).  Either may be NULL, and io itself. */
struct request_io {
	const struct answer_stream *stream;  /* stream /evaluate's answer */
	const struct client_watch *client;   /* stop when the client leaves */
	const char *query;       /* the query string ("a=1&b=2"), NULL: none */
	const char *path_arg;    /* a route's {id} or {token}, NULL: none */
	const char *route;       /* the route's path ("*": any one segment) */
};

struct engine {
	struct gaol_config cfg;
	struct lang_set langs;
	char **reach;            /* what a run reaches of the host (slot/prune.h):
				  * the langs' strings, NULL-ended */
	struct slot slot;        /* this worker's slot: lane 0 of judging */
	unsigned n_lanes;        /* lanes 1..n_lanes are taken */
	int cgroup_version;      /* 1 or 2: the service's, from engine_load */
	unsigned slot_index;     /* which slot engine_take_slot took */
	bool one_shot;           /* set before engine_take_run_slot by a process
				  * that runs once and exits (gaol-run) */
	/* Last: engine_load leaves them as they are (engine.c). */
	struct slot lanes[EVAL_PARALLEL_MAX - 1]; /* judging lanes 1..: read
				  * them through engine_lane, never by index */
};

/* What kind of answer a request gets.  The engine gives the first five;
 * the adapter (fcgi/http.c) the rest, about the transport. */
enum outcome {
	OUTCOME_OK,              /* carried out: the answer says what happened */
	OUTCOME_BAD_REQUEST,     /* malformed, or asks what is not there */
	OUTCOME_INVALID,         /* /evaluate: well-formed, but not judgeable */
	OUTCOME_TOO_LARGE,       /* the body, or an output, over its cap */
	OUTCOME_FAULT,           /* the service failed (no sandbox, no memory) */
	OUTCOME_NOT_FOUND,       /* no such path */
	OUTCOME_WRONG_METHOD,    /* a path without this method */
	OUTCOME_NO_LENGTH,       /* a body without Content-Length */
	OUTCOME_WRONG_MEDIA,     /* an encoding or a type the engine cannot read */
	OUTCOME_STOPPING,        /* the pool is shutting down */
	OUTCOME_CREATED,         /* carried out, a resource made (Judge0's 201) */
};

struct answer {
	enum outcome outcome;
	char *body;              /* JSON, malloc'd */
	size_t len;
	bool streamed;           /* the answer went out through io->stream;
				  * body is its summary for the request log
				  * (compile, and each result's verdict and
				  * measurements), not sent */
};

/* Reads config and languages and prepares the service's cgroup: once, in the
 * master before the workers fork.  -1 with err on a start-up fault (bad
 * variable, unreadable manifest, no usable cgroup). */
int engine_load(struct engine *e, char *err, size_t errlen);
/* engine_load for a process that serves one request (a one-shot gaol-run):
 * the languages' manifests alone; a language's probe, commands and
 * fingerprint are read when a request names it (engine_lang_ready). */
int engine_load_one_shot(struct engine *e, char *err, size_t errlen);
/* Before lang (one of e->langs) serves a request: its probe, commands and
 * fingerprint, when engine_load_one_shot left them.  0, or -1 with err
 * (what engine_load would have refused to start with). */
int engine_lang_ready(struct engine *e, const struct lang *lang, char *err, size_t errlen);
/* Takes slot slot_index (and its judging lanes) for this process.  -1 with
 * err when the slot's sandbox parts cannot be prepared. */
int engine_take_slot(struct engine *e, unsigned slot_index, char *err, size_t errlen);
/* engine_take_slot in two steps, for a process that may never judge (a
 * one-shot gaol-run /run): the slot alone, for engine_run; then, before an
 * engine_evaluate, its judging lanes (each a cgroup, a network namespace
 * and a seccomp program).  -1 with err, as engine_take_slot. */
int engine_take_run_slot(struct engine *e, unsigned slot_index, char *err, size_t errlen);
int engine_take_lanes(struct engine *e, char *err, size_t errlen);
/* Gives the slot back (its cgroups are removed when empty). */
void engine_release_slot(struct engine *e);
/* engine_load and engine_take_slot in one, for a single process. */
int engine_init(struct engine *e, unsigned slot_index, char *err, size_t errlen);
void engine_free(struct engine *e);
/* engine_free for a process that exits next (a one-shot gaol-run): the
 * last run's init is killed rather than waited for (sandbox_release_now);
 * the slot's cgroups still go before it returns. */
void engine_free_now(struct engine *e);

/* Judging lane k: 0 is the worker's slot, 1.. its lanes' own. */
struct slot *engine_lane(struct engine *e, unsigned k);

/* A body over RUN_INPUT_MAX: answers OUTCOME_TOO_LARGE and returns true
 * (for /run and /evaluate alike). */
bool engine_body_too_large(const struct engine *e, size_t len, struct answer *a);

/* POST /run with body[0..len). */
void engine_run(struct engine *e, const char *body, size_t len,
		const struct request_io *io, struct answer *a);
/* Work between requests, after the answer went out: fresh network
 * namespaces for the next runs, and the next run's sandbox built as far as
 * no request decides it. */
void engine_idle(struct engine *e);
/* GET /health: cheap, never starts a sandbox. */
void engine_health(const struct engine *e, struct answer *a);

/* Fail closed: reads the host's kernel features, builds one real sandbox
 * and checks each mechanism from inside it, one line per mechanism on out
 * ("ok name" / "missing name: why").  Returns the number missing. */
int engine_selfcheck(struct engine *e, FILE *out);

struct json_object;
/* obj (consumed) as the body, with outcome. */
void answer_json(struct answer *a, enum outcome outcome, struct json_object *obj);
/* {"error": "<formatted reason>"} with outcome. */
void answer_error(struct answer *a, enum outcome outcome, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void answer_free(struct answer *a);

#endif
