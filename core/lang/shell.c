/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shell: the start-up's own little process supervisor (lang_shell): the
 * toolchain probes and `make -n`, each in its own process group with a
 * fixed environment and a guard deadline, side by side.
 */
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

#include "util/fail.h"
#include "util/util.h"
#include "lang/internal.h"

#define SHELL_OUTPUT_MAX    (1024 * 1024)

static char *const shell_env[] = {
	"PATH=/usr/bin:/bin",
	"LANG=C.UTF-8",
	"HOME=/tmp",
	NULL
};


/* Reads what is there; returns 1 at EOF, 0 to go on, -1 past the cap. */
static int capture_read(struct capture *c)
{
	char chunk[4096], *p;
	ssize_t n;

	n = read(c->fd, chunk, sizeof(chunk));
	if (n == -1)
		return errno == EINTR || errno == EAGAIN ? 0 : 1;
	if (n == 0)
		return 1;
	if (c->len + (size_t)n > SHELL_OUTPUT_MAX)
		return -1;
	if (c->len + (size_t)n + 1 > c->cap) {
		size_t cap = c->cap ? c->cap : sizeof(chunk);

		while (cap < c->len + (size_t)n + 1)
			cap *= 2;
		if ((p = realloc(c->buf, cap)) == NULL)
			return -1;
		c->buf = p;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, chunk, (size_t)n);
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	return 0;
}

static int supervise_shell(pid_t pid, int pidfd, struct capture cap[2], long deadline,
			   long timeout_ms, char *err, size_t errlen)
{
	long left;
	struct pollfd pfd[3];
	int i, rc;

	/* poll(2) skips negative fds: a closed pipe, an exited shell. */
	pfd[0] = (struct pollfd){ cap[0].fd, POLLIN, 0 };
	pfd[1] = (struct pollfd){ cap[1].fd, POLLIN, 0 };
	pfd[2] = (struct pollfd){ pidfd, POLLIN, 0 };
	while (pfd[0].fd != -1 || pfd[1].fd != -1 || pfd[2].fd != -1) {
		/* Past the deadline, what has already happened is still taken
		 * (poll with no wait): a shell started beside others may be
		 * waited for only after it ended. */
		if ((left = deadline - now_ms()) < 0)
			left = 0;
		rc = poll(pfd, 3, left > INT_MAX ? INT_MAX : (int)left);
		if (rc == -1) {
			if (errno == EINTR)
				continue;
			return fail(err, errlen, "poll errno=%d", errno);
		}
		if (rc == 0 && now_ms() >= deadline)
			return fail(err, errlen, "timed out after %ld ms",
				    timeout_ms);
		if (pfd[2].revents != 0) {
			pfd[2].fd = -1;
			/* Whatever the shell left behind goes with it. */
			kill(-pid, SIGKILL);
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			if ((rc = capture_read(&cap[i])) == -1)
				return fail(err, errlen, "printed more than %d "
					    "bytes", SHELL_OUTPUT_MAX);
			if (rc == 1) {
				close_fd(&cap[i].fd);
				pfd[i].fd = -1;
			}
		}
	}
	return 0;
}

void lang_shell_result_free(struct lang_shell_result *res)
{
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof(*res));
}

static void shell_job_close(struct shell_job *j)
{
	int i;

	for (i = 0; i < 2; i++) {
		close_fd(&j->cap[i].fd);
		free(j->cap[i].buf);
		j->cap[i].buf = NULL;
	}
	close_fd(&j->pidfd);
}

/* Starts `/bin/sh -c cmd` (see lang_shell).  Returns 0, or -1 with a
 * reason and nothing left running. */
int shell_start(const char *dir, const char *cmd, long timeout_ms, bool capture,
		struct shell_job *j, char *err, size_t errlen)
{
	char *const argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	int pipes[2][2] = { { -1, -1 }, { -1, -1 } };
	int devnull, i, rc = -1;
	pid_t pid;

	memset(j, 0, sizeof(*j));
	j->pid = -1;
	j->pidfd = j->cap[0].fd = j->cap[1].fd = -1;
	j->timeout_ms = timeout_ms;
	j->deadline = now_ms() + timeout_ms;
	j->capture = capture;
	if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
		return fail(err, errlen, "open /dev/null errno=%d", errno);
	for (i = 0; capture && i < 2; i++)
		if (pipe2(pipes[i], O_CLOEXEC) == -1) {
			fail(err, errlen, "pipe errno=%d", errno);
			goto out;
		}

	if ((pid = fork()) == -1) {
		fail(err, errlen, "fork errno=%d", errno);
		goto out;
	}
	if (pid == 0) {
		/* Only async-signal-safe calls from here to execve. */
		setpgid(0, 0);
		if (dup2(devnull, 0) == -1 ||
		    dup2(capture ? pipes[0][1] : devnull, 1) == -1 ||
		    dup2(capture ? pipes[1][1] : devnull, 2) == -1 ||
		    (dir != NULL && chdir(dir) == -1))
			_exit(126);
		close_range(3, ~0U, 0);
		execve(argv[0], argv, shell_env);
		_exit(127);
	}
	/* Also here, so that a kill of the group cannot miss a child that has
	 * not run yet. */
	setpgid(pid, pid);
	if ((j->pidfd = pidfd_open(pid, 0)) == -1) {
		fail(err, errlen, "pidfd_open errno=%d", errno);
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	j->pid = pid;
	for (i = 0; i < 2; i++) {
		j->cap[i].fd = pipes[i][0];
		pipes[i][0] = -1;
	}
	rc = 0;
out:
	for (i = 0; i < 2; i++) {
		close_fd(&pipes[i][0]);
		close_fd(&pipes[i][1]);
	}
	close(devnull);
	return rc;
}

/* Waits for a started shell (until its deadline) and takes its result. */
int shell_finish(struct shell_job *j, struct lang_shell_result *res, char *err,
		 size_t errlen)
{
	int status = 0, i, rc;
	pid_t w;

	memset(res, 0, sizeof(*res));
	rc = supervise_shell(j->pid, j->pidfd, j->cap, j->deadline, j->timeout_ms,
		       err, errlen);
	j->timed_out = rc == -1 && now_ms() >= j->deadline;
	if (rc == -1)
		kill(-j->pid, SIGKILL);
	while ((w = waitpid(j->pid, &status, 0)) == -1 && errno == EINTR)
		;
	/* ECHILD when the caller ignores SIGCHLD: no status to report. */
	if (rc == 0 && w == -1)
		rc = fail(err, errlen, "waitpid errno=%d", errno);
	for (i = 0; rc == 0 && j->capture && i < 2; i++)
		if (j->cap[i].buf == NULL && (j->cap[i].buf = strdup("")) == NULL)
			rc = fail(err, errlen, "out of memory");
	if (rc == 0) {
		res->status = status;
		res->out = j->cap[0].buf;
		res->out_len = j->cap[0].len;
		res->err = j->cap[1].buf;
		res->err_len = j->cap[1].len;
		j->cap[0].buf = j->cap[1].buf = NULL;
	}
	shell_job_close(j);
	return rc;
}

int lang_shell(const char *dir, const char *cmd, long timeout_ms, bool capture,
	       struct lang_shell_result *res, char *err, size_t errlen)
{
	struct shell_job j;

	memset(res, 0, sizeof(*res));
	if (shell_start(dir, cmd, timeout_ms, capture, &j, err, errlen) == -1)
		return -1;
	return shell_finish(&j, res, err, errlen);
}

