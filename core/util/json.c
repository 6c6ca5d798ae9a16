/* SPDX-License-Identifier: Apache-2.0 */
/* json: see json.h. */
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "util/json.h"

bool json_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* json-c takes NaN, Infinity and -Infinity even in strict mode, and makes a
 * number out of a double's range (1e400) infinite: none of them is a JSON
 * number (RFC 8259 section 6).  Depth is bounded by the tokener's limit. */
static bool has_non_finite(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_double:
		return !isfinite(json_object_get_double(v));
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (has_non_finite(json_object_array_get_idx(v, i)))
				return true;
		return false;
	case json_type_object: {
		json_object_object_foreach(v, key, val) {
			(void)key;
			if (has_non_finite(val))
				return true;
		}
		return false;
	}
	default:
		return false;
	}
}

struct json_object *json_strict_object(const char *text, size_t len, int depth,
				       bool finite, struct json_fault *f)
{
	memset(f, 0, sizeof(*f));
	struct json_tokener *tok = json_tokener_new_ex(depth);
	if (!tok) {
		f->kind = JSON_NO_MEMORY;
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	struct json_object *obj = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	/* A top-level scalar ("null", "42") waits for more input; the NUL
	 * byte that json-c takes as the end of input settles it. */
	if (jerr == json_tokener_continue) {
		obj = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
	}
	json_tokener_free(tok);
	f->byte = end;
	if (jerr != json_tokener_success) {
		f->kind = jerr == json_tokener_error_parse_utf8_string ? JSON_BAD_UTF8
								       : JSON_INVALID;
		f->desc = json_tokener_error_desc(jerr);
		return NULL;
	}
	for (; end < len; end++)
		if (!json_is_space(text[end])) {
			json_object_put(obj);
			f->kind = JSON_TRAILING;
			f->byte = end;
			return NULL;
		}
	if (finite && has_non_finite(obj)) {
		json_object_put(obj);
		f->kind = JSON_NON_FINITE;
		return NULL;
	}
	if (!json_object_is_type(obj, json_type_object)) {
		f->kind = JSON_NOT_OBJECT;
		f->type = json_type_to_name(json_object_get_type(obj));
		json_object_put(obj);
		return NULL;
	}
	return obj;
}
