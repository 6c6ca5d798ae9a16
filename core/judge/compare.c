/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compare: a test's output against the expected one, as it streams (the
 * rules are in judge.h).  Line ends are CompiCode's: CRLF and a lone CR are
 * both LF.  In token mode (docker-evaluator's output.split() ==
 * expected.split()) every run of whitespace is one separator.
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

/* CRLF and a lone CR become LF, as CompiCode's normalize_newlines makes
 * them; returns the new length. */
size_t compare_newlines(char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\r') {
			s[n++] = '\n';
			if (i + 1 < len && s[i + 1] == '\n')
				i++;
		} else {
			s[n++] = s[i];
		}
	}
	return n;
}

int compare_init_mode(struct compare *c, const char *expected, size_t len, bool tokens)
{
	memset(c, 0, sizeof(*c));
	c->tokens = tokens;
	c->expected = malloc(len + 1);
	if (!c->expected)
		return -1;
	memcpy(c->expected, expected, len);
	size_t n = compare_newlines(c->expected, len);
	if (tokens) {
		/* One space between tokens, none around them. */
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			if (!blank(c->expected[i]))
				c->expected[m++] = c->expected[i];
			else if (m && !blank(c->expected[m - 1]) && i + 1 < n)
				c->expected[m++] = ' ';
		}
		n = m;
	}
	size_t start = 0;
	while (start < n && blank(c->expected[start]))
		start++;
	while (n > start && blank(c->expected[n - 1]))
		n--;
	memmove(c->expected, c->expected + start, n - start);
	c->len = n - start;
	return 0;
}

int compare_init(struct compare *c, const char *expected, size_t len)
{
	return compare_init_mode(c, expected, len, false);
}

static void compare_char(struct compare *c, char ch)
{
	if (!c->started) {
		if (blank(ch))
			return;
		c->started = true;
	}
	if (c->tokens) {
		/* A run of blanks counts once, when a token follows it. */
		if (blank(ch)) {
			c->pending_space = true;
			return;
		}
		if (c->pending_space) {
			c->pending_space = false;
			if (c->pos < c->len && c->expected[c->pos] == ' ')
				c->pos++;
			else
				c->differs = true;
			if (c->differs)
				return;
		}
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
			compare_char(c, '\n');   /* CRLF, or a lone CR */
			if (ch == '\n')
				continue;
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
		compare_char(c, '\n');
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
	return compare_equal_mode(expected, elen, actual, alen, false);
}

bool compare_equal_mode(const char *expected, size_t elen, const char *actual, size_t alen,
			bool tokens)
{
	struct compare c;
	if (compare_init_mode(&c, expected, elen, tokens) < 0)
		return false;
	compare_feed(&c, actual, alen);
	bool eq = compare_finish(&c);
	compare_free(&c);
	return eq;
}

