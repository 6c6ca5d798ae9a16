/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge0/internal: what judge0's files share (see judge0.h): Judge0's
 * limits as this host admits them, the language an id names, the zip's
 * names checked, base64 both ways and Judge0's time format.
 */
#ifndef GAOL_JUDGE0_INTERNAL_H
#define GAOL_JUDGE0_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "api/engine.h"

struct json_object;

#define JUDGE0_MULTI_FILE 89     /* "Multi-file program" */
#define JUDGE0_TEXT_MAX 512      /* compiler_options, command_line_arguments */
#define JUDGE0_ZIP_NAME ".judge0_additional_files.zip"

/* Judge0's defaults and maxima (its config_info), each maximum lowered to
 * what this host's ceilings allow (RUN_EXECUTE_RUN_TIMEOUT_MAX, the
 * memory ceilings, RUN_EXECUTE_OUTPUT_MAX). */
struct judge0_limits {
	double cpu_time_limit, max_cpu_time_limit;
	double cpu_extra_time, max_cpu_extra_time;
	double wall_time_limit, max_wall_time_limit;
	long memory_limit, max_memory_limit;     /* KB */
	long stack_limit, max_stack_limit;       /* KB */
	long max_processes_and_or_threads, max_max_processes_and_or_threads;
	long max_file_size, max_max_file_size;   /* KB */
	long number_of_runs, max_number_of_runs;
	long max_extract_size;                   /* KB */
};
void judge0_limits(const struct engine *e, struct judge0_limits *l);

/* Judge0 CE's name with the toolchain's real version in place of
 * Judge0's ("Python (3.8.1)" -> "Python (3.11.2)"), into out. */
void judge0_lang_name(const struct lang *l, const struct lang_judge0 *j, char *out, size_t len);

/* The names of a zip's entries checked without inflating a byte (its
 * central directory only): each a relative path of plain parts
 * (files_name_ok), at most max_entries, the sizes they declare at most
 * max_bytes in all and each at most 1000 times its compressed size.
 * 0, or -1 with the reason. */
int judge0_zip_check(const unsigned char *zip, size_t len, size_t max_entries,
		     unsigned long long max_bytes, char *err, size_t errlen);

/* base64 of s[0..len) as a JSON string. */
struct json_object *judge0_b64(const char *s, size_t len);
/* A base64 string decoded (malloc'd, NUL-terminated); -1 when it is not
 * base64. */
int judge0_unb64(const char *s, size_t len, char **out, size_t *outlen);
/* Now in Judge0's format, "2026-12-04T18:41:00.123Z". */
void judge0_now(char *out, size_t len);

#endif
