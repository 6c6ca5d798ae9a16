/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The streaming comparator (judge.h): compare_feed over any chunking of the
 * actual output agrees with compare_equal on the whole of it, answers 1
 * from the first difference on, and both agree with a reference written
 * from the rule itself: equal after CRLF -> LF, a lone CR -> LF and
 * trimming leading and trailing whitespace.
 *
 * Input: byte 0 and 1 split the rest into expected and actual; byte 2 seeds
 * the chunk sizes.
 */
#include "fuzz.h"
#include "judge/judge.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/* CRLF -> LF, CR -> LF, then trimmed: into out, returns the length. */
static size_t normalise(const char *s, size_t len, char *out)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i < len; i++)
		if (!(s[i] == '\r' && i + 1 < len && s[i + 1] == '\n'))
			out[n++] = s[i] == '\r' ? '\n' : s[i];
	while (start < n && blank(out[start]))
		start++;
	while (n > start && blank(out[n - 1]))
		n--;
	memmove(out, out + start, n - start);
	return n - start;
}

static bool reference(const char *e, size_t elen, const char *a, size_t alen)
{
	char *ne = malloc(elen + 1), *na = malloc(alen + 1);
	size_t nel, nal;
	bool eq;

	if (!ne || !na)
		abort();
	nel = normalise(e, elen, ne);
	nal = normalise(a, alen, na);
	eq = nel == nal && memcmp(ne, na, nel) == 0;
	free(ne);
	free(na);
	return eq;
}

/* A small deterministic generator for the chunk sizes. */
static unsigned next(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return (*state >> 16) & 0x7fff;
}

static bool streamed(const char *e, size_t elen, const char *a, size_t alen,
		     unsigned seed, size_t max_chunk)
{
	struct compare c;
	size_t pos = 0;
	int differs = 0;
	bool eq;

	FUZZ_CHECK(compare_init(&c, e, elen) == 0, "compare_init");
	while (pos < alen) {
		size_t n = max_chunk ? 1 + next(&seed) % max_chunk : alen - pos;
		int rc;

		if (n > alen - pos)
			n = alen - pos;
		/* Each chunk in a buffer of its own size: no read past it. */
		char *chunk = fuzz_copy((const uint8_t *)a + pos, n);
		rc = compare_feed(&c, chunk, n);
		free(chunk);
		FUZZ_CHECK(rc == 0 || rc == 1, "compare_feed returned %d", rc);
		FUZZ_CHECK(!(differs && !rc), "a difference was forgotten");
		differs = rc;
		pos += n;
	}
	FUZZ_CHECK(compare_feed(&c, "", 0) == differs, "empty feed changed it");
	eq = compare_finish(&c);
	FUZZ_CHECK(!(differs && eq), "equal after a difference");
	compare_free(&c);
	return eq;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t split, elen, alen;
	unsigned seed;
	char *e, *a;
	bool whole, ref;

	if (size < 3)
		return 0;
	split = (size_t)data[0] << 8 | data[1];
	seed = data[2];
	data += 3;
	size -= 3;
	elen = size ? split % (size + 1) : 0;
	alen = size - elen;
	e = fuzz_copy(data, elen);
	a = fuzz_copy(data + elen, alen);

	whole = compare_equal(e, elen, a, alen);
	ref = reference(e, elen, a, alen);
	FUZZ_CHECK(whole == ref, "compare_equal %d, reference %d", whole, ref);
	FUZZ_CHECK(streamed(e, elen, a, alen, seed, 0) == whole, "one chunk");
	FUZZ_CHECK(streamed(e, elen, a, alen, seed, 1) == whole, "byte by byte");
	FUZZ_CHECK(streamed(e, elen, a, alen, seed, 2 + seed % 7) == whole,
		   "random chunks");
	free(e);
	free(a);
	return 0;
}
