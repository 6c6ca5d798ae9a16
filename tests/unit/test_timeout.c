/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeout_parse: "<n>ms", "<n>s", "<n>m"; everything else is refused.
 */
#include <limits.h>
#include <stdio.h>

#include "suites.h"
#include "util/timeout.h"

static long
parsed(const char *s)
{
	long ms = -12345;

	ck_assert_msg(timeout_parse(s, &ms) == 0, "\"%s\" was refused", s);
	return ms;
}

static void
refused(const char *s)
{
	long ms = -12345;

	ck_assert_msg(timeout_parse(s, &ms) == -1, "\"%s\" was accepted", s);
	ck_assert_msg(ms == -12345, "\"%s\" wrote the result", s);
}

START_TEST(timeout_accepts_milliseconds)
{
	ck_assert_int_eq(parsed("250ms"), 250);
	ck_assert_int_eq(parsed("1ms"), 1);
}
END_TEST

START_TEST(timeout_accepts_seconds)
{
	ck_assert_int_eq(parsed("30s"), 30000);
	ck_assert_int_eq(parsed("1s"), 1000);
}
END_TEST

START_TEST(timeout_accepts_minutes)
{
	ck_assert_int_eq(parsed("2m"), 120000);
}
END_TEST

START_TEST(timeout_allows_leading_zeros)
{
	ck_assert_int_eq(parsed("05s"), 5000);
}
END_TEST

START_TEST(timeout_rejects_zero)
{
	refused("0ms");
	refused("0s");
	refused("00m");
}
END_TEST

START_TEST(timeout_requires_a_unit)
{
	refused("30");
	refused("1");
}
END_TEST

START_TEST(timeout_rejects_unknown_units)
{
	refused("30h");
	refused("30S");
	refused("30MS");
	refused("30sec");
	refused("30us");
	refused("30mss");
}
END_TEST

START_TEST(timeout_rejects_signs)
{
	refused("-5s");
	refused("+5s");
}
END_TEST

START_TEST(timeout_rejects_spaces)
{
	refused(" 5s");
	refused("5s ");
	refused("5 s");
	refused("5\ts");
}
END_TEST

START_TEST(timeout_rejects_fractions)
{
	refused("1.5s");
	refused(".5s");
	refused("1e3ms");
	refused("0x10s");
}
END_TEST

START_TEST(timeout_rejects_empty)
{
	refused("");
	refused("s");
	refused("ms");
	refused(NULL);
}
END_TEST

START_TEST(timeout_rejects_overflow)
{
	char s[64];

	snprintf(s, sizeof(s), "%ldms", LONG_MAX);
	ck_assert_int_eq(parsed(s), LONG_MAX);
	snprintf(s, sizeof(s), "%lu0ms", (unsigned long)LONG_MAX);
	refused(s);
	snprintf(s, sizeof(s), "%lds", LONG_MAX / 1000 + 1);
	refused(s);
	snprintf(s, sizeof(s), "%ldm", LONG_MAX / 60000 + 1);
	refused(s);
	refused("99999999999999999999999999999999ms");
}
END_TEST

Suite *
timeout_suite(void)
{
	Suite *s = suite_create("timeout");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, timeout_accepts_milliseconds);
	tcase_add_test(tc, timeout_accepts_seconds);
	tcase_add_test(tc, timeout_accepts_minutes);
	tcase_add_test(tc, timeout_allows_leading_zeros);
	tcase_add_test(tc, timeout_rejects_zero);
	tcase_add_test(tc, timeout_requires_a_unit);
	tcase_add_test(tc, timeout_rejects_unknown_units);
	tcase_add_test(tc, timeout_rejects_signs);
	tcase_add_test(tc, timeout_rejects_spaces);
	tcase_add_test(tc, timeout_rejects_fractions);
	tcase_add_test(tc, timeout_rejects_empty);
	tcase_add_test(tc, timeout_rejects_overflow);
	suite_add_tcase(s, tc);
	return s;
}
