/*
 * compare: a test's output against the expected one, as it streams (the
 * rules are in judge.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "judge/cache.h"
#include "api/engine.h"
#include "util/fail.h"
#include "judge/judge.h"
#include "util/utf8.h"
#include "util/util.h"


static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int compare_init(struct compare *c, const char *expected, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->expected = malloc(len + 1);
	if (!c->expected)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		if (!(expected[i] == '\r' && i + 1 < len && expected[i + 1] == '\n'))
			c->expected[n++] = expected[i];
	size_t start = 0;
	while (start < n && blank(c->expected[start]))
		start++;
	while (n > start && blank(c->expected[n - 1]))
		n--;
	memmove(c->expected, c->expected + start, n - start);
	c->len = n - start;
	return 0;
}

static void compare_char(struct compare *c, char ch)
{
	if (!c->started) {
		if (blank(ch))
			return;
		c->started = true;
	}
	if (c->pos < c->len && c->expected[c->pos] == ch)
		c->pos++;
	else if (!(c->pos == c->len && blank(ch)))
		c->differs = true;   /* only blanks may follow the end */
}

int compare_feed(struct compare *c, const char *buf, size_t len)
{
	for (size_t i = 0; i < len && !c->differs; i++) {
		char ch = buf[i];
		if (c->pending_cr) {
			c->pending_cr = false;
			if (ch != '\n')
				compare_char(c, '\r');
		}
		if (ch == '\r') {
			c->pending_cr = true;
			continue;
		}
		compare_char(c, ch);
	}
	return c->differs;
}

bool compare_finish(struct compare *c)
{
	if (c->pending_cr) {
		c->pending_cr = false;
		compare_char(c, '\r');
	}
	return !c->differs && c->pos == c->len;
}

void compare_free(struct compare *c)
{
	free(c->expected);
	c->expected = NULL;
}

bool compare_equal(const char *expected, size_t elen, const char *actual, size_t alen)
{
	struct compare c;
	if (compare_init(&c, expected, elen) < 0)
		return false;
	compare_feed(&c, actual, alen);
	bool eq = compare_finish(&c);
	compare_free(&c);
	return eq;
}

