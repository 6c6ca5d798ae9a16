/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeout: "<n>ms", "<n>s" or "<n>m" to milliseconds.
 */
#include <limits.h>
#include <string.h>

#include "util/timeout.h"

static const struct {
	const char *suffix;
	long ms;
} units[] = {
	{ "ms", 1 },
	{ "s", 1000 },
	{ "m", 60 * 1000 },
};

int timeout_parse(const char *s, long *ms)
{
	const char *p;
	long n = 0, scale = 0;
	size_t i;

	if (s == NULL)
		return -1;
	for (p = s; *p >= '0' && *p <= '9'; p++) {
		if (n > (LONG_MAX - (*p - '0')) / 10)
			return -1;
		n = n * 10 + (*p - '0');
	}
	if (p == s || n == 0)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(p, units[i].suffix) == 0)
			scale = units[i].ms;
	if (scale == 0 || n > LONG_MAX / scale)
		return -1;
	*ms = n * scale;
	return 0;
}
