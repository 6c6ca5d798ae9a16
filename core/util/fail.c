/* SPDX-License-Identifier: Apache-2.0 */
/* fail: see fail.h. */
#include <stdarg.h>
#include <stdio.h>

#include "util/fail.h"

int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
