/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge0_zip_check (judge0/internal.h): the central-directory reader that
 * vets a Judge0 submission's additional_files in the worker, before unzip
 * runs in the sandbox.  Any bytes are either accepted (a directory of at
 * most max entries, every name a relative path of plain parts) or refused
 * with a reason; it reads nothing outside the bytes it was given.
 *
 * Input: byte 0 is max_entries (0 to 15), the rest the archive.  The
 * accepted directory is walked again here and its names held to
 * fuzz_plain_path, written apart from files_name_ok.
 */
#include "fuzz.h"
#include "api/files.h"
#include "judge0/internal.h"

static unsigned get16(const unsigned char *p)
{
	return p[0] | (unsigned)p[1] << 8;
}

static unsigned long get32(const unsigned char *p)
{
	return get16(p) | (unsigned long)get16(p + 2) << 16;
}

/* The accepted archive's directory, walked again: its entries' names. */
static void check_accepted(const unsigned char *z, size_t len, size_t max)
{
	size_t eocd = len - 22 + 1;

	while (eocd-- > 0 && get32(z + eocd) != 0x06054b50)
		;
	size_t n = get16(z + eocd + 10), off = get32(z + eocd + 16);
	FUZZ_CHECK(n <= max, "%zu entries, max %zu", n, max);
	for (size_t i = 0; i < n; i++) {
		const unsigned char *h = z + off;
		size_t nlen = get16(h + 28);
		const char *name = (const char *)h + 46;
		size_t l = nlen && name[nlen - 1] == '/' ? nlen - 1 : nlen;
		FUZZ_CHECK(fuzz_plain_path(name, l), "entry %zu: %.*s", i, (int)l, name);
		off += 46 + nlen + get16(h + 30) + get16(h + 32);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t max = data[0] % 16;
	unsigned char *zip = (unsigned char *)fuzz_copy(data + 1, size - 1);
	char err[256];

	err[0] = '\0';
	if (judge0_zip_check(zip, size - 1, max, 1ULL << 20, err, sizeof err) == 0)
		check_accepted(zip, size - 1, max);
	else
		FUZZ_CHECK(err[0] != '\0', "refused without a reason");
	free(zip);
	return 0;
}
