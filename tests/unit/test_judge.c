/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge: the /evaluate request, output comparison as it streams, and verdicts
 * decided on the measurement (docs/api.md, "POST /evaluate"; docs/design.md,
 * "Judging").
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "judge/judge.h"
#include "suites.h"
#include "util/sha256.h"

static char err[512];

static int
parse(const char *body, struct eval_request *r)
{
	return eval_request_parse(body, strlen(body), EVAL_TESTS_MAX_DEFAULT, 64, r, err, sizeof(err));
}

static void
refused(const char *body, const char *reason)
{
	struct eval_request r;

	ck_assert_msg(parse(body, &r) == -1, "accepted: %s", body);
	ck_assert_msg(strstr(err, reason) != NULL, "\"%s\" lacks \"%s\"", err, reason);
}

START_TEST(evaluate_request_takes_compicode_fields)
{
	struct eval_request r;

	ck_assert_int_eq(parse("{\"code\":\"print(1)\",\"language\":\"py3\","
			       "\"test_cases\":[{\"input\":\"4\",\"expected_output\":\"8\"}]}",
			       &r), 0);
	ck_assert_str_eq(r.code.data, "print(1)");
	ck_assert_str_eq(r.language, "py3");
	ck_assert_uint_eq(r.n_tests, 1);
	ck_assert_str_eq(r.tests[0].input.data, "4");
	ck_assert_str_eq(r.tests[0].expected.data, "8");
	ck_assert_int_eq(r.time_limit_ms, EVAL_TIME_LIMIT_DEFAULT_MS);
	ck_assert_int_eq(r.memory_limit_mb, 0);
	ck_assert(!r.file_io);
	eval_request_free(&r);
}
END_TEST

START_TEST(evaluate_request_takes_limits_and_file_io)
{
	struct eval_request r;

	ck_assert_int_eq(parse("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}],"
			       "\"time_limit_ms\":500,\"memory_limit_mb\":64,"
			       "\"input_mode\":\"file\",\"input_file\":\"in.txt\","
			       "\"output_file\":\"out.txt\"}", &r), 0);
	ck_assert_int_eq(r.time_limit_ms, 500);
	ck_assert_int_eq(r.memory_limit_mb, 64);
	ck_assert(r.file_io);
	ck_assert_str_eq(r.input_file, "in.txt");
	ck_assert_str_eq(r.output_file, "out.txt");
	ck_assert_str_eq(r.tests[0].input.data, "");
	eval_request_free(&r);
}
END_TEST

START_TEST(evaluate_request_takes_docker_evaluator_fields)
{
	struct eval_request r;

	ck_assert_int_eq(parse("{\"code\":\"x\",\"language\":\"cpp\",\"test_cases\":[],"
			       "\"input_type\":\"file\",\"file_io_name\":\"sum\","
			       "\"comparison\":\"tokens\",\"wall_time_limit_ms\":1500}", &r), 0);
	ck_assert_uint_eq(r.n_tests, 0);
	ck_assert(r.file_io && r.tokens);
	ck_assert_str_eq(r.input_file, "sum.in");
	ck_assert_str_eq(r.output_file, "sum.out");
	ck_assert_int_eq(r.wall_time_limit_ms, 1500);
	eval_request_free(&r);
}
END_TEST

START_TEST(evaluate_request_takes_at_most_tests_max_test_cases)
{
	struct eval_request r;
	const char *three = "{\"code\":\"x\",\"language\":\"c\",\"test_cases\":"
			    "[{\"expected_output\":\"1\"},{\"expected_output\":\"2\"},"
			    "{\"expected_output\":\"3\"}]}";

	ck_assert_int_eq(eval_request_parse(three, strlen(three), 3, 64, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.n_tests, 3);
	eval_request_free(&r);
	ck_assert_int_eq(eval_request_parse(three, strlen(three), 2, 64, &r, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "at most 2 (RUN_EVAL_TESTS_MAX)"), "%s", err);
}
END_TEST

START_TEST(evaluate_request_refuses_malformed_bodies)
{
	refused("{\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}]}", "code is required");
	refused("{\"code\":\"x\",\"test_cases\":[{\"expected_output\":\"\"}]}", "language is required");
	refused("{\"code\":\"x\",\"language\":\"c\"}", "test_cases is required");
	refused("{\"code\":1,\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}]}", "code must be a string");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":{}}", "test_cases must be an array");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"input\":\"\"}]}",
		"test_cases[0].expected_output is required");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}],"
		"\"comparison\":\"exact\"}", "comparison must be");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}],"
		"\"input_type\":\"pipe\"}", "input_type must be");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}],"
		"\"file_io_name\":\"../x\"}", "file_io_name must be a plain file name");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[1]}", "test_cases[0] must be an object");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"input\":5}]}",
		"test_cases[0].input must be a string");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}],\"time_limit_ms\":0}",
		"time_limit_ms must be between");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}],\"time_limit_ms\":\"1s\"}",
		"time_limit_ms must be an integer");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}],\"memory_limit_mb\":1}",
		"memory_limit_mb must be between");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}],\"input_mode\":\"pipe\"}",
		"input_mode must be");
	refused("{\"code\":\"x\",\"language\":\"c\",\"test_cases\":[{\"expected_output\":\"\"}],\"input_file\":\"../etc/x\"}",
		"input_file must be a plain file name");
	refused("[1]", "must be a JSON object");
	refused("{\"code\":", "not valid JSON");
}
END_TEST

static bool
same(const char *expected, const char *actual)
{
	return compare_equal(expected, strlen(expected), actual, strlen(actual));
}

START_TEST(compare_ignores_leading_and_trailing_whitespace)
{
	ck_assert(same("8", "8\n"));
	ck_assert(same("8\n", "  \n8"));
	ck_assert(same(" 1 2 \n", "1 2"));
	ck_assert(same("", "\n\n  "));
}
END_TEST

START_TEST(compare_takes_crlf_as_lf)
{
	ck_assert(same("1\r\n2\r\n", "1\n2\n"));
	ck_assert(same("1\n2", "1\r\n2\r\n"));
}
END_TEST

START_TEST(compare_takes_a_lone_cr_as_lf)
{
	/* CompiCode's normalize_newlines: CRLF and CR are both LF. */
	ck_assert(same("a\rb", "a\nb"));
	ck_assert(same("a\nb", "a\r\rb") == false);
	ck_assert(same("a\n\nb", "a\r\rb"));
	ck_assert(same("a\nb", "a\r"  "\nb"));
}
END_TEST

static bool
tokens(const char *expected, const char *actual)
{
	return compare_equal_mode(expected, strlen(expected), actual, strlen(actual), true);
}

START_TEST(compare_by_tokens_splits_on_whitespace)
{
	/* docker-evaluator: output.split() == expected.split(). */
	ck_assert(tokens("1 2 3", "1\n2\t3\n"));
	ck_assert(tokens("  1   2\n", "1 2"));
	ck_assert(tokens("", " \n "));
	ck_assert(!tokens("1 2", "12"));
	ck_assert(!tokens("12", "1 2"));
	ck_assert(!tokens("1 2", "1 2 3"));
	ck_assert(!tokens("1 2 3", "1 2"));
	ck_assert(!same("1 2", "1  2"));
}
END_TEST

START_TEST(compare_sees_inner_differences)
{
	ck_assert(!same("1 2", "1  2"));
	ck_assert(!same("1\n2", "1 2"));
	ck_assert(!same("12", "1"));
	ck_assert(!same("1", "12"));
	ck_assert(!same("", "x"));
}
END_TEST

START_TEST(compare_works_across_chunk_boundaries)
{
	struct compare c;

	ck_assert_int_eq(compare_init(&c, "ab\ncd", 5), 0);
	ck_assert_int_eq(compare_feed(&c, "a", 1), 0);
	ck_assert_int_eq(compare_feed(&c, "b\r", 2), 0);
	ck_assert_int_eq(compare_feed(&c, "\nc", 2), 0);
	ck_assert_int_eq(compare_feed(&c, "d\r", 2), 0);
	ck_assert(compare_finish(&c));
	compare_free(&c);
}
END_TEST

START_TEST(compare_stops_at_the_first_difference)
{
	struct compare c;

	ck_assert_int_eq(compare_init(&c, "right", 5), 0);
	ck_assert_int_eq(compare_feed(&c, "wrong\n", 6), 1);
	ck_assert_int_eq(compare_feed(&c, "right", 5), 1);
	ck_assert(!compare_finish(&c));
	compare_free(&c);
}
END_TEST

static struct sandbox_result
exited(int code, long cpu_ms)
{
	struct sandbox_result r;

	memset(&r, 0, sizeof(r));
	r.ran = true;
	r.wait_status = code << 8;      /* as waitpid reports an exit */
	r.cpu_ms = cpu_ms;
	return r;
}

START_TEST(verdict_ok_needs_a_clean_exit_and_equal_output)
{
	struct sandbox_result r = exited(0, 10);

	ck_assert_int_eq(verdict_of(&r, 1000, true), V_OK);
	ck_assert_int_eq(verdict_of(&r, 1000, false), V_WA);
}
END_TEST

START_TEST(verdict_tle_is_cpu_time_over_the_limit)
{
	struct sandbox_result r = exited(0, 1001);

	ck_assert_int_eq(verdict_of(&r, 1000, true), V_TLE);
	r.cpu_ms = 1000;
	ck_assert_int_eq(verdict_of(&r, 1000, true), V_OK);
}
END_TEST

START_TEST(verdict_a_deadline_without_cpu_is_ie_not_tle)
{
	struct sandbox_result r = exited(0, 0);

	r.killed = r.timed_out = true;
	r.deadline = DEADLINE_NO_PROGRESS;
	ck_assert_int_eq(verdict_of(&r, 1000, false), V_IE);
	r.cpu_ms = 3;
	ck_assert_int_eq(verdict_of(&r, 1000, false), V_TLE);
}
END_TEST

START_TEST(verdict_mle_is_the_cgroup_oom_kill)
{
	struct sandbox_result r = exited(0, 10);

	r.wait_status = SIGKILL;        /* as waitpid reports a signal death */
	r.oom_killed = true;
	ck_assert_int_eq(verdict_of(&r, 1000, false), V_MLE);
}
END_TEST

START_TEST(verdict_re_is_an_exit_code_or_a_signal)
{
	struct sandbox_result r = exited(3, 10);
	char details[128];

	ck_assert_int_eq(verdict_of(&r, 1000, true), V_RE);
	verdict_details(V_RE, &r, details, sizeof(details));
	ck_assert_str_eq(details, "Runtime Error (exit code 3)");
	r.wait_status = SIGSEGV;
	ck_assert_int_eq(verdict_of(&r, 1000, true), V_RE);
	verdict_details(V_RE, &r, details, sizeof(details));
	ck_assert_str_eq(details, "Runtime Error (exit code 139)");
}
END_TEST

START_TEST(verdict_ole_and_early_wa)
{
	struct sandbox_result r = exited(0, 10);

	r.killed = true;
	r.output_exceeded = STREAM_STDOUT;
	ck_assert_int_eq(verdict_of(&r, 1000, false), V_OLE);
	r.output_exceeded = STREAM_NONE;
	r.stopped = true;
	ck_assert_int_eq(verdict_of(&r, 1000, false), V_WA);
}
END_TEST

START_TEST(verdict_details_say_it_as_docker_evaluator_does)
{
	struct sandbox_result r = exited(0, 12);
	char d[128];

	verdict_details(V_OK, &r, d, sizeof(d));
	ck_assert_str_eq(d, "OK (12ms)");
	verdict_details(V_WA, &r, d, sizeof(d));
	ck_assert_str_eq(d, "Wrong Answer");
	verdict_details(V_MLE, &r, d, sizeof(d));
	ck_assert_str_eq(d, "Memory Limit Exceeded");
	verdict_details(V_CE, &r, d, sizeof(d));
	ck_assert_str_eq(d, "Compilation Error");
	verdict_details(V_TLE, &r, d, sizeof(d));
	ck_assert_str_eq(d, "Time Limit Exceeded");
}
END_TEST

/* The compile cache's entry names: SHA-256 (FIPS 180-4's examples, and a
 * million "a"s), the digest OpenSSL gave them before. */
static void sha256_hex(const void *data, size_t len, char *out)
{
	uint8_t md[SHA256_LEN];
	sha256(data, len, md);
	for (int i = 0; i < SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

START_TEST(cache_names_are_sha256)
{
	char h[2 * SHA256_LEN + 1];
	sha256_hex("", 0, h);
	ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, h);
	ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* 56 bytes: the length takes a block of its own */
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha256_hex(two, strlen(two), h);
	ck_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	char *million = malloc(1000000);
	ck_assert_ptr_nonnull(million);
	memset(million, 'a', 1000000);
	sha256_hex(million, 1000000, h);
	free(million);
	ck_assert_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

Suite *
judge_suite(void)
{
	Suite *s = suite_create("judge");
	TCase *t = tcase_create("request");

	tcase_add_test(t, evaluate_request_takes_compicode_fields);
	tcase_add_test(t, evaluate_request_takes_limits_and_file_io);
	tcase_add_test(t, evaluate_request_refuses_malformed_bodies);
	tcase_add_test(t, evaluate_request_takes_at_most_tests_max_test_cases);
	tcase_add_test(t, evaluate_request_takes_docker_evaluator_fields);
	suite_add_tcase(s, t);
	t = tcase_create("compare");
	tcase_add_test(t, compare_ignores_leading_and_trailing_whitespace);
	tcase_add_test(t, compare_takes_crlf_as_lf);
	tcase_add_test(t, compare_sees_inner_differences);
	tcase_add_test(t, compare_takes_a_lone_cr_as_lf);
	tcase_add_test(t, compare_by_tokens_splits_on_whitespace);
	tcase_add_test(t, compare_works_across_chunk_boundaries);
	tcase_add_test(t, compare_stops_at_the_first_difference);
	suite_add_tcase(s, t);
	t = tcase_create("verdict");
	tcase_add_test(t, verdict_ok_needs_a_clean_exit_and_equal_output);
	tcase_add_test(t, verdict_tle_is_cpu_time_over_the_limit);
	tcase_add_test(t, verdict_a_deadline_without_cpu_is_ie_not_tle);
	tcase_add_test(t, verdict_mle_is_the_cgroup_oom_kill);
	tcase_add_test(t, verdict_re_is_an_exit_code_or_a_signal);
	tcase_add_test(t, verdict_ole_and_early_wa);
	tcase_add_test(t, verdict_details_say_it_as_docker_evaluator_does);
	suite_add_tcase(s, t);
	t = tcase_create("cache");
	tcase_add_test(t, cache_names_are_sha256);
	suite_add_tcase(s, t);
	return s;
}
