/* SPDX-License-Identifier: Apache-2.0 */
/*
 * health: the master's own socket for GET /health, beside the pool's.  The
 * pool's socket queues requests for the workers, so once every slot is busy
 * a /health queued there waits for a run to end; the master runs no request
 * and answers at once, and it knows its workers.  nginx routes /health here
 * (gaol-http.conf's upstream gaol_health).
 */
#ifndef GAOL_FCGI_HEALTH_H
#define GAOL_FCGI_HEALTH_H

#include <stddef.h>

/* Listens on <pool socket>-health.sock (the pool's ".sock" replaced; or
 * ".health" added), with the pool socket's owner, group and mode; non-blocking
 * and close-on-exec.  Returns the fd, -1 with err set on a fault, or -1 with
 * err empty when the pool's socket has no path to put it beside (then
 * /health goes through the pool as any request). */
int health_listen(int pool_fd, char *path, size_t pathlen, char *err,
		  size_t errlen);

#endif
