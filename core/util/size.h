/* SPDX-License-Identifier: Apache-2.0 */
/*
 * size: a size string as the Codebattle runner takes them, "512m", "1g",
 * "65536", "64k" (powers of 1024), for the configuration and lang.json.
 */
#ifndef GAOL_SIZE_H
#define GAOL_SIZE_H

/* Decimal digits only (no sign, no spaces, no base prefix), read up to the
 * first other character; returns 0 with *end there, or -1 (no digit, or
 * overflow). */
int parse_ull(const char *s, const char **end, unsigned long long *val);

/* Returns 0 and the byte count, or -1. */
int parse_size(const char *s, unsigned long long *bytes);

#endif
