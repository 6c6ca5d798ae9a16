/*
 * cgroup: the kernel's file formats that the per-run accounting reads.  The
 * v2 ones are what a pure cgroup v2 host has (this project's CI host is
 * hybrid, so these tests are where the v2 path is checked).
 */
#include <string.h>

#include "slot/cgroup.h"
#include "slot/pool.h"
#include "suites.h"

START_TEST(cgroup_v2_cpu_stat_gives_usage_usec)
{
	unsigned long long v = 0;
	const char *text = "usage_usec 123456\nuser_usec 100000\nsystem_usec 23456\n"
			   "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n";

	ck_assert_int_eq(cg_parse_v2_cpu_stat(text, &v), 0);
	ck_assert_uint_eq(v, 123456);
	ck_assert_int_eq(cg_parse_v2_cpu_stat("user_usec 1\n", &v), -1);
	ck_assert_int_eq(cg_parse_v2_cpu_stat("usage_usec x\n", &v), -1);
}
END_TEST

START_TEST(cgroup_v2_memory_events_give_oom_kills)
{
	unsigned long long v = 0;
	const char *text = "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n";

	ck_assert_int_eq(cg_parse_v2_events(text, "oom_kill", &v), 0);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(cg_parse_v2_events(text, "oom", &v), 0);
	ck_assert_uint_eq(v, 2);
	ck_assert_int_eq(cg_parse_v2_events(text, "oom_group_kill", &v), 0);
	ck_assert_uint_eq(v, 0);
}
END_TEST

START_TEST(cgroup_v1_oom_control_gives_oom_kills)
{
	unsigned long long v = 9;
	const char *text = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";

	ck_assert_int_eq(cg_parse_v1_oom_control(text, &v), 0);
	ck_assert_uint_eq(v, 3);
	/* Kernels before 4.13 have no oom_kill line: not a number to trust. */
	ck_assert_int_eq(cg_parse_v1_oom_control("oom_kill_disable 0\nunder_oom 0\n", &v), -1);
}
END_TEST

/* Slots are made beside the pool's cgroup, never inside it. */
START_TEST(cgroup_slots_are_made_beside_the_pool)
{
	static const char *const cases[][2] = {
		{ "process_api/abc/gaol/pool41001", "process_api/abc" },
		{ "gaol/pool7", "" },
		{ "process_api/abc", "process_api/abc" },
		{ "a/other/pool1", "a/other/pool1" },
		{ "pool3", "pool3" },
		{ "", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char own[128];
		strcpy(own, cases[i][0]);
		pool_unnest(own, "gaol/uid41001");
		ck_assert_str_eq(own, cases[i][1]);
	}
}
END_TEST

Suite *
cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *t = tcase_create("formats");

	tcase_add_test(t, cgroup_v2_cpu_stat_gives_usage_usec);
	tcase_add_test(t, cgroup_v2_memory_events_give_oom_kills);
	tcase_add_test(t, cgroup_v1_oom_control_gives_oom_kills);
	tcase_add_test(t, cgroup_slots_are_made_beside_the_pool);
	suite_add_tcase(s, t);
	return s;
}
