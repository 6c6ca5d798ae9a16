/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dynmods: RUN_CGROUP_FAVORDYNMODS, for hosts whose controllers are on
 * cgroup v1.  There a run's init joins its slot's cgroups by writing to
 * cgroup.procs, and such a move takes the kernel's one cgroup threadgroup
 * lock for writing: when no move happened in the last few milliseconds,
 * the writer first waits for an RCU grace period, long on a busy host
 * (10-16 ms measured here under CI load), which a one-shot gaol-run or a
 * request to an idle service pays whole.  The cgroup2 mount option
 * favordynmods (Linux 6.0) removes that wait: up to 6.17 it keeps the lock
 * in its slow mode while set (forks and exits then take its slower read
 * side); from 6.18 a move takes a lock of the moved process's own instead,
 * and the kernel keeps that mechanism until reboot even when the option is
 * taken off.  The lock is the kernel's, not a hierarchy's, so the option on
 * the (otherwise unused) cgroup2 mount of a hybrid host is enough.  On
 * cgroup v2 gaol clones each init into its cgroup (CLONE_INTO_CGROUP),
 * which takes the lock only for reading: the option is left alone there.
 * docs/design.md, "The sandbox step by step", step 3.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "slot/cgroup.h"
#include "util/fail.h"
#include "util/util.h"

static int cgroup2_mount(char *point, size_t plen, char *opts, size_t olen)
{
	char *text = file_read_text("/proc/self/mountinfo");
	if (!text)
		return -1;
	int rc = cg_parse_cgroup2_mountinfo(text, point, plen, opts, olen);
	free(text);
	return rc;
}

/* The superblock reconfigured with every option it has (a reconfigure
 * clears the flags it is not given: nsdelegate, memory_recursiveprot) and
 * favordynmods.  fspick touches the superblock only, never the mount's own
 * nosuid, nodev, noexec. */
static int reconfigure(const char *point, const char *opts, char *err, size_t errlen)
{
	int fd = fspick(AT_FDCWD, point, FSPICK_CLOEXEC | FSPICK_NO_AUTOMOUNT);
	if (fd < 0)
		return fail(err, errlen, "fspick %s errno=%d", point, errno);
	char copy[512];
	snprintf(copy, sizeof(copy), "%s", opts);
	char *save = NULL;
	for (char *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save))
		if (fsconfig(fd, FSCONFIG_SET_FLAG, o, NULL, 0) < 0) {
			int e = errno;
			close(fd);
			return fail(err, errlen, "%s: its option %s cannot be given back "
				    "errno=%d", point, o, e);
		}
	if (fsconfig(fd, FSCONFIG_SET_FLAG, "favordynmods", NULL, 0) < 0 ||
	    fsconfig(fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) < 0) {
		int e = errno;
		close(fd);
		return fail(err, errlen, "%s: favordynmods refused (errno=%d; it needs "
			    "Linux 6.0 or later)", point, e);
	}
	close(fd);
	return 0;
}

int cgroup_favor_dynmods(char *err, size_t errlen)
{
	char point[512], opts[512];
	if (cgroup2_mount(point, sizeof(point), opts, sizeof(opts)) < 0)
		return fail(err, errlen, "no cgroup2 mount in /proc/self/mountinfo to "
			    "set favordynmods on");
	if (cg_list_has(opts, strlen(opts), "favordynmods"))
		return 0;
	if (reconfigure(point, opts, err, errlen) < 0)
		return -1;
	if (cgroup2_mount(point, sizeof(point), opts, sizeof(opts)) < 0 ||
	    !cg_list_has(opts, strlen(opts), "favordynmods"))
		return fail(err, errlen, "%s: remounted, but favordynmods is not among "
			    "its options (%s)", point, opts);
	return 0;
}
