/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uidlock: one flock per slot UID (see uidlock.h).
 *
 * Why flock on a file per UID, not a registry of ranges: the kernel releases
 * an flock when the last descriptor of its open file description closes, so
 * a service that is SIGKILLed, crashes or loses its host's power leaves no
 * stale entry behind, and there is nothing to clean up or to check for
 * liveness (a registry would record PIDs, which get reused, and would need
 * a lock of its own anyway).  One file per UID makes any overlap of two
 * ranges, whatever their bases and sizes, collide on exactly the shared
 * UIDs.  The file's text (instance and pid) is only for the refusal message;
 * the lock is the truth.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fail.h"
#include "slot/uidlock.h"

/* "instance gaol-b, pid 1234" from a holder's file, or "" */
static void holder(int fd, char *out, size_t len)
{
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	out[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(out, len, " (%s)", buf);
}

static void lock_path(uid_t uid, char *out, size_t len)
{
	snprintf(out, len, UIDLOCK_DIR "/uid%u.lock", (unsigned)uid);
}

/* The file at path is still the one fd has open. */
static int still_linked(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int lock_one(uid_t uid, const char *instance, int *fd_out, char *err,
		    size_t errlen)
{
	char path[sizeof(UIDLOCK_DIR) + 32], who[160];
	int fd;

	lock_path(uid, path, sizeof(path));
again:
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return fail(err, errlen, "uid lock: open %s errno=%d", path, errno);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		holder(fd, who, sizeof(who));
		close(fd);
		if (e == EWOULDBLOCK)
			return fail(err, errlen, "uid %u is already used by another "
				    "gaol%s: two instances must not share slot UIDs "
				    "(give each its own RUN_UID_BASE range, "
				    "RUN_UID_BASE..RUN_UID_BASE+RUN_CONCURRENCY)",
				    (unsigned)uid, who);
		return fail(err, errlen, "uid lock: flock %s errno=%d", path, e);
	}
	if (!still_linked(fd, path)) {
		/* Someone removed it between our open and our flock (gaol
		 * before 2026-12 did, on release; or an administrator): lock
		 * the file that is there now. */
		close(fd);
		goto again;
	}
	/* Over the last holder's text, never truncated (see uidlock_release):
	 * holder() reads up to the first newline. */
	char text[160];
	int n = snprintf(text, sizeof(text), "instance %s, pid %d\n", instance, (int)getpid());
	if (n > 0 && pwrite(fd, text, (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1,
			    0) < 0) {
		/* the text is only for a refusal's message */
	}
	*fd_out = fd;
	return 0;
}

/* UIDLOCK_DIR, ours and writable by us only. */
static int lock_dir(char *err, size_t errlen)
{
	struct stat st;

	if (mkdir("/run/lock", 01777) < 0 && errno != EEXIST)
		return fail(err, errlen, "uid lock: mkdir /run/lock errno=%d", errno);
	if (mkdir(UIDLOCK_DIR, 0755) < 0 && errno != EEXIST)
		return fail(err, errlen, "uid lock: mkdir " UIDLOCK_DIR " errno=%d",
			    errno);
	if (lstat(UIDLOCK_DIR, &st) < 0)
		return fail(err, errlen, "uid lock: stat " UIDLOCK_DIR " errno=%d",
			    errno);
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return fail(err, errlen, "uid lock: " UIDLOCK_DIR " is not a "
			    "directory of uid %u that only it may write to",
			    (unsigned)geteuid());
	return 0;
}

/* What this process holds, for uidlock_close_inherited. */
static struct uid_locks *held;

int uidlock_take(struct uid_locks *l, const char *instance, uid_t first,
		 unsigned count, char *err, size_t errlen)
{
	l->n = 0;
	l->next = NULL;
	l->first = first;
	l->fd = calloc(count ? count : 1, sizeof(*l->fd));
	if (!l->fd)
		return fail(err, errlen, "uid lock: out of memory");
	if (lock_dir(err, errlen) < 0) {
		uidlock_release(l);
		return -1;
	}
	for (unsigned i = 0; i < count; i++) {
		if (lock_one(first + i, instance, &l->fd[i], err, errlen) < 0) {
			uidlock_release(l);
			return -1;
		}
		l->n = i + 1;
	}
	l->next = held;
	held = l;
	return 0;
}

/* The files stay: closing drops the lock, and the next taker locks the
 * same file.  (Removing each on release freed its block every time: on a
 * disk mounted with discard, a synchronous discard of 0.3-1 ms in every
 * one-shot gaol-run.) */
void uidlock_release(struct uid_locks *l)
{
	for (struct uid_locks **p = &held; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	for (unsigned i = 0; i < l->n; i++)
		close(l->fd[i]);
	free(l->fd);
	l->fd = NULL;
	l->n = 0;
}

void uidlock_close_inherited(void)
{
	for (const struct uid_locks *l = held; l; l = l->next)
		for (unsigned i = 0; i < l->n; i++)
			close(l->fd[i]);
}
