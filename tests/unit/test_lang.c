/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lang: manifests (pure parsing), and langs_load against a language tree
 * built in a temporary directory: slug order, environment overrides, probes
 * and `make -n` run with a fixed environment, recipes joined into one
 * command, the directory skeleton.  Nothing here reads the real langs/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf/config.h"
#include "lang/lang.h"
#include "suites.h"

static char err[1024];
static struct lang lang;

/* --- manifests --- */

/* A good manifest, every key given. */
static const struct field {
	const char *key;
	const char *value;
} good[] = {
	{ "slug", "\"alpha\"" },
	{ "aliases", "[\"al\", \"a1\"]" },
	{ "workdir", "\"check\"" },
	{ "solution_file", "\"solution.al\"" },
	{ "checker_file", "\"checker.al\"" },
	{ "checker_required", "true" },
	{ "tmp_size", "\"64m\"" },
	{ "mem_max", "\"1g\"" },
	{ "overlay_paths", "[\"/opt/alpha/cache\", \"/opt/alpha/mod\"]" },
	{ "probe", "\"command -v alpha\"" },
};

#define N_GOOD (sizeof(good) / sizeof(good[0]))

/* The good manifest without key omit, with key's value replaced by value
 * (a key not in it is added). */
static char *
manifest(const char *omit, const char *key, const char *value)
{
	static char buf[2048];
	size_t i, n = 0;
	bool seen = false;

	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{");
	for (i = 0; i < N_GOOD; i++) {
		const char *v = good[i].value;

		if (omit != NULL && strcmp(good[i].key, omit) == 0)
			continue;
		if (key != NULL && strcmp(good[i].key, key) == 0) {
			v = value;
			seen = true;
		}
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\"%s\": %s",
				      n > 1 ? ", " : "", good[i].key, v);
	}
	if (key != NULL && !seen)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ", \"%s\": %s",
				      key, value);
	snprintf(buf + n, sizeof(buf) - n, "}");
	return buf;
}

static void
parses(const char *json)
{
	lang_free(&lang);
	err[0] = '\0';
	ck_assert_msg(lang_parse_manifest(json, strlen(json), &lang, err,
					  sizeof(err)) == 0,
		      "%s refused: %s", json, err);
}

/* Refused with a reason holding word and, when not NULL, word2. */
static void
refused(const char *json, const char *word, const char *word2)
{
	lang_free(&lang);
	err[0] = '\0';
	ck_assert_msg(lang_parse_manifest(json, strlen(json), &lang, err,
					  sizeof(err)) == -1,
		      "%s accepted", json);
	ck_assert_ptr_null(lang.slug);
	ck_assert_msg(strstr(err, word) != NULL, "\"%s\" lacks \"%s\"", err,
		      word);
	if (word2 != NULL)
		ck_assert_msg(strstr(err, word2) != NULL, "\"%s\" lacks \"%s\"",
			      err, word2);
}

static void
manifest_teardown(void)
{
	lang_free(&lang);
}

START_TEST(manifest_good_fills_every_field)
{
	parses(manifest(NULL, NULL, NULL));
	ck_assert_str_eq(lang.slug, "alpha");
	ck_assert_str_eq(lang.aliases[0], "al");
	ck_assert_str_eq(lang.aliases[1], "a1");
	ck_assert_ptr_null(lang.aliases[2]);
	ck_assert_str_eq(lang.workdir, "check");
	ck_assert_str_eq(lang.solution_file, "solution.al");
	ck_assert_str_eq(lang.checker_file, "checker.al");
	ck_assert(lang.checker_required);
	ck_assert_uint_eq(lang.tmp_size, 64ULL << 20);
	ck_assert_uint_eq(lang.mem_max, 1ULL << 30);
	ck_assert_str_eq(lang.overlay_paths[0], "/opt/alpha/cache");
	ck_assert_str_eq(lang.overlay_paths[1], "/opt/alpha/mod");
	ck_assert_ptr_null(lang.overlay_paths[2]);
	ck_assert_str_eq(lang.probe, "command -v alpha");
	ck_assert_ptr_null(lang.dir);
	ck_assert(!lang.installed);
	ck_assert_ptr_null(lang.test_cmd);
}
END_TEST

START_TEST(manifest_optional_fields_have_defaults)
{
	parses("{\"slug\": \"py\", \"workdir\": \"check\", \"solution_file\":"
	       " \"solution.py\", \"tmp_size\": \"256m\", \"mem_max\": \"512m\","
	       " \"probe\": \"true\"}");
	ck_assert_ptr_nonnull(lang.aliases);
	ck_assert_ptr_null(lang.aliases[0]);
	ck_assert_ptr_nonnull(lang.overlay_paths);
	ck_assert_ptr_null(lang.overlay_paths[0]);
	ck_assert_ptr_null(lang.checker_file);
	ck_assert(!lang.checker_required);
}
END_TEST

START_TEST(manifest_null_checker_file_means_none)
{
	parses("{\"slug\": \"py\", \"workdir\": \"check\", \"solution_file\":"
	       " \"solution.py\", \"checker_file\": null, \"checker_required\":"
	       " false, \"tmp_size\": \"256m\", \"mem_max\": \"512m\","
	       " \"probe\": \"true\"}");
	ck_assert_ptr_null(lang.checker_file);
	ck_assert(!lang.checker_required);
}
END_TEST

START_TEST(manifest_rejects_each_missing_required_field)
{
	static const char *const required[] = {
		"slug", "workdir", "solution_file", "tmp_size", "mem_max", "probe",
	};
	size_t i;

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		refused(manifest(required[i], NULL, NULL), required[i],
			"missing");
}
END_TEST

START_TEST(manifest_rejects_each_wrong_type)
{
	static const struct field wrong[] = {
		{ "slug", "1" },
		{ "aliases", "\"al\"" },
		{ "aliases", "[\"al\", 2]" },
		{ "workdir", "[]" },
		{ "solution_file", "{}" },
		{ "checker_file", "5" },
		{ "checker_required", "\"yes\"" },
		{ "checker_required", "1" },
		{ "tmp_size", "67108864" },
		{ "mem_max", "true" },
		{ "overlay_paths", "\"/opt/x\"" },
		{ "overlay_paths", "[null]" },
		{ "probe", "[\"true\"]" },
	};
	size_t i;

	for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++)
		refused(manifest(NULL, wrong[i].key, wrong[i].value), wrong[i].key,
			NULL);
}
END_TEST

START_TEST(manifest_rejects_empty_strings)
{
	refused(manifest(NULL, "probe", "\"\""), "probe", "empty");
	refused(manifest(NULL, "slug", "\"\""), "slug", "empty");
}
END_TEST

START_TEST(manifest_rejects_unknown_keys)
{
	refused(manifest(NULL, "tmpsize", "\"1m\""), "tmpsize", "unknown");
}
END_TEST

START_TEST(manifest_rejects_a_bad_slug)
{
	refused(manifest(NULL, "slug", "\"Python\""), "slug", NULL);
	refused(manifest(NULL, "slug", "\"c++\""), "slug", NULL);
	refused(manifest(NULL, "slug", "\"3d\""), "slug", NULL);
	refused(manifest(NULL, "slug", "\"py-3\""), "slug", NULL);
}
END_TEST

START_TEST(manifest_rejects_unsafe_paths)
{
	static const struct field unsafe[] = {
		{ "workdir", "\"/check\"" },
		{ "workdir", "\"..\"" },
		{ "workdir", "\"a/../b\"" },
		{ "workdir", "\"a//b\"" },
		{ "workdir", "\"check/\"" },
		{ "solution_file", "\"../solution.py\"" },
		{ "solution_file", "\"lib/solution.py\"" },
		{ "solution_file", "\".\"" },
		{ "solution_file", "\"my solution.py\"" },
		{ "checker_file", "\"../checker.cpp\"" },
	};
	size_t i;

	for (i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++)
		refused(manifest(NULL, unsafe[i].key, unsafe[i].value),
			unsafe[i].key, NULL);
	parses(manifest(NULL, "workdir", "\"src/main\""));
	ck_assert_str_eq(lang.workdir, "src/main");
}
END_TEST

START_TEST(manifest_requires_a_checker_file_when_the_checker_is_required)
{
	refused(manifest("checker_file", NULL, NULL), "checker_required",
		"checker_file");
	refused(manifest(NULL, "checker_file", "null"), "checker_required",
		NULL);
}
END_TEST

START_TEST(manifest_takes_size_strings)
{
	parses(manifest(NULL, "tmp_size", "\"65536\""));
	ck_assert_uint_eq(lang.tmp_size, 65536);
	parses(manifest(NULL, "tmp_size", "\"64K\""));
	ck_assert_uint_eq(lang.tmp_size, 64 << 10);
	parses(manifest(NULL, "mem_max", "\"1536m\""));
	ck_assert_uint_eq(lang.mem_max, 1536ULL << 20);
	parses(manifest(NULL, "mem_max", "\"2G\""));
	ck_assert_uint_eq(lang.mem_max, 2ULL << 30);
}
END_TEST

START_TEST(manifest_takes_the_judging_keys)
{
	parses(manifest(NULL, NULL, NULL));
	ck_assert(lang.time_factor == 1.0);
	ck_assert_int_eq(lang.time_extra_ms, 0);
	ck_assert(!lang.stack_is_memory);
	parses(manifest(NULL, "time_factor", "1.5"));
	ck_assert(lang.time_factor == 1.5);
	parses(manifest(NULL, "time_factor", "5"));
	ck_assert(lang.time_factor == 5.0);
	parses(manifest(NULL, "time_extra_ms", "200"));
	ck_assert_int_eq(lang.time_extra_ms, 200);
	parses(manifest(NULL, "stack_is_memory", "true"));
	ck_assert(lang.stack_is_memory);
	refused(manifest(NULL, "time_factor", "\"2x\""), "time_factor", NULL);
	refused(manifest(NULL, "time_factor", "0"), "time_factor", NULL);
	refused(manifest(NULL, "time_factor", "21"), "time_factor", NULL);
	refused(manifest(NULL, "time_extra_ms", "-1"), "time_extra_ms", NULL);
	refused(manifest(NULL, "time_extra_ms", "0.5"), "time_extra_ms", NULL);
	refused(manifest(NULL, "stack_is_memory", "1"), "stack_is_memory", NULL);
}
END_TEST

START_TEST(manifest_rejects_bad_sizes)
{
	refused(manifest(NULL, "tmp_size", "\"0\""), "tmp_size", NULL);
	refused(manifest(NULL, "tmp_size", "\"1.5g\""), "tmp_size", NULL);
	refused(manifest(NULL, "mem_max", "\"lots\""), "mem_max", NULL);
	refused(manifest(NULL, "mem_max", "\"512mb\""), "mem_max", NULL);
}
END_TEST

START_TEST(manifest_rejects_overlay_paths_that_are_not_plain_absolute)
{
	refused(manifest(NULL, "overlay_paths", "[\"opt/cache\"]"),
		"overlay_paths", NULL);
	refused(manifest(NULL, "overlay_paths", "[\"/opt/../etc\"]"),
		"overlay_paths", NULL);
	refused(manifest(NULL, "overlay_paths", "[\"/opt/a,/opt/b\"]"),
		"overlay_paths", NULL);
	refused(manifest(NULL, "overlay_paths", "[\"/\"]"), "overlay_paths",
		NULL);
	refused(manifest(NULL, "overlay_paths", "[\"/opt/cache/\"]"),
		"overlay_paths", NULL);
}
END_TEST

START_TEST(manifest_rejects_what_is_not_a_json_object)
{
	refused("slug = alpha", "JSON", NULL);
	refused("[]", "object", NULL);
	refused("", "JSON", NULL);
	refused("{\"slug\": \"alpha\"", "JSON", NULL);
	refused("{} {}", "JSON", NULL);
}
END_TEST

/* --- langs_load on a tree of its own --- */

static char root[] = "/tmp/gaol-unit-lang-XXXXXX";
static struct gaol_config cfg;
static struct lang_set set;

static void
write_file(const char *rel, const char *text)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash != NULL;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
		*slash = '/';
	}
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void
make_dir(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

/* langs/<slug>/lang.json, written through json-c so any probe is quoted
 * right. */
static void
write_manifest(const char *dir, const char *slug, const char *alias,
	       const char *probe)
{
	struct json_object *m = json_object_new_object(), *a, *o;
	char rel[256];

	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string(alias));
	o = json_object_new_array();
	json_object_array_add(o, json_object_new_string("/opt/lang/cache"));
	json_object_object_add(m, "slug", json_object_new_string(slug));
	json_object_object_add(m, "aliases", a);
	json_object_object_add(m, "workdir", json_object_new_string("check"));
	json_object_object_add(m, "solution_file",
			       json_object_new_string("solution.txt"));
	json_object_object_add(m, "checker_file", NULL);
	json_object_object_add(m, "checker_required",
			       json_object_new_boolean(false));
	json_object_object_add(m, "tmp_size", json_object_new_string("64m"));
	json_object_object_add(m, "mem_max", json_object_new_string("256m"));
	json_object_object_add(m, "overlay_paths", o);
	json_object_object_add(m, "probe", json_object_new_string(probe));
	snprintf(rel, sizeof(rel), "%s/lang.json", dir);
	write_file(rel, json_object_to_json_string_ext(m,
		JSON_C_TO_STRING_PRETTY));
	json_object_put(m);
}

/*
 * root/alpha: probe true; a two-line test recipe (the second continued),
 * a build recipe that fails on its first line, no run target; subdirs
 * check, check/deep, check/deep/er, zeta, and a symlink to check.
 * root/beta: probe fails; a one-line test recipe.
 * root/notalang (no lang.json), root/.hidden, root/README: skipped.
 */
static void
tree_setup(void)
{
	char path[PATH_MAX];

	unsetenv("RUN_TMP_SIZE_ALPHA");
	unsetenv("RUN_TMP_SIZE_BETA");
	unsetenv("RUN_MEM_MAX_ALPHA");
	unsetenv("RUN_MEM_MAX_BETA");
	unsetenv("RUN_OVERLAY_PATHS_ALPHA");
	unsetenv("RUN_OVERLAY_PATHS_BETA");
	ck_assert_ptr_nonnull(mkdtemp(root));
	memset(&cfg, 0, sizeof(cfg));
	strcpy(cfg.langs_dir, root);

	write_manifest("beta", "beta", "b", "exit 3");
	write_file("beta/Makefile", "test:\n\techo beta\n.PHONY: test\n");
	write_manifest("alpha", "alpha", "al", "true");
	write_file("alpha/Makefile",
		   "test:\n"
		   "\techo one\n"
		   "\t@echo two \\\n"
		   "\t  three\n"
		   "build:\n"
		   "\tfalse\n"
		   "\ttouch marker\n"
		   ".PHONY: test build\n");
	write_file("alpha/check/harness.txt", "");
	make_dir("alpha/check/deep");
	make_dir("alpha/check/deep/er");
	make_dir("alpha/zeta");
	snprintf(path, sizeof(path), "%s/alpha/link", root);
	ck_assert_int_eq(symlink("check", path), 0);
	make_dir("notalang");
	write_file(".hidden/lang.json", "not json");
	write_file("README", "not a language\n");
}

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
tree_teardown(void)
{
	langs_free(&set);
	nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	strcpy(root, "/tmp/gaol-unit-lang-XXXXXX");
}

static void
loads(void)
{
	langs_free(&set);
	err[0] = '\0';
	ck_assert_msg(langs_load(&cfg, &set, err, sizeof(err)) == 0,
		      "refused: %s", err);
}

static void
load_refused(const char *word, const char *word2)
{
	langs_free(&set);
	err[0] = '\0';
	ck_assert_msg(langs_load(&cfg, &set, err, sizeof(err)) == -1,
		      "accepted");
	ck_assert_ptr_null(set.v);
	ck_assert_uint_eq(set.n, 0);
	ck_assert_msg(strstr(err, word) != NULL, "\"%s\" lacks \"%s\"", err,
		      word);
	if (word2 != NULL)
		ck_assert_msg(strstr(err, word2) != NULL, "\"%s\" lacks \"%s\"",
			      err, word2);
}

static const struct lang *
find(const char *slug)
{
	const struct lang *l = langs_find(&set, slug, false);

	ck_assert_msg(l != NULL, "%s not loaded", slug);
	return l;
}

START_TEST(langs_load_reads_every_language_in_slug_order)
{
	loads();
	ck_assert_uint_eq(set.n, 2);
	ck_assert_str_eq(set.v[0].slug, "alpha");
	ck_assert_str_eq(set.v[1].slug, "beta");
}
END_TEST

START_TEST(langs_load_skips_directories_without_a_manifest)
{
	loads();
	ck_assert_ptr_null(langs_find(&set, "notalang", true));
	ck_assert_ptr_null(langs_find(&set, ".hidden", true));
}
END_TEST

START_TEST(langs_load_gives_each_language_its_absolute_dir)
{
	char real[PATH_MAX], want[PATH_MAX + 8];

	ck_assert_ptr_nonnull(realpath(root, real));
	snprintf(want, sizeof(want), "%s/alpha", real);
	loads();
	ck_assert_str_eq(find("alpha")->dir, want);
}
END_TEST

START_TEST(langs_load_marks_installed_by_the_probe)
{
	loads();
	ck_assert(find("alpha")->installed);
	ck_assert(!find("beta")->installed);
}
END_TEST

START_TEST(langs_load_keeps_each_languages_results_apart)
{
	/* More languages than shells run side by side, the first ones the
	 * slowest: each still gets its own probe's output and commands. */
	char dir[16], alias[16], probe[64], make[128];
	int i;

	for (i = 0; i < 12; i++) {
		snprintf(dir, sizeof(dir), "l%02d", i);
		snprintf(alias, sizeof(alias), "a%02d", i);
		snprintf(probe, sizeof(probe), "sleep 0.%d; echo version %d",
			 i < 4 ? 4 - i : 0, i);
		write_manifest(dir, dir, alias, probe);
		snprintf(make, sizeof(make), "test:\n\tcat %d.txt\n"
			 "run:\n\tcat run%d.txt\n.PHONY: test run\n", i, i);
		snprintf(dir, sizeof(dir), "l%02d/Makefile", i);
		write_file(dir, make);
	}
	loads();
	ck_assert_uint_eq(set.n, 14);
	for (i = 0; i < 12; i++) {
		const struct lang *l;

		snprintf(dir, sizeof(dir), "l%02d", i);
		l = find(dir);
		snprintf(probe, sizeof(probe), "version %d\n", i);
		ck_assert_str_eq(l->version, probe);
		snprintf(make, sizeof(make), "exec cat %d.txt", i);
		ck_assert_str_eq(l->test_cmd, make);
		snprintf(make, sizeof(make), "exec cat run%d.txt", i);
		ck_assert_str_eq(l->run_cmd, make);
		ck_assert_ptr_null(l->build_cmd);
	}
}
END_TEST

START_TEST(langs_load_a_hung_probe_is_not_installed_and_holds_up_no_other)
{
	/* The probe is killed at its guard (RUN_LANG_START_TIMEOUT, here 5 s:
	 * under the emulated VM of `make test-vm` the make shells beside it
	 * once took more than 1 s); those shells ended long before they are
	 * taken, and count as they ended. */
	cfg.lang_shell_timeout_ms = 5000;
	write_manifest("alpha", "alpha", "al", "sleep 60");
	loads();
	ck_assert(!find("alpha")->installed);
	ck_assert_str_eq(find("alpha")->test_cmd,
			 "{ echo one\n} && { echo two \\\n  three\n}");
	ck_assert_str_eq(find("beta")->test_cmd, "echo beta");
}
END_TEST

START_TEST(langs_load_a_hung_make_takes_out_its_language_not_the_service)
{
	/* A toolchain stuck on a stalled disk while make asks it something:
	 * the language is not installed until the next start, and the others
	 * load as they are (the case's 20 s timeout: the guard held; 5 s, as
	 * above, for the others' shells on a slow VM). */
	cfg.lang_shell_timeout_ms = 5000;
	write_file("alpha/Makefile", "X := $(shell sleep 60)\ntest:\n\techo one\n");
	loads();
	ck_assert(!find("alpha")->installed);
	ck_assert_ptr_null(find("alpha")->test_cmd);
	ck_assert_str_eq(find("beta")->test_cmd, "echo beta");
}
END_TEST

START_TEST(langs_load_probes_with_a_fixed_environment)
{
	setenv("GAOL_UNIT_SECRET", "leak", 1);
	write_manifest("alpha", "alpha", "al",
		       "[ \"$HOME\" = /tmp ] && [ \"$PATH\" = /usr/bin:/bin ] &&"
		       " [ \"$LANG\" = C.UTF-8 ] &&"
		       " [ -z \"${GAOL_UNIT_SECRET+set}\" ] &&"
		       " [ \"$(readlink /proc/$$/fd/0)\" = /dev/null ] &&"
		       " echo toolchain 1.2");
	loads();
	ck_assert(find("alpha")->installed);
	/* What the probe prints names the version, for the compile cache. */
	ck_assert_str_eq(find("alpha")->version, "toolchain 1.2\n");
}
END_TEST

START_TEST(langs_load_runs_make_with_a_fixed_environment)
{
	setenv("GAOL_UNIT_SECRET", "leak", 1);
	setenv("MAKEFLAGS", "-B", 1);
	write_file("beta/Makefile",
		   "test:\n\techo [$(GAOL_UNIT_SECRET)] $(HOME) $(LANG)\n"
		   ".PHONY: test\n");
	loads();
	ck_assert_str_eq(find("beta")->test_cmd, "echo [] /tmp C.UTF-8");
}
END_TEST

START_TEST(langs_load_joins_recipe_lines_into_one_command)
{
	loads();
	ck_assert_str_eq(find("alpha")->test_cmd,
			 "{ echo one\n} && { echo two \\\n  three\n}");
}
END_TEST

START_TEST(langs_load_joined_command_stops_at_the_first_failure)
{
	struct lang_shell_result res;
	char marker[PATH_MAX];

	loads();
	ck_assert_str_eq(find("alpha")->build_cmd,
			 "{ false\n} && { touch marker\n}");
	ck_assert_int_eq(lang_shell(find("alpha")->dir, find("alpha")->build_cmd,
				    5000, true, &res, err, sizeof(err)), 0);
	ck_assert(WIFEXITED(res.status) && WEXITSTATUS(res.status) != 0);
	lang_shell_result_free(&res);
	snprintf(marker, sizeof(marker), "%s/marker", find("alpha")->dir);
	ck_assert_int_eq(access(marker, F_OK), -1);
}
END_TEST

START_TEST(langs_load_execs_a_single_simple_command)
{
	write_file("beta/Makefile", "test:\n\tcat solution.txt\n.PHONY: test\n");
	loads();
	ck_assert_str_eq(find("beta")->test_cmd, "exec cat solution.txt");
}
END_TEST

START_TEST(langs_load_leaves_a_shell_builtin_to_the_shell)
{
	/* "exec echo" would run /bin/echo, which reads no backslash escapes. */
	loads();
	ck_assert_str_eq(find("beta")->test_cmd, "echo beta");
	write_file("beta/Makefile", "test:\n\ttrue\n.PHONY: test\n");
	loads();
	ck_assert_str_eq(find("beta")->test_cmd, "true");
}
END_TEST

START_TEST(langs_load_leaves_a_single_compound_line_as_it_is)
{
	write_file("beta/Makefile",
		   "test:\n\tcc -o /tmp/a a.c && /tmp/a\n"
		   "build:\n\tX=\"a b\" prog\n"
		   "run:\n\tcd check; ./a\n"
		   ".PHONY: test build run\n");
	loads();
	ck_assert_str_eq(find("beta")->test_cmd, "cc -o /tmp/a a.c && /tmp/a");
	/* A quoted value is not split into words here: no exec. */
	ck_assert_str_eq(find("beta")->build_cmd, "X=\"a b\" prog");
	ck_assert_str_eq(find("beta")->run_cmd, "cd check; ./a");
}
END_TEST

START_TEST(langs_load_puts_exec_after_leading_assignments)
{
	struct lang_shell_result res;

	write_file("beta/Makefile",
		   "test:\n\tGAOL_A=1 GAOL_B=/x:/y env\n"
		   "build:\n\tGAOL_A=1\n"
		   "run:\n\tGAOL_A=1 2x=3 prog\n"
		   ".PHONY: test build run\n");
	loads();
	ck_assert_str_eq(find("beta")->test_cmd, "GAOL_A=1 GAOL_B=/x:/y exec env");
	ck_assert_str_eq(find("beta")->build_cmd, "GAOL_A=1");
	ck_assert_str_eq(find("beta")->run_cmd, "GAOL_A=1 2x=3 prog");
	/* The shell hands the assignments to the program it execs. */
	ck_assert_int_eq(lang_shell(NULL, find("beta")->test_cmd, 5000, true, &res,
				    err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(res.out, "GAOL_A=1\n"));
	ck_assert_ptr_nonnull(strstr(res.out, "GAOL_B=/x:/y\n"));
	lang_shell_result_free(&res);
}
END_TEST

START_TEST(langs_load_missing_target_is_null)
{
	loads();
	ck_assert_ptr_null(find("alpha")->run_cmd);
	ck_assert_ptr_null(find("beta")->build_cmd);
	ck_assert_ptr_null(find("beta")->run_cmd);
}
END_TEST

START_TEST(langs_load_target_with_nothing_to_run_is_null)
{
	write_file("beta/Makefile", "test:\nbuild: test\n.PHONY: test build\n");
	loads();
	ck_assert_ptr_null(find("beta")->test_cmd);
	ck_assert_ptr_null(find("beta")->build_cmd);
}
END_TEST

START_TEST(langs_load_without_a_makefile_has_no_commands)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/beta/Makefile", root);
	ck_assert_int_eq(unlink(path), 0);
	loads();
	ck_assert_ptr_null(find("beta")->test_cmd);
}
END_TEST

START_TEST(langs_load_lists_every_subdirectory_sorted)
{
	char *const *d;

	loads();
	d = find("alpha")->subdirs;
	ck_assert_str_eq(d[0], "check");
	ck_assert_str_eq(d[1], "check/deep");
	ck_assert_str_eq(d[2], "check/deep/er");
	ck_assert_str_eq(d[3], "zeta");
	ck_assert_ptr_null(d[4]);
	ck_assert_ptr_null(find("beta")->subdirs[0]);
}
END_TEST

START_TEST(langs_load_keeps_lang_json_values_without_overrides)
{
	loads();
	ck_assert_uint_eq(find("alpha")->tmp_size, 64 << 20);
	ck_assert_uint_eq(find("alpha")->mem_max, 256 << 20);
	ck_assert_str_eq(find("alpha")->overlay_paths[0], "/opt/lang/cache");
}
END_TEST

START_TEST(langs_load_prefers_per_language_then_global_overrides)
{
	cfg.tmp_size = 1 << 20;
	setenv("RUN_TMP_SIZE_ALPHA", "2m", 1);
	setenv("RUN_MEM_MAX_BETA", "3g", 1);
	loads();
	ck_assert_uint_eq(find("alpha")->tmp_size, 2 << 20);
	ck_assert_uint_eq(find("beta")->tmp_size, 1 << 20);
	ck_assert_uint_eq(find("alpha")->mem_max, 256 << 20);
	ck_assert_uint_eq(find("beta")->mem_max, 3ULL << 30);
	cfg.mem_max = 5 << 20;
	loads();
	ck_assert_uint_eq(find("alpha")->mem_max, 5 << 20);
	ck_assert_uint_eq(find("beta")->mem_max, 3ULL << 30);
}
END_TEST

START_TEST(langs_load_overlay_override_replaces_the_list)
{
	char **p;

	setenv("RUN_OVERLAY_PATHS_ALPHA", " /opt/a , /opt/b/c,", 1);
	setenv("RUN_OVERLAY_PATHS_BETA", "", 1);
	loads();
	p = find("alpha")->overlay_paths;
	ck_assert_str_eq(p[0], "/opt/a");
	ck_assert_str_eq(p[1], "/opt/b/c");
	ck_assert_ptr_null(p[2]);
	ck_assert_ptr_null(find("beta")->overlay_paths[0]);
}
END_TEST

START_TEST(langs_load_rejects_bad_overrides_naming_the_variable)
{
	setenv("RUN_TMP_SIZE_ALPHA", "lots", 1);
	load_refused("RUN_TMP_SIZE_ALPHA", "lots");
	unsetenv("RUN_TMP_SIZE_ALPHA");
	setenv("RUN_MEM_MAX_BETA", "0", 1);
	load_refused("RUN_MEM_MAX_BETA", NULL);
	unsetenv("RUN_MEM_MAX_BETA");
	setenv("RUN_OVERLAY_PATHS_ALPHA", "/opt/a,relative/b", 1);
	load_refused("RUN_OVERLAY_PATHS_ALPHA", "relative/b");
}
END_TEST

START_TEST(langs_load_rejects_a_bad_manifest_naming_the_file)
{
	write_file("beta/lang.json", "{\"slug\": \"beta\"}");
	load_refused("beta/lang.json", "missing");
}
END_TEST

START_TEST(langs_load_rejects_a_slug_that_is_not_its_directory)
{
	write_manifest("beta", "gamma", "g", "true");
	load_refused("beta/lang.json", "gamma");
}
END_TEST

START_TEST(langs_load_rejects_a_broken_makefile)
{
	write_file("beta/Makefile", "this is not make\n");
	load_refused("make -s -n test", "beta");
}
END_TEST

START_TEST(langs_load_rejects_a_name_used_twice)
{
	write_manifest("beta", "beta", "al", "true");
	load_refused("\"al\"", "alpha");
	write_manifest("beta", "beta", "alpha", "true");
	load_refused("\"alpha\"", "beta");
}
END_TEST

START_TEST(langs_load_rejects_a_tree_without_languages)
{
	snprintf(cfg.langs_dir, sizeof(cfg.langs_dir), "%s/notalang", root);
	load_refused("no language", NULL);
	snprintf(cfg.langs_dir, sizeof(cfg.langs_dir), "%s/nonexistent", root);
	load_refused("nonexistent", NULL);
}
END_TEST

/* What lang_complete adds to one language of langs_load_names equals what
 * langs_load gives it; the others stay manifests. */
START_TEST(langs_load_names_leaves_the_rest_to_lang_complete_one_at_a_time)
{
	struct lang_set full = { 0 };
	struct lang *a, *b;
	const struct lang *fa;
	char **d, **fd;

	ck_assert_msg(langs_load(&cfg, &full, err, sizeof(err)) == 0, "refused: %s", err);
	langs_free(&set);
	ck_assert_msg(langs_load_names(&cfg, &set, err, sizeof(err)) == 0, "refused: %s", err);
	ck_assert_uint_eq(set.n, 2);
	a = &set.v[0];
	b = &set.v[1];
	ck_assert_str_eq(a->slug, "alpha");
	ck_assert_str_eq(a->aliases[0], "al");
	ck_assert_str_eq(a->overlay_paths[0], "/opt/lang/cache");
	ck_assert_str_eq(a->dir, full.v[0].dir);
	for (int i = 0; i < 2; i++) {
		const struct lang *l = &set.v[i];
		ck_assert(!l->loaded && !l->installed);
		ck_assert(!l->version && !l->fingerprint && !l->test_cmd && !l->subdirs);
	}

	ck_assert_msg(lang_complete(&cfg, a, err, sizeof(err)) == 0, "refused: %s", err);
	fa = &full.v[0];
	ck_assert(a->loaded && a->installed);
	ck_assert_str_eq(a->version, fa->version);
	ck_assert_str_eq(a->fingerprint, fa->fingerprint);
	ck_assert_str_eq(a->test_cmd, fa->test_cmd);
	ck_assert_str_eq(a->build_cmd, fa->build_cmd);
	ck_assert_ptr_null(a->run_cmd);
	for (d = a->subdirs, fd = fa->subdirs; *d && *fd; d++, fd++)
		ck_assert_str_eq(*d, *fd);
	ck_assert(!*d && !*fd);
	ck_assert(!b->loaded && !b->test_cmd);

	/* Once is enough: the same answers, not read again. */
	char *test_cmd = a->test_cmd;
	ck_assert_int_eq(lang_complete(&cfg, a, err, sizeof(err)), 0);
	ck_assert_ptr_eq(a->test_cmd, test_cmd);
	ck_assert_msg(lang_complete(&cfg, b, err, sizeof(err)) == 0, "refused: %s", err);
	ck_assert(b->loaded && !b->installed);
	ck_assert_str_eq(b->test_cmd, full.v[1].test_cmd);
	langs_free(&full);
}
END_TEST

START_TEST(lang_complete_refuses_a_broken_makefile_as_langs_load_would)
{
	write_file("beta/Makefile", "this is not make\n");
	langs_free(&set);
	ck_assert_msg(langs_load_names(&cfg, &set, err, sizeof(err)) == 0, "refused: %s", err);
	ck_assert_int_eq(lang_complete(&cfg, &set.v[0], err, sizeof(err)), 0);
	err[0] = '\0';
	ck_assert_int_eq(lang_complete(&cfg, &set.v[1], err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "make -s -n test") && strstr(err, "beta"), "%s", err);
	ck_assert(!set.v[1].loaded);
}
END_TEST

START_TEST(langs_find_by_slug_or_alias)
{
	loads();
	ck_assert_ptr_eq(langs_find(&set, "alpha", false), &set.v[0]);
	ck_assert_ptr_null(langs_find(&set, "al", false));
	ck_assert_ptr_eq(langs_find(&set, "al", true), &set.v[0]);
	ck_assert_ptr_eq(langs_find(&set, "b", true), &set.v[1]);
	ck_assert_ptr_null(langs_find(&set, "gamma", true));
	ck_assert_ptr_null(langs_find(&set, "", true));
}
END_TEST

/* --- lang_shell --- */

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

START_TEST(lang_shell_captures_stdout_stderr_and_status)
{
	struct lang_shell_result res;

	ck_assert_int_eq(lang_shell(NULL, "echo out; echo err >&2; exit 3", 5000,
				    true, &res, err, sizeof(err)), 0);
	ck_assert(WIFEXITED(res.status));
	ck_assert_int_eq(WEXITSTATUS(res.status), 3);
	ck_assert_str_eq(res.out, "out\n");
	ck_assert_str_eq(res.err, "err\n");
	lang_shell_result_free(&res);
}
END_TEST

START_TEST(lang_shell_kills_at_the_deadline)
{
	struct lang_shell_result res;
	long t0 = now_ms();

	ck_assert_int_eq(lang_shell(NULL, "sleep 10", 200, false, &res, err,
				    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "timed out"));
	ck_assert_int_lt(now_ms() - t0, 3000);
}
END_TEST

/* Whether pid is gone or a zombie, within a second. */
static bool
dead(pid_t pid)
{
	char path[64], stat[256], *p;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 100; i++) {
		if ((f = fopen(path, "r")) == NULL)
			return true;
		p = fgets(stat, sizeof(stat), f);
		fclose(f);
		if (p != NULL && (p = strrchr(stat, ')')) != NULL &&
		    (p[2] == 'Z' || p[2] == 'X'))
			return true;
		usleep(10000);
	}
	return false;
}

START_TEST(lang_shell_kills_what_the_shell_left_behind)
{
	struct lang_shell_result res;
	pid_t pid;

	ck_assert_int_eq(lang_shell(NULL, "sleep 30 >/dev/null 2>&1 & echo $!",
				    5000, true, &res, err, sizeof(err)), 0);
	pid = (pid_t)atoi(res.out);
	lang_shell_result_free(&res);
	ck_assert_int_gt(pid, 0);
	ck_assert(dead(pid));
}
END_TEST

START_TEST(lang_shell_refuses_endless_output)
{
	struct lang_shell_result res;

	ck_assert_int_eq(lang_shell(NULL, "yes", 5000, true, &res, err,
				    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "more than"));
}
END_TEST

/* Which commands init may exec itself, skipping dash (init.c): "exec", a
 * program named by a path, and words dash would pass as they are. */
START_TEST(direct_argv_takes_only_what_dash_would_exec_as_it_is)
{
	char buf[256], *argv[8];

	ck_assert_uint_eq(lang_direct_argv("exec ./solution", buf, sizeof(buf), argv, 8), 1);
	ck_assert_str_eq(argv[0], "./solution");
	ck_assert_ptr_null(argv[1]);
	ck_assert_uint_eq(lang_direct_argv("exec /usr/bin/python3 -X utf8 -I check/harness.py",
					   buf, sizeof(buf), argv, 8), 5);
	ck_assert_str_eq(argv[0], "/usr/bin/python3");
	ck_assert_str_eq(argv[2], "utf8");
	ck_assert_str_eq(argv[4], "check/harness.py");
	ck_assert_ptr_null(argv[5]);
	/* blanks and tabs apart, around; every plain character kept */
	ck_assert_uint_eq(lang_direct_argv("  exec\t/usr/bin/g++  -std=c++17 -Dx=1,y@2%3:a.b_c  ",
					   buf, sizeof(buf), argv, 8), 3);
	ck_assert_str_eq(argv[0], "/usr/bin/g++");
	ck_assert_str_eq(argv[1], "-std=c++17");
	ck_assert_str_eq(argv[2], "-Dx=1,y@2%3:a.b_c");

	static const char *const shell[] = {
		"./solution",                   /* no exec: a simple command */
		"exec solution",                /* found on PATH by dash */
		"exec -a x ./solution",         /* an option of exec */
		"exec",  "", "   ",
		"A=1 exec ./solution",          /* an assignment */
		"exec ./s > out", "exec ./s < in", "exec ./s 2>&1",
		"exec ./s $HOME", "exec ./s ${X}", "exec ./s `id`",
		"exec ./s 'a b'", "exec ./s \"a\"", "exec ./s a\\ b",
		"exec ./s *.txt", "exec ./s ?", "exec ./s [ab]", "exec ./s ~",
		"exec ./s ~/x", "exec ./s #comment", "exec ./s {a,b}", "exec ./s !x",
		"exec ./s; true", "exec ./s && true", "exec ./s | cat", "exec ./s &",
		"exec ./s\nexec ./t", "exec ./s (x)", "exec ./s ^x",
	};
	for (size_t i = 0; i < sizeof(shell) / sizeof(shell[0]); i++)
		ck_assert_msg(lang_direct_argv(shell[i], buf, sizeof(buf), argv, 8) == 0,
			      "taken from the shell: \"%s\"", shell[i]);
	/* what does not fit goes to the shell too */
	ck_assert_uint_eq(lang_direct_argv("exec ./s a b c d e f g", buf, sizeof(buf), argv, 8), 0);
	ck_assert_uint_eq(lang_direct_argv("exec ./s a b c d e f", buf, sizeof(buf), argv, 8), 7);
	ck_assert_uint_eq(lang_direct_argv("exec ./solution", buf, 15, argv, 8), 0);
	ck_assert_uint_eq(lang_direct_argv("exec ./solution", buf, 16, argv, 8), 1);
}
END_TEST

Suite *
lang_suite(void)
{
	Suite *s = suite_create("lang");
	TCase *m = tcase_create("manifest"), *t = tcase_create("load"),
	      *sh = tcase_create("shell");

	tcase_add_checked_fixture(m, NULL, manifest_teardown);
	tcase_add_test(m, manifest_good_fills_every_field);
	tcase_add_test(m, manifest_optional_fields_have_defaults);
	tcase_add_test(m, manifest_null_checker_file_means_none);
	tcase_add_test(m, manifest_rejects_each_missing_required_field);
	tcase_add_test(m, manifest_rejects_each_wrong_type);
	tcase_add_test(m, manifest_rejects_empty_strings);
	tcase_add_test(m, manifest_rejects_unknown_keys);
	tcase_add_test(m, manifest_rejects_a_bad_slug);
	tcase_add_test(m, manifest_rejects_unsafe_paths);
	tcase_add_test(m, manifest_requires_a_checker_file_when_the_checker_is_required);
	tcase_add_test(m, manifest_takes_size_strings);
	tcase_add_test(m, manifest_takes_the_judging_keys);
	tcase_add_test(m, manifest_rejects_bad_sizes);
	tcase_add_test(m, manifest_rejects_overlay_paths_that_are_not_plain_absolute);
	tcase_add_test(m, manifest_rejects_what_is_not_a_json_object);

	tcase_add_checked_fixture(t, tree_setup, tree_teardown);
	tcase_set_timeout(t, 20);
	tcase_add_test(t, langs_load_reads_every_language_in_slug_order);
	tcase_add_test(t, langs_load_skips_directories_without_a_manifest);
	tcase_add_test(t, langs_load_gives_each_language_its_absolute_dir);
	tcase_add_test(t, langs_load_marks_installed_by_the_probe);
	tcase_add_test(t, langs_load_probes_with_a_fixed_environment);
	tcase_add_test(t, langs_load_runs_make_with_a_fixed_environment);
	tcase_add_test(t, langs_load_joins_recipe_lines_into_one_command);
	tcase_add_test(t, langs_load_joined_command_stops_at_the_first_failure);
	tcase_add_test(t, langs_load_execs_a_single_simple_command);
	tcase_add_test(m, direct_argv_takes_only_what_dash_would_exec_as_it_is);
	tcase_add_test(t, langs_load_keeps_each_languages_results_apart);
	tcase_add_test(t, langs_load_a_hung_probe_is_not_installed_and_holds_up_no_other);
	tcase_add_test(t, langs_load_a_hung_make_takes_out_its_language_not_the_service);
	tcase_add_test(t, langs_load_leaves_a_shell_builtin_to_the_shell);
	tcase_add_test(t, langs_load_leaves_a_single_compound_line_as_it_is);
	tcase_add_test(t, langs_load_puts_exec_after_leading_assignments);
	tcase_add_test(t, langs_load_missing_target_is_null);
	tcase_add_test(t, langs_load_target_with_nothing_to_run_is_null);
	tcase_add_test(t, langs_load_without_a_makefile_has_no_commands);
	tcase_add_test(t, langs_load_lists_every_subdirectory_sorted);
	tcase_add_test(t, langs_load_keeps_lang_json_values_without_overrides);
	tcase_add_test(t, langs_load_prefers_per_language_then_global_overrides);
	tcase_add_test(t, langs_load_overlay_override_replaces_the_list);
	tcase_add_test(t, langs_load_rejects_bad_overrides_naming_the_variable);
	tcase_add_test(t, langs_load_rejects_a_bad_manifest_naming_the_file);
	tcase_add_test(t, langs_load_rejects_a_slug_that_is_not_its_directory);
	tcase_add_test(t, langs_load_rejects_a_broken_makefile);
	tcase_add_test(t, langs_load_rejects_a_name_used_twice);
	tcase_add_test(t, langs_load_rejects_a_tree_without_languages);
	tcase_add_test(t, langs_find_by_slug_or_alias);
	tcase_add_test(t, langs_load_names_leaves_the_rest_to_lang_complete_one_at_a_time);
	tcase_add_test(t, lang_complete_refuses_a_broken_makefile_as_langs_load_would);

	tcase_set_timeout(sh, 20);
	tcase_add_test(sh, lang_shell_captures_stdout_stderr_and_status);
	tcase_add_test(sh, lang_shell_kills_at_the_deadline);
	tcase_add_test(sh, lang_shell_kills_what_the_shell_left_behind);
	tcase_add_test(sh, lang_shell_refuses_endless_output);

	suite_add_tcase(s, m);
	suite_add_tcase(s, t);
	suite_add_tcase(s, sh);
	return s;
}
