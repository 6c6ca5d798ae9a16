/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lang_parse_manifest (lang.h): any lang.json text is either a language
 * whose fields meet the header's checks or a refusal with a reason.
 */
#include "fuzz.h"
#include "lang/lang.h"

/* Relative, and no part of it is "." or "..". */
static bool relative_without_dots(const char *s)
{
	if (*s == '/')
		return false;
	for (const char *part = s;; ) {
		size_t n = strcspn(part, "/");
		if (n == 0 || (n == 1 && part[0] == '.') ||
		    (n == 2 && part[0] == '.' && part[1] == '.'))
			return false;
		if (!part[n])
			return true;
		part += n + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *json = fuzz_copy(data, size);
	struct lang lang;
	char err[256];

	err[0] = '\0';
	if (lang_parse_manifest(json, size, &lang, err, sizeof err) == 0) {
		FUZZ_CHECK(lang.slug && lang.slug[0] >= 'a' && lang.slug[0] <= 'z',
			   "slug");
		FUZZ_CHECK(lang.workdir && relative_without_dots(lang.workdir),
			   "workdir %s", lang.workdir);
		FUZZ_CHECK(lang.solution_file && !strchr(lang.solution_file, '/'),
			   "solution_file");
		FUZZ_CHECK(!lang.checker_file || !strchr(lang.checker_file, '/'),
			   "checker_file");
		FUZZ_CHECK(!lang.checker_required || lang.checker_file,
			   "checker required without a file");
		FUZZ_CHECK(lang.tmp_size > 0 && lang.mem_max > 0, "sizes");
		FUZZ_CHECK(lang.aliases && lang.overlay_paths && lang.probe,
			   "lists or probe missing");
		for (char **p = lang.overlay_paths; *p; p++)
			FUZZ_CHECK(**p == '/', "overlay path %s", *p);
		lang_free(&lang);
	} else {
		FUZZ_CHECK(err[0] != '\0', "refused without a reason");
		FUZZ_CHECK(!lang.slug && !lang.aliases && !lang.probe,
			   "a refused manifest keeps memory");
	}
	free(json);
	return 0;
}
