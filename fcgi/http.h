/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http: the HTTP face of one worker.  It owns the route table (which method on
 * which path calls which engine entry), the checks made before a body reaches
 * the engine (length, encoding, type) and the one place where a status code
 * gets its reason phrase.  Every answer, errors included, is JSON.
 */
#ifndef GAOL_FCGI_HTTP_H
#define GAOL_FCGI_HTTP_H

#include <stdbool.h>

#include <fcgiapp.h>

#include "api/engine.h"

/* What the worker must do once the answer has gone out. */
enum http_after {
	HTTP_AFTER_NOTHING,
	HTTP_AFTER_SHUTDOWN,     /* POST /shutdown: ask the master to stop */
};

/* A route's handler: the body read (NULL for a route without one). */
typedef enum http_after handler_fn(struct engine *e, const char *body, size_t len,
				   const struct request_io *io, struct answer *a);

/* Answers one accepted request.  Never fails: a bad request becomes a
 * status, not a crash ("fault" is the service's own failure, answered 500). */
enum http_after http_serve(struct engine *e, FCGX_Request *req);

/* Answers an accepted request 503 without reading it: the pool is stopping.
 * Needs no engine, so the master can answer while its workers finish. */
void http_refuse_stopping(FCGX_Request *req);

/* GET /health (or GET /) answered by the master on its own socket, without a
 * worker: the engine's health, or 503 when no worker is serving.  Any other
 * path is 404, any other method 405. */
void http_serve_health(struct engine *e, FCGX_Request *req, bool serving);

#endif
