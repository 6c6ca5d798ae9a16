/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache: compiled programs, kept so that an identical submission is not built
 * twice (docs/design.md, "Judging").  An entry is a directory under <state>/cache named
 * by the SHA-256 of its key (OpenSSL's); the key itself (language, toolchain
 * version, build command, file name, source) is stored beside the output and
 * compared in full on lookup, so even a collision is a miss, never another
 * tenant's program.  The cache is bounded in bytes: an entry is admitted only
 * when it fits, the least recently used unpinned entries going first, and a
 * build that does not fit is used once and not kept.  A request pins the
 * entry it uses (a shared flock on its directory) until it ends; eviction
 * takes the lock exclusively, so it never removes an entry in use.  Entries
 * are shared by all workers: they are created under a temporary name and
 * renamed into place, and only ever read afterwards.
 */
#ifndef GAOL_CACHE_H
#define GAOL_CACHE_H

#include <stdbool.h>
#include <stddef.h>

struct cache_key {
	char *text;              /* the full key, compared on lookup */
	size_t len;
	char name[72];           /* the entry's directory name: SHA-256, hex */
};

/* Builds the key of a build.  Returns 0, or -1 when out of memory. */
int cache_key_make(struct cache_key *k, const char *slug, const char *version,
		   const char *build_cmd, const char *file, const char *src,
		   size_t src_len);
void cache_key_free(struct cache_key *k);

/* On a hit, writes the entry's output directory into out, marks the entry
 * used and pins it: *pin holds it until cache_unpin.  Returns true on a hit
 * (a miss leaves *pin -1). */
bool cache_lookup(const char *cache_dir, const struct cache_key *k, char *out,
		  size_t outlen, int *pin);
void cache_unpin(int *pin);
/* The build's answer stored with the entry (cache_commit's record), for
 * the pinned entry; malloc'd, or NULL. */
char *cache_record(int pin);

/* A fresh, empty directory to export a build into: <cache>/.tmp-<pid>-<n>/out.
 * Returns 0, or -1 with errno. */
int cache_reserve(const char *cache_dir, char *tmp, size_t tmplen, char *out,
		  size_t outlen);

/* Moves a finished build (tmp, as reserved), with record (the build's
 * answer), into the cache under k, evicting least recently used unpinned
 * entries so that the cache stays within max_bytes (0: unbounded).
 * Returns 0: out names the pinned entry's output directory (which may be
 * another worker's identical build), tmp is gone; 1: it does not fit, out
 * names tmp's output, which the caller uses once and removes; -1 with
 * errno (tmp removed). */
int cache_commit(const char *cache_dir, const struct cache_key *k, const char *tmp,
		 const char *record, unsigned long long max_bytes, char *out,
		 size_t outlen, int *pin);

/* Removes the builds a crashed predecessor left half-done (.tmp-*). */
void cache_sweep(const char *cache_dir);

/* Removes a directory tree without following links.  Returns 0 or -1. */
int cache_remove_tree(const char *path);

#endif
