/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http: routing and status mapping of gaol-fcgi (see http.h).
 *
 * What a client sees, decided here and nowhere else:
 * - The route table below is the API: a known path with another method is 405
 *   with an Allow header, an unknown path is 404.  GET routes answer HEAD too.
 *   POST /shutdown exists only when ALLOW_SHUTDOWN is set; otherwise it is an
 *   unknown path (404), as in the Codebattle runner.
 * - While the pool is stopping every request is 503 (the master answers
 *   those, see master.c).
 * - A route that takes a body needs CONTENT_LENGTH (411 when absent, 400 when
 *   not a number).  nginx always sets it: it buffers chunked bodies first.  A
 *   length over RUN_INPUT_MAX is 413 from the header alone, before a byte of
 *   the body is read; a body shorter than its length is 400.
 * - Content-Encoding other than identity is 415: the engine parses bytes, it
 *   does not inflate them.
 * - Content-Type: application/json (parameters allowed) and no type at all are
 *   the norm, but any other label is accepted too and the body is parsed as
 *   JSON whatever it says: `curl -d @req.json` labels it
 *   application/x-www-form-urlencoded and Codebattle's clients do not all set
 *   a type.  Only multipart types are refused (415): a form upload is never a
 *   JSON document, and saying so helps more than "unparseable JSON".
 */
#define _GNU_SOURCE     /* POLLRDHUP */
#include <ctype.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "http.h"
#include "signals.h"
#include "metrics.h"
#include "reqlog.h"
#include "status.h"
#include "judge/judge.h"
#include "execute/execute.h"
#include "judge0/judge0.h"
#include "async.h"
#include <json-c/json.h>

/* A route's columns say what http_serve does around its handler: read a
 * body (and then watch the client, who may leave while it is served),
 * stream the answer as it is made, send it with a type other than JSON. */
struct route {
	const char *path;
	const char *method;       /* a GET route also answers HEAD */
	bool takes_body;          /* and the client is watched */
	bool streams;             /* the answer goes out as it is made */
	const char *type;         /* Content-Type; NULL: JSON */
	handler_fn *handle;
	bool (*enabled)(const struct gaol_config *cfg);  /* NULL: always */
};

static handler_fn handle_health, handle_run, handle_evaluate, handle_shutdown,
	handle_metrics, handle_execute, handle_runtimes, handle_packages,
	handle_install, handle_judge0_get;

static bool shutdown_allowed(const struct gaol_config *cfg)
{
	return cfg->allow_shutdown;
}

/* Prometheus' text exposition format. */
static const char metrics_type[] = "text/plain; version=0.0.4; charset=utf-8";

static const struct route routes[] = {
	/* path        method  body   streams type */
	{ "/",         "GET",  false, false,  NULL, handle_health,   NULL },
	{ "/health",   "GET",  false, false,  NULL, handle_health,   NULL },
	{ "/run",      "POST", true,  false,  NULL, handle_run,      NULL },
	{ "/evaluate", "POST", true,  true,   NULL, handle_evaluate, NULL },
	{ "/shutdown", "POST", false, false,  NULL, handle_shutdown, shutdown_allowed },
	{ "/metrics",  "GET",  false, false,  metrics_type, handle_metrics, NULL },
	{ "/execute",  "POST", true,  false,  NULL, handle_execute,  NULL },
	{ "/runtimes", "GET",  false, false,  NULL, handle_runtimes, NULL },
	/* Piston's v2 paths: the same handlers (docs/api.md, "Piston's API"). */
	{ "/api/v2/execute",  "POST",   true,  false, NULL, handle_execute,  NULL },
	{ "/api/v2/runtimes", "GET",    false, false, NULL, handle_runtimes, NULL },
	{ "/api/v2/packages", "GET",    false, false, NULL, handle_packages, NULL },
	{ "/api/v2/packages", "POST",   false, false, NULL, handle_install,  NULL },
	{ "/api/v2/packages", "DELETE", false, false, NULL, handle_install,  NULL },
	/* Judge0's paths (docs/api.md, "Judge0's API"); a last segment "*"
	 * is any one segment, the handler's io->path_arg; an exact path wins
	 * over it. */
	/* POST /submissions and the token's routes are the asynchronous
	 * side's (fcgi/async.c), which hands wait=true to judge0/. */
	{ "/submissions",     "POST",   true,  false, NULL, async_submit, NULL },
	{ "/submissions/batch", "POST", true,  false, NULL, async_batch_create, NULL },
	{ "/submissions/batch", "GET",  false, false, NULL, async_batch_show, NULL },
	{ "/submissions/*",   "GET",    false, false, NULL, async_show, NULL },
	{ "/submissions/*",   "DELETE", false, false, NULL, async_delete, NULL },
	{ "/languages",       "GET",    false, false, NULL, handle_judge0_get, NULL },
	{ "/languages/all",   "GET",    false, false, NULL, handle_judge0_get, NULL },
	{ "/languages/*",     "GET",    false, false, NULL, handle_judge0_get, NULL },
	{ "/statuses",        "GET",    false, false, NULL, handle_judge0_get, NULL },
	{ "/about",           "GET",    false, false, NULL, handle_judge0_get, NULL },
	{ "/version",         "GET",    false, false, "text/plain; charset=utf-8",
	  handle_judge0_get, NULL },
	{ "/config_info",     "GET",    false, false, NULL, handle_judge0_get, NULL },
	{ "/system_info",     "GET",    false, false, NULL, handle_judge0_get, NULL },
	{ "/workers",         "GET",    false, false, NULL, handle_judge0_get, NULL },
};

/* The body of a reply when even building an error answer failed. */
static const char last_resort[] = "{\"error\": \"out of memory\"}";

#define PATH_SHOWN_MAX 200     /* how much of a bad path an error repeats */
#define BODY_CHUNK (64 * 1024) /* libfcgi's stream calls take an int */

static const char *param(const FCGX_Request *req, const char *name)
{
	const char *v = FCGX_GetParam(name, req->envp);
	return v ? v : "";
}

/* The request's path without its query.  nginx's DOCUMENT_URI is already
 * decoded and normalised; REQUEST_URI is the fallback for other servers. */
static void request_path(const FCGX_Request *req, char *path, size_t size)
{
	const char *p = FCGX_GetParam("DOCUMENT_URI", req->envp);
	size_t n;

	if (!p || !*p)
		p = param(req, "REQUEST_URI");
	n = strcspn(p, "?");
	/* Under a prefix (nginx/prefix.sh passes it): the path within it. */
	const char *pre = param(req, "GAOL_PATH_PREFIX");
	size_t pl = strlen(pre);
	if (pl && pl < n && !strncmp(p, pre, pl) && p[pl] == '/') {
		p += pl;
		n -= pl;
	}
	if (n >= size)
		n = size - 1;
	memcpy(path, p, n);
	path[n] = '\0';
}

static bool method_matches(const struct route *r, const char *method)
{
	return strcmp(r->method, method) == 0 ||
	       (strcmp(method, "HEAD") == 0 && strcmp(r->method, "GET") == 0);
}

/* The route for method on path, or NULL.  When the path is known but the
 * method is not, allow gets the methods it takes ("GET, HEAD"). */
/* 2: path is the route's; 1: the route's last segment is "*" and path
 * has one non-empty segment in its place; 0: neither. */
static int path_matches(const char *route, const char *path)
{
	size_t n = strlen(route);
	if (strcmp(route, path) == 0)
		return 2;
	if (n < 2 || strcmp(route + n - 2, "/*") != 0 || strncmp(route, path, n - 1) != 0)
		return 0;
	return path[n - 1] && !strchr(path + n - 1, '/') ? 1 : 0;
}

/* The path's own routes if it has any, else those with a "*" segment
 * it matches. */
static int path_best(const char *path)
{
	int best = 0;
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		int m = path_matches(routes[i].path, path);
		best = m > best ? m : best;
	}
	return best;
}

static const struct route *route_find(const struct gaol_config *cfg,
				      const char *path, const char *method,
				      char *allow, size_t allow_size)
{
	const struct route *found = NULL;
	int best = path_best(path);

	allow[0] = '\0';
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		const struct route *r = &routes[i];
		size_t used = strlen(allow);

		if (!best || path_matches(r->path, path) != best ||
		    (r->enabled && !r->enabled(cfg)))
			continue;
		if (method_matches(r, method))
			found = r;
		snprintf(allow + used, allow_size - used, "%s%s%s",
			 used ? ", " : "", r->method,
			 strcmp(r->method, "GET") == 0 ? ", HEAD" : "");
	}
	return found;
}

/* "identity", or nothing at all, is the only encoding the engine reads. */
static bool encoding_is_identity(const char *enc)
{
	while (*enc == ' ' || *enc == '\t')
		enc++;
	if (!*enc)
		return true;
	if (strncasecmp(enc, "identity", 8) != 0)
		return false;
	enc += 8;
	while (*enc == ' ' || *enc == '\t')
		enc++;
	return *enc == '\0';
}

/* The first Content-Encoding that is not identity, or NULL.  Every one is
 * looked at: a header given twice is one list ("identity, gzip", RFC 9110
 * section 5.3), and nginx before 1.23 hands it over as two params of the
 * same name, of which FCGX_GetParam sees only the first. */
static const char *encoding_refused(const FCGX_Request *req)
{
	static const char name[] = "HTTP_CONTENT_ENCODING=";

	for (char **p = req->envp; p && *p; p++)
		if (strncmp(*p, name, sizeof name - 1) == 0 &&
		    !encoding_is_identity(*p + sizeof name - 1))
			return *p + sizeof name - 1;
	return NULL;
}

static bool type_is_refused(const char *type)
{
	while (*type == ' ' || *type == '\t')
		type++;
	return strncasecmp(type, "multipart/", 10) == 0;
}

/* Digits only: no sign, no spaces, no overflow. */
static int parse_length(const char *s, size_t *len)
{
	size_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		if (v > (SIZE_MAX - 9) / 10)
			return -1;
		v = v * 10 + (size_t)(*s - '0');
	}
	*len = v;
	return 0;
}

/* Reads exactly CONTENT_LENGTH bytes into a NUL-terminated buffer.  A bad
 * body (or no memory for it) returns -1 with the error answer already in a.
 * /evaluate has its own cap (RUN_EVAL_INPUT_MAX: tests' inputs are large). */
static int read_body(const struct gaol_config *cfg, const char *path, FCGX_Request *req,
		     char **body, size_t *len, struct answer *a)
{
	bool eval = strcmp(path, "/evaluate") == 0;
	size_t max = eval ? cfg->eval_input_max : cfg->input_max;
	const char *enc = encoding_refused(req);
	const char *type = param(req, "CONTENT_TYPE");
	const char *clen = param(req, "CONTENT_LENGTH");
	size_t want, got = 0;
	char *buf;

	if (enc) {
		answer_error(a, OUTCOME_WRONG_MEDIA, "Content-Encoding %.40s is not supported: "
			     "send the body uncompressed", enc);
		return -1;
	}
	if (type_is_refused(type)) {
		answer_error(a, OUTCOME_WRONG_MEDIA, "Content-Type %.60s is not supported: "
			     "send application/json", type);
		return -1;
	}
	if (!*clen) {
		answer_error(a, OUTCOME_NO_LENGTH, "Content-Length is required");
		return -1;
	}
	if (parse_length(clen, &want) < 0) {
		answer_error(a, OUTCOME_BAD_REQUEST, "Content-Length is not a byte count: %.40s",
			     clen);
		return -1;
	}
	if (want > max) {
		answer_error(a, OUTCOME_TOO_LARGE, "request body of %zu bytes is over "
			     "%s (%zu bytes)", want, eval ? "RUN_EVAL_INPUT_MAX" : "RUN_INPUT_MAX",
			     max);
		return -1;
	}
	buf = malloc(want + 1);
	if (!buf) {
		answer_error(a, OUTCOME_FAULT, "no memory for a body of %zu bytes", want);
		return -1;
	}
	while (got < want) {
		size_t left = want - got;
		int n = FCGX_GetStr(buf + got,
				    left > BODY_CHUNK ? BODY_CHUNK : (int)left,
				    req->in);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < want) {
		free(buf);
		answer_error(a, OUTCOME_BAD_REQUEST, "request body ended after %zu of %zu bytes",
			     got, want);
		return -1;
	}
	buf[want] = '\0';
	*body = buf;
	*len = want;
	/* Read to the end of FCGI_STDIN (its empty record): from here on,
	 * anything on the connection means the web server gave up. */
	char rest[256];
	while (FCGX_GetStr(rest, sizeof rest, req->in) > 0)
		;
	return 0;
}

static enum http_after handle_health(struct engine *e, const char *body,
				     size_t len, const struct request_io *io,
				     struct answer *a)
{
	(void)body;
	(void)len;
	(void)io;
	engine_health(e, a);
	return HTTP_AFTER_NOTHING;
}

static enum http_after handle_run(struct engine *e, const char *body,
				  size_t len, const struct request_io *io,
				  struct answer *a)
{
	engine_run(e, body, len, io, a);
	return HTTP_AFTER_NOTHING;
}

static enum http_after handle_evaluate(struct engine *e, const char *body,
				       size_t len, const struct request_io *io,
				       struct answer *a)
{
	engine_evaluate(e, body, len, io, a);
	return HTTP_AFTER_NOTHING;
}

static enum http_after handle_execute(struct engine *e, const char *body,
				      size_t len, const struct request_io *io,
				      struct answer *a)
{
	engine_execute(e, body, len, io, a);
	return HTTP_AFTER_NOTHING;
}

static enum http_after handle_runtimes(struct engine *e, const char *body,
				       size_t len, const struct request_io *io,
				      struct answer *a)
{
	(void)body;
	(void)len;
	(void)io;
	engine_runtimes(e, a);
	return HTTP_AFTER_NOTHING;
}

static enum http_after handle_packages(struct engine *e, const char *body,
				       size_t len, const struct request_io *io,
				      struct answer *a)
{
	(void)body;
	(void)len;
	(void)io;
	engine_packages(e, a);
	return HTTP_AFTER_NOTHING;
}

/* Toolchains are Debian packages, installed by the operator. */
static enum http_after handle_install(struct engine *e, const char *body,
				      size_t len, const struct request_io *io,
				      struct answer *a)
{
	(void)e;
	(void)body;
	(void)len;
	(void)io;
	answer_message(a, OUTCOME_WRONG_METHOD, "gaol installs no package through its API: "
		       "toolchains are Debian packages, installed by the operator with "
		       "`make deps LANGS=...`");
	return HTTP_AFTER_NOTHING;
}

static enum http_after handle_judge0_get(struct engine *e, const char *body,
					 size_t len, const struct request_io *io,
					 struct answer *a)
{
	(void)body;
	(void)len;
	judge0_get(e, io, a);
	return HTTP_AFTER_NOTHING;
}

/* On Piston's paths an error carries Piston's "message" beside "error". */
static void piston_message(const char *path, struct answer *a)
{
	if (strncmp(path, "/api/v2/", 8) || a->outcome == OUTCOME_OK || !a->body ||
	    strstr(a->body, "\"message\""))
		return;
	struct json_object *o = json_tokener_parse(a->body), *err;
	if (o && json_object_object_get_ex(o, "error", &err)) {
		json_object_object_add(o, "message", json_object_get(err));
		free(a->body);
		a->body = NULL;
		answer_json(a, a->outcome, o);
		return;
	}
	json_object_put(o);
}

static enum http_after handle_metrics(struct engine *e, const char *body,
				      size_t len, const struct request_io *io,
				      struct answer *a)
{
	(void)body;
	(void)len;
	(void)io;
	metrics_render(e, a);
	return HTTP_AFTER_NOTHING;
}

static enum http_after handle_shutdown(struct engine *e, const char *body,
				       size_t len, const struct request_io *io,
				       struct answer *a)
{
	static const char ok[] = "{\"ok\": true, \"shutting_down\": true}";

	(void)e;
	(void)body;
	(void)len;
	(void)io;
	a->body = strdup(ok);
	if (!a->body) {
		answer_error(a, OUTCOME_FAULT, "no memory");
		return HTTP_AFTER_NOTHING;
	}
	a->outcome = OUTCOME_OK;
	a->len = sizeof ok - 1;
	return HTTP_AFTER_SHUTDOWN;
}

static void put_fcgx(FCGX_Request *req, const char *data, size_t len)
{
	while (len > 0) {
		int n = len > BODY_CHUNK ? BODY_CHUNK : (int)len;
		if (FCGX_PutStr(data, n, req->out) != n)
			return;   /* the web server went away; nothing to tell */
		data += n;
		len -= (size_t)n;
	}
}

/* An answer written as it is made (POST /evaluate): 200 and the headers
 * before the first byte, no Content-Length (nginx sends it chunked). */
struct stream_ctx {
	FCGX_Request *req;
	const char *request_id;
	size_t sent;
};

static void stream_begin(void *ctx)
{
	struct stream_ctx *c = ctx;
	char hdr[256];
	int n = snprintf(hdr, sizeof hdr,
			 "Status: %d %s\r\n"
			 "Content-Type: application/json\r\n"
			 "Cache-Control: no-store\r\n"
			 "X-Request-Id: %s\r\n\r\n",
			 http_status(OUTCOME_OK), http_reason(OUTCOME_OK), c->request_id);
	put_fcgx(c->req, hdr, (size_t)n);
	c->sent += (size_t)n;
}

static int stream_write(void *ctx, const char *data, size_t len)
{
	struct stream_ctx *c = ctx;
	while (len > 0) {
		int n = len > BODY_CHUNK ? BODY_CHUNK : (int)len;
		if (FCGX_PutStr(data, n, c->req->out) != n)
			return -1;
		c->sent += (size_t)n;
		data += n;
		len -= (size_t)n;
	}
	/* Out now, not when libfcgi's buffer fills: the worker holds no more
	 * of the answer than the result it is writing. */
	return FCGX_FFlush(c->req->out) == 0 ? 0 : -1;
}

/* nginx gave up on the request: it closed the connection (the client went
 * away and fastcgi_ignore_client_abort is off), or sent
 * FCGI_ABORT_REQUEST (type 2, the second byte of a record's header). */
static bool fcgi_client_gone(int fd, short revents)
{
	unsigned char h[8];
	ssize_t k;

	if (revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
		return true;
	k = recv(fd, h, sizeof h, MSG_PEEK | MSG_DONTWAIT);
	return k == 0 || (k >= 2 && h[1] == 2);
}

/* Returns the bytes sent (headers and body). */
static size_t send_answer(FCGX_Request *req, const struct answer *a,
			  const char *allow, bool head, const char *request_id,
			  const char *type)
{
	if (a->streamed)
		return 0;     /* written already, as it was made */
	const char *body = a->body ? a->body : last_resort;
	size_t len = a->body ? a->len : sizeof last_resort - 1;
	enum outcome outcome = a->body ? a->outcome : OUTCOME_FAULT;
	char hdr[512];
	int n;

	n = snprintf(hdr, sizeof hdr,
		     "Status: %d %s\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "Cache-Control: no-store\r\n"
		     "X-Request-Id: %s\r\n"
		     "%s%s%s"
		     "\r\n",
		     http_status(outcome), http_reason(outcome),
		     a->body && outcome == OUTCOME_OK && type ? type : "application/json",
		     len, request_id,
		     allow ? "Allow: " : "", allow ? allow : "",
		     allow ? "\r\n" : "");
	put_fcgx(req, hdr, (size_t)n);
	if (!head)
		put_fcgx(req, body, len);
	return (size_t)n + (head ? 0 : len);
}

/* DEBUG: the request line and headers, one line each, made printable. */
static void log_request(unsigned slot, const FCGX_Request *req)
{
	static const char *const shown[] = {
		"REQUEST_METHOD=", "REQUEST_URI=", "CONTENT_TYPE=",
		"CONTENT_LENGTH=", "REMOTE_ADDR=", "HTTP_",
	};

	fprintf(stderr, "gaol-fcgi: slot %u: request %s %s\n", slot,
		param(req, "REQUEST_METHOD"), param(req, "REQUEST_URI"));
	for (char **p = req->envp; p && *p; p++) {
		bool show = false;
		char line[1024];
		size_t i;

		for (i = 0; i < sizeof shown / sizeof shown[0]; i++)
			show = show || strncmp(*p, shown[i], strlen(shown[i])) == 0;
		if (!show)
			continue;
		for (i = 0; (*p)[i] && i < sizeof line - 1; i++)
			line[i] = isprint((unsigned char)(*p)[i]) ? (*p)[i] : '?';
		line[i] = '\0';
		fprintf(stderr, "gaol-fcgi: slot %u:   %s\n", slot, line);
	}
}

void http_refuse_stopping(FCGX_Request *req)
{
	const char *method = param(req, "REQUEST_METHOD");
	struct answer a = { 0 };
	struct reqlog log;
	size_t out;

	reqlog_begin(&log, req);
	answer_error(&a, OUTCOME_STOPPING, "shutting down");
	out = send_answer(req, &a, NULL, strcmp(method, "HEAD") == 0, log.id, NULL);
	reqlog_end(&log, -1, method, &a, out);
	answer_free(&a);
}

void http_serve_health(struct engine *e, FCGX_Request *req, bool serving)
{
	const char *method = param(req, "REQUEST_METHOD");
	bool head = strcmp(method, "HEAD") == 0;
	const char *allow = NULL;
	struct answer a = { 0 };
	struct reqlog log;
	char path[4096];
	size_t out;

	reqlog_begin(&log, req);
	request_path(req, path, sizeof path);
	if (strcmp(path, "/health") != 0 && strcmp(path, "/") != 0) {
		answer_error(&a, OUTCOME_NOT_FOUND, "no such path: %.*s", PATH_SHOWN_MAX, path);
	} else if (strcmp(method, "GET") != 0 && !head) {
		allow = "GET, HEAD";
		answer_error(&a, OUTCOME_WRONG_METHOD, "method %.16s is not allowed on %.*s "
			     "(allowed: %s)", method, PATH_SHOWN_MAX, path, allow);
	} else if (!serving) {
		answer_error(&a, OUTCOME_STOPPING, "no worker is running: the pool is "
			     "(re)starting");
	} else {
		log.route = "/health";
		engine_health(e, &a);
	}
	out = send_answer(req, &a, allow, head, log.id, NULL);
	reqlog_end(&log, -1, method, &a, out);
	answer_free(&a);
}

enum http_after http_serve(struct engine *e, FCGX_Request *req)
{
	const char *method = param(req, "REQUEST_METHOD");
	enum http_after after = HTTP_AFTER_NOTHING;
	struct answer a = { 0 };
	const struct route *r;
	struct reqlog log;
	/* Longer than any route, and under a page: a frame over a page is
	 * probed page by page, and each page of the worker's stack written
	 * while the sandbox built ahead lives is a page copied. */
	char path[1024];
	char allow[64];
	size_t out;

	reqlog_begin(&log, req);
	request_path(req, path, sizeof path);
	if (e->cfg.debug)
		log_request(e->slot_index, req);

	struct stream_ctx sc = { .req = req, .request_id = log.id };
	struct answer_stream stream = { stream_begin, stream_write, &sc };
	struct client_watch client = { req->ipcFd, fcgi_client_gone };
	if ((r = route_find(&e->cfg, path, method, allow, sizeof allow))) {
		char *body = NULL;
		size_t len = 0;

		allow[0] = '\0';
		log.route = r->path;
		/* A slot is busy while it runs a request's sandboxes. */
		metrics_slot_busy(e->slot_index, r->takes_body);
		int got = r->takes_body ? read_body(&e->cfg, path, req, &body, &len, &a) : 0;
		read_timer(0, 0);       /* the worker's deadline for the request's reads */
		if (got == 0) {
			const char *star = strstr(r->path, "/*");
			struct request_io io = {
				.stream = r->streams ? &stream : NULL,
				.client = r->takes_body ? &client : NULL,
				.query = FCGX_GetParam("QUERY_STRING", req->envp),
				.path_arg = star ? path + (star - r->path) + 1 : NULL,
				.route = r->path,
			};
			after = r->handle(e, body, len, &io, &a);
		}
		metrics_slot_busy(e->slot_index, false);
		reqlog_body(&log, e, body, len);
		free(body);
	} else if (allow[0]) {
		answer_error(&a, OUTCOME_WRONG_METHOD, "method %.16s is not allowed on %.*s "
			     "(allowed: %s)", method, PATH_SHOWN_MAX, path, allow);
	} else {
		answer_error(&a, OUTCOME_NOT_FOUND, "no such path: %.*s", PATH_SHOWN_MAX, path);
	}

	piston_message(path, &a);
	out = sc.sent + send_answer(req, &a, allow[0] ? allow : NULL,
				    strcmp(method, "HEAD") == 0, log.id,
				    r ? r->type : NULL);
	reqlog_end(&log, (int)e->slot_index, method, &a, out);
	answer_free(&a);
	return after;
}
