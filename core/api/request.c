/* SPDX-License-Identifier: Apache-2.0 */
/*
 * request: POST /run's body, checked for shape.
 *
 * The parser is util/json.c's strict one, after checks of its own (a body
 * is not empty, and UTF-8 stricter than json-c's).  As in the Codebattle
 * runner, unknown fields are ignored, and a key given twice takes its last
 * value (json-c replaces on insert).  For the
 * optional fields, null means absent: clients serialise a missing checker as
 * "checker_text": null.
 */
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fail.h"
#include "util/json.h"
#include "api/request.h"
#include "util/timeout.h"
#include "util/utf8.h"

/* The request is flat; depth only matters for ignored fields. */
#define REQUEST_DEPTH_MAX 32


/* "90s", "2m" or "1500ms": the shortest exact way to say ms. */
static void format_ms(long ms, char *buf, size_t len)
{
	if (ms % 60000 == 0)
		snprintf(buf, len, "%ldm", ms / 60000);
	else if (ms % 1000 == 0)
		snprintf(buf, len, "%lds", ms / 1000);
	else
		snprintf(buf, len, "%ldms", ms);
}

/* Looks up an optional string field: 0 and *val NULL when absent or null,
 * 0 and *val when a string, -1 with a reason when another type. */
static int get_string(struct json_object *obj, const char *key, struct json_object **val,
		      char *err, size_t errlen)
{
	struct json_object *v;

	*val = NULL;
	if (!json_object_object_get_ex(obj, key, &v) || v == NULL)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return fail(err, errlen, "%s must be a string, not %s", key,
			    json_type_to_name(json_object_get_type(v)));
	*val = v;
	return 0;
}

/* The start of a client's string for an error message: at most 32 bytes,
 * cut at a character boundary (the body was checked to be UTF-8). */
static void excerpt(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (n < len) {
		memcpy(buf, s, n + 1);
		return;
	}
	n = len - 4;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(buf, s, n);
	memcpy(buf + n, "...", 4);
}

int copy_blob(struct json_object *v, struct blob *b)
{
	int len = json_object_get_string_len(v);

	if ((b->data = malloc((size_t)len + 1)) == NULL)
		return -1;
	memcpy(b->data, json_object_get_string(v), (size_t)len);
	b->data[len] = '\0';
	b->len = (size_t)len;
	return 0;
}

static int has_nul(struct json_object *v)
{
	return strlen(json_object_get_string(v)) !=
	       (size_t)json_object_get_string_len(v);
}

static int parse_fields(struct json_object *obj, long timeout_default_ms,
			long timeout_max_ms, struct run_request *req, char *err,
			size_t errlen)
{
	struct json_object *slug, *solution, *checker, *asserts, *timeout;
	char max[32], quoted[36];

	if (get_string(obj, "lang_slug", &slug, err, errlen) == -1 ||
	    get_string(obj, "solution_text", &solution, err, errlen) == -1 ||
	    get_string(obj, "checker_text", &checker, err, errlen) == -1 ||
	    get_string(obj, "asserts", &asserts, err, errlen) == -1 ||
	    get_string(obj, "timeout", &timeout, err, errlen) == -1)
		return -1;

	if (slug == NULL)
		return fail(err, errlen, "lang_slug is missing");
	if (json_object_get_string_len(slug) == 0)
		return fail(err, errlen, "lang_slug is empty");
	if (has_nul(slug))
		return fail(err, errlen, "lang_slug contains a NUL character");
	if (solution == NULL)
		return fail(err, errlen, "solution_text is missing");

	req->timeout_ms = timeout_default_ms;
	if (timeout != NULL) {
		const char *t = json_object_get_string(timeout);

		excerpt(t, quoted, sizeof(quoted));
		if (has_nul(timeout) || timeout_parse(t, &req->timeout_ms) == -1)
			return fail(err, errlen, "timeout \"%s\" is not a "
				    "positive whole number with a unit ms, s or m "
				    "(e.g. \"30s\")", quoted);
		if (req->timeout_ms > timeout_max_ms) {
			format_ms(timeout_max_ms, max, sizeof(max));
			return fail(err, errlen, "timeout \"%s\" is above the "
				    "maximum of %s (RUN_TIMEOUT_MAX)", quoted, max);
		}
	}

	if ((req->lang_slug = strdup(json_object_get_string(slug))) == NULL ||
	    copy_blob(solution, &req->solution) == -1 ||
	    (checker != NULL && copy_blob(checker, &req->checker) == -1) ||
	    (asserts != NULL && copy_blob(asserts, &req->asserts) == -1))
		return fail(err, errlen, "out of memory");
	return 0;
}

struct json_object *json_body_parse(const char *body, size_t len, char *err, size_t errlen)
{
	size_t end;

	if (len > INT_MAX) {
		fail(err, errlen, "body is too large");
		return NULL;
	}
	/* A UTF-8 byte order mark is not JSON, but harmless: skip it. */
	if (len >= 3 && memcmp(body, "\xef\xbb\xbf", 3) == 0) {
		body += 3;
		len -= 3;
	}
	for (end = 0; end < len && json_is_space(body[end]); end++)
		;
	if (end == len) {
		fail(err, errlen, "body is empty");
		return NULL;
	}
	/* json-c's own check (JSON_TOKENER_VALIDATE_UTF8, kept below) lets
	 * overlong forms, surrogates and code points above U+10FFFF through. */
	if ((end = utf8_valid_prefix(body, len)) < len) {
		fail(err, errlen, "body is not valid UTF-8 (at byte %zu)", end);
		return NULL;
	}
	struct json_fault f;
	struct json_object *obj = json_strict_object(body, len, REQUEST_DEPTH_MAX, true, &f);
	if (obj)
		return obj;
	switch (f.kind) {
	case JSON_NO_MEMORY:
		fail(err, errlen, "out of memory");
		break;
	case JSON_BAD_UTF8:
		fail(err, errlen, "body is not valid UTF-8 (at byte %zu)", f.byte);
		break;
	case JSON_INVALID:
		fail(err, errlen, "body is not valid JSON: %s at byte %zu", f.desc, f.byte);
		break;
	case JSON_TRAILING:
		fail(err, errlen, "body has data after the JSON object at byte %zu", f.byte);
		break;
	case JSON_NON_FINITE:
		fail(err, errlen, "body is not valid JSON: NaN, Infinity or a "
		     "number out of range");
		break;
	case JSON_NOT_OBJECT:
		fail(err, errlen, "body must be a JSON object, not %s", f.type);
		break;
	}
	return NULL;
}

int run_request_parse(const char *body, size_t len, long timeout_default_ms,
		      long timeout_max_ms, struct run_request *req, char *err,
		      size_t errlen)
{
	struct json_object *obj;
	int rc;

	memset(req, 0, sizeof(*req));
	if ((obj = json_body_parse(body, len, err, errlen)) == NULL)
		return -1;
	rc = parse_fields(obj, timeout_default_ms, timeout_max_ms, req, err,
			  errlen);
	json_object_put(obj);
	if (rc == -1)
		run_request_free(req);
	return rc;
}

void run_request_free(struct run_request *req)
{
	free(req->lang_slug);
	free(req->solution.data);
	free(req->checker.data);
	free(req->asserts.data);
	memset(req, 0, sizeof(*req));
}
