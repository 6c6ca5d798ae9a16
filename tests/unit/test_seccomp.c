/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The payload's seccomp program as the build carries it (slot/
 * seccomp_program.c): it is the table of seccomp_policy.c compiled by
 * libseccomp now, instruction for instruction, and installed it does what
 * the table says (a killed call, a refused flag, a refused socket family).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/seccomp.h>

#include "slot/seccomp_policy.h"
#include "suites.h"

START_TEST(seccomp_program_is_the_table_compiled_now)
{
	struct seccomp_policy carried, now;
	char err[256];

	ck_assert_msg(seccomp_policy_build(&carried, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(seccomp_policy_compile(&now, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(carried.prog.len, now.prog.len);
	for (unsigned i = 0; i < now.prog.len; i++) {
		const struct sock_filter *a = &carried.prog.filter[i], *b = &now.prog.filter[i];
		ck_assert_msg(a->code == b->code && a->jt == b->jt && a->jf == b->jf &&
			      a->k == b->k, "instruction %u differs: {%#x %u %u %#x} "
			      "carried, {%#x %u %u %#x} compiled now", i, a->code, a->jt,
			      a->jf, a->k, b->code, b->jt, b->jf, b->k);
	}
	seccomp_policy_free(&carried);
	seccomp_policy_free(&now);
}
END_TEST

START_TEST(seccomp_program_starts_with_the_arch_guard)
{
	struct seccomp_policy p;
	char err[256];

	ck_assert_msg(seccomp_policy_build(&p, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_gt(p.prog.len, 6);
	ck_assert_uint_eq(p.prog.filter[0].code, BPF_LD | BPF_W | BPF_ABS);
	ck_assert_uint_eq(p.prog.filter[0].k, offsetof(struct seccomp_data, arch));
	ck_assert_uint_eq(p.prog.filter[1].k, AUDIT_ARCH_X86_64);
	ck_assert_uint_eq(p.prog.filter[2].k, SECCOMP_RET_KILL_PROCESS);
	seccomp_policy_free(&p);
}
END_TEST

/* In a child, with the carried program installed: what `probe` says. */
static int installed(int probe)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct seccomp_policy p;
		char err[256];
		if (seccomp_policy_build(&p, err, sizeof(err)) < 0 ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    seccomp_policy_install(&p) < 0)
			_exit(100);
		switch (probe) {
		case 0:
			_exit(getpid() > 0 ? 0 : 1);
		case 1:
			_exit(unshare(CLONE_NEWUTS) < 0 && errno == EPERM ? 0 : 1);
		case 2:
			_exit(socket(AF_PACKET, SOCK_RAW, 0) < 0 && errno == EAFNOSUPPORT ? 0 : 1);
		case 3:
			syscall(SYS_kcmp, getpid(), getpid(), 0, 0, 0);
			_exit(1);
		}
		_exit(101);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

START_TEST(seccomp_program_installed_does_what_the_table_says)
{
	int st = installed(0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "an allowed call: status %#x", st);
	st = installed(1);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "unshare: status %#x", st);
	st = installed(2);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "AF_PACKET: status %#x", st);
	st = installed(3);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "kcmp: status %#x", st);
}
END_TEST

Suite *seccomp_suite(void)
{
	Suite *s = suite_create("seccomp");
	TCase *c = tcase_create("program");
	tcase_add_test(c, seccomp_program_is_the_table_compiled_now);
	tcase_add_test(c, seccomp_program_starts_with_the_arch_guard);
	tcase_add_test(c, seccomp_program_installed_does_what_the_table_says);
	suite_add_tcase(s, c);
	return s;
}
