/* SPDX-License-Identifier: Apache-2.0 */
/*
 * minbox: the least a fresh sandbox per request costs, served the way gaol
 * serves it, so that make bench-throughput can set issue 13's throughput
 * target against what gaol's freshness rules leave no way around.
 *
 * It is a FastCGI server (libfcgi, the listening socket on fd 0 from
 * spawn-fcgi) of WORKERS preforked processes, worker i on CPU i as gaol's
 * are.  The server makes its mount namespace private once; for each request
 * a worker reads the body and clones a child in a new PID, mount, IPC and
 * UTS namespace (the copy of that private namespace, as gaol copies a
 * slot's template).  The child mounts a fresh tmpfs, an overlay of the
 * host's root on it, a fresh /proc and /tmp, pivots into the overlay,
 * detaches the old root and executes `/bin/sh -c true` as PID 1, its
 * output on a pipe the worker answers with.
 *
 * What it leaves out, all of which gaol does: cgroups and their
 * accounting, rlimits, seccomp, the privilege drop, an init beside the
 * program (one process here), the read-only allowlisted root, the
 * language's files, limits on output, the network namespace (gaol reuses a
 * slot's, proven empty), the request's JSON.  So it is a lower bound, not a
 * sandbox: never run untrusted code in it.
 *
 * Usage: minbox WORKERS DIR   (DIR: where the mount points are made)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fcgiapp.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The payload's shell command (a build with -DPAYLOAD='"..."' shows the
 * sandbox's view, to check it). */
#ifndef PAYLOAD
#define PAYLOAD "true"
#endif

enum { OUTPUT_MAX = 64 << 10 };

static char scratch[4096], root[4096];

static void die(const char *step)
{
	fprintf(stderr, "minbox: %s errno=%d\n", step, errno);
	exit(1);
}

/* The child: PID 1 of its namespaces; never returns. */
static void inside(int out)
{
	char path[4200];
	int null = open("/dev/null", O_RDWR);

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(119);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0)
		_exit(120);
	if (syscall(SYS_close_range, 3, ~0U, 0) < 0)
		_exit(121);
	if (mount("minbox", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m") < 0)
		_exit(122);
	snprintf(path, sizeof path, "%s/u", scratch);
	if (mkdir(path, 0755) < 0)
		_exit(123);
	snprintf(path, sizeof path, "%s/w", scratch);
	if (mkdir(path, 0755) < 0)
		_exit(123);
	snprintf(path, sizeof path, "lowerdir=/,upperdir=%s/u,workdir=%s/w", scratch, scratch);
	if (mount("minbox", root, "overlay", 0, path) < 0)
		_exit(124);
	if (chdir(root) < 0)
		_exit(125);
	if (mount("proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		_exit(126);
	if (mount("minbox", "tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=16m") < 0)
		_exit(127);
	if (mkdir(".old", 0700) < 0 && errno != EEXIST)
		_exit(128);
	if (syscall(SYS_pivot_root, ".", ".old") < 0 || chdir("/") < 0)
		_exit(129);
	if (umount2("/.old", MNT_DETACH) < 0)
		_exit(130);
	execl("/bin/sh", "sh", "-c", PAYLOAD, (char *)NULL);
	_exit(131);
}

/* One request: a fresh sandbox, its output and exit status as JSON. */
static void serve(FCGX_Request *req)
{
	static char body[4096], output[OUTPUT_MAX], past[4096];
	int pipefd[2], status = 0;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	while (FCGX_GetStr(body, sizeof body, req->in) > 0)
		;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		die("pipe");
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
			     CLONE_NEWUTS | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid < 0)
		die("clone");
	if (pid == 0)
		inside(pipefd[1]);
	close(pipefd[1]);
	/* Read to the end: output past OUTPUT_MAX is read and dropped, so that
	 * the child never blocks on a full pipe. */
	for (;;) {
		bool full = len == sizeof output;
		n = read(pipefd[0], full ? past : output + len,
			 full ? sizeof past : sizeof output - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (!full)
			len += (size_t)n;
	}
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	FCGX_FPrintF(req->out, "Content-Type: application/json\r\n\r\n"
		     "{\"exit_code\":%d,\"stdout\":\"",
		     WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)output[i];
		if (c == '"' || c == '\\')
			FCGX_FPrintF(req->out, "\\%c", c);
		else if (c < 0x20)
			FCGX_FPrintF(req->out, "\\u%04x", c);
		else
			FCGX_PutChar(c, req->out);
	}
	FCGX_PutS("\",\"stderr\":\"\"}\n", req->out);
}

static void worker(int cpu)
{
	FCGX_Request req;
	cpu_set_t set;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		die("prctl");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof set, &set);
	if (FCGX_InitRequest(&req, 0, 0) != 0)
		die("FCGX_InitRequest");
	while (FCGX_Accept_r(&req) >= 0) {
		serve(&req);
		FCGX_Finish_r(&req);
	}
	exit(0);
}

int main(int argc, char **argv)
{
	long workers = argc == 3 ? strtol(argv[1], NULL, 10) : 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (workers < 1 || workers > 256) {
		fprintf(stderr, "usage: minbox WORKERS DIR\n");
		return 2;
	}
	snprintf(scratch, sizeof scratch, "%s/scratch", argv[2]);
	snprintf(root, sizeof root, "%s/root", argv[2]);
	if ((mkdir(argv[2], 0700) < 0 && errno != EEXIST) ||
	    (mkdir(scratch, 0700) < 0 && errno != EEXIST) ||
	    (mkdir(root, 0700) < 0 && errno != EEXIST))
		die("mkdir");
	if (FCGX_Init() != 0)
		die("FCGX_Init");
	if (unshare(CLONE_NEWNS) < 0)
		die("unshare");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("mount --make-rprivate /");
	for (long i = 0; i < workers; i++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0)
			worker((int)(i % (cpus > 0 ? cpus : 1)));
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
}
