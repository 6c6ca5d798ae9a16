/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lang: the language set, read once at start-up (docs/api.md,
 * "Languages").
 *
 * For each langs/<slug>/ holding a lang.json, in slug order: parse the
 * manifest, apply the environment's overrides (per language > global >
 * lang.json), run the toolchain probe, resolve the `make -n` commands of the
 * test, build and run targets, and list the directory's subdirectories (the
 * engine recreates them in each run's writable layer).  Probes and make run
 * through lang_shell with a fixed environment, so neither the service's
 * environment (MAKEFLAGS, secrets) nor its cwd changes what they see.
 */
#define _GNU_SOURCE		/* strchrnul, close_range, pidfd_open */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/fail.h"
#include "conf/config.h"
#include "lang/internal.h"
#include "lang/semver.h"


/* The make targets and where their resolved commands go. */
static const struct {
	const char *target;
	size_t offset;
} targets[] = {
	{ "test", offsetof(struct lang, test_cmd) },
	{ "build", offsetof(struct lang, build_cmd) },
	{ "run", offsetof(struct lang, run_cmd) },
	{ "compile", offsetof(struct lang, compile_cmd) },
	{ "execute", offsetof(struct lang, execute_cmd) },
};

/* --- the environment's overrides --- */

/* "RUN_TMP_SIZE_" + the slug in upper case. */
static void override_name(const char *prefix, const char *slug, char *buf, size_t len)
{
	size_t i, n = (size_t)snprintf(buf, len, "%s%s", prefix, slug);

	for (i = strlen(prefix); i < n && i < len; i++)
		buf[i] = (char)toupper((unsigned char)buf[i]);
}

/* Per language, else the global setting (0: none), else lang.json's. */
static int override_size(const char *prefix, const char *slug,
			 unsigned long long global, unsigned long long *val, char *err,
			 size_t errlen)
{
	char name[96];
	const char *v;

	override_name(prefix, slug, name, sizeof(name));
	if ((v = getenv(name)) != NULL && *v != '\0') {
		if (parse_size(v, val) == -1 || *val == 0)
			return fail(err, errlen, "%s=\"%s\": not a size above 0 "
				    "(bytes, or a number with k, m or g)", name, v);
	} else if (global != 0) {
		*val = global;
	}
	return 0;
}

/* RUN_OVERLAY_PATHS_<SLUG> replaces the list, even when empty (that is how
 * to turn a language's overlays off). */
static int override_overlays(struct lang *lang, char *err, size_t errlen)
{
	struct strv sv = { 0 };
	const char *v, *p, *q, *e;
	char name[96];
	size_t len;

	override_name("RUN_OVERLAY_PATHS_", lang->slug, name, sizeof(name));
	if ((v = getenv(name)) == NULL)
		return 0;
	for (p = v; *p != '\0'; p = *e == ',' ? e + 1 : e) {
		e = strchrnul(p, ',');
		for (q = p; q < e && isspace((unsigned char)*q); q++)
			;
		for (len = (size_t)(e - q); len > 0 &&
		     isspace((unsigned char)q[len - 1]); len--)
			;
		if (len == 0)
			continue;
		if (!lang_path_is_absolute(q, len)) {
			strv_free(strv_finish(&sv));
			return fail(err, errlen, "%s=\"%s\": \"%.*s\" is not a "
				    "plain absolute path", name, v, (int)len, q);
		}
		if (strv_add(&sv, q, len) == -1) {
			strv_free(strv_finish(&sv));
			return fail(err, errlen, "out of memory");
		}
	}
	strv_free(lang->overlay_paths);
	if ((lang->overlay_paths = strv_finish(&sv)) == NULL)
		return fail(err, errlen, "out of memory");
	return 0;
}

/* --- loading the set --- */

static int read_manifest(const char *path, char **text, size_t *len, char *err,
			 size_t errlen)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd;

	*text = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return fail(err, errlen, "%s: open errno=%d", path, errno);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > MANIFEST_MAX) {
		close(fd);
		return fail(err, errlen, "%s: not a regular file of at most %d "
			    "bytes", path, MANIFEST_MAX);
	}
	if ((*text = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return fail(err, errlen, "%s: out of memory", path);
	}
	while (got < (size_t)st.st_size &&
	       ((n = read(fd, *text + got, (size_t)st.st_size - got)) > 0 ||
		(n == -1 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	close(fd);
	if (got != (size_t)st.st_size) {
		free(*text);
		*text = NULL;
		return fail(err, errlen, "%s: read errno=%d", path, errno);
	}
	(*text)[got] = '\0';
	*len = got;
	return 0;
}

/* dir/name followed by suffix; -1 when it does not fit. */
static int path_of(char *buf, size_t len, const char *dir, const char *name,
		   const char *suffix)
{
	int n = snprintf(buf, len, "%s/%s%s", dir, name, suffix);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* langs_dir/name's manifest, with the environment's overrides; lang is
 * filled even on failure, for lang_free. */
static int load_manifest(const struct gaol_config *cfg, const char *name,
			 struct lang *lang, char *err, size_t errlen)
{
	char path[PATH_MAX], why[512];
	size_t len = 0;
	char *text;
	int rc;

	if (path_of(path, sizeof(path), cfg->langs_dir, name, "/lang.json") == -1)
		return fail(err, errlen, "%s/%s: path too long", cfg->langs_dir,
			    name);
	if (read_manifest(path, &text, &len, err, errlen) == -1)
		return -1;
	rc = lang_parse_manifest(text, len, lang, why, sizeof(why));
	free(text);
	if (rc == -1)
		return fail(err, errlen, "%s: %s", path, why);
	if (strcmp(lang->slug, name) != 0)
		return fail(err, errlen, "%s: slug \"%s\" differs from its "
			    "directory's name", path, lang->slug);

	(void)path_of(path, sizeof(path), cfg->langs_dir, name, "");
	if ((lang->dir = realpath(path, NULL)) == NULL)
		return fail(err, errlen, "%s: realpath errno=%d", path, errno);

	if (override_size("RUN_TMP_SIZE_", lang->slug, cfg->tmp_size,
			  &lang->tmp_size, err, errlen) == -1 ||
	    override_size("RUN_MEM_MAX_", lang->slug, cfg->mem_max,
			  &lang->mem_max, err, errlen) == -1 ||
	    override_overlays(lang, err, errlen) == -1)
		return -1;
	return 0;
}

/* One language's shells: its probe, then `make -s -n` of each target. */
#define SHELLS_PER_LANG (1 + sizeof(targets) / sizeof(targets[0]))

/* The commands of one language's shells, in the order of done[]. */
static void shell_cmds(const struct lang *lang, char cmds[][64], const char **v)
{
	size_t t;

	v[0] = lang->probe;
	for (t = 1; t < SHELLS_PER_LANG; t++) {
		/* exec: make is the shell's only command. */
		snprintf(cmds[t], 64, "exec make -s -n %s", targets[t - 1].target);
		v[t] = cmds[t];
	}
}

/* Runs every language's shells, several side by side (each of them is a
 * few milliseconds of one process, a JVM's probe a hundred): start-up
 * takes about the longest of them rather than their sum.  Results are
 * taken in order, so what follows does not depend on which ends first.
 * A language whose inputs have not changed since its shells last ran takes
 * their answers from the cache instead (shellcache.c). */
static int run_shells(const struct gaol_config *cfg, struct lang_set *set,
		      struct shell_done *done, char *err, size_t errlen)
{
	size_t total = set->n * SHELLS_PER_LANG, next = 0, waited = 0, k, t;
	/* Taken in order, a slow one holds up the taking (not the running) of
	 * those after it: the window is wide enough for the rest to go on. */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t window = cpus > 4 ? 4 * (size_t)cpus : 16;
	struct shell_job *jobs = calloc(total ? total : 1, sizeof(*jobs));
	bool *hit = calloc(set->n ? set->n : 1, sizeof(*hit));
	char cmds[SHELLS_PER_LANG][64];
	const char *v[SHELLS_PER_LANG];
	struct lang_shell_result res[SHELLS_PER_LANG];
	long timeout_ms = cfg->lang_shell_timeout_ms > 0 ? cfg->lang_shell_timeout_ms
							  : LANG_START_TIMEOUT_MS;

	if (jobs == NULL || hit == NULL) {
		free(jobs);
		free(hit);
		return fail(err, errlen, "out of memory");
	}
	for (k = 0; k < set->n; k++) {
		shell_cmds(&set->v[k], cmds, v);
		if (!(hit[k] = shellcache_load(cfg, &set->v[k], v, res,
					       SHELLS_PER_LANG) == 0))
			continue;
		for (t = 0; t < SHELLS_PER_LANG; t++)
			done[k * SHELLS_PER_LANG + t] = (struct shell_done){ .rc = 0, .res = res[t] };
	}
	while (waited < total) {
		while (next < total && next - waited < window) {
			struct lang *lang = &set->v[next / SHELLS_PER_LANG];

			t = next % SHELLS_PER_LANG;
			jobs[next].pid = -1;
			if (!hit[next / SHELLS_PER_LANG]) {
				shell_cmds(lang, cmds, v);
				done[next].rc = shell_start(lang->dir, v[t], timeout_ms,
							    true, &jobs[next], done[next].why,
							    sizeof(done[next].why));
				if (done[next].rc == -1)
					jobs[next].pid = -1;
			}
			next++;
		}
		k = waited++;
		if (jobs[k].pid != -1) {
			done[k].rc = shell_finish(&jobs[k], &done[k].res, done[k].why,
						  sizeof(done[k].why));
			done[k].timed_out = jobs[k].timed_out;
		}
	}
	for (k = 0; k < set->n; k++) {
		bool ran = !hit[k];

		for (t = 0; t < SHELLS_PER_LANG; t++) {
			ran = ran && done[k * SHELLS_PER_LANG + t].rc == 0;
			res[t] = done[k * SHELLS_PER_LANG + t].res;
		}
		shell_cmds(&set->v[k], cmds, v);
		if (ran)
			shellcache_store(cfg, &set->v[k], v, res, SHELLS_PER_LANG);
	}
	free(jobs);
	free(hit);
	return 0;
}

/* What langs_load learns of one language from its shells (done holds
 * SHELLS_PER_LANG results, which this takes). */
static int load_results(struct lang *lang, struct shell_done *done, char *err,
			size_t errlen)
{
	struct lang_shell_result *res = &done[0].res;
	char why[512];
	size_t i;

	/* A shell that hung (a toolchain stuck on a stalled disk) takes its
	 * language out of service until the next start, not the service: the
	 * other languages go on.  Said on stderr; /health lists it as not
	 * installed.  Any other failure of make is the directory's mistake. */
	bool make_hung = false;
	for (i = 0; i < SHELLS_PER_LANG; i++) {
		if (done[i].rc != -1 || !done[i].timed_out)
			continue;
		fprintf(stderr, "gaol: %s: start-up shell `%s`: %s (RUN_LANG_"
			"START_TIMEOUT); %s is not available until gaol "
			"restarts\n", lang->slug,
			i == 0 ? lang->probe : targets[i - 1].target,
			done[i].why, lang->slug);
		make_hung |= i > 0;     /* a hung probe: "not installed" below */
	}
	if (make_hung)
		return 0;

	/* A probe that cannot run or hangs means "not installed". */
	if (done[0].rc == 0) {
		lang->installed = WIFEXITED(res->status) &&
				  WEXITSTATUS(res->status) == 0;
		/* What the probe printed names the toolchain's version: it is
		 * part of the compile cache's key. */
		if (asprintf(&lang->version, "%.*s%.*s", (int)res->out_len,
			     res->out ? res->out : "", (int)res->err_len,
			     res->err ? res->err : "") < 0)
			lang->version = NULL;
		lang->semver = semver_read(lang->version, lang->version_regex);
		lang_shell_result_free(res);
	}

	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (recipe_resolve(targets[i].target,
				   done[i + 1].rc == -1 ? done[i + 1].why : NULL,
				   &done[i + 1].res,
				   (char **)((char *)lang + targets[i].offset),
				   why, sizeof(why)) == -1)
			return fail(err, errlen, "%s: %s", lang->dir, why);
	if (dir_list_subdirs(lang->dir, &lang->subdirs, why, sizeof(why)) == -1)
		return fail(err, errlen, "%s: %s", lang->dir, why);
	return 0;
}

/* A name /evaluate may use must mean one language. */
static int check_names(const struct lang_set *set, char *err, size_t errlen)
{
	const struct lang *other;
	size_t i;
	char **a;

	for (i = 0; i < set->n; i++)
		for (a = set->v[i].aliases; *a != NULL; a++)
			if ((other = langs_find(set, *a, LANG_BY_SLUG_OR_ALIAS)) != &set->v[i])
				return fail(err, errlen, "alias \"%s\" of %s is "
					    "also a name of %s", *a,
					    set->v[i].slug, other->slug);
	return 0;
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The costly part of loading set's languages: fingerprints, then the
 * probes and `make -n` (their cached answers when unchanged), then what
 * each language learns from them. */
static int complete(const struct gaol_config *cfg, struct lang_set *set, char *err,
		    size_t errlen)
{
	struct shell_done *done = calloc(set->n * SHELLS_PER_LANG, sizeof(*done));
	size_t k;
	int rc = 0;

	/* The fingerprint first: it is part of the shells' cache key. */
	for (k = 0; rc == 0 && k < set->n; k++)
		if (set->v[k].fingerprint == NULL &&
		    dir_fingerprint(set->v[k].dir, &set->v[k].fingerprint) == -1)
			rc = fail(err, errlen, "%s: fingerprint errno=%d",
				  set->v[k].dir, errno);
	if (done == NULL)
		rc = fail(err, errlen, "out of memory");
	else if (rc == 0)
		rc = run_shells(cfg, set, done, err, errlen);
	for (k = 0; rc == 0 && k < set->n; k++) {
		rc = load_results(&set->v[k], &done[k * SHELLS_PER_LANG], err, errlen);
		set->v[k].loaded = rc == 0;
	}
	for (k = 0; done != NULL && k < set->n * SHELLS_PER_LANG; k++)
		lang_shell_result_free(&done[k].res);
	free(done);
	return rc;
}

int langs_load(const struct gaol_config *cfg, struct lang_set *set, char *err,
	       size_t errlen)
{
	if (langs_load_names(cfg, set, err, errlen) < 0)
		return -1;
	if (complete(cfg, set, err, errlen) < 0) {
		langs_free(set);
		return -1;
	}
	return 0;
}

int lang_complete(const struct gaol_config *cfg, struct lang *lang, char *err,
		  size_t errlen)
{
	struct lang_set one = { lang, 1 };

	return lang->loaded ? 0 : complete(cfg, &one, err, errlen);
}

int langs_load_names(const struct gaol_config *cfg, struct lang_set *set, char *err,
		     size_t errlen)
{
	struct dirent **names = NULL;
	struct lang *v;
	char path[PATH_MAX];
	struct stat st;
	int i, n, rc = 0;

	memset(set, 0, sizeof(*set));
	if ((n = scandir(cfg->langs_dir, &names, NULL, name_cmp)) == -1)
		return fail(err, errlen, "%s: scandir errno=%d", cfg->langs_dir,
			    errno);
	for (i = 0; i < n && rc == 0; i++) {
		if (names[i]->d_name[0] == '.')
			continue;
		if (path_of(path, sizeof(path), cfg->langs_dir,
			    names[i]->d_name, "/lang.json") == -1 ||
		    stat(path, &st) == -1) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue;
			rc = fail(err, errlen, "%s: stat errno=%d", path, errno);
			break;
		}
		if ((v = reallocarray(set->v, set->n + 1, sizeof(*v))) == NULL) {
			rc = fail(err, errlen, "out of memory");
			break;
		}
		set->v = v;
		memset(&set->v[set->n], 0, sizeof(*v));
		rc = load_manifest(cfg, names[i]->d_name, &set->v[set->n], err,
				   errlen);
		set->n++;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == 0 && set->n == 0)
		rc = fail(err, errlen, "%s: no language directories (with a "
			  "lang.json)", cfg->langs_dir);
	if (rc == 0)
		rc = check_names(set, err, errlen);
	if (rc == -1)
		langs_free(set);
	return rc;
}

const struct lang *langs_find(const struct lang_set *set, const char *name,
			      enum lang_match match)
{
	char **a;
	size_t i;

	for (i = 0; i < set->n; i++)
		if (strcmp(set->v[i].slug, name) == 0)
			return &set->v[i];
	if (match != LANG_BY_SLUG_OR_ALIAS)
		return NULL;
	for (i = 0; i < set->n; i++)
		for (a = set->v[i].aliases; a != NULL && *a != NULL; a++)
			if (strcmp(*a, name) == 0)
				return &set->v[i];
	return NULL;
}

void lang_free(struct lang *lang)
{
	free(lang->slug);
	strv_free(lang->aliases);
	free(lang->dir);
	free(lang->workdir);
	free(lang->solution_file);
	free(lang->checker_file);
	strv_free(lang->overlay_paths);
	free(lang->probe);
	free(lang->version);
	free(lang->fingerprint);
	free(lang->test_cmd);
	free(lang->build_cmd);
	free(lang->run_cmd);
	free(lang->compile_cmd);
	free(lang->execute_cmd);
	free(lang->execute_file);
	free(lang->version_regex);
	free(lang->semver);
	free(lang->piston_language);
	free(lang->piston_runtime);
	for (size_t i = 0; i < lang->n_judge0; i++)
		free(lang->judge0[i].name);
	free(lang->judge0);
	free(lang->judge0_options);
	strv_free(lang->subdirs);
	memset(lang, 0, sizeof(*lang));
}

void langs_free(struct lang_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		lang_free(&set->v[i]);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

