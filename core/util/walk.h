/* SPDX-License-Identifier: Apache-2.0 */
/*
 * walk: the one directory walker.  Iterative (a stack of open directories,
 * never recursion), never following a symbolic link, at most WALK_DEPTH_MAX
 * levels deep.  What to do with each entry, how deep to go and what an
 * error means are the caller's (its visit and leave); the walker only
 * reads the directories.  It allocates nothing but what fdopendir does.
 */
#ifndef GAOL_WALK_H
#define GAOL_WALK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#define WALK_DEPTH_MAX 128

enum { WALK_STOP = -1, WALK_SKIP = -2 };

struct walk {
	/* Every entry but "." and "..", in readdir's order.  st is NULL when
	 * lstat failed (errno says why).  Returns WALK_SKIP, WALK_STOP (the
	 * walk ends, -1), or an open directory fd to walk into (the walker
	 * takes it). */
	int (*visit)(struct walk *w, int dirfd, const char *name, const struct stat *st);
	/* After the entries of a directory visit walked into, with the
	 * directory holding it; NULL: nothing to do.  -1 stops the walk. */
	int (*leave)(struct walk *w, int dirfd, const char *name);
	void *ctx;
	/* Set by the walker for visit and leave: */
	int depth;               /* of the entry: 0 for the top's own entries */
	char path[PATH_MAX];     /* its path below the top: "a/b" */
	size_t name_off;         /* where its name starts in path */
	bool path_cut;           /* path did not fit (truncated) */
	/* A word per level for the caller: user[depth + 1] belongs to the
	 * directory an entry at depth walks into (a copy's destination). */
	long user[WALK_DEPTH_MAX + 2];
};

/* Walks the directory top (which stays the caller's).  0, or -1: visit or
 * leave stopped it, or a directory could not be read (errno), or visit
 * asked to go deeper than WALK_DEPTH_MAX (ELOOP). */
int walk_tree(struct walk *w, int top);

#endif
