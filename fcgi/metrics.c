/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics: counters in shared memory and their exposition (see metrics.h).
 * The label values are fixed tables (routes, outcomes, the languages read
 * at start-up), so the mapping has a fixed size and no allocation is shared.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "async.h"
#include "metrics.h"
#include "queue/queue.h"

#define STATUS_MIN 100
#define STATUS_N 500
#define LANGS_MAX 64
#define SLOTS_MAX 1024

static const char *const routes[] = {
	"/", "/health", "/run", "/evaluate", "/shutdown", "/metrics", "/execute", "/runtimes",
	"/api/v2/execute", "/api/v2/runtimes", "/api/v2/packages",
	"/submissions", "/submissions/batch", "/submissions/*", "/languages",
	"/languages/all", "/languages/*", "/statuses", "/about", "/version",
	"/config_info", "/system_info", "/workers", "none",
};
#define ROUTES_N (sizeof routes / sizeof routes[0])

/* /run's outcomes, then /evaluate's verdicts. */
static const char *const outcomes[] = {
	"exit", "timeout", "oom", "signal",
	"OK", "WA", "TLE", "MLE", "RE", "OLE", "CE", "IE",
};
#define OUTCOMES_N (sizeof outcomes / sizeof outcomes[0])

/* Upper bounds of the run-time histograms, in milliseconds. */
static const long long bounds_ms[] = {
	5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000,
};
#define BOUNDS_N (sizeof bounds_ms / sizeof bounds_ms[0])

struct histogram {
	uint64_t bucket[BOUNDS_N];   /* not cumulative here; summed when shown */
	uint64_t count, sum_ms;
};

struct shared {
	uint64_t requests[ROUTES_N][STATUS_N];
	uint64_t runs[LANGS_MAX][OUTCOMES_N];
	struct histogram wall, cpu, queue_wait;
	uint64_t callbacks_sent, callbacks_failed, results_kept, results_bytes;
	uint64_t sandbox_failures, worker_restarts, compile_hits, compile_misses;
	uint32_t busy[SLOTS_MAX];
	unsigned slots, langs;
	char lang[LANGS_MAX][32];
};

static struct shared *m;   /* set once by metrics_init, before the fork */

static void add(uint64_t *counter, uint64_t n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static uint64_t get(const uint64_t *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

int metrics_init(const struct engine *e)
{
	void *p = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	m = p;
	m->slots = e->cfg.concurrency < SLOTS_MAX ? e->cfg.concurrency : SLOTS_MAX;
	for (size_t i = 0; i < e->langs.n && m->langs < LANGS_MAX; i++)
		snprintf(m->lang[m->langs++], sizeof m->lang[0], "%s", e->langs.v[i].slug);
	return 0;
}

static int index_of(const char *const *table, size_t n, const char *value)
{
	for (size_t i = 0; i < n; i++)
		if (value && strcmp(table[i], value) == 0)
			return (int)i;
	return -1;
}

void metrics_request(const char *route, int status)
{
	int r = index_of(routes, ROUTES_N, route ? route : "none");

	if (!m || r < 0 || status < STATUS_MIN || status >= STATUS_MIN + STATUS_N)
		return;
	add(&m->requests[r][status - STATUS_MIN], 1);
}

static void observe(struct histogram *h, long long ms)
{
	size_t i = 0;

	if (ms < 0)
		return;
	while (i < BOUNDS_N && ms > bounds_ms[i])
		i++;
	if (i < BOUNDS_N)
		add(&h->bucket[i], 1);
	add(&h->count, 1);
	add(&h->sum_ms, (uint64_t)ms);
}

void metrics_run(const char *language, const char *outcome, long long wall_ms,
		 long long cpu_ms)
{
	int o = index_of(outcomes, OUTCOMES_N, outcome);

	if (!m || o < 0)
		return;
	for (unsigned l = 0; l < m->langs; l++)
		if (language && strcmp(m->lang[l], language) == 0)
			add(&m->runs[l][o], 1);
	observe(&m->wall, wall_ms);
	observe(&m->cpu, cpu_ms);
}

void metrics_sandbox_failure(void)
{
	if (m)
		add(&m->sandbox_failures, 1);
}

void metrics_compile(bool cached)
{
	if (m)
		add(cached ? &m->compile_hits : &m->compile_misses, 1);
}

void metrics_worker_restart(void)
{
	if (m)
		add(&m->worker_restarts, 1);
}

void metrics_queue_wait(long long ms)
{
	if (m)
		observe(&m->queue_wait, ms);
}

void metrics_callback(bool sent)
{
	if (m)
		add(sent ? &m->callbacks_sent : &m->callbacks_failed, 1);
}

void metrics_results(unsigned long long kept, unsigned long long bytes)
{
	if (!m)
		return;
	__atomic_store_n(&m->results_kept, kept, __ATOMIC_RELAXED);
	__atomic_store_n(&m->results_bytes, bytes, __ATOMIC_RELAXED);
}

void metrics_slot_busy(unsigned slot, bool busy)
{
	if (m && slot < m->slots)
		__atomic_store_n(&m->busy[slot], busy ? 1u : 0u, __ATOMIC_RELAXED);
}

/* The compile cache's entries and bytes, from each entry's size file (the
 * layout of core/cache.c): read at each scrape, a few small files. */
static void cache_usage(const struct engine *e, unsigned long long *entries,
			unsigned long long *bytes)
{
	char dir[4300], path[4600];
	struct dirent *d;
	DIR *dp;

	*entries = *bytes = 0;
	config_cache_dir(&e->cfg, dir, sizeof dir);
	if (!(dp = opendir(dir)))
		return;
	while ((d = readdir(dp))) {
		unsigned long long size;
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s/size", dir, d->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		if (fscanf(f, "%llu", &size) == 1) {
			(*entries)++;
			*bytes += size;
		}
		fclose(f);
	}
	closedir(dp);
}

static void histogram(FILE *out, const char *name, const char *help,
		      const struct histogram *h)
{
	uint64_t cumulative = 0;

	fprintf(out, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (size_t i = 0; i < BOUNDS_N; i++) {
		cumulative += get(&h->bucket[i]);
		fprintf(out, "%s_bucket{le=\"%lld\"} %llu\n", name, bounds_ms[i],
			(unsigned long long)cumulative);
	}
	fprintf(out, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %llu\n%s_count %llu\n",
		name, (unsigned long long)get(&h->count), name,
		(unsigned long long)get(&h->sum_ms), name,
		(unsigned long long)get(&h->count));
}

static void counter(FILE *out, const char *name, const char *help, uint64_t v)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help,
		name, name, (unsigned long long)v);
}

/* Judge0's queue: its depth read at each scrape (two small directories),
 * the rest counted as it happens (the results by the courier's sweep). */
static void render_queue(FILE *out)
{
	struct queue *q = async_queue();

	fprintf(out, "# HELP gaol_queue_depth Judge0 submissions waiting or running.\n"
		"# TYPE gaol_queue_depth gauge\ngaol_queue_depth %zu\n",
		q ? queue_depth(q) : 0);
	histogram(out, "gaol_queue_wait_milliseconds",
		  "Time a queued submission waited for a worker.", &m->queue_wait);
	fprintf(out, "# HELP gaol_results_kept Results of queued submissions kept.\n"
		"# TYPE gaol_results_kept gauge\ngaol_results_kept %llu\n"
		"# HELP gaol_results_bytes Bytes of the results kept.\n"
		"# TYPE gaol_results_bytes gauge\ngaol_results_bytes %llu\n",
		(unsigned long long)get(&m->results_kept),
		(unsigned long long)get(&m->results_bytes));
	counter(out, "gaol_callbacks_sent_total",
		"Callbacks a callback_url answered with 2xx.", get(&m->callbacks_sent));
	counter(out, "gaol_callbacks_failed_total",
		"Callbacks given up after their last try.", get(&m->callbacks_failed));
}

static void render(FILE *out, const struct engine *e)
{
	unsigned long long entries, bytes;
	unsigned busy = 0;

	fprintf(out, "# HELP gaol_requests_total Requests answered by gaol-fcgi, by route and status.\n"
		"# TYPE gaol_requests_total counter\n");
	for (size_t r = 0; r < ROUTES_N; r++)
		for (int s = 0; s < STATUS_N; s++)
			if (get(&m->requests[r][s]))
				fprintf(out, "gaol_requests_total{route=\"%s\",status=\"%d\"} %llu\n",
					routes[r], s + STATUS_MIN,
					(unsigned long long)get(&m->requests[r][s]));
	fprintf(out, "# HELP gaol_runs_total Runs (a /run, or one /evaluate test case), by language and outcome or verdict.\n"
		"# TYPE gaol_runs_total counter\n");
	for (unsigned l = 0; l < m->langs; l++)
		for (size_t o = 0; o < OUTCOMES_N; o++)
			if (get(&m->runs[l][o]))
				fprintf(out, "gaol_runs_total{language=\"%s\",outcome=\"%s\"} %llu\n",
					m->lang[l], outcomes[o],
					(unsigned long long)get(&m->runs[l][o]));
	histogram(out, "gaol_run_wall_milliseconds", "Wall-clock time of runs.", &m->wall);
	histogram(out, "gaol_run_cpu_milliseconds", "CPU time of runs (the run's cgroup).", &m->cpu);
	counter(out, "gaol_sandbox_build_failures_total",
		"Requests answered 500 because a sandbox could not be built.", get(&m->sandbox_failures));
	counter(out, "gaol_worker_restarts_total",
		"Workers the master started again after one ended.", get(&m->worker_restarts));
	for (unsigned s = 0; s < m->slots; s++)
		busy += __atomic_load_n(&m->busy[s], __ATOMIC_RELAXED);
	fprintf(out, "# HELP gaol_slots Slots (workers) of the pool.\n# TYPE gaol_slots gauge\n"
		"gaol_slots %u\n# HELP gaol_slots_busy Slots running a /run or /evaluate now.\n"
		"# TYPE gaol_slots_busy gauge\ngaol_slots_busy %u\n", m->slots, busy);
	counter(out, "gaol_compile_cache_hits_total", "/evaluate builds found in the compile cache.",
		get(&m->compile_hits));
	counter(out, "gaol_compile_cache_misses_total", "/evaluate builds not found in the compile cache.",
		get(&m->compile_misses));
	cache_usage(e, &entries, &bytes);
	fprintf(out, "# HELP gaol_compile_cache_bytes Bytes of the compile cache's entries.\n"
		"# TYPE gaol_compile_cache_bytes gauge\ngaol_compile_cache_bytes %llu\n"
		"# HELP gaol_compile_cache_entries Entries of the compile cache.\n"
		"# TYPE gaol_compile_cache_entries gauge\ngaol_compile_cache_entries %llu\n",
		bytes, entries);
	render_queue(out);
}

void metrics_render(const struct engine *e, struct answer *a)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	if (!m) {
		answer_error(a, OUTCOME_FAULT, "metrics: no shared counters (see the start-up log)");
		return;
	}
	if (!(out = open_memstream(&text, &len))) {
		answer_error(a, OUTCOME_FAULT, "metrics: open_memstream errno=%d", errno);
		return;
	}
	render(out, e);
	if (fclose(out) != 0 || !text) {
		free(text);
		answer_error(a, OUTCOME_FAULT, "metrics: no memory");
		return;
	}
	a->outcome = OUTCOME_OK;
	a->body = text;
	a->len = len;
}
