/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge0/words: a command line split into words as a shell would, with no
 * expansion (words.c says how).
 */
#ifndef GAOL_JUDGE0_WORDS_H
#define GAOL_JUDGE0_WORDS_H

#include <stddef.h>

struct judge0_words {
	char **v;                /* NULL-terminated (NULL when n is 0) */
	size_t n;
};

/* 0 with *w; -1 no memory; -2 a quote left open (nothing in *w). */
int judge0_words_split(const char *s, struct judge0_words *w);
void judge0_words_free(struct judge0_words *w);

#endif
