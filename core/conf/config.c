/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config: the environment, read once at start-up (docs/api.md,
 * "Configuration"), as one table: a row per variable, read in the table's
 * order by its reader.
 *
 * Every variable is optional.  An empty value counts as unset (systemd and
 * docker write `VAR=` for "no value"), except for the flags whose row says
 * "set and empty = on" (DEBUG: the Codebattle runner takes an empty value to
 * mean on).  Anything else that does not parse is a start-up error that
 * names the variable and quotes its value.
 */
#define _GNU_SOURCE		/* strchrnul */
#include <ctype.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/config.h"
#include "util/fail.h"
#include "util/timeout.h"

#define CONCURRENCY_MAX   256
#define TIMEOUT_DEFAULT   "30s"
/* The highest uid a slot may get: 65534 is nobody (and 65535 is (uid_t)-1
 * on 16-bit-uid ABIs); a run must never share an identity with either. */
#define UID_NOBODY        65534

/* The field of cfg a row names. */
#define FIELD(type, cfg, var) ((type *)(void *)((char *)(cfg) + (var)->off))
#define AT(field) offsetof(struct gaol_config, field)

static const char *const langs_dir_fallbacks[] = {
	"/usr/local/share/gaol/langs",
	"/usr/share/gaol/langs",
};

/* The value of a variable, or its default when unset or empty. */
static const char *value_or_def(const struct config_var *var, const char *v)
{
	return v != NULL && *v != '\0' ? v : var->def;
}

/* A whole number from min to max. */
static int whole(const struct config_var *var, const char *v,
		 unsigned long long *n, char *err, size_t errlen)
{
	const char *s = value_or_def(var, v), *end;

	if (parse_ull(s, &end, n) == -1 || *end != '\0' || *n < var->min ||
	    *n > var->max)
		return fail(err, errlen, "%s=\"%s\": not a whole number from "
			    "%llu to %llu", var->name, s, var->min, var->max);
	return 0;
}

static int read_count(const struct config_var *var, const char *v,
		      struct gaol_config *cfg, char *err, size_t errlen)
{
	unsigned long long n;

	if (whole(var, v, &n, err, errlen) == -1)
		return -1;
	*FIELD(unsigned, cfg, var) = (unsigned)n;
	return 0;
}

static int read_count_ull(const struct config_var *var, const char *v,
			  struct gaol_config *cfg, char *err, size_t errlen)
{
	return whole(var, v, FIELD(unsigned long long, cfg, var), err, errlen);
}

/* A size of at least min bytes (at most max, when max is not 0). */
static int size(const struct config_var *var, const char *v,
		unsigned long long *n, char *err, size_t errlen)
{
	const char *s = value_or_def(var, v);

	if (parse_size(s, n) == -1)
		return fail(err, errlen, "%s=\"%s\": not a size (bytes, or a "
			    "number with k, m or g)", var->name, s);
	if (*n < var->min)
		return fail(err, errlen, "%s=\"%s\": must be at least %llu",
			    var->name, s, var->min);
	if (*n > SIZE_MAX || (var->max && *n > var->max))
		return fail(err, errlen, "%s=\"%s\": too large", var->name, s);
	return 0;
}

static int read_size(const struct config_var *var, const char *v,
		     struct gaol_config *cfg, char *err, size_t errlen)
{
	return size(var, v, FIELD(unsigned long long, cfg, var), err, errlen);
}

static int read_size_t(const struct config_var *var, const char *v,
		       struct gaol_config *cfg, char *err, size_t errlen)
{
	unsigned long long n;

	if (size(var, v, &n, err, errlen) == -1)
		return -1;
	*FIELD(size_t, cfg, var) = (size_t)n;
	return 0;
}

/* 0 (off), or a size from min to max: the ceilings an operator may leave
 * off.  The message quotes the row's range. */
static int read_size_or_off(const struct config_var *var, const char *v,
			    struct gaol_config *cfg, char *err, size_t errlen)
{
	unsigned long long *n = FIELD(unsigned long long, cfg, var);
	const char *s = value_or_def(var, v);

	if (parse_size(s, n) == -1 || (*n != 0 && (*n < var->min || *n > var->max)))
		return fail(err, errlen, "%s=\"%s\": not a %s", var->name, s,
			    var->range);
	return 0;
}

/* A duration from min to max milliseconds; the message quotes the range. */
static int read_ms(const struct config_var *var, const char *v,
		   struct gaol_config *cfg, char *err, size_t errlen)
{
	long *ms = FIELD(long, cfg, var);
	const char *s = value_or_def(var, v);

	if (timeout_parse(s, ms) == -1 || (unsigned long long)*ms < var->min ||
	    (unsigned long long)*ms > var->max)
		return fail(err, errlen, "%s=\"%s\": not a %s (\"%s\")", var->name,
			    s, var->range, var->def);
	return 0;
}

/* 1/true and 0/false (any case); unset is off, and an empty value is on
 * when the row's min is 1. */
static int read_flag(const struct config_var *var, const char *v,
		     struct gaol_config *cfg, char *err, size_t errlen)
{
	bool *on = FIELD(bool, cfg, var);

	*on = false;
	if (v == NULL)
		return 0;
	if (*v == '\0')
		*on = var->min == 1;
	else if (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0)
		*on = true;
	else if (strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0)
		return fail(err, errlen, "%s=\"%s\": not 1, true, 0 or false",
			    var->name, v);
	return 0;
}

/* GAOL_LANG_CACHE: on unless exactly "0", as it always was. */
static int read_lang_cache(const struct config_var *var, const char *v,
			   struct gaol_config *cfg, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	*FIELD(bool, cfg, var) = v == NULL || strcmp(v, "0") != 0;
	return 0;
}

/* RUN_TIMEOUT_MAX, and the default timeout it caps. */
static int read_timeout_max(const struct config_var *var, const char *v,
			    struct gaol_config *cfg, char *err, size_t errlen)
{
	const char *s = value_or_def(var, v);
	long def_ms;

	if (timeout_parse(s, &cfg->timeout_max_ms) == -1)
		return fail(err, errlen, "%s=\"%s\": not a positive whole number "
			    "with a unit ms, s or m (e.g. \"60s\")", var->name, s);
	/* Deadlines are handed to poll(2) and friends as int milliseconds. */
	if ((unsigned long long)cfg->timeout_max_ms > var->max)
		return fail(err, errlen, "%s=\"%s\": above the largest supported "
			    "timeout, %llums", var->name, s, var->max);
	(void)timeout_parse(TIMEOUT_DEFAULT, &def_ms);
	cfg->timeout_default_ms = def_ms < cfg->timeout_max_ms ? def_ms :
				  cfg->timeout_max_ms;
	return 0;
}

/* Slot i runs as uid_base + i: every one of them below nobody. */
static int read_uid_base(const struct config_var *var, const char *v,
			 struct gaol_config *cfg, char *err, size_t errlen)
{
	unsigned long long n;

	if (whole(var, v, &n, err, errlen) == -1)
		return -1;
	/* The slots', the self-check's (gaol-run's), and the checkers' of
	 * both (CONFIG_AIDE_UID). */
	unsigned long long span = 2ULL * cfg->concurrency + 2;
	if (n + span > UID_NOBODY)	/* only when set */
		return fail(err, errlen, "%s=\"%s\": the slots' and checkers' uids "
			    "%llu..%llu would reach %d (nobody); at most %llu with "
			    "RUN_CONCURRENCY=%u", var->name, v, n,
			    n + span - 1, UID_NOBODY,
			    UID_NOBODY - span, cfg->concurrency);
	cfg->uid_base = (uid_t)n;
	return 0;
}

static bool is_env_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!isascii((unsigned char)s[i]) ||
		    !(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* The item p..e of a comma-separated list, blanks around it trimmed. */
static const char *trimmed(const char *p, const char *e, size_t *len)
{
	for (; p < e && (*p == ' ' || *p == '\t'); p++)
		;
	for (*len = (size_t)(e - p); *len > 0 &&
	     (p[*len - 1] == ' ' || p[*len - 1] == '\t'); (*len)--)
		;
	return p;
}

static bool listed(char *const *list, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && memcmp(list[i], s, len) == 0)
			return true;
	return false;
}

/* RUN_ENV_ALLOW: comma-separated names; blanks around names and empty items
 * are ignored, a repeated name is kept once. */
static int read_env_allow(const struct config_var *var, const char *v,
			  struct gaol_config *cfg, char *err, size_t errlen)
{
	const char *p, *q, *e;
	size_t len;

	for (p = v ? v : ""; *p != '\0'; p = *e == ',' ? e + 1 : e) {
		e = strchrnul(p, ',');
		q = trimmed(p, e, &len);
		if (len == 0 || listed(cfg->env_allow, cfg->n_env_allow, q, len))
			continue;
		if (!is_env_name(q, len))
			return fail(err, errlen, "%s=\"%s\": \"%.*s\" is not a "
				    "variable name (letters, digits, _; not "
				    "starting with a digit)", var->name, v, (int)len, q);
		if (cfg->n_env_allow == var->max)
			return fail(err, errlen, "%s=\"%s\": more than %llu names",
				    var->name, v, var->max);
		if ((cfg->env_allow[cfg->n_env_allow] = strndup(q, len)) == NULL)
			return fail(err, errlen, "%s: out of memory", var->name);
		cfg->n_env_allow++;
	}
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool plain_absolute(const char *path, size_t len)
{
	return path[0] == '/' && strcmp(path, "/") != 0 &&
	       !strstr(path, "/../") && !strstr(path, "/./") && !strstr(path, "//") &&
	       !strchr(path, ':') && path[len - 1] != '/' &&
	       !(len >= 3 && strcmp(path + len - 3, "/..") == 0);
}

/* RUN_ROOT_EXTRA: more host directories for the sandbox's read-only root
 * (toolchains outside /usr, e.g. /opt/go), comma separated. */
static int read_root_extra(const struct config_var *var, const char *v,
			   struct gaol_config *cfg, char *err, size_t errlen)
{
	const char *p, *e;
	size_t len;
	char path[4096];

	for (p = v ? v : ""; *p != '\0'; p = *e == ',' ? e + 1 : e) {
		e = strchrnul(p, ',');
		if ((len = (size_t)(e - p)) == 0)
			continue;
		if (len >= sizeof(path))
			return fail(err, errlen, "%s: a path is too long", var->name);
		memcpy(path, p, len);
		path[len] = '\0';
		if (!plain_absolute(path, len))
			return fail(err, errlen, "%s=\"%s\": \"%s\" is not a plain "
				    "absolute path", var->name, v, path);
		if (!is_dir(path))
			return fail(err, errlen, "%s=\"%s\": \"%s\" is not a "
				    "directory", var->name, v, path);
		if (cfg->n_root_extra == var->max)
			return fail(err, errlen, "%s=\"%s\": more than %llu paths",
				    var->name, v, var->max);
		if ((cfg->root_extra[cfg->n_root_extra] = strdup(path)) == NULL)
			return fail(err, errlen, "%s: out of memory", var->name);
		cfg->n_root_extra++;
	}
	return 0;
}

/* GAOL_LANGS_DIR, else the first of <exe dir>/../langs (a build tree) and
 * the install locations that is a directory.  Stored resolved. */
static int read_langs_dir(const struct config_var *var, const char *v,
			  struct gaol_config *cfg, char *err, size_t errlen)
{
	char exe[PATH_MAX], near[PATH_MAX + 16];
	ssize_t n;
	size_t i;

	if (v != NULL) {
		if (!is_dir(v) || realpath(v, cfg->langs_dir) == NULL)
			return fail(err, errlen, "%s=\"%s\": not a directory",
				    var->name, v);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(near, sizeof(near), "%s/../langs", dirname(exe));
		if (is_dir(near) && realpath(near, cfg->langs_dir) != NULL)
			return 0;
	}
	for (i = 0; i < sizeof(langs_dir_fallbacks) /
	     sizeof(langs_dir_fallbacks[0]); i++)
		if (is_dir(langs_dir_fallbacks[i]) &&
		    realpath(langs_dir_fallbacks[i], cfg->langs_dir) != NULL)
			return 0;
	return fail(err, errlen, "%s is unset and no langs directory was found "
		    "beside the executable, in %s or in %s", var->name,
		    langs_dir_fallbacks[0], langs_dir_fallbacks[1]);
}

/* GAOL_INSTANCE names one gaol among several on a machine: its slots'
 * cgroup parent and its default state directory, so it is one path
 * component (letters, digits, '-', '_'; no leading '-' or '.'). */
static int read_instance(const struct config_var *var, const char *v,
			 struct gaol_config *cfg, char *err, size_t errlen)
{
	const char *s = value_or_def(var, v);
	size_t i, len = strlen(s);

	for (i = 0; i < len; i++)
		if (!isascii((unsigned char)s[i]) ||
		    !(isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_'))
			break;
	if (i < len || len > GAOL_INSTANCE_MAX || s[0] == '-')
		return fail(err, errlen, "%s=\"%s\": not a name of 1 to %d "
			    "letters, digits, '-' or '_' (not starting with '-')",
			    var->name, s, GAOL_INSTANCE_MAX);
	strcpy(cfg->instance, s);
	return 0;
}

static int read_state_dir(const struct config_var *var, const char *v,
			  struct gaol_config *cfg, char *err, size_t errlen)
{
	char def[sizeof("/run/") + GAOL_INSTANCE_MAX];

	snprintf(def, sizeof(def), "/run/%s", cfg->instance);
	if (v == NULL)
		v = def;
	if (v[0] != '/')
		return fail(err, errlen, "%s=\"%s\": not an absolute path",
			    var->name, v);
	/* Room is left for the per-slot names built beneath it. */
	if (strlen(v) >= sizeof(cfg->state_dir) - 256)
		return fail(err, errlen, "%s: path too long", var->name);
	strcpy(cfg->state_dir, v);
	return 0;
}

/* What one build may leave for the compile cache (issue 11): a build is the
 * tenant's code, so its output is bounded, and one entry always fits the
 * cache: 64m, or the cache's size if smaller. */
static int read_build_max(const struct config_var *var, const char *v,
			  struct gaol_config *cfg, char *err, size_t errlen)
{
	unsigned long long cap = cfg->eval_cache_max;
	char def[32];
	struct config_var row = *var;

	snprintf(def, sizeof(def), "%llu", cap && cap < (64ULL << 20) ? cap :
		 64ULL << 20);
	row.def = def;
	if (read_size(&row, v, cfg, err, errlen) == -1)
		return -1;
	if (cap && cfg->eval_build_max > cap)
		return fail(err, errlen, "%s=\"%s\": more than RUN_EVAL_CACHE_MAX "
			    "(%llu bytes)", var->name, v, cap);
	return 0;
}

/* The pool's own memory: a worker at the answer cap holds a few times it (a
 * result being written, its lanes' results), and 256 MiB a slot leaves room
 * for that. */
static int read_pool_memory(const struct config_var *var, const char *v,
			    struct gaol_config *cfg, char *err, size_t errlen)
{
	char def[32];
	struct config_var row = *var;

	snprintf(def, sizeof(def), "%llu", (256ULL << 20) * cfg->concurrency);
	row.def = def;
	return read_size_or_off(&row, v, cfg, err, errlen);
}

/* RUN_QUEUE_DIR: <GAOL_STATE_DIR>/queue unless set (the package sets its
 * StateDirectory=, which outlives a reboot; /run does not). */
static int read_queue_dir(const struct config_var *var, const char *v,
			  struct gaol_config *cfg, char *err, size_t errlen)
{
	if (v && (v[0] != '/' || !plain_absolute(v, strlen(v)) ||
		  strlen(v) >= sizeof(cfg->queue_dir) - 64))
		return fail(err, errlen, "%s=\"%s\": not a plain absolute path "
			    "(of at most 4031 bytes)", var->name, v);
	snprintf(cfg->queue_dir, sizeof cfg->queue_dir, v ? "%s" : "%s/queue",
		 v ? v : cfg->state_dir);
	return 0;
}

/* Queue workers are taken from the pool (one is left for HTTP); off by
 * default, as nginx's limit_conn becomes RUN_CONCURRENCY - RUN_QUEUE_SLOTS. */
static int read_queue_slots(const struct config_var *var, const char *v,
			    struct gaol_config *cfg, char *err, size_t errlen)
{
	struct config_var row = *var;

	row.max = cfg->concurrency - 1;
	return read_count(&row, v, cfg, err, errlen);
}

#define MS_MAX ((unsigned long long)LONG_MAX)

/* The table.  Its rows, in order, are docs/api.md's ("Configuration"): a
 * unit test (tests/unit/test_config.c) fails when they differ. */
const struct config_var config_table[] = {
	{ "RUN_CONCURRENCY", read_count, "10", 1, CONCURRENCY_MAX, AT(concurrency),
	  NULL, "1-256", "workers, hence slots; nginx's `limit_conn`" },
	{ "RUN_INPUT_MAX", read_size_t, "1048576", 1, 0, AT(input_max),
	  NULL, "size >= 1", "request body bytes (app and nginx)" },
	{ "RUN_OUTPUT_MAX", read_size_t, "1048576", 0, 0, AT(output_max),
	  NULL, "size, 0 = no cap",
	  "bytes per output stream (stdout, stderr, output file)" },
	{ "RUN_TIMEOUT_MAX", read_timeout_max, "60s", 1, INT_MAX, AT(timeout_max_ms),
	  NULL, "duration <= 2^31-1 ms",
	  "the largest `timeout` a /run may ask for; the default `timeout` is "
	  "30 s or this, whichever is lower" },
	{ "RUN_UID_BASE", read_uid_base, "10001", 1, UID_NOBODY - 1, AT(uid_base),
	  NULL, "1-65533, and `RUN_UID_BASE + 2 × RUN_CONCURRENCY + 2` <= 65534",
	  "slot i runs as UID and GID `RUN_UID_BASE + i`, its checkers and interactors as `RUN_UID_BASE + RUN_CONCURRENCY + 1 + i`; never nobody (65534)" },
	{ "RUN_ENV_ALLOW", read_env_allow, NULL, 0, GAOL_ENV_ALLOW_MAX, AT(env_allow),
	  "empty", "comma-separated variable names, at most 32",
	  "variables passed from the service's environment to programs, besides "
	  "`LANG`, `LC_ALL`, `TZ`" },
	{ "RUN_ROOT_EXTRA", read_root_extra, NULL, 0, GAOL_ROOT_EXTRA_MAX,
	  AT(root_extra), "empty",
	  "comma-separated plain absolute directories, at most 16",
	  "more host directories bound read-only into the sandbox's root "
	  "(toolchains outside /usr, e.g. /opt/go)" },
	{ "RUN_MEMORY_MAX", read_size, "0", 0, 0, AT(memory_max), "0 (off)", "size",
	  "`RLIMIT_AS` of each program, opt-in; the cgroup limit is the real one" },
	{ "RUN_SANDBOX_TMP_SIZE", read_size, "0", 0, 0, AT(tmp_size),
	  "0 (lang.json)", "size", "writable tmpfs of a run, for every language" },
	{ "RUN_SANDBOX_MEM_MAX", read_size, "0", 0, 0, AT(mem_max),
	  "0 (lang.json)", "size", "cgroup memory limit of a run, for every language" },
	{ "RUN_EVAL_PARALLEL", read_count, "2", 1, EVAL_PARALLEL_MAX, AT(eval_parallel),
	  NULL, "1-16",
	  "test cases judged at once per /evaluate request (lanes per worker)" },
	{ "RUN_EVAL_TESTS_MAX", read_count, "1000", 1, 100000, AT(eval_tests_max),
	  NULL, "1-100000",
	  "test cases one /evaluate request may have (422 above it)" },
	{ "RUN_EVAL_CACHE_MAX", read_size, "256m", 0, 0, AT(eval_cache_max),
	  NULL, "size", "compile cache bytes" },
	{ "RUN_EVAL_BUILD_MAX", read_build_max, NULL, 1, 0, AT(eval_build_max),
	  "64m (or the cache size, if smaller)", "size >= 1, at most `RUN_EVAL_CACHE_MAX`",
	  "data bytes one build may leave in /sandbox (holes of sparse files not "
	  "counted)" },
	{ "RUN_EVAL_BUILD_FILES", read_count_ull, "10000", 1, 1000000,
	  AT(eval_build_files), NULL, "1-1000000",
	  "files, directories and links one build may leave" },
	{ "RUN_EVAL_HIDE_CACHED", read_flag, NULL, 1, 1, AT(eval_hide_cached),
	  "false", "flag; set and empty = on",
	  "answers do not say whether a build was a cache hit (see README, "
	  "\"Security model\")" },
	{ "RUN_EVAL_INPUT_MAX", read_size_t, "16m", 1, 0, AT(eval_input_max),
	  NULL, "size >= 1",
	  "/evaluate body bytes (CompiCode's 16 MiB); nginx's "
	  "`client_max_body_size` in the /evaluate location" },
	{ "RUN_EVAL_OUTPUT_MAX", read_size_t, "8m", 0, 0, AT(eval_output_max),
	  NULL, "size, 0 = no cap",
	  "a test's stdout (or output file) bytes; past it, OLE" },
	{ "RUN_EVAL_STDERR_MAX", read_size_t, "64k", 0, 0, AT(eval_stderr_max),
	  NULL, "size, 0 = all of it",
	  "a test's stderr bytes kept in `error`; the rest is read and dropped "
	  "(never OLE)" },
	{ "RUN_FILES_MAX", read_count, "64", 1, 4096, AT(files_max), NULL,
	  "1-4096 (SANDBOX_FILES_MAX)",
	  "files one /execute request may send (the bytes are within "
	  "`RUN_INPUT_MAX`)" },
	{ "RUN_EXECUTE_OUTPUT_MAX", read_size_t, "1m", 1, 0, AT(execute_output_max),
	  NULL, "size >= 1",
	  "an /execute stage's stdout, and its stderr, bytes each; past it the "
	  "stage is stopped, status `OL` (stdout) or `EL` (stderr)" },
	{ "RUN_EXECUTE_COMPILE_TIMEOUT_MAX", read_ms, "30s", 10000, 600000,
	  AT(execute_compile_max_ms), NULL, "duration from 10s to 10m",
	  "the largest `compile_timeout` and `compile_cpu_time` an /execute "
	  "request may ask for (400 above it); the default is Piston's 10 s" },
	{ "RUN_EXECUTE_RUN_TIMEOUT_MAX", read_ms, "30s", 3000, 600000,
	  AT(execute_run_max_ms), NULL, "duration from 3s to 10m",
	  "the largest `run_timeout` and `run_cpu_time` an /execute request may "
	  "ask for (400 above it); the default is Piston's 3 s" },
	{ "RUN_TIME_LIMIT_MAX", read_ms, "10s", 2000, 60000, AT(eval_time_max_ms),
	  NULL, "duration from 2s to 60s",
	  "the largest `time_limit_ms` an /evaluate request may ask for (422 "
	  "above it)" },
	{ "RUN_MEMORY_LIMIT_MAX", read_size_or_off, "0", 8ULL << 20, 16384ULL << 20,
	  AT(eval_memory_max), "0 (each language's own)",
	  "size from 8m to 16g, or 0",
	  "the largest `memory_limit_mb` an /evaluate request may ask for (422 "
	  "above it); 0: each language's own memory limit is its ceiling" },
	{ "RUN_ANSWER_MAX", read_size_t, "16m", 65536, 0, AT(answer_max),
	  NULL, "size, at least 64k",
	  "bytes of the program's output that one /evaluate answer may echo, "
	  "shared equally by its tests (`actual_truncated`)" },
	{ "RUN_EVAL_COMPILE_TIMEOUT", read_ms, "10s", 1000, 600000,
	  AT(eval_compile_ms), NULL, "duration from 1s to 10m",
	  "wall clock of an /evaluate build (not counting as long again of "
	  "waiting on the disk, nor waiting for a CPU); past it the build is CE `Compilation Timeout "
	  "(over N seconds)`. nginx's `fastcgi_read_timeout` of /evaluate must be "
	  "longer than twice it: nothing is sent while a build runs. The build's "
	  "time counts against `RUN_REQUEST_BUDGET`, which stops a build still "
	  "running when it is spent (the tests are then `TLE`, not `CE`). A build "
	  "that fails is never cached, so raising it needs no cache flush" },
	{ "RUN_REQUEST_BUDGET", read_ms, "120s", 1000, MS_MAX, AT(request_budget_ms),
	  NULL, "duration of at least 1s",
	  "wall clock of one /evaluate request, build included; tests past it are "
	  "TLE" },
	{ "RUN_LANG_START_TIMEOUT", read_ms, "30s", 100, 600000,
	  AT(lang_shell_timeout_ms), NULL, "duration from 100ms to 10m",
	  "guard of each language's start-up shells (its probe, `make -n` of its "
	  "targets); a language whose shell outlives it is not installed until "
	  "the next start" },
	{ "RUN_POOL_MEMORY_MAX", read_pool_memory, NULL, 32ULL << 20, ULLONG_MAX,
	  AT(pool_memory_max), "256m × `RUN_CONCURRENCY`",
	  "size, 0 = off, else at least 32m",
	  "memory of the service's own processes (master, workers, their lanes; "
	  "not the slots): a cgroup (v1: `<own>/<instance>/pool<RUN_UID_BASE>` in "
	  "the memory hierarchy, beside the slots; v2: the `supervisor` leaf). A "
	  "worker over it is killed by the kernel and replaced; its client gets "
	  "502" },
	{ "ALLOW_SHUTDOWN", read_flag, NULL, 0, 1, AT(allow_shutdown),
	  "false", "flag", "enable `POST /shutdown`" },
	{ "RUN_NETNS_FRESH", read_flag, NULL, 1, 1, AT(netns_fresh),
	  "false", "flag; set and empty = on",
	  "never give a worker's network namespace to its next run, even when it "
	  "is proven unchanged since it was new (docs/design.md, \"What a run "
	  "reuses\"): a new one per run" },
	{ "RUN_UNPINNED", read_flag, NULL, 1, 1, AT(unpinned),
	  "false", "flag; set and empty = on",
	  "leave the workers, their judging lanes and the inits they clone to the "
	  "scheduler, instead of one CPU of the service's set each "
	  "(docs/design.md, \"CPU placement\"); the program a run executes uses "
	  "every CPU of the set either way" },
	{ "RUN_CGROUP_FAVORDYNMODS", read_flag, NULL, 1, 1, AT(favor_dynmods),
	  "false", "flag; set and empty = on",
	  "on a host whose slots are on cgroup v1: at start, remount the host's "
	  "cgroup2 superblock with `favordynmods` (Linux 6.0), its other options "
	  "kept, unless it has it already; the service refuses to start, saying "
	  "why, when there is no cgroup2 mount or the kernel refuses. Host-wide "
	  "and left set when the service stops; from Linux 6.18 the kernel keeps "
	  "its effect until reboot even if the option is taken off "
	  "(docs/design.md, \"The sandbox step by step\", step 3). Ignored on "
	  "cgroup v2" },
	{ "DEBUG", read_flag, NULL, 1, 1, AT(debug), "false", "flag; set and empty = on",
	  "log each request's line and headers to stderr" },
	{ "GAOL_LANGS_DIR", read_langs_dir, NULL, 0, 0, AT(langs_dir),
	  "`<binary's dir>/../langs`, else `/usr/local/share/gaol/langs`, else "
	  "`/usr/share/gaol/langs`", "an existing directory",
	  "the language directories" },
	{ "GAOL_INSTANCE", read_instance, "gaol", 1, GAOL_INSTANCE_MAX, AT(instance),
	  NULL, "1-32 letters, digits, `-`, `_`; not starting with `-`",
	  "this gaol's name among several on one machine: its slots' cgroup "
	  "parent and its default state directory" },
	{ "GAOL_STATE_DIR", read_state_dir, NULL, 0, 0, AT(state_dir),
	  "`/run/<GAOL_INSTANCE>`", "absolute path",
	  "slot skeletons, scratch mount points, the compile cache, the start-up "
	  "shells' cache" },
	{ "GAOL_LANG_CACHE", read_lang_cache, NULL, 0, 0, AT(lang_cache),
	  "on", "`0` = off",
	  "reuse the probes' and `make -n`'s answers of an earlier start when "
	  "their inputs are unchanged (see \"Languages\")" },
	{ "RUN_QUEUE_DIR", read_queue_dir, NULL, 0, 0, AT(queue_dir),
	  "`<GAOL_STATE_DIR>/queue`", "plain absolute path",
	  "Judge0's asynchronous submissions and their results, on disk; the "
	  "package sets `/var/lib/gaol/queue` (its `StateDirectory=`), which "
	  "outlives a reboot" },
	{ "RUN_QUEUE_MAX", read_size_t, "100", 1, 1000000, AT(queue_max), NULL,
	  "1-1000000", "submissions waiting or running in the queue; past it "
	  "Judge0's 503 `queue is full` (Judge0's `MAX_QUEUE_SIZE`)" },
	{ "RUN_QUEUE_SLOTS", read_queue_slots, "0", 0, 255, AT(queue_slots),
	  NULL, "0 to `RUN_CONCURRENCY` - 1",
	  "workers that run queued submissions and take no HTTP request; the "
	  "others serve HTTP, and nginx's `limit_conn` must be `RUN_CONCURRENCY` "
	  "- `RUN_QUEUE_SLOTS` (`make run` renders it). 0: Judge0's `wait=false` "
	  "is refused (503), `wait=true` works" },
	{ "RUN_RESULT_TTL", read_ms, "1440m", 1000, MS_MAX, AT(result_ttl_ms), NULL,
	  "duration of at least 1s", "how long a queued submission's result is "
	  "kept after it ends (then its token is 404)" },
	{ "RUN_RESULT_MAX", read_size, "256m", 65536, 0, AT(result_max), NULL,
	  "size, at least 64k", "bytes of results kept; past it the oldest go "
	  "first" },
	{ "RUN_BATCH_MAX", read_count, "20", 1, 1000, AT(batch_max), NULL, "1-1000",
	  "submissions of one batch (Judge0's `MAX_SUBMISSION_BATCH_SIZE`); past "
	  "it Judge0's 400" },
	{ "RUN_CALLBACK_ALLOW", config_read_callback_allow, NULL, 0, 0, AT(callback_allow),
	  "empty", "comma-separated `host` or `host:port`",
	  "the targets a `callback_url` may name (its host as written, and its "
	  "port if given); any other is Judge0's 422. Empty: no callback" },
	{ "RUN_JUDGE0_LIMITS", config_read_judge0_limits, NULL, 0, 0, AT(judge0),
	  "Judge0's", "comma-separated `key=number`, keys of `GET /config_info`",
	  "Judge0's defaults and maxima (`cpu_time_limit=5,max_cpu_time_limit=15,"
	  "memory_limit=128000,...`; seconds, KB, counts, as `/config_info` shows "
	  "them); each maximum is lowered to gaol's own ceiling where that is lower "
	  "and a default to its maximum; a default set above its maximum, or an "
	  "unknown key, is a start-up error" },
	{ "RUN_HOST_ID", read_count, "0", 0, 65535, AT(host_id), NULL, "0-65535",
	  "this host's number, in every token it gives (the last group's first "
	  "four hex digits), so a front routes a token to its host "
	  "(nginx/cluster); a token of another number is 404" },
};
const size_t config_table_len = sizeof(config_table) / sizeof(config_table[0]);

void config_doc_row(const struct config_var *var, char *out, size_t len)
{
	snprintf(out, len, "| `%s` | %s | %s | %s |", var->name,
		 var->shown ? var->shown : var->def, var->range, var->doc);
}

int config_from_env(struct gaol_config *cfg, char *err, size_t errlen)
{
	memset(cfg, 0, sizeof(*cfg));
	for (const struct config_var *var = config_table; var < config_table + config_table_len;
	     var++) {
		const char *v = getenv(var->name);
		if (v != NULL && *v == '\0' && var->read != read_flag)
			v = NULL;	/* empty is unset, but for flags */
		if (var->read(var, v, cfg, err, errlen) == -1) {
			config_free(cfg);
			return -1;
		}
	}
	return 0;
}

void config_cache_dir(const struct gaol_config *cfg, char *out, size_t len)
{
	snprintf(out, len, "%s/cache", cfg->state_dir);
}

void config_free(struct gaol_config *cfg)
{
	for (size_t i = 0; i < cfg->n_env_allow; i++) {
		free(cfg->env_allow[i]);
		cfg->env_allow[i] = NULL;
	}
	cfg->n_env_allow = 0;
	for (size_t i = 0; i < cfg->n_root_extra; i++) {
		free(cfg->root_extra[i]);
		cfg->root_extra[i] = NULL;
	}
	cfg->n_root_extra = 0;
}
