/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_request_parse (request.h): any body is either a request of the right
 * shape or a refusal with a reason; never a crash, a leak or a read past the
 * body's length; an accepted body is valid UTF-8.
 */
#include "fuzz.h"
#include "api/request.h"

#define DEFAULT_MS 30000
#define MAX_MS     60000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *body = fuzz_copy(data, size);
	struct run_request req;
	char err[256];

	err[0] = '\0';
	if (run_request_parse(body, size, DEFAULT_MS, MAX_MS, &req, err,
			      sizeof err) == 0) {
		FUZZ_CHECK(fuzz_utf8_valid(body, size), "accepted a body that "
			   "is not UTF-8");
		FUZZ_CHECK(req.lang_slug && *req.lang_slug, "no lang_slug");
		FUZZ_CHECK(req.solution.data, "no solution_text");
		FUZZ_CHECK(req.solution.data[req.solution.len] == '\0',
			   "solution_text not terminated");
		FUZZ_CHECK(!req.checker.data ||
			   req.checker.data[req.checker.len] == '\0',
			   "checker_text not terminated");
		FUZZ_CHECK(!req.asserts.data ||
			   req.asserts.data[req.asserts.len] == '\0',
			   "asserts not terminated");
		FUZZ_CHECK(req.timeout_ms > 0 && req.timeout_ms <= MAX_MS,
			   "timeout %ld ms out of range", req.timeout_ms);
		run_request_free(&req);
	} else {
		FUZZ_CHECK(err[0] != '\0', "refused without a reason");
		FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL,
			   "reason not terminated");
		FUZZ_CHECK(!req.lang_slug && !req.solution.data &&
			   !req.checker.data && !req.asserts.data,
			   "a refused request keeps memory");
	}
	free(body);
	return 0;
}
