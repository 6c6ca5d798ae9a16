/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reqlog: the request log of gaol-fcgi.  One JSON line per request on
 * stderr (journald under systemd, the terminal under `make run`): when, the
 * request id, route, language, status, outcome or verdict, wall and CPU
 * time, peak memory, slot, bytes in and out.  The submitted code is never
 * logged, only its size and a hash of it.
 *
 * The request id is nginx's $request_id, passed as the FastCGI parameter
 * GAOL_REQUEST_ID (nginx/gaol-locations.conf) and returned to the client as
 * X-Request-Id; without one (another web server), gaol makes one up.
 */
#ifndef GAOL_FCGI_REQLOG_H
#define GAOL_FCGI_REQLOG_H

#include <stddef.h>
#include <time.h>

#include <fcgiapp.h>

#include "api/engine.h"

#define REQLOG_ID_MAX 64

struct reqlog {
	char id[REQLOG_ID_MAX + 1];
	struct timespec started;        /* CLOCK_MONOTONIC */
	struct timespec at;             /* CLOCK_REALTIME, for "time" */
	const char *route;              /* the route's path, or NULL: none */
	char language[64];              /* from the body, "" when none */
	size_t code_bytes;
	unsigned long long code_hash;   /* FNV-1a 64 of the code */
	size_t bytes_in;
};

/* At the start of a request: its id (validated, or made up) and the clock. */
void reqlog_begin(struct reqlog *l, const FCGX_Request *req);
/* What the body says (language, code size and hash; a Judge0 submission's
 * language_id named by e's language): call before the body is freed.  body
 * may be NULL. */
void reqlog_body(struct reqlog *l, const struct engine *e, const char *body, size_t len);
/* Writes the line, once the answer went out.  slot < 0: the master. */
void reqlog_end(const struct reqlog *l, int slot, const char *method,
		const struct answer *a, size_t bytes_out);

#endif
