/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reach (slot/prune.h): which host mounts a slot's template keeps.  A path
 * keeps every mount on the way to what it resolves to, symlinks included,
 * and a whole tree every mount beneath it; a name that only begins like a
 * kept one is another path.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slot/prune.h"
#include "suites.h"

static char base[64];
static char real[PATH_MAX];     /* base, resolved */

static void at(char *out, const char *rel)
{
	snprintf(out, PATH_MAX, "%s/%s", real, rel);
}

static void setup(void)
{
	char p[PATH_MAX];
	snprintf(base, sizeof(base), "/dev/shm/gaol-unit-prune-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	ck_assert_ptr_nonnull(realpath(base, real));
	at(p, "store");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at(p, "store/lang");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at(p, "langs");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at(p, "langs/py");
	ck_assert_int_eq(symlink("../store/lang", p), 0);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	ck_assert_int_eq(system(cmd), 0);
}

static bool needs(const struct reach *r, const char *rel)
{
	char p[PATH_MAX];
	at(p, rel);
	return reach_needs(r, p);
}

START_TEST(a_symlink_keeps_the_mounts_its_target_crosses)
{
	struct reach r = { 0 };
	char p[PATH_MAX];
	at(p, "langs/py");
	ck_assert_int_eq(reach_add(&r, p, true), 0);
	ck_assert(reach_needs(&r, "/"));
	ck_assert(needs(&r, "langs"));          /* where the symlink is */
	ck_assert(needs(&r, "store"));          /* on the way to its target */
	ck_assert(needs(&r, "store/lang"));
	ck_assert(needs(&r, "store/lang/vendor/cache")); /* beneath: the whole tree */
	ck_assert(!needs(&r, "langs/py/x"));    /* the link's own name is no directory */
	ck_assert(!needs(&r, "store/other"));
	ck_assert(!needs(&r, "store/language")); /* begins like it, is not it */
	ck_assert(!reach_needs(&r, "/sys/kernel/tracing"));
	reach_free(&r);
}
END_TEST

START_TEST(a_path_on_the_way_keeps_nothing_beneath_it)
{
	struct reach r = { 0 };
	char p[PATH_MAX];
	at(p, "store/lang");
	ck_assert_int_eq(reach_add(&r, p, false), 0);
	ck_assert(needs(&r, "store/lang"));
	ck_assert(needs(&r, "store"));
	ck_assert(!needs(&r, "store/lang/sub"));
	reach_free(&r);
}
END_TEST

START_TEST(what_does_not_resolve_adds_only_its_resolved_prefixes)
{
	struct reach r = { 0 };
	char p[PATH_MAX];
	at(p, "store/missing/deeper");
	ck_assert_int_eq(reach_add(&r, p, true), 0);
	ck_assert(needs(&r, "store"));
	ck_assert(!needs(&r, "store/missing"));
	ck_assert_int_eq(reach_add(&r, "relative/path", true), 0);
	ck_assert(!reach_needs(&r, "/relative"));
	reach_free(&r);
}
END_TEST

Suite *prune_suite(void)
{
	Suite *s = suite_create("prune");
	TCase *tc = tcase_create("reach");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_symlink_keeps_the_mounts_its_target_crosses);
	tcase_add_test(tc, a_path_on_the_way_keeps_nothing_beneath_it);
	tcase_add_test(tc, what_does_not_resolve_adds_only_its_resolved_prefixes);
	suite_add_tcase(s, tc);
	return s;
}
