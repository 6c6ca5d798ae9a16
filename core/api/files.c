/* SPDX-License-Identifier: Apache-2.0 */
/*
 * files: see files.h.  Decoding is strict: base64 with its padding (RFC
 * 4648, no line breaks), hex of an even length in either case; what does
 * not decode is the client's mistake, named with its file's index.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "api/files.h"
#include "util/fail.h"

bool files_name_ok(const char *name, size_t len)
{
	size_t depth = 0, part = 0;

	if (len == 0 || len > FILES_NAME_MAX || name[0] == '/')
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && name[i] != '/') {
			if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
				return false;
			if (++part > FILES_PART_MAX)
				return false;
			continue;
		}
		/* The part that ended at i: not empty, ".", ".." */
		const char *p = name + i - part;
		if (part == 0 || (part == 1 && p[0] == '.') ||
		    (part == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (++depth > FILES_DEPTH_MAX)
			return false;
		part = 0;
	}
	return true;
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* RFC 4648 base64 with padding; out holds len / 4 * 3 + 1 bytes. */
static int base64_decode(const char *s, size_t len, char *out, size_t *outlen)
{
	size_t n = 0;

	if (len % 4)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;
		for (int k = 0; k < 4; k++) {
			bool last = i + 4 == len;
			if (s[i + k] == '=' && last && k >= 2 &&
			    (k == 3 || s[i + 3] == '=')) {
				v[k] = 0;
				pad++;
			} else if ((v[k] = b64_value(s[i + k])) < 0 || pad) {
				return -1;
			}
		}
		unsigned w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 |
			     (unsigned)v[2] << 6 | (unsigned)v[3];
		out[n++] = (char)(w >> 16);
		if (pad < 2)
			out[n++] = (char)(w >> 8 & 0xff);
		if (pad < 1)
			out[n++] = (char)(w & 0xff);
	}
	*outlen = n;
	return 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int hex_decode(const char *s, size_t len, char *out, size_t *outlen)
{
	if (len % 2)
		return -1;
	for (size_t i = 0; i < len; i += 2) {
		int hi = hex_value(s[i]), lo = hex_value(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i / 2] = (char)(hi << 4 | lo);
	}
	*outlen = len / 2;
	return 0;
}

int files_decode(const char *enc, const char *s, size_t len, char **out,
		 size_t *outlen, char *err, size_t errlen)
{
	bool utf8 = !strcmp(enc, "utf8") || !strcmp(enc, "utf-8");
	if (!utf8 && strcmp(enc, "base64") && strcmp(enc, "hex"))
		return -2;
	*out = malloc(len + 1);
	if (!*out)
		return fail(err, errlen, "out of memory");
	int rc = 0;
	if (utf8) {
		memcpy(*out, s, len);
		*outlen = len;
	} else if (enc[0] == 'b') {
		rc = base64_decode(s, len, *out, outlen);
	} else {
		rc = hex_decode(s, len, *out, outlen);
	}
	if (rc < 0) {
		free(*out);
		*out = NULL;
		return fail(err, errlen, "not valid %s", enc);
	}
	(*out)[*outlen] = 0;
	return 0;
}

/* A string member of file i, or NULL when absent or null; -1 when of
 * another type. */
static int member(struct json_object *o, size_t i, const char *key,
		  struct json_object **v, char *err, size_t errlen)
{
	if (!json_object_object_get_ex(o, key, v) || !*v) {
		*v = NULL;
		return 0;
	}
	if (!json_object_is_type(*v, json_type_string))
		return fail(err, errlen, "files[%zu].%s must be a string, not %s", i, key,
			    json_type_to_name(json_object_get_type(*v)));
	return 0;
}

static int parse_one(struct json_object *o, size_t i, struct req_file *f,
		     char *err, size_t errlen)
{
	struct json_object *name, *content, *enc;
	char why[96];

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "files[%zu] must be an object, not %s", i,
			    json_type_to_name(json_object_get_type(o)));
	if (member(o, i, "name", &name, err, errlen) < 0 ||
	    member(o, i, "content", &content, err, errlen) < 0 ||
	    member(o, i, "encoding", &enc, err, errlen) < 0)
		return -1;
	if (!content)
		return fail(err, errlen, "files[%zu].content is required", i);
	if (name) {
		const char *s = json_object_get_string(name);
		size_t len = (size_t)json_object_get_string_len(name);
		if (strlen(s) != len || !files_name_ok(s, len))
			return fail(err, errlen, "files[%zu].name must be a relative path of "
				    "plain parts (no \"..\", \".\", NUL or leading \"/\", at most "
				    "%d deep)", i, FILES_DEPTH_MAX);
		if (!(f->name = strdup(s)))
			return fail(err, errlen, "out of memory");
	}
	const char *e = enc ? json_object_get_string(enc) : "utf8";
	int rc = files_decode(e, json_object_get_string(content),
			      (size_t)json_object_get_string_len(content), &f->data,
			      &f->len, why, sizeof(why));
	if (rc == -2)
		return fail(err, errlen, "files[%zu].encoding must be utf8, base64 or hex", i);
	if (rc < 0)
		return fail(err, errlen, "files[%zu].content: %s", i, why);
	return 0;
}

int files_parse(struct json_object *arr, size_t max, struct req_files *out,
		char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!arr)
		return fail(err, errlen, "files is required");
	if (!json_object_is_type(arr, json_type_array))
		return fail(err, errlen, "files must be an array, not %s",
			    json_type_to_name(json_object_get_type(arr)));
	size_t n = json_object_array_length(arr);
	if (n == 0)
		return fail(err, errlen, "files must hold at least one file");
	if (n > max)
		return fail(err, errlen, "files: %zu files, more than RUN_FILES_MAX (%zu)", n, max);
	if (!(out->v = calloc(n, sizeof(*out->v))))
		return fail(err, errlen, "out of memory");
	out->n = n;
	for (size_t i = 0; i < n; i++)
		if (parse_one(json_object_array_get_idx(arr, i), i, &out->v[i], err, errlen) < 0) {
			files_free(out);
			return -1;
		}
	return 0;
}

/* Whether a is b, or a directory b needs (b begins with "a/"). */
static bool clash(const char *a, const char *b)
{
	size_t n = strlen(a);
	return !strncmp(a, b, n) && (b[n] == 0 || b[n] == '/');
}

int files_name(struct req_files *f, const char *entry, char *err, size_t errlen)
{
	for (size_t i = 0; i < f->n; i++) {
		if (f->v[i].name)
			continue;
		if (i == 0)
			f->v[i].name = strdup(entry);
		else if (asprintf(&f->v[i].name, "file%zu.code", i) < 0)
			f->v[i].name = NULL;
		if (!f->v[i].name)
			return fail(err, errlen, "out of memory");
	}
	for (size_t i = 0; i < f->n; i++)
		for (size_t k = 0; k < f->n; k++)
			if (i != k && clash(f->v[i].name, f->v[k].name))
				return fail(err, errlen, "files[%zu].name \"%s\" %s files[%zu]'s",
					    k, f->v[k].name, strcmp(f->v[i].name, f->v[k].name)
					    ? "needs a directory where is" : "is also", i);
	return 0;
}

void files_free(struct req_files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].data);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}
