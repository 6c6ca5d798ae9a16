/* SPDX-License-Identifier: Apache-2.0 */
/*
 * callback: a callback_url against RUN_CALLBACK_ALLOW (see callback.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "queue/callback.h"

#define HOST_MAX 253

struct target {
	char host[HOST_MAX + 1];
	unsigned port;          /* 0: any (an entry without a port) */
};

static bool host_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_';
}

/* host[:port] of [s, end) into t; -1 when it is not that. */
static int parse_target(const char *s, const char *end, struct target *t)
{
	size_t n = 0;

	while (s + n < end && host_char(s[n]))
		n++;
	if (n == 0 || n > HOST_MAX)
		return -1;
	memcpy(t->host, s, n);
	t->host[n] = '\0';
	t->port = 0;
	s += n;
	if (s == end)
		return 0;
	if (*s++ != ':' || s == end || end - s > 5)
		return -1;
	for (; s < end; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		t->port = t->port * 10 + (unsigned)(*s - '0');
	}
	return t->port >= 1 && t->port <= 65535 ? 0 : -1;
}

/* The target of an http(s) URL, its port made explicit. */
static int parse_url(const char *url, struct target *t)
{
	unsigned def;
	const char *end;

	if (strncasecmp(url, "http://", 7) == 0) {
		url += 7;
		def = 80;
	} else if (strncasecmp(url, "https://", 8) == 0) {
		url += 8;
		def = 443;
	} else {
		return -1;
	}
	end = url + strcspn(url, "/?#");
	for (const char *p = end; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '\\')
			return -1;
	if (parse_target(url, end, t) < 0)
		return -1;
	if (!t->port)
		t->port = def;
	return 0;
}

static bool listed(const char *allow, const struct target *t)
{
	const char *p = allow;

	while (*p) {
		const char *e = p + strcspn(p, ",");
		struct target a;

		while (p < e && *p == ' ')
			p++;
		const char *q = e;
		while (q > p && q[-1] == ' ')
			q--;
		if (q > p && parse_target(p, q, &a) == 0 &&
		    strcasecmp(a.host, t->host) == 0 && (!a.port || a.port == t->port))
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}

bool callback_allowed(const char *allow, const char *url, char *why,
		      size_t whylen)
{
	struct target t;

	if (strlen(url) > 2048 || parse_url(url, &t) < 0) {
		snprintf(why, whylen, "is not a valid URL");
		return false;
	}
	if (!listed(allow, &t)) {
		snprintf(why, whylen, "host %s port %u is not allowed on this "
			 "server (RUN_CALLBACK_ALLOW)", t.host, t.port);
		return false;
	}
	return true;
}
