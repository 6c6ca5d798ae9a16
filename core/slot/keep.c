/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keep: a one-shot gaol-run's slot kept between starts (see keep.h).
 *
 * <state>/<slot>.keep/ holds:
 *   mnt        the template's mount namespace (a bind mount of its file)
 *   key        what the template was built from (template_key)
 *   net        the network namespace for the next run (a bind mount)
 *   net.fresh  what a run could read of it when it was new (slot/netns.c)
 * The directory is a bind mount of itself, private: the namespaces' files
 * mounted in it propagate nowhere, so the template's own namespace never
 * holds a copy of the mount that holds it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/config.h"
#include "conf/version.h"
#include "slot/keep.h"
#include "slot/netns.h"
#include "slot/template.h"
#include "util/fail.h"
#include "util/util.h"

#define KEY_MAX 65536

static void keep_path(const struct slot *s, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s.keep%s%s", s->state_dir, *name ? "/" : "", name);
}

/* Appends to out[*n..len); false once it does not fit. */
static bool append(char *out, size_t len, size_t *n, const char *what, const char *value)
{
	int w = snprintf(out + *n, len - *n, "%s %s\n", what, value);
	if (w < 0 || (size_t)w >= len - *n)
		return false;
	*n += (size_t)w;
	return true;
}

/* What the template is built from, one item a line: another text, another
 * template.  The length, or -1 when it does not fit. */
static int template_key(const struct slot *s, char *out, size_t len)
{
	char uid[16], exe[64];
	struct stat st;
	size_t n = 0;
	snprintf(uid, sizeof(uid), "%u", (unsigned)s->uid);
	/* The binary itself: a build of the same commit, changed, is another. */
	if (stat("/proc/self/exe", &st) < 0)
		return -1;
	snprintf(exe, sizeof(exe), "%llu:%llu:%lld.%09ld", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	bool ok = append(out, len, &n, "gaol", gaol_build()) && append(out, len, &n, "exe", exe) &&
		  append(out, len, &n, "uid", uid) && append(out, len, &n, "state", s->state_dir);
	for (int i = 0; ok && i < s->cg.n_hierarchies; i++)
		ok = append(out, len, &n, "cgroup", s->cg.hierarchy[i]);
	for (size_t i = 0; ok && i < s->cfg->n_root_extra; i++)
		ok = append(out, len, &n, "extra", s->cfg->root_extra[i]);
	/* Which host mounts it kept (slot/prune.h). */
	for (char *const *p = s->reach; ok && p && *p; p++)
		ok = append(out, len, &n, "reach", *p);
	return ok ? (int)n : -1;
}

/* A file of the keep directory, whole, into buf (up to cap bytes).  Its
 * length, or -1. */
static long read_kept(const struct slot *s, const char *name, char *buf, size_t cap)
{
	char path[PATH_MAX];
	keep_path(s, name, path, sizeof(path));
	return file_read_at(AT_FDCWD, path, buf, cap);
}

/* Every mount stacked on path goes (the namespace file a pin holds). */
static void unmount_all(const char *path)
{
	while (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
		;
}

static int open_kept(const struct slot *s, const char *name)
{
	char path[PATH_MAX];
	keep_path(s, name, path, sizeof(path));
	return open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
}

int keep_load(struct slot *s)
{
	int loaded = 0;
	char *key = malloc(KEY_MAX), *want = malloc(KEY_MAX);
	int n = want ? template_key(s, want, KEY_MAX) : -1;
	if (key && n > 0 && read_kept(s, "key", key, KEY_MAX) == n && !memcmp(key, want, (size_t)n)) {
		/* A regular file (the mount gone with a reboot) is no mount
		 * namespace: template_adopt refuses it. */
		int ns = open_kept(s, "mnt");
		if (ns >= 0 && template_adopt(s, ns) == 0)
			loaded |= KEEP_TEMPLATE;
		else if (ns >= 0)
			close(ns);
	}
	free(key);
	free(want);
	if (!s->netns_reuse)
		return loaded;
	char *fresh = malloc(NETNS_SNAPSHOT_MAX);
	long len = fresh ? read_kept(s, "net.fresh", fresh, NETNS_SNAPSHOT_MAX) : -1;
	int ns = len > 0 ? open_kept(s, "net") : -1;
	if (ns >= 0 && netns_adopt(s, ns, fresh, len))
		loaded |= KEEP_NETNS;
	else if (ns >= 0)
		close(ns);
	free(fresh);
	return loaded;
}

/* The keep directory, a private mount of itself (made once). */
static int keep_dir(const struct slot *s, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct statx st;
	keep_path(s, "", dir, sizeof(dir));
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return fail(err, errlen, "keep: mkdir %s errno=%d", dir, errno);
	if (statx(AT_FDCWD, dir, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &st) < 0)
		return fail(err, errlen, "keep: stat %s errno=%d", dir, errno);
	if (!(st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return fail(err, errlen, "keep: this kernel does not say which "
			    "directory is a mount (Linux 5.8 does)");
	if (!S_ISDIR(st.stx_mode) || st.stx_uid != geteuid() || (st.stx_mode & 077))
		return fail(err, errlen, "keep: %s is not a directory only uid %u "
			    "may use", dir, (unsigned)geteuid());
	if (st.stx_attributes & STATX_ATTR_MOUNT_ROOT)
		return 0;
	if (mount(dir, dir, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, dir, NULL, MS_PRIVATE, NULL) < 0)
		return fail(err, errlen, "keep: make %s a private mount errno=%d", dir, errno);
	return 0;
}

/* Namespace file fd held at the keep directory's name, in place of what
 * held it there before. */
static int pin(const struct slot *s, int fd, const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX], src[64];
	keep_path(s, name, path, sizeof(path));
	unmount_all(path);
	int f = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (f < 0)
		return fail(err, errlen, "keep: create %s errno=%d", path, errno);
	close(f);
	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	if (mount(src, path, NULL, MS_BIND, NULL) < 0)
		return fail(err, errlen, "keep: hold %s errno=%d", path, errno);
	return 0;
}

static int write_kept(const struct slot *s, const char *name, const void *buf, size_t len,
		      char *err, size_t errlen)
{
	char path[PATH_MAX];
	keep_path(s, name, path, sizeof(path));
	if (file_write_at(AT_FDCWD, path, O_TRUNC, 0600, buf, len) < 0)
		return fail(err, errlen, "keep: write %s errno=%d", path, errno);
	return 0;
}

int keep_save(struct slot *s, int loaded, char *err, size_t errlen)
{
	if ((loaded & KEEP_TEMPLATE) && ((loaded & KEEP_NETNS) || !s->netns_reuse))
		return 0;
	if (keep_dir(s, err, errlen) < 0)
		return -1;
	char path[PATH_MAX];
	if (!(loaded & KEEP_TEMPLATE)) {
		/* Without its key while it changes: never a key beside
		 * another template. */
		char *key = malloc(KEY_MAX);
		int n = key ? template_key(s, key, KEY_MAX) : -1;
		keep_path(s, "key", path, sizeof(path));
		unlink(path);
		int rc = n > 0 ? pin(s, s->template_ns, "mnt", err, errlen) : fail(err, errlen,
			"keep: what the template is built from does not fit in %d bytes", KEY_MAX);
		if (rc == 0)
			rc = write_kept(s, "key", key, (size_t)n, err, errlen);
		free(key);
		if (rc < 0)
			return -1;
	}
	if (!(loaded & KEEP_NETNS) && s->netns_reuse && s->netns_fresh_len > 0) {
		keep_path(s, "net.fresh", path, sizeof(path));
		unlink(path);
		if (pin(s, s->netns_fd, "net", err, errlen) < 0 ||
		    write_kept(s, "net.fresh", s->netns_fresh, (size_t)s->netns_fresh_len,
			       err, errlen) < 0)
			return -1;
	}
	return 0;
}

int keep_drop(const struct slot *s, char *err, size_t errlen)
{
	static const char *const names[] = { "mnt", "net", "key", "net.fresh" };
	char path[PATH_MAX];
	for (size_t i = 0; i < N(names); i++) {
		keep_path(s, names[i], path, sizeof(path));
		unmount_all(path);
		if (unlink(path) < 0 && errno != ENOENT)
			return fail(err, errlen, "keep: remove %s errno=%d", path, errno);
	}
	keep_path(s, "", path, sizeof(path));
	unmount_all(path);
	if (rmdir(path) < 0 && errno != ENOENT)
		return fail(err, errlen, "keep: remove %s errno=%d", path, errno);
	return 0;
}
