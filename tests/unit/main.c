/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runs every unit suite; exits non-zero when a test fails.  CK_RUN_SUITE and
 * CK_RUN_CASE (libcheck's own variables) select a part; CK_FORK=no runs the
 * tests in this process, for a debugger.
 */
#include <stdlib.h>

#include "suites.h"

static Suite *(*const suites[])(void) = {
	timeout_suite,
	utf8_suite,
	request_suite,
	config_suite,
	lang_suite,
	judge_suite,
	cgroup_suite,
	tree_suite,
	seccomp_suite,
	util_suite,
	prune_suite,
	execute_suite,
	queue_suite,
};

int
main(void)
{
	SRunner *sr;
	size_t i;
	int failed;

	sr = srunner_create(NULL);
	for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
