/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan: what one run's processes share, built before they need it so that
 * they only make system calls.  The worker fills it before clone (or, for a
 * sandbox built ahead of its request, init fills its request part from the
 * wire); the worker keeps the read ends, init and the payload the write
 * ends.  Shared by core/run/ and core/inside/, on the floor below both.
 */
#ifndef GAOL_PLAN_H
#define GAOL_PLAN_H

#include <stdbool.h>
#include <sys/types.h>

#include "lang/lang.h"
#include "plan/spec.h"
#include "slot/slot.h"

/* A run's reports, in this order: REPORT_START once the payload has exec'd
 * (init's clock, the same monotonic one as the worker's), then REPORT_EXIT;
 * or REPORT_FAULT, a setup step that failed. */
enum { REPORT_FAULT = 1, REPORT_EXIT = 2, REPORT_START = 3 };

struct report {
	int kind;
	int status;              /* REPORT_EXIT: the payload's wait status */
	long maxrss_kb;          /* REPORT_EXIT: largest RSS in its process tree */
	int err;                 /* REPORT_FAULT: the step's errno; REPORT_EXIT:
				  * why output_file could not be sent (0: it was) */
	int export_over;         /* REPORT_EXIT: enum tree_over, the limit the
				  * export stopped at (TREE_WITHIN: none) */
	long long start_us;      /* REPORT_START: now_us() when the payload's
				  * execve was done */
	char step[64];
#ifdef GAOL_PROFILE
	long long prof_us[3];    /* init's clock: request read, view built, payload reaped */
#endif
};

/* Everything a run's children need, computed before they need it so that
 * they only make system calls: by the worker before clone, or, for a sandbox
 * built ahead of its request, by init from the request it is sent. */
struct plan {
	const struct slot *slot;
	const struct sandbox_spec *spec;
	bool ahead;              /* built ahead: the request comes on go */
	int out[2], err[2], report[2];
	int in[2];               /* stdin, when spec->stdin_data */
	int file[2];             /* spec->output_file, streamed back by init */
	int go[2];               /* ahead: the request, worker to init */
	int export_fd;           /* spec->export_dir */
	pid_t init;              /* the worker's: the init built ahead */
	char overlay_opts[512];   /* (the layers are named in the scratch tmpfs: short) */
	char scratch_opts[64];
	char *argv[4];           /* sh -c <command> */
	/* The command's words when init may exec them itself, without sh
	 * (lang_direct_argv); direct_argv[0] NULL when it may not. */
	char direct_words[1024];
	char *direct_argv[64];
};

/* init's alone: a request as init received it on the wire (for a sandbox
 * built ahead), which the plan's spec then points to. */
struct received {
	struct sandbox_spec spec;
	struct lang lang;
	struct sandbox_file *files;
};

/* Which pipes a plan opens (plan_pipes). */
enum plan_pipe {
	PIPE_STDIN = 1 << 0,     /* spec->stdin_data, fed by the worker */
	PIPE_FILE = 1 << 1,      /* spec->output_file, streamed back by init */
	PIPE_GO = 1 << 2,        /* the request, to a sandbox built ahead */
};

void plan_reset(struct plan *p, struct slot *s);
int plan_pipes(struct plan *p, unsigned pipes, char *err, size_t errlen);
int plan_layers(struct plan *p, char *err, size_t errlen);
int plan_open(struct plan *p, char *err, size_t errlen);
void plan_close_init_ends(struct plan *p);
void plan_close(struct plan *p);

/* The wire (plan/wire.c): the worker sends a request to a sandbox built
 * ahead of it; init receives it into *got, and p->spec points there.
 * 0 or -1. */
int wire_send_request(int fd, const struct sandbox_spec *spec);
int wire_receive_request(struct plan *p, struct received *got);

#endif
