/* SPDX-License-Identifier: Apache-2.0 */
/*
 * semver: see semver.h.  A partial version in a selector is a range, as in
 * node's semver: "3.11" is >=3.11.0 <3.12.0, "^3.9" is >=3.9.0 <4.0.0
 * (^0.y: <0.(y+1).0), "~3.11" is >=3.11.0 <3.12.0, "<=3.11" is <3.12.0.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/semver.h"

/* Up to three numbers from s; how many parts were given (a "x" or "*"
 * ends them), -1 when s is not a version.  *end after it. */
static int parse_parts(const char *s, long v[3], const char **end)
{
	int n = 0;
	v[0] = v[1] = v[2] = 0;
	while (n < 3) {
		if (*s == 'x' || *s == 'X' || *s == '*') {
			s++;
			break;
		}
		if (!isdigit((unsigned char)*s))
			return n ? -1 : (*s == 0 || *s == ' ' ? 0 : -1);
		char *e;
		v[n++] = strtol(s, &e, 10);
		s = e;
		if (*s != '.')
			break;
		s++;
	}
	while (*s == '.' || *s == 'x' || *s == 'X' || *s == '*')
		s++;
	*end = s;
	return n;
}

static int cmp(const long a[3], const long b[3])
{
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* The first version past a partial one of n parts: 3.11 -> 3.12.0. */
static void bump(long v[3], int n)
{
	if (n <= 0)
		return;
	v[n - 1]++;
	for (int i = n; i < 3; i++)
		v[i] = 0;
}

/* One comparator at *s (advanced past it) against have. -1: bad. */
static int one(const long have[3], const char **s)
{
	char op[3] = "";
	int k = 0;
	while (k < 2 && strchr("<>=^~", **s))
		op[k++] = *(*s)++;
	if (**s == 'v')
		(*s)++;
	long v[3], hi[3];
	int n = parse_parts(*s, v, s);
	if (n < 0 || (**s && **s != ' '))
		return -1;
	memcpy(hi, v, sizeof(hi));
	if (!strcmp(op, "^")) {
		int i = 0;
		while (i < n - 1 && v[i] == 0)
			i++;
		bump(hi, n ? i + 1 : 0);
	} else {
		bump(hi, !strcmp(op, "~") && n == 3 ? 2 : n);
	}
	bool lo_ok = cmp(have, v) >= 0, hi_ok = n == 0 || cmp(have, hi) < 0;
	if (!strcmp(op, ">="))
		return lo_ok;
	if (!strcmp(op, ">"))
		return n && !hi_ok;
	if (!strcmp(op, "<"))
		return n && !lo_ok;
	if (!strcmp(op, "<="))
		return hi_ok;
	if (!*op || !strcmp(op, "=") || !strcmp(op, "^") || !strcmp(op, "~"))
		return lo_ok && hi_ok;
	return -1;
}

/* A space-separated set of comparators in [s, e): all must hold. */
static int all(const long have[3], const char *s, const char *e)
{
	char buf[256];
	size_t len = (size_t)(e - s);
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	const char *p = buf;
	int ok = 1;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p)
			return ok;
		int r = one(have, &p);
		if (r < 0)
			return -1;
		ok = ok && r;
	}
}

bool semver_satisfies(const char *version, const char *selector)
{
	long have[3];
	const char *end;
	if (parse_parts(version, have, &end) != 3)
		return false;
	bool any = false;
	for (const char *s = selector;;) {
		const char *bar = strstr(s, "||");
		const char *e = bar ? bar : s + strlen(s);
		int r = all(have, s, e);
		if (r < 0)
			return false;
		any = any || r;
		if (!bar)
			return any;
		s = bar + 2;
	}
}

char *semver_read(const char *text, const char *regex)
{
	regex_t r;
	regmatch_t m[2];
	const char *re = regex ? regex : "([0-9]+\\.[0-9]+(\\.[0-9]+)?)";
	if (!text || regcomp(&r, re, REG_EXTENDED) != 0)
		return NULL;
	int rc = regexec(&r, text, 2, m, 0);
	regfree(&r);
	if (rc != 0 || m[1].rm_so < 0)
		return NULL;
	long v[3];
	char part[64], *out;
	size_t len = (size_t)(m[1].rm_eo - m[1].rm_so);
	snprintf(part, sizeof(part), "%.*s", (int)len, text + m[1].rm_so);
	const char *end;
	if (parse_parts(part, v, &end) <= 0)
		return NULL;
	if (asprintf(&out, "%ld.%ld.%ld", v[0], v[1], v[2]) < 0)
		return NULL;
	return out;
}
