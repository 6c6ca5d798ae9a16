/*
 * sandbox: one run of untrusted code in a fresh, throw-away sandbox
 * (docs/design.md, "The sandbox step by step").  The design comment in sandbox.c explains the processes.  The
 * caller gets what the program did; it never gets a sandbox back to reuse.
 */
#ifndef GAOL_SANDBOX_H
#define GAOL_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "slot/slot.h"

struct lang;

struct sandbox_file {
	const char *name;        /* relative to the language's workdir */
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
				  * kernel uninterruptibly (the disk) is not
				  * counted against timeout_ms.  0: none */
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
				  * counting the time the run waited for a
				  * CPU: DEADLINE_NO_PROGRESS */
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
	void *ctx;
};

enum { STREAM_NONE = 0, STREAM_STDOUT = 1, STREAM_STDERR = 2, STREAM_FILE = 3 };

enum deadline {
	DEADLINE_NONE = 0,
	DEADLINE_TIMEOUT,        /* /run's wall-clock timeout */
	DEADLINE_NO_PROGRESS,    /* under 1% of a CPU for idle_deadline_ms */
	DEADLINE_CPU_CEILING,    /* CPU time above cpu_deadline_ms */
	DEADLINE_ABSOLUTE,       /* wall clock above timeout_ms, when judged */
	DEADLINE_BUDGET,         /* the request's budget_end_ms passed */
	DEADLINE_SETUP,          /* the program had not started setup_max_ms
				  * after the hand-off: the sandbox's fault */
};

struct sandbox_result {
	bool ran;                /* false: the sandbox failed, see fault */
	int wait_status;         /* the payload's, valid when ran && !killed */
	bool killed;             /* we killed it: a deadline, a cap, a stop */
	bool timed_out;          /* a deadline ended it */
	enum deadline deadline;
	int output_exceeded;     /* STREAM_* that crossed output_max */
	bool stopped;            /* on_stdout asked to stop */
	bool client_gone;        /* the client went away: stopped for that */
	bool oom_killed;
	long wall_ms;            /* judged (setup_max_ms): from the program's
				  * start; else from the hand-off */
	long setup_ms;           /* hand-off to the program's start; -1 when
				  * it never started */
	long start_ms;           /* when it started (now_ms's clock) */
	long cpu_ms;             /* -1 when unknown */
	long memory_peak_kb;     /* -1 when unknown */
	long maxrss_kb;          /* the payload tree's largest RSS (wait4) */
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
	char *file;              /* output_file's contents */
	size_t file_len;
	bool file_missing;       /* output_file absent or not a regular file */
	int export_over;         /* enum tree_over: the export limit the run's
				  * files passed (the export holds part) */
	char fault[192];         /* "sandbox: <step> errno=N" */
};

/* Builds the next run's sandbox ahead of its request, as far as no request
 * decides it (namespaces, the read-only root, /dev, /proc): a fresh sandbox
 * all the same, used by exactly one run.  0, or -1 with err. */
int slot_prepare(struct slot *slot, char *err, size_t errlen);

/* Runs spec in a fresh sandbox of slot.  Returns 0 when the program ran (its
 * outcome is in res), -1 when the sandbox could not be built (res->fault says
 * which step; no user code ran). */
int sandbox_run(struct slot *slot, const struct sandbox_spec *spec,
		struct sandbox_result *res);
void sandbox_result_free(struct sandbox_result *res);
/* The program's exit code as a shell gives it (128 + a signal), or -1 when
 * it did not end by itself (it did not run, or was killed by gaol). */
int sandbox_exit_code(const struct sandbox_result *res);
/* In a process forked from the slot's owner (a judging lane): forgets this
 * process's copies of the descriptors of the slot's sandbox built ahead and
 * of its last run, touching neither process, which stay the owner's.  A
 * copy of the stdin pipe's write end held elsewhere would keep the
 * program's stdin from ever reaching its end (issue 29). */
void sandbox_forget(struct slot *slot);
/* Ends what the slot's last runs left: a sandbox built ahead, the last
 * run's exiting init (slot_free calls it). */
void sandbox_release(struct slot *slot);
/* For a process about to exit (a one-shot gaol-run): the last run's init,
 * which has reported and killed the rest of its run, is killed now rather
 * than waited for; the files go with its mount namespace, which the slot
 * lets go once init is reaped.  Then as sandbox_release.  A kept slot's
 * init (slot/keep.h) is not even reaped: the process's exit hands it to
 * whoever adopts it. */
void sandbox_release_now(struct slot *slot);

#endif
