/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeout_parse (timeout.h) against a reference written from its header:
 * one or more ASCII digits, a value above 0, then exactly "ms", "s" or "m";
 * the product in milliseconds must fit a long.
 */
#include <limits.h>

#include "fuzz.h"
#include "util/timeout.h"

static int reference(const char *s, long *ms)
{
	const char *p = s;
	__int128 n = 0, scale;
	bool big = false;

	while (*p >= '0' && *p <= '9') {
		n = n * 10 + (*p - '0');
		if (n > LONG_MAX)
			big = true, n = LONG_MAX;   /* clamp: stays too big */
		p++;
	}
	if (p == s || n == 0)
		return -1;
	if (!strcmp(p, "ms"))
		scale = 1;
	else if (!strcmp(p, "s"))
		scale = 1000;
	else if (!strcmp(p, "m"))
		scale = 60000;
	else
		return -1;
	if (big || n * scale > LONG_MAX)
		return -1;
	*ms = (long)(n * scale);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstring(data, size);
	long got = -7, want = -7;
	int rc = timeout_parse(s, &got);
	int ref = reference(s, &want);

	FUZZ_CHECK(rc == ref, "\"%s\": timeout_parse %d, reference %d", s, rc,
		   ref);
	if (rc == 0)
		FUZZ_CHECK(got == want && got > 0, "\"%s\": %ld ms, reference %ld",
			   s, got, want);
	else
		FUZZ_CHECK(got == -7, "\"%s\": refused but wrote %ld", s, got);
	free(s);
	return 0;
}
