/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup_parse: the cgroup texts gaol reads, parsed (cgroup.h declares
 * them, so the unit tests reach them): keyed lines (cpu.stat,
 * memory.events, memory.oom_control), /proc/self/cgroup, /proc/self/mounts;
 * and a cgroup path with the pool's own level cut off.
 * Pure functions of their text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slot/cgroup.h"
#include "slot/cgroup_internal.h"

/* "key value" lines, as in cpu.stat, memory.events, memory.oom_control. */
static int parse_keyed(const char *text, const char *key, unsigned long long *value)
{
	size_t klen = strlen(key);
	for (const char *line = text; line && *line; ) {
		if (!strncmp(line, key, klen) && line[klen] == ' ') {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(line + klen + 1, &end, 10);
			if (errno || end == line + klen + 1 || (*end && *end != '\n'))
				return -1;
			*value = v;
			return 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -1;
}

int cg_parse_v2_cpu_stat(const char *text, unsigned long long *usage_usec)
{
	return parse_keyed(text, "usage_usec", usage_usec);
}

int cg_parse_v2_events(const char *text, const char *key, unsigned long long *value)
{
	return parse_keyed(text, key, value);
}

int cg_parse_v1_oom_control(const char *text, unsigned long long *oom_kills)
{
	return parse_keyed(text, "oom_kill", oom_kills);
}

/* "pid (comm) S ...": comm may hold spaces and parentheses, so the state
 * follows the last ')'. */
char cg_parse_stat_state(const char *text)
{
	const char *p = strrchr(text, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return 0;
	return p[2];
}

/* "<on-CPU ns> <run-queue wait ns> <timeslices>" (sched_info). */
int cg_parse_schedstat_wait(const char *text, unsigned long long *wait_ns)
{
	char *end;
	errno = 0;
	strtoull(text, &end, 10);
	if (end == text || *end != ' ' || errno)
		return -1;
	return cg_parse_u64(end + 1, wait_ns);
}

/* cpu.pressure: "some avg10=0.00 avg60=0.00 avg300=0.00 total=N" first. */
int cg_parse_pressure_some(const char *text, unsigned long long *total_us)
{
	const char *nl = strchr(text, '\n');
	const char *t = strstr(text, " total=");
	if (strncmp(text, "some ", 5) || !t || (nl && t > nl))
		return -1;
	return cg_parse_u64(t + 7, total_us);
}

int cg_parse_stat_key(const char *text, const char *key, unsigned long long *v)
{
	return parse_keyed(text, key, v);
}

/* Whether name is one of the comma-separated items of list[0..len). */
bool cg_list_has(const char *list, size_t len, const char *name)
{
	size_t want = strlen(name);
	for (const char *t = list, *end = list + len; t < end; ) {
		const char *comma = memchr(t, ',', (size_t)(end - t));
		const char *te = comma ? comma : end;
		if ((size_t)(te - t) == want && !strncmp(t, name, want))
			return true;
		t = te + 1;
	}
	return false;
}

/* A line is "<id>:<controllers>:<path>"; v2's is "0::<path>". */
int cg_parse_proc_cgroup(const char *text, const char *controller, char *out, size_t len)
{
	for (const char *line = text; line && *line; ) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		const char *c1 = memchr(line, ':', n);
		const char *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;
		if (c2) {
			size_t clen = (size_t)(c2 - c1 - 1);
			bool match;
			if (!*controller) {
				match = c1 - line == 1 && line[0] == '0' && clen == 0;
			} else {
				match = cg_list_has(c1 + 1, clen, controller);
			}
			if (match) {
				const char *path = c2 + 1;
				const char *end = line + n;
				while (path < end && *path == '/')
					path++;
				snprintf(out, len, "%.*s", (int)(end - path), path);
				return 0;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}

/* A field of /proc/self/mounts or mountinfo into out, its octal escapes
 * (\040 for a blank) decoded. */
static void unescape(const char *f, size_t flen, char *out, size_t len)
{
	size_t k = 0;
	for (size_t i = 0; i < flen && k + 1 < len; i++) {
		const char *q = f + i;
		if (*q == '\\' && i + 3 < flen && q[1] >= '0' && q[1] <= '3' &&
		    q[2] >= '0' && q[2] <= '7' && q[3] >= '0' && q[3] <= '7') {
			out[k++] = (char)((q[1] - '0') * 64 + (q[2] - '0') * 8 + (q[3] - '0'));
			i += 3;
		} else {
			out[k++] = *q;
		}
	}
	out[k] = 0;
}

/* Splits [c, end) at blanks into at most max fields: how many. */
static int split_fields(const char *c, const char *end, const char **f, size_t *flen, int max)
{
	int n = 0;
	while (c < end && *c == ' ')
		c++;
	for (; n < max && c < end; n++) {
		f[n] = c;
		while (c < end && *c != ' ')
			c++;
		flen[n] = (size_t)(c - f[n]);
		while (c < end && *c == ' ')
			c++;
	}
	return n;
}

/* A /proc/self/mounts text: where the v1 hierarchy holding controller is
 * mounted (the first such mount, as libcgroup took it), with the octal
 * escapes of the field decoded.  0 or -1. */
int cg_parse_v1_mount_point(const char *text, const char *controller, char *out,
			    size_t len)
{
	for (const char *line = text; line && *line; ) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		/* device, mount point, type, options */
		const char *f[4];
		size_t flen[4];
		int n = split_fields(line, end, f, flen, 4);
		bool match = n == 4 && flen[2] == 6 && !strncmp(f[2], "cgroup", 6) &&
			     cg_list_has(f[3], flen[3], controller);
		if (match && len) {
			unescape(f[1], flen[1], out, len);
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}

/* A /proc/self/mountinfo text: the first cgroup2 mount's mount point
 * (decoded) and its superblock's options ("rw,nsdelegate,...").  A line is
 * "id parent maj:min root point options [tags...] - type source
 * super-options".  0 or -1. */
int cg_parse_cgroup2_mountinfo(const char *text, char *point, size_t plen, char *opts,
			       size_t olen)
{
	for (const char *line = text; line && *line; ) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *dash = NULL;
		for (const char *c = line; c + 3 <= end && !dash; c++)
			if (c[0] == ' ' && c[1] == '-' && (c + 2 == end || c[2] == ' '))
				dash = c;
		const char *f[5], *g[3];
		size_t flen[5], glen[3];
		if (dash && split_fields(line, dash, f, flen, 5) == 5 &&
		    split_fields(dash + 2, end, g, glen, 3) == 3 &&
		    glen[0] == 7 && !strncmp(g[0], "cgroup2", 7)) {
			unescape(f[4], flen[4], point, plen);
			snprintf(opts, olen, "%.*s", (int)glen[2], g[2]);
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}

void cgroup_unnest_pool(char *own, const char *instance)
{
	/* own ends in "<instance>/pool<N>": cut both, and the '/' before. */
	size_t il = strcspn(instance, "/");     /* "<instance>/<slot>" will do */
	char *last = strrchr(own, '/');
	if (!last || strncmp(last + 1, "pool", 4) != 0)
		return;
	*last = 0;
	char *parent = strrchr(own, '/');
	char *name = parent ? parent + 1 : own;
	if (strlen(name) != il || strncmp(name, instance, il) != 0) {
		*last = '/';        /* not ours: left as it was */
		return;
	}
	*(parent ? parent : own) = 0;
}
