/* SPDX-License-Identifier: Apache-2.0 */
/* version: the build's version strings (see version.h). */
#include "conf/version.h"

#ifndef GAOL_VERSION
#error "GAOL_VERSION must be defined by the build (see the Makefile)"
#endif
#ifndef GAOL_BUILD
#error "GAOL_BUILD must be defined by the build (see the Makefile)"
#endif

const char *gaol_version(void)
{
	return GAOL_VERSION;
}

const char *gaol_build(void)
{
	return GAOL_BUILD;
}
