/* SPDX-License-Identifier: Apache-2.0 */
/*
 * queue: the on-disk states of asynchronous submissions (see queue.h and
 * docs/design.md, "The queue").
 *
 * Who may move what, and why it is safe without a lock held across a run:
 * - Any HTTP worker queues (queue_put): the count and the renames happen
 *   under an flock of <dir>/lock, so RUN_QUEUE_MAX is never passed by two
 *   requests at once.
 * - A queue worker claims by opening queued/<token>, taking an flock on it
 *   and only then renaming it into running/.  rename() decides between two
 *   claimers (the loser gets ENOENT); the flock, held until the result is
 *   written, tells the recovery that the claimer is alive.  A file in
 *   running/ that nobody locks was left by a dead worker: queued again.
 * - The result reaches done/ before the claim leaves running/: a crash in
 *   between leaves both, and the recovery drops the claim, so a token ends
 *   with exactly one result.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "queue/queue.h"
#include "util/fail.h"
#include "util/util.h"

static const char *const sub_names[] = {
	"queued", "running", "done", "callbacks", "tmp",
};

int queue_open(struct queue *q, const char *path, unsigned host, char *err,
	       size_t errlen)
{
	memset(q, 0, sizeof *q);
	q->dir = -1;
	for (int i = 0; i < 5; i++)
		q->sub[i] = -1;
	q->host = host;
	if (mkdir_p(path, 0700) < 0)
		return fail(err, errlen, "queue: mkdir %s errno=%d", path, errno);
	q->dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (q->dir < 0)
		return fail(err, errlen, "queue: open %s errno=%d", path, errno);
	for (int i = 0; i < 5; i++) {
		if (mkdirat(q->dir, sub_names[i], 0700) < 0 && errno != EEXIST)
			return fail(err, errlen, "queue: mkdir %s/%s errno=%d", path,
				    sub_names[i], errno);
		q->sub[i] = openat(q->dir, sub_names[i],
				   O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (q->sub[i] < 0)
			return fail(err, errlen, "queue: open %s/%s errno=%d", path,
				    sub_names[i], errno);
	}
	return 0;
}

void queue_close(struct queue *q)
{
	for (int i = 0; i < 5; i++)
		close_fd(&q->sub[i]);
	close_fd(&q->dir);
}

/* The token names in a state's directory, sorted (oldest first); malloc'd,
 * *n of them.  NULL with *n 0 when there are none or on a fault. */
static char (*list(int dirfd, size_t *n))[TOKEN_LEN + 1]
{
	char (*v)[TOKEN_LEN + 1] = NULL;
	size_t cap = 0;
	struct dirent *d;
	/* A description of its own: one shared by fork or dup would share
	 * its read position with every process reading the same directory. */
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp = fd < 0 ? NULL : fdopendir(fd);

	*n = 0;
	if (!dp) {
		close_fd(&fd);
		return NULL;
	}
	while ((d = readdir(dp))) {
		if (token_check(d->d_name, 0, NULL) == TOKEN_MALFORMED)
			continue;
		if (*n == cap) {
			void *grown = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
			if (!grown)
				break;
			v = grown;
		}
		memcpy(v[(*n)++], d->d_name, TOKEN_LEN + 1);
	}
	closedir(dp);
	if (*n > 1)
		qsort(v, *n, sizeof *v, (int (*)(const void *, const void *))strcmp);
	return v;
}

static size_t count(int dirfd)
{
	size_t n;

	free(list(dirfd, &n));
	return n;
}

size_t queue_depth(const struct queue *q)
{
	return count(q->sub[Q_QUEUED]) + count(q->sub[Q_RUNNING]);
}

/* Writes text as tmp/<token>.<pid>, fsync'd when sync; its name in tmp_name. */
static int write_tmp(struct queue *q, const char *token, const char *text,
		     size_t len, char *tmp_name, size_t size, bool sync)
{
	int fd;

	snprintf(tmp_name, size, "%s.%d", token, (int)getpid());
	fd = openat(q->sub[Q_TMP], tmp_name, O_WRONLY | O_CREAT | O_TRUNC |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write_all(fd, text, len) < 0 || (sync && fsync(fd) < 0)) {
		int saved = errno;
		close(fd);
		unlinkat(q->sub[Q_TMP], tmp_name, 0);
		errno = saved;
		return -1;
	}
	return close(fd);
}

/* tmp/<name> into state st as token; the directory fsync'd. */
static int place(struct queue *q, const char *tmp_name, enum queue_state st,
		 const char *token)
{
	if (renameat(q->sub[Q_TMP], tmp_name, q->sub[st], token) < 0)
		return -1;
	return fsync(q->sub[st]);
}

static int lock_queue(struct queue *q)
{
	int fd = openat(q->dir, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			0600);

	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	return fd;
}

int queue_put(struct queue *q, char (*tokens)[TOKEN_LEN + 1], char **texts,
	      const size_t *lens, size_t n, size_t max, char *err, size_t errlen)
{
	char tmp[TOKEN_LEN + 32];
	int lock = lock_queue(q), rc = 0;
	size_t i;

	if (lock < 0)
		return fail(err, errlen, "queue: lock errno=%d", errno);
	if (queue_depth(q) + n > max) {
		close(lock);
		return 1;
	}
	for (i = 0; i < n && rc == 0; i++)
		if (write_tmp(q, tokens[i], texts[i], lens[i], tmp, sizeof tmp, true) < 0 ||
		    place(q, tmp, Q_QUEUED, tokens[i]) < 0)
			rc = fail(err, errlen, "queue: write %s errno=%d", tokens[i], errno);
	/* All or none: a batch is answered as one. */
	while (rc < 0 && i-- > 0)
		unlinkat(q->sub[Q_QUEUED], tokens[i], 0);
	close(lock);
	return rc;
}

/* The whole of an open file, malloc'd and NUL-terminated. */
static char *read_fd(int fd, size_t *len)
{
	struct stat st;
	char *buf;

	if (fstat(fd, &st) < 0 || st.st_size < 0 || st.st_size > QUEUE_FILE_MAX)
		return NULL;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return NULL;
	if (pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
		free(buf);
		return NULL;
	}
	buf[st.st_size] = '\0';
	if (len)
		*len = (size_t)st.st_size;
	return buf;
}

/* Claims tokens[i] if nobody else has: 1, or 0 when another did first. */
static int try_claim(struct queue *q, const char *token, struct claim *c)
{
	int fd = openat(q->sub[Q_QUEUED], token, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 ||
	    renameat(q->sub[Q_QUEUED], token, q->sub[Q_RUNNING], token) < 0) {
		close(fd);
		return 0;
	}
	fsync(q->sub[Q_RUNNING]);
	c->text = read_fd(fd, &c->len);
	memcpy(c->token, token, TOKEN_LEN + 1);
	c->fd = fd;
	return 1;
}

int queue_claim(struct queue *q, struct claim *c, char *err, size_t errlen)
{
	size_t n;
	char (*v)[TOKEN_LEN + 1] = list(q->sub[Q_QUEUED], &n);
	int got = 0;

	memset(c, 0, sizeof *c);
	c->fd = -1;
	for (size_t i = 0; i < n && !got; i++)
		got = try_claim(q, v[i], c);
	free(v);
	if (got && !c->text) {
		/* Unreadable: it stays claimed, and a restart tries it again. */
		fail(err, errlen, "queue: read running/%s errno=%d", c->token, errno);
		claim_free(c);
		return -1;
	}
	return got;
}

void claim_free(struct claim *c)
{
	free(c->text);
	c->text = NULL;
	close_fd(&c->fd);
}

/* An empty file of state st named token, durably. */
static int mark(struct queue *q, enum queue_state st, const char *token)
{
	char tmp[TOKEN_LEN + 32];

	if (write_tmp(q, token, "", 0, tmp, sizeof tmp, true) < 0)
		return -1;
	return place(q, tmp, st, token);
}

int queue_finish(struct queue *q, struct claim *c, const char *result,
		 size_t len, bool callback, char *err, size_t errlen)
{
	char tmp[TOKEN_LEN + 32];

	if (callback && mark(q, Q_CALLBACKS, c->token) < 0)
		return fail(err, errlen, "queue: callback %s errno=%d", c->token, errno);
	if (write_tmp(q, c->token, result, len, tmp, sizeof tmp, true) < 0 ||
	    place(q, tmp, Q_DONE, c->token) < 0)
		return fail(err, errlen, "queue: result %s errno=%d", c->token, errno);
	if (unlinkat(q->sub[Q_RUNNING], c->token, 0) < 0)
		return fail(err, errlen, "queue: unlink running/%s errno=%d", c->token,
			    errno);
	fsync(q->sub[Q_RUNNING]);
	claim_free(c);
	return 0;
}

int queue_keep(struct queue *q, const char *token, const char *result, size_t len,
	       char *err, size_t errlen)
{
	char tmp[TOKEN_LEN + 32];

	if (write_tmp(q, token, result, len, tmp, sizeof tmp, false) < 0)
		return fail(err, errlen, "queue: keep %s errno=%d", token, errno);
	if (renameat(q->sub[Q_TMP], tmp, q->sub[Q_DONE], token) < 0) {
		int saved = errno;
		unlinkat(q->sub[Q_TMP], tmp, 0);
		return fail(err, errlen, "queue: keep %s errno=%d", token, saved);
	}
	return 0;
}

static bool expired(const struct stat *st, long ttl_s)
{
	return ttl_s > 0 && st->st_mtime + ttl_s < time(NULL);
}

enum queue_state queue_find(const struct queue *q, const char *token, long ttl_s)
{
	static const enum queue_state order[] = { Q_DONE, Q_RUNNING, Q_QUEUED };
	struct stat st;

	/* done/ first: a result is written before its claim goes. */
	for (size_t i = 0; i < 3; i++)
		if (fstatat(q->sub[order[i]], token, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return order[i] == Q_DONE && expired(&st, ttl_s) ? Q_NONE : order[i];
	/* Between queued/ and running/ while we looked: look once more. */
	if (fstatat(q->sub[Q_RUNNING], token, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return Q_RUNNING;
	return fstatat(q->sub[Q_DONE], token, &st, AT_SYMLINK_NOFOLLOW) == 0 ?
	       Q_DONE : Q_NONE;
}

char *queue_read(const struct queue *q, enum queue_state st, const char *token,
		 size_t *len)
{
	int fd = openat(q->sub[st], token, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *text;

	if (fd < 0)
		return NULL;
	text = read_fd(fd, len);
	close(fd);
	return text;
}

int queue_forget(struct queue *q, const char *token)
{
	unlinkat(q->sub[Q_CALLBACKS], token, 0);
	return unlinkat(q->sub[Q_DONE], token, 0);
}

/* A claim in running/ whose worker is gone: dropped if its result was
 * written, else queued again.  1 when queued again. */
static int recover_one(struct queue *q, const char *token)
{
	struct stat st;
	int fd = openat(q->sub[Q_RUNNING], token, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int requeued = 0;

	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);              /* its worker is alive */
		return 0;
	}
	if (fstatat(q->sub[Q_DONE], token, &st, AT_SYMLINK_NOFOLLOW) == 0)
		unlinkat(q->sub[Q_RUNNING], token, 0);
	else
		requeued = renameat(q->sub[Q_RUNNING], token, q->sub[Q_QUEUED],
				    token) == 0;
	close(fd);
	return requeued;
}

static void clear_tmp(struct queue *q)
{
	int fd = openat(q->sub[Q_TMP], ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *d;

	if (!dp) {
		close_fd(&fd);
		return;
	}
	while ((d = readdir(dp)))
		if (d->d_name[0] != '.')
			unlinkat(q->sub[Q_TMP], d->d_name, 0);
	closedir(dp);
}

int queue_recover(struct queue *q, bool at_start, char *err, size_t errlen)
{
	size_t n;
	char (*v)[TOKEN_LEN + 1] = list(q->sub[Q_RUNNING], &n);
	int requeued = 0;

	(void)err;
	(void)errlen;
	/* Only at start: another process may be writing there now. */
	if (at_start)
		clear_tmp(q);
	for (size_t i = 0; i < n; i++)
		requeued += recover_one(q, v[i]);
	free(v);
	fsync(q->sub[Q_QUEUED]);
	fsync(q->sub[Q_RUNNING]);
	return requeued;
}

struct kept {
	char token[TOKEN_LEN + 1];
	time_t mtime;
	unsigned long long size;
};

static int older(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	return x->mtime != y->mtime ? (x->mtime < y->mtime ? -1 : 1) :
	       strcmp(x->token, y->token);
}

unsigned queue_sweep(struct queue *q, long ttl_s, unsigned long long max_bytes,
		     unsigned long long *kept, unsigned long long *bytes)
{
	size_t n, m = 0;
	char (*v)[TOKEN_LEN + 1] = list(q->sub[Q_DONE], &n);
	struct kept *k = calloc(n ? n : 1, sizeof *k);
	unsigned long long total = 0;
	unsigned removed = 0;

	for (size_t i = 0; k && i < n; i++) {
		struct stat st;

		if (fstatat(q->sub[Q_DONE], v[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (expired(&st, ttl_s)) {
			removed += queue_forget(q, v[i]) == 0;
			continue;
		}
		memcpy(k[m].token, v[i], TOKEN_LEN + 1);
		k[m].mtime = st.st_mtime;
		k[m].size = (unsigned long long)st.st_size;
		total += k[m++].size;
	}
	qsort(k, m, sizeof *k, older);
	for (size_t i = 0; k && i < m && total > max_bytes; i++) {
		removed += queue_forget(q, k[i].token) == 0;
		total -= k[i].size;
		k[i].size = 0;
		*k[i].token = '\0';
	}
	*kept = 0;
	for (size_t i = 0; k && i < m; i++)
		*kept += k[i].token[0] != '\0';
	*bytes = total;
	free(k);
	free(v);
	return removed;
}

int queue_next_callback(const struct queue *q, char token[TOKEN_LEN + 1])
{
	size_t n;
	char (*v)[TOKEN_LEN + 1] = list(q->sub[Q_CALLBACKS], &n);

	if (n)
		memcpy(token, v[0], TOKEN_LEN + 1);
	free(v);
	return n > 0;
}

int queue_forget_callback(struct queue *q, const char *token)
{
	return unlinkat(q->sub[Q_CALLBACKS], token, 0) < 0 && errno != ENOENT ? -1 : 0;
}
