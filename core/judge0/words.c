/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge0/words: command_line_arguments and compiler_options split into
 * words as a POSIX shell splits a command line, with no expansion at all:
 * blanks separate words; '...' keeps every byte; "..." keeps every byte
 * but \" \\ \$ \` and \newline; a backslash outside quotes keeps the next
 * byte.  $, `, *, ~ and the rest stay literal bytes of their word: nothing
 * is substituted, globbed or run (Judge0 deletes them instead, which
 * changes what the program is given).
 */
#include <stdlib.h>
#include <string.h>

#include "judge0/words.h"

static int push(struct judge0_words *w, const char *buf, size_t len)
{
	char **v = realloc(w->v, (w->n + 2) * sizeof(*v));
	if (!v)
		return -1;
	w->v = v;
	/* buf holds len bytes, unterminated: copied, not strndup'ed (which
	 * may read past len looking for its NUL). */
	if (!(v[w->n] = malloc(len + 1)))
		return -1;
	memcpy(v[w->n], buf, len);
	v[w->n][len] = '\0';
	v[++w->n] = NULL;
	return 0;
}

/* One word from *p on (after blanks), into buf; -2 an open quote. */
static int word(const char **p, char *buf, size_t *len)
{
	const char *s = *p;
	char q = 0;
	*len = 0;
	for (; *s && (q || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
		if (!q && (*s == '\'' || *s == '"')) {
			q = *s;
		} else if (q && *s == q) {
			q = 0;
		} else if (*s == '\\' && q != '\'' && s[1] &&
			   (!q || strchr("\"\\$`\n", s[1]))) {
			s++;
			if (*s != '\n')
				buf[(*len)++] = *s;
		} else {
			buf[(*len)++] = *s;
		}
	}
	*p = s;
	return q ? -2 : 0;
}

int judge0_words_split(const char *s, struct judge0_words *w)
{
	memset(w, 0, sizeof(*w));
	char *buf = malloc(strlen(s) + 1);
	if (!buf)
		return -1;
	int rc = 0;
	while (rc == 0) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		size_t len;
		if ((rc = word(&s, buf, &len)) == 0)
			rc = push(w, buf, len);
	}
	free(buf);
	if (rc < 0)
		judge0_words_free(w);
	return rc;
}

void judge0_words_free(struct judge0_words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}
