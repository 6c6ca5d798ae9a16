/* SPDX-License-Identifier: Apache-2.0 */
/* strv: a growing NULL-terminated array of strings (see internal.h). */
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

#include "lang/internal.h"

int strv_add(struct strv *sv, const char *s, size_t len)
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
char **strv_finish(struct strv *sv)
{
	char **v = sv->v;

	if (v == NULL)
		v = calloc(1, sizeof(*v));
	memset(sv, 0, sizeof(*sv));
	return v;
}

void strv_free(char **v)
{
	char **p;

	if (v == NULL)
		return;
	for (p = v; *p != NULL; p++)
		free(*p);
	free(v);
}

int strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

