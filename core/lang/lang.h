/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lang: the language set, one directory per language under langs/
 * (docs/api.md, "Languages").  Each lang.json is read once at start-up; the commands of the
 * Makefile's targets are resolved once with `make -n` so that make never runs
 * per request; the toolchain probe tells whether the language is installed.
 */
#ifndef GAOL_LANG_H
#define GAOL_LANG_H

#include <stdbool.h>
#include <stddef.h>

struct gaol_config;

/* One Judge0 language id and Judge0 CE's name for it ("Python (3.8.1)"). */
struct lang_judge0 {
	int id;
	char *name;
};

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
	bool loaded;             /* what follows is known (lang_complete) */
	bool installed;          /* probe result at start-up */
	char *version;           /* what the probe printed (compile cache key) */
	char *fingerprint;       /* of the directory's files (compile cache key) */
	char *test_cmd;          /* `make -n test`, resolved; NULL if no target */
	char *build_cmd;         /* `make -n build`, NULL if no target */
	char *run_cmd;           /* `make -n run`, NULL if no target */
	char **subdirs;          /* NULL-terminated relative dirs of dir (skeleton) */
	/* POST /execute (langs/README.md, "POST /execute's recipes"). */
	char *compile_cmd;       /* `make -n compile`, NULL: no compile stage */
	char *execute_cmd;       /* `make -n execute`, NULL: no /execute */
	char *execute_file;      /* the entry point's default name */
	bool entry_public_class; /* entry_rule "public_class" */
	char *version_regex;     /* POSIX ERE over the probe's output; NULL: the
				  * first N.N[.N] */
	char *semver;            /* the toolchain's version, "3.11.2" (from
				  * version and version_regex); NULL: unknown */
	char *piston_language;   /* Piston's name; NULL: the slug */
	char *piston_runtime;    /* Piston's runtime field; NULL: none */
	/* /evaluate: a test's limit L becomes L * time_factor + time_extra_ms
	 * for this language (default 1 and 0); stack_is_memory: RLIMIT_STACK
	 * is the run's memory limit (compiled languages' deep recursion). */
	double time_factor;
	long time_extra_ms;
	bool stack_is_memory;
	/* Judge0's API (core/judge0/): the Judge0 CE language ids this
	 * language answers, and the compiler options it takes. */
	struct lang_judge0 *judge0;
	size_t n_judge0;
	char *judge0_options;    /* POSIX ERE every option word must match;
				  * NULL: the language takes none */
};

/*
 * How a target's recipe becomes one command for `/bin/sh -c`: the lines that
 * `make -s -n <target>` prints (a line ending in a backslash continues on the
 * next) are joined as `{ line1\n} && { line2\n}`, so the first failing line
 * stops the rest, as under make, without a subshell per line.  Unlike make,
 * the lines share one shell: a `cd` or a variable carries over to the next
 * line, and make's `-` (ignore this line's failure) is not seen by -n, so a
 * failing `-` line stops the rest too.  A recipe of one simple command that
 * runs a program is given `exec`, so that the program is the payload and a
 * signal that kills it is reported as that signal; a shell builtin (`true`,
 * `echo`) stays the shell's.  A target with nothing to run, or no rule at
 * all, resolves to NULL.  Targets are not forced (-B is not given):
 * declare them .PHONY, and what the language ships prebuilt (a precompiled
 * header) stays out of the command.
 *
 * Manifest checks beyond types: slug is [a-z][a-z0-9_]*; workdir is a relative
 * path without "." or ".." parts; solution_file and checker_file are plain
 * file names; tmp_size and mem_max are sizes above 0; overlay_paths are
 * absolute; aliases and overlay_paths may be omitted (empty), checker_file
 * may be null or omitted, checker_required defaults to false and needs a
 * checker_file; time_factor is a number in [0.1, 20] (default 1),
 * time_extra_ms an integer in [0, 10000] (default 0), stack_is_memory a
 * bool (default false); execute_file a relative path of plain parts,
 * entry_rule "public_class", version_regex a valid POSIX ERE with a group,
 * piston_language and piston_runtime names without spaces, judge0 an
 * array of {"id": 1..9999, "name": "..."} (Judge0 CE's), judge0_options a
 * valid POSIX ERE (all optional); any other key is an error (it is most
 * likely a typo).
 */

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
/* The manifests alone (names, directories, limits, overlay paths): each
 * language is then completed when first needed, by lang_complete.  For a
 * process that serves one request (a one-shot gaol-run), which then pays for
 * its own language's probe, commands and fingerprint, not for all of them
 * (3 ms of a start-up with the nineteen of langs/). */
int langs_load_names(const struct gaol_config *cfg, struct lang_set *set,
		     char *err, size_t errlen);
/* What langs_load adds to a manifest, for one language (nothing when it
 * has it): 0, or -1 with the reason langs_load would have failed with. */
int lang_complete(const struct gaol_config *cfg, struct lang *lang, char *err,
		  size_t errlen);

/* What lang_shell saw: the wait status and, when captured, stdout and
 * stderr (NUL-terminated, malloc'd; NULL when not captured). */
struct lang_shell_result {
	int status;
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
};

/* Runs `/bin/sh -c cmd` in dir, in its own process group, with exactly
 * PATH=/usr/bin:/bin LANG=C.UTF-8 HOME=/tmp and stdin on /dev/null; stdout and
 * stderr are captured when capture is true, else go to /dev/null.  At
 * timeout_ms the group is killed and -1 returned; the group is also killed
 * once the shell exits, so nothing it started outlives it.  Used for the
 * toolchain probes and `make -n` (both with a 10 s guard).  Returns 0 with
 * the result (free it with lang_shell_result_free), or -1 with a reason. */
int lang_shell(const char *dir, const char *cmd, long timeout_ms, bool capture,
	       struct lang_shell_result *res, char *err, size_t errlen);
void lang_shell_result_free(struct lang_shell_result *res);

/* A command dash would only exec: "exec", then words of plain characters
 * (letters, digits and _ . / - + , : = @ %) separated by blanks, the first
 * of them (the program) with a '/' in it and not starting with '-': no
 * expansion, quoting, PATH search or builtin is involved, so an execve of
 * the words is what dash itself would do, less its own start-up
 * (docs/design.md, "The sandbox step by step", step 7).  Copies cmd into
 * buf (len bytes) and points argv (max entries, NULL-terminated) at its
 * words: how many, or 0 when the command needs the shell (or does not
 * fit). */
size_t lang_direct_argv(const char *cmd, char *buf, size_t len, char **argv, size_t max);

/* How langs_find matches a name: /run takes slugs only, /evaluate aliases
 * too.  (0 and 1, so that a plain false or true still reads right.) */
enum lang_match {
	LANG_BY_SLUG = 0,
	LANG_BY_SLUG_OR_ALIAS = 1,
};

/* Finds a language by its slug, or by one of its aliases too. */
const struct lang *langs_find(const struct lang_set *set, const char *name,
			      enum lang_match match);

void lang_free(struct lang *lang);
void langs_free(struct lang_set *set);

#endif
