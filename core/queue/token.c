/* SPDX-License-Identifier: Apache-2.0 */
/*
 * token: the name of an asynchronous submission (see queue.h).  Shaped as
 * Judge0's (a UUID), time-ordered as UUID version 7 so that a directory
 * listing sorted by name is the queue's order, and carrying the host that
 * holds it in the last group's first four digits, so that a front routes a
 * GET to that host (nginx/cluster) without asking anyone.
 */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "queue/queue.h"

int token_new(unsigned host, char out[TOKEN_LEN + 1])
{
	unsigned char r[8];
	struct timespec ts;
	unsigned long long ms;

	/* The wall clock, not now_ms()'s monotonic one: a token outlives a
	 * reboot and is compared with the time of another process. */
	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;

	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
		return -1;
	snprintf(out, TOKEN_LEN + 1,
		 "%08llx-%04llx-7%01x%02x-%01x%01x%02x-%04x%02x%02x%02x%02x",
		 (ms >> 16) & 0xffffffffULL, ms & 0xffff, r[0] & 0xf, r[1],
		 8 | (r[2] & 3), r[2] >> 4, r[3], host & 0xffff, r[4], r[5], r[6],
		 r[7]);
	return 0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

enum token_kind token_check(const char *s, unsigned host, unsigned *other)
{
	unsigned h = 0;

	if (!s || strlen(s) != TOKEN_LEN)
		return TOKEN_MALFORMED;
	for (int i = 0; i < TOKEN_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !is_hex(s[i]))
			return TOKEN_MALFORMED;
	}
	if (sscanf(s + 24, "%4x", &h) != 1)
		return TOKEN_MALFORMED;
	if (other)
		*other = h;
	return h == (host & 0xffff) ? TOKEN_OURS : TOKEN_OTHER_HOST;
}

long long token_ms(const char *token)
{
	unsigned long long hi = 0, lo = 0;

	if (sscanf(token, "%8llx-%4llx", &hi, &lo) != 2)
		return 0;
	return (long long)((hi << 16) | lo);
}

long long token_age_ms(const char *token)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - token_ms(token);
}
