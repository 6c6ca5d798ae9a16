/* SPDX-License-Identifier: Apache-2.0 */
/*
 * async: Judge0's asynchronous routes (see async.h).  Judge0's answers,
 * from its submissions controller and docs/api/submissions/ pages:
 * - POST /submissions (wait=false, Judge0's default): 201 {"token"}; the
 *   queue past RUN_QUEUE_MAX: 503 {"error": "queue is full"} (the pool's
 *   stop is 503 "shutting down": a client can tell them apart).
 * - GET /submissions/{token}: 200 with the submission (status 1 In Queue,
 *   2 Processing, or its result), 404 for a token this host does not hold.
 * - DELETE: only a finished submission (400 for status 1 or 2), answered
 *   with base64_encoded forced true, as Judge0 does.
 * - batches: at most RUN_BATCH_MAX, at least one (400 otherwise); created
 *   201 with a token or the validation errors per element (422 when no
 *   element was valid); shown as {"submissions": [...]}, null for a token
 *   not held here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "async.h"
#include "metrics.h"
#include "judge0/judge0.h"
#include "queue/callback.h"
#include "queue/queue.h"
#include "util/util.h"

static struct queue queue;      /* opened once by the master, like the config */
static bool queue_opened;

struct queue *async_queue(void)
{
	return queue_opened ? &queue : NULL;
}

int async_start(const struct engine *e, char *err, size_t errlen)
{
	int n;

	if (queue_open(&queue, e->cfg.queue_dir, e->cfg.host_id, err, errlen) < 0)
		return -1;
	n = queue_recover(&queue, true, err, errlen);
	if (n > 0)
		fprintf(stderr, "gaol-fcgi: queue: %d submission(s) running when the "
			"service last stopped are queued again\n", n);
	queue_opened = true;
	return 0;
}

void async_recover(void)
{
	char err[256];
	int n;

	if (!queue_opened)
		return;
	n = queue_recover(&queue, false, err, sizeof err);
	if (n > 0)
		fprintf(stderr, "gaol-fcgi: queue: %d submission(s) of a dead worker "
			"queued again\n", n);
}

bool async_serves_queue(const struct gaol_config *cfg, unsigned slot)
{
	return slot + cfg->queue_slots >= cfg->concurrency;
}

/* Judge0's time format: "2026-12-04T18:41:00.123Z". */
static void judge0_now(char *out, size_t size)
{
	struct timeval tv;
	struct tm tm;
	char day[32];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, size, "%s.%03ldZ", day, (long)(tv.tv_usec / 1000));
}

/* The validation errors of a callback_url this host may not call, or NULL
 * when it may (or there is none). */
static struct json_object *callback_refused(const struct engine *e,
					    struct json_object *job)
{
	struct json_object *url, *errors, *list;
	char why[512];

	if (!json_object_object_get_ex(job, "callback_url", &url) ||
	    !json_object_is_type(url, json_type_string))
		return NULL;
	if (callback_allowed(e->cfg.callback_allow, json_object_get_string(url), why,
			     sizeof why))
		return NULL;
	errors = json_object_new_object();
	list = json_object_new_array();
	json_object_array_add(list, json_object_new_string(why));
	json_object_object_add(errors, "callback_url", list);
	return errors;
}

/* Gives job a token and a creation time; its text for the queue in *text
 * (malloc'd) unless text is NULL.  -1 when there is no memory or
 * randomness. */
static int stamp(const struct engine *e, struct json_object *job,
		 char token[TOKEN_LEN + 1], char **text, size_t *len)
{
	char now[40];
	const char *s;

	if (token_new(e->cfg.host_id, token) < 0)
		return -1;
	judge0_now(now, sizeof now);
	json_object_object_add(job, "token", json_object_new_string(token));
	json_object_object_add(job, "created_at", json_object_new_string(now));
	if (!text)
		return 0;
	s = json_object_to_json_string_length(job, JSON_C_TO_STRING_PLAIN, len);
	*text = s ? strdup(s) : NULL;
	return *text ? 0 : -1;
}

/* A wait=true submission's token, of this host as a queued one's. */
static int keeper_stamp(const struct engine *e, struct json_object *job)
{
	char token[TOKEN_LEN + 1];

	return stamp(e, job, token, NULL, NULL);
}

/* Its result kept: GET and DELETE of its token work as for a queued one. */
static void keeper_keep(const struct engine *e, const char *token,
			struct json_object *result)
{
	size_t len = 0;
	const char *text = json_object_to_json_string_length(result, JSON_C_TO_STRING_PLAIN,
							     &len);
	char err[256];

	(void)e;
	if (text && queue_keep(&queue, token, text, len, err, sizeof err) < 0)
		fprintf(stderr, "gaol-fcgi: %s\n", err);
}

static const struct judge0_keeper keeper = { keeper_stamp, keeper_keep };

/* Queues jobs[0..n) (stamped), answering a fault or a full queue in a:
 * 0 queued, -1 answered. */
static int enqueue(const struct engine *e, char (*tokens)[TOKEN_LEN + 1],
		   char **texts, const size_t *lens, size_t n, struct answer *a)
{
	char err[256];
	int rc;

	if (!queue_opened) {
		answer_error(a, OUTCOME_FAULT, "queue: not open (see the start-up log)");
		return -1;
	}
	rc = queue_put(&queue, tokens, texts, lens, n, e->cfg.queue_max, err, sizeof err);
	if (rc == 1)
		answer_error(a, OUTCOME_STOPPING, "queue is full");
	else if (rc < 0)
		answer_error(a, OUTCOME_FAULT, "%s", err);
	return rc == 0 ? 0 : -1;
}

/* wait=false needs a worker that serves the queue. */
static bool refuse_without_queue(const struct engine *e, struct answer *a)
{
	if (e->cfg.queue_slots)
		return false;
	answer_error(a, OUTCOME_STOPPING, "asynchronous submissions are off on this "
		     "server (RUN_QUEUE_SLOTS=0): use wait=true");
	return true;
}

enum http_after async_submit(struct engine *e, const char *body, size_t len,
			     const struct request_io *io, struct answer *a)
{
	struct judge0_query q;
	struct json_object *job = NULL, *errors, *reply;
	char token[TOKEN_LEN + 1], *text = NULL;
	size_t tlen = 0;

	if (judge0_query_parse(io->query, &q, a) < 0)
		return HTTP_AFTER_NOTHING;
	if (q.wait) {
		judge0_submit_wait(e, body, len, io, queue_opened ? &keeper : NULL, a);
		return HTTP_AFTER_NOTHING;
	}
	if (refuse_without_queue(e, a) ||
	    judge0_job_parse(e, body, len, q.base64_encoded, &job, a) < 0)
		return HTTP_AFTER_NOTHING;
	if ((errors = callback_refused(e, job))) {
		answer_json(a, OUTCOME_INVALID, errors);
	} else if (stamp(e, job, token, &text, &tlen) < 0) {
		answer_error(a, OUTCOME_FAULT, "no memory for the submission");
	} else if (enqueue(e, &token, &text, &tlen, 1, a) == 0) {
		reply = json_object_new_object();
		json_object_object_add(reply, "token", json_object_new_string(token));
		answer_json(a, OUTCOME_CREATED, reply);
	}
	free(text);
	json_object_put(job);
	return HTTP_AFTER_NOTHING;
}

/* A batch's size, as Judge0 checks it (400 answered in a): 0 when fine. */
static int batch_size_ok(const struct engine *e, size_t n, struct answer *a)
{
	if (n > e->cfg.batch_max)
		answer_error(a, OUTCOME_BAD_REQUEST, "number of submissions in a batch "
			     "should be less than or equal to %u", e->cfg.batch_max);
	else if (n == 0)
		answer_error(a, OUTCOME_BAD_REQUEST, "there should be at least one "
			     "submission in a batch");
	return n == 0 || n > e->cfg.batch_max ? -1 : 0;
}

/* A batch being created: each element's job (or NULL) and reply. */
struct batch {
	size_t n, valid;
	struct json_object *reply;              /* the answer's array */
	char (*tokens)[TOKEN_LEN + 1];          /* of the valid ones, in order */
	char **texts;
	size_t *lens;
};

static void batch_free(struct batch *b)
{
	for (size_t i = 0; b->texts && i < b->valid; i++)
		free(b->texts[i]);
	free(b->tokens);
	free(b->texts);
	free(b->lens);
	json_object_put(b->reply);
}

/* One element: its token queued with the others, or its errors. */
static int batch_add(struct engine *e, struct batch *b, struct json_object *sub,
		     bool base64)
{
	struct json_object *job = NULL, *errors = NULL, *item;
	int rc = json_object_is_type(sub, json_type_object) ?
		 judge0_job_make(e, sub, base64, &job, &errors) : -3;

	if (rc == -2)
		return -1;
	if (rc == -3) {
		errors = json_object_new_object();
		json_object_object_add(errors, "submission", json_object_new_string(
			"is not a JSON object"));
	}
	if (rc == 0 && !(errors = callback_refused(e, job))) {
		size_t k = b->valid;
		if (stamp(e, job, b->tokens[k], &b->texts[k], &b->lens[k]) < 0) {
			json_object_put(job);
			return -1;
		}
		b->valid++;
		item = json_object_new_object();
		json_object_object_add(item, "token", json_object_new_string(b->tokens[k]));
	} else {
		item = errors;
	}
	json_object_put(job);
	json_object_array_add(b->reply, item);
	return 0;
}

/* The body's "submissions" array (borrowed from root), or NULL answered. */
static struct json_object *batch_parse(const char *body, size_t len,
				       struct json_object **root, struct answer *a)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *subs = NULL;

	*root = tok ? json_tokener_parse_ex(tok, body, (int)len) : NULL;
	if (tok && (!*root || json_tokener_get_parse_end(tok) != len ||
		    !json_object_is_type(*root, json_type_object))) {
		json_object_put(*root);
		*root = NULL;
	}
	json_tokener_free(tok);
	if (!*root) {
		answer_error(a, OUTCOME_BAD_REQUEST, "the body is not a JSON object");
		return NULL;
	}
	if (!json_object_object_get_ex(*root, "submissions", &subs) ||
	    !json_object_is_type(subs, json_type_array))
		subs = NULL;
	return subs;
}

enum http_after async_batch_create(struct engine *e, const char *body, size_t len,
				   const struct request_io *io, struct answer *a)
{
	struct judge0_query q;
	struct json_object *root, *subs;
	struct batch b = { 0 };
	size_t n;

	if (judge0_query_parse(io->query, &q, a) < 0 || refuse_without_queue(e, a))
		return HTTP_AFTER_NOTHING;
	if (len > (size_t)INT32_MAX) {
		answer_error(a, OUTCOME_TOO_LARGE, "body too large");
		return HTTP_AFTER_NOTHING;
	}
	subs = batch_parse(body, len, &root, a);
	if (!root)
		return HTTP_AFTER_NOTHING;
	n = subs ? json_object_array_length(subs) : 0;
	if (batch_size_ok(e, n, a) < 0) {
		json_object_put(root);
		return HTTP_AFTER_NOTHING;
	}
	b.n = n;
	b.reply = json_object_new_array();
	b.tokens = calloc(n, sizeof *b.tokens);
	b.texts = calloc(n, sizeof *b.texts);
	b.lens = calloc(n, sizeof *b.lens);
	int rc = b.reply && b.tokens && b.texts && b.lens ? 0 : -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = batch_add(e, &b, json_object_array_get_idx(subs, i), q.base64_encoded);
	if (rc < 0)
		answer_error(a, OUTCOME_FAULT, "no memory for the batch");
	else if (!b.valid)
		answer_json(a, OUTCOME_INVALID, json_object_get(b.reply));
	else if (enqueue(e, b.tokens, b.texts, b.lens, b.valid, a) == 0)
		answer_json(a, OUTCOME_CREATED, json_object_get(b.reply));
	batch_free(&b);
	json_object_put(root);
	return HTTP_AFTER_NOTHING;
}

static long ttl_s(const struct engine *e)
{
	return e->cfg.result_ttl_ms / 1000;
}

/* The submission of token as a RESULT (judge0_pending's view while it
 * waits or runs): a new object, or NULL when this host holds no such
 * token.  *st: the state it was found in. */
static struct json_object *lookup(const struct engine *e, const char *token,
				  enum queue_state *st)
{
	if (!queue_opened || token_check(token, e->cfg.host_id, NULL) != TOKEN_OURS)
		return NULL;
	/* A job moves on while we read it: at most a few looks. */
	for (int tries = 0; tries < 4; tries++) {
		size_t len;
		char *text;
		struct json_object *obj, *view;

		*st = queue_find(&queue, token, ttl_s(e));
		if (*st == Q_NONE)
			return NULL;
		if (!(text = queue_read(&queue, *st, token, &len)))
			continue;
		obj = json_tokener_parse(text);
		free(text);
		if (!obj || *st == Q_DONE)
			return obj;
		view = judge0_pending(obj, *st == Q_QUEUED ? JUDGE0_IN_QUEUE :
				      JUDGE0_PROCESSING);
		json_object_put(obj);
		return view;
	}
	return NULL;
}

static void not_found(const struct engine *e, const char *token, struct answer *a)
{
	unsigned other = 0;
	enum token_kind k = token_check(token, e->cfg.host_id, &other);

	if (k == TOKEN_MALFORMED)
		answer_error(a, OUTCOME_NOT_FOUND, "not a submission token: %.64s", token);
	else if (k == TOKEN_OTHER_HOST)
		answer_error(a, OUTCOME_NOT_FOUND, "submission %s is held by host %u, "
			     "not this one (%u)", token, other, e->cfg.host_id);
	else
		answer_error(a, OUTCOME_NOT_FOUND, "submission %s not found", token);
}

/* result in the client's view, answered in a with outcome (consumed). */
static void answer_view(struct json_object *result, const char *fields, bool base64,
			enum outcome outcome, struct answer *a)
{
	struct json_object *out = NULL;

	switch (judge0_format(result, fields, base64, &out)) {
	case JUDGE0_FORMAT_OK:
		answer_json(a, outcome, out);
		break;
	case JUDGE0_FORMAT_NOT_UTF8:
		answer_json(a, OUTCOME_BAD_REQUEST, judge0_conversion_error(NULL));
		break;
	default:
		answer_error(a, OUTCOME_FAULT, "no memory for the answer");
	}
	json_object_put(result);
}

enum http_after async_show(struct engine *e, const char *body, size_t len,
			   const struct request_io *io, struct answer *a)
{
	const char *token = io->path_arg ? io->path_arg : "";
	struct judge0_query q;
	struct json_object *result;
	enum queue_state st;

	(void)body;
	(void)len;
	if (judge0_query_parse(io->query, &q, a) < 0)
		return HTTP_AFTER_NOTHING;
	if (!(result = lookup(e, token, &st)))
		not_found(e, token, a);
	else
		answer_view(result, q.fields, q.base64_encoded, OUTCOME_OK, a);
	return HTTP_AFTER_NOTHING;
}

enum http_after async_delete(struct engine *e, const char *body, size_t len,
			     const struct request_io *io, struct answer *a)
{
	const char *token = io->path_arg ? io->path_arg : "";
	struct judge0_query q;
	struct json_object *result;
	enum queue_state st;

	(void)body;
	(void)len;
	if (judge0_query_parse(io->query, &q, a) < 0)
		return HTTP_AFTER_NOTHING;
	if (!(result = lookup(e, token, &st))) {
		not_found(e, token, a);
		return HTTP_AFTER_NOTHING;
	}
	if (st != Q_DONE) {
		int id = st == Q_QUEUED ? JUDGE0_IN_QUEUE : JUDGE0_PROCESSING;
		answer_error(a, OUTCOME_BAD_REQUEST, "submission cannot be deleted "
			     "because its status is %d (%s)", id, judge0_status_name(id));
		json_object_put(result);
		return HTTP_AFTER_NOTHING;
	}
	queue_forget(&queue, token);
	/* Judge0 forces base64 here: whatever the bytes, the client gets them. */
	answer_view(result, q.fields, true, OUTCOME_OK, a);
	return HTTP_AFTER_NOTHING;
}

enum http_after async_batch_show(struct engine *e, const char *body, size_t len,
				 const struct request_io *io, struct answer *a)
{
	struct judge0_query q;
	struct json_object *list, *reply;
	size_t n = 0;

	(void)body;
	(void)len;
	if (judge0_query_parse(io->query, &q, a) < 0)
		return HTTP_AFTER_NOTHING;
	for (const char *p = q.tokens; *p; p++)
		n += *p == ',';
	n += q.tokens[0] != '\0';
	if (batch_size_ok(e, n, a) < 0)
		return HTTP_AFTER_NOTHING;
	list = json_object_new_array();
	for (char *save = NULL, *t = strtok_r(q.tokens, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		enum queue_state st;
		struct json_object *result = lookup(e, t, &st), *out = NULL;
		enum judge0_format_rc rc = result ? judge0_format(result, q.fields,
						q.base64_encoded, &out) : JUDGE0_FORMAT_OK;

		json_object_put(result);
		if (rc == JUDGE0_FORMAT_NOT_UTF8) {
			json_object_put(list);
			answer_error(a, OUTCOME_BAD_REQUEST, "some attributes for one or "
				     "more submissions cannot be converted to UTF-8, use "
				     "base64_encoded=true query parameter");
			return HTTP_AFTER_NOTHING;
		}
		json_object_array_add(list, out);
	}
	reply = json_object_new_object();
	json_object_object_add(reply, "submissions", list);
	answer_json(a, OUTCOME_OK, reply);
	return HTTP_AFTER_NOTHING;
}

/* ---- the queue workers ---- */

/* What a job that cannot be read ends with: Judge0's Internal Error, so
 * that its token still ends with a result. */
static struct json_object *unreadable(const char *token)
{
	struct json_object *r = json_object_new_object(), *s = json_object_new_object();

	json_object_object_add(s, "id", json_object_new_int(JUDGE0_INTERNAL_ERROR));
	json_object_object_add(s, "description", json_object_new_string(
		judge0_status_name(JUDGE0_INTERNAL_ERROR)));
	json_object_object_add(r, "token", json_object_new_string(token));
	json_object_object_add(r, "status", s);
	json_object_object_add(r, "message", json_object_new_string(
		"the queued submission could not be read back"));
	return r;
}

static bool has_callback(struct json_object *job)
{
	struct json_object *url;

	return job && json_object_object_get_ex(job, "callback_url", &url) &&
	       json_object_is_type(url, json_type_string);
}

/* Runs a claimed job and writes its result. */
static void serve_claim(struct engine *e, struct claim *c)
{
	struct json_object *job = json_tokener_parse(c->text), *result;
	const char *text;
	size_t len = 0;
	char err[256];

	metrics_queue_wait(token_age_ms(c->token));
	metrics_slot_busy(e->slot_index, true);
	result = job ? judge0_run(e, job, NULL) : unreadable(c->token);
	metrics_slot_busy(e->slot_index, false);
	text = result ? json_object_to_json_string_length(result, JSON_C_TO_STRING_PLAIN,
							  &len) : NULL;
	if (!text || queue_finish(&queue, c, text, len, has_callback(job), err,
				  sizeof err) < 0) {
		/* Left in running/, unlocked: queued again at the next recovery. */
		fprintf(stderr, "gaol-fcgi: slot %u: %s\n", e->slot_index,
			text ? err : "queue: no memory for a result");
		claim_free(c);
	}
	json_object_put(result);
	json_object_put(job);
	engine_idle(e);
}

/* Waits for a job to be queued (inotify on queued/, and a second's
 * timeout so that a missed event costs a second at most) or for the
 * pool's stop: false when stopping. */
static bool wait_for_job(int notify_fd, int stop_fd)
{
	struct pollfd pfd[2] = {
		{ .fd = notify_fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	char buf[4096];

	if (poll(pfd, 2, 1000) < 0 && errno != EINTR)
		return false;
	if (pfd[1].revents)
		return false;
	while (notify_fd >= 0 && read(notify_fd, buf, sizeof buf) > 0)
		;
	return true;
}

int async_worker_loop(struct engine *e, int stop_fd,
		      volatile sig_atomic_t *signalled)
{
	char path[4200], err[256];
	int notify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	snprintf(path, sizeof path, "%s/queued", e->cfg.queue_dir);
	if (notify >= 0 && inotify_add_watch(notify, path, IN_MOVED_TO | IN_CREATE) < 0)
		fprintf(stderr, "gaol-fcgi: slot %u: inotify %s errno=%d (polling "
			"every second)\n", e->slot_index, path, errno);
	while (!*signalled) {
		struct pollfd stop = { .fd = stop_fd, .events = POLLIN };
		struct claim c;
		int got;

		if (poll(&stop, 1, 0) > 0)
			break;
		got = queue_claim(&queue, &c, err, sizeof err);
		if (got < 0)
			fprintf(stderr, "gaol-fcgi: slot %u: %s\n", e->slot_index, err);
		if (got == 1)
			serve_claim(e, &c);
		else if (!wait_for_job(notify, stop_fd))
			break;
	}
	if (notify >= 0)
		close(notify);
	return 0;
}
