/* SPDX-License-Identifier: Apache-2.0 */
/*
 * status: the one table from an answer's outcome (core/api/engine.h) to its
 * HTTP status and reason phrase.  No other file holds an HTTP status number;
 * gaol-run prints the status the service would send from here too.
 */
#ifndef GAOL_FCGI_STATUS_H
#define GAOL_FCGI_STATUS_H

#include "api/engine.h"

int http_status(enum outcome outcome);
const char *http_reason(enum outcome outcome);

#endif
