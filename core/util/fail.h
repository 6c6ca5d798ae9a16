/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fail: the one way gaol's functions say what went wrong.  A function that
 * can fail takes a buffer for the reason (err, errlen), and on failure
 * writes a human-readable reason there and returns -1; `return fail(err,
 * errlen, "RUN_INPUT_MAX=\"%s\": not a size", v);` does both.  A reason
 * names the step, and a system call's error as errno=N ("sandbox: mount
 * /proc errno=1"), never strerror's words: docs/api.md promises that form.
 * Two kinds of function build no message and stay as they are: plain
 * helpers around system calls, which return -1 with errno set for their
 * caller's message, and init's init_fail (inside/inside.h), which cannot
 * return and reports its step and errno on the report pipe instead.
 */
#ifndef GAOL_FAIL_H
#define GAOL_FAIL_H

#include <stddef.h>

int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
