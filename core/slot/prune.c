/* SPDX-License-Identifier: Apache-2.0 */
/*
 * prune: which host mounts a slot's template keeps (see prune.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "slot/prune.h"

static int push(char ***v, size_t *n, size_t *cap, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return 0;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		char **nv = realloc(*v, c * sizeof(*nv));
		if (!nv)
			return -1;
		*v = nv;
		*cap = c;
	}
	if (!((*v)[*n] = strdup(s)))
		return -1;
	(*n)++;
	return 0;
}

int reach_add(struct reach *r, const char *path, bool whole)
{
	char prefix[PATH_MAX], real[PATH_MAX];
	size_t len = strlen(path);
	if (path[0] != '/' || len >= sizeof(prefix))
		return 0;
	/* "/a", "/a/b", ... path: each as the kernel's lookup resolves it, so
	 * that a symlink on the way keeps the mounts its target crosses. */
	for (size_t i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(prefix, path, i);
		prefix[i] = '\0';
		if (realpath(prefix, real) && push(&r->way, &r->n_way, &r->cap_way, real) < 0)
			return -1;
	}
	if (whole && realpath(path, real) &&
	    push(&r->under, &r->n_under, &r->cap_under, real) < 0)
		return -1;
	return 0;
}

/* path is dir or lies beneath it. */
static bool within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1)
		return true;    /* "/" */
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

bool reach_needs(const struct reach *r, const char *mount_point)
{
	for (size_t i = 0; i < r->n_way; i++)
		if (within(r->way[i], mount_point))
			return true;
	for (size_t i = 0; i < r->n_under; i++)
		if (within(mount_point, r->under[i]))
			return true;
	return false;
}

void reach_free(struct reach *r)
{
	for (size_t i = 0; i < r->n_way; i++)
		free(r->way[i]);
	for (size_t i = 0; i < r->n_under; i++)
		free(r->under[i]);
	free(r->way);
	free(r->under);
	memset(r, 0, sizeof(*r));
}

/* A line of mountinfo: its mount's id, its parent's, and its mount point
 * (the fifth field) with the octal escapes (\040 and the like) undone.
 * false when the line has none or it does not fit. */
static bool parse_line(const char *line, const char *end, long *id, long *parent,
		       char *out, size_t len)
{
	char *after;
	*id = strtol(line, &after, 10);
	*parent = strtol(after, &after, 10);
	if (after == line)
		return false;
	for (int field = 0; field < 4; field++) {
		line = memchr(line, ' ', (size_t)(end - line));
		if (!line)
			return false;
		line++;
	}
	size_t n = 0;
	while (line < end && *line != ' ') {
		char c = *line++;
		if (c == '\\' && end - line >= 3 && line[0] >= '0' && line[0] <= '3' &&
		    line[1] >= '0' && line[1] <= '7' && line[2] >= '0' && line[2] <= '7') {
			c = (char)((line[0] - '0') << 6 | (line[1] - '0') << 3 | (line[2] - '0'));
			line += 3;
		}
		if (n + 1 >= len)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	return n > 0;
}

struct mount_line {
	long id, parent;
	bool needed;
	char *point;
};

int prune_mounts(const struct reach *r, const char *mountinfo)
{
	size_t n = 0, lines = 1;
	for (const char *p = mountinfo; (p = strchr(p, '\n')); p++)
		lines++;
	struct mount_line *m = calloc(lines, sizeof(*m));
	if (!m)
		return 0;
	char mp[PATH_MAX];
	for (const char *p = mountinfo; *p && n < lines;) {
		const char *end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		if (parse_line(p, end, &m[n].id, &m[n].parent, mp, sizeof(mp)) &&
		    (m[n].point = strdup(mp))) {
			m[n].needed = reach_needs(r, mp);
			n++;
		}
		p = *end ? end + 1 : end;
	}
	/* Only where a mount no run needs sits on one that is needed: what
	 * is beneath it (or stacked on it) goes with it, one detach each. */
	int gone = 0;
	for (size_t i = 0; i < n; i++) {
		if (m[i].needed)
			continue;
		bool top = true;
		for (size_t j = 0; j < n; j++)
			if (m[j].id == m[i].parent)
				top = m[j].needed;
		/* Every mount at that point: the same point, the same verdict. */
		while (top && umount2(m[i].point, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
			gone++;
	}
	for (size_t i = 0; i < n; i++)
		free(m[i].point);
	free(m);
	return gone;
}
