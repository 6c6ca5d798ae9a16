/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conf/judge0: the readers of Judge0's rows of the one table (config.c):
 * where a callback may go, and Judge0's defaults and maxima.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "util/fail.h"

const char *const config_judge0_keys[J0_LIMITS] = {
	"cpu_time_limit", "max_cpu_time_limit", "cpu_extra_time",
	"max_cpu_extra_time", "wall_time_limit", "max_wall_time_limit",
	"memory_limit", "max_memory_limit", "stack_limit", "max_stack_limit",
	"max_processes_and_or_threads", "max_max_processes_and_or_threads",
	"max_file_size", "max_max_file_size", "number_of_runs",
	"max_number_of_runs", "max_extract_size",
};

/* Judge0 CE's own (judge0.conf), in the order of the keys. */
static const double judge0_defaults[J0_LIMITS] = {
	5, 15, 1, 5, 10, 20, 128000, 512000, 64000, 128000, 60, 120, 1024, 4096,
	1, 20, 10240,
};

/* host or host:port, comma separated, checked for its characters here and
 * matched against each callback_url by queue/callback.c. */
int config_read_callback_allow(const struct config_var *var, const char *v,
			       struct gaol_config *cfg, char *err, size_t errlen)
{
	if (v && (strlen(v) >= sizeof cfg->callback_allow ||
		  strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789.-:,_ ") != strlen(v)))
		return fail(err, errlen, "%s=\"%s\": not a list of host or host:port "
			    "(of at most 1023 bytes)", var->name, v);
	snprintf(cfg->callback_allow, sizeof cfg->callback_allow, "%s", v ? v : "");
	return 0;
}

/* The three time keys take seconds with decimals; the others are whole. */
static bool whole_key(int k)
{
	return k > J0_MAX_WALL_TIME_LIMIT;
}

static int key_index(const char *name, size_t len)
{
	for (int k = 0; k < J0_LIMITS; k++)
		if (strlen(config_judge0_keys[k]) == len &&
		    !strncmp(config_judge0_keys[k], name, len))
			return k;
	return -1;
}

/* One "key=number" of the list, into out[]. */
static int judge0_pair(const struct config_var *var, const char *v, const char *p,
		       size_t len, double out[], char *err, size_t errlen)
{
	char item[128], *end;
	while (len && *p == ' ')
		p++, len--;
	while (len && p[len - 1] == ' ')
		len--;
	const char *eq = memchr(p, '=', len);
	int k = eq ? key_index(p, (size_t)(eq - p)) : -1;
	if (k < 0 || len >= sizeof(item))
		return fail(err, errlen, "%s=\"%s\": \"%.*s\" is not `key=number` with "
			    "a key of Judge0's /config_info", var->name, v, (int)len, p);
	memcpy(item, eq + 1, len - (size_t)(eq + 1 - p));
	item[len - (size_t)(eq + 1 - p)] = 0;
	double x = strtod(item, &end);
	if (!item[0] || *end || !isfinite(x) || x < 0 || x > 1e9 ||
	    (whole_key(k) && x != (double)(long long)x) || (k != J0_CPU_EXTRA_TIME &&
						k != J0_MAX_CPU_EXTRA_TIME && x == 0))
		return fail(err, errlen, "%s=\"%s\": %s=\"%s\" is not a %s number",
			    var->name, v, config_judge0_keys[k], item,
			    whole_key(k) ? "positive whole" : "positive");
	out[k] = x;
	return 0;
}

int config_read_judge0_limits(const struct config_var *var, const char *v,
			      struct gaol_config *cfg, char *err, size_t errlen)
{
	double set[J0_LIMITS];
	for (int k = 0; k < J0_LIMITS; k++)
		set[k] = -1;
	for (const char *p = v; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (judge0_pair(var, v, p, len, set, err, errlen) < 0)
			return -1;
		p += len + (comma != NULL);
	}
	for (int k = 0; k < J0_LIMITS; k++)
		cfg->judge0[k] = set[k] >= 0 ? set[k] : judge0_defaults[k];
	/* Each default is followed by its maximum, but max_extract_size: one
	 * set above its maximum is refused, Judge0's lowered to it. */
	for (int k = 0; k + 1 < J0_MAX_EXTRACT_SIZE; k += 2) {
		if (set[k] >= 0 && set[k] > cfg->judge0[k + 1])
			return fail(err, errlen, "%s=\"%s\": %s=%g is above %s=%g",
				    var->name, v, config_judge0_keys[k], cfg->judge0[k],
				    config_judge0_keys[k + 1], cfg->judge0[k + 1]);
		if (cfg->judge0[k] > cfg->judge0[k + 1])
			cfg->judge0[k] = cfg->judge0[k + 1];
	}
	return 0;
}
