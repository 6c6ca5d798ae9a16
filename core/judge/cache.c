/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compile cache (see cache.h).  Layout of <cache>:
 *   <name>/key     the full key; a lookup compares it byte for byte
 *   <name>/size    the entry's size on disk in bytes, for the bound
 *   <name>/record  the build's answer, replayed when hits are hidden
 *   <name>/out/    what the build left in /sandbox, a read-only layer of runs
 *   .lock          held exclusively while an entry is admitted (accounting
 *                  and eviction are one step, across workers and services)
 *   .tmp-*         builds in progress, renamed into place when done
 * An entry's mtime is its last use; eviction removes the oldest first, and
 * never one pinned by a request (a shared flock on its directory).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "judge/cache.h"
#include "slot/tree.h"
#include "util/sha256.h"
#include "util/util.h"
#include "util/walk.h"

int cache_key_make(struct cache_key *k, const char *slug, const char *version,
		   const char *build_cmd, const char *file, const char *src,
		   size_t src_len)
{
	char *head = NULL;
	int n = asprintf(&head, "gaol-cache-1\nlang %s\nversion %s\nbuild %s\nfile %s\nsource %zu\n",
			 slug, version ? version : "", build_cmd, file, src_len);
	if (n < 0)
		return -1;
	k->len = (size_t)n + src_len;
	k->text = malloc(k->len);
	if (!k->text) {
		free(head);
		return -1;
	}
	memcpy(k->text, head, (size_t)n);
	memcpy(k->text + n, src, src_len);
	free(head);
	/* A name nobody can choose to collide with another tenant's. */
	uint8_t md[SHA256_LEN];
	sha256(k->text, k->len, md);
	for (unsigned i = 0; i < SHA256_LEN; i++)
		snprintf(k->name + 2 * i, 3, "%02x", md[i]);
	return 0;
}

void cache_key_free(struct cache_key *k)
{
	free(k->text);
	k->text = NULL;
}

static int read_whole(int dirfd, const char *name, char **buf, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*buf = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (*buf && got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!*buf || got != (size_t)st.st_size) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	*len = got;
	return 0;
}

/* Pins the entry name in cache: a shared lock on its directory, taken
 * without waiting (an evictor holds it exclusively only while it renames
 * the entry away), then checked to be still the one at that name. */
static int pin_entry(int cache, const char *name)
{
	int dfd = openat(cache, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat a, b;
	if (dfd < 0)
		return -1;
	if (flock(dfd, LOCK_SH | LOCK_NB) < 0 || fstat(dfd, &a) < 0 ||
	    fstatat(cache, name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		close(dfd);
		return -1;
	}
	return dfd;
}

bool cache_lookup(const char *cache_dir, const struct cache_key *k, char *out,
		  size_t outlen, int *pin)
{
	*pin = -1;
	int cache = open(cache_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cache < 0)
		return false;
	int dfd = pin_entry(cache, k->name);
	close(cache);
	if (dfd < 0)
		return false;
	char *key = NULL;
	size_t len = 0;
	bool hit = read_whole(dfd, "key", &key, &len) == 0 && len == k->len &&
		   memcmp(key, k->text, len) == 0;
	free(key);
	if (!hit) {
		close(dfd);
		return false;
	}
	futimens(dfd, NULL);    /* used now: last in line for eviction */
	snprintf(out, outlen, "%s/%s/out", cache_dir, k->name);
	*pin = dfd;
	return true;
}

void cache_unpin(int *pin)
{
	close_fd(pin);
}

char *cache_record(int pin)
{
	char *text = NULL;
	size_t len = 0;
	if (pin < 0 || read_whole(pin, "record", &text, &len) < 0)
		return NULL;
	text[len] = 0;
	return text;
}

int cache_reserve(const char *cache_dir, char *tmp, size_t tmplen, char *out,
		  size_t outlen)
{
	static unsigned counter;
	if (mkdir(cache_dir, 0711) < 0 && errno != EEXIST)
		return -1;
	snprintf(tmp, tmplen, "%s/.tmp-%d-%u", cache_dir, (int)getpid(), counter++);
	cache_remove_tree(tmp);
	if (mkdir(tmp, 0755) < 0)
		return -1;
	snprintf(out, outlen, "%s/out", tmp);
	return mkdir(out, 0755);
}

int cache_remove_tree(const char *path)
{
	return tree_remove_at(AT_FDCWD, path);
}

void cache_sweep(const char *cache_dir)
{
	DIR *d = opendir(cache_dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		/* .tmp-<pid>-<n> and .tmp-evict-<pid>-...: only a dead
		 * process's; another service sharing the state directory may
		 * be building right now. */
		const char *rest = e->d_name;
		if (strncmp(rest, ".tmp-", 5))
			continue;
		rest += 5;
		if (!strncmp(rest, "evict-", 6))
			rest += 6;
		long pid = strtol(rest, NULL, 10);
		if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			continue;
		tree_remove_at(dirfd(d), e->d_name);
	}
	closedir(d);
}

/* The bytes an entry's files take on disk, nested at most 128 deep. */
static int size_visit(struct walk *w, int at, const char *name, const struct stat *st)
{
	unsigned long long *total = w->ctx;
	if (!st)
		return WALK_SKIP;
	*total += (unsigned long long)st->st_blocks * 512;
	if (!S_ISDIR(st->st_mode) || w->depth + 1 >= WALK_DEPTH_MAX)
		return WALK_SKIP;
	int sub = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return sub < 0 ? WALK_SKIP : sub;
}

/* An entry's size on disk: its directory and everything in it. */
static unsigned long long entry_size(int dfd)
{
	struct stat st;
	unsigned long long total = fstat(dfd, &st) == 0 ? (unsigned long long)st.st_blocks * 512 : 0;
	struct walk w = { .visit = size_visit, .ctx = &total };
	walk_tree(&w, dfd);
	return total;
}

struct entry {
	char name[80];
	time_t used;
	unsigned long long size;
};

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->used < y->used ? -1 : x->used > y->used;
}

/* One committed entry's size: its size file, or (written by an older
 * version, or damaged) measured. */
static unsigned long long size_of(int cache, const char *name)
{
	char sizefile[160], *text = NULL;
	size_t len = 0;
	snprintf(sizefile, sizeof(sizefile), "%s/size", name);
	if (read_whole(cache, sizefile, &text, &len) == 0) {
		text[len] = 0;
		unsigned long long size = strtoull(text, NULL, 10);
		free(text);
		return size;
	}
	int dfd = openat(cache, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	unsigned long long size = dfd >= 0 ? entry_size(dfd) : 0;
	if (dfd >= 0)
		close(dfd);
	return size;
}

/* The committed entries (not .lock, not .tmp-*) and their total size. */
static struct entry *list_entries(int cache, size_t *n, unsigned long long *total)
{
	int fd = dup(cache);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct entry *v = NULL;
	size_t cap = 0;
	struct dirent *e;
	*n = 0;
	*total = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(v->name) ||
		    fstatat(cache, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			struct entry *nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", e->d_name);
		v[*n].used = st.st_mtime;
		v[*n].size = size_of(cache, e->d_name);
		*total += v[*n].size;
		(*n)++;
	}
	closedir(d);
	return v;
}

/* Makes room for need bytes within max_bytes, the least recently used
 * entries first, never one pinned by a request.  Called holding .lock, so
 * that no other admission counts the same room.  True when it fits. */
static bool make_room(int cache, unsigned long long need, unsigned long long max_bytes)
{
	if (need > max_bytes)
		return false;
	size_t n;
	unsigned long long total;
	struct entry *v = list_entries(cache, &n, &total);
	if (v)
		qsort(v, n, sizeof(*v), by_use);
	for (size_t i = 0; v && i < n && total + need > max_bytes; i++) {
		int dfd = openat(cache, v[i].name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			continue;
		if (flock(dfd, LOCK_EX | LOCK_NB) == 0) {
			char trash[160];
			snprintf(trash, sizeof(trash), ".tmp-evict-%d-%s", (int)getpid(), v[i].name);
			/* Renamed first, so no lookup finds a half-removed
			 * entry; removed before the room is used. */
			if (renameat(cache, v[i].name, cache, trash) == 0) {
				tree_remove_at(cache, trash);
				total -= v[i].size;
			}
		}
		close(dfd);   /* pinned (the lock refused): spared */
	}
	free(v);
	return total + need <= max_bytes;
}

/* Admits the build in tmp under k, holding .lock: 0 (pinned in *pin), 1
 * when it does not fit, -1 with errno. */
static int admit(int cache, const char *cache_dir, const struct cache_key *k,
		 const char *tmp, unsigned long long size, unsigned long long max_bytes,
		 int *pin)
{
	char hit[4200];
	struct stat st;
	if (cache_lookup(cache_dir, k, hit, sizeof(hit), pin))
		return 0;       /* another worker built the same meanwhile */
	if (fstatat(cache, k->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;       /* held by another key, or pinned mid-eviction */
	if (max_bytes && !make_room(cache, size, max_bytes))
		return 1;
	if (renameat(AT_FDCWD, tmp, cache, k->name) < 0)
		return -1;
	*pin = pin_entry(cache, k->name);
	return *pin < 0 ? -1 : 0;
}

/* Writes what an entry holds beside its output: key, record, size. */
static unsigned long long write_entry(int tfd, const struct cache_key *k, const char *record)
{
	if (file_write_at(tfd, "key", O_EXCL, 0644, k->text, k->len) < 0 ||
	    file_write_at(tfd, "record", O_EXCL, 0644, record, strlen(record)) < 0)
		return 0;
	/* The size file's own block counted: it is written after. */
	unsigned long long size = entry_size(tfd) + 4096;
	char sizetext[32];
	int n = snprintf(sizetext, sizeof(sizetext), "%llu\n", size);
	if (file_write_at(tfd, "size", O_EXCL, 0644, sizetext, (size_t)n) < 0)
		return 0;
	return size;
}

int cache_commit(const char *cache_dir, const struct cache_key *k, const char *tmp,
		 const char *record, unsigned long long max_bytes, char *out,
		 size_t outlen, int *pin)
{
	int rc = -1, lock = -1;
	int cache = open(cache_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int tfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	*pin = -1;
	unsigned long long size = cache >= 0 && tfd >= 0 ? write_entry(tfd, k, record) : 0;
	if (size) {
		lock = openat(cache, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (lock >= 0 && flock(lock, LOCK_EX) == 0)
			rc = admit(cache, cache_dir, k, tmp, size, max_bytes, pin);
	}
	int saved = errno;
	if (lock >= 0)
		close(lock);
	if (tfd >= 0)
		close(tfd);
	if (cache >= 0)
		close(cache);
	if (rc == 1) {
		snprintf(out, outlen, "%s/out", tmp);
		return 1;
	}
	cache_remove_tree(tmp);
	if (rc == 0)
		snprintf(out, outlen, "%s/%s/out", cache_dir, k->name);
	errno = saved;
	return rc;
}
