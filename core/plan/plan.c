/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan: see plan.h.  Pure setup work on the worker's side (and string work
 * in init for a sandbox built ahead): pipes, the overlay's options, names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/fail.h"
#include "plan/plan.h"
#include "util/util.h"

void plan_close(struct plan *p)
{
	for (int i = 0; i < 2; i++) {
		close_fd(&p->out[i]);
		close_fd(&p->err[i]);
		close_fd(&p->report[i]);
		close_fd(&p->in[i]);
		close_fd(&p->file[i]);
		close_fd(&p->go[i]);
	}
	close_fd(&p->export_fd);
}

/* What the request decides: the overlay's layers, the tmpfs size, the
 * command.  Pure string work, done by whoever has the request. */
int plan_layers(struct plan *p, char *err, size_t errlen)
{
	const struct sandbox_spec *spec = p->spec;
	const struct lang *lang = spec->lang;
	const char *step = "overlay options";
	errno = ENAMETOOLONG;
	/* The layers' names in the scratch tmpfs (mounts_build_request). */
	int n = snprintf(p->overlay_opts, sizeof(p->overlay_opts),
			 "lowerdir=%slang,upperdir=upper,workdir=work",
			 spec->lower ? "build:" : "");
	if (n < 0 || (size_t)n >= sizeof(p->overlay_opts) || strpbrk(lang->dir, ",:") ||
	    (spec->lower && strpbrk(spec->lower, ",:")))
		goto fail;
	errno = EINVAL;
	step = "file names";
	if ((spec->input_file && !name_is_plain(spec->input_file)) ||
	    (spec->output_file && !name_is_plain(spec->output_file)))
		goto fail;
	snprintf(p->scratch_opts, sizeof(p->scratch_opts), "size=%llu,mode=0755",
		 lang->tmp_size);
	p->argv[0] = "sh";
	p->argv[1] = "-c";
	p->argv[2] = (char *)spec->command;
	p->argv[3] = NULL;
	if (spec->sh_argv)
		p->direct_argv[0] = NULL;   /* its words need the shell's "$@" */
	else if (!lang_direct_argv(spec->command, p->direct_words, sizeof(p->direct_words),
			      p->direct_argv, sizeof(p->direct_argv) / sizeof(p->direct_argv[0])))
		p->direct_argv[0] = NULL;
	return 0;
fail:
	return fail(err, errlen, "sandbox: %s errno=%d", step, errno);
}

void plan_reset(struct plan *p, struct slot *s)
{
	memset(p, 0, sizeof(*p));
	p->slot = s;
	for (int i = 0; i < 2; i++)
		p->out[i] = p->err[i] = p->report[i] = p->in[i] = p->file[i] =
			p->go[i] = -1;
	p->export_fd = -1;
}

/* The pipes between worker and run.  Ahead of a request all of them exist,
 * since which are needed is not known yet. */
int plan_pipes(struct plan *p, unsigned pipes, char *err, size_t errlen)
{
	if (pipe2(p->out, O_CLOEXEC) < 0 || pipe2(p->err, O_CLOEXEC) < 0 ||
	    pipe2(p->report, O_CLOEXEC) < 0 ||
	    ((pipes & PIPE_STDIN) && (pipe2(p->in, O_CLOEXEC) < 0 ||
			 fcntl(p->in[1], F_SETFL, O_NONBLOCK) < 0)) ||
	    ((pipes & PIPE_FILE) && pipe2(p->file, O_CLOEXEC) < 0) ||
	    ((pipes & PIPE_GO) && pipe2(p->go, O_CLOEXEC) < 0)) {
		return fail(err, errlen, "sandbox: pipe errno=%d", errno);
	}
	return 0;
}

/* Opens what a run built on demand needs besides its layers (plan_layers
 * has laid those): its pipes and the export directory. */
int plan_open(struct plan *p, char *err, size_t errlen)
{
	const struct sandbox_spec *spec = p->spec;
	unsigned pipes = (spec->stdin_data && !spec->input_file ? PIPE_STDIN : 0) |
			 (spec->output_file ? PIPE_FILE : 0);
	if (plan_pipes(p, pipes, err, errlen) < 0)
		return -1;
	if (spec->export_dir &&
	    (p->export_fd = open(spec->export_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		return fail(err, errlen, "sandbox: open export dir errno=%d", errno);
	}
	return 0;
}

/* The worker's ends only, once init has its own. */
void plan_close_init_ends(struct plan *p)
{
	close_fd(&p->out[1]);
	close_fd(&p->err[1]);
	close_fd(&p->report[1]);
	close_fd(&p->in[0]);
	close_fd(&p->file[1]);
	close_fd(&p->go[0]);
	close_fd(&p->export_fd);
}

