/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge0: Judge0's API (github.com/judge0/judge0, docs/api/) as a front
 * of gaol's one engine (docs/api.md, "Judge0's API").  A submission is
 * translated into an /execute request (core/execute/): the language's
 * compile recipe once (the compile cache keeps it), then its execute recipe
 * number_of_runs times; expected_output is compared as Judge0 compares it.
 * The answer is translated back into Judge0's fields and its 14 statuses.
 * No second engine: the sandbox, limits, accounting and cleanup are
 * /execute's.
 *
 * It owns: the language ids (each lang.json's `judge0` key), the
 * submission's validation and defaults (Judge0's config_info, each an
 * operator setting), the statuses, the result's fields and their encoding
 * (base64_encoded, fields), and the synchronous routes (wait=true, the
 * lists, the information pages).  The queue, tokens, GET/DELETE of a
 * token, batches and callbacks are the asynchronous side's, which calls
 * the three steps below: judge0_job_make, judge0_run, judge0_format.
 *
 * Two JSON objects travel between the steps, both plain JSON text that a
 * queue may write to disk and read back:
 *
 * - a JOB: one submission, validated, with every default filled in:
 *     "language_id" (int), "source_code", "stdin", "expected_output",
 *     "additional_files" (strings holding BASE64 of the bytes, whatever
 *     base64_encoded was: a job holds any bytes and is still valid JSON;
 *     expected_output and additional_files null when absent),
 *     "compiler_options", "command_line_arguments", "callback_url" (plain
 *     strings, or null), "number_of_runs", "cpu_time_limit",
 *     "cpu_extra_time", "wall_time_limit" (numbers, seconds),
 *     "memory_limit", "stack_limit", "max_file_size" (ints, KB),
 *     "max_processes_and_or_threads" (int), and the booleans
 *     "enable_per_process_and_thread_time_limit",
 *     "enable_per_process_and_thread_memory_limit",
 *     "redirect_stderr_to_stdout", "enable_network" (always false), and
 *     "language" ({"id", "name"}: Judge0's name with the real version).
 *   The asynchronous side may add "token" (string) and "created_at"
 *   (Judge0's time format, "2026-12-04T18:41:00.123Z") before running it;
 *   any other key it adds is kept too and copied into the result.
 *
 * - a RESULT: the job's keys, plus the run's: "stdout", "stderr",
 *   "compile_output" (base64 of the bytes, or null when empty, as Judge0
 *   leaves them), "message" (plain text or null), "exit_code",
 *   "exit_signal" (int or null), "status" ({"id", "description"}),
 *   "time", "wall_time" (strings of seconds, "0.002", as Judge0's
 *   decimals serialise; null when nothing ran), "memory" (int KB or
 *   null), "finished_at" and gaol's own
 *   "gaol_verdict" ("OK", "WA", "TLE", "MLE", "RE", "CE", "OLE", "IE":
 *   what gaol's /execute or /evaluate would have said; a memory-limit kill
 *   is Judge0's "Runtime Error (Other)" / SIGKILL, and "MLE" here).
 *   Every byte field is base64 for the reason a job's are: stdout may be
 *   any bytes.  It is still "raw" in the sense that matters: the whole
 *   result, not filtered by fields, not yet in the client's encoding;
 *   judge0_format makes the client's view of it.
 */
#ifndef GAOL_JUDGE0_H
#define GAOL_JUDGE0_H

#include <stdbool.h>
#include <stddef.h>

struct engine;
struct answer;
struct client_watch;
struct json_object;
struct lang;
struct lang_judge0;
struct request_io;

/* Judge0's statuses (app/enumerations/status.rb), by id. */
enum judge0_status {
	JUDGE0_IN_QUEUE = 1,
	JUDGE0_PROCESSING = 2,
	JUDGE0_ACCEPTED = 3,
	JUDGE0_WRONG_ANSWER = 4,
	JUDGE0_TIME_LIMIT = 5,
	JUDGE0_COMPILATION_ERROR = 6,
	JUDGE0_SIGSEGV = 7,
	JUDGE0_SIGXFSZ = 8,
	JUDGE0_SIGFPE = 9,
	JUDGE0_SIGABRT = 10,
	JUDGE0_NZEC = 11,
	JUDGE0_OTHER = 12,
	JUDGE0_INTERNAL_ERROR = 13,
	JUDGE0_EXEC_FORMAT_ERROR = 14,
};
#define JUDGE0_STATUS_MAX 14

/* "Accepted" for 3; NULL for an id that is none of the 14. */
const char *judge0_status_name(int id);

/* The language answering Judge0 id id (installed or not), and its entry
 * (entry may be NULL); NULL when no language maps it. */
const struct lang *judge0_lang(const struct engine *e, int id, const struct lang_judge0 **entry);

/* The query parameters every route reads, as Judge0 reads them. */
struct judge0_query {
	bool base64_encoded;     /* base64_encoded=true (default false) */
	bool wait;               /* wait=true (default false) */
	char fields[512];        /* fields=, decoded; "" when absent */
	char tokens[4096];       /* tokens= (batch GET), decoded; "" when absent */
};

/* Parses a query string ("a=1&b=2", percent-decoded here; NULL or "" for
 * none) into *q; unknown parameters are ignored, as Rails ignores them.
 * A fields list naming a field Judge0 does not have is refused as Judge0
 * refuses it: -1 with a answered 400 {"error": "invalid fields: [x, y]"}.
 * 0 otherwise. */
int judge0_query_parse(const char *query, struct judge0_query *q, struct answer *a);

/* Validates one submission (sub, borrowed: the body's object, or one
 * element of a batch's "submissions") and fills in the defaults.
 * base64_encoded: source_code, stdin and expected_output are base64 and
 * decoded here (additional_files is base64 always).  Reads nothing from
 * disk and runs nothing, so it is cheap enough for a batch.
 *  0: *job is the new job (json_object_put it).
 * -1: *errors is Judge0's validation object, {"field": ["message", ...],
 *     ...}, which the caller answers 422 (or puts in a batch's array).
 * -2: no memory; nothing set. */
int judge0_job_make(struct engine *e, struct json_object *sub, bool base64_encoded,
		    struct json_object **job, struct json_object **errors);

/* judge0_job_make for a whole body[0..len): a body that is not one JSON
 * object is answered 400 {"error": ...}, a refused submission 422 with the
 * validation object; both in *a, returning -1.  0 with *job. */
int judge0_job_parse(struct engine *e, const char *body, size_t len, bool base64_encoded,
		     struct json_object **job, struct answer *a);

/* Runs job (borrowed) on this process's slot (e->slot), as /execute runs:
 * additional_files unpacked inside the run's sandbox, the compile stage
 * (cached), then number_of_runs runs with the job's limits (gaol's
 * ceilings win where lower), each compared with expected_output when it
 * is given; it stops at the first run that is not Accepted, as Judge0
 * does, and time and memory are the runs' means.  client: stop when it
 * leaves (wait=true); NULL for queued work, which has no client.
 * Returns the new RESULT (see above): always one, a fault of the service
 * included (status 13 "Internal Error", its reason in "message"); NULL
 * only when there is no memory for it. */
struct json_object *judge0_run(struct engine *e, const struct json_object *job,
			       const struct client_watch *client);

/* The RESULT-shaped view of a job not yet finished: the job's keys, the
 * run's fields null, status 1 "In Queue" or 2 "Processing" (status_id).
 * NULL when there is no memory. */
struct json_object *judge0_pending(const struct json_object *job, int status_id);

enum judge0_format_rc {
	JUDGE0_FORMAT_OK = 0,
	JUDGE0_FORMAT_NO_MEMORY = -1,
	/* base64_encoded was false and a byte field is not UTF-8: Judge0
	 * answers {"error": "some attributes for this submission cannot be
	 * converted to UTF-8, use base64_encoded=true query parameter"} (400
	 * on GET, 201 with "token" beside it on POST ... wait=true);
	 * judge0_conversion_error makes that body. */
	JUDGE0_FORMAT_NOT_UTF8 = -2,
};

/* A RESULT (or judge0_pending's view; borrowed) as a client sees it: only
 * the fields asked ("" Judge0's default list: token, time, memory,
 * stdout, stderr, compile_output, message, status; "*" every field; the
 * list already checked by judge0_query_parse), byte fields in base64 when
 * base64_encoded, else as text.  The same for GET, batch GET, wait=true
 * and callbacks (which Judge0 sends with base64_encoded true and the
 * default fields).  *out is a new object on JUDGE0_FORMAT_OK. */
enum judge0_format_rc judge0_format(const struct json_object *result, const char *fields,
				    bool base64_encoded, struct json_object **out);
/* Judge0's conversion error body; with "token" when token is not NULL. */
struct json_object *judge0_conversion_error(const char *token);

/* ---- the synchronous routes (fcgi/http.c calls them) ----
 * io->query is the request's query string, io->path_arg the {id} or
 * {token} of a route with one. */

/* What the asynchronous side does with a wait=true submission, as Judge0
 * keeps every submission: a token of this host before it runs (stamp: 0,
 * or -1 when none could be made), its result kept under it after (keep),
 * so that GET and DELETE of the token answer as for a queued one. */
struct judge0_keeper {
	int (*stamp)(const struct engine *e, struct json_object *job);
	void (*keep)(const struct engine *e, const char *token, struct json_object *result);
};

/* POST /submissions?wait=true: judge0_job_parse, judge0_run, judge0_format,
 * answered 201 as Judge0 answers it.  With wait false (Judge0's default)
 * this needs the queue: the asynchronous side's handler takes the route
 * and calls this one only for wait=true, with its keeper (NULL: the token
 * is a random UUID, nothing kept). */
void judge0_submit_wait(struct engine *e, const char *body, size_t len,
			const struct request_io *io, const struct judge0_keeper *keeper,
			struct answer *a);
/* POST /submissions: its query read, then wait=true is judge0_submit_wait;
 * wait=false (Judge0's default) needs the queue (the asynchronous side's,
 * which replaces this branch). */
void judge0_submit(struct engine *e, const char *body, size_t len,
		   const struct request_io *io, struct answer *a);
/* Any GET route below, by io->route (the route table's path). */
void judge0_get(struct engine *e, const struct request_io *io, struct answer *a);
/* GET /languages: one id per installed language, the newest Judge0 id
 * mapped to it, named with the toolchain's real version. */
void judge0_languages(struct engine *e, const struct request_io *io, struct answer *a);
/* GET /languages/all: every mapped id, with "is_archived". */
void judge0_languages_all(struct engine *e, const struct request_io *io, struct answer *a);
/* GET /languages/{id}: the language's full record; 404 as Judge0's. */
void judge0_language(struct engine *e, const struct request_io *io, struct answer *a);
/* GET /statuses: the 14, [{"id", "description"}]. */
void judge0_statuses(struct engine *e, const struct request_io *io, struct answer *a);
/* GET /about, /version, /config_info, /system_info, /workers: Judge0's
 * information pages, with gaol's figures. */
void judge0_about(struct engine *e, const struct request_io *io, struct answer *a);
void judge0_version(struct engine *e, const struct request_io *io, struct answer *a);
void judge0_config_info(struct engine *e, const struct request_io *io, struct answer *a);
void judge0_system_info(struct engine *e, const struct request_io *io, struct answer *a);
void judge0_workers(struct engine *e, const struct request_io *io, struct answer *a);

#endif
