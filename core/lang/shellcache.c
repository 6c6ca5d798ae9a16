/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shellcache: what a language's start-up shells (its probe, `make -s -n` of
 * each target) answered, kept between starts in the state directory, keyed
 * by what the answers depend on, so that a start-up whose inputs have not
 * changed runs no shell at all (the one-shot gaol-run pays them at every
 * start otherwise).
 *
 * The key is a text, stored whole at the head of the entry and compared
 * byte for byte (no hash to collide):
 *   - the format's version, the language's directory and its fingerprint
 *     (every file's path, type, size and mtime: the Makefile, what it
 *     includes, what `make prepare` made there);
 *   - the commands run (the probe's text, the targets);
 *   - the boot (a reboot, a new kernel: everything again);
 *   - a stat (device, inode, size, mtime, ctime, or the errno) of: /bin/sh,
 *     make, /usr/bin, /bin, /etc/alternatives and dpkg's status (any
 *     package installed, removed or upgraded), and of every absolute path
 *     named in the probe, in the Makefile's text and in what the shells
 *     printed (the toolchain the commands name, a $(wildcard /usr/...) of
 *     the Makefile; a path with * ? [ by its directory).
 * What a probe could depend on beyond these (the network, a file it does
 * not name) is not seen: GAOL_LANG_CACHE=0 turns the cache off.
 *
 * The entry is trusted only as the cache directory is: both owned by the
 * effective user, writable by nobody else, not links; written to a
 * temporary name and renamed over.  A shell that failed to run or timed
 * out is not stored (it may not fail next time).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/config.h"
#include "util/util.h"
#include "lang/internal.h"

#define CACHE_FORMAT     "gaol-langcache 2"
#define ENTRY_MAX        (4u << 20)   /* bytes of one entry */
#define PATHS_MAX        512          /* absolute paths stat'ed per language */
#define KEY_END          "\n--\n"

/* Always in the key: the shell, make, the directories programs live in,
 * the alternatives, the package database. */
static const char *const fixed_paths[] = {
	"/bin/sh", "/usr/bin/make", "/usr/bin", "/bin", "/etc/alternatives",
	"/var/lib/dpkg/status",
};

struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const void *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if ((p = realloc(b->p, cap)) == NULL) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void putf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct buf *b, const char *fmt, ...)
{
	char tmp[PATH_MAX + 256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		b->oom = true;
	else
		put(b, tmp, (size_t)n);
}

/* The paths seen so far, to stat each once. */
struct paths {
	char *v[PATHS_MAX];
	size_t n;
};

static bool ends_path(char c)
{
	return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       strchr("\"';:|&()<>$,`\\{}=", c) != NULL;
}

/* Every absolute path in text[0..len): a '/' at the start or after a
 * character that cannot be part of a word's path.  A path with a glob
 * character counts as its directory. */
static void scan_paths(struct paths *ps, const char *text, size_t len)
{
	size_t i = 0, j, k;

	while (i < len && ps->n < PATHS_MAX) {
		if (text[i] != '/' || (i > 0 && !ends_path(text[i - 1]) && text[i - 1] != '/')) {
			i++;
			continue;
		}
		for (j = i; j < len && !ends_path(text[j]); j++)
			;
		for (k = i; k < j && !strchr("*?[", text[k]); k++)
			;
		if (k < j)	/* a glob: its directory */
			while (k > i && text[k - 1] != '/')
				k--;
		while (k > i + 1 && text[k - 1] == '/')
			k--;
		if (k - i < PATH_MAX) {
			size_t m;

			for (m = 0; m < ps->n; m++)
				if (strlen(ps->v[m]) == k - i && !memcmp(ps->v[m], text + i, k - i))
					break;
			if (m == ps->n && (ps->v[ps->n] = strndup(text + i, k - i)) != NULL)
				ps->n++;
		}
		i = j;
	}
}

static void put_stat(struct buf *b, const char *path)
{
	struct stat st;

	if (stat(path, &st) == -1)
		putf(b, "stat %s errno %d\n", path, errno);
	else
		putf(b, "stat %s %llu %llu %o %lld %lld.%09ld %lld.%09ld\n", path,
		     (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		     (unsigned)st.st_mode, (long long)st.st_size,
		     (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		     (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

/* The key of lang's shells, whose commands are cmds[0..n) and whose
 * answers (stored or fresh) are res[0..n). */
static int make_key(const struct lang *lang, const char *const *cmds,
		    const struct lang_shell_result *res, size_t n, struct buf *key)
{
	struct paths ps = { .n = 0 };
	char path[PATH_MAX], boot[64] = "";
	size_t i, got = 0;
	char *mk = NULL;
	int fd;

	putf(key, "%s\ndir %s\nfingerprint %s\n", CACHE_FORMAT, lang->dir,
	     lang->fingerprint ? lang->fingerprint : "");
	if ((fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t r = read(fd, boot, sizeof(boot) - 1);

		boot[r > 0 ? r : 0] = '\0';
		boot[strcspn(boot, "\n")] = '\0';
		close(fd);
	}
	putf(key, "boot %s\n", boot);
	for (i = 0; i < n; i++) {
		putf(key, "cmd %zu %zu\n", i, strlen(cmds[i]));
		put(key, cmds[i], strlen(cmds[i]));
		put(key, "\n", 1);
		scan_paths(&ps, cmds[i], strlen(cmds[i]));
		if (res[i].out)
			scan_paths(&ps, res[i].out, res[i].out_len);
		if (res[i].err)
			scan_paths(&ps, res[i].err, res[i].err_len);
	}
	snprintf(path, sizeof(path), "%s/Makefile", lang->dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		if ((mk = malloc(ENTRY_MAX)) != NULL) {
			ssize_t r;

			while (got < ENTRY_MAX && (r = read(fd, mk + got, ENTRY_MAX - got)) > 0)
				got += (size_t)r;
			scan_paths(&ps, mk, got);
			free(mk);
		}
		close(fd);
	}
	for (i = 0; i < sizeof(fixed_paths) / sizeof(fixed_paths[0]); i++)
		put_stat(key, fixed_paths[i]);
	for (i = 0; i < ps.n; i++) {
		put_stat(key, ps.v[i]);
		free(ps.v[i]);
	}
	if (ps.n == PATHS_MAX)
		return -1;	/* too many to be sure of: not cached */
	return key->oom ? -1 : 0;
}

/* state_dir/langs-cache, made when missing; -1 when it cannot be trusted. */
static int cache_dir(const char *state_dir, char *dir, size_t len)
{
	struct stat st;
	int n = snprintf(dir, len, "%s/langs-cache", state_dir);

	if (n < 0 || (size_t)n >= len || state_dir[0] != '/')
		return -1;
	(void)mkdir(state_dir, 0711);
	(void)mkdir(dir, 0700);
	if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022))
		return -1;
	return 0;
}

static int entry_path(const char *state_dir, const struct lang *lang, char *path,
		      size_t len)
{
	char dir[PATH_MAX];
	int n;

	if (cache_dir(state_dir, dir, sizeof(dir)) == -1)
		return -1;
	n = snprintf(path, len, "%s/%s-%016llx", dir, lang->slug,
		     (unsigned long long)fnv1a(lang->dir, strlen(lang->dir), FNV_OFFSET));
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The entry's bytes, if it can be trusted. */
static char *read_entry(const char *path, size_t *len)
{
	struct stat st;
	char *text = NULL;
	size_t got = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 022) && st.st_size > 0 && (size_t)st.st_size <= ENTRY_MAX &&
	    (text = malloc((size_t)st.st_size + 1)) != NULL) {
		while (got < (size_t)st.st_size &&
		       (r = read(fd, text + got, (size_t)st.st_size - got)) > 0)
			got += (size_t)r;
		text[got] = '\0';
	}
	close(fd);
	if (text && got != (size_t)st.st_size) {
		free(text);
		return NULL;
	}
	*len = got;
	return text;
}

/* A copy of n bytes (NUL-terminated; they may hold NULs themselves). */
static char *copy_bytes(const char *p, size_t n)
{
	char *c = malloc(n + 1);

	if (c) {
		memcpy(c, p, n);
		c[n] = '\0';
	}
	return c;
}

/* A decimal number at *p up to stop, *p moved past stop; -1 if none. */
static int take_number(const char **p, const char *end, char stop, long long *v)
{
	const char *q = *p;
	bool neg = q < end && *q == '-';
	long long x = 0;

	if (neg)
		q++;
	if (q >= end || *q < '0' || *q > '9')
		return -1;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		if (x > (1LL << 40))
			return -1;
		x = x * 10 + (*q - '0');
	}
	if (q >= end || *q != stop)
		return -1;
	*v = neg ? -x : x;
	*p = q + 1;
	return 0;
}

/* One answer: "status out_len err_len\n", then the bytes of each. */
static int parse_answers(const char *p, const char *end, struct lang_shell_result *res,
			 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		long long status, ol, el;

		if (take_number(&p, end, ' ', &status) == -1 ||
		    take_number(&p, end, ' ', &ol) == -1 ||
		    take_number(&p, end, '\n', &el) == -1 || ol < 0 || el < 0 ||
		    (unsigned long long)(end - p) < (unsigned long long)ol + (unsigned long long)el)
			return -1;
		res[i].status = (int)status;
		res[i].out = copy_bytes(p, (size_t)ol);
		res[i].out_len = (size_t)ol;
		res[i].err = copy_bytes(p + ol, (size_t)el);
		res[i].err_len = (size_t)el;
		if (!res[i].out || !res[i].err)
			return -1;
		p += ol + el;
	}
	return p == end ? 0 : -1;
}

int shellcache_load(const struct gaol_config *cfg, const struct lang *lang,
		    const char *const *cmds, struct lang_shell_result *res, size_t n)
{
	struct buf key = { 0 };
	char path[PATH_MAX], *text, *sep;
	size_t len, i;
	int rc = -1;

	memset(res, 0, n * sizeof(*res));
	if (!cfg->lang_cache || entry_path(cfg->state_dir, lang, path, sizeof(path)) == -1 ||
	    (text = read_entry(path, &len)) == NULL)
		return -1;
	if ((sep = memmem(text, len, KEY_END, strlen(KEY_END))) != NULL &&
	    parse_answers(sep + strlen(KEY_END), text + len, res, n) == 0 &&
	    make_key(lang, cmds, res, n, &key) == 0 &&
	    key.len == (size_t)(sep - text) && memcmp(key.p, text, key.len) == 0)
		rc = 0;
	free(key.p);
	free(text);
	if (rc == -1)
		for (i = 0; i < n; i++)
			lang_shell_result_free(&res[i]);
	return rc;
}

void shellcache_store(const struct gaol_config *cfg, const struct lang *lang,
		      const char *const *cmds, const struct lang_shell_result *res,
		      size_t n)
{
	struct buf b = { 0 };
	char path[PATH_MAX], tmp[PATH_MAX + 32];
	size_t i;
	int fd;

	if (!cfg->lang_cache || entry_path(cfg->state_dir, lang, path, sizeof(path)) == -1 ||
	    make_key(lang, cmds, res, n, &b) == -1) {
		free(b.p);
		return;
	}
	put(&b, KEY_END, strlen(KEY_END));
	for (i = 0; i < n; i++) {
		putf(&b, "%d %zu %zu\n", res[i].status, res[i].out_len, res[i].err_len);
		put(&b, res[i].out ? res[i].out : "", res[i].out ? res[i].out_len : 0);
		put(&b, res[i].err ? res[i].err : "", res[i].err ? res[i].err_len : 0);
	}
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	if (!b.oom && b.len <= ENTRY_MAX &&
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0) {
		bool ok = write_all(fd, b.p, b.len) == 0;

		if (close(fd) == -1 || !ok || rename(tmp, path) == -1)
			(void)unlink(tmp);
	}
	free(b.p);
}
