/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spec: what a run is asked to do (struct sandbox_spec) and the files it is
 * given: the input of run/sandbox.h's sandbox_run, which the worker lays
 * into the plan (plan/plan.h) and, for a sandbox built ahead, sends init on
 * the wire (plan/wire.c).  On the floor below run/ and inside/, which both
 * read it.
 */
#ifndef GAOL_SPEC_H
#define GAOL_SPEC_H

#include <stdbool.h>
#include <stddef.h>

struct lang;

/* At most this many request files cross to a run (RUN_FILES_MAX is
 * capped at it). */
#define SANDBOX_FILES_MAX 4096

struct sandbox_file {
	const char *name;        /* relative to the language's workdir: a
				  * plain name, or a path of plain parts
				  * (api/files.h) whose directories are made */
	const char *data;
	size_t len;
};

/* The client of the request a run serves: while it supervises, the worker
 * polls fd too, and gone (given poll's revents) says whether the client went
 * away; then the run is stopped at once (res->client_gone). */
struct client_watch {
	int fd;
	bool (*gone)(int fd, short revents);
};

struct sandbox_spec {
	const struct lang *lang;
	const char *command;     /* run with /bin/sh -c in /sandbox */
	const struct sandbox_file *files;
	size_t n_files;
	long timeout_ms;         /* wall clock: DEADLINE_TIMEOUT, or with a CPU
				  * deadline DEADLINE_ABSOLUTE */
	long excuse_blocked_ms;  /* without a CPU deadline: up to this much of
				  * the time a thread of the run waits in the
				  * kernel uninterruptibly (the disk), and all
				  * the time the run waits for a CPU, are not
				  * counted against timeout_ms.  0: neither */
	size_t output_max;       /* per stream, 0 = no cap */
	size_t err_keep;         /* nonzero: stderr kept up to it, the rest read
				  * and dropped (never output_exceeded) */
	unsigned long long stack_max; /* RLIMIT_STACK of the payload; 0: as
				  * inherited */

	/* For building and judging; zero values give /run's behaviour. */
	const char *lower;       /* a build's output: read-only layer above the
				  * language directory */
	const char *export_dir;  /* an empty host directory: after the run, the
				  * files the run left in /sandbox are copied
				  * there (a build's output) */
	unsigned long long export_max_bytes;   /* what the export may copy: */
	unsigned long long export_max_entries; /* 0: no limit (slot/tree.h) */
	const char *stdin_data;  /* fed to stdin; NULL: stdin is /dev/null */
	size_t stdin_len;
	const char *input_file;  /* instead of stdin: the data as a read-only
				  * file /sandbox/<input_file> */
	const char *output_file; /* read back from /sandbox after the run into
				  * res->file, without following links */
	unsigned long long mem_max;  /* bytes; 0: the language's */
	/* Judging's deadlines, computed by the judge (docs/design.md,
	 * "Judging"); the sandbox only enforces them.  0: none, /run's. */
	long cpu_deadline_ms;    /* CPU time above it: DEADLINE_CPU_CEILING */
	long idle_deadline_ms;   /* less than a hundredth of a CPU for it, not
				  * counting the time the run waited for the
				  * disk or a CPU: DEADLINE_NO_PROGRESS */
	/* Judging: the three deadlines and timeout_ms count from the
	 * program's start (init reports its execve), and a program not
	 * started this long after the hand-off is DEADLINE_SETUP.  0: they
	 * count from the hand-off (/run, a build). */
	long setup_max_ms;
	/* The request's wall-clock budget: the monotonic ms (now_ms) at which
	 * the run is stopped, DEADLINE_BUDGET.  0: none. */
	long budget_end_ms;
	const struct client_watch *client;  /* NULL: nobody to watch */
	/* Sees stdout as it crosses; a nonzero return stops the run. */
	int (*on_stdout)(void *ctx, const char *buf, size_t len);
	/* Sees stdout and stderr (which: STREAM_*) in the order they are read
	 * (what is kept of them, within output_max). */
	void (*on_output)(void *ctx, int which, const char *buf, size_t len);
	void *ctx;
	/* The whole argv of /bin/sh, NULL-terminated: { "sh", "-c", command,
	 * $0, $1, ... }, so that the request's words reach the recipe as
	 * positional parameters, never as its text.  NULL: sh -c command. */
	char *const *sh_argv;
	/* A checker's or interactor's files (judge/aide.c): a host directory,
	 * the worker's, bound read-only at /sandbox/judge.  Its pages are
	 * charged to whoever wrote them, never to the run.  NULL: none. */
	const char *data_dir;
	/* The program's stderr is its stdout (fd 2 a copy of fd 1, as a
	 * shell's 2>&1): one stream, in the order the program wrote it
	 * (Judge0's redirect_stderr_to_stdout). */
	bool stderr_to_stdout;
	/* An interactive test (judge/aide.c): the run's stdin is what the
	 * worker reads from relay_in, and its stdout, kept as ever, is also
	 * copied to relay_out, both pipes of the worker's own that the peer's
	 * worker holds the other ends of (the two runs share no pipe end).
	 * sandbox_run closes both before it returns, whatever happens: the
	 * peer then sees the end.  Needs stdin_data non-NULL (the stdin pipe). */
	bool relay;
	int relay_in, relay_out;
	/* The no-progress window of a pair of runs (an interactor and its
	 * solution): each run writes its own CPU time into pair_cpu_us[pair_self]
	 * (memory the two workers share) and counts the sum as progress, so
	 * that waiting for the peer is not idling.  NULL: the run's own. */
	volatile long long *pair_cpu_us;
	int pair_self;
};

#endif
