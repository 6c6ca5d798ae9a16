/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The unit test suites, one per core module; main.c runs them all.
 */
#ifndef GAOL_TEST_SUITES_H
#define GAOL_TEST_SUITES_H

#include <check.h>

Suite *timeout_suite(void);
Suite *utf8_suite(void);
Suite *request_suite(void);
Suite *config_suite(void);
Suite *lang_suite(void);
Suite *judge_suite(void);
Suite *cgroup_suite(void);
Suite *tree_suite(void);
Suite *seccomp_suite(void);
Suite *util_suite(void);
Suite *prune_suite(void);
Suite *execute_suite(void);
Suite *queue_suite(void);

#endif
