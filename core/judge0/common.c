/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge0/common: what judge0's files share (internal.h).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#include <json-c/json.h>

#include "api/files.h"
#include "execute/stages.h"
#include "judge0/internal.h"
#include "util/fail.h"

static double dmin(double a, double b)
{
	return a < b ? a : b;
}

static long lmin(long a, long b)
{
	return a < b ? a : b;
}

/* Judge0's defaults and maxima as the operator set them
 * (RUN_JUDGE0_LIMITS: Judge0's own unless set), each maximum then lowered
 * to this host's ceilings where they are lower, each default to its
 * maximum. */
void judge0_limits(const struct engine *e, struct judge0_limits *l)
{
	const struct gaol_config *c = &e->cfg;
	const double *j = c->judge0;
	double run_s = (double)c->execute_run_max_ms / 1000;
	long mem_kb = c->eval_memory_max ? (long)(c->eval_memory_max >> 10) : LONG_MAX;
	*l = (struct judge0_limits){
		.max_cpu_time_limit = dmin(j[J0_MAX_CPU_TIME_LIMIT], run_s),
		.max_cpu_extra_time = j[J0_MAX_CPU_EXTRA_TIME],
		.max_wall_time_limit = dmin(j[J0_MAX_WALL_TIME_LIMIT], run_s),
		.max_memory_limit = lmin((long)j[J0_MAX_MEMORY_LIMIT], mem_kb),
		.max_stack_limit = (long)j[J0_MAX_STACK_LIMIT],
		.max_max_processes_and_or_threads = (long)j[J0_MAX_MAX_PROCESSES_AND_OR_THREADS],
		.max_max_file_size = lmin((long)j[J0_MAX_MAX_FILE_SIZE],
					  (long)(c->execute_output_max >> 10)),
		.max_number_of_runs = (long)j[J0_MAX_NUMBER_OF_RUNS],
		.max_extract_size = (long)j[J0_MAX_EXTRACT_SIZE],
	};
	l->cpu_time_limit = dmin(j[J0_CPU_TIME_LIMIT], l->max_cpu_time_limit);
	l->cpu_extra_time = j[J0_CPU_EXTRA_TIME];
	l->wall_time_limit = dmin(j[J0_WALL_TIME_LIMIT], l->max_wall_time_limit);
	l->memory_limit = lmin((long)j[J0_MEMORY_LIMIT], l->max_memory_limit);
	l->stack_limit = (long)j[J0_STACK_LIMIT];
	l->max_processes_and_or_threads = (long)j[J0_MAX_PROCESSES_AND_OR_THREADS];
	l->max_file_size = lmin((long)j[J0_MAX_FILE_SIZE], l->max_max_file_size);
	l->number_of_runs = (long)j[J0_NUMBER_OF_RUNS];
}

const struct lang *judge0_lang(const struct engine *e, int id, const struct lang_judge0 **entry)
{
	for (size_t i = 0; i < e->langs.n; i++)
		for (size_t k = 0; k < e->langs.v[i].n_judge0; k++)
			if (e->langs.v[i].judge0[k].id == id) {
				if (entry)
					*entry = &e->langs.v[i].judge0[k];
				return &e->langs.v[i];
			}
	return NULL;
}

/* The last word starting with a digit inside the last "(...)" is
 * Judge0's version; the toolchain's takes its place. */
void judge0_lang_name(const struct lang *l, const struct lang_judge0 *j, char *out, size_t len)
{
	const char *open = strrchr(j->name, '('), *close = open ? strchr(open, ')') : NULL;
	const char *v = NULL;
	for (const char *p = open; p && p < close; p++)
		if (*p >= '0' && *p <= '9' && (p[-1] == '(' || p[-1] == ' '))
			v = p;
	if (!v || !l->semver) {
		snprintf(out, len, "%s", j->name);
		return;
	}
	size_t vend = strcspn(v, " )");
	snprintf(out, len, "%.*s%s%s", (int)(v - j->name), j->name, l->semver, v + vend);
}

static unsigned get16(const unsigned char *p)
{
	return p[0] | (unsigned)p[1] << 8;
}

static unsigned long get32(const unsigned char *p)
{
	return get16(p) | (unsigned long)get16(p + 2) << 16;
}

/* The end-of-central-directory record: its offset, or -1. */
static long zip_eocd(const unsigned char *z, size_t len)
{
	if (len < 22)
		return -1;
	size_t stop = len > 22 + 65535 ? len - 22 - 65535 : 0;
	for (size_t i = len - 22 + 1; i-- > stop;)
		if (get32(z + i) == 0x06054b50)
			return (long)i;
	return -1;
}

/* One central-directory entry at *off: its name checked, its sizes
 * added; the next entry's offset in *off. */
static int zip_entry(const unsigned char *z, size_t end, size_t *off,
		     unsigned long long *total, char *err, size_t errlen)
{
	const unsigned char *h = z + *off;
	if (*off + 46 > end || get32(h) != 0x02014b50)
		return fail(err, errlen, "is not a zip archive (a bad central directory)");
	unsigned long csize = get32(h + 20), usize = get32(h + 24);
	size_t nlen = get16(h + 28), next = *off + 46 + nlen + get16(h + 30) + get16(h + 32);
	if (next > end)
		return fail(err, errlen, "is not a zip archive (an entry past its end)");
	const char *name = (const char *)h + 46;
	size_t n = nlen && name[nlen - 1] == '/' ? nlen - 1 : nlen;
	if (!files_name_ok(name, n))
		return fail(err, errlen, "entry \"%.*s\" is not a relative path of plain parts",
			    (int)(nlen > 100 ? 100 : nlen), name);
	if (csize == 0xffffffff || usize == 0xffffffff)
		return fail(err, errlen, "zip64 entries are not accepted");
	if (usize > 1000ULL * csize + 4096)
		return fail(err, errlen, "entry \"%.*s\" inflates %lu bytes into %lu: refused "
			    "as a zip bomb", (int)(nlen > 100 ? 100 : nlen), name, csize, usize);
	*total += usize;
	*off = next;
	return 0;
}

int judge0_zip_check(const unsigned char *z, size_t len, size_t max_entries,
		     unsigned long long max_bytes, char *err, size_t errlen)
{
	long eocd = zip_eocd(z, len);
	if (eocd < 0)
		return fail(err, errlen, "is not a zip archive");
	size_t n = get16(z + eocd + 10), off = get32(z + eocd + 16);
	size_t end = off + get32(z + eocd + 12);
	if (end > (size_t)eocd || off > end)
		return fail(err, errlen, "is not a zip archive (a bad directory offset)");
	if (n > max_entries)
		return fail(err, errlen, "has %zu entries, more than RUN_FILES_MAX (%zu)", n,
			    max_entries);
	unsigned long long total = 0;
	for (size_t i = 0; i < n; i++)
		if (zip_entry(z, end, &off, &total, err, errlen) < 0)
			return -1;
	if (total > max_bytes)
		return fail(err, errlen, "would extract %llu bytes, more than max_extract_size "
			    "(%llu)", total, max_bytes);
	return 0;
}

struct json_object *judge0_b64(const char *s, size_t len)
{
	return exec_base64(s, len);
}

/* Base64 as Ruby's decode64 takes it: line breaks ignored. */
int judge0_unb64(const char *s, size_t len, char **out, size_t *outlen)
{
	char *t = malloc(len + 1), err[64];
	size_t n = 0;
	if (!t)
		return -1;
	for (size_t i = 0; i < len; i++)
		if (s[i] != '\n' && s[i] != '\r')
			t[n++] = s[i];
	int rc = files_decode("base64", t, n, out, outlen, err, sizeof(err));
	free(t);
	return rc < 0 ? -1 : 0;
}

void judge0_now(char *out, size_t len)
{
	struct timeval tv;
	struct tm tm;
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	char s[32];
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%03ldZ", s, (long)(tv.tv_usec / 1000));
}
