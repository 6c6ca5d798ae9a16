/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge0/routes: the synchronous routes of Judge0's API (judge0.h): a
 * submission run while its client waits, the languages and statuses, and
 * the information pages (Judge0's docs/api/statuses_and_languages and
 * docs/api/information).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <json-c/json.h>

#include "conf/version.h"
#include "util/util.h"
#include "judge0/internal.h"
#include "judge0/judge0.h"

/* A random UUID (version 4), Judge0's token shape. */
static void uuid4(char out[37])
{
	unsigned char b[16] = { 0 };
	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)((unsigned long long)now_us() >> (i % 8));
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

static void answer_created(struct answer *a, struct json_object *o)
{
	answer_json(a, OUTCOME_CREATED, o);
}

/* The job's token and created_at, when the caller gave none. */
static void stamp(struct json_object *job)
{
	char token[37], now[40];
	if (!json_object_object_get_ex(job, "token", NULL)) {
		uuid4(token);
		json_object_object_add(job, "token", json_object_new_string(token));
	}
	if (!json_object_object_get_ex(job, "created_at", NULL)) {
		judge0_now(now, sizeof(now));
		json_object_object_add(job, "created_at", json_object_new_string(now));
	}
}

void judge0_submit_wait(struct engine *e, const char *body, size_t len,
			const struct request_io *io, const struct judge0_keeper *keeper,
			struct answer *a)
{
	struct judge0_query q;
	struct json_object *job, *result, *out, *token;
	memset(a, 0, sizeof(*a));
	if (judge0_query_parse(io ? io->query : NULL, &q, a) < 0 ||
	    judge0_job_parse(e, body, len, q.base64_encoded, &job, a) < 0)
		return;
	if (keeper && keeper->stamp(e, job) < 0) {
		answer_error(a, OUTCOME_FAULT, "no token for the submission");
		json_object_put(job);
		return;
	}
	stamp(job);
	result = judge0_run(e, job, io ? io->client : NULL);
	json_object_object_get_ex(job, "token", &token);
	if (keeper && result)
		keeper->keep(e, json_object_get_string(token), result);
	enum judge0_format_rc rc = result ? judge0_format(result, q.fields, q.base64_encoded, &out)
				   : JUDGE0_FORMAT_NO_MEMORY;
	if (rc == JUDGE0_FORMAT_OK)
		answer_created(a, out);
	else if (rc == JUDGE0_FORMAT_NOT_UTF8)
		answer_created(a, judge0_conversion_error(json_object_get_string(token)));
	else
		answer_error(a, OUTCOME_FAULT, "out of memory");
	json_object_put(result);
	json_object_put(job);
}

/* ---- languages and statuses ---- */

static struct json_object *lang_entry(const struct lang *l, const struct lang_judge0 *j,
				      bool archived_field)
{
	char name[256];
	struct json_object *o = json_object_new_object();
	judge0_lang_name(l, j, name, sizeof(name));
	json_object_object_add(o, "id", json_object_new_int(j->id));
	json_object_object_add(o, "name", json_object_new_string(name));
	if (archived_field)
		json_object_object_add(o, "is_archived", json_object_new_boolean(0));
	return o;
}

static int by_name(const void *a, const void *b)
{
	struct json_object *x = *(struct json_object *const *)a, *y = *(struct json_object *const *)b, *nx, *ny;
	json_object_object_get_ex(x, "name", &nx);
	json_object_object_get_ex(y, "name", &ny);
	return strcmp(json_object_get_string(nx), json_object_get_string(ny));
}

/* The newest id of an installed language (the highest), and 89 beside
 * it: the multi-file program is a language of its own to Judge0. */
static bool listed_id(const struct lang *l, size_t k, bool all)
{
	if (all || l->judge0[k].id == JUDGE0_MULTI_FILE)
		return true;
	for (size_t i = 0; i < l->n_judge0; i++)
		if (l->judge0[i].id != JUDGE0_MULTI_FILE && l->judge0[i].id > l->judge0[k].id)
			return false;
	return true;
}

static void languages(struct engine *e, bool all, struct answer *a)
{
	struct json_object *arr = json_object_new_array();
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < e->langs.n; i++) {
		const struct lang *l = &e->langs.v[i];
		if (!all && (!l->installed || !l->execute_cmd))
			continue;
		for (size_t k = 0; k < l->n_judge0; k++)
			if (listed_id(l, k, all))
				json_object_array_add(arr, lang_entry(l, &l->judge0[k], all));
	}
	json_object_array_sort(arr, by_name);
	answer_json(a, OUTCOME_OK, arr);
}

void judge0_languages(struct engine *e, const struct request_io *io, struct answer *a)
{
	(void)io;
	languages(e, false, a);
}

void judge0_languages_all(struct engine *e, const struct request_io *io, struct answer *a)
{
	(void)io;
	languages(e, true, a);
}

void judge0_language(struct engine *e, const struct request_io *io, struct answer *a)
{
	const char *arg = io && io->path_arg ? io->path_arg : "";
	char *end;
	long id = strtol(arg, &end, 10);
	const struct lang_judge0 *j;
	const struct lang *l = *arg && !*end ? judge0_lang(e, (int)id, &j) : NULL;
	memset(a, 0, sizeof(*a));
	if (!l) {
		answer_error(a, OUTCOME_NOT_FOUND, "language with id %.40s doesn't exist", arg);
		return;
	}
	struct json_object *o = lang_entry(l, j, true);
	json_object_object_add(o, "source_file", json_object_new_string(
		l->execute_file ? l->execute_file : "main"));
	json_object_object_add(o, "compile_cmd", l->compile_cmd ?
			       json_object_new_string(l->compile_cmd) : NULL);
	json_object_object_add(o, "run_cmd", l->execute_cmd ?
			       json_object_new_string(l->execute_cmd) : NULL);
	answer_json(a, OUTCOME_OK, o);
}

void judge0_statuses(struct engine *e, const struct request_io *io, struct answer *a)
{
	struct json_object *arr = json_object_new_array();
	(void)e;
	(void)io;
	memset(a, 0, sizeof(*a));
	for (int id = 1; id <= JUDGE0_STATUS_MAX; id++) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int(id));
		json_object_object_add(o, "description",
				       json_object_new_string(judge0_status_name(id)));
		json_object_array_add(arr, o);
	}
	answer_json(a, OUTCOME_OK, arr);
}

/* ---- information ---- */

void judge0_about(struct engine *e, const struct request_io *io, struct answer *a)
{
	struct json_object *o = json_object_new_object();
	(void)e;
	(void)io;
	memset(a, 0, sizeof(*a));
	json_object_object_add(o, "version", json_object_new_string(gaol_version()));
	json_object_object_add(o, "homepage", NULL);
	json_object_object_add(o, "source_code", NULL);
	json_object_object_add(o, "maintainer", NULL);
	json_object_object_add(o, "engine", json_object_new_string("gaol"));
	answer_json(a, OUTCOME_OK, o);
}

/* Plain text, as Judge0's (the route's type says so). */
void judge0_version(struct engine *e, const struct request_io *io, struct answer *a)
{
	(void)e;
	(void)io;
	memset(a, 0, sizeof(*a));
	a->outcome = OUTCOME_OK;
	a->body = strdup(gaol_version());
	a->len = a->body ? strlen(a->body) : 0;
	if (!a->body)
		answer_error(a, OUTCOME_FAULT, "out of memory");
}

static void add_bool(struct json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static void add_num(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

static void config_limits(struct json_object *o, const struct judge0_limits *l)
{
	add_num(o, "cpu_time_limit", l->cpu_time_limit);
	add_num(o, "max_cpu_time_limit", l->max_cpu_time_limit);
	add_num(o, "cpu_extra_time", l->cpu_extra_time);
	add_num(o, "max_cpu_extra_time", l->max_cpu_extra_time);
	add_num(o, "wall_time_limit", l->wall_time_limit);
	add_num(o, "max_wall_time_limit", l->max_wall_time_limit);
	add_num(o, "memory_limit", (double)l->memory_limit);
	add_num(o, "max_memory_limit", (double)l->max_memory_limit);
	add_num(o, "stack_limit", (double)l->stack_limit);
	add_num(o, "max_stack_limit", (double)l->max_stack_limit);
	add_num(o, "max_processes_and_or_threads", (double)l->max_processes_and_or_threads);
	add_num(o, "max_max_processes_and_or_threads",
		(double)l->max_max_processes_and_or_threads);
	add_num(o, "max_file_size", (double)l->max_file_size);
	add_num(o, "max_max_file_size", (double)l->max_max_file_size);
	add_num(o, "number_of_runs", (double)l->number_of_runs);
	add_num(o, "max_number_of_runs", (double)l->max_number_of_runs);
	add_num(o, "max_extract_size", (double)l->max_extract_size);
}

/* Judge0's config_info (app/helpers/config.rb) with this host's values;
 * the queue's keys are the asynchronous side's. */
void judge0_config_info(struct engine *e, const struct request_io *io, struct answer *a)
{
	struct judge0_limits l;
	struct json_object *o = json_object_new_object();
	(void)io;
	memset(a, 0, sizeof(*a));
	judge0_limits(e, &l);
	add_bool(o, "maintenance_mode", false);
	add_bool(o, "enable_wait_result", true);
	add_bool(o, "enable_compiler_options", true);
	json_object_object_add(o, "allowed_languages_for_compile_options",
			       json_object_new_array());
	add_bool(o, "enable_command_line_arguments", true);
	add_bool(o, "enable_submission_delete", false);
	add_bool(o, "enable_additional_files", true);
	config_limits(o, &l);
	add_bool(o, "enable_per_process_and_thread_time_limit", false);
	add_bool(o, "allow_enable_per_process_and_thread_time_limit", false);
	add_bool(o, "enable_per_process_and_thread_memory_limit", false);
	add_bool(o, "allow_enable_per_process_and_thread_memory_limit", false);
	add_bool(o, "redirect_stderr_to_stdout", false);
	add_bool(o, "allow_enable_network", false);
	add_bool(o, "enable_network", false);
	add_bool(o, "disable_implicit_base64_encoding", true);
	answer_json(a, OUTCOME_OK, o);
}

/* Judge0 prints lscpu's lines and free's; the same facts from the kernel. */
void judge0_system_info(struct engine *e, const struct request_io *io, struct answer *a)
{
	struct utsname u;
	struct sysinfo si;
	char mem[64], swap[64];
	struct json_object *o = json_object_new_object();
	(void)e;
	(void)io;
	memset(a, 0, sizeof(*a));
	uname(&u);
	sysinfo(&si);
	snprintf(mem, sizeof(mem), "%lluM", (unsigned long long)si.totalram * si.mem_unit >> 20);
	snprintf(swap, sizeof(swap), "%lluM", (unsigned long long)si.totalswap * si.mem_unit >> 20);
	json_object_object_add(o, "Architecture", json_object_new_string(u.machine));
	json_object_object_add(o, "CPU(s)", json_object_new_int(get_nprocs()));
	json_object_object_add(o, "Kernel", json_object_new_string(u.release));
	json_object_object_add(o, "Mem", json_object_new_string(mem));
	json_object_object_add(o, "Swap", json_object_new_string(swap));
	answer_json(a, OUTCOME_OK, o);
}

/* Judge0's workers health check (docs/api/health_check/workers.md): one
 * entry per queue.  Here the synchronous slots; the queue's figures are
 * the asynchronous side's to add. */
void judge0_workers(struct engine *e, const struct request_io *io, struct answer *a)
{
	struct json_object *arr = json_object_new_array(), *o = json_object_new_object();
	(void)io;
	memset(a, 0, sizeof(*a));
	json_object_object_add(o, "queue", json_object_new_string(gaol_version()));
	json_object_object_add(o, "size", json_object_new_int(0));
	json_object_object_add(o, "available", json_object_new_int((int)e->cfg.concurrency));
	json_object_object_add(o, "idle", json_object_new_int((int)e->cfg.concurrency));
	json_object_object_add(o, "working", json_object_new_int(0));
	json_object_object_add(o, "paused", json_object_new_int(0));
	json_object_object_add(o, "failed", json_object_new_int(0));
	json_object_array_add(arr, o);
	answer_json(a, OUTCOME_OK, arr);
}

/* ---- the routes by path ---- */

static const struct {
	const char *route;
	void (*get)(struct engine *e, const struct request_io *io, struct answer *a);
} gets[] = {
	{ "/languages", judge0_languages }, { "/languages/all", judge0_languages_all },
	{ "/languages/*", judge0_language }, { "/statuses", judge0_statuses },
	{ "/about", judge0_about }, { "/version", judge0_version },
	{ "/config_info", judge0_config_info }, { "/system_info", judge0_system_info },
	{ "/workers", judge0_workers },
};

void judge0_get(struct engine *e, const struct request_io *io, struct answer *a)
{
	for (size_t i = 0; i < sizeof(gets) / sizeof(gets[0]); i++)
		if (io && io->route && !strcmp(gets[i].route, io->route)) {
			gets[i].get(e, io, a);
			return;
		}
	answer_error(a, OUTCOME_NOT_FOUND, "no Judge0 route %s", io && io->route ? io->route : "");
}

void judge0_submit(struct engine *e, const char *body, size_t len,
		   const struct request_io *io, struct answer *a)
{
	struct judge0_query q;
	memset(a, 0, sizeof(*a));
	if (judge0_query_parse(io ? io->query : NULL, &q, a) < 0)
		return;
	if (q.wait)
		judge0_submit_wait(e, body, len, io, NULL, a);
	else
		answer_error(a, OUTCOME_BAD_REQUEST, "wait=false needs the submission queue, "
			     "which this build has not: send wait=true");
}
