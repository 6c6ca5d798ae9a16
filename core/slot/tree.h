/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tree: directory trees handled as root on behalf of untrusted programs:
 * copied out of a finished run (a build's output) and removed, without ever
 * following a symbolic link the program could have planted.
 */
#ifndef GAOL_TREE_H
#define GAOL_TREE_H

/* What a copy may write: it stops at the first entry that would pass a
 * limit (dst then holds part of src; the caller removes it).  0: no limit. */
struct tree_limits {
	unsigned long long bytes;    /* data bytes (holes are not data) */
	unsigned long long entries;  /* files, directories and links */
};

/* Why a copy stopped short: the limit src passed. */
enum tree_over {
	TREE_WITHIN = 0,
	TREE_OVER_BYTES,
	TREE_OVER_ENTRIES,
	TREE_OVER_DEPTH,             /* deeper than WALK_DEPTH_MAX - 1 levels */
};

/* Copies what src holds into dst: regular files (no set-id bits; sparse
 * files stay sparse), directories and symlinks (as links); anything else
 * is skipped.  0 (with *over saying whether a limit stopped it), or -1 with
 * errno. */
int tree_copy(int src, int dst, const struct tree_limits *lim, enum tree_over *over);
/* Removes name in dirfd, recursively.  A missing name is not an error. */
int tree_remove_at(int dirfd, const char *name);
/* Removes everything inside dirfd, which stays.  0 or -1. */
int tree_empty(int dirfd);

#endif
