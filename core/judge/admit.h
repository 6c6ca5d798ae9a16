/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eval_admit: whether a parsed /evaluate request may be judged on its
 * language under the operator's ceilings (RUN_MEMORY_LIMIT_MAX,
 * RUN_TIME_LIMIT_MAX).  Decided before anything runs.
 */
#ifndef GAOL_EVAL_ADMIT_H
#define GAOL_EVAL_ADMIT_H

#include <stddef.h>

#include "conf/config.h"
#include "lang/lang.h"

/* 0, or -1 with the reason (answer 422) naming the field and the ceiling.
 * memory_limit_mb 0 is "the language's limit". */
int eval_admit(const struct gaol_config *cfg, const struct lang *lang,
	       long memory_limit_mb, long time_limit_ms, char *err, size_t errlen);

#endif
