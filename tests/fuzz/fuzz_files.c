/* SPDX-License-Identifier: Apache-2.0 */
/*
 * files_parse and files_name (api/files.h), the one parser of every API's
 * `files`: any JSON array is either a set of 1 to max files whose named
 * ones are relative paths of plain parts and whose contents are terminated
 * at their length, or a refusal with a reason; once named (files_name),
 * every file has a name, no two the same, none where another needs a
 * directory.
 *
 * Input: byte 0 is max (1 to 8), the rest the JSON text of the array.
 */
#include <json-c/json.h>

#include "fuzz.h"
#include "api/files.h"

/* Whether b is a directory of a (a's name starts with b's and a '/'). */
static bool inside(const char *a, const char *b)
{
	size_t n = strlen(b);

	return !strncmp(a, b, n) && a[n] == '/';
}

static void check_named(const struct req_files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		const char *a = f->v[i].name;
		FUZZ_CHECK(a && fuzz_plain_path(a, strlen(a)), "file %zu: name %s", i,
			   a ? a : "(null)");
		for (size_t k = 0; k < i; k++) {
			const char *b = f->v[k].name;
			FUZZ_CHECK(strcmp(a, b) && !inside(a, b) && !inside(b, a),
				   "files %zu and %zu: %s, %s", k, i, b, a);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t max = 1 + data[0] % 8;
	char *text = fuzz_copy(data + 1, size - 1);
	struct json_tokener *tok = json_tokener_new();
	struct json_object *arr = tok ? json_tokener_parse_ex(tok, text, (int)(size - 1)) : NULL;
	struct req_files f = { 0 };
	char err[256];

	err[0] = '\0';
	if (arr && files_parse(arr, max, &f, err, sizeof err) == 0) {
		FUZZ_CHECK(f.n >= 1 && f.n <= max, "%zu files, max %zu", f.n, max);
		for (size_t i = 0; i < f.n; i++) {
			const struct req_file *r = &f.v[i];
			FUZZ_CHECK(r->data && r->data[r->len] == '\0', "file %zu content", i);
			FUZZ_CHECK(!r->name || fuzz_plain_path(r->name, strlen(r->name)),
				   "file %zu: name %s", i, r->name);
		}
		err[0] = '\0';
		if (files_name(&f, "main.code", err, sizeof err) == 0)
			check_named(&f);
		else
			FUZZ_CHECK(err[0] != '\0', "names refused without a reason");
		files_free(&f);
	} else if (arr) {
		FUZZ_CHECK(err[0] != '\0', "refused without a reason");
	}
	json_object_put(arr);
	if (tok)
		json_tokener_free(tok);
	free(text);
	return 0;
}
