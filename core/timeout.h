/*
 * timeout: the request's "timeout" string, "<n>ms", "<n>s" or "<n>m".
 */
#ifndef GAOL_TIMEOUT_H
#define GAOL_TIMEOUT_H

/* Returns 0 and the duration in milliseconds, or -1 when s is not a positive
 * integer followed by one of the units (no sign, no spaces, no fraction, no
 * overflow). */
int timeout_parse(const char *s, long *ms);

#endif
