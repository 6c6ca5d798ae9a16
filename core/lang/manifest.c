/* SPDX-License-Identifier: Apache-2.0 */
/*
 * manifest: one lang.json parsed and checked (the rules are in lang.h).
 * Pure: no file system access.
 */
#define _GNU_SOURCE		/* strchrnul, close_range, pidfd_open */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/size.h"
#include "util/fail.h"
#include "util/json.h"
#include "lang/internal.h"

#define MANIFEST_DEPTH_MAX  8

static const char *const manifest_keys[] = {
	"slug", "aliases", "workdir", "solution_file", "checker_file",
	"checker_required", "tmp_size", "mem_max", "overlay_paths", "probe",
	"time_factor", "time_extra_ms", "stack_is_memory",
	"execute_file", "entry_rule", "version_regex", "piston_language",
	"piston_runtime", "judge0", "judge0_options",
};



static bool is_slug(const char *s)
{
	if (!(*s >= 'a' && *s <= 'z'))
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

/* One path component of [A-Za-z0-9._-], neither "." nor "..". */
static bool is_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || (len == 1 && s[0] == '.') ||
	    (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (i = 0; i < len; i++)
		if (!isascii((unsigned char)s[i]) ||
		    !(isalnum((unsigned char)s[i]) || strchr("._-", s[i])))
			return false;
	return true;
}

static bool is_relative_path(const char *s)
{
	const char *e;

	for (;; s = e + 1) {
		e = strchrnul(s, '/');
		if (!is_name(s, (size_t)(e - s)))
			return false;
		if (*e == '\0')
			return true;
	}
}

/* Absolute, no empty, "." or ".." parts, no comma (the override is a
 * comma-separated list), no trailing slash. */
bool lang_path_is_absolute(const char *s, size_t len)
{
	size_t i, start;

	if (len < 2 || s[0] != '/' || s[len - 1] == '/')
		return false;
	for (i = 1, start = 1; i <= len; i++) {
		if (i < len && (s[i] == ',' || s[i] == '\0' ||
				isspace((unsigned char)s[i])))
			return false;
		if (i == len || s[i] == '/') {
			if (i == start || (i - start == 1 && s[start] == '.') ||
			    (i - start == 2 && s[start] == '.' &&
			     s[start + 1] == '.'))
				return false;
			start = i + 1;
		}
	}
	return true;
}

static const char *type_name(struct json_object *v)
{
	return json_type_to_name(json_object_get_type(v));
}

/* A string field: required or not, and without NUL inside. */
static int manifest_string(struct json_object *obj, const char *key, bool required,
			   const char **val, char *err, size_t errlen)
{
	struct json_object *v;

	*val = NULL;
	if (!json_object_object_get_ex(obj, key, &v) || v == NULL) {
		if (required)
			return fail(err, errlen, "%s is missing", key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return fail(err, errlen, "%s must be a string, not %s", key,
			    type_name(v));
	*val = json_object_get_string(v);
	if (strlen(*val) != (size_t)json_object_get_string_len(v))
		return fail(err, errlen, "%s contains a NUL character", key);
	if (**val == '\0')
		return fail(err, errlen, "%s is empty", key);
	return 0;
}

static int set_string(char **dst, const char *s, char *err, size_t errlen)
{
	if (s == NULL)
		return 0;
	if ((*dst = strdup(s)) == NULL)
		return fail(err, errlen, "out of memory");
	return 0;
}

static int manifest_size(struct json_object *obj, const char *key, unsigned long long *val,
		    char *err, size_t errlen)
{
	const char *s;

	if (manifest_string(obj, key, true, &s, err, errlen) == -1)
		return -1;
	if (parse_size(s, val) == -1 || *val == 0)
		return fail(err, errlen, "%s \"%s\" is not a size above 0 (bytes, "
			    "or a number with k, m or g)", key, s);
	return 0;
}

/* An optional array of strings, each accepted by valid(). */
static int get_list(struct json_object *obj, const char *key,
		    bool (*valid)(const char *, size_t), const char *what, char ***val,
		    char *err, size_t errlen)
{
	struct strv sv = { 0 };
	struct json_object *v, *item;
	const char *s;
	size_t i, len;

	if (json_object_object_get_ex(obj, key, &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_array))
			return fail(err, errlen, "%s must be an array of strings, "
				    "not %s", key, type_name(v));
		for (i = 0; i < json_object_array_length(v); i++) {
			item = json_object_array_get_idx(v, i);
			if (!json_object_is_type(item, json_type_string)) {
				strv_free(strv_finish(&sv));
				return fail(err, errlen, "%s[%zu] must be a string, "
					    "not %s", key, i, type_name(item));
			}
			s = json_object_get_string(item);
			len = (size_t)json_object_get_string_len(item);
			if (strlen(s) != len || !valid(s, len)) {
				strv_free(strv_finish(&sv));
				return fail(err, errlen, "%s[%zu] \"%s\" is not %s",
					    key, i, s, what);
			}
			if (strv_add(&sv, s, len) == -1) {
				strv_free(strv_finish(&sv));
				return fail(err, errlen, "out of memory");
			}
		}
	}
	if ((*val = strv_finish(&sv)) == NULL)
		return fail(err, errlen, "out of memory");
	return 0;
}

static bool is_alias(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++)
		if (!isgraph((unsigned char)s[i]))
			return false;
	return true;
}

static int check_keys(struct json_object *obj, char *err, size_t errlen)
{
	size_t i;

	json_object_object_foreach(obj, key, val) {
		(void)val;
		for (i = 0; i < sizeof(manifest_keys) / sizeof(manifest_keys[0]);
		     i++)
			if (strcmp(key, manifest_keys[i]) == 0)
				break;
		if (i == sizeof(manifest_keys) / sizeof(manifest_keys[0]))
			return fail(err, errlen, "unknown key \"%s\"", key);
	}
	return 0;
}

static int manifest_fields(struct json_object *obj, struct lang *lang, char *err,
			   size_t errlen)
{
	const char *slug, *workdir, *solution, *checker, *probe;
	struct json_object *v;

	if (check_keys(obj, err, errlen) == -1 ||
	    manifest_string(obj, "slug", true, &slug, err, errlen) == -1 ||
	    manifest_string(obj, "workdir", true, &workdir, err, errlen) == -1 ||
	    manifest_string(obj, "solution_file", true, &solution, err, errlen) == -1 ||
	    manifest_string(obj, "checker_file", false, &checker, err, errlen) == -1 ||
	    manifest_string(obj, "probe", true, &probe, err, errlen) == -1)
		return -1;
	if (!is_slug(slug))
		return fail(err, errlen, "slug \"%s\" is not lower-case letters, "
			    "digits and _, starting with a letter", slug);
	if (!is_relative_path(workdir))
		return fail(err, errlen, "workdir \"%s\" is not a relative path "
			    "without . or .. parts", workdir);
	if (!is_name(solution, strlen(solution)))
		return fail(err, errlen, "solution_file \"%s\" is not a plain "
			    "file name", solution);
	if (checker != NULL && !is_name(checker, strlen(checker)))
		return fail(err, errlen, "checker_file \"%s\" is not a plain "
			    "file name", checker);

	if (json_object_object_get_ex(obj, "checker_required", &v) &&
	    v != NULL) {
		if (!json_object_is_type(v, json_type_boolean))
			return fail(err, errlen, "checker_required must be true or "
				    "false, not %s", type_name(v));
		lang->checker_required = json_object_get_boolean(v);
	}
	if (lang->checker_required && checker == NULL)
		return fail(err, errlen, "checker_required is true but "
			    "checker_file is not given");

	if (manifest_size(obj, "tmp_size", &lang->tmp_size, err, errlen) == -1 ||
	    manifest_size(obj, "mem_max", &lang->mem_max, err, errlen) == -1)
		return -1;
	if (get_list(obj, "aliases", is_alias, "a name without spaces",
		     &lang->aliases, err, errlen) == -1 ||
	    get_list(obj, "overlay_paths", lang_path_is_absolute,
		     "a plain absolute path", &lang->overlay_paths, err,
		     errlen) == -1)
		return -1;

	if (set_string(&lang->slug, slug, err, errlen) == -1 ||
	    set_string(&lang->workdir, workdir, err, errlen) == -1 ||
	    set_string(&lang->solution_file, solution, err, errlen) == -1 ||
	    set_string(&lang->checker_file, checker, err, errlen) == -1 ||
	    set_string(&lang->probe, probe, err, errlen) == -1)
		return -1;
	return 0;
}

/* What /evaluate gives the language beyond a test's limit L: a CPU (and
 * wall) limit of L * time_factor + time_extra_ms, and a stack as large as
 * the run's memory (lang.h). */
static int manifest_judging(struct json_object *obj, struct lang *lang, char *err,
			    size_t errlen)
{
	struct json_object *v;

	lang->time_factor = 1.0;
	if (json_object_object_get_ex(obj, "time_factor", &v) && v) {
		if (!json_object_is_type(v, json_type_double) &&
		    !json_object_is_type(v, json_type_int))
			return fail(err, errlen, "time_factor must be a number, not %s",
				    type_name(v));
		lang->time_factor = json_object_get_double(v);
		if (!(lang->time_factor >= 0.1 && lang->time_factor <= 20))
			return fail(err, errlen, "time_factor must be between 0.1 and 20");
	}
	if (json_object_object_get_ex(obj, "time_extra_ms", &v) && v) {
		if (!json_object_is_type(v, json_type_int))
			return fail(err, errlen, "time_extra_ms must be an integer, not %s",
				    type_name(v));
		lang->time_extra_ms = (long)json_object_get_int64(v);
		if (lang->time_extra_ms < 0 || lang->time_extra_ms > 10000)
			return fail(err, errlen, "time_extra_ms must be between 0 and 10000");
	}
	if (json_object_object_get_ex(obj, "stack_is_memory", &v) && v) {
		if (!json_object_is_type(v, json_type_boolean))
			return fail(err, errlen, "stack_is_memory must be true or false, "
				    "not %s", type_name(v));
		lang->stack_is_memory = json_object_get_boolean(v);
	}
	return 0;
}

/* POST /execute's keys (langs/README.md, "POST /execute's recipes"). */
static int manifest_execute(struct json_object *obj, struct lang *lang, char *err,
			    size_t errlen)
{
	const char *file, *rule, *re, *pname, *prt;
	if (manifest_string(obj, "execute_file", false, &file, err, errlen) == -1 ||
	    manifest_string(obj, "entry_rule", false, &rule, err, errlen) == -1 ||
	    manifest_string(obj, "version_regex", false, &re, err, errlen) == -1 ||
	    manifest_string(obj, "piston_language", false, &pname, err, errlen) == -1 ||
	    manifest_string(obj, "piston_runtime", false, &prt, err, errlen) == -1)
		return -1;
	if (file && !is_relative_path(file))
		return fail(err, errlen, "execute_file \"%s\" is not a relative path "
			    "without . or .. parts", file);
	if (rule && strcmp(rule, "public_class"))
		return fail(err, errlen, "entry_rule \"%s\" is not \"public_class\"", rule);
	lang->entry_public_class = rule != NULL;
	if (re) {
		regex_t r;
		int rc = regcomp(&r, re, REG_EXTENDED);
		bool group = rc == 0 && r.re_nsub >= 1;
		if (rc == 0)
			regfree(&r);
		if (!group)
			return fail(err, errlen, "version_regex \"%s\" is not a POSIX "
				    "extended regex with a group", re);
	}
	if ((pname && !is_alias(pname, strlen(pname))) || (prt && !is_alias(prt, strlen(prt))))
		return fail(err, errlen, "piston_language and piston_runtime must be "
			    "names without spaces");
	if (set_string(&lang->execute_file, file ? file : "main", err, errlen) == -1 ||
	    set_string(&lang->version_regex, re, err, errlen) == -1 ||
	    set_string(&lang->piston_language, pname, err, errlen) == -1 ||
	    set_string(&lang->piston_runtime, prt, err, errlen) == -1)
		return -1;
	return 0;
}

static int judge0_entry(struct json_object *e, struct lang_judge0 *out, char *err,
			size_t errlen)
{
	struct json_object *id, *name;
	if (!json_object_is_type(e, json_type_object) ||
	    !json_object_object_get_ex(e, "id", &id) || !json_object_is_type(id, json_type_int) ||
	    !json_object_object_get_ex(e, "name", &name) ||
	    !json_object_is_type(name, json_type_string) || json_object_object_length(e) != 2)
		return fail(err, errlen, "judge0 entries must be {\"id\": int, \"name\": string}");
	int64_t n = json_object_get_int64(id);
	if (n < 1 || n > 9999)
		return fail(err, errlen, "judge0 id %lld is not in 1..9999", (long long)n);
	out->id = (int)n;
	return set_string(&out->name, json_object_get_string(name), err, errlen);
}

/* Judge0's keys (lang.h): the ids, and the compiler options' rule. */
static int manifest_judge0(struct json_object *obj, struct lang *lang, char *err,
			   size_t errlen)
{
	struct json_object *v;
	const char *re;
	if (manifest_string(obj, "judge0_options", false, &re, err, errlen) == -1)
		return -1;
	if (re) {
		regex_t r;
		if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB))
			return fail(err, errlen, "judge0_options \"%s\" is not a POSIX "
				    "extended regex", re);
		regfree(&r);
		if (set_string(&lang->judge0_options, re, err, errlen) == -1)
			return -1;
	}
	if (!json_object_object_get_ex(obj, "judge0", &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return fail(err, errlen, "judge0 must be an array, not %s", type_name(v));
	size_t n = json_object_array_length(v);
	if (n && !(lang->judge0 = calloc(n, sizeof(*lang->judge0))))
		return fail(err, errlen, "out of memory");
	for (size_t i = 0; i < n; i++, lang->n_judge0++)
		if (judge0_entry(json_object_array_get_idx(v, i), &lang->judge0[i], err,
				 errlen) < 0)
			return -1;
	return 0;
}

int lang_parse_manifest(const char *json, size_t len, struct lang *lang,
			char *err, size_t errlen)
{
	struct json_fault f;
	struct json_object *obj;
	int rc;

	memset(lang, 0, sizeof(*lang));
	if (len > MANIFEST_MAX)
		return fail(err, errlen, "larger than %d bytes", MANIFEST_MAX);
	if ((obj = json_strict_object(json, len, MANIFEST_DEPTH_MAX, false, &f)) == NULL) {
		switch (f.kind) {
		case JSON_NO_MEMORY:
			return fail(err, errlen, "out of memory");
		case JSON_TRAILING:
			return fail(err, errlen, "data after the JSON object at "
				    "byte %zu", f.byte);
		case JSON_NOT_OBJECT:
			return fail(err, errlen, "must be a JSON object, not %s",
				    f.type);
		default:
			return fail(err, errlen, "not valid JSON: %s at byte %zu",
				    f.desc, f.byte);
		}
	}
	rc = manifest_fields(obj, lang, err, errlen);
	if (rc == 0)
		rc = manifest_judging(obj, lang, err, errlen);
	if (rc == 0)
		rc = manifest_execute(obj, lang, err, errlen);
	if (rc == 0)
		rc = manifest_judge0(obj, lang, err, errlen);
	json_object_put(obj);
	if (rc == -1)
		lang_free(lang);
	return rc;
}

