/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup: the kernel's file formats that the per-run accounting reads.  The
 * v2 ones are what a pure cgroup v2 host has (this project's CI host is
 * hybrid, so these tests are where the v2 path is checked).
 */
#include <string.h>

#include "slot/cgroup.h"
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
		cgroup_unnest_pool(own, "gaol/uid41001");
		ck_assert_str_eq(own, cases[i][1]);
	}
}
END_TEST

/* v2's own line is "0::/path": it was never matched before (gaol could
 * not start on a v2-only host). */
START_TEST(cgroup_own_path_reads_the_v2_line)
{
	char out[128];
	ck_assert_int_eq(cg_parse_proc_cgroup("0::/system.slice/gaol.service\n", "", out,
					      sizeof(out)), 0);
	ck_assert_str_eq(out, "system.slice/gaol.service");
	ck_assert_int_eq(cg_parse_proc_cgroup("0::/\n", "", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(cg_parse_proc_cgroup("0::/a/supervisor", "", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "a/supervisor");
	/* No v2 line on a v1-only host; a v1 line with an empty id is not it. */
	ck_assert_int_eq(cg_parse_proc_cgroup("4:memory:/x\n", "", out, sizeof(out)), -1);
	ck_assert_int_eq(cg_parse_proc_cgroup("10::/x\n", "", out, sizeof(out)), -1);
}
END_TEST

START_TEST(cgroup_own_path_reads_a_v1_controller_line)
{
	const char *hybrid = "12:pids:/user.slice\n"
			     "5:cpu,cpuacct:/gaol-ci\n"
			     "4:memory:/ci/job\n"
			     "1:name=systemd:/user.slice/session-1.scope\n"
			     "0::/user.slice/session-1.scope\n";
	char out[128];
	ck_assert_int_eq(cg_parse_proc_cgroup(hybrid, "memory", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "ci/job");
	ck_assert_int_eq(cg_parse_proc_cgroup(hybrid, "cpuacct", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "gaol-ci");
	ck_assert_int_eq(cg_parse_proc_cgroup(hybrid, "cpu", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "gaol-ci");
	ck_assert_int_eq(cg_parse_proc_cgroup(hybrid, "", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "user.slice/session-1.scope");
	ck_assert_int_eq(cg_parse_proc_cgroup(hybrid, "cpuset", out, sizeof(out)), -1);
	ck_assert_int_eq(cg_parse_proc_cgroup(hybrid, "mem", out, sizeof(out)), -1);
}
END_TEST

/* Where the v1 hierarchies are, as cgroup_init found them: the first cgroup
 * mount with the controller among its options, escapes decoded. */
START_TEST(cgroup_v1_mount_point_is_read_from_mounts)
{
	const char *mounts =
		"sysfs /sys sysfs rw,nosuid 0 0\n"
		"tmpfs /sys/fs/cgroup tmpfs ro,mode=755 0 0\n"
		"cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nsdelegate 0 0\n"
		"cgroup /sys/fs/cgroup/systemd cgroup rw,xattr,name=systemd 0 0\n"
		"cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0\n"
		"cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n"
		"cgroup /mnt/my\\040memory cgroup rw,memory 0 0\n"
		"cgroup /sys/fs/cgroup/pids cgroup rw,pids\n";
	char out[128];
	ck_assert_int_eq(cg_parse_v1_mount_point(mounts, "memory", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/sys/fs/cgroup/memory");
	ck_assert_int_eq(cg_parse_v1_mount_point(mounts, "cpu", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/sys/fs/cgroup/cpu,cpuacct");
	ck_assert_int_eq(cg_parse_v1_mount_point(mounts, "cpuacct", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/sys/fs/cgroup/cpu,cpuacct");
	ck_assert_int_eq(cg_parse_v1_mount_point(mounts, "pids", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/sys/fs/cgroup/pids");
	/* not cgroup2's, not a prefix, not a mode= option */
	ck_assert_int_eq(cg_parse_v1_mount_point(mounts, "cpuset", out, sizeof(out)), -1);
	ck_assert_int_eq(cg_parse_v1_mount_point(mounts, "mem", out, sizeof(out)), -1);
	ck_assert_int_eq(cg_parse_v1_mount_point(mounts, "nsdelegate", out, sizeof(out)), -1);
	ck_assert_int_eq(cg_parse_v1_mount_point("cgroup /a\\040b cgroup memory 0 0", "memory",
						 out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/a b");
}
END_TEST

/* Where RUN_CGROUP_FAVORDYNMODS finds the cgroup2 superblock: the first
 * cgroup2 line of mountinfo, however many tags precede the " - ", its
 * point's escapes decoded and its super options (not the mount's) given. */
START_TEST(cgroup2_mount_is_read_from_mountinfo)
{
	const char *info =
		"22 1 0:21 / /sys rw,nosuid,nodev - sysfs sysfs rw\n"
		"30 22 0:26 / /sys/fs/cgroup ro,nosuid shared:9 - tmpfs tmpfs ro,mode=755\n"
		"31 30 0:27 / /sys/fs/cgroup/memory rw,nosuid shared:10 - cgroup cgroup rw,memory\n"
		"41 30 0:38 / /sys/fs/cgroup/my\\040unified rw,nosuid,nodev,noexec,relatime "
		"shared:11 master:3 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
		"42 30 0:39 / /other rw - cgroup2 none rw\n";
	char point[128], opts[128];
	ck_assert_int_eq(cg_parse_cgroup2_mountinfo(info, point, sizeof(point), opts,
						    sizeof(opts)), 0);
	ck_assert_str_eq(point, "/sys/fs/cgroup/my unified");
	ck_assert_str_eq(opts, "rw,nsdelegate,memory_recursiveprot");
	/* a v1 hierarchy is not it; a line without its " - " is skipped */
	ck_assert_int_eq(cg_parse_cgroup2_mountinfo(
		"31 30 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		"41 30 0:38 / /cg rw cgroup2 cgroup2 rw\n", point, sizeof(point), opts,
		sizeof(opts)), -1);
	ck_assert_int_eq(cg_parse_cgroup2_mountinfo("", point, sizeof(point), opts,
						    sizeof(opts)), -1);
}
END_TEST

/* What a parent offers its children, and what start-up names as missing. */
START_TEST(cgroup_v2_missing_controllers_are_named)
{
	char missing[64];
	ck_assert_int_eq(cg2_missing_controller("cpuset cpu io memory hugetlb pids rdma misc\n",
						missing, sizeof(missing)), 0);
	ck_assert_str_eq(missing, "");
	ck_assert_int_eq(cg2_missing_controller("cpuset cpu io pids\n", missing,
						sizeof(missing)), -1);
	ck_assert_str_eq(missing, "memory");
	ck_assert_int_eq(cg2_missing_controller("", missing, sizeof(missing)), -1);
	ck_assert_str_eq(missing, "memory pids cpu");
	/* cpuset is not cpu, nor hugetlb memory */
	ck_assert_int_eq(cg2_missing_controller("cpuset memory pids", missing,
						sizeof(missing)), -1);
	ck_assert_str_eq(missing, "cpu");
}
END_TEST

START_TEST(cgroup_v2_cgroup_events_give_populated)
{
	unsigned long long v = 7;
	ck_assert_int_eq(cg_parse_v2_events("populated 0\nfrozen 0\n", "populated", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(cg_parse_v2_events("populated 1\nfrozen 0\n", "populated", &v), 0);
	ck_assert_uint_eq(v, 1);
	/* memory.events' "max": the times usage met memory.max */
	ck_assert_int_eq(cg_parse_v2_events("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n",
					    "max", &v), 0);
	ck_assert_uint_eq(v, 3);
}
END_TEST

START_TEST(cgroup_proc_stat_gives_the_state_letter)
{
	ck_assert_int_eq(cg_parse_stat_state("19697 (vf) D 19696 19696 0 -1"), 'D');
	/* comm may hold spaces and parentheses */
	ck_assert_int_eq(cg_parse_stat_state("7 (a) b (c) S 1 7 7 0 -1"), 'S');
	ck_assert_int_eq(cg_parse_stat_state("7 (x)"), 0);
	ck_assert_int_eq(cg_parse_stat_state("garbage"), 0);
}
END_TEST

START_TEST(cgroup_schedstat_gives_the_run_queue_wait)
{
	unsigned long long v = 0;

	ck_assert_int_eq(cg_parse_schedstat_wait("27699712 283809809 11\n", &v), 0);
	ck_assert_uint_eq(v, 283809809ULL);
	ck_assert_int_eq(cg_parse_schedstat_wait("27699712\n", &v), -1);
	ck_assert_int_eq(cg_parse_schedstat_wait("", &v), -1);
}
END_TEST

START_TEST(cgroup_cpu_pressure_gives_the_some_total)
{
	unsigned long long v = 0;

	ck_assert_int_eq(cg_parse_pressure_some("some avg10=0.00 avg60=0.00 avg300=0.00 "
						"total=1015669\nfull avg10=0.00 avg60=0.00 "
						"avg300=0.00 total=7\n", &v), 0);
	ck_assert_uint_eq(v, 1015669ULL);
	/* Only the "some" line's: a text without it is refused. */
	ck_assert_int_eq(cg_parse_pressure_some("full avg10=0.00 total=7\n", &v), -1);
	ck_assert_int_eq(cg_parse_pressure_some("some avg10=0.00\nfull total=7\n", &v), -1);
}
END_TEST

/* cpu.stat's throttled time: v1's throttled_time (ns), v2's throttled_usec;
 * a key is a whole word at a line's start. */
START_TEST(cgroup_cpu_stat_gives_a_key)
{
	unsigned long long v = 0;

	ck_assert_int_eq(cg_parse_stat_key("nr_periods 60\nnr_throttled 57\n"
					   "throttled_time 1423000000\n", "throttled_time", &v), 0);
	ck_assert_uint_eq(v, 1423000000ULL);
	ck_assert_int_eq(cg_parse_stat_key("usage_usec 5\nthrottled_usec 77\nnr_bursts 0\n",
					   "throttled_usec", &v), 0);
	ck_assert_uint_eq(v, 77ULL);
	ck_assert_int_eq(cg_parse_stat_key("throttled_time_x 5\n", "throttled_time", &v), -1);
	ck_assert_int_eq(cg_parse_stat_key("nr_throttled 5\n", "throttled", &v), -1);
	ck_assert_int_eq(cg_parse_stat_key("", "throttled_usec", &v), -1);
}
END_TEST

Suite *
cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *t = tcase_create("formats");

	tcase_add_test(t, cgroup_v2_cpu_stat_gives_usage_usec);
	tcase_add_test(t, cgroup_schedstat_gives_the_run_queue_wait);
	tcase_add_test(t, cgroup_cpu_pressure_gives_the_some_total);
	tcase_add_test(t, cgroup_cpu_stat_gives_a_key);
	tcase_add_test(t, cgroup_v2_memory_events_give_oom_kills);
	tcase_add_test(t, cgroup_v1_oom_control_gives_oom_kills);
	tcase_add_test(t, cgroup_slots_are_made_beside_the_pool);
	tcase_add_test(t, cgroup_own_path_reads_the_v2_line);
	tcase_add_test(t, cgroup_v1_mount_point_is_read_from_mounts);
	tcase_add_test(t, cgroup2_mount_is_read_from_mountinfo);
	tcase_add_test(t, cgroup_own_path_reads_a_v1_controller_line);
	tcase_add_test(t, cgroup_v2_missing_controllers_are_named);
	tcase_add_test(t, cgroup_v2_cgroup_events_give_populated);
	tcase_add_test(t, cgroup_proc_stat_gives_the_state_letter);
	suite_add_tcase(s, t);
	return s;
}
