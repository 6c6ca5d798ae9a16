/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The payload's seccomp program as this build carries it: the table of
 * seccomp_policy.c, compiled by libseccomp when gaol was built
 * ($(BUILD)/gen/seccomp_program.inc, written by seccomp_gen.c).  A slot
 * takes a copy of it; nothing here needs libseccomp.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <linux/seccomp.h>

#include "util/fail.h"
#include "slot/seccomp_policy.h"

static const struct sock_filter program[] = {
#include "seccomp_program.inc"
};

int seccomp_policy_build(struct seccomp_policy *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->prog.filter = malloc(sizeof(program));
	if (!p->prog.filter) {
		return fail(err, errlen, "seccomp: program errno=%d", errno);
	}
	memcpy(p->prog.filter, program, sizeof(program));
	p->prog.len = (unsigned short)(sizeof(program) / sizeof(program[0]));
	return 0;
}

int seccomp_policy_install(const struct seccomp_policy *p)
{
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p->prog, 0, 0) < 0 ? -1 : 0;
}

void seccomp_policy_free(struct seccomp_policy *p)
{
	free(p->prog.filter);
	p->prog.filter = NULL;
	p->prog.len = 0;
}
