/* SPDX-License-Identifier: Apache-2.0 */
/* size: "512m" to bytes (see size.h). */
#include <limits.h>
#include <stddef.h>

#include "util/size.h"

int parse_ull(const char *s, const char **end, unsigned long long *val)
{
	unsigned long long n = 0;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9'; p++) {
		if (n > (ULLONG_MAX - (unsigned)(*p - '0')) / 10)
			return -1;
		n = n * 10 + (unsigned)(*p - '0');
	}
	if (p == s)
		return -1;
	*end = p;
	*val = n;
	return 0;
}

/* k, m, g in either case: powers of 1024. */
static unsigned long long scale_of(char c)
{
	switch (c) {
	case 'k': case 'K':
		return 1ULL << 10;
	case 'm': case 'M':
		return 1ULL << 20;
	case 'g': case 'G':
		return 1ULL << 30;
	default:
		return 0;
	}
}

int parse_size(const char *s, unsigned long long *bytes)
{
	unsigned long long n, scale = 1;
	const char *p;

	if (s == NULL || parse_ull(s, &p, &n) == -1)
		return -1;
	if (*p != '\0' && (scale = scale_of(*p++)) == 0)
		return -1;
	if (*p != '\0' || n > ULLONG_MAX / scale)
		return -1;
	*bytes = n * scale;
	return 0;
}
