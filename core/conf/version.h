/* SPDX-License-Identifier: Apache-2.0 */
/*
 * version: what gaol-fcgi --version, gaol-run --version and /health report.
 * Both strings are fixed at build time by the Makefile (-DGAOL_VERSION,
 * -DGAOL_BUILD): the version from git describe in a checkout, or from the
 * VERSION file of a tree without git (a package build); the build is the
 * commit it came from.
 */
#ifndef GAOL_VERSION_H
#define GAOL_VERSION_H

const char *gaol_version(void);
const char *gaol_build(void);

#endif
