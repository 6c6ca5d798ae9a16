/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sha256: SHA-256 (FIPS 180-4) of a buffer, for the compile cache's entry
 * names (judge/cache.c).  Here rather than OpenSSL's: loading libcrypto
 * (its relocations and constructors) was 0.6 ms of every gaol-run start,
 * for this one digest.
 */
#ifndef GAOL_SHA256_H
#define GAOL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

void sha256(const void *data, size_t len, uint8_t out[SHA256_LEN]);

#endif
