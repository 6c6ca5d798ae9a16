/*
 * sandbox: one run of untrusted code in a fresh, throw-away sandbox (SPEC
 * section 5).  The design comment in sandbox.c explains the processes.  The
 * caller gets what the program did; it never gets a sandbox back to reuse.
 */
#ifndef GAOL_SANDBOX_H
#define GAOL_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "slot/cgroup.h"
#include "slot/seccomp_policy.h"

struct gaol_config;
struct lang;

struct plan;

/* A worker's slot: the identity and the cgroup its runs use. */
struct slot {
	bool ready;              /* slot_init ran: slot_free has work */
	unsigned index;
	uid_t uid;
	struct slot_cgroup cg;
	const struct gaol_config *cfg;
	char state_dir[4096];    /* <state>/slot<N>: skeleton root, scratch */
	char **envp;             /* the payload's environment (allowlist) */
	int netns_fd;            /* the next run's loopback-only network namespace */
	bool netns_used;         /* a run entered it: make a fresh one */
	struct plan *ahead;      /* a sandbox built ahead of its request */
	pid_t exiting;           /* the last run's init, exiting on its own */
	int exiting_mntns;       /* and its mount namespace, held until idle */
	struct seccomp_policy seccomp;
};

struct sandbox_file {
	const char *name;        /* relative to the language's workdir */
	const char *data;
	size_t len;
};

struct sandbox_spec {
	const struct lang *lang;
	const char *command;     /* run with /bin/sh -c in /sandbox */
	const struct sandbox_file *files;
	size_t n_files;
	long timeout_ms;         /* wall clock */
	size_t output_max;       /* per stream, 0 = no cap */

	/* For building and judging; zero values give /run's behaviour. */
	const char *lower;       /* a build's output: read-only layer above the
				  * language directory */
	const char *export_dir;  /* an empty host directory: after the run, the
				  * files the run left in /sandbox are copied
				  * there (a build's output) */
	const char *stdin_data;  /* fed to stdin; NULL: stdin is /dev/null */
	size_t stdin_len;
	const char *input_file;  /* instead of stdin: the data as a read-only
				  * file /sandbox/<input_file> */
	const char *output_file; /* read back from /sandbox after the run into
				  * res->file, without following links */
	unsigned long long mem_max;  /* bytes; 0: the language's */
	long cpu_limit_ms;       /* > 0: SPEC section 6's three deadlines
				  * replace timeout_ms */
	/* Sees stdout as it crosses; a nonzero return stops the run. */
	int (*on_stdout)(void *ctx, const char *buf, size_t len);
	void *ctx;
};

enum { STREAM_NONE = 0, STREAM_STDOUT = 1, STREAM_STDERR = 2, STREAM_FILE = 3 };

enum deadline {
	DEADLINE_NONE = 0,
	DEADLINE_TIMEOUT,        /* /run's wall-clock timeout */
	DEADLINE_NO_PROGRESS,    /* no CPU growth for 4L + 4 s */
	DEADLINE_CPU_CEILING,    /* CPU time above L + 2 s */
	DEADLINE_ABSOLUTE,       /* wall clock above 5 (L + 2 s) */
};

struct sandbox_result {
	bool ran;                /* false: the sandbox failed, see fault */
	int wait_status;         /* the payload's, valid when ran && !killed */
	bool killed;             /* we killed it: a deadline, a cap, a stop */
	bool timed_out;          /* a deadline ended it */
	enum deadline deadline;
	int output_exceeded;     /* STREAM_* that crossed output_max */
	bool stopped;            /* on_stdout asked to stop */
	bool oom_killed;
	long wall_ms;
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
	char fault[192];         /* "sandbox: <step> errno=N" */
};

/* Prepares slot index (lane 0, or a judging lane) for this process: uid,
 * cgroup, state directory, network namespace, seccomp program. */
int slot_init(struct slot *slot, const struct gaol_config *cfg, unsigned index,
	      unsigned lane, char *err, size_t errlen);
void slot_free(struct slot *slot);
/* Prepares what the next run needs fresh (its network namespace), off the
 * request's path: the worker calls it while idle.  0, or -1 with err. */
int slot_refresh(struct slot *slot, char *err, size_t errlen);
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

#endif
