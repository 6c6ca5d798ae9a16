/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8: program output made safe for a JSON string.  Invalid UTF-8 becomes
 * U+FFFD (one per maximal invalid subsequence, as the Unicode standard
 * recommends); NUL and other control bytes survive and are escaped by json-c.
 */
#ifndef GAOL_UTF8_H
#define GAOL_UTF8_H

#include <stddef.h>
#include <json-c/json.h>

/* Writes the repaired text of in[0..len) to out, which must hold 3 * len
 * bytes; returns the length written. */
size_t utf8_repair(const char *in, size_t len, char *out);

/* The length of the longest prefix of in[0..len) that is well-formed UTF-8
 * (the same rules as utf8_repair: no overlongs, surrogates or code points
 * above U+10FFFF); len when all of it is. */
size_t utf8_valid_prefix(const char *in, size_t len);

/* A json-c string holding the repaired bytes (NULs included). */
struct json_object *utf8_json_string(const char *in, size_t len);

#endif
