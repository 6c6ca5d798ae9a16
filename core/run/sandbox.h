/* SPDX-License-Identifier: Apache-2.0 */
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

#include "plan/spec.h"
#include "slot/slot.h"

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
 * run's exiting init (the engine calls it before slot_free). */
void sandbox_release(struct slot *slot);
/* For a process about to exit (a one-shot gaol-run): the last run's init,
 * which has reported and killed the rest of its run, is killed now rather
 * than waited for; the files go with its mount namespace, which the slot
 * lets go once init is reaped.  Then as sandbox_release.  A kept slot's
 * init (slot/keep.h) is not even reaped: the process's exit hands it to
 * whoever adopts it. */
void sandbox_release_now(struct slot *slot);

#endif
