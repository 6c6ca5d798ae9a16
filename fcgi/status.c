/* SPDX-License-Identifier: Apache-2.0 */
/* status: see status.h.  The statuses are docs/api.md's, "Errors and status
 * codes". */
#include "status.h"

static const struct {
	int status;
	const char *reason;
} statuses[] = {
	[OUTCOME_OK] = { 200, "OK" },
	[OUTCOME_BAD_REQUEST] = { 400, "Bad Request" },
	[OUTCOME_INVALID] = { 422, "Unprocessable Content" },
	[OUTCOME_TOO_LARGE] = { 413, "Content Too Large" },
	[OUTCOME_FAULT] = { 500, "Internal Server Error" },
	[OUTCOME_NOT_FOUND] = { 404, "Not Found" },
	[OUTCOME_WRONG_METHOD] = { 405, "Method Not Allowed" },
	[OUTCOME_NO_LENGTH] = { 411, "Length Required" },
	[OUTCOME_WRONG_MEDIA] = { 415, "Unsupported Media Type" },
	[OUTCOME_STOPPING] = { 503, "Service Unavailable" },
	[OUTCOME_CREATED] = { 201, "Created" },
};

int http_status(enum outcome outcome)
{
	if ((unsigned)outcome >= sizeof statuses / sizeof statuses[0] ||
	    !statuses[outcome].status)
		return 500;
	return statuses[outcome].status;
}

const char *http_reason(enum outcome outcome)
{
	if ((unsigned)outcome >= sizeof statuses / sizeof statuses[0] ||
	    !statuses[outcome].status)
		return statuses[OUTCOME_FAULT].reason;
	return statuses[outcome].reason;
}
