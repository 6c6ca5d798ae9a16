/* SPDX-License-Identifier: Apache-2.0 */
/* walk: see walk.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/walk.h"

struct frame {
	DIR *dir;
	size_t path_len;         /* of the directory's own path in w->path */
};

static void set_path(struct walk *w, size_t parent_len, const char *name)
{
	int n = snprintf(w->path + parent_len, sizeof(w->path) - parent_len, "%s%s",
			 parent_len ? "/" : "", name);
	w->name_off = parent_len ? parent_len + 1 : 0;
	w->path_cut = n < 0 || (size_t)n >= sizeof(w->path) - parent_len;
}

int walk_tree(struct walk *w, int top)
{
	struct frame stack[WALK_DEPTH_MAX + 1];
	int n = 0, rc = 0, fd = dup(top);

	if (fd < 0 || !(stack[0].dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* The dup shares top's offset: a walk before this one (of the same
	 * fd) left it at the end. */
	rewinddir(stack[0].dir);
	stack[0].path_len = 0;
	w->path[0] = 0;
	n = 1;
	while (n > 0) {
		struct frame *f = &stack[n - 1];
		errno = 0;
		struct dirent *e = readdir(f->dir);
		if (!e) {
			if (errno) {
				rc = -1;
				break;
			}
			closedir(f->dir);
			n--;
			if (n == 0)
				break;
			/* Back in the parent: leave the directory just walked. */
			struct frame *up = &stack[n - 1];
			w->depth = n - 1;
			w->path[f->path_len] = 0;
			const char *name = w->path + (up->path_len ? up->path_len + 1 : 0);
			w->name_off = (size_t)(name - w->path);
			if (w->leave && w->leave(w, dirfd(up->dir), name) < 0) {
				rc = -1;
				break;
			}
			w->path[up->path_len] = 0;
			continue;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat st;
		int at = dirfd(f->dir);
		bool have = fstatat(at, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0;
		w->depth = n - 1;
		set_path(w, f->path_len, e->d_name);
		int sub = w->visit(w, at, e->d_name, have ? &st : NULL);
		if (sub == WALK_STOP) {
			rc = -1;
			break;
		}
		if (sub < 0) {
			w->path[f->path_len] = 0;
			continue;
		}
		DIR *d = n <= WALK_DEPTH_MAX ? fdopendir(sub) : NULL;
		if (!d) {
			if (n > WALK_DEPTH_MAX)
				errno = ELOOP;
			close(sub);
			rc = -1;
			break;
		}
		stack[n].dir = d;
		stack[n].path_len = strlen(w->path);
		n++;
	}
	while (n > 0)
		closedir(stack[--n].dir);
	return rc;
}
