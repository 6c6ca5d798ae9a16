/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json: the one strict parser of a JSON object, shared by the request
 * bodies (core/api/request.c) and the language manifests
 * (core/lang/manifest.c): json-c's tokener in strict mode with a depth
 * limit and UTF-8 validation, nothing but whitespace after the object.
 * What went wrong comes back as a kind, so each caller words it its own way.
 */
#ifndef GAOL_JSON_H
#define GAOL_JSON_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/* JSON's whitespace: space, tab, CR, LF. */
bool json_is_space(char c);

enum json_fault_kind {
	JSON_INVALID,            /* not JSON: desc, at byte */
	JSON_BAD_UTF8,           /* a string is not UTF-8 (json-c's check), at byte */
	JSON_TRAILING,           /* data after the value, at byte */
	JSON_NON_FINITE,         /* NaN, Infinity, or a number out of range */
	JSON_NOT_OBJECT,         /* the value is of type type */
	JSON_NO_MEMORY,
};

struct json_fault {
	enum json_fault_kind kind;
	const char *desc;        /* JSON_INVALID, JSON_BAD_UTF8: json-c's words */
	size_t byte;
	const char *type;        /* JSON_NOT_OBJECT: "array", "null", ... */
};

/* Parses text[0..len) (len <= INT_MAX) as one JSON object, at most depth
 * deep.  finite: refuse NaN, Infinity and numbers out of a double's range,
 * which json-c takes even in strict mode.  The object (json_object_put it),
 * or NULL with *f. */
struct json_object *json_strict_object(const char *text, size_t len, int depth,
				       bool finite, struct json_fault *f);

#endif
