/*
 * cache: compiled programs, kept so that an identical submission is not built
 * twice (docs/design.md, "Judging").  An entry is a directory under <state>/cache named
 * by a hash of its key; the key itself (language, toolchain version, build
 * command, file name, source) is stored beside the output and compared in
 * full on lookup, so a hash collision is a miss, never a wrong program.
 * The cache is bounded in bytes; the least recently used entries go first.
 * Entries are shared by all workers: they are created under a temporary name
 * and renamed into place, and only ever read afterwards.
 */
#ifndef GAOL_CACHE_H
#define GAOL_CACHE_H

#include <stdbool.h>
#include <stddef.h>

struct cache_key {
	char *text;              /* the full key, compared on lookup */
	size_t len;
	char name[40];           /* the entry's directory name */
};

/* Builds the key of a build.  Returns 0, or -1 when out of memory. */
int cache_key_make(struct cache_key *k, const char *slug, const char *version,
		   const char *build_cmd, const char *file, const char *src,
		   size_t src_len);
void cache_key_free(struct cache_key *k);

/* On a hit, writes the entry's output directory into out and marks the
 * entry used.  Returns true on a hit. */
bool cache_lookup(const char *cache_dir, const struct cache_key *k, char *out,
		  size_t outlen);

/* A fresh, empty directory to export a build into: <cache>/.tmp-<pid>-<n>/out.
 * Returns 0, or -1 with errno. */
int cache_reserve(const char *cache_dir, char *tmp, size_t tmplen, char *out,
		  size_t outlen);

/* Moves a finished build (tmp, as reserved) into the cache under k, then
 * evicts least recently used entries above max_bytes.  On success out names
 * the entry's output directory (which may be another worker's identical
 * build).  Returns 0, or -1 with errno (tmp is removed either way). */
int cache_commit(const char *cache_dir, const struct cache_key *k, const char *tmp,
		 unsigned long long max_bytes, char *out, size_t outlen);

/* Removes the builds a crashed predecessor left half-done (.tmp-*). */
void cache_sweep(const char *cache_dir);

/* Removes a directory tree without following links.  Returns 0 or -1. */
int cache_remove_tree(const char *path);

#endif
