/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tree_copy (slot/tree.c): a build's files copied out as untrusted (issue
 * 11, findings 4 and 5): sparse files stay sparse, the byte and entry
 * limits stop the copy before it writes past them, and a tree deeper than
 * the walker's limit is said (TREE_OVER_DEPTH), never a crash.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slot/tree.h"
#include "util/walk.h"
#include "suites.h"

/* On tmpfs, as a sandbox's check/ is: on /tmp's disk (ext4, discard) the
 * deep tree's directories took 2 s to make and remove, past Check's 4 s
 * timeout when the machine was busy (1 run in 5 with a suite beside it). */
static char src[] = "/dev/shm/gaol-unit-tree-src-XXXXXX";
static char dst[] = "/dev/shm/gaol-unit-tree-dst-XXXXXX";
static int sfd, dfd;

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(src));
	ck_assert_ptr_nonnull(mkdtemp(dst));
	sfd = open(src, O_RDONLY | O_DIRECTORY);
	dfd = open(dst, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(sfd, 0);
	ck_assert_int_ge(dfd, 0);
}

static void teardown(void)
{
	tree_empty(sfd);
	tree_empty(dfd);
	close(sfd);
	close(dfd);
	rmdir(src);
	rmdir(dst);
	strcpy(src, "/dev/shm/gaol-unit-tree-src-XXXXXX");
	strcpy(dst, "/dev/shm/gaol-unit-tree-dst-XXXXXX");
}

static void write_file(const char *name, off_t size, const char *data, off_t at)
{
	int fd = openat(sfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	if (data)
		ck_assert_int_eq(pwrite(fd, data, strlen(data), at), (ssize_t)strlen(data));
	close(fd);
}

START_TEST(tree_copy_keeps_holes)
{
	struct tree_limits lim = { .bytes = 1 << 20, .entries = 10 };
	enum tree_over over = TREE_WITHIN;
	write_file("sparse", 100 << 20, "end", (100 << 20) - 3);
	ck_assert_int_eq(tree_copy(sfd, dfd, &lim, &over), 0);
	ck_assert_int_eq(over, TREE_WITHIN);
	struct stat st;
	ck_assert_int_eq(fstatat(dfd, "sparse", &st, 0), 0);
	ck_assert_int_eq(st.st_size, 100 << 20);
	ck_assert_int_lt(st.st_blocks * 512, 1 << 20);
	char buf[4] = "";
	int fd = openat(dfd, "sparse", O_RDONLY);
	ck_assert_int_eq(pread(fd, buf, 3, (100 << 20) - 3), 3);
	close(fd);
	ck_assert_str_eq(buf, "end");
}
END_TEST

START_TEST(tree_copy_stops_before_the_byte_limit)
{
	struct tree_limits lim = { .bytes = 4096, .entries = 10 };
	enum tree_over over = TREE_WITHIN;
	char data[8193];
	memset(data, 'x', sizeof(data) - 1);
	data[sizeof(data) - 1] = 0;
	write_file("dense", 8192, data, 0);
	ck_assert_int_eq(tree_copy(sfd, dfd, &lim, &over), 0);
	ck_assert_int_eq(over, TREE_OVER_BYTES);
	struct stat st;
	ck_assert(fstatat(dfd, "dense", &st, 0) < 0 || st.st_blocks * 512 <= 4096);
}
END_TEST

START_TEST(tree_copy_stops_at_the_entry_limit)
{
	struct tree_limits lim = { .bytes = 0, .entries = 5 };
	enum tree_over over = TREE_WITHIN;
	char name[16];
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		write_file(name, 0, NULL, 0);
	}
	ck_assert_int_eq(tree_copy(sfd, dfd, &lim, &over), 0);
	ck_assert_int_eq(over, TREE_OVER_ENTRIES);
	lim.entries = 6;
	tree_empty(dfd);
	ck_assert_int_eq(tree_copy(sfd, dfd, &lim, &over), 0);
	ck_assert_int_eq(over, TREE_WITHIN);
}
END_TEST

/* levels nested directories "d" in sfd. */
static void nest(int levels)
{
	int at = dup(sfd);
	for (int i = 0; i < levels; i++) {
		ck_assert_int_eq(mkdirat(at, "d", 0755), 0);
		int next = openat(at, "d", O_RDONLY | O_DIRECTORY);
		ck_assert_int_ge(next, 0);
		close(at);
		at = next;
	}
	close(at);
}

START_TEST(tree_copy_says_a_tree_too_deep)
{
	struct tree_limits lim = { 0 };
	enum tree_over over = TREE_WITHIN;
	nest(WALK_DEPTH_MAX - 1);
	ck_assert_int_eq(tree_copy(sfd, dfd, &lim, &over), 0);
	ck_assert_int_eq(over, TREE_WITHIN);
	tree_empty(dfd);
	tree_empty(sfd);
	nest(1000);
	ck_assert_int_eq(tree_copy(sfd, dfd, &lim, &over), 0);
	ck_assert_int_eq(over, TREE_OVER_DEPTH);
}
END_TEST

Suite *tree_suite(void)
{
	Suite *s = suite_create("tree");
	TCase *c = tcase_create("copy");
	tcase_add_checked_fixture(c, setup, teardown);
	tcase_add_test(c, tree_copy_keeps_holes);
	tcase_add_test(c, tree_copy_stops_before_the_byte_limit);
	tcase_add_test(c, tree_copy_stops_at_the_entry_limit);
	tcase_add_test(c, tree_copy_says_a_tree_too_deep);
	suite_add_tcase(s, c);
	return s;
}
