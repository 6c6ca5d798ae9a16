/*
 * The compile cache (see cache.h).  Layout of <cache>:
 *   <name>/key    the full key; a lookup compares it byte for byte
 *   <name>/size   the output's size in bytes, for the bound
 *   <name>/out/   what the build left in /sandbox, a read-only layer of runs
 *   .tmp-*        builds in progress, renamed into place when done
 * An entry's mtime is its last use; eviction removes the oldest first, and
 * never one used in the last EVICT_GRACE seconds (a run may be mounting it).
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "judge/cache.h"
#include "slot/tree.h"
#include "util/util.h"
#include "util/walk.h"

#define EVICT_GRACE 60

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
	/* Two differently seeded hashes: a directory name, not a proof. */
	uint64_t a = fnv1a(k->text, k->len, FNV_OFFSET);
	uint64_t b = fnv1a(k->text, k->len, 0x84222325cbf29ce4ULL);
	snprintf(k->name, sizeof(k->name), "%.12s-%016llx%08llx", slug,
		 (unsigned long long)a, (unsigned long long)(b >> 32));
	for (char *c = k->name; *c; c++)
		if (*c == '/' || *c == '.')
			*c = '_';
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

bool cache_lookup(const char *cache_dir, const struct cache_key *k, char *out,
		  size_t outlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", cache_dir, k->name);
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return false;
	char *key = NULL;
	size_t len = 0;
	bool hit = read_whole(dfd, "key", &key, &len) == 0 && len == k->len &&
		   memcmp(key, k->text, len) == 0;
	free(key);
	if (hit) {
		futimens(dfd, NULL);    /* used now: last in line for eviction */
		snprintf(out, outlen, "%s/out", path);
	}
	close(dfd);
	return hit;
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
	if (!S_ISDIR(st->st_mode) || w->depth + 1 >= 128)
		return WALK_SKIP;
	int sub = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return sub < 0 ? WALK_SKIP : sub;
}

static unsigned long long tree_size(int at)
{
	unsigned long long total = 0;
	struct walk w = { .visit = size_visit, .ctx = &total };
	walk_tree(&w, at);
	return total;
}

struct entry {
	char name[64];
	time_t used;
	unsigned long long size;
};

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->used < y->used ? -1 : x->used > y->used;
}

/* Removes the least recently used entries until the cache holds at most
 * max_bytes, sparing what was used in the last EVICT_GRACE seconds. */
static void evict(const char *cache_dir, unsigned long long max_bytes)
{
	DIR *d = opendir(cache_dir);
	if (!d)
		return;
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	unsigned long long total = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || strlen(e->d_name) >= sizeof(v->name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			struct entry *nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		char *text = NULL;
		size_t len = 0;
		char sizefile[160];
		snprintf(sizefile, sizeof(sizefile), "%s/size", e->d_name);
		unsigned long long size = 0;
		if (read_whole(dirfd(d), sizefile, &text, &len) == 0) {
			text[len] = 0;
			size = strtoull(text, NULL, 10);
		}
		free(text);
		snprintf(v[n].name, sizeof(v[n].name), "%s", e->d_name);
		v[n].used = st.st_mtime;
		v[n].size = size;
		total += size;
		n++;
	}
	qsort(v, n, sizeof(*v), by_use);
	time_t now = time(NULL);
	for (size_t i = 0; i < n && total > max_bytes; i++) {
		if (now - v[i].used < EVICT_GRACE)
			break;
		char trash[4096];
		snprintf(trash, sizeof(trash), "%s/.tmp-evict-%d-%s", cache_dir, (int)getpid(),
			 v[i].name);
		/* Renamed first, so no lookup finds a half-removed entry. */
		if (renameat(dirfd(d), v[i].name, dirfd(d), trash + strlen(cache_dir) + 1) == 0)
			cache_remove_tree(trash);
		total -= v[i].size;
	}
	free(v);
	closedir(d);
}

int cache_commit(const char *cache_dir, const struct cache_key *k, const char *tmp,
		 unsigned long long max_bytes, char *out, size_t outlen)
{
	int tfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0)
		return -1;
	int ofd = openat(tfd, "out", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	unsigned long long size = ofd >= 0 ? tree_size(ofd) : 0;
	if (ofd >= 0)
		close(ofd);
	char sizetext[32];
	int n = snprintf(sizetext, sizeof(sizetext), "%llu\n", size);
	int rc = -1;
	if (file_write_at(tfd, "key", O_EXCL, 0644, k->text, k->len) == 0 &&
	    file_write_at(tfd, "size", O_EXCL, 0644, sizetext, (size_t)n) == 0) {
		char final[4096];
		snprintf(final, sizeof(final), "%s/%s", cache_dir, k->name);
		if (rename(tmp, final) == 0) {
			rc = 0;
		} else if (errno == EEXIST || errno == ENOTEMPTY) {
			char hit[4096];
			if (cache_lookup(cache_dir, k, hit, sizeof(hit))) {
				rc = 0;  /* another worker built the same meanwhile */
			} else {
				/* a hash collision holds the name: replace it */
				cache_remove_tree(final);
				rc = rename(tmp, final);
			}
		}
	}
	close(tfd);
	cache_remove_tree(tmp);
	if (rc == 0) {
		snprintf(out, outlen, "%s/%s/out", cache_dir, k->name);
		if (max_bytes)
			evict(cache_dir, max_bytes);
	}
	return rc;
}
