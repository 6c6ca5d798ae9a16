/*
 * fail: how the engine's functions say what went wrong.  A function that can
 * fail takes a buffer for the reason (err, errlen), and on failure writes a
 * human-readable reason there and returns -1; `return fail(err, errlen,
 * "RUN_INPUT_MAX=\"%s\": not a size", v);` does both.
 */
#ifndef GAOL_FAIL_H
#define GAOL_FAIL_H

#include <stddef.h>

int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
