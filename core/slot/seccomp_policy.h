/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seccomp: the syscall policy of every payload (docs/design.md, "The
 * sandbox step by step"), installed in the payload with one prctl, last
 * before execve.  The policy is a table in seccomp_policy.c, compiled with
 * libseccomp at build time (seccomp_gen.c); the program the build carries is
 * in seccomp_program.c.
 */
#ifndef GAOL_SECCOMP_POLICY_H
#define GAOL_SECCOMP_POLICY_H

#include <linux/filter.h>

struct seccomp_policy {
	struct sock_fprog prog;  /* the whole program: arch/x32 guard + table */
};

/* The program this build carries (no libseccomp at run time).  Returns 0,
 * or -1 with the reason in err. */
int seccomp_policy_build(struct seccomp_policy *p, char *err, size_t errlen);
/* Compiles the table with libseccomp, as the build did (seccomp_gen.c, the
 * unit tests).  Returns 0, or -1 with the failing step in err. */
int seccomp_policy_compile(struct seccomp_policy *p, char *err, size_t errlen);
/* Installs it in the calling thread.  Async-signal-safe; needs no_new_privs
 * (or CAP_SYS_ADMIN).  Returns 0, or -1 with errno. */
int seccomp_policy_install(const struct seccomp_policy *p);
void seccomp_policy_free(struct seccomp_policy *p);

#endif
