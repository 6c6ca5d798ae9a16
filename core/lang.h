/*
 * lang: the language set, one directory per language under langs/ (SPEC
 * section 4).  Each lang.json is read once at start-up; the commands of the
 * Makefile's targets are resolved once with `make -n` so that make never runs
 * per request; the toolchain probe tells whether the language is installed.
 */
#ifndef GAOL_LANG_H
#define GAOL_LANG_H

#include <stdbool.h>
#include <stddef.h>

struct gaol_config;

struct lang {
	char *slug;
	char **aliases;          /* NULL-terminated */
	char *dir;               /* absolute path of langs/<slug> */
	char *workdir;           /* where request files go: "check", "lib" */
	char *solution_file;     /* e.g. "solution.py" */
	char *checker_file;      /* NULL when the language takes no checker */
	bool checker_required;
	unsigned long long tmp_size;   /* bytes: per-run tmpfs */
	unsigned long long mem_max;    /* bytes: cgroup memory limit */
	char **overlay_paths;    /* NULL-terminated, absolute */
	char *probe;             /* shell command: exit 0 when the toolchain is here */
	bool installed;          /* probe result at start-up */
	char *test_cmd;          /* `make -n test`, resolved; NULL if no target */
	char *build_cmd;         /* `make -n build`, NULL if no target */
	char *run_cmd;           /* `make -n run`, NULL if no target */
	char **subdirs;          /* NULL-terminated relative dirs of dir (skeleton) */
};

struct lang_set {
	struct lang *v;
	size_t n;
};

/* Parses one manifest (the text of lang.json) into *lang (dir excepted).
 * Returns 0, or -1 with a reason in err.  Pure: no file system access. */
int lang_parse_manifest(const char *json, size_t len, struct lang *lang,
			char *err, size_t errlen);

/* Loads every langs_dir/<slug>/lang.json, applies the environment overrides of
 * cfg, probes toolchains and resolves commands.  Returns 0, or -1 with a
 * reason naming the language and file. */
int langs_load(const struct gaol_config *cfg, struct lang_set *set,
	       char *err, size_t errlen);

/* Finds a language by slug, or by alias when aliases is true. */
const struct lang *langs_find(const struct lang_set *set, const char *name,
			      bool aliases);

void lang_free(struct lang *lang);
void langs_free(struct lang_set *set);

#endif
