/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8_repair and utf8_json_string (utf8.h): whatever bytes a program
 * writes, the repaired text is valid UTF-8 within 3 bytes per input byte,
 * valid text passes unchanged, repair is idempotent, and the JSON string
 * json-c makes of it (as engine.c serialises it) is valid UTF-8 and valid
 * JSON that reads back as exactly the repaired bytes.
 */
#include <json-c/json.h>

#include "fuzz.h"
#include "util/utf8.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_copy(data, size);
	char *out = malloc(3 * size + 1), *again = malloc(9 * size + 1);
	struct json_object *str, *back;
	struct json_tokener *tok;
	const char *text;
	size_t n, n2, tlen = 0;

	if (!out || !again)
		abort();
	n = utf8_repair(in, size, out);
	FUZZ_CHECK(n <= 3 * size, "%zu bytes out of %zu", n, size);
	FUZZ_CHECK(fuzz_utf8_valid(out, n), "repaired text is not UTF-8");
	if (fuzz_utf8_valid(in, size))
		FUZZ_CHECK(n == size && memcmp(in, out, n) == 0,
			   "valid UTF-8 was changed");
	n2 = utf8_repair(out, n, again);
	FUZZ_CHECK(n2 == n && memcmp(out, again, n) == 0, "repair not idempotent");

	str = utf8_json_string(in, size);
	FUZZ_CHECK(str != NULL, "no JSON string");
	FUZZ_CHECK(json_object_get_string_len(str) == (int)n &&
		   memcmp(json_object_get_string(str), out, n) == 0,
		   "JSON string differs from the repaired text");
	text = json_object_to_json_string_length(str, JSON_FLAGS, &tlen);
	FUZZ_CHECK(text && tlen >= 2 && text[0] == '"' && text[tlen - 1] == '"',
		   "not a JSON string literal");
	FUZZ_CHECK(fuzz_utf8_valid(text, tlen), "serialised JSON is not UTF-8");
	for (size_t i = 0; i < tlen; i++)
		FUZZ_CHECK((unsigned char)text[i] >= 0x20,
			   "raw control byte 0x%02x at %zu in JSON", text[i], i);

	tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	back = json_tokener_parse_ex(tok, text, (int)tlen);
	if (json_tokener_get_error(tok) == json_tokener_continue)
		back = json_tokener_parse_ex(tok, "", 1);
	FUZZ_CHECK(back && json_tokener_get_error(tok) == json_tokener_success,
		   "serialised JSON does not parse: %s",
		   json_tokener_error_desc(json_tokener_get_error(tok)));
	FUZZ_CHECK(json_object_is_type(back, json_type_string) &&
		   json_object_get_string_len(back) == (int)n &&
		   memcmp(json_object_get_string(back), out, n) == 0,
		   "JSON does not read back as the repaired text");
	json_tokener_free(tok);
	json_object_put(back);
	json_object_put(str);
	free(again);
	free(out);
	free(in);
	return 0;
}
