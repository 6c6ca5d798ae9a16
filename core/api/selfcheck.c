/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The start-up self-check: gaol refuses to serve on a host where a part of
 * the sandbox does not work (docs/design.md, "Threat model": fail closed).  The host's
 * kernel features are read first; then one real sandbox is built and a probe
 * script inside it reports, mechanism by mechanism, what it can see.  The
 * probe is an ordinary run: if the sandbox could not be built, that is the
 * answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/engine.h"
#include "util/util.h"

/* Each line of the probe prints "ok <name>" or "missing <name>". */
static const struct {
	const char *name;
	const char *test;        /* sh; %1$u is the slot UID */
} probes[] = {
	{ "pid-namespace", "[ $$ -lt 10 ] && [ \"$(ls -d /proc/[0-9]* | wc -l)\" -lt 10 ]" },
	{ "pivot_root", "! grep -q ' /.old ' /proc/self/mountinfo && [ ! -e /root ] && [ ! -e /run ]" },
	{ "read-only-root", "! touch /usr/.gaol-probe /etc/.gaol-probe /.gaol-probe" },
	{ "overlay", "grep -q ' /sandbox .* overlay ' /proc/self/mountinfo && touch /sandbox/probe" },
	{ "tmpfs-tmp", "touch /tmp/probe" },
	{ "network-namespace", "[ \"$(grep -c : /proc/net/dev)\" = 1 ] && grep -q 'lo:' /proc/net/dev" },
	{ "cgroup-namespace", "! grep -vq ':/$' /proc/self/cgroup" },
	{ "uid", "[ \"$(id -u)\" = %1$u ] && [ \"$(id -g)\" = %1$u ]" },
	{ "no-groups", "[ \"$(id -G)\" = %1$u ]" },
	{ "no-capabilities", "grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status && grep -q '^CapPrm:[[:space:]]*0*$' /proc/self/status" },
	{ "no_new_privs", "grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status" },
	{ "seccomp", "grep -q '^Seccomp:[[:space:]]*2$' /proc/self/status" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int line(FILE *out, int ok, const char *name, const char *detail)
{
	fprintf(out, "%-8s %s%s%s\n", ok ? "ok" : "missing", name,
		detail && *detail ? ": " : "", detail ? detail : "");
	return ok ? 0 : 1;
}

static int kernel_checks(FILE *out)
{
	static const char *const ns[] = { "mnt", "pid", "ipc", "uts", "net", "cgroup" };
	int bad = 0;
	char path[64];
	for (size_t i = 0; i < N(ns); i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i]);
		char name[64];
		snprintf(name, sizeof(name), "kernel %s namespaces", ns[i]);
		bad += line(out, access(path, F_OK) == 0, name, NULL);
	}
	bad += line(out, file_contains("/proc/filesystems", "\toverlay\n"), "kernel overlayfs", NULL);
	bad += line(out, file_contains("/proc/filesystems", "\ttmpfs\n"), "kernel tmpfs", NULL);
	bad += line(out, file_contains("/proc/sys/kernel/seccomp/actions_avail", "kill_process"),
		    "kernel seccomp filters", NULL);
	bad += line(out, geteuid() == 0, "running as root", NULL);
	return bad;
}

int engine_selfcheck(struct engine *e, FILE *out)
{
	int bad = kernel_checks(out);
	char detail[128];
	slot_describe_cgroup(&e->slot, detail, sizeof(detail));
	line(out, 1, "cgroup", detail);

	/* The probe's language: an empty directory as /sandbox. */
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/probe", slot_state_dir(&e->slot));
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		char why[32];
		snprintf(why, sizeof(why), "mkdir errno=%d", errno);
		return line(out, 0, "probe directory", why) + bad;
	}
	char *subdirs[] = { NULL };
	struct lang probe = {
		.slug = "probe", .dir = dir, .workdir = "check",
		.solution_file = "probe.sh", .tmp_size = 16 << 20,
		.mem_max = 64 << 20, .subdirs = subdirs,
	};

	char script[8192];
	size_t used = 0;
	for (size_t i = 0; i < N(probes); i++) {
		char test[512];
		snprintf(test, sizeof(test), probes[i].test, (unsigned)slot_uid(&e->slot));
		used += (size_t)snprintf(script + used, sizeof(script) - used,
			"if ( %s ) >/dev/null 2>&1; then echo 'ok %s'; else echo 'missing %s'; fi\n",
			test, probes[i].name, probes[i].name);
	}
	struct sandbox_file file = { "probe.sh", script, used };
	struct sandbox_spec spec = {
		.lang = &probe, .command = "/bin/sh check/probe.sh", .files = &file,
		.n_files = 1, .timeout_ms = 10000, .output_max = 65536,
	};
	struct sandbox_result res;
	if (sandbox_run(&e->slot, &spec, &res) < 0) {
		bad += line(out, 0, "sandbox", res.fault);
		sandbox_result_free(&res);
		return bad;
	}
	line(out, 1, "sandbox", NULL);
	for (size_t i = 0; i < N(probes); i++) {
		char want[96];
		snprintf(want, sizeof(want), "ok %s\n", probes[i].name);
		bad += line(out, res.out && strstr(res.out, want) != NULL, probes[i].name, NULL);
	}
	bad += line(out, res.cpu_ms >= 0 && res.memory_peak_kb >= 0,
		    "cgroup accounting", NULL);
	bad += line(out, !res.killed && WIFEXITED(res.wait_status), "probe exit", NULL);
	sandbox_result_free(&res);
	return bad;
}
