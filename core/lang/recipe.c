/* SPDX-License-Identifier: Apache-2.0 */
/*
 * recipe: a make target's recipe, as `make -s -n` prints it, rewritten into
 * one command for /bin/sh -c (the rules are in lang.h).
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
#include "lang/internal.h"

/* Whether the physical line s[0..len) ends in an odd run of backslashes,
 * i.e. continues on the next line. */
static bool continues(const char *s, size_t len)
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
static ssize_t command_start(const char *line)
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

size_t lang_direct_argv(const char *cmd, char *buf, size_t len, char **argv, size_t max)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_./-+,:=@%";
	size_t n = 0, cmd_len = strlen(cmd);
	bool exec_seen = false;

	if (cmd_len >= len || max < 2)
		return 0;
	memcpy(buf, cmd, cmd_len + 1);
	for (char *w = buf; *w;) {
		while (*w == ' ' || *w == '\t')
			w++;
		if (!*w)
			break;
		size_t k = strspn(w, plain);
		if (w[k] != '\0' && w[k] != ' ' && w[k] != '\t')
			return 0;       /* a character the shell would read */
		char *word = w;
		w += k;
		if (*w)
			*w++ = '\0';
		if (!exec_seen) {
			if (strcmp(word, "exec"))
				return 0;
			exec_seen = true;
		} else if (n + 1 < max) {
			argv[n++] = word;
		} else {
			return 0;
		}
	}
	argv[n] = NULL;
	if (n == 0 || argv[0][0] == '-' || !strchr(argv[0], '/'))
		return 0;
	return n;
}

static bool is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

/* make -n's output as one command (see lang.h); NULL when there is nothing
 * to run.  Returns -1 when out of memory. */
static int join_commands(const char *out, char **cmd)
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
static void first_line(const char *s, char *buf, size_t len)
{
	size_t n;

	if (s == NULL)
		s = "";
	n = strcspn(s, "\n");
	snprintf(buf, len, "%.*s", (int)n, s);
}

/* The target's command from what `make -s -n target` did (see lang.h);
 * shell_why is lang_shell's reason when it could not run make.  Takes res. */
int recipe_resolve(const char *target, const char *shell_why,
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

