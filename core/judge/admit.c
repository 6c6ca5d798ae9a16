/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eval_admit: the operator's ceilings on what a judged request may ask for.
 * Clients choose their memory and CPU time per test; without a ceiling one
 * request could take 16 GB per test.  Unless the operator raises it
 * (RUN_MEMORY_LIMIT_MAX), a language's own memory limit (lang.json mem_max,
 * RUN_MEM_MAX_<SLUG>) is the ceiling of its memory_limit_mb.
 */
#include "judge/admit.h"
#include "util/fail.h"

int eval_admit(const struct gaol_config *cfg, const struct lang *lang,
	       long memory_limit_mb, long time_limit_ms, char *err, size_t errlen)
{
	unsigned long long mem_max = cfg->eval_memory_max ? cfg->eval_memory_max
				     : lang->mem_max;
	long mem_max_mb = (long)(mem_max >> 20);

	if (!lang->build_cmd || !lang->run_cmd)
		return fail(err, errlen, "language %s cannot be judged (no "
			    "build/run target)", lang->slug);
	if (memory_limit_mb > mem_max_mb)
		return fail(err, errlen, "memory_limit_mb %ld is above this "
			    "service's ceiling of %ld MB (%s)", memory_limit_mb,
			    mem_max_mb, cfg->eval_memory_max ? "RUN_MEMORY_LIMIT_MAX"
			    : "the language's memory limit; RUN_MEMORY_LIMIT_MAX "
			    "raises it");
	if (time_limit_ms > cfg->eval_time_max_ms)
		return fail(err, errlen, "time_limit_ms %ld is above this "
			    "service's ceiling of %ld ms (RUN_TIME_LIMIT_MAX)",
			    time_limit_ms, cfg->eval_time_max_ms);
	return 0;
}
