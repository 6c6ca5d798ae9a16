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

#include "cgroup.h"
#include "seccomp_policy.h"

struct gaol_config;
struct lang;

/* A worker's slot: the identity and the cgroup its runs use. */
struct slot {
	unsigned index;
	uid_t uid;
	struct slot_cgroup cg;
	const struct gaol_config *cfg;
	char state_dir[4096];    /* <state>/slot<N>: skeleton root, scratch */
	char **envp;             /* the payload's environment (allowlist) */
	int netns_fd;            /* the slot's loopback-only network namespace */
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
};

enum { STREAM_NONE = 0, STREAM_STDOUT = 1, STREAM_STDERR = 2 };

struct sandbox_result {
	bool ran;                /* false: the sandbox failed, see fault */
	int wait_status;         /* the payload's, valid when ran && !killed */
	bool killed;             /* we killed it: timeout or output cap */
	bool timed_out;
	int output_exceeded;     /* STREAM_* that crossed output_max */
	bool oom_killed;
	long wall_ms;
	long cpu_ms;             /* -1 when unknown */
	long memory_peak_kb;     /* -1 when unknown */
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
	char fault[192];         /* "sandbox: <step> errno=N" */
};

/* Prepares slot index for this process: uid, cgroup, state directory. */
int slot_init(struct slot *slot, const struct gaol_config *cfg, unsigned index,
	      char *err, size_t errlen);

/* Runs spec in a fresh sandbox of slot.  Returns 0 when the program ran (its
 * outcome is in res), -1 when the sandbox could not be built (res->fault says
 * which step; no user code ran). */
void slot_free(struct slot *slot);

int sandbox_run(struct slot *slot, const struct sandbox_spec *spec,
		struct sandbox_result *res);
void sandbox_result_free(struct sandbox_result *res);

#endif
