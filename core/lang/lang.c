/*
 * lang: the language set, read once at start-up (SPEC section 4).
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
#include "api/config.h"
#include "lang/lang.h"

#define MANIFEST_MAX        (64 * 1024)
#define MANIFEST_DEPTH_MAX  8
#define SHELL_TIMEOUT_MS    10000
#define SHELL_OUTPUT_MAX    (1024 * 1024)
#define SUBDIR_DEPTH_MAX    32

static char *const shell_env[] = {
	"PATH=/usr/bin:/bin",
	"LANG=C.UTF-8",
	"HOME=/tmp",
	NULL
};

/* The make targets and where their resolved commands go. */
static const struct {
	const char *target;
	size_t offset;
} targets[] = {
	{ "test", offsetof(struct lang, test_cmd) },
	{ "build", offsetof(struct lang, build_cmd) },
	{ "run", offsetof(struct lang, run_cmd) },
};

static const char *const manifest_keys[] = {
	"slug", "aliases", "workdir", "solution_file", "checker_file",
	"checker_required", "tmp_size", "mem_max", "overlay_paths", "probe",
};


/* A growing NULL-terminated array of strings. */
struct strv {
	char **v;
	size_t n, cap;
};

static int
strv_add(struct strv *sv, const char *s, size_t len)
{
	char **v;

	if (sv->n + 2 > sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 8;

		if ((v = reallocarray(sv->v, cap, sizeof(*v))) == NULL)
			return -1;
		sv->v = v;
		sv->cap = cap;
	}
	if ((sv->v[sv->n] = strndup(s, len)) == NULL)
		return -1;
	sv->v[++sv->n] = NULL;
	return 0;
}

/* Hands the array over, never NULL: an empty list is { NULL }. */
static char **
strv_finish(struct strv *sv)
{
	char **v = sv->v;

	if (v == NULL)
		v = calloc(1, sizeof(*v));
	memset(sv, 0, sizeof(*sv));
	return v;
}

static void
strv_free(char **v)
{
	char **p;

	if (v == NULL)
		return;
	for (p = v; *p != NULL; p++)
		free(*p);
	free(v);
}

static int
strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --- manifest --- */

static bool
is_slug(const char *s)
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
static bool
is_name(const char *s, size_t len)
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

static bool
is_relative_path(const char *s)
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
static bool
is_absolute_path(const char *s, size_t len)
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

static const char *
type_name(struct json_object *v)
{
	return json_type_to_name(json_object_get_type(v));
}

/* A string field: required or not, and without NUL inside. */
static int
get_string(struct json_object *obj, const char *key, bool required,
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

static int
set_string(char **dst, const char *s, char *err, size_t errlen)
{
	if (s == NULL)
		return 0;
	if ((*dst = strdup(s)) == NULL)
		return fail(err, errlen, "out of memory");
	return 0;
}

static int
get_size(struct json_object *obj, const char *key, unsigned long long *val,
	 char *err, size_t errlen)
{
	const char *s;

	if (get_string(obj, key, true, &s, err, errlen) == -1)
		return -1;
	if (parse_size(s, val) == -1 || *val == 0)
		return fail(err, errlen, "%s \"%s\" is not a size above 0 (bytes, "
			    "or a number with k, m or g)", key, s);
	return 0;
}

/* An optional array of strings, each accepted by valid(). */
static int
get_list(struct json_object *obj, const char *key,
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

static bool
is_alias(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++)
		if (!isgraph((unsigned char)s[i]))
			return false;
	return true;
}

static int
check_keys(struct json_object *obj, char *err, size_t errlen)
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

static int
parse_fields(struct json_object *obj, struct lang *lang, char *err,
	     size_t errlen)
{
	const char *slug, *workdir, *solution, *checker, *probe;
	struct json_object *v;

	if (check_keys(obj, err, errlen) == -1 ||
	    get_string(obj, "slug", true, &slug, err, errlen) == -1 ||
	    get_string(obj, "workdir", true, &workdir, err, errlen) == -1 ||
	    get_string(obj, "solution_file", true, &solution, err, errlen) == -1 ||
	    get_string(obj, "checker_file", false, &checker, err, errlen) == -1 ||
	    get_string(obj, "probe", true, &probe, err, errlen) == -1)
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

	if (get_size(obj, "tmp_size", &lang->tmp_size, err, errlen) == -1 ||
	    get_size(obj, "mem_max", &lang->mem_max, err, errlen) == -1)
		return -1;
	if (get_list(obj, "aliases", is_alias, "a name without spaces",
		     &lang->aliases, err, errlen) == -1 ||
	    get_list(obj, "overlay_paths", is_absolute_path,
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

int
lang_parse_manifest(const char *json, size_t len, struct lang *lang,
		    char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *obj;
	enum json_tokener_error jerr;
	size_t end;
	int rc;

	memset(lang, 0, sizeof(*lang));
	if (len > MANIFEST_MAX)
		return fail(err, errlen, "larger than %d bytes", MANIFEST_MAX);
	if ((tok = json_tokener_new_ex(MANIFEST_DEPTH_MAX)) == NULL)
		return fail(err, errlen, "out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
			       JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, json, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {	/* see request.c */
		obj = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
	}
	json_tokener_free(tok);
	if (jerr != json_tokener_success)
		return fail(err, errlen, "not valid JSON: %s at byte %zu",
			    json_tokener_error_desc(jerr), end);
	for (; end < len; end++)
		if (strchr(" \t\r\n", json[end]) == NULL || json[end] == '\0') {
			json_object_put(obj);
			return fail(err, errlen, "data after the JSON object at "
				    "byte %zu", end);
		}
	if (!json_object_is_type(obj, json_type_object)) {
		rc = fail(err, errlen, "must be a JSON object, not %s",
			  type_name(obj));
		json_object_put(obj);
		return rc;
	}
	rc = parse_fields(obj, lang, err, errlen);
	json_object_put(obj);
	if (rc == -1)
		lang_free(lang);
	return rc;
}

/* --- running the probe and make --- */

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct capture {
	int fd;
	char *buf;
	size_t len, cap;
};

/* Reads what is there; returns 1 at EOF, 0 to go on, -1 past the cap. */
static int
capture_read(struct capture *c)
{
	char chunk[4096], *p;
	ssize_t n;

	n = read(c->fd, chunk, sizeof(chunk));
	if (n == -1)
		return errno == EINTR || errno == EAGAIN ? 0 : 1;
	if (n == 0)
		return 1;
	if (c->len + (size_t)n > SHELL_OUTPUT_MAX)
		return -1;
	if (c->len + (size_t)n + 1 > c->cap) {
		size_t cap = c->cap ? c->cap : sizeof(chunk);

		while (cap < c->len + (size_t)n + 1)
			cap *= 2;
		if ((p = realloc(c->buf, cap)) == NULL)
			return -1;
		c->buf = p;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, chunk, (size_t)n);
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	return 0;
}

static void
close_fd(int *fd)
{
	if (*fd != -1) {
		close(*fd);
		*fd = -1;
	}
}

/* Polls the pipes and the pidfd until the shell has exited and both pipes
 * are at EOF, or the deadline passes.  Returns 0, or -1 with a reason. */
static int
supervise(pid_t pid, int pidfd, struct capture cap[2], long deadline,
	  long timeout_ms, char *err, size_t errlen)
{
	long left;
	struct pollfd pfd[3];
	int i, rc;

	/* poll(2) skips negative fds: a closed pipe, an exited shell. */
	pfd[0] = (struct pollfd){ cap[0].fd, POLLIN, 0 };
	pfd[1] = (struct pollfd){ cap[1].fd, POLLIN, 0 };
	pfd[2] = (struct pollfd){ pidfd, POLLIN, 0 };
	while (pfd[0].fd != -1 || pfd[1].fd != -1 || pfd[2].fd != -1) {
		/* Past the deadline, what has already happened is still taken
		 * (poll with no wait): a shell started beside others may be
		 * waited for only after it ended. */
		if ((left = deadline - now_ms()) < 0)
			left = 0;
		rc = poll(pfd, 3, left > INT_MAX ? INT_MAX : (int)left);
		if (rc == -1) {
			if (errno == EINTR)
				continue;
			return fail(err, errlen, "poll errno=%d", errno);
		}
		if (rc == 0 && now_ms() >= deadline)
			return fail(err, errlen, "timed out after %ld ms",
				    timeout_ms);
		if (pfd[2].revents != 0) {
			pfd[2].fd = -1;
			/* Whatever the shell left behind goes with it. */
			kill(-pid, SIGKILL);
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			if ((rc = capture_read(&cap[i])) == -1)
				return fail(err, errlen, "printed more than %d "
					    "bytes", SHELL_OUTPUT_MAX);
			if (rc == 1) {
				close_fd(&cap[i].fd);
				pfd[i].fd = -1;
			}
		}
	}
	return 0;
}

void
lang_shell_result_free(struct lang_shell_result *res)
{
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof(*res));
}

/* A shell started and not yet waited for: several run side by side at
 * start-up (langs_load). */
struct shell_job {
	pid_t pid;
	int pidfd;
	struct capture cap[2];
	long deadline, timeout_ms;
	bool capture;
};

static void
shell_job_close(struct shell_job *j)
{
	int i;

	for (i = 0; i < 2; i++) {
		close_fd(&j->cap[i].fd);
		free(j->cap[i].buf);
		j->cap[i].buf = NULL;
	}
	close_fd(&j->pidfd);
}

/* Starts `/bin/sh -c cmd` (see lang_shell).  Returns 0, or -1 with a
 * reason and nothing left running. */
static int
shell_start(const char *dir, const char *cmd, long timeout_ms, bool capture,
	    struct shell_job *j, char *err, size_t errlen)
{
	char *const argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	int pipes[2][2] = { { -1, -1 }, { -1, -1 } };
	int devnull, i, rc = -1;
	pid_t pid;

	memset(j, 0, sizeof(*j));
	j->pid = -1;
	j->pidfd = j->cap[0].fd = j->cap[1].fd = -1;
	j->timeout_ms = timeout_ms;
	j->deadline = now_ms() + timeout_ms;
	j->capture = capture;
	if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
		return fail(err, errlen, "open /dev/null errno=%d", errno);
	for (i = 0; capture && i < 2; i++)
		if (pipe2(pipes[i], O_CLOEXEC) == -1) {
			fail(err, errlen, "pipe errno=%d", errno);
			goto out;
		}

	if ((pid = fork()) == -1) {
		fail(err, errlen, "fork errno=%d", errno);
		goto out;
	}
	if (pid == 0) {
		/* Only async-signal-safe calls from here to execve. */
		setpgid(0, 0);
		if (dup2(devnull, 0) == -1 ||
		    dup2(capture ? pipes[0][1] : devnull, 1) == -1 ||
		    dup2(capture ? pipes[1][1] : devnull, 2) == -1 ||
		    (dir != NULL && chdir(dir) == -1))
			_exit(126);
		close_range(3, ~0U, 0);
		execve(argv[0], argv, shell_env);
		_exit(127);
	}
	/* Also here, so that a kill of the group cannot miss a child that has
	 * not run yet. */
	setpgid(pid, pid);
	if ((j->pidfd = pidfd_open(pid, 0)) == -1) {
		fail(err, errlen, "pidfd_open errno=%d", errno);
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	j->pid = pid;
	for (i = 0; i < 2; i++) {
		j->cap[i].fd = pipes[i][0];
		pipes[i][0] = -1;
	}
	rc = 0;
out:
	for (i = 0; i < 2; i++) {
		close_fd(&pipes[i][0]);
		close_fd(&pipes[i][1]);
	}
	close(devnull);
	return rc;
}

/* Waits for a started shell (until its deadline) and takes its result. */
static int
shell_finish(struct shell_job *j, struct lang_shell_result *res, char *err,
	     size_t errlen)
{
	int status = 0, i, rc;
	pid_t w;

	memset(res, 0, sizeof(*res));
	rc = supervise(j->pid, j->pidfd, j->cap, j->deadline, j->timeout_ms,
		       err, errlen);
	if (rc == -1)
		kill(-j->pid, SIGKILL);
	while ((w = waitpid(j->pid, &status, 0)) == -1 && errno == EINTR)
		;
	/* ECHILD when the caller ignores SIGCHLD: no status to report. */
	if (rc == 0 && w == -1)
		rc = fail(err, errlen, "waitpid errno=%d", errno);
	for (i = 0; rc == 0 && j->capture && i < 2; i++)
		if (j->cap[i].buf == NULL && (j->cap[i].buf = strdup("")) == NULL)
			rc = fail(err, errlen, "out of memory");
	if (rc == 0) {
		res->status = status;
		res->out = j->cap[0].buf;
		res->out_len = j->cap[0].len;
		res->err = j->cap[1].buf;
		res->err_len = j->cap[1].len;
		j->cap[0].buf = j->cap[1].buf = NULL;
	}
	shell_job_close(j);
	return rc;
}

int
lang_shell(const char *dir, const char *cmd, long timeout_ms, bool capture,
	   struct lang_shell_result *res, char *err, size_t errlen)
{
	struct shell_job j;

	memset(res, 0, sizeof(*res));
	if (shell_start(dir, cmd, timeout_ms, capture, &j, err, errlen) == -1)
		return -1;
	return shell_finish(&j, res, err, errlen);
}

/* --- the directory's fingerprint --- */

static uint64_t
fnv1a(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Sums a hash of every entry's path, type, size and mtime below dirfd: the
 * sum does not depend on the order readdir gives. */
static int
fingerprint_at(int dirfd, const char *rel, int depth, uint64_t *sum)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	char path[PATH_MAX];
	int fd, sub, rc = 0;

	if (depth > 64 || (fd = dup(dirfd)) == -1)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		snprintf(path, sizeof(path), "%s/%s", rel, e->d_name);
		uint64_t h = fnv1a(path, strlen(path), 0xcbf29ce484222325ULL);
		h = fnv1a(&st.st_mode, sizeof(st.st_mode), h);
		h = fnv1a(&st.st_size, sizeof(st.st_size), h);
		h = fnv1a(&st.st_mtim, sizeof(st.st_mtim), h);
		*sum += h;
		if (S_ISDIR(st.st_mode)) {
			sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1) {
				rc = -1;
				break;
			}
			rc = fingerprint_at(sub, path, depth + 1, sum);
			close(sub);
		}
	}
	closedir(d);
	return rc;
}

/* What the language directory holds, as one word: part of the compile
 * cache's key, so that a changed build script or header is a new key. */
static int
fingerprint(const char *dir, char **out)
{
	uint64_t sum = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd == -1)
		return -1;
	rc = fingerprint_at(fd, "", 0, &sum);
	close(fd);
	if (rc == -1 || asprintf(out, "%016llx", (unsigned long long)sum) < 0)
		return -1;
	return 0;
}

/* --- resolving make targets --- */

/* Whether the physical line s[0..len) ends in an odd run of backslashes,
 * i.e. continues on the next line. */
static bool
continues(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[len - 1 - n] == '\\')
		n++;
	return n % 2 == 1;
}

/* Where "exec" goes in a line that is one simple command: after blanks and
 * plain assignments (NAME=value, the value without quotes or blanks), in
 * front of the command word.  -1 for anything else: an operator,
 * redirection, grouping or substitution, a keyword, or a shell builtin - a
 * builtin runs in the shell without a fork, and "exec" would run the
 * program of that name instead (/bin/echo does not read dash's backslash
 * escapes) and add an execve for nothing. */
static ssize_t
command_start(const char *line)
{
	static const char *const keywords[] = {
		"if", "for", "while", "until", "case", "{", "!", "(",
		/* dash's builtins */
		".", ":", "[", "alias", "bg", "break", "cd", "chdir", "command",
		"continue", "echo", "eval", "exec", "exit", "export", "false",
		"fc", "fg", "getopts", "hash", "jobs", "kill", "local", "printf",
		"pwd", "read", "readonly", "return", "set", "shift", "test",
		"times", "trap", "true", "type", "ulimit", "umask", "unalias",
		"unset", "wait",
	};
	const char *w = line;
	size_t i, n, name;

	if (strpbrk(line, ";&|<>()`\n\\{}") != NULL || strstr(line, "$(") != NULL)
		return -1;
	for (;;) {
		while (*w == ' ' || *w == '\t')
			w++;
		n = strcspn(w, " \t");
		if (memchr(w, '=', n) == NULL)
			break;
		/* An assignment before the command: dash exports it to the
		 * program exec runs.  Anything else with '=' is not taken. */
		name = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			      "0123456789_");
		if (name == 0 || isdigit((unsigned char)w[0]) || w[name] != '=' ||
		    strcspn(w, "'\"") < n)
			return -1;
		w += n;
	}
	if (n == 0)
		return -1;
	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i]) == n && strncmp(w, keywords[i], n) == 0)
			return -1;
	return w - line;
}

static bool
is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

/* make -n's output as one command (see lang.h); NULL when there is nothing
 * to run.  Returns -1 when out of memory. */
static int
join_commands(const char *out, char **cmd)
{
	struct strv lines = { 0 };
	const char *p, *start, *e;
	size_t i, total = 0;
	char *s, *w;

	*cmd = NULL;
	for (p = out; *p != '\0';) {
		start = p;
		do {
			e = strchrnul(p, '\n');
			p = *e == '\n' ? e + 1 : e;
		} while (*p != '\0' && continues(start, (size_t)(e - start)));
		if (is_blank(start, (size_t)(e - start)))
			continue;
		if (strv_add(&lines, start, (size_t)(e - start)) == -1) {
			strv_free(strv_finish(&lines));
			return -1;
		}
		total += (size_t)(e - start) + sizeof(" && { \n}");
	}
	if (lines.n <= 1) {
		ssize_t at = lines.n == 1 ? command_start(lines.v[0]) : -1;

		if (at >= 0) {
			/* dash does not exec the last command of -c itself:
			 * "exec" makes the program the payload, so a signal that
			 * kills it is reported as that signal. */
			if (asprintf(cmd, "%.*sexec %s", (int)at, lines.v[0],
				     lines.v[0] + at) < 0) {
				*cmd = NULL;
				strv_free(strv_finish(&lines));
				return -1;
			}
		} else if (lines.n == 1) {
			*cmd = lines.v[0];
			lines.v[0] = NULL;
		}
		strv_free(strv_finish(&lines));
		return 0;
	}
	if ((s = malloc(total + 1)) == NULL) {
		strv_free(strv_finish(&lines));
		return -1;
	}
	for (i = 0, w = s; i < lines.n; i++)
		w += sprintf(w, "%s{ %s\n}", i > 0 ? " && " : "", lines.v[i]);
	*cmd = s;
	strv_free(strv_finish(&lines));
	return 0;
}

/* The first line of make's complaint, for the error message. */
static void
first_line(const char *s, char *buf, size_t len)
{
	size_t n;

	if (s == NULL)
		s = "";
	n = strcspn(s, "\n");
	snprintf(buf, len, "%.*s", (int)n, s);
}

/* The target's command from what `make -s -n target` did (see lang.h);
 * shell_why is lang_shell's reason when it could not run make.  Takes res. */
static int
resolve_target(const char *target, const char *shell_why,
	       struct lang_shell_result *res_in, char **cmd, char *err,
	       size_t errlen)
{
	struct lang_shell_result res = *res_in;
	char sh[64], missing[2][96], why[256];
	int rc;

	memset(res_in, 0, sizeof(*res_in));
	*cmd = NULL;
	snprintf(sh, sizeof(sh), "make -s -n %s", target);
	if (shell_why != NULL)
		return fail(err, errlen, "%s: %s", sh, shell_why);
	if (WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0) {
		rc = join_commands(res.out != NULL ? res.out : "", cmd);
		lang_shell_result_free(&res);
		if (rc == -1)
			return fail(err, errlen, "%s: out of memory", sh);
		return 0;
	}
	/* GNU make's words under LANG=C (older makes quote with `...'). */
	snprintf(missing[0], sizeof(missing[0]),
		 "No rule to make target '%s'.", target);
	snprintf(missing[1], sizeof(missing[1]),
		 "No rule to make target `%s'.", target);
	if (res.err != NULL && (strstr(res.err, missing[0]) != NULL ||
				strstr(res.err, missing[1]) != NULL)) {
		lang_shell_result_free(&res);
		return 0;
	}
	first_line(res.err, why, sizeof(why));
	if (WIFEXITED(res.status))
		rc = fail(err, errlen, "%s: exit %d: %s", sh,
			  WEXITSTATUS(res.status), why);
	else
		rc = fail(err, errlen, "%s: killed by signal %d", sh,
			  WTERMSIG(res.status));
	lang_shell_result_free(&res);
	return rc;
}

/* --- the directory skeleton --- */

/* Adds every directory below dirfd (rel is its path, "" at the top) to sv.
 * Symbolic links are not followed.  Takes dirfd. */
static int
walk_dirs(int dirfd, const char *rel, int depth, struct strv *sv, char *err,
	  size_t errlen)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, rc = 0, n;

	if ((d = fdopendir(dirfd)) == NULL) {
		close(dirfd);
		return fail(err, errlen, "opendir %s errno=%d", rel, errno);
	}
	while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_type == DT_UNKNOWN) {
			if (fstatat(dirfd, de->d_name, &st,
				    AT_SYMLINK_NOFOLLOW) == -1)
				continue;
			if (!S_ISDIR(st.st_mode))
				continue;
		} else if (de->d_type != DT_DIR) {
			continue;
		}
		n = snprintf(path, sizeof(path), "%s%s%s", rel,
			     *rel != '\0' ? "/" : "", de->d_name);
		if (n < 0 || (size_t)n >= sizeof(path))
			rc = fail(err, errlen, "%s/%s: path too long", rel,
				  de->d_name);
		else if (depth == SUBDIR_DEPTH_MAX)
			rc = fail(err, errlen, "%s: nested more than %d deep",
				  path, SUBDIR_DEPTH_MAX);
		else if (strv_add(sv, path, (size_t)n) == -1)
			rc = fail(err, errlen, "out of memory");
		else if ((fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY |
				      O_NOFOLLOW | O_CLOEXEC)) == -1)
			rc = fail(err, errlen, "open %s errno=%d", path, errno);
		else
			rc = walk_dirs(fd, path, depth + 1, sv, err, errlen);
	}
	if (rc == 0 && errno != 0)
		rc = fail(err, errlen, "readdir %s errno=%d", rel, errno);
	closedir(d);
	return rc;
}

static int
list_subdirs(const char *dir, char ***subdirs, char *err, size_t errlen)
{
	struct strv sv = { 0 };
	int fd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return fail(err, errlen, "open errno=%d", errno);
	if (walk_dirs(fd, "", 0, &sv, err, errlen) == -1) {
		strv_free(strv_finish(&sv));
		return -1;
	}
	if (sv.n > 0)
		qsort(sv.v, sv.n, sizeof(*sv.v), strv_cmp);
	if ((*subdirs = strv_finish(&sv)) == NULL)
		return fail(err, errlen, "out of memory");
	return 0;
}

/* --- the environment's overrides --- */

/* "RUN_TMP_SIZE_" + the slug in upper case. */
static void
override_name(const char *prefix, const char *slug, char *buf, size_t len)
{
	size_t i, n = (size_t)snprintf(buf, len, "%s%s", prefix, slug);

	for (i = strlen(prefix); i < n && i < len; i++)
		buf[i] = (char)toupper((unsigned char)buf[i]);
}

/* Per language, else the global setting (0: none), else lang.json's. */
static int
override_size(const char *prefix, const char *slug,
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
static int
override_overlays(struct lang *lang, char *err, size_t errlen)
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
		if (!is_absolute_path(q, len)) {
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

static int
read_manifest(const char *path, char **text, size_t *len, char *err,
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
static int
path_of(char *buf, size_t len, const char *dir, const char *name,
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
static int
load_manifest(const struct gaol_config *cfg, const char *name,
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

struct shell_done {
	int rc;                  /* lang_shell's */
	char why[256];           /* its reason when -1 */
	struct lang_shell_result res;
};

/* Runs every language's shells, several side by side (each of them is a
 * few milliseconds of one process, a JVM's probe a hundred): start-up
 * takes about the longest of them rather than their sum.  Results are
 * taken in order, so what follows does not depend on which ends first. */
static int
run_shells(struct lang_set *set, struct shell_done *done, char *err,
	   size_t errlen)
{
	size_t total = set->n * SHELLS_PER_LANG, next = 0, waited = 0, k;
	/* Taken in order, a slow one holds up the taking (not the running) of
	 * those after it: the window is wide enough for the rest to go on. */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t window = cpus > 4 ? 4 * (size_t)cpus : 16;
	struct shell_job *jobs = calloc(total ? total : 1, sizeof(*jobs));
	char cmd[64];

	if (jobs == NULL)
		return fail(err, errlen, "out of memory");
	while (waited < total) {
		while (next < total && next - waited < window) {
			struct lang *lang = &set->v[next / SHELLS_PER_LANG];
			size_t t = next % SHELLS_PER_LANG;

			/* exec: make is the shell's only command. */
			if (t > 0)
				snprintf(cmd, sizeof(cmd), "exec make -s -n %s",
					 targets[t - 1].target);
			done[next].rc = shell_start(lang->dir, t == 0 ? lang->probe : cmd,
						    SHELL_TIMEOUT_MS, true, &jobs[next],
						    done[next].why, sizeof(done[next].why));
			if (done[next].rc == -1)
				jobs[next].pid = -1;
			next++;
		}
		k = waited++;
		if (jobs[k].pid != -1)
			done[k].rc = shell_finish(&jobs[k], &done[k].res, done[k].why,
						  sizeof(done[k].why));
	}
	free(jobs);
	return 0;
}

/* What langs_load learns of one language from its shells (done holds
 * SHELLS_PER_LANG results, which this takes). */
static int
load_results(struct lang *lang, struct shell_done *done, char *err,
	     size_t errlen)
{
	struct lang_shell_result *res = &done[0].res;
	char why[512];
	size_t i;

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
		lang_shell_result_free(res);
	}

	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (resolve_target(targets[i].target,
				   done[i + 1].rc == -1 ? done[i + 1].why : NULL,
				   &done[i + 1].res,
				   (char **)((char *)lang + targets[i].offset),
				   why, sizeof(why)) == -1)
			return fail(err, errlen, "%s: %s", lang->dir, why);
	if (fingerprint(lang->dir, &lang->fingerprint) == -1)
		return fail(err, errlen, "%s: fingerprint errno=%d", lang->dir, errno);
	if (list_subdirs(lang->dir, &lang->subdirs, why, sizeof(why)) == -1)
		return fail(err, errlen, "%s: %s", lang->dir, why);
	return 0;
}

/* A name /evaluate may use must mean one language. */
static int
check_names(const struct lang_set *set, char *err, size_t errlen)
{
	const struct lang *other;
	size_t i;
	char **a;

	for (i = 0; i < set->n; i++)
		for (a = set->v[i].aliases; *a != NULL; a++)
			if ((other = langs_find(set, *a, true)) != &set->v[i])
				return fail(err, errlen, "alias \"%s\" of %s is "
					    "also a name of %s", *a,
					    set->v[i].slug, other->slug);
	return 0;
}

static int
name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int
langs_load(const struct gaol_config *cfg, struct lang_set *set, char *err,
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
	if (rc == 0 && set->n > 0) {
		struct shell_done *done = calloc(set->n * SHELLS_PER_LANG, sizeof(*done));
		size_t k;

		if (done == NULL)
			rc = fail(err, errlen, "out of memory");
		else
			rc = run_shells(set, done, err, errlen);
		for (k = 0; rc == 0 && k < set->n; k++)
			rc = load_results(&set->v[k], &done[k * SHELLS_PER_LANG],
					  err, errlen);
		for (k = 0; done != NULL && k < set->n * SHELLS_PER_LANG; k++)
			lang_shell_result_free(&done[k].res);
		free(done);
	}
	if (rc == 0 && set->n == 0)
		rc = fail(err, errlen, "%s: no language directories (with a "
			  "lang.json)", cfg->langs_dir);
	if (rc == 0)
		rc = check_names(set, err, errlen);
	if (rc == -1)
		langs_free(set);
	return rc;
}

const struct lang *
langs_find(const struct lang_set *set, const char *name, bool aliases)
{
	char **a;
	size_t i;

	for (i = 0; i < set->n; i++)
		if (strcmp(set->v[i].slug, name) == 0)
			return &set->v[i];
	if (!aliases)
		return NULL;
	for (i = 0; i < set->n; i++)
		for (a = set->v[i].aliases; a != NULL && *a != NULL; a++)
			if (strcmp(*a, name) == 0)
				return &set->v[i];
	return NULL;
}

void
lang_free(struct lang *lang)
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
	strv_free(lang->subdirs);
	memset(lang, 0, sizeof(*lang));
}

void
langs_free(struct lang_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		lang_free(&set->v[i]);
	free(set->v);
	memset(set, 0, sizeof(*set));
}
