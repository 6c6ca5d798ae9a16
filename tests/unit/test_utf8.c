/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8: strict repair, one U+FFFD per maximal invalid subpart, and JSON
 * strings that keep NUL and other control bytes (escaped).
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "util/utf8.h"

#define FFFD "\xef\xbf\xbd"

/* Repairs in[0..len) and checks the result is want[0..wantlen). */
static void
repairs_to(const char *in, size_t len, const char *want, size_t wantlen)
{
	char *out = malloc(3 * len + 1);
	size_t n;

	ck_assert_ptr_nonnull(out);
	n = utf8_repair(in, len, out);
	ck_assert_uint_le(n, 3 * len);
	ck_assert_uint_eq(n, wantlen);
	ck_assert_mem_eq(out, want, wantlen);
	free(out);
}

#define REPAIRS(in, want) repairs_to(in, sizeof(in) - 1, want, sizeof(want) - 1)
#define KEEPS(in) REPAIRS(in, in)

START_TEST(utf8_keeps_valid_text)
{
	KEEPS("");
	KEEPS("plain ASCII\n");
	KEEPS("caf\xc3\xa9");                    /* U+00E9, 2 bytes */
	KEEPS("\xe2\x82\xac");                   /* U+20AC, 3 bytes */
	KEEPS("\xf0\x9f\x98\x80");               /* U+1F600, 4 bytes */
	KEEPS("\xc2\x80\xdf\xbf");               /* 2-byte range ends */
	KEEPS("\xe0\xa0\x80\xef\xbf\xbf");       /* U+0800, U+FFFF */
	KEEPS("\xed\x9f\xbf\xee\x80\x80");       /* around the surrogates */
	KEEPS("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"); /* U+10000, U+10FFFF */
}
END_TEST

START_TEST(utf8_keeps_nul_and_controls)
{
	KEEPS("a\0b\x01\x1f\x7f");
}
END_TEST

START_TEST(utf8_replaces_each_stray_continuation_byte)
{
	REPAIRS("\x80", FFFD);
	REPAIRS("a\x80\xbf" "b", "a" FFFD FFFD "b");
}
END_TEST

START_TEST(utf8_replaces_bytes_that_never_start_a_sequence)
{
	REPAIRS("\xc0", FFFD);
	REPAIRS("\xc1", FFFD);
	REPAIRS("\xf5\xf8\xfc\xfe\xff", FFFD FFFD FFFD FFFD FFFD);
}
END_TEST

START_TEST(utf8_replaces_overlong_forms)
{
	REPAIRS("\xc0\xaf", FFFD FFFD);                 /* '/' in 2 bytes */
	REPAIRS("\xe0\x80\xaf", FFFD FFFD FFFD);        /* '/' in 3 bytes */
	REPAIRS("\xf0\x80\x80\xaf", FFFD FFFD FFFD FFFD);
	REPAIRS("\xe0\x9f\xbf", FFFD FFFD FFFD);        /* U+07FF in 3 bytes */
	REPAIRS("\xf0\x8f\xbf\xbf", FFFD FFFD FFFD FFFD);
}
END_TEST

START_TEST(utf8_replaces_surrogates)
{
	REPAIRS("\xed\xa0\x80", FFFD FFFD FFFD);        /* U+D800 */
	REPAIRS("\xed\xbf\xbf", FFFD FFFD FFFD);        /* U+DFFF */
	REPAIRS("\xed\xa0\xbd\xed\xb8\x80", FFFD FFFD FFFD FFFD FFFD FFFD);
}
END_TEST

START_TEST(utf8_replaces_code_points_above_10ffff)
{
	REPAIRS("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD);
	REPAIRS("\xf7\xbf\xbf\xbf", FFFD FFFD FFFD FFFD);
}
END_TEST

START_TEST(utf8_replaces_a_cut_sequence_once)
{
	REPAIRS("\xe2\x82" "x", FFFD "x");
	REPAIRS("\xf0\x9f\x98" "a", FFFD "a");
	REPAIRS("\xf0\x9f\xc3\xa9", FFFD "\xc3\xa9");
}
END_TEST

START_TEST(utf8_replaces_a_sequence_cut_at_the_end)
{
	REPAIRS("a\xc3", "a" FFFD);
	REPAIRS("a\xe2\x82", "a" FFFD);
	REPAIRS("a\xf0\x9f\x98", "a" FFFD);
	REPAIRS("\xf0", FFFD);
}
END_TEST

/* The example of Unicode 15, section 3.9, table 3-8. */
START_TEST(utf8_matches_the_unicode_standard_example)
{
	REPAIRS("\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
		"a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d");
}
END_TEST

START_TEST(utf8_worst_case_fits_three_times_the_input)
{
	char in[1000];
	char *out = malloc(3 * sizeof(in));

	ck_assert_ptr_nonnull(out);
	memset(in, 0x80, sizeof(in));
	ck_assert_uint_eq(utf8_repair(in, sizeof(in), out), 3 * sizeof(in));
	free(out);
}
END_TEST

static void
json_is(const char *in, size_t len, const char *want)
{
	struct json_object *obj = utf8_json_string(in, len);

	ck_assert_ptr_nonnull(obj);
	ck_assert_str_eq(json_object_to_json_string_ext(obj,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), want);
	json_object_put(obj);
}

START_TEST(utf8_json_escapes_nul)
{
	json_is("a\0b", 3, "\"a\\u0000b\"");
	json_is("\0", 1, "\"\\u0000\"");
}
END_TEST

START_TEST(utf8_json_keeps_the_length_with_nul)
{
	struct json_object *obj = utf8_json_string("a\0b\0", 4);

	ck_assert_int_eq(json_object_get_string_len(obj), 4);
	ck_assert_mem_eq(json_object_get_string(obj), "a\0b\0", 4);
	json_object_put(obj);
}
END_TEST

START_TEST(utf8_json_escapes_control_bytes)
{
	json_is("\x01\x1f\t\n\"\\", 6, "\"\\u0001\\u001f\\t\\n\\\"\\\\\"");
}
END_TEST

START_TEST(utf8_json_replaces_invalid_bytes)
{
	json_is("ok\xff", 3, "\"ok" FFFD "\"");
	json_is("\xe2\x82", 2, "\"" FFFD "\"");
}
END_TEST

START_TEST(utf8_json_of_nothing_is_empty)
{
	json_is("", 0, "\"\"");
}
END_TEST

Suite *
utf8_suite(void)
{
	Suite *s = suite_create("utf8");
	TCase *repair = tcase_create("repair"), *json = tcase_create("json");

	tcase_add_test(repair, utf8_keeps_valid_text);
	tcase_add_test(repair, utf8_keeps_nul_and_controls);
	tcase_add_test(repair, utf8_replaces_each_stray_continuation_byte);
	tcase_add_test(repair, utf8_replaces_bytes_that_never_start_a_sequence);
	tcase_add_test(repair, utf8_replaces_overlong_forms);
	tcase_add_test(repair, utf8_replaces_surrogates);
	tcase_add_test(repair, utf8_replaces_code_points_above_10ffff);
	tcase_add_test(repair, utf8_replaces_a_cut_sequence_once);
	tcase_add_test(repair, utf8_replaces_a_sequence_cut_at_the_end);
	tcase_add_test(repair, utf8_matches_the_unicode_standard_example);
	tcase_add_test(repair, utf8_worst_case_fits_three_times_the_input);
	tcase_add_test(json, utf8_json_escapes_nul);
	tcase_add_test(json, utf8_json_keeps_the_length_with_nul);
	tcase_add_test(json, utf8_json_escapes_control_bytes);
	tcase_add_test(json, utf8_json_replaces_invalid_bytes);
	tcase_add_test(json, utf8_json_of_nothing_is_empty);
	suite_add_tcase(s, repair);
	suite_add_tcase(s, json);
	return s;
}
