/* SPDX-License-Identifier: Apache-2.0 */
/*
 * request: the body of POST /run parsed and checked for shape (docs/api.md,
 * "POST /run").  Language checks (unknown slug, missing checker, not installed) need the
 * language set and are made by engine.c.
 */
#ifndef GAOL_REQUEST_H
#define GAOL_REQUEST_H

#include <stddef.h>

struct blob {
	char *data;     /* NUL-terminated copy; may also hold NULs inside */
	size_t len;
};

struct run_request {
	char *lang_slug;
	struct blob solution;   /* solution_text */
	struct blob checker;    /* checker_text, data NULL when absent */
	struct blob asserts;    /* asserts, data NULL when absent */
	long timeout_ms;
};

/* Parses body[0..len).  timeout_default_ms applies when "timeout" is absent;
 * a timeout above timeout_max_ms is rejected.  Returns 0, or -1 with a
 * human-readable reason in err (the caller answers OUTCOME_BAD_REQUEST). */
int run_request_parse(const char *body, size_t len, long timeout_default_ms,
		      long timeout_max_ms, struct run_request *req,
		      char *err, size_t errlen);
void run_request_free(struct run_request *req);

struct json_object;
/* The shared first step of every API: body[0..len) as one JSON object
 * (strict, depth-limited, valid UTF-8, nothing after it), or NULL with the
 * reason in err. */
struct json_object *json_body_parse(const char *body, size_t len, char *err,
				    size_t errlen);
/* A JSON string's bytes (NULs included) into a NUL-terminated copy. */
int copy_blob(struct json_object *v, struct blob *b);

#endif
