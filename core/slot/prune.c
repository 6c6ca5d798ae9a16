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

/* mountinfo's fifth field, with its octal escapes (\040 and the like)
 * undone, into out.  false when the line has none or it does not fit. */
static bool mount_point(const char *line, const char *end, char *out, size_t len)
{
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

int prune_mounts(const struct reach *r, const char *mountinfo)
{
	/* The lines, last first: a mount is listed after the one it is
	 * mounted on, so its children (and what is stacked on it) go first. */
	size_t n = 0, lines = 1;
	for (const char *p = mountinfo; (p = strchr(p, '\n')); p++)
		lines++;
	const char **starts = malloc(lines * sizeof(*starts));
	if (!starts)
		return 0;
	for (const char *p = mountinfo; *p && n < lines;) {
		starts[n++] = p;
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	int gone = 0;
	char mp[PATH_MAX];
	while (n--) {
		const char *end = strchr(starts[n], '\n');
		if (!end)
			end = starts[n] + strlen(starts[n]);
		if (!mount_point(starts[n], end, mp, sizeof(mp)) || reach_needs(r, mp))
			continue;
		/* Gone already with a mount it was beneath: EINVAL, ignored. */
		if (umount2(mp, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
			gone++;
	}
	free(starts);
	return gone;
}
