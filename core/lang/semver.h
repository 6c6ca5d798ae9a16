/* SPDX-License-Identifier: Apache-2.0 */
/*
 * semver: a toolchain's real version as SemVer, and SemVer selectors
 * matched against it (POST /execute's `version`, as Piston matches them
 * with node's semver).  Pure: no allocation but the version's string.
 */
#ifndef GAOL_SEMVER_H
#define GAOL_SEMVER_H

#include <stdbool.h>

/* The version in text (a probe's output): the first group of regex (a
 * POSIX ERE) where it matches, else (regex NULL) the first N.N[.N]; made
 * three numbers ("3.11" -> "3.11.0", "1.85.0-nightly" -> "1.85.0").  A
 * malloc'd string, or NULL when there is none. */
char *semver_read(const char *text, const char *regex);

/* Whether version ("3.11.2") satisfies selector: "*", "x" or "" (any),
 * "3", "3.11", "3.x", "3.11.2", "=3.11.2", ">=3.9", ">3", "<4", "<=3.11",
 * "^3.9", "~3.11", space-separated comparators (all must hold) and
 * alternatives joined by "||".  false for a selector that does not parse. */
bool semver_satisfies(const char *version, const char *selector);

#endif
