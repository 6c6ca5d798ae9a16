/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeout: the request's "timeout" string, "<n>ms", "<n>s" or "<n>m".
 */
#ifndef GAOL_TIMEOUT_H
#define GAOL_TIMEOUT_H

/* Returns 0 and the duration in milliseconds, or -1 when s is not a positive
 * integer followed by one of the units (no sign, no spaces, no fraction, no
 * overflow).  The unit is required, as in the Codebattle runner: a bare "30"
 * is rejected rather than guessed at, and units are lower case only.  Leading
 * zeros are allowed ("05s" is 5 s). */
int timeout_parse(const char *s, long *ms);

#endif
