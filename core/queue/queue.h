/* SPDX-License-Identifier: Apache-2.0 */
/*
 * queue: the asynchronous submissions (Judge0's wait=false) on disk, in
 * RUN_QUEUE_DIR, and their tokens.  It owns the directory's layout and every
 * move between its states; what a job or a result says is its callers'
 * (opaque bytes here).  docs/design.md, "The queue", says why it is so:
 *
 *   tmp/<token>.<pid>   a file being written (removed at start)
 *   queued/<token>      a job waiting; tokens sort by creation time (FIFO)
 *   running/<token>     a job a queue worker claimed: it holds an flock on
 *                       it while it runs, so a file here that nobody locks
 *                       belongs to a dead worker and is queued again
 *   done/<token>        the result (kept RUN_RESULT_TTL, RUN_RESULT_MAX bytes)
 *   callbacks/<token>   a callback still to send (the courier's)
 *
 * Every file is written whole in tmp/, fsync'd, renamed into place and its
 * directory fsync'd: a crash leaves a job in one state only.
 */
#ifndef GAOL_QUEUE_H
#define GAOL_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define TOKEN_LEN 36            /* 8-4-4-4-12 hex digits, as a UUID */
#define QUEUE_FILE_MAX (64u << 20) /* one job or result file, bytes */

struct queue {
	int dir;                /* RUN_QUEUE_DIR */
	int sub[5];             /* enum queue_state's directories, and tmp */
	unsigned host;          /* RUN_HOST_ID: named in every token */
};

enum queue_state { Q_NONE = -1, Q_QUEUED, Q_RUNNING, Q_DONE, Q_CALLBACKS, Q_TMP };

enum token_kind { TOKEN_OURS, TOKEN_MALFORMED, TOKEN_OTHER_HOST };

/* A new token: milliseconds since the epoch (48 bits, so tokens sort by
 * creation time), UUID version 7 and variant bits, 16 bits of host,
 * the rest random (getrandom). */
int token_new(unsigned host, char out[TOKEN_LEN + 1]);
/* Whether s is a token of this host, of another, or no token at all; the
 * other host's number in *other. */
enum token_kind token_check(const char *s, unsigned host, unsigned *other);
/* The creation time a token carries, milliseconds since the epoch. */
long long token_ms(const char *token);
/* How long ago the token was made, by the wall clock, in milliseconds. */
long long token_age_ms(const char *token);

/* Opens (making it and its directories, mode 0700) the queue at path.
 * -1 with the step and errno in err. */
int queue_open(struct queue *q, const char *path, unsigned host, char *err,
	       size_t errlen);
void queue_close(struct queue *q);

/* Jobs waiting or running. */
size_t queue_depth(const struct queue *q);

/* Queues n jobs (tokens[i] holding texts[i]) unless that would make more
 * than max waiting or running: 1 then, nothing queued.  0 when all are
 * queued; -1 with err on a fault (then none is). */
int queue_put(struct queue *q, char (*tokens)[TOKEN_LEN + 1], char **texts,
	      const size_t *lens, size_t n, size_t max, char *err, size_t errlen);

/* A job claimed by this process: its token, its text, the locked fd. */
struct claim {
	char token[TOKEN_LEN + 1];
	char *text;
	size_t len;
	int fd;
};

/* Claims the oldest queued job: 1 (c filled), 0 when none is queued, -1
 * with err. */
int queue_claim(struct queue *q, struct claim *c, char *err, size_t errlen);
/* The claimed job's result: written to done/, then (callback) a callback
 * marked, then the claim removed.  -1 with err (the claim stays: the job
 * runs again after the next recovery). */
int queue_finish(struct queue *q, struct claim *c, const char *result,
		 size_t len, bool callback, char *err, size_t errlen);
void claim_free(struct claim *c);
/* A result that was never queued (Judge0's wait=true), kept in done/ as
 * token's: swept and read as any other, not fsync'd (nothing is lost but
 * a copy its client already has).  -1 with err. */
int queue_keep(struct queue *q, const char *token, const char *result, size_t len,
	       char *err, size_t errlen);

/* Which state a token is in, Q_NONE when unknown (or its result outlived
 * ttl_s seconds). */
enum queue_state queue_find(const struct queue *q, const char *token, long ttl_s);
/* The file of token in state st, malloc'd and NUL-terminated, or NULL. */
char *queue_read(const struct queue *q, enum queue_state st, const char *token,
		 size_t *len);
/* Removes a token's result (and any callback of it).  0, or -1 with errno. */
int queue_forget(struct queue *q, const char *token);

/* At start, and after a queue worker died: every running job whose worker
 * is gone is queued again (or, if its result was written, dropped), every
 * tmp/ file removed.  The number queued again; -1 with err. */
int queue_recover(struct queue *q, bool at_start, char *err, size_t errlen);
/* Removes results older than ttl_s seconds, then the oldest until the rest
 * hold at most max_bytes; their number.  kept/bytes: what is left. */
unsigned queue_sweep(struct queue *q, long ttl_s, unsigned long long max_bytes,
		     unsigned long long *kept, unsigned long long *bytes);

/* Unmarks token's callback (sent, or given up).  0, or -1 with errno. */
int queue_forget_callback(struct queue *q, const char *token);
/* The oldest callback marked, in token: 1, or 0 when none. */
int queue_next_callback(const struct queue *q, char token[TOKEN_LEN + 1]);

#endif
