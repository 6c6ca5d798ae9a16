/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8: strict UTF-8 repair.  Overlong forms, surrogates (U+D800..U+DFFF) and
 * code points above U+10FFFF are invalid.  Each maximal subpart of an invalid
 * sequence (Unicode 15, section 3.9, "U+FFFD Substitution of Maximal
 * Subparts") becomes one U+FFFD: a lead byte followed by some, but not all,
 * of the continuation bytes it announces is one U+FFFD, and decoding resumes
 * at the byte that broke the sequence.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

static const char replacement[3] = { '\xef', '\xbf', '\xbd' };

/* The length of the sequence lead announces and the range its second byte
 * must fall in (the ranges exclude overlongs, surrogates and > U+10FFFF);
 * 0 for a byte that cannot start a sequence. */
static int lead_byte(unsigned char lead, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (lead < 0x80)
		return 1;
	if (lead < 0xc2)
		return 0;
	if (lead < 0xe0)
		return 2;
	if (lead < 0xf0) {
		if (lead == 0xe0)
			*lo = 0xa0;
		else if (lead == 0xed)
			*hi = 0x9f;
		return 3;
	}
	if (lead < 0xf5) {
		if (lead == 0xf0)
			*lo = 0x90;
		else if (lead == 0xf4)
			*hi = 0x8f;
		return 4;
	}
	return 0;
}

size_t utf8_repair(const char *in, size_t len, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, o = 0, good;
	unsigned char lo, hi;
	int need;

	while (i < len) {
		need = lead_byte(s[i], &lo, &hi);
		if (need == 0) {
			memcpy(out + o, replacement, sizeof(replacement));
			o += sizeof(replacement);
			i++;
			continue;
		}
		/* good counts the bytes of a well-formed prefix. */
		for (good = 1; good < (size_t)need && i + good < len; good++) {
			if (s[i + good] < lo || s[i + good] > hi)
				break;
			lo = 0x80;
			hi = 0xbf;
		}
		if (good == (size_t)need) {
			memcpy(out + o, s + i, good);
			o += good;
		} else {
			memcpy(out + o, replacement, sizeof(replacement));
			o += sizeof(replacement);
		}
		i += good;
	}
	return o;
}

size_t utf8_valid_prefix(const char *in, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, k;
	unsigned char lo, hi;
	int need;

	while (i < len) {
		need = lead_byte(s[i], &lo, &hi);
		if (need == 0 || len - i < (size_t)need)
			return i;
		for (k = 1; k < (size_t)need; k++) {
			if (s[i + k] < lo || s[i + k] > hi)
				return i;
			lo = 0x80;
			hi = 0xbf;
		}
		i += (size_t)need;
	}
	return i;
}

struct json_object *utf8_json_string(const char *in, size_t len)
{
	struct json_object *obj;
	size_t n;
	char *buf;

	if (len > (SIZE_MAX - 1) / 3)
		return NULL;
	if ((buf = malloc(3 * len + 1)) == NULL)
		return NULL;
	n = utf8_repair(in, len, buf);
	/* json-c takes an int length.  A longer text (only possible with
	 * RUN_OUTPUT_MAX=0) is cut at the last whole character that fits. */
	if (n > INT_MAX) {
		n = INT_MAX;
		while (n > 0 && ((unsigned char)buf[n] & 0xc0) == 0x80)
			n--;
	}
	obj = json_object_new_string_len(buf, (int)n);
	free(buf);
	return obj;
}
