/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config_from_env and parse_size: the defaults of docs/api.md
 * ("Configuration"), and every
 * bad value refused with the variable's name in the reason.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/config.h"
#include "suites.h"

static const char *const variables[] = {
	"RUN_CONCURRENCY", "RUN_INPUT_MAX", "RUN_OUTPUT_MAX", "RUN_TIMEOUT_MAX",
	"DEBUG", "ALLOW_SHUTDOWN", "RUN_UID_BASE", "RUN_ENV_ALLOW",
	"RUN_MEMORY_MAX", "RUN_SANDBOX_TMP_SIZE", "RUN_SANDBOX_MEM_MAX",
	"GAOL_LANGS_DIR", "GAOL_STATE_DIR", "RUN_ROOT_EXTRA", "RUN_EVAL_PARALLEL", "RUN_EVAL_TESTS_MAX",
	"RUN_EVAL_CACHE_MAX", "GAOL_INSTANCE", "RUN_TIME_LIMIT_MAX", "RUN_MEMORY_LIMIT_MAX",
	"RUN_EVAL_BUILD_MAX", "RUN_EVAL_BUILD_FILES",
	"RUN_EVAL_HIDE_CACHED",
	"RUN_ANSWER_MAX", "RUN_REQUEST_BUDGET", "RUN_POOL_MEMORY_MAX",
	"RUN_LANG_START_TIMEOUT", "RUN_EVAL_INPUT_MAX", "RUN_EVAL_OUTPUT_MAX",
	"RUN_EVAL_STDERR_MAX", "RUN_EVAL_COMPILE_TIMEOUT", "RUN_UNPINNED",
	"RUN_NETNS_FRESH", "RUN_CGROUP_FAVORDYNMODS", "GAOL_LANG_CACHE",
	"RUN_FILES_MAX", "RUN_EXECUTE_OUTPUT_MAX", "RUN_EXECUTE_COMPILE_TIMEOUT_MAX",
	"RUN_EXECUTE_RUN_TIMEOUT_MAX", "RUN_QUEUE_DIR", "RUN_QUEUE_MAX", "RUN_QUEUE_SLOTS",
	"RUN_RESULT_TTL", "RUN_RESULT_MAX", "RUN_BATCH_MAX", "RUN_CALLBACK_ALLOW", "RUN_HOST_ID",
	"RUN_JUDGE0_LIMITS",
};

static struct gaol_config cfg;
static char err[512];
static char langs[] = "/tmp/gaol-unit-langs-XXXXXX";

static void
setup(void)
{
	size_t i;

	for (i = 0; i < sizeof(variables) / sizeof(variables[0]); i++)
		unsetenv(variables[i]);
	ck_assert_ptr_nonnull(mkdtemp(langs));
	setenv("GAOL_LANGS_DIR", langs, 1);
}

static void
teardown(void)
{
	config_free(&cfg);
	rmdir(langs);
	strcpy(langs, "/tmp/gaol-unit-langs-XXXXXX");
}

static void
loads(void)
{
	config_free(&cfg);
	err[0] = '\0';
	ck_assert_msg(config_from_env(&cfg, err, sizeof(err)) == 0,
		      "refused: %s", err);
}

/* name=value is refused, and the reason names the variable and value. */
static void
refuses(const char *name, const char *value)
{
	char quoted[256];

	setenv(name, value, 1);
	err[0] = '\0';
	ck_assert_msg(config_from_env(&cfg, err, sizeof(err)) == -1,
		      "%s=\"%s\" accepted", name, value);
	ck_assert_msg(strstr(err, name) != NULL, "\"%s\" does not name %s",
		      err, name);
	snprintf(quoted, sizeof(quoted), "\"%s\"", value);
	ck_assert_msg(strstr(err, quoted) != NULL, "\"%s\" does not quote %s",
		      err, quoted);
	ck_assert_uint_eq(cfg.n_env_allow, 0);
	unsetenv(name);
}

/* Issue 11: what one build may leave stays within the cache's cap. */
START_TEST(config_build_limits_fit_the_cache)
{
	loads();
	ck_assert_uint_eq(cfg.eval_build_max, 64ULL << 20);
	ck_assert_uint_eq(cfg.eval_build_files, 10000);
	ck_assert(!cfg.eval_hide_cached);
	setenv("RUN_EVAL_CACHE_MAX", "16m", 1);
	loads();
	ck_assert_uint_eq(cfg.eval_build_max, 16ULL << 20);
	refuses("RUN_EVAL_BUILD_MAX", "17m");
	setenv("RUN_EVAL_BUILD_MAX", "1m", 1);
	setenv("RUN_EVAL_BUILD_FILES", "50", 1);
	setenv("RUN_EVAL_HIDE_CACHED", "1", 1);
	loads();
	ck_assert_uint_eq(cfg.eval_build_max, 1ULL << 20);
	ck_assert_uint_eq(cfg.eval_build_files, 50);
	ck_assert(cfg.eval_hide_cached);
	unsetenv("RUN_EVAL_BUILD_MAX");
	refuses("RUN_EVAL_BUILD_FILES", "0");
	refuses("RUN_EVAL_HIDE_CACHED", "maybe");
}
END_TEST

START_TEST(config_defaults)
{
	char real[PATH_MAX];

	loads();
	ck_assert_uint_eq(cfg.concurrency, 10);
	ck_assert_uint_eq(cfg.input_max, 1048576);
	ck_assert_uint_eq(cfg.output_max, 1048576);
	ck_assert_int_eq(cfg.timeout_max_ms, 60000);
	ck_assert_int_eq(cfg.timeout_default_ms, 30000);
	ck_assert(!cfg.debug);
	ck_assert(!cfg.allow_shutdown);
	ck_assert(!cfg.unpinned);
	ck_assert_uint_eq(cfg.uid_base, 10001);
	ck_assert_uint_eq(cfg.n_env_allow, 0);
	ck_assert_uint_eq(cfg.memory_max, 0);
	ck_assert_uint_eq(cfg.tmp_size, 0);
	ck_assert_uint_eq(cfg.mem_max, 0);
	ck_assert_ptr_nonnull(realpath(langs, real));
	ck_assert_str_eq(cfg.langs_dir, real);
	ck_assert_str_eq(cfg.state_dir, "/run/gaol");
	ck_assert_str_eq(cfg.instance, "gaol");
}
END_TEST

START_TEST(config_instance_names_the_default_state_dir)
{
	setenv("GAOL_INSTANCE", "gaol-b_2", 1);
	loads();
	ck_assert_str_eq(cfg.instance, "gaol-b_2");
	ck_assert_str_eq(cfg.state_dir, "/run/gaol-b_2");
	setenv("GAOL_STATE_DIR", "/var/lib/elsewhere", 1);
	loads();
	ck_assert_str_eq(cfg.instance, "gaol-b_2");
	ck_assert_str_eq(cfg.state_dir, "/var/lib/elsewhere");
}
END_TEST

START_TEST(config_rejects_an_instance_that_is_not_one_name)
{
	refuses("GAOL_INSTANCE", "a/b");
	refuses("GAOL_INSTANCE", "..");
	refuses("GAOL_INSTANCE", ".hidden");
	refuses("GAOL_INSTANCE", "-x");
	refuses("GAOL_INSTANCE", "two words");
	refuses("GAOL_INSTANCE", "abcdefghijklmnopqrstuvwxyz0123456");
}
END_TEST

START_TEST(config_reads_every_variable)
{
	setenv("RUN_CONCURRENCY", "4", 1);
	setenv("RUN_INPUT_MAX", "2m", 1);
	setenv("RUN_OUTPUT_MAX", "65536", 1);
	setenv("RUN_TIMEOUT_MAX", "2m", 1);
	setenv("DEBUG", "1", 1);
	setenv("ALLOW_SHUTDOWN", "true", 1);
	setenv("RUN_UID_BASE", "20000", 1);
	setenv("RUN_ENV_ALLOW", "JAVA_OPTS,GOMAXPROCS", 1);
	setenv("RUN_MEMORY_MAX", "4g", 1);
	setenv("RUN_SANDBOX_TMP_SIZE", "128m", 1);
	setenv("RUN_SANDBOX_MEM_MAX", "1G", 1);
	setenv("GAOL_STATE_DIR", "/var/lib/gaol", 1);
	loads();
	ck_assert_uint_eq(cfg.concurrency, 4);
	ck_assert_uint_eq(cfg.input_max, 2 << 20);
	ck_assert_uint_eq(cfg.output_max, 65536);
	ck_assert_int_eq(cfg.timeout_max_ms, 120000);
	ck_assert_int_eq(cfg.timeout_default_ms, 30000);
	ck_assert(cfg.debug);
	ck_assert(cfg.allow_shutdown);
	ck_assert_uint_eq(cfg.uid_base, 20000);
	ck_assert_uint_eq(cfg.n_env_allow, 2);
	ck_assert_str_eq(cfg.env_allow[0], "JAVA_OPTS");
	ck_assert_str_eq(cfg.env_allow[1], "GOMAXPROCS");
	ck_assert_uint_eq(cfg.memory_max, 4ULL << 30);
	ck_assert_uint_eq(cfg.tmp_size, 128 << 20);
	ck_assert_uint_eq(cfg.mem_max, 1 << 30);
	ck_assert_str_eq(cfg.state_dir, "/var/lib/gaol");
}
END_TEST

START_TEST(config_empty_value_means_unset)
{
	setenv("RUN_CONCURRENCY", "", 1);
	setenv("RUN_TIMEOUT_MAX", "", 1);
	setenv("ALLOW_SHUTDOWN", "", 1);
	loads();
	ck_assert_uint_eq(cfg.concurrency, 10);
	ck_assert_int_eq(cfg.timeout_max_ms, 60000);
	ck_assert(!cfg.allow_shutdown);
}
END_TEST

START_TEST(config_concurrency_from_1_to_256)
{
	setenv("RUN_CONCURRENCY", "1", 1);
	loads();
	ck_assert_uint_eq(cfg.concurrency, 1);
	setenv("RUN_CONCURRENCY", "256", 1);
	loads();
	ck_assert_uint_eq(cfg.concurrency, 256);
}
END_TEST

START_TEST(config_rejects_bad_concurrency)
{
	refuses("RUN_CONCURRENCY", "0");
	refuses("RUN_CONCURRENCY", "257");
	refuses("RUN_CONCURRENCY", "-1");
	refuses("RUN_CONCURRENCY", "ten");
	refuses("RUN_CONCURRENCY", "10 ");
	refuses("RUN_CONCURRENCY", "0x10");
	refuses("RUN_CONCURRENCY", "99999999999999999999999");
}
END_TEST

START_TEST(config_rejects_bad_input_max)
{
	refuses("RUN_INPUT_MAX", "0");
	refuses("RUN_INPUT_MAX", "1x");
	refuses("RUN_INPUT_MAX", "-5");
}
END_TEST

START_TEST(config_output_max_zero_is_unlimited)
{
	setenv("RUN_OUTPUT_MAX", "0", 1);
	loads();
	ck_assert_uint_eq(cfg.output_max, 0);
}
END_TEST

START_TEST(config_rejects_bad_output_max)
{
	refuses("RUN_OUTPUT_MAX", "lots");
	refuses("RUN_OUTPUT_MAX", "1.5m");
}
END_TEST

START_TEST(config_rejects_bad_timeout_max)
{
	refuses("RUN_TIMEOUT_MAX", "60");
	refuses("RUN_TIMEOUT_MAX", "0s");
	refuses("RUN_TIMEOUT_MAX", "1h");
	refuses("RUN_TIMEOUT_MAX", "-1s");
	refuses("RUN_TIMEOUT_MAX", "2147483648ms");
}
END_TEST

START_TEST(config_timeout_default_never_exceeds_the_max)
{
	setenv("RUN_TIMEOUT_MAX", "10s", 1);
	loads();
	ck_assert_int_eq(cfg.timeout_max_ms, 10000);
	ck_assert_int_eq(cfg.timeout_default_ms, 10000);
	setenv("RUN_TIMEOUT_MAX", "30s", 1);
	loads();
	ck_assert_int_eq(cfg.timeout_default_ms, 30000);
}
END_TEST

/* Issue 11, finding 3: the operator's ceilings on what /evaluate asks for. */
START_TEST(config_eval_ceilings_default_and_bounds)
{
	loads();
	ck_assert_int_eq(cfg.eval_time_max_ms, 10000);
	ck_assert_uint_eq(cfg.eval_memory_max, 0);      /* the language's own */
	setenv("RUN_TIME_LIMIT_MAX", "30s", 1);
	setenv("RUN_MEMORY_LIMIT_MAX", "2g", 1);
	loads();
	ck_assert_int_eq(cfg.eval_time_max_ms, 30000);
	ck_assert_uint_eq(cfg.eval_memory_max, 2ULL << 30);
	refuses("RUN_TIME_LIMIT_MAX", "1s");            /* below the default 2000 */
	refuses("RUN_TIME_LIMIT_MAX", "61s");
	refuses("RUN_TIME_LIMIT_MAX", "10");
	refuses("RUN_MEMORY_LIMIT_MAX", "4m");
	refuses("RUN_MEMORY_LIMIT_MAX", "17g");
	refuses("RUN_MEMORY_LIMIT_MAX", "lots");
}
END_TEST

START_TEST(config_debug_follows_codebattle)
{
	static const struct {
		const char *value;
		bool debug;
	} cases[] = {
		{ "", true }, { "1", true }, { "true", true }, { "TRUE", true },
		{ "0", false }, { "false", false }, { "False", false },
	};
	size_t i;

	loads();
	ck_assert(!cfg.debug);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("DEBUG", cases[i].value, 1);
		loads();
		ck_assert_msg(cfg.debug == cases[i].debug, "DEBUG=\"%s\"",
			      cases[i].value);
	}
}
END_TEST

START_TEST(config_rejects_bad_debug)
{
	refuses("DEBUG", "yes");
	refuses("DEBUG", "2");
}
END_TEST

START_TEST(config_allow_shutdown_takes_1_or_true)
{
	setenv("ALLOW_SHUTDOWN", "1", 1);
	loads();
	ck_assert(cfg.allow_shutdown);
	setenv("ALLOW_SHUTDOWN", "true", 1);
	loads();
	ck_assert(cfg.allow_shutdown);
	setenv("ALLOW_SHUTDOWN", "0", 1);
	loads();
	ck_assert(!cfg.allow_shutdown);
	setenv("ALLOW_SHUTDOWN", "false", 1);
	loads();
	ck_assert(!cfg.allow_shutdown);
}
END_TEST

START_TEST(config_rejects_bad_allow_shutdown)
{
	refuses("ALLOW_SHUTDOWN", "on");
}
END_TEST

/* RUN_UNPINNED: a flag like RUN_NETNS_FRESH, set and empty meaning on. */
START_TEST(config_unpinned_is_a_flag)
{
	static const struct { const char *value; bool on; } cases[] = {
		{ "1", true }, { "true", true }, { "", true }, { "0", false }, { "false", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("RUN_UNPINNED", cases[i].value, 1);
		loads();
		ck_assert_msg(cfg.unpinned == cases[i].on, "RUN_UNPINNED=\"%s\"", cases[i].value);
	}
	refuses("RUN_UNPINNED", "yes");
}
END_TEST

START_TEST(config_uid_base_keeps_every_slot_below_nobody)
{
	/* slots 65512..65521, the check's 65522, their checkers' 65523..65533 */
	setenv("RUN_UID_BASE", "65512", 1);
	loads();
	ck_assert_uint_eq(cfg.uid_base, 65512);
	refuses("RUN_UID_BASE", "65513");
	setenv("RUN_CONCURRENCY", "256", 1);
	refuses("RUN_UID_BASE", "65300");
}
END_TEST

START_TEST(config_rejects_bad_uid_base)
{
	refuses("RUN_UID_BASE", "0");
	refuses("RUN_UID_BASE", "-1");
	refuses("RUN_UID_BASE", "abc");
	refuses("RUN_UID_BASE", "4294967296");
	refuses("RUN_UID_BASE", "99999999999999999999999");
}
END_TEST

START_TEST(config_env_allow_trims_and_dedups)
{
	setenv("RUN_ENV_ALLOW", " FOO , BAR,,FOO,_x1,", 1);
	loads();
	ck_assert_uint_eq(cfg.n_env_allow, 3);
	ck_assert_str_eq(cfg.env_allow[0], "FOO");
	ck_assert_str_eq(cfg.env_allow[1], "BAR");
	ck_assert_str_eq(cfg.env_allow[2], "_x1");
}
END_TEST

START_TEST(config_root_extra_takes_existing_directories)
{
	setenv("RUN_ROOT_EXTRA", "/usr/share,/var/lib", 1);
	loads();
	ck_assert_uint_eq(cfg.n_root_extra, 2);
	ck_assert_str_eq(cfg.root_extra[0], "/usr/share");
	ck_assert_str_eq(cfg.root_extra[1], "/var/lib");
}
END_TEST

START_TEST(config_rejects_bad_root_extra)
{
	refuses("RUN_ROOT_EXTRA", "usr/share");
	refuses("RUN_ROOT_EXTRA", "/");
	refuses("RUN_ROOT_EXTRA", "/usr/../root");
	refuses("RUN_ROOT_EXTRA", "/usr/share/");
	refuses("RUN_ROOT_EXTRA", "/no/such/gaol/dir");
	refuses("RUN_ROOT_EXTRA", "/etc/passwd");
}
END_TEST

/* Judge0's defaults and maxima (issue 32): Judge0's own unless set, in
 * /config_info's keys and units; a default above its maximum, an unknown key
 * or a value that is not a number refuses the start. */
START_TEST(config_judge0_limits_are_judge0s_unless_set)
{
	loads();
	ck_assert(cfg.judge0[J0_CPU_TIME_LIMIT] == 5 && cfg.judge0[J0_MAX_CPU_TIME_LIMIT] == 15);
	ck_assert(cfg.judge0[J0_MEMORY_LIMIT] == 128000 && cfg.judge0[J0_MAX_EXTRACT_SIZE] == 10240);
	ck_assert(cfg.judge0[J0_CPU_EXTRA_TIME] == 1 && cfg.judge0[J0_MAX_NUMBER_OF_RUNS] == 20);
	setenv("RUN_JUDGE0_LIMITS", " cpu_time_limit=0.5, max_memory_limit=256000,cpu_extra_time=0", 1);
	loads();
	ck_assert(cfg.judge0[J0_CPU_TIME_LIMIT] == 0.5);
	ck_assert(cfg.judge0[J0_MAX_MEMORY_LIMIT] == 256000);
	ck_assert(cfg.judge0[J0_CPU_EXTRA_TIME] == 0);
	ck_assert(cfg.judge0[J0_MAX_CPU_TIME_LIMIT] == 15);
	refuses("RUN_JUDGE0_LIMITS", "cpu_time_limit=16");
	ck_assert_ptr_nonnull(strstr(err, "cpu_time_limit=16 is above max_cpu_time_limit=15"));
	refuses("RUN_JUDGE0_LIMITS", "cpu_time_limit=3,max_cpu_time_limit=2");
	/* Judge0's default (5 s) under a lower maximum is lowered to it. */
	setenv("RUN_JUDGE0_LIMITS", "max_cpu_time_limit=2", 1);
	loads();
	ck_assert(cfg.judge0[J0_CPU_TIME_LIMIT] == 2);
	refuses("RUN_JUDGE0_LIMITS", "memory_limit=1.5");
	refuses("RUN_JUDGE0_LIMITS", "memory_limit=0");
	refuses("RUN_JUDGE0_LIMITS", "wall_time_limit=-1");
	refuses("RUN_JUDGE0_LIMITS", "wall_time_limit=nan");
	refuses("RUN_JUDGE0_LIMITS", "wall_time_limit=");
	refuses("RUN_JUDGE0_LIMITS", "queue_size=3");
	ck_assert_ptr_nonnull(strstr(err, "queue_size=3"));
	refuses("RUN_JUDGE0_LIMITS", "cpu_time_limit");
	refuses("RUN_JUDGE0_LIMITS", "cpu_time_limit=1,,");
	unsetenv("RUN_JUDGE0_LIMITS");
}
END_TEST

START_TEST(config_eval_defaults_and_bounds)
{
	loads();
	ck_assert_uint_eq(cfg.eval_parallel, 2);
	ck_assert_uint_eq(cfg.eval_cache_max, 256ULL << 20);
	/* CompiCode's executor's limits. */
	ck_assert_uint_eq(cfg.eval_input_max, 16u << 20);
	ck_assert_uint_eq(cfg.eval_output_max, 8u << 20);
	ck_assert_uint_eq(cfg.eval_stderr_max, 64u << 10);
	refuses("RUN_EVAL_INPUT_MAX", "0");
	unsetenv("RUN_EVAL_INPUT_MAX");
	refuses("RUN_EVAL_OUTPUT_MAX", "big");
	unsetenv("RUN_EVAL_OUTPUT_MAX");
	refuses("RUN_EVAL_STDERR_MAX", "-1");
	unsetenv("RUN_EVAL_STDERR_MAX");
	refuses("RUN_EVAL_PARALLEL", "0");
	refuses("RUN_EVAL_PARALLEL", "17");
	unsetenv("RUN_EVAL_PARALLEL");
	/* The test-count cap is the operator's (issue 29). */
	loads();
	ck_assert_uint_eq(cfg.eval_tests_max, 1000);
	refuses("RUN_EVAL_TESTS_MAX", "0");
	refuses("RUN_EVAL_TESTS_MAX", "100001");
	setenv("RUN_EVAL_TESTS_MAX", "100000", 1);
	loads();
	ck_assert_uint_eq(cfg.eval_tests_max, 100000);
	unsetenv("RUN_EVAL_TESTS_MAX");
	refuses("RUN_EVAL_CACHE_MAX", "lots");
}
END_TEST

START_TEST(config_rejects_bad_env_allow)
{
	refuses("RUN_ENV_ALLOW", "1ABC");
	refuses("RUN_ENV_ALLOW", "OK,A-B");
	refuses("RUN_ENV_ALLOW", "A=B");
	refuses("RUN_ENV_ALLOW", "A B");
	refuses("RUN_ENV_ALLOW", "\xc3\xa9T\xc3\xa9");
}
END_TEST

START_TEST(config_rejects_too_many_env_allow)
{
	char list[GAOL_ENV_ALLOW_MAX * 8 + 16];
	size_t i, n = 0;

	for (i = 0; i <= GAOL_ENV_ALLOW_MAX; i++)
		n += (size_t)sprintf(list + n, "%sV%zu", i ? "," : "", i);
	refuses("RUN_ENV_ALLOW", list);
}
END_TEST

START_TEST(config_rejects_bad_sizes)
{
	refuses("RUN_MEMORY_MAX", "1t");
	refuses("RUN_SANDBOX_TMP_SIZE", "big");
	refuses("RUN_SANDBOX_MEM_MAX", "512mb");
}
END_TEST

START_TEST(config_zero_sizes_mean_off)
{
	setenv("RUN_MEMORY_MAX", "0", 1);
	setenv("RUN_SANDBOX_TMP_SIZE", "0", 1);
	setenv("RUN_SANDBOX_MEM_MAX", "0", 1);
	loads();
	ck_assert_uint_eq(cfg.memory_max, 0);
	ck_assert_uint_eq(cfg.tmp_size, 0);
	ck_assert_uint_eq(cfg.mem_max, 0);
}
END_TEST

START_TEST(config_rejects_a_missing_langs_dir)
{
	refuses("GAOL_LANGS_DIR", "/nonexistent/gaol/langs");
	refuses("GAOL_LANGS_DIR", "/etc/passwd");
}
END_TEST

START_TEST(config_finds_langs_beside_the_executable)
{
	char exe[PATH_MAX], want[PATH_MAX + 16], real[PATH_MAX];
	ssize_t n;

	unsetenv("GAOL_LANGS_DIR");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(want, sizeof(want), "%s/../langs", exe);
	if (realpath(want, real) == NULL) {
		/* Built outside the tree: the installed locations or an error
		 * naming the variable. */
		if (config_from_env(&cfg, err, sizeof(err)) == -1)
			ck_assert_ptr_nonnull(strstr(err, "GAOL_LANGS_DIR"));
		return;
	}
	loads();
	ck_assert_str_eq(cfg.langs_dir, real);
}
END_TEST

START_TEST(config_rejects_a_relative_state_dir)
{
	refuses("GAOL_STATE_DIR", "run/gaol");
}
END_TEST

static unsigned long long
size_of(const char *s)
{
	unsigned long long n = 12345;

	ck_assert_msg(parse_size(s, &n) == 0, "\"%s\" refused", s);
	return n;
}

static void
not_a_size(const char *s)
{
	unsigned long long n = 12345;

	ck_assert_msg(parse_size(s, &n) == -1, "\"%s\" accepted", s);
	ck_assert_uint_eq(n, 12345);
}

START_TEST(size_takes_plain_bytes)
{
	ck_assert_uint_eq(size_of("0"), 0);
	ck_assert_uint_eq(size_of("65536"), 65536);
	ck_assert_uint_eq(size_of("18446744073709551615"), ULLONG_MAX);
}
END_TEST

START_TEST(size_takes_binary_suffixes_in_any_case)
{
	ck_assert_uint_eq(size_of("64k"), 64 << 10);
	ck_assert_uint_eq(size_of("64K"), 64 << 10);
	ck_assert_uint_eq(size_of("512m"), 512 << 20);
	ck_assert_uint_eq(size_of("512M"), 512 << 20);
	ck_assert_uint_eq(size_of("1g"), 1 << 30);
	ck_assert_uint_eq(size_of("3G"), 3ULL << 30);
}
END_TEST

START_TEST(size_rejects_what_is_not_a_size)
{
	not_a_size("");
	not_a_size("k");
	not_a_size("1.5g");
	not_a_size("1kb");
	not_a_size("1t");
	not_a_size(" 1k");
	not_a_size("1 k");
	not_a_size("1k ");
	not_a_size("-1");
	not_a_size("+1");
	not_a_size(NULL);
}
END_TEST

START_TEST(size_rejects_overflow)
{
	not_a_size("18446744073709551616");
	not_a_size("17179869184g");
	not_a_size("18014398509481984k");
}
END_TEST

/* Issue 11: what one request may cost, and the pool's own memory. */
START_TEST(config_request_bounds_default_and_bounds)
{
	loads();
	ck_assert_uint_eq(cfg.answer_max, 16u << 20);
	ck_assert_int_eq(cfg.request_budget_ms, 120000);
	ck_assert_uint_eq(cfg.pool_memory_max, (256ULL << 20) * 10);
	setenv("RUN_CONCURRENCY", "4", 1);
	setenv("RUN_ANSWER_MAX", "1m", 1);
	setenv("RUN_REQUEST_BUDGET", "90s", 1);
	loads();
	ck_assert_uint_eq(cfg.answer_max, 1u << 20);
	ck_assert_int_eq(cfg.request_budget_ms, 90000);
	ck_assert_uint_eq(cfg.pool_memory_max, (256ULL << 20) * 4);
	setenv("RUN_POOL_MEMORY_MAX", "0", 1);
	loads();
	ck_assert_uint_eq(cfg.pool_memory_max, 0);
	refuses("RUN_POOL_MEMORY_MAX", "1m");
	refuses("RUN_ANSWER_MAX", "1k");
	refuses("RUN_ANSWER_MAX", "lots");
	refuses("RUN_REQUEST_BUDGET", "500ms");
	refuses("RUN_REQUEST_BUDGET", "forever");
}
END_TEST

/* The bounded duration variables: unset, the default; each accepted value
 * read in milliseconds; each refused value refused (past a bound, or a
 * number without a unit). */
static const struct duration_case {
	const char *name;
	size_t field;                   /* offsetof(struct gaol_config, ...) */
	long default_ms;
	struct { const char *value; long ms; } accepted[3];
	const char *refused[3];
} durations[] = {
	{ "RUN_LANG_START_TIMEOUT", offsetof(struct gaol_config, lang_shell_timeout_ms),
	  LANG_START_TIMEOUT_MS, { { "2m", 120000 } }, { "50ms", "11m", "30" } },
	{ "RUN_EVAL_COMPILE_TIMEOUT", offsetof(struct gaol_config, eval_compile_ms),
	  EVAL_COMPILE_TIMEOUT_MS, { { "45s", 45000 }, { "1s", 1000 }, { "10m", 600000 } },
	  { "999ms", "11m", "10" } },
};

START_TEST(config_duration_default_and_bounds)
{
	const struct duration_case *d = &durations[_i];
	const long *ms = (const long *)((const char *)&cfg + d->field);
	size_t k;

	loads();
	ck_assert_int_eq(*ms, d->default_ms);
	for (k = 0; k < 3 && d->accepted[k].value; k++) {
		setenv(d->name, d->accepted[k].value, 1);
		loads();
		ck_assert_int_eq(*ms, d->accepted[k].ms);
	}
	for (k = 0; k < 3 && d->refused[k]; k++)
		refuses(d->name, d->refused[k]);
}
END_TEST

/* A file of the repository (name relative to its root), found from the
 * working directory (make unit) or beside the build directory; NULL when
 * neither has it. */
static FILE *open_doc(const char *name)
{
	char exe[4096], path[4400];
	ssize_t n;
	FILE *f = fopen(name, "r");

	if (f != NULL)
		return f;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(path, sizeof(path), "%s/../%s", exe, name);
	return fopen(path, "r");
}

static FILE *open_api_md(void)
{
	return open_doc("docs/api.md");
}

/* The default a row shows. */
static const char *shown(const struct config_var *var)
{
	return var->shown ? var->shown : var->def;
}

/* The table of docs/api.md is the code's table, row by row, in order: the
 * documented defaults, ranges and meanings cannot drift from config.c. */
START_TEST(config_table_is_the_documented_table)
{
	FILE *f = open_api_md();
	char line[8192], want[8192];
	size_t row = 0;
	bool in_table = false;

	ck_assert_msg(f != NULL, "docs/api.md not found");
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "| variable | default | range | meaning |") == 0) {
			in_table = true;
			continue;
		}
		if (!in_table || strncmp(line, "|---", 4) == 0)
			continue;
		if (line[0] != '|')
			break;
		ck_assert_msg(row < config_table_len, "docs/api.md has a row the "
			      "code has not: %s", line);
		config_doc_row(&config_table[row], want, sizeof(want));
		ck_assert_msg(strcmp(line, want) == 0, "docs/api.md's row %zu:\n%s\n"
			      "config.c's:\n%s", row + 1, line, want);
		row++;
	}
	fclose(f);
	ck_assert_msg(row == config_table_len, "docs/api.md has %zu rows, "
		      "config.c %zu", row, config_table_len);
}
END_TEST

/* README.md's configuration table (its section "Configuration") names
 * every variable of the code's table, and a row of one variable shows the
 * code's default. */
START_TEST(config_readme_table_agrees)
{
	FILE *f = open_doc("README.md");
	char line[8192], want[1024];
	bool seen[64] = { false };
	size_t i;

	bool in_section = false;

	ck_assert_msg(f != NULL, "README.md not found");
	ck_assert_uint_le(config_table_len, 64);
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *cell = line + 1, *end = strchr(cell, '|');
		size_t named = 0, which = 0;

		if (strncmp(line, "## ", 3) == 0)
			in_section = strcmp(line, "## Configuration\n") == 0;
		if (!in_section || line[0] != '|' || end == NULL)
			continue;
		for (i = 0; i < config_table_len; i++) {
			snprintf(want, sizeof(want), "`%s`", config_table[i].name);
			const char *at = strstr(cell, want);
			if (at != NULL && at < end) {
				seen[i] = true;
				named++;
				which = i;
			}
		}
		if (named != 1 || strncmp(cell, " `", 2) != 0 ||
		    strchr(cell + 2, '`') + 1 != end - 1)
			continue;       /* a row of several, or of none */
		snprintf(want, sizeof(want), "| %s |", shown(&config_table[which]));
		ck_assert_msg(strncmp(end, want, strlen(want)) == 0, "README.md's "
			      "default of %s is not config.c's \"%s\":\n%s",
			      config_table[which].name, shown(&config_table[which]), line);
	}
	fclose(f);
	for (i = 0; i < config_table_len; i++)
		ck_assert_msg(seen[i], "README.md's configuration leaves out %s",
			      config_table[i].name);
}
END_TEST

/* gaol(7) has an entry for every variable. */
START_TEST(config_man_page_lists_every_variable)
{
	FILE *f = open_doc("docs/man/gaol.7");
	char line[4096], want[256];
	bool seen[64] = { false };
	size_t i;

	ck_assert_msg(f != NULL, "docs/man/gaol.7 not found");
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, ".It Ev ", 7) != 0)
			continue;
		for (i = 0; i < config_table_len; i++) {
			snprintf(want, sizeof(want), "Ev %s", config_table[i].name);
			const char *at = strstr(line, want);
			size_t k = at ? strlen(want) : 0;
			if (at && (at[k] == '\n' || at[k] == ' '))
				seen[i] = true;
		}
	}
	fclose(f);
	for (i = 0; i < config_table_len; i++)
		ck_assert_msg(seen[i], "gaol(7) has no entry for %s",
			      config_table[i].name);
}
END_TEST

/* /etc/default/gaol's commented-out values are the defaults, as it says. */
START_TEST(config_etc_default_shows_the_defaults)
{
	FILE *f = open_doc("systemd/gaol.default");
	char line[4096];
	size_t i, n = 0;

	ck_assert_msg(f != NULL, "systemd/gaol.default not found");
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		for (i = 0; i < config_table_len; i++) {
			const struct config_var *var = &config_table[i];
			size_t len = strlen(var->name);
			if (line[0] != '#' || strncmp(line + 1, var->name, len) != 0 ||
			    line[len + 1] != '=')
				continue;
			const char *v = line + len + 2;
			ck_assert_msg(strcmp(v, shown(var)) == 0 ||
				      (var->def && strcmp(v, var->def) == 0) ||
				      (*v == '\0' && strcmp(shown(var), "empty") == 0),
				      "gaol.default: %s, not the default \"%s\"", line,
				      shown(var));
			n++;
		}
	}
	fclose(f);
	ck_assert_uint_gt(n, 0);
}
END_TEST

/* Every row the environment may set is read: each variable of the table is
 * one this suite clears before each test. */
START_TEST(config_table_names_what_the_suite_clears)
{
	size_t i, k;

	for (i = 0; i < config_table_len; i++) {
		for (k = 0; k < sizeof(variables) / sizeof(variables[0]); k++)
			if (strcmp(variables[k], config_table[i].name) == 0)
				break;
		ck_assert_msg(k < sizeof(variables) / sizeof(variables[0]),
			      "%s is not cleared by the suite's setup",
			      config_table[i].name);
	}
}
END_TEST

Suite *
config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *env = tcase_create("env"), *size = tcase_create("size");

	tcase_add_checked_fixture(env, setup, teardown);
	tcase_add_test(env, config_defaults);
	tcase_add_test(env, config_table_is_the_documented_table);
	tcase_add_test(env, config_table_names_what_the_suite_clears);
	tcase_add_test(env, config_readme_table_agrees);
	tcase_add_test(env, config_man_page_lists_every_variable);
	tcase_add_test(env, config_etc_default_shows_the_defaults);
	tcase_add_test(env, config_unpinned_is_a_flag);
	tcase_add_test(env, config_request_bounds_default_and_bounds);
	tcase_add_loop_test(env, config_duration_default_and_bounds, 0,
			    sizeof(durations) / sizeof(durations[0]));
	tcase_add_test(env, config_instance_names_the_default_state_dir);
	tcase_add_test(env, config_rejects_an_instance_that_is_not_one_name);
	tcase_add_test(env, config_build_limits_fit_the_cache);
	tcase_add_test(env, config_reads_every_variable);
	tcase_add_test(env, config_empty_value_means_unset);
	tcase_add_test(env, config_concurrency_from_1_to_256);
	tcase_add_test(env, config_rejects_bad_concurrency);
	tcase_add_test(env, config_rejects_bad_input_max);
	tcase_add_test(env, config_output_max_zero_is_unlimited);
	tcase_add_test(env, config_rejects_bad_output_max);
	tcase_add_test(env, config_rejects_bad_timeout_max);
	tcase_add_test(env, config_timeout_default_never_exceeds_the_max);
	tcase_add_test(env, config_eval_ceilings_default_and_bounds);
	tcase_add_test(env, config_debug_follows_codebattle);
	tcase_add_test(env, config_rejects_bad_debug);
	tcase_add_test(env, config_allow_shutdown_takes_1_or_true);
	tcase_add_test(env, config_rejects_bad_allow_shutdown);
	tcase_add_test(env, config_uid_base_keeps_every_slot_below_nobody);
	tcase_add_test(env, config_rejects_bad_uid_base);
	tcase_add_test(env, config_env_allow_trims_and_dedups);
	tcase_add_test(env, config_rejects_bad_env_allow);
	tcase_add_test(env, config_root_extra_takes_existing_directories);
	tcase_add_test(env, config_rejects_bad_root_extra);
	tcase_add_test(env, config_eval_defaults_and_bounds);
	tcase_add_test(env, config_judge0_limits_are_judge0s_unless_set);
	tcase_add_test(env, config_rejects_too_many_env_allow);
	tcase_add_test(env, config_rejects_bad_sizes);
	tcase_add_test(env, config_zero_sizes_mean_off);
	tcase_add_test(env, config_rejects_a_missing_langs_dir);
	tcase_add_test(env, config_finds_langs_beside_the_executable);
	tcase_add_test(env, config_rejects_a_relative_state_dir);
	tcase_add_test(size, size_takes_plain_bytes);
	tcase_add_test(size, size_takes_binary_suffixes_in_any_case);
	tcase_add_test(size, size_rejects_what_is_not_a_size);
	tcase_add_test(size, size_rejects_overflow);
	suite_add_tcase(s, env);
	suite_add_tcase(s, size);
	return s;
}
