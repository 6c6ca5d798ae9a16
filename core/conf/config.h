/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config: the service's configuration, read once from the environment at
 * start-up (docs/api.md, "Configuration"), on the ground floor because every
 * floor above reads it.  One table, config_table[], holds each variable's
 * name, default, bounds, reader and the line docs/api.md shows for it (a unit
 * test holds the two equal).  A bad value is a start-up error naming the
 * variable.  Per-language defaults live in lang.json, not here; the
 * per-language overrides (RUN_TMP_SIZE_<SLUG>, RUN_MEM_MAX_<SLUG>,
 * RUN_OVERLAY_PATHS_<SLUG>) are applied by lang.c when the manifests are
 * loaded.
 */
#ifndef GAOL_CONFIG_H
#define GAOL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define GAOL_ENV_ALLOW_MAX 32
#define EVAL_PARALLEL_MAX 16
#define GAOL_ROOT_EXTRA_MAX 16
#define GAOL_INSTANCE_MAX 32

/* A language's start-up shells: a cold page cache on a slow disk made
 * rustc's `make -n` (rustc names its library directory) read 90 MB for 18 s
 * on one start. */
#define LANG_START_TIMEOUT_MS 30000
#define EVAL_COMPILE_TIMEOUT_MS 10000   /* RUN_EVAL_COMPILE_TIMEOUT's default */

/* RUN_JUDGE0_LIMITS: Judge0's defaults and maxima, keyed and in the units
 * of its GET /config_info (seconds, KB, counts), Judge0's own values unless
 * the operator sets them; judge0/ lowers each maximum to gaol's ceilings. */
enum {
	J0_CPU_TIME_LIMIT, J0_MAX_CPU_TIME_LIMIT, J0_CPU_EXTRA_TIME,
	J0_MAX_CPU_EXTRA_TIME, J0_WALL_TIME_LIMIT, J0_MAX_WALL_TIME_LIMIT,
	J0_MEMORY_LIMIT, J0_MAX_MEMORY_LIMIT, J0_STACK_LIMIT, J0_MAX_STACK_LIMIT,
	J0_MAX_PROCESSES_AND_OR_THREADS, J0_MAX_MAX_PROCESSES_AND_OR_THREADS,
	J0_MAX_FILE_SIZE, J0_MAX_MAX_FILE_SIZE, J0_NUMBER_OF_RUNS,
	J0_MAX_NUMBER_OF_RUNS, J0_MAX_EXTRACT_SIZE, J0_LIMITS
};
extern const char *const config_judge0_keys[J0_LIMITS];

struct gaol_config {
	unsigned concurrency;           /* RUN_CONCURRENCY: slots, nginx limit_conn */
	size_t input_max;               /* RUN_INPUT_MAX: request body bytes */
	size_t output_max;              /* RUN_OUTPUT_MAX: bytes per stream, 0 = no cap */
	long timeout_max_ms;            /* RUN_TIMEOUT_MAX */
	long timeout_default_ms;        /* 30 s, the Codebattle default */
	bool debug;                     /* DEBUG */
	bool allow_shutdown;            /* ALLOW_SHUTDOWN */
	bool netns_fresh;               /* RUN_NETNS_FRESH: never reuse a netns */
	bool unpinned;                  /* RUN_UNPINNED: workers not on a CPU each */
	bool favor_dynmods;             /* RUN_CGROUP_FAVORDYNMODS (v1 hosts) */
	int keep;                       /* gaol-run's slot kept between starts
					 * (slot/keep.h): KEEP_*; never from
					 * the environment */
	uid_t uid_base;                 /* RUN_UID_BASE: slot i runs as uid_base + i */
	char *env_allow[GAOL_ENV_ALLOW_MAX]; /* RUN_ENV_ALLOW, beyond the baseline */
	size_t n_env_allow;
	char *root_extra[GAOL_ROOT_EXTRA_MAX]; /* RUN_ROOT_EXTRA: more read-only binds */
	size_t n_root_extra;
	unsigned long long memory_max;  /* RUN_MEMORY_MAX: RLIMIT_AS bytes, 0 = off */
	unsigned long long tmp_size;    /* RUN_SANDBOX_TMP_SIZE, 0 = lang default */
	unsigned long long mem_max;     /* RUN_SANDBOX_MEM_MAX, 0 = lang default */
	unsigned long long eval_memory_max; /* RUN_MEMORY_LIMIT_MAX: ceiling of
					     * memory_limit_mb, bytes; 0 = each
					     * language's own memory limit */
	long eval_time_max_ms;          /* RUN_TIME_LIMIT_MAX: ceiling of time_limit_ms */
	long eval_compile_ms;           /* RUN_EVAL_COMPILE_TIMEOUT: a build's wall clock */
	unsigned eval_parallel;         /* RUN_EVAL_PARALLEL: test cases at once */
	unsigned eval_tests_max;        /* RUN_EVAL_TESTS_MAX: test cases a request
					 * may have */
	unsigned long long eval_cache_max; /* RUN_EVAL_CACHE_MAX: compile cache bytes */
	unsigned long long eval_build_max; /* RUN_EVAL_BUILD_MAX: data bytes a build
					    * may leave (<= eval_cache_max) */
	unsigned long long eval_build_files; /* RUN_EVAL_BUILD_FILES: entries */
	bool eval_hide_cached;          /* RUN_EVAL_HIDE_CACHED */
	bool lang_cache;                /* GAOL_LANG_CACHE: the start-up shells'
					 * answers reused (lang/shellcache.c) */
	size_t answer_max;              /* RUN_ANSWER_MAX: an /evaluate answer's
					 * actual and error output, bytes */
	long request_budget_ms;         /* RUN_REQUEST_BUDGET: one request's wall clock */
	long lang_shell_timeout_ms;     /* RUN_LANG_START_TIMEOUT: one start-up
					 * shell (a probe, a `make -n`); 0 =
					 * LANG_START_TIMEOUT_MS */
	unsigned long long pool_memory_max; /* RUN_POOL_MEMORY_MAX: master and
					     * workers together, bytes; 0 = off */
	size_t eval_input_max;          /* RUN_EVAL_INPUT_MAX: /evaluate body bytes */
	size_t eval_output_max;         /* RUN_EVAL_OUTPUT_MAX: a test's stdout (or
					 * output file), 0 = no cap */
	size_t eval_stderr_max;         /* RUN_EVAL_STDERR_MAX: a test's stderr kept;
					 * the rest is read and dropped, never OLE */
	/* POST /execute (docs/api.md, "POST /execute"). */
	unsigned files_max;             /* RUN_FILES_MAX: files of one request */
	size_t execute_output_max;      /* RUN_EXECUTE_OUTPUT_MAX: per stream */
	long execute_compile_max_ms;    /* RUN_EXECUTE_COMPILE_TIMEOUT_MAX */
	long execute_run_max_ms;        /* RUN_EXECUTE_RUN_TIMEOUT_MAX */
	char langs_dir[4096];           /* GAOL_LANGS_DIR (default: next to binary) */
	char instance[GAOL_INSTANCE_MAX + 1]; /* GAOL_INSTANCE: cgroup parent, state dir */
	char state_dir[4096];           /* GAOL_STATE_DIR (default /run/<instance>) */
	/* Judge0's asynchronous submissions (docs/api.md, "Judge0's queue"). */
	char queue_dir[4096];           /* RUN_QUEUE_DIR (default <state_dir>/queue) */
	size_t queue_max;               /* RUN_QUEUE_MAX: jobs waiting or running */
	unsigned queue_slots;           /* RUN_QUEUE_SLOTS: workers serving the queue */
	long result_ttl_ms;             /* RUN_RESULT_TTL */
	unsigned long long result_max;  /* RUN_RESULT_MAX: bytes of results kept */
	unsigned batch_max;             /* RUN_BATCH_MAX: submissions of a batch */
	char callback_allow[1024];      /* RUN_CALLBACK_ALLOW: host[:port],... */
	double judge0[J0_LIMITS];       /* RUN_JUDGE0_LIMITS */
	unsigned host_id;               /* RUN_HOST_ID: named in every token */
};

/* Slot i's checkers and interactors run as a UID of a second range, past
 * the pool's slots (RUN_UID_BASE + i) and the self-check's (RUN_UID_BASE +
 * RUN_CONCURRENCY): never the solution's, so that what the kernel counts
 * per UID (RLIMIT_NPROC) of a forking solution cannot stop them. */
#define CONFIG_AIDE_UID(cfg, i) ((cfg)->uid_base + (cfg)->concurrency + 1 + (i))
/* The slot index slot_init is given for slot i's aides (uid_base + index). */
#define CONFIG_AIDE_INDEX(cfg, i) ((cfg)->concurrency + 1 + (i))

/* One variable: its reader is called once with the environment's value
 * (NULL when unset), in the table's order, so a row may depend on the rows
 * above it (RUN_UID_BASE on RUN_CONCURRENCY).  def is the default the reader
 * parses when the variable is unset (NULL: the reader computes it); min and
 * max bound the value in the reader's unit (a count, bytes, milliseconds);
 * the value lands at offset off of struct gaol_config.  shown, range and doc
 * are the row of docs/api.md's table: default (NULL: def), range, meaning. */
struct config_var {
	const char *name;
	int (*read)(const struct config_var *var, const char *v,
		    struct gaol_config *cfg, char *err, size_t errlen);
	const char *def;
	unsigned long long min, max;
	size_t off;
	const char *shown, *range, *doc;
};

/* The readers of Judge0's rows (conf/judge0.c): RUN_CALLBACK_ALLOW and
 * RUN_JUDGE0_LIMITS. */
int config_read_callback_allow(const struct config_var *var, const char *v,
			       struct gaol_config *cfg, char *err, size_t errlen);
int config_read_judge0_limits(const struct config_var *var, const char *v,
			      struct gaol_config *cfg, char *err, size_t errlen);

extern const struct config_var config_table[];
extern const size_t config_table_len;

/* docs/api.md's table row of var, "| `NAME` | default | range | meaning |",
 * into out (len bytes). */
void config_doc_row(const struct config_var *var, char *out, size_t len);

/* Reads the environment into *cfg.  On a bad value returns -1 and writes a
 * message naming the variable into err. */
int config_from_env(struct gaol_config *cfg, char *err, size_t errlen);
void config_free(struct gaol_config *cfg);
/* The compile cache's directory, <state_dir>/cache (judge/cache.h), into
 * out (len bytes). */
void config_cache_dir(const struct gaol_config *cfg, char *out, size_t len);

#include "util/size.h"          /* parse_size, for config's readers */

#endif
