/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eval_request_parse (judge.h): any /evaluate body is either a request
 * within the documented limits (no test at all is one) or a refusal with a
 * reason (422).
 */
#include "fuzz.h"
#include "judge/judge.h"

static bool plain_name(const char *s)
{
	if (!s || !*s || strlen(s) > 255 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/')
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *body = fuzz_copy(data, size);
	struct eval_request r;
	char err[256];

	err[0] = '\0';
	if (eval_request_parse(body, size, EVAL_TESTS_MAX_DEFAULT, 64, &r, err, sizeof err) == 0) {
		FUZZ_CHECK(fuzz_utf8_valid(body, size), "accepted a body that "
			   "is not UTF-8");
		FUZZ_CHECK(r.code.data && r.code.data[r.code.len] == '\0',
			   "code missing or not terminated");
		FUZZ_CHECK(r.language, "no language");
		FUZZ_CHECK(r.n_tests <= EVAL_TESTS_MAX_DEFAULT,   /* 0: {"results": []} */
			   "%zu tests", r.n_tests);
		for (size_t i = 0; i < r.n_tests; i++) {
			const struct eval_test *t = &r.tests[i];
			FUZZ_CHECK(t->input.data &&
				   t->input.data[t->input.len] == '\0',
				   "test %zu input", i);
			FUZZ_CHECK(t->expected.data &&
				   t->expected.data[t->expected.len] == '\0',
				   "test %zu expected_output", i);
		}
		FUZZ_CHECK(r.time_limit_ms >= 1 &&
			   r.time_limit_ms <= EVAL_TIME_LIMIT_MAX_MS,
			   "time_limit_ms %ld", r.time_limit_ms);
		FUZZ_CHECK(r.memory_limit_mb == 0 ||
			   (r.memory_limit_mb >= EVAL_MEMORY_MIN_MB &&
			    r.memory_limit_mb <= EVAL_MEMORY_MAX_MB),
			   "memory_limit_mb %ld", r.memory_limit_mb);
		FUZZ_CHECK(plain_name(r.input_file), "input_file %s",
			   r.input_file ? r.input_file : "(null)");
		FUZZ_CHECK(plain_name(r.output_file), "output_file %s",
			   r.output_file ? r.output_file : "(null)");
		eval_request_free(&r);
	} else {
		FUZZ_CHECK(err[0] != '\0', "refused without a reason");
		FUZZ_CHECK(!r.code.data && !r.language && !r.tests &&
			   !r.input_file && !r.output_file,
			   "a refused request keeps memory");
	}
	free(body);
	return 0;
}
