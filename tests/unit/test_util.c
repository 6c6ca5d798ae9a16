/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util: file_read_at reads a small file whole, or says it cannot; cpus pins
 * a worker and its lanes round-robin and gives a program the whole set back.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "util/cpus.h"
#include "util/util.h"

static char dir[64];

static void make_dir(void)
{
	strcpy(dir, "/tmp/gaol-unit-util.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void put(const char *name, const char *text)
{
	int d = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(d, 0);
	ck_assert_int_eq(file_write_at(d, name, O_TRUNC, 0600, text, strlen(text)), 0);
	close(d);
}

START_TEST(util_read_at_whole_file)
{
	char buf[8];
	int d = open(dir, O_RDONLY | O_DIRECTORY);
	put("seven", "1234567");
	put("eight", "12345678");
	put("empty", "");
	ck_assert_int_eq(file_read_at(d, "seven", buf, sizeof(buf)), 7);
	ck_assert_mem_eq(buf, "1234567", 7);
	ck_assert_int_eq(file_read_at(d, "eight", buf, sizeof(buf)), 8);
	ck_assert_mem_eq(buf, "12345678", 8);
	ck_assert_int_eq(file_read_at(d, "empty", buf, sizeof(buf)), 0);
	close(d);
}
END_TEST

START_TEST(util_read_at_refuses_longer_missing_and_links)
{
	char buf[8];
	int d = open(dir, O_RDONLY | O_DIRECTORY);
	put("nine", "123456789");
	ck_assert_int_eq(file_read_at(d, "nine", buf, sizeof(buf)), -1);
	ck_assert_int_eq(file_read_at(d, "absent", buf, sizeof(buf)), -1);
	ck_assert_int_eq(symlinkat("nine", d, "link"), 0);
	ck_assert_int_eq(file_read_at(d, "link", buf, sizeof(buf)), -1);
	/* A directory cannot be read as a file. */
	ck_assert_int_eq(file_read_at(AT_FDCWD, dir, buf, sizeof(buf)), -1);
	close(d);
}
END_TEST

/* The k-th CPU of set, counting from 0 and wrapping around. */
static int nth(const cpu_set_t *set, int k)
{
	k %= CPU_COUNT(set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && k-- == 0)
			return c;
	return -1;
}

/* The one CPU this process may run on. */
static int only_cpu(void)
{
	cpu_set_t now;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(now), &now), 0);
	ck_assert_int_eq(CPU_COUNT(&now), 1);
	return nth(&now, 0);
}

/* Runs in a process of its own (Check forks each test). */
START_TEST(util_cpus_pin_round_robin_and_unpin)
{
	cpu_set_t start, now;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(start), &start), 0);
	cpus_note();
	if (CPU_COUNT(&start) < 2) {
		/* One CPU: nothing to place, nothing pinned. */
		ck_assert(!cpus_pin(0));
		ck_assert_int_eq(cpus_unpin(), 0);
		return;
	}
	ck_assert(cpus_pin(1));
	ck_assert_int_eq(only_cpu(), nth(&start, 1));
	/* A lane goes next to its worker's CPU, wrapping around the set. */
	cpus_pin_lane(CPU_COUNT(&start));
	ck_assert_int_eq(only_cpu(), nth(&start, 1 + CPU_COUNT(&start)));
	cpus_pin_lane(1);
	ck_assert_int_eq(only_cpu(), nth(&start, 2));
	ck_assert_int_eq(cpus_unpin(), 0);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(now), &now), 0);
	ck_assert(CPU_EQUAL(&now, &start));
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("file_read_at");
	tcase_add_checked_fixture(tc, make_dir, remove_dir);
	tcase_add_test(tc, util_read_at_whole_file);
	tcase_add_test(tc, util_read_at_refuses_longer_missing_and_links);
	suite_add_tcase(s, tc);
	tc = tcase_create("cpus");
	tcase_add_test(tc, util_cpus_pin_round_robin_and_unpin);
	suite_add_tcase(s, tc);
	return s;
}
