/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_request_parse: the shape of POST /run's body (docs/api.md,
 * "POST /run").  Every
 * refusal is a 400 whose reason names the field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/request.h"
#include "suites.h"

#define DEFAULT_MS 30000
#define MAX_MS     60000

static struct run_request req;
static char err[256];

static void
teardown(void)
{
	run_request_free(&req);
}

static void
accepted(const char *body)
{
	err[0] = '\0';
	ck_assert_msg(run_request_parse(body, strlen(body), DEFAULT_MS, MAX_MS,
					&req, err, sizeof(err)) == 0,
		      "%s refused: %s", body, err);
}

/* Refused, with a reason that holds each of the words. */
static void
refused(const char *body, const char *word, const char *word2)
{
	err[0] = '\0';
	ck_assert_msg(run_request_parse(body, strlen(body), DEFAULT_MS, MAX_MS,
					&req, err, sizeof(err)) == -1,
		      "%s accepted", body);
	ck_assert_ptr_null(req.lang_slug);
	ck_assert_ptr_null(req.solution.data);
	ck_assert_msg(strstr(err, word) != NULL, "\"%s\" lacks \"%s\"", err,
		      word);
	if (word2 != NULL)
		ck_assert_msg(strstr(err, word2) != NULL, "\"%s\" lacks \"%s\"",
			      err, word2);
}

START_TEST(request_minimal_gets_the_defaults)
{
	accepted("{\"lang_slug\": \"python\", \"solution_text\": \"print(1)\"}");
	ck_assert_str_eq(req.lang_slug, "python");
	ck_assert_str_eq(req.solution.data, "print(1)");
	ck_assert_uint_eq(req.solution.len, 8);
	ck_assert_ptr_null(req.checker.data);
	ck_assert_ptr_null(req.asserts.data);
	ck_assert_int_eq(req.timeout_ms, DEFAULT_MS);
}
END_TEST

START_TEST(request_takes_every_field)
{
	accepted("{\"lang_slug\": \"cpp\", \"solution_text\": \"int f();\","
		 " \"checker_text\": \"int main(){}\","
		 " \"asserts\": \"{\\\"arguments\\\": [[1, 2]]}\","
		 " \"timeout\": \"1500ms\"}");
	ck_assert_str_eq(req.lang_slug, "cpp");
	ck_assert_str_eq(req.solution.data, "int f();");
	ck_assert_str_eq(req.checker.data, "int main(){}");
	ck_assert_uint_eq(req.checker.len, 12);
	ck_assert_str_eq(req.asserts.data, "{\"arguments\": [[1, 2]]}");
	ck_assert_int_eq(req.timeout_ms, 1500);
}
END_TEST

START_TEST(request_keeps_nul_inside_texts)
{
	accepted("{\"lang_slug\": \"python\", \"solution_text\": \"a\\u0000b\","
		 " \"asserts\": \"\\u0000\"}");
	ck_assert_uint_eq(req.solution.len, 3);
	ck_assert_mem_eq(req.solution.data, "a\0b", 4);
	ck_assert_uint_eq(req.asserts.len, 1);
}
END_TEST

START_TEST(request_allows_empty_solution_text)
{
	accepted("{\"lang_slug\": \"python\", \"solution_text\": \"\"}");
	ck_assert_ptr_nonnull(req.solution.data);
	ck_assert_uint_eq(req.solution.len, 0);
}
END_TEST

START_TEST(request_null_optional_fields_are_absent)
{
	accepted("{\"lang_slug\": \"python\", \"solution_text\": \"x\","
		 " \"checker_text\": null, \"asserts\": null, \"timeout\": null}");
	ck_assert_ptr_null(req.checker.data);
	ck_assert_ptr_null(req.asserts.data);
	ck_assert_int_eq(req.timeout_ms, DEFAULT_MS);
}
END_TEST

START_TEST(request_ignores_unknown_fields)
{
	accepted("{\"lang_slug\": \"python\", \"solution_text\": \"x\","
		 " \"user_id\": 42, \"extra\": {\"a\": [1, {\"b\": null}]}}");
	ck_assert_str_eq(req.lang_slug, "python");
}
END_TEST

START_TEST(request_duplicate_key_takes_the_last)
{
	accepted("{\"lang_slug\": \"ruby\", \"solution_text\": \"x\","
		 " \"lang_slug\": \"python\"}");
	ck_assert_str_eq(req.lang_slug, "python");
}
END_TEST

START_TEST(request_allows_surrounding_whitespace_and_a_bom)
{
	accepted(" \r\n\t{\"lang_slug\": \"js\", \"solution_text\": \"x\"}\n\n ");
	run_request_free(&req);
	accepted("\xef\xbb\xbf{\"lang_slug\": \"js\", \"solution_text\": \"x\"}");
}
END_TEST

START_TEST(request_reads_only_len_bytes)
{
	const char *body = "{\"lang_slug\": \"js\", \"solution_text\": \"x\"}garbage";
	size_t len = strlen(body) - strlen("garbage");

	ck_assert_int_eq(run_request_parse(body, len, DEFAULT_MS, MAX_MS, &req,
					   err, sizeof(err)), 0);
	ck_assert_str_eq(req.lang_slug, "js");
}
END_TEST

START_TEST(request_accepts_timeout_at_the_max)
{
	accepted("{\"lang_slug\": \"js\", \"solution_text\": \"x\","
		 " \"timeout\": \"1m\"}");
	ck_assert_int_eq(req.timeout_ms, MAX_MS);
}
END_TEST

START_TEST(request_rejects_an_empty_body)
{
	refused("", "empty", NULL);
	refused(" \n ", "empty", NULL);
}
END_TEST

START_TEST(request_rejects_invalid_json)
{
	refused("{lang_slug: 1}", "JSON", NULL);
	refused("{\"lang_slug\": \"x\",}", "JSON", NULL);
	refused("{\"lang_slug\": tru}", "JSON", NULL);
}
END_TEST

START_TEST(request_rejects_truncated_json)
{
	refused("{\"lang_slug\": \"python\", \"solution_text\": \"x",
		"JSON", NULL);
}
END_TEST

START_TEST(request_rejects_trailing_data)
{
	refused("{\"lang_slug\": \"js\", \"solution_text\": \"x\"} x", "JSON",
		NULL);
	refused("{\"lang_slug\": \"js\", \"solution_text\": \"x\"}{}", "JSON",
		NULL);
}
END_TEST

START_TEST(request_rejects_a_body_that_is_not_an_object)
{
	refused("[1, 2]", "object", "array");
	refused("\"text\"", "object", "string");
	refused("null", "object", "null");
	refused("true", "object", NULL);
	refused("42", "object", NULL);
}
END_TEST

START_TEST(request_rejects_invalid_utf8)
{
	refused("{\"lang_slug\": \"js\", \"solution_text\": \"\xff\"}", "UTF-8",
		NULL);
}
END_TEST

START_TEST(request_rejects_deep_nesting)
{
	char body[512];
	size_t i, n = 0;

	n += (size_t)sprintf(body, "{\"lang_slug\": \"js\", \"solution_text\":"
			     " \"x\", \"deep\": ");
	for (i = 0; i < 100; i++)
		body[n++] = '[';
	for (i = 0; i < 100; i++)
		body[n++] = ']';
	strcpy(body + n, "}");
	refused(body, "deep", NULL);
}
END_TEST

START_TEST(request_rejects_missing_lang_slug)
{
	refused("{\"solution_text\": \"x\"}", "lang_slug", "missing");
}
END_TEST

START_TEST(request_rejects_empty_lang_slug)
{
	refused("{\"lang_slug\": \"\", \"solution_text\": \"x\"}", "lang_slug",
		"empty");
}
END_TEST

START_TEST(request_rejects_nul_in_lang_slug)
{
	refused("{\"lang_slug\": \"js\\u0000x\", \"solution_text\": \"x\"}",
		"lang_slug", "NUL");
}
END_TEST

START_TEST(request_rejects_missing_solution_text)
{
	refused("{\"lang_slug\": \"js\"}", "solution_text", "missing");
	refused("{\"lang_slug\": \"js\", \"solution_text\": null}",
		"solution_text", "missing");
}
END_TEST

START_TEST(request_rejects_a_non_string_lang_slug)
{
	refused("{\"lang_slug\": 7, \"solution_text\": \"x\"}", "lang_slug",
		"string");
	refused("{\"lang_slug\": null, \"solution_text\": \"x\"}", "lang_slug",
		"missing");
}
END_TEST

START_TEST(request_rejects_a_non_string_solution_text)
{
	refused("{\"lang_slug\": \"js\", \"solution_text\": [\"x\"]}",
		"solution_text", "string");
}
END_TEST

START_TEST(request_rejects_a_non_string_checker_text)
{
	refused("{\"lang_slug\": \"js\", \"solution_text\": \"x\","
		" \"checker_text\": {}}", "checker_text", "string");
}
END_TEST

START_TEST(request_rejects_asserts_that_are_not_a_string)
{
	refused("{\"lang_slug\": \"js\", \"solution_text\": \"x\","
		" \"asserts\": {\"arguments\": [[1]]}}", "asserts", "string");
	refused("{\"lang_slug\": \"js\", \"solution_text\": \"x\","
		" \"asserts\": [1]}", "asserts", "string");
}
END_TEST

START_TEST(request_rejects_a_non_string_timeout)
{
	refused("{\"lang_slug\": \"js\", \"solution_text\": \"x\","
		" \"timeout\": 30}", "timeout", "string");
}
END_TEST

START_TEST(request_rejects_a_bad_timeout)
{
	static const char *const bad[] = {
		"30", "0s", "1.5s", "-1s", "30 s", "", "30h", "3\\u0000s",
	};
	char body[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(body, sizeof(body), "{\"lang_slug\": \"js\","
			 " \"solution_text\": \"x\", \"timeout\": \"%s\"}", bad[i]);
		refused(body, "timeout", "unit");
	}
}
END_TEST

START_TEST(request_rejects_a_timeout_above_the_max)
{
	refused("{\"lang_slug\": \"js\", \"solution_text\": \"x\","
		" \"timeout\": \"60001ms\"}", "timeout", "maximum of 1m");
	refused("{\"lang_slug\": \"js\", \"solution_text\": \"x\","
		" \"timeout\": \"99999999999999999999m\"}", "timeout", NULL);
}
END_TEST

START_TEST(request_quotes_a_long_bad_timeout_cut_short)
{
	refused("{\"lang_slug\": \"js\", \"solution_text\": \"x\", \"timeout\":"
		" \"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"}", "timeout", "...");
	/* The excerpt ends on a whole character. */
	ck_assert_ptr_null(strstr(err, "\xc3..."));
}
END_TEST

Suite *
request_suite(void)
{
	Suite *s = suite_create("request");
	TCase *ok = tcase_create("accepted"), *bad = tcase_create("refused");

	tcase_add_checked_fixture(ok, NULL, teardown);
	tcase_add_checked_fixture(bad, NULL, teardown);
	tcase_add_test(ok, request_minimal_gets_the_defaults);
	tcase_add_test(ok, request_takes_every_field);
	tcase_add_test(ok, request_keeps_nul_inside_texts);
	tcase_add_test(ok, request_allows_empty_solution_text);
	tcase_add_test(ok, request_null_optional_fields_are_absent);
	tcase_add_test(ok, request_ignores_unknown_fields);
	tcase_add_test(ok, request_duplicate_key_takes_the_last);
	tcase_add_test(ok, request_allows_surrounding_whitespace_and_a_bom);
	tcase_add_test(ok, request_reads_only_len_bytes);
	tcase_add_test(ok, request_accepts_timeout_at_the_max);
	tcase_add_test(bad, request_rejects_an_empty_body);
	tcase_add_test(bad, request_rejects_invalid_json);
	tcase_add_test(bad, request_rejects_truncated_json);
	tcase_add_test(bad, request_rejects_trailing_data);
	tcase_add_test(bad, request_rejects_a_body_that_is_not_an_object);
	tcase_add_test(bad, request_rejects_invalid_utf8);
	tcase_add_test(bad, request_rejects_deep_nesting);
	tcase_add_test(bad, request_rejects_missing_lang_slug);
	tcase_add_test(bad, request_rejects_empty_lang_slug);
	tcase_add_test(bad, request_rejects_nul_in_lang_slug);
	tcase_add_test(bad, request_rejects_missing_solution_text);
	tcase_add_test(bad, request_rejects_a_non_string_lang_slug);
	tcase_add_test(bad, request_rejects_a_non_string_solution_text);
	tcase_add_test(bad, request_rejects_a_non_string_checker_text);
	tcase_add_test(bad, request_rejects_asserts_that_are_not_a_string);
	tcase_add_test(bad, request_rejects_a_non_string_timeout);
	tcase_add_test(bad, request_rejects_a_bad_timeout);
	tcase_add_test(bad, request_rejects_a_timeout_above_the_max);
	tcase_add_test(bad, request_quotes_a_long_bad_timeout_cut_short);
	suite_add_tcase(s, ok);
	suite_add_tcase(s, bad);
	return s;
}
