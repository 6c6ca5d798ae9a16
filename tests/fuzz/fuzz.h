/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz: what the libFuzzer targets of tests/fuzz share.  Each target is one
 * file, fuzz_<name>.c, that feeds LLVMFuzzerTestOneInput's bytes to one entry
 * of the engine and checks, besides "no crash, no sanitizer report", the
 * promises its header makes.  A broken promise aborts (FUZZ_CHECK), so that
 * libFuzzer saves the input as a crash.
 *
 * The bytes are copied into a buffer of exactly their size: the parsers take
 * (pointer, length) and must not read past the length (ASan sees it if they
 * do).
 */
#ifndef GAOL_FUZZ_H
#define GAOL_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...) do {                                        \
	if (!(cond)) {                                                    \
		fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__,  \
			#cond);                                           \
		fprintf(stderr, __VA_ARGS__);                             \
		fputc('\n', stderr);                                      \
		abort();                                                  \
	}                                                                 \
} while (0)

/* A private copy of the input, with no terminator after it. */
static inline char *fuzz_copy(const uint8_t *data, size_t size)
{
	char *p = malloc(size ? size : 1);

	if (!p)
		abort();
	if (size)
		memcpy(p, data, size);
	return p;
}

/* A NUL-terminated copy (for the entries that take a C string). */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *p = malloc(size + 1);

	if (!p)
		abort();
	if (size)
		memcpy(p, data, size);
	p[size] = '\0';
	return p;
}

/* Well-formed UTF-8 as Unicode's table 3-7 defines it, written
 * independently of core/utf8.c: no overlongs, no surrogates, nothing above
 * U+10FFFF, no truncated sequence. */
static inline bool fuzz_utf8_valid(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;

	while (i < len) {
		unsigned c = s[i];
		unsigned cp, n;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i < n + 1)
			return false;
		for (unsigned k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
		    (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}


/* A relative path of plain parts as api/files.h promises one, written
 * independently of files_name_ok: 1 to 1024 bytes, no leading '/', parts
 * split on '/' each 1 to 255 bytes, none "." or "..", no control byte or
 * DEL, at most 8 parts. */
static inline bool fuzz_plain_path(const char *s, size_t len)
{
	size_t parts = 0, start = 0;

	if (len == 0 || len > 1024 || s[0] == '/')
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	while (start <= len) {
		const char *slash = memchr(s + start, '/', len - start);
		size_t end = slash ? (size_t)(slash - s) : len;
		size_t n = end - start;
		if (n == 0 || n > 255 || (n == 1 && s[start] == '.') ||
		    (n == 2 && s[start] == '.' && s[start + 1] == '.'))
			return false;
		parts++;
		start = end + 1;
	}
	return parts <= 8;
}

#endif
