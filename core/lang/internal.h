/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lang/internal.h: what the files of core/lang/ share and nothing else
 * uses: a growing string array, the shell jobs langs_load runs side by side,
 * and the steps of loading a language.
 */
#ifndef GAOL_LANG_INTERNAL_H
#define GAOL_LANG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lang/lang.h"

#define MANIFEST_MAX        (64 * 1024)   /* bytes of one lang.json */

/* A growing NULL-terminated array of strings. */
struct strv {
	char **v;
	size_t n, cap;
};


int strv_add(struct strv *sv, const char *s, size_t len);
char **strv_finish(struct strv *sv);
void strv_free(char **v);
int strv_cmp(const void *a, const void *b);

/* An absolute path without "." or ".." parts (manifest.c). */
bool lang_path_is_absolute(const char *s, size_t len);

/* A shell started and not yet waited for (shell.c). */
struct capture {
	int fd;
	char *buf;
	size_t len, cap;
};

struct shell_job {
	pid_t pid;
	int pidfd;
	struct capture cap[2];
	long deadline, timeout_ms;
	bool capture;
	bool timed_out;          /* shell_finish: it ran past its deadline */
};

int shell_start(const char *dir, const char *cmd, long timeout_ms, bool capture,
		struct shell_job *j, char *err, size_t errlen);
int shell_finish(struct shell_job *j, struct lang_shell_result *res, char *err,
		 size_t errlen);

/* One start-up shell's outcome (lang.c, shellcache.c). */
struct shell_done {
	int rc;                  /* lang_shell's */
	bool timed_out;          /* -1 because it ran past its timeout */
	char why[256];           /* its reason when -1 */
	struct lang_shell_result res;
};

/* The answers of a language's n start-up shells (commands cmds[0..n)) kept
 * in cfg->state_dir between starts (shellcache.c): load fills res and
 * returns 0 when the entry's key is today's, else -1 (res empty); store keeps
 * fresh answers.  GAOL_LANG_CACHE=0 (cfg->lang_cache off): neither. */
int shellcache_load(const struct gaol_config *cfg, const struct lang *lang,
		    const char *const *cmds, struct lang_shell_result *res, size_t n);
void shellcache_store(const struct gaol_config *cfg, const struct lang *lang,
		      const char *const *cmds, const struct lang_shell_result *res,
		      size_t n);

/* `make -s -n <target>`'s result as one command, or NULL (recipe.c). */
int recipe_resolve(const char *target, const char *shell_why,
		   struct lang_shell_result *res_in, char **cmd, char *err,
		   size_t errlen);

/* What the language directory holds (dir.c). */
int dir_fingerprint(const char *dir, char **out);
int dir_list_subdirs(const char *dir, char ***subdirs, char *err, size_t errlen);

#endif
