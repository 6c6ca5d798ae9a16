/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util: the small rules every part of gaol shares, each with one home: the
 * clock, the hash, closing an fd, writing a whole buffer, what a plain file
 * name is, and how a wait status reads.  Nothing here allocates, so init and
 * the payload (core/inside/) may call any of it.
 */
#ifndef GAOL_UTIL_H
#define GAOL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The monotonic clock, in microseconds and in milliseconds. */
long long now_us(void);
long now_ms(void);

/* FNV-1a over len bytes, continuing from h (start with FNV_OFFSET). */
#define FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t fnv1a(const void *data, size_t len, uint64_t h);

/* Closes *fd when it is open, and marks it closed (-1). */
void close_fd(int *fd);

/* Writes all of buf to fd, going on after EINTR.  0, or -1 with errno. */
int write_all(int fd, const void *buf, size_t len);
/* Reads exactly len bytes.  0, or -1 at EOF or on an error. */
int read_all(int fd, void *buf, size_t len);
/* Creates name in dirfd (flags: O_EXCL or O_TRUNC, never following a link)
 * holding buf.  0, or -1 with errno. */
int file_write_at(int dirfd, const char *name, int flags, mode_t mode,
		  const void *buf, size_t len);
/* The whole of name in dirfd (never following a link) into buf, when it is
 * at most cap bytes.  Its length, or -1 when it cannot be read or is
 * longer. */
long file_read_at(int dirfd, const char *name, void *buf, size_t cap);
/* Whether the first 8 KiB of a small file (a /proc or /sys one, whose size
 * says nothing: it is read) hold needle.  0 when it cannot be read. */
bool file_contains(const char *path, const char *needle);
/* The whole of a text file whose size says nothing (a /proc one), read to
 * its end, NUL-terminated; malloc'd.  NULL when it cannot be read. */
char *file_read_text(const char *path);
/* mkdir -p: the last component gets mode, the others 0755. */
int mkdir_p(const char *path, mode_t mode);

/* A plain file name: not empty, at most 255 bytes, not "." or "..", no '/'
 * and no control character. */
bool name_is_plain(const char *s);

/* len bytes of zeroed memory of the calling process's own, which a fork or
 * clone of it does not share: the child finds the same bytes zeroed
 * (MADV_WIPEONFORK), so neither side copies a page when the other writes
 * it.  For a worker's scratch buffers, written every run while the sandbox
 * built ahead (a clone of the worker) lives; before Linux 4.14, shared as
 * any other memory.  NULL when it cannot be mapped. */
void *unshared_alloc(size_t len);

/* A wait status as a shell reports it: the exit status, or 128 + the
 * signal that killed it; -1 for neither. */
int exit_code(int wait_status);

#endif
