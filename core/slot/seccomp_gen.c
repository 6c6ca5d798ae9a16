/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seccomp-gen: compiles the payload's syscall table (seccomp_policy.c) with
 * libseccomp and prints the program as C initialisers, which
 * seccomp_program.c includes.  Run by the Makefile at build time; not part
 * of libgaol.
 */
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>

#include "slot/seccomp_policy.h"

int main(void)
{
	struct seccomp_policy p;
	char err[256];
	if (seccomp_policy_compile(&p, err, sizeof(err)) < 0) {
		fprintf(stderr, "seccomp-gen: %s\n", err);
		return 1;
	}
	const struct scmp_version *v = seccomp_version();
	printf("/* %u instructions, compiled by seccomp-gen from core/slot/seccomp_policy.c\n"
	       " * with libseccomp %u.%u.%u: generated, do not edit. */\n",
	       (unsigned)p.prog.len, v->major, v->minor, v->micro);
	for (unsigned i = 0; i < p.prog.len; i++) {
		const struct sock_filter *f = &p.prog.filter[i];
		printf("{ 0x%04x, %u, %u, 0x%08x },\n", (unsigned)f->code, (unsigned)f->jt,
		       (unsigned)f->jf, (unsigned)f->k);
	}
	free(p.prog.filter);
	return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
