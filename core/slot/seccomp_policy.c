/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The payload's syscall policy.  Default allow, with a denylist: the calls
 * that escape or manipulate the kernel kill the process (it shows as SIGSYS),
 * namespace creation answers EPERM so runtimes that probe it carry on, clone3
 * answers ENOSYS so libc, Go and the JVM fall back to clone(2) whose flags we
 * can inspect, and io_uring answers EPERM (libuv probes it at start).
 * Sockets come in the families the languages use and no other: AF_VSOCK,
 * AF_PACKET, AF_ALG and the rest answer EAFNOSUPPORT (a network namespace
 * does not isolate vsock), and netlink is its routing protocol only (glibc's
 * getaddrinfo and Go's net package read the interfaces through it).
 *
 * libseccomp compiles the table for the native ABI.  In front of its program
 * we put a guard of our own: any other audit arch, and any x32 syscall number
 * (nr & __X32_SYSCALL_BIT), is killed, because x32 numbers would otherwise
 * reach the kernel past a per-number denylist.
 *
 * The table is compiled at build time (seccomp_gen.c writes the program
 * into the build, seccomp_program.c carries it): it depends on nothing but
 * this file and libseccomp, and compiling it cost every gaol-run start
 * about 0.5 ms.  The unit tests compile it again and compare.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "util/fail.h"
#include "slot/seccomp_policy.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* Killed outright: escape and kernel-manipulation primitives. */
static const char *const killed[] = {
	"mount", "umount2", "pivot_root", "chroot", "setns", "seccomp", "bpf",
	"keyctl", "add_key", "request_key",
	"init_module", "finit_module", "delete_module", "kexec_load",
	"kexec_file_load",
	"swapon", "swapoff", "reboot", "acct", "quotactl", "quotactl_fd",
	"perf_event_open",
	"ptrace", "process_vm_readv", "process_vm_writev", "process_madvise",
	"pidfd_getfd", "kcmp", "userfaultfd",
	"iopl", "ioperm", "name_to_handle_at", "open_by_handle_at",
	"lookup_dcookie", "nfsservctl", "personality", "uselib", "vhangup",
	"open_tree", "open_tree_attr", "move_mount", "fsopen", "fsconfig",
	"fsmount", "fspick", "mount_setattr",
};

/* Refused with an errno the caller can survive. */
static const struct {
	const char *name;
	int err;
} refused[] = {
	{ "clone3", ENOSYS },
	{ "io_uring_setup", EPERM },
	{ "io_uring_enter", EPERM },
	{ "io_uring_register", EPERM },
};

/* clone(2) and unshare(2) with any of these flags answer EPERM.  clone's low
 * byte is the exit signal, so CLONE_NEWTIME (0x80) is only checked for
 * unshare, where it means a new time namespace. */
static const unsigned long ns_flags[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER,
	CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME,
};

static const struct sock_filter guard[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x40000000, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The socket families a payload may open: socket(2) and socketpair(2) with
 * any other domain answer EAFNOSUPPORT.  The domain is an int, but the filter
 * sees the whole register: a value with high bits set is refused too. */
static const unsigned long socket_families[] = {
	AF_UNIX, AF_INET, AF_INET6, AF_NETLINK,
};
#define SOCKET_FAMILY_END 64         /* above AF_MAX (46 in Linux 6.x) */

/* Calls newer than the libseccomp a host may have (2.5.4 on Debian 12), by
 * their x86_64 numbers: a name libseccomp does not know is still a call the
 * running kernel may well have. */
static const struct {
	const char *name;
	int nr;
} newer_calls[] = {
	{ "process_madvise", 440 }, { "mount_setattr", 442 },
	{ "quotactl_fd", 443 }, { "open_tree_attr", 467 },
};

static int resolve(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr != __NR_SCMP_ERROR && nr >= 0)
		return nr;
	for (size_t i = 0; i < N(newer_calls); i++)
		if (!strcmp(newer_calls[i].name, name))
			return newer_calls[i].nr;
	return __NR_SCMP_ERROR;
}

static bool allowed_family(unsigned long family)
{
	for (size_t i = 0; i < N(socket_families); i++)
		if (socket_families[i] == family)
			return true;
	return false;
}

/* One rule per refused family below SOCKET_FAMILY_END and one for the rest:
 * libseccomp takes a single comparison per argument in a rule, so a range
 * is not one rule. */
static int add_socket_rules(scmp_filter_ctx ctx, const char **step)
{
	static const char *const calls[] = { "socket", "socketpair" };
	for (size_t c = 0; c < N(calls); c++) {
		int nr = seccomp_syscall_resolve_name(calls[c]);
		*step = calls[c];
		for (unsigned long f = 0; f < SOCKET_FAMILY_END; f++)
			if (!allowed_family(f) &&
			    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), nr, 1,
					     SCMP_A0(SCMP_CMP_EQ, f, 0)) < 0)
				return -1;
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), nr, 1,
				     SCMP_A0(SCMP_CMP_GE, SOCKET_FAMILY_END, 0)) < 0)
			return -1;
		/* Netlink: NETLINK_ROUTE (0) only; uevents, audit, sock_diag
		 * and the rest are not the payload's business. */
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT), nr, 2,
				     SCMP_A0(SCMP_CMP_EQ, AF_NETLINK, 0),
				     SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE, 0)) < 0)
			return -1;
	}
	return 0;
}

static int add_rules(scmp_filter_ctx ctx, const char **step)
{
	for (size_t i = 0; i < N(killed); i++) {
		int nr = resolve(killed[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;       /* on no table we know: not an x86_64 call */
		*step = killed[i];
		if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0) < 0)
			return -1;
	}
	for (size_t i = 0; i < N(refused); i++) {
		int nr = resolve(refused[i].name);
		if (nr == __NR_SCMP_ERROR)
			continue;
		*step = refused[i].name;
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(refused[i].err), nr, 0) < 0)
			return -1;
	}
	for (size_t i = 0; i < N(ns_flags); i++) {
		unsigned long f = ns_flags[i];
		*step = "unshare";
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, f, f)) < 0)
			return -1;
		if (f == CLONE_NEWTIME)
			continue;
		*step = "clone";
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, f, f)) < 0)
			return -1;
	}
	return add_socket_rules(ctx, step);
}

int seccomp_policy_compile(struct seccomp_policy *p, char *err, size_t errlen)
{
	const char *step = "seccomp_init";
	struct sock_filter *code = NULL;
	int fd = -1, rc = -1;

	memset(p, 0, sizeof(*p));
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		goto out;
	step = "badarch";
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0)
		goto out;
	/* A binary search over the syscall numbers rather than a list: every
	 * system call of the payload runs this program. */
	step = "optimize";
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) < 0)
		goto out;
	if (add_rules(ctx, &step) < 0)
		goto out;
	step = "export";
	fd = memfd_create("gaol-seccomp", MFD_CLOEXEC);
	if (fd < 0 || seccomp_export_bpf(ctx, fd) < 0)
		goto out;
	off_t size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % sizeof(struct sock_filter))
		goto out;
	size_t n = N(guard) + (size_t)size / sizeof(struct sock_filter);
	code = calloc(n, sizeof(*code));
	if (!code)
		goto out;
	memcpy(code, guard, sizeof(guard));
	if (pread(fd, code + N(guard), (size_t)size, 0) != size)
		goto out;
	p->prog.len = (unsigned short)n;
	p->prog.filter = code;
	code = NULL;
	rc = 0;
out:
	if (rc < 0)
		fail(err, errlen, "seccomp: %s errno=%d", step, errno);
	free(code);
	if (fd >= 0)
		close(fd);
	if (ctx)
		seccomp_release(ctx);
	return rc;
}
