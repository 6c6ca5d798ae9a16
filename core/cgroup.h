/*
 * cgroup: one cgroup per slot, created at start-up under the service's own
 * cgroup, on cgroup v2 or on v1 (hybrid hosts included).  libcgroup creates,
 * configures and removes them; the per-run hot path (reset counters, read
 * CPU time, peak memory and OOM kills) uses file descriptors opened once.
 */
#ifndef GAOL_CGROUP_H
#define GAOL_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

#define CG_MAX_CONTROLLERS 4

struct slot_cgroup {
	int version;             /* 1 or 2; 0 when not set up */
	char name[256];          /* relative to each hierarchy's root */
	int dir_fd[CG_MAX_CONTROLLERS];   /* v1: memory, pids, cpu, cpuacct; v2: [0] */
	int n_dirs;
	int procs_fd[CG_MAX_CONTROLLERS]; /* cgroup.procs of each, for joining */
	unsigned long long oom_before;    /* OOM kill count before the run */
};

struct cgroup_usage {
	long cpu_ms;
	long memory_peak_kb;
	bool oom_killed;
};

int cgroup_slot_setup(struct slot_cgroup *cg, unsigned slot, char *err,
		      size_t errlen);
int cgroup_slot_begin(struct slot_cgroup *cg, unsigned long long mem_max,
		      unsigned pids_max, char *err, size_t errlen);
/* Moves the calling process into the slot cgroup (v1 path; on v2 the payload
 * is cloned into it).  Async-signal-safe: used between fork and exec. */
int cgroup_slot_join(const struct slot_cgroup *cg);
int cgroup_slot_read(struct slot_cgroup *cg, struct cgroup_usage *u);

/* Pure parsers of the kernel's file formats, unit-tested for both versions. */
int cg_parse_v2_cpu_stat(const char *text, unsigned long long *usage_usec);
int cg_parse_v2_events(const char *text, const char *key,
		       unsigned long long *value);
int cg_parse_v1_oom_control(const char *text, unsigned long long *oom_kills);

#endif
