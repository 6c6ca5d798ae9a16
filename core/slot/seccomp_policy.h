/*
 * seccomp: the syscall policy of every payload (docs/design.md, "The
 * sandbox step by step"), built once
 * per worker with libseccomp and installed in the payload with one prctl,
 * last before execve.  The policy is a table in seccomp_policy.c.
 */
#ifndef GAOL_SECCOMP_POLICY_H
#define GAOL_SECCOMP_POLICY_H

#include <linux/filter.h>

struct seccomp_policy {
	struct sock_fprog prog;  /* the whole program: arch/x32 guard + table */
};

/* Compiles the policy.  Returns 0, or -1 with the failing step in err. */
int seccomp_policy_build(struct seccomp_policy *p, char *err, size_t errlen);
/* Installs it in the calling thread.  Async-signal-safe; needs no_new_privs
 * (or CAP_SYS_ADMIN).  Returns 0 or -errno. */
int seccomp_policy_install(const struct seccomp_policy *p);
void seccomp_policy_free(struct seccomp_policy *p);

#endif
