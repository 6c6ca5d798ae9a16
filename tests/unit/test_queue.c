/* SPDX-License-Identifier: Apache-2.0 */
/*
 * queue/: tokens (shape, host, order), callback targets against
 * RUN_CALLBACK_ALLOW, and the on-disk states: put within the bound, claim,
 * finish, and the recovery of a claim whose worker is gone.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "queue/callback.h"
#include "queue/queue.h"
#include "suites.h"

START_TEST(token_is_uuid_shaped_and_names_its_host)
{
	char t[TOKEN_LEN + 1];
	unsigned other = 0;

	ck_assert_int_eq(token_new(0x2a, t), 0);
	ck_assert_uint_eq(strlen(t), 36);
	ck_assert(t[8] == '-' && t[13] == '-' && t[18] == '-' && t[23] == '-');
	ck_assert(t[14] == '7');
	ck_assert(strchr("89ab", t[19]) != NULL);
	ck_assert_int_eq(strncmp(t + 24, "002a", 4), 0);
	ck_assert_int_eq(token_check(t, 0x2a, NULL), TOKEN_OURS);
	ck_assert_int_eq(token_check(t, 7, &other), TOKEN_OTHER_HOST);
	ck_assert_uint_eq(other, 0x2a);
	ck_assert(token_age_ms(t) >= 0 && token_age_ms(t) < 5000);
}
END_TEST

START_TEST(token_check_refuses_what_is_not_a_token)
{
	static const char *const bad[] = {
		"", "..", "../queued/x", "0000000-0000-7000-8000-000000000000",
		"00000000-0000-7000-8000-00000000000g", "00000000_0000-7000-8000-000000000000",
		"00000000-0000-7000-8000-0000000000000", "0000000A-0000-7000-8000-000000000000",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(token_check(bad[i], 0, NULL) == TOKEN_MALFORMED, "%s", bad[i]);
}
END_TEST

START_TEST(tokens_sort_by_creation_time)
{
	char a[TOKEN_LEN + 1], b[TOKEN_LEN + 1];

	ck_assert_int_eq(token_new(1, a), 0);
	usleep(3000);
	ck_assert_int_eq(token_new(1, b), 0);
	ck_assert_int_lt(strcmp(a, b), 0);
}
END_TEST

START_TEST(callback_allowed_only_for_listed_targets)
{
	char why[256];
	const char *allow = "hooks.example.com, 127.0.0.1:8080";

	ck_assert(callback_allowed(allow, "https://hooks.example.com/x?y=1", why, sizeof why));
	ck_assert(callback_allowed(allow, "http://HOOKS.example.com:81/", why, sizeof why));
	ck_assert(callback_allowed(allow, "http://127.0.0.1:8080/cb", why, sizeof why));
	ck_assert(!callback_allowed(allow, "http://127.0.0.1/cb", why, sizeof why));
	ck_assert(!callback_allowed(allow, "http://127.0.0.1:8081/cb", why, sizeof why));
	ck_assert(!callback_allowed(allow, "http://user@127.0.0.1:8080/", why, sizeof why));
	ck_assert(!callback_allowed(allow, "ftp://hooks.example.com/", why, sizeof why));
	ck_assert(!callback_allowed(allow, "http://hooks.example.com.evil/", why, sizeof why));
	ck_assert(!callback_allowed("", "http://127.0.0.1:8080/", why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "RUN_CALLBACK_ALLOW"));
}
END_TEST

static char dir[] = "/tmp/gaol-unit-queue-XXXXXX";

static void put_one(struct queue *q, const char *text, char token[TOKEN_LEN + 1], size_t max,
		    int want)
{
	char err[256], *texts[1] = { (char *)text };
	size_t lens[1] = { strlen(text) };

	ck_assert_int_eq(token_new(q->host, token), 0);
	ck_assert_int_eq(queue_put(q, (char (*)[TOKEN_LEN + 1])token, texts, lens, 1, max,
				   err, sizeof err), want);
}

START_TEST(queue_keeps_its_bound_and_runs_in_order)
{
	struct queue q;
	struct claim c;
	char err[256], a[TOKEN_LEN + 1], b[TOKEN_LEN + 1], x[TOKEN_LEN + 1];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(queue_open(&q, dir, 3, err, sizeof err), 0);
	put_one(&q, "{\"n\":1}", a, 2, 0);
	usleep(2000);
	put_one(&q, "{\"n\":2}", b, 2, 0);
	put_one(&q, "{\"n\":3}", x, 2, 1);           /* past the bound */
	ck_assert_uint_eq(queue_depth(&q), 2);
	ck_assert_int_eq(queue_find(&q, x, 0), Q_NONE);
	ck_assert_int_eq(queue_claim(&q, &c, err, sizeof err), 1);
	ck_assert_str_eq(c.token, a);
	ck_assert_str_eq(c.text, "{\"n\":1}");
	ck_assert_int_eq(queue_find(&q, a, 0), Q_RUNNING);
	ck_assert_int_eq(queue_finish(&q, &c, "{\"r\":1}", 7, true, err, sizeof err), 0);
	ck_assert_int_eq(queue_find(&q, a, 0), Q_DONE);
	ck_assert_int_eq(queue_next_callback(&q, x), 1);
	ck_assert_str_eq(x, a);
	ck_assert_uint_eq(queue_depth(&q), 1);
	queue_close(&q);
}
END_TEST

START_TEST(queue_recovery_requeues_only_a_claim_nobody_holds)
{
	struct queue q;
	struct claim c;
	char err[256], a[TOKEN_LEN + 1];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(queue_open(&q, dir, 0, err, sizeof err), 0);
	put_one(&q, "{}", a, 10, 0);
	ck_assert_int_eq(queue_claim(&q, &c, err, sizeof err), 1);
	/* Held by a live claimer (this process's flock): left alone. */
	ck_assert_int_eq(queue_recover(&q, false, err, sizeof err), 0);
	ck_assert_int_eq(queue_find(&q, a, 0), Q_RUNNING);
	/* Its claimer gone: queued again, to run once more. */
	claim_free(&c);
	ck_assert_int_eq(queue_recover(&q, true, err, sizeof err), 1);
	ck_assert_int_eq(queue_find(&q, a, 0), Q_QUEUED);
	ck_assert_int_eq(queue_claim(&q, &c, err, sizeof err), 1);
	ck_assert_int_eq(queue_finish(&q, &c, "{}", 2, false, err, sizeof err), 0);
	ck_assert_int_eq(queue_recover(&q, true, err, sizeof err), 0);
	ck_assert_int_eq(queue_find(&q, a, 0), Q_DONE);
	queue_close(&q);
}
END_TEST

/* A wait=true result, never queued, kept in done/ as a finished one's:
 * found, read back, forgotten; the queue's depth untouched. */
START_TEST(queue_keep_holds_a_result_that_was_never_queued)
{
	struct queue q;
	char err[256], t[TOKEN_LEN + 1];
	size_t len = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(queue_open(&q, dir, 5, err, sizeof err), 0);
	ck_assert_int_eq(token_new(5, t), 0);
	ck_assert_int_eq(queue_find(&q, t, 0), Q_NONE);
	ck_assert_int_eq(queue_keep(&q, t, "{\"r\":2}", 7, err, sizeof err), 0);
	ck_assert_int_eq(queue_find(&q, t, 0), Q_DONE);
	ck_assert_uint_eq(queue_depth(&q), 0);
	char *text = queue_read(&q, Q_DONE, t, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, "{\"r\":2}");
	free(text);
	ck_assert_int_eq(queue_forget(&q, t), 0);
	ck_assert_int_eq(queue_find(&q, t, 0), Q_NONE);
	queue_close(&q);
}
END_TEST

static void cleanup(void)
{
	char cmd[128];

	if (strcmp(dir, "/tmp/gaol-unit-queue-XXXXXX") != 0) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "test_queue: could not remove %s\n", dir);
	}
	strcpy(dir, "/tmp/gaol-unit-queue-XXXXXX");
}

Suite *
queue_suite(void)
{
	Suite *s = suite_create("queue");
	TCase *tc = tcase_create("queue");

	tcase_add_checked_fixture(tc, NULL, cleanup);
	tcase_add_test(tc, token_is_uuid_shaped_and_names_its_host);
	tcase_add_test(tc, token_check_refuses_what_is_not_a_token);
	tcase_add_test(tc, tokens_sort_by_creation_time);
	tcase_add_test(tc, callback_allowed_only_for_listed_targets);
	tcase_add_test(tc, queue_keeps_its_bound_and_runs_in_order);
	tcase_add_test(tc, queue_recovery_requeues_only_a_claim_nobody_holds);
	tcase_add_test(tc, queue_keep_holds_a_result_that_was_never_queued);
	suite_add_tcase(s, tc);
	return s;
}
