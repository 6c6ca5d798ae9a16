/*
 * config: the environment, read once at start-up (docs/api.md,
 * "Configuration").
 *
 * Every variable is optional.  An empty value counts as unset (systemd and
 * docker write `VAR=` for "no value"), except DEBUG, where the Codebattle
 * runner takes an empty value to mean on.  Anything else that does not parse
 * is a start-up error that names the variable and quotes its value.
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

#include "util/fail.h"
#include "api/config.h"
#include "util/timeout.h"
#include "run/sandbox.h"

#define CONCURRENCY_MAX   256
#define TIMEOUT_DEFAULT   "30s"
/* The highest uid a slot may get: 65534 is nobody (and 65535 is (uid_t)-1
 * on 16-bit-uid ABIs); a run must never share an identity with either. */
#define UID_NOBODY        65534

static const char *const langs_dir_fallbacks[] = {
	"/usr/local/share/gaol/langs",
	"/usr/share/gaol/langs",
};


/* The variable's value, NULL when unset or empty. */
static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

/* Decimal digits only: no sign, no spaces, no base prefix. */
static int parse_ull(const char *s, const char **end, unsigned long long *val)
{
	unsigned long long n = 0;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9'; p++) {
		if (n > (ULLONG_MAX - (unsigned)(*p - '0')) / 10)
			return -1;
		n = n * 10 + (unsigned)(*p - '0');
	}
	if (p == s)
		return -1;
	*end = p;
	*val = n;
	return 0;
}

int parse_size(const char *s, unsigned long long *bytes)
{
	unsigned long long n, scale = 1;
	const char *p;

	if (s == NULL || parse_ull(s, &p, &n) == -1)
		return -1;
	switch (*p) {
	case '\0':
		break;
	case 'k': case 'K':
		scale = 1ULL << 10;
		p++;
		break;
	case 'm': case 'M':
		scale = 1ULL << 20;
		p++;
		break;
	case 'g': case 'G':
		scale = 1ULL << 30;
		p++;
		break;
	default:
		return -1;
	}
	if (*p != '\0' || n > ULLONG_MAX / scale)
		return -1;
	*bytes = n * scale;
	return 0;
}

static int get_uint(const char *name, unsigned long long def, unsigned long long min,
		    unsigned long long max, unsigned long long *val, char *err,
		    size_t errlen)
{
	const char *v = env(name), *end;

	*val = def;
	if (v == NULL)
		return 0;
	if (parse_ull(v, &end, val) == -1 || *end != '\0' || *val < min ||
	    *val > max)
		return fail(err, errlen, "%s=\"%s\": not a whole number from "
			    "%llu to %llu", name, v, min, max);
	return 0;
}

static int get_size(const char *name, unsigned long long def, unsigned long long min,
		    unsigned long long *val, char *err, size_t errlen)
{
	const char *v = env(name);

	*val = def;
	if (v == NULL)
		return 0;
	if (parse_size(v, val) == -1)
		return fail(err, errlen, "%s=\"%s\": not a size (bytes, or a "
			    "number with k, m or g)", name, v);
	if (*val < min)
		return fail(err, errlen, "%s=\"%s\": must be at least %llu",
			    name, v, min);
	if (*val > SIZE_MAX)
		return fail(err, errlen, "%s=\"%s\": too large", name, v);
	return 0;
}

/* 1/true and 0/false (any case); an empty value is empty_value. */
static int get_flag(const char *name, bool empty_value, bool *val, char *err,
		    size_t errlen)
{
	const char *v = getenv(name);

	*val = false;
	if (v == NULL)
		return 0;
	if (*v == '\0')
		*val = empty_value;
	else if (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0)
		*val = true;
	else if (strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0)
		return fail(err, errlen, "%s=\"%s\": not 1, true, 0 or false",
			    name, v);
	return 0;
}

static int get_timeout_max(long *max_ms, char *err, size_t errlen)
{
	const char *v = env("RUN_TIMEOUT_MAX");

	if (v == NULL)
		v = "60s";
	if (timeout_parse(v, max_ms) == -1)
		return fail(err, errlen, "RUN_TIMEOUT_MAX=\"%s\": not a positive "
			    "whole number with a unit ms, s or m (e.g. \"60s\")",
			    v);
	/* Deadlines are handed to poll(2) and friends as int milliseconds. */
	if (*max_ms > INT_MAX)
		return fail(err, errlen, "RUN_TIMEOUT_MAX=\"%s\": above the "
			    "largest supported timeout, %dms", v, INT_MAX);
	return 0;
}

/* The operator's ceilings on what an /evaluate request may ask for: CPU
 * time per test (default 10s; at least the default time_limit_ms, at most
 * the largest the request format takes) and memory (default 0: each
 * language's own limit is the ceiling). */
#define TIME_LIMIT_MAX_DEFAULT "10s"
#define TIME_LIMIT_MAX_LEAST_MS 2000      /* judge.h's default time_limit_ms */
#define TIME_LIMIT_MAX_MOST_MS 60000      /* judge.h's EVAL_TIME_LIMIT_MAX_MS */
#define MEMORY_LIMIT_MAX_LEAST (8ULL << 20)   /* EVAL_MEMORY_MIN_MB */
#define MEMORY_LIMIT_MAX_MOST (16384ULL << 20) /* EVAL_MEMORY_MAX_MB */

static int get_eval_ceilings(struct gaol_config *cfg, char *err, size_t errlen)
{
	const char *v = env("RUN_TIME_LIMIT_MAX");

	if (v == NULL)
		v = TIME_LIMIT_MAX_DEFAULT;
	if (timeout_parse(v, &cfg->eval_time_max_ms) == -1 ||
	    cfg->eval_time_max_ms < TIME_LIMIT_MAX_LEAST_MS ||
	    cfg->eval_time_max_ms > TIME_LIMIT_MAX_MOST_MS)
		return fail(err, errlen, "RUN_TIME_LIMIT_MAX=\"%s\": not a time "
			    "from 2s to 60s (a whole number with a unit ms, s "
			    "or m)", v);
	if (get_size("RUN_MEMORY_LIMIT_MAX", 0, 0, &cfg->eval_memory_max, err,
		     errlen) == -1)
		return -1;
	if (cfg->eval_memory_max != 0 &&
	    (cfg->eval_memory_max < MEMORY_LIMIT_MAX_LEAST ||
	     cfg->eval_memory_max > MEMORY_LIMIT_MAX_MOST))
		return fail(err, errlen, "RUN_MEMORY_LIMIT_MAX=\"%s\": not a size "
			    "from 8m to 16g", env("RUN_MEMORY_LIMIT_MAX"));
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

/* RUN_ENV_ALLOW: comma-separated names; blanks around names and empty items
 * are ignored, a repeated name is kept once. */
static int get_env_allow(struct gaol_config *cfg, char *err, size_t errlen)
{
	const char *v = env("RUN_ENV_ALLOW"), *p, *q, *e;
	size_t i, len;
	bool seen;

	if (v == NULL)
		return 0;
	for (p = v; *p != '\0'; p = *e == ',' ? e + 1 : e) {
		e = strchrnul(p, ',');
		for (q = p; q < e && (*q == ' ' || *q == '\t'); q++)
			;
		for (len = (size_t)(e - q); len > 0 &&
		     (q[len - 1] == ' ' || q[len - 1] == '\t'); len--)
			;
		if (len == 0)
			continue;
		if (!is_env_name(q, len))
			return fail(err, errlen, "RUN_ENV_ALLOW=\"%s\": \"%.*s\" is "
				    "not a variable name (letters, digits, _; not "
				    "starting with a digit)", v, (int)len, q);
		for (seen = false, i = 0; i < cfg->n_env_allow; i++)
			if (strlen(cfg->env_allow[i]) == len &&
			    memcmp(cfg->env_allow[i], q, len) == 0)
				seen = true;
		if (seen)
			continue;
		if (cfg->n_env_allow == GAOL_ENV_ALLOW_MAX)
			return fail(err, errlen, "RUN_ENV_ALLOW=\"%s\": more than "
				    "%d names", v, GAOL_ENV_ALLOW_MAX);
		if ((cfg->env_allow[cfg->n_env_allow] = strndup(q, len)) == NULL)
			return fail(err, errlen, "RUN_ENV_ALLOW: out of memory");
		cfg->n_env_allow++;
	}
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* RUN_ROOT_EXTRA: more host directories for the sandbox's read-only root
 * (toolchains outside /usr, e.g. /opt/go), comma separated. */
static int get_root_extra(struct gaol_config *cfg, char *err, size_t errlen)
{
	const char *v = env("RUN_ROOT_EXTRA"), *p, *e;
	size_t len;
	char path[4096];

	if (v == NULL)
		return 0;
	for (p = v; *p != '\0'; p = *e == ',' ? e + 1 : e) {
		e = strchrnul(p, ',');
		len = (size_t)(e - p);
		if (len == 0)
			continue;
		if (len >= sizeof(path))
			return fail(err, errlen, "RUN_ROOT_EXTRA: a path is too long");
		memcpy(path, p, len);
		path[len] = '\0';
		if (path[0] != '/' || strcmp(path, "/") == 0 ||
		    strstr(path, "/../") || strstr(path, "/./") || strstr(path, "//") ||
		    strchr(path, ':') || path[len - 1] == '/' ||
		    (len >= 3 && strcmp(path + len - 3, "/..") == 0))
			return fail(err, errlen, "RUN_ROOT_EXTRA=\"%s\": \"%s\" is not "
				    "a plain absolute path", v, path);
		if (!is_dir(path))
			return fail(err, errlen, "RUN_ROOT_EXTRA=\"%s\": \"%s\" is not "
				    "a directory", v, path);
		if (cfg->n_root_extra == GAOL_ROOT_EXTRA_MAX)
			return fail(err, errlen, "RUN_ROOT_EXTRA=\"%s\": more than %d "
				    "paths", v, GAOL_ROOT_EXTRA_MAX);
		if ((cfg->root_extra[cfg->n_root_extra] = strdup(path)) == NULL)
			return fail(err, errlen, "RUN_ROOT_EXTRA: out of memory");
		cfg->n_root_extra++;
	}
	return 0;
}

/* GAOL_LANGS_DIR, else the first of <exe dir>/../langs (a build tree) and
 * the install locations that is a directory.  Stored resolved. */
static int get_langs_dir(struct gaol_config *cfg, char *err, size_t errlen)
{
	const char *v = env("GAOL_LANGS_DIR");
	char exe[PATH_MAX], near[PATH_MAX + 16];
	ssize_t n;
	size_t i;

	if (v != NULL) {
		if (!is_dir(v) || realpath(v, cfg->langs_dir) == NULL)
			return fail(err, errlen, "GAOL_LANGS_DIR=\"%s\": not a "
				    "directory", v);
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
	return fail(err, errlen, "GAOL_LANGS_DIR is unset and no langs "
		    "directory was found beside the executable, in %s or in %s",
		    langs_dir_fallbacks[0], langs_dir_fallbacks[1]);
}

/* GAOL_INSTANCE names one gaol among several on a machine: its slots'
 * cgroup parent and its default state directory, so it is one path
 * component (letters, digits, '-', '_'; no leading '-' or '.'). */
static int get_instance(struct gaol_config *cfg, char *err, size_t errlen)
{
	const char *v = env("GAOL_INSTANCE");
	size_t i, len;

	if (v == NULL)
		v = "gaol";
	len = strlen(v);
	for (i = 0; i < len; i++)
		if (!isascii((unsigned char)v[i]) ||
		    !(isalnum((unsigned char)v[i]) || v[i] == '-' || v[i] == '_'))
			break;
	if (i < len || len > GAOL_INSTANCE_MAX || v[0] == '-')
		return fail(err, errlen, "GAOL_INSTANCE=\"%s\": not a name of 1 "
			    "to %d letters, digits, '-' or '_' (not starting "
			    "with '-')", v, GAOL_INSTANCE_MAX);
	strcpy(cfg->instance, v);
	return 0;
}

static int get_state_dir(struct gaol_config *cfg, char *err, size_t errlen)
{
	const char *v = env("GAOL_STATE_DIR");
	char def[sizeof("/run/") + GAOL_INSTANCE_MAX];

	snprintf(def, sizeof(def), "/run/%s", cfg->instance);
	if (v == NULL)
		v = def;
	if (v[0] != '/')
		return fail(err, errlen, "GAOL_STATE_DIR=\"%s\": not an absolute "
			    "path", v);
	/* Room is left for the per-slot names built beneath it. */
	if (strlen(v) >= sizeof(cfg->state_dir) - 256)
		return fail(err, errlen, "GAOL_STATE_DIR: path too long");
	strcpy(cfg->state_dir, v);
	return 0;
}

/* What one build may leave for the compile cache (issue 11): a build is the
 * tenant's code, so its output is bounded, and one entry always fits the
 * cache.  RUN_EVAL_HIDE_CACHED: answers do not say whether a build was a
 * cache hit (whether someone submitted the same source before). */
static int get_eval_build(struct gaol_config *cfg, char *err, size_t errlen)
{
	unsigned long long n, cap = cfg->eval_cache_max;
	unsigned long long def = cap && cap < (64ULL << 20) ? cap : 64ULL << 20;

	if (get_size("RUN_EVAL_BUILD_MAX", def, 1, &cfg->eval_build_max, err,
		     errlen) == -1)
		return -1;
	if (cap && cfg->eval_build_max > cap)
		return fail(err, errlen, "RUN_EVAL_BUILD_MAX=\"%s\": more than "
			    "RUN_EVAL_CACHE_MAX (%llu bytes)",
			    env("RUN_EVAL_BUILD_MAX"), cap);
	if (get_uint("RUN_EVAL_BUILD_FILES", 10000, 1, 1000000, &n, err,
		     errlen) == -1)
		return -1;
	cfg->eval_build_files = n;
	return get_flag("RUN_EVAL_HIDE_CACHED", true, &cfg->eval_hide_cached,
			err, errlen);
}

/* A duration variable: def_ms when unset, else min_ms..max_ms; range says
 * so in the error ("from 1s to 10m (\"10s\")"). */
static int get_duration(const char *name, long def_ms, long min_ms, long max_ms,
			const char *range, long *ms, char *err, size_t errlen)
{
	const char *v = env(name);

	*ms = def_ms;
	if (v && (timeout_parse(v, ms) < 0 || *ms < min_ms || *ms > max_ms))
		return fail(err, errlen, "%s=\"%s\": not a duration %s", name, v, range);
	return 0;
}

/* What one request may cost at most (issue 11): its answer's size and its
 * wall-clock time, whatever its tests ask. */
static int get_request_bounds(struct gaol_config *cfg, char *err, size_t errlen)
{
	unsigned long long n;

	if (get_size("RUN_ANSWER_MAX", 16ULL << 20, 65536, &n, err, errlen) == -1)
		return -1;
	cfg->answer_max = (size_t)n;
	/* A worker at the answer cap holds a few times it (a result being
	 * written, its lanes' results): 256 MiB a slot leaves room for that. */
	if (get_size("RUN_POOL_MEMORY_MAX", (256ULL << 20) * cfg->concurrency, 0,
		     &cfg->pool_memory_max, err, errlen) == -1)
		return -1;
	if (cfg->pool_memory_max && cfg->pool_memory_max < 32ULL << 20)
		return fail(err, errlen, "RUN_POOL_MEMORY_MAX=\"%s\": must be 0 (off) "
			    "or at least 32m", env("RUN_POOL_MEMORY_MAX"));
	if (get_duration("RUN_REQUEST_BUDGET", 120000, 1000, LONG_MAX,
			 "of at least 1s (\"120s\", \"90000ms\")",
			 &cfg->request_budget_ms, err, errlen) == -1)
		return -1;
	/* A build's wall clock: 10 s, as CompiCode's; a slow host (an
	 * emulated one, a small VM) may need more for C++ or Rust. */
	if (get_duration("RUN_EVAL_COMPILE_TIMEOUT", EVAL_COMPILE_TIMEOUT_MS, 1000,
			 600000, "from 1s to 10m (\"10s\")", &cfg->eval_compile_ms,
			 err, errlen) == -1)
		return -1;
	return get_duration("RUN_LANG_START_TIMEOUT", LANG_START_TIMEOUT_MS, 100, 600000,
			    "from 100ms to 10m (\"30s\")", &cfg->lang_shell_timeout_ms,
			    err, errlen);
}

/* POST /evaluate's own: lanes, cache, and CompiCode's limits (16 MiB
 * bodies, 8 MiB of stdout per test, 64 KiB of stderr kept). */
static int read_eval_env(struct gaol_config *cfg, char *err, size_t errlen)
{
	unsigned long long n;

	if (get_uint("RUN_EVAL_PARALLEL", 2, 1, EVAL_PARALLEL_MAX, &n, err,
		     errlen) == -1)
		return -1;
	cfg->eval_parallel = (unsigned)n;
	if (get_size("RUN_EVAL_CACHE_MAX", 256ULL << 20, 0, &cfg->eval_cache_max,
		     err, errlen) == -1)
		return -1;
	if (get_size("RUN_EVAL_INPUT_MAX", 16ULL << 20, 1, &n, err, errlen) == -1)
		return -1;
	cfg->eval_input_max = (size_t)n;
	if (get_size("RUN_EVAL_OUTPUT_MAX", 8ULL << 20, 0, &n, err, errlen) == -1)
		return -1;
	cfg->eval_output_max = (size_t)n;
	if (get_size("RUN_EVAL_STDERR_MAX", 64ULL << 10, 0, &n, err, errlen) == -1)
		return -1;
	cfg->eval_stderr_max = (size_t)n;
	return 0;
}

/* POST /execute's: how many files, how much output, and the ceilings of
 * its stages' timeouts (and CPU times), Piston's defaults below them. */
static int read_execute_env(struct gaol_config *cfg, char *err, size_t errlen)
{
	unsigned long long n;

	if (get_uint("RUN_FILES_MAX", 64, 1, SANDBOX_FILES_MAX, &n, err, errlen) == -1)
		return -1;
	cfg->files_max = (size_t)n;
	if (get_size("RUN_EXECUTE_OUTPUT_MAX", 1ULL << 20, 1, &n, err, errlen) == -1)
		return -1;
	cfg->execute_output_max = (size_t)n;
	if (get_duration("RUN_EXECUTE_COMPILE_TIMEOUT_MAX", 30000, 10000, 600000,
			 "from 10s to 10m (\"30s\")", &cfg->execute_compile_max_ms,
			 err, errlen) == -1)
		return -1;
	return get_duration("RUN_EXECUTE_RUN_TIMEOUT_MAX", 30000, 3000, 600000,
			    "from 3s to 10m (\"30s\")", &cfg->execute_run_max_ms,
			    err, errlen);
}

static int read_env(struct gaol_config *cfg, char *err, size_t errlen)
{
	unsigned long long n;
	long def_ms;

	if (get_uint("RUN_CONCURRENCY", 10, 1, CONCURRENCY_MAX, &n, err,
		     errlen) == -1)
		return -1;
	cfg->concurrency = (unsigned)n;
	if (get_size("RUN_INPUT_MAX", 1048576, 1, &n, err, errlen) == -1)
		return -1;
	cfg->input_max = (size_t)n;
	if (get_size("RUN_OUTPUT_MAX", 1048576, 0, &n, err, errlen) == -1)
		return -1;
	cfg->output_max = (size_t)n;

	if (get_timeout_max(&cfg->timeout_max_ms, err, errlen) == -1)
		return -1;
	(void)timeout_parse(TIMEOUT_DEFAULT, &def_ms);
	cfg->timeout_default_ms = def_ms < cfg->timeout_max_ms ? def_ms :
				  cfg->timeout_max_ms;

	if (get_flag("DEBUG", true, &cfg->debug, err, errlen) == -1 ||
	    get_flag("ALLOW_SHUTDOWN", false, &cfg->allow_shutdown, err,
		     errlen) == -1 ||
	    get_flag("RUN_NETNS_FRESH", true, &cfg->netns_fresh, err, errlen) == -1 ||
	    get_flag("RUN_UNPINNED", true, &cfg->unpinned, err, errlen) == -1 ||
	    get_flag("RUN_CGROUP_FAVORDYNMODS", true, &cfg->favor_dynmods, err,
		     errlen) == -1)
		return -1;

	/* Slot i runs as uid_base + i: every one of them below nobody. */
	if (get_uint("RUN_UID_BASE", 10001, 1, UID_NOBODY - 1, &n, err,
		     errlen) == -1)
		return -1;
	if (n + cfg->concurrency > UID_NOBODY)	/* only when set */
		return fail(err, errlen, "RUN_UID_BASE=\"%s\": the slots' uids "
			    "%llu..%llu would reach %d (nobody); at most %u with "
			    "RUN_CONCURRENCY=%u", env("RUN_UID_BASE"), n,
			    n + cfg->concurrency - 1, UID_NOBODY,
			    UID_NOBODY - cfg->concurrency, cfg->concurrency);
	cfg->uid_base = (uid_t)n;

	if (get_env_allow(cfg, err, errlen) == -1 ||
	    get_root_extra(cfg, err, errlen) == -1)
		return -1;
	if (get_size("RUN_MEMORY_MAX", 0, 0, &cfg->memory_max, err,
		     errlen) == -1 ||
	    get_size("RUN_SANDBOX_TMP_SIZE", 0, 0, &cfg->tmp_size, err,
		     errlen) == -1 ||
	    get_size("RUN_SANDBOX_MEM_MAX", 0, 0, &cfg->mem_max, err,
		     errlen) == -1)
		return -1;
	if (read_eval_env(cfg, err, errlen) == -1 ||
	    read_execute_env(cfg, err, errlen) == -1 ||
	    get_eval_ceilings(cfg, err, errlen) == -1 ||
	    get_eval_build(cfg, err, errlen) == -1 ||
	    get_request_bounds(cfg, err, errlen) == -1)
		return -1;
	if (get_langs_dir(cfg, err, errlen) == -1 ||
	    get_instance(cfg, err, errlen) == -1 ||
	    get_state_dir(cfg, err, errlen) == -1)
		return -1;
	return 0;
}

int config_from_env(struct gaol_config *cfg, char *err, size_t errlen)
{
	memset(cfg, 0, sizeof(*cfg));
	if (read_env(cfg, err, errlen) == -1) {
		config_free(cfg);
		return -1;
	}
	return 0;
}

void config_cache_dir(const struct gaol_config *cfg, char *out, size_t len)
{
	snprintf(out, len, "%s/cache", cfg->state_dir);
}

void config_free(struct gaol_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->n_env_allow; i++) {
		free(cfg->env_allow[i]);
		cfg->env_allow[i] = NULL;
	}
	cfg->n_env_allow = 0;
	for (i = 0; i < cfg->n_root_extra; i++) {
		free(cfg->root_extra[i]);
		cfg->root_extra[i] = NULL;
	}
	cfg->n_root_extra = 0;
}
