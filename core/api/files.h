/* SPDX-License-Identifier: Apache-2.0 */
/*
 * files: a request's `files` array, parsed and checked: the one parser every
 * API that takes several files uses (POST /execute and Piston's front
 * today; /evaluate's and Judge0's are to reuse it).  One set of limits:
 * at most RUN_FILES_MAX files (the bytes are within the body's cap), names
 * that are relative paths of plain components (no "..", ".", empty part,
 * NUL or control character, no leading '/', at most FILES_DEPTH_MAX deep),
 * no name twice and no file where another needs a directory.  Contents
 * come as `utf8` (default), `base64` or `hex`.  A file without a name is
 * left unnamed here: which name it gets is the language's (files_name).
 */
#ifndef GAOL_FILES_H
#define GAOL_FILES_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

#define FILES_DEPTH_MAX 8
#define FILES_NAME_MAX 1024      /* bytes of one name, all parts */
#define FILES_PART_MAX 255       /* bytes of one part (NAME_MAX) */

struct req_file {
	char *name;              /* NULL: the request gave none */
	char *data;              /* decoded, NUL-terminated (len excludes it) */
	size_t len;
};

struct req_files {
	struct req_file *v;
	size_t n;
};

/* Parses arr (the request's "files": an array of {name, content,
 * encoding}) into *out: at least one file, at most max.  0, or -1 with
 * the reason naming the field ("files[2].name: ..."). */
int files_parse(struct json_object *arr, size_t max, struct req_files *out,
		char *err, size_t errlen);
/* Gives every unnamed file a name: the first entry (the entry point),
 * the others "file<i>.code" as Piston names them; then checks the set
 * (no name twice, no file in another's place).  0, or -1 with err. */
int files_name(struct req_files *f, const char *entry, char *err, size_t errlen);
void files_free(struct req_files *f);

/* Whether name[0..len) is a relative path of plain components, at most
 * FILES_DEPTH_MAX deep. */
bool files_name_ok(const char *name, size_t len);
/* Decodes s[0..len) in encoding enc ("utf8", "base64", "hex") into a
 * malloc'd, NUL-terminated buffer.  0; -1 with err when the text is not
 * valid in that encoding; -2 when enc is none of those. */
int files_decode(const char *enc, const char *s, size_t len, char **out,
		 size_t *outlen, char *err, size_t errlen);

#endif
