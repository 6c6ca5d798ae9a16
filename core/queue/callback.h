/* SPDX-License-Identifier: Apache-2.0 */
/*
 * callback: whether a submission's callback_url names a target the operator
 * allows (RUN_CALLBACK_ALLOW).  An evaluation host has no lateral reach by
 * default: the list is empty and every callback_url is refused.  Only
 * http and https, no user information, the host as written (a name or an
 * IPv4 address) and its port compared with the list; the courier sends
 * with redirects off, so the target named is the target reached.
 */
#ifndef GAOL_QUEUE_CALLBACK_H
#define GAOL_QUEUE_CALLBACK_H

#include <stdbool.h>
#include <stddef.h>

/* true when url is allowed by allow ("host" or "host:port", comma
 * separated); else false and why (Judge0's words for the 422). */
bool callback_allowed(const char *allow, const char *url, char *why,
		      size_t whylen);

#endif
