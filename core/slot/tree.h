/*
 * tree: directory trees handled as root on behalf of untrusted programs:
 * copied out of a finished run (a build's output) and removed, without ever
 * following a symbolic link the program could have planted.
 */
#ifndef GAOL_TREE_H
#define GAOL_TREE_H

/* Copies what src holds into dst: regular files (no set-id bits),
 * directories and symlinks (as links); anything else is skipped.  0 or -1. */
int tree_copy(int src, int dst);
/* Removes name in dirfd, recursively.  A missing name is not an error. */
int tree_remove_at(int dirfd, const char *name);
/* Removes everything inside dirfd, which stays.  0 or -1. */
int tree_empty(int dirfd);

#endif
