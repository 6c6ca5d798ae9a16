/* SPDX-License-Identifier: Apache-2.0 */
/*
 * relay: an interactive run's two copies (spec->relay; judge/aide.c): the
 * peer's bytes into the program's stdin, the program's stdout out to the
 * peer, both through pipes of the worker's own.  Each direction holds at
 * most one chunk: while it waits to be written, the side it came from is
 * not read (parked), so a program or a peer that stops reading stops the
 * other, as a pipe would, and the worker's memory stays flat.  Driven from
 * sandbox.c's poll loop; private to core/run/.
 */
#ifndef GAOL_RELAY_H
#define GAOL_RELAY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "plan/spec.h"

#define RELAY_CHUNK 65536

struct relay {
	bool on;
	int in, out;             /* the worker's pipes from and to the peer */
	int *prog_in, *prog_out; /* the program's stdin and stdout pipes (plan) */
	struct pollfd *rin, *rout, *pin, *pout;   /* their poll entries */
	char *to_prog, *to_peer;
	size_t prog_len, prog_off, peer_len, peer_off;
	bool sink;               /* the program's stdin is closed: the peer's
				  * bytes are read and dropped */
};

/* Takes spec's relay ends (when spec->relay) and the program's stdin and
 * stdout pipes.  0, or -1 out of memory. */
int relay_open(struct relay *rl, const struct sandbox_spec *spec, int *prog_in,
	       int *prog_out);
/* The poll entries of the peer's pipes and of the program's stdin and
 * stdout, in the supervisor's array. */
void relay_poll(struct relay *rl, struct pollfd *rin, struct pollfd *rout,
		struct pollfd *pin, struct pollfd *pout);
/* Before poll(): which side is read or written, which is parked. */
void relay_arm(struct relay *rl);
/* After poll(): the copies made. */
void relay_step(struct relay *rl);
/* What the program wrote to stdout (chunk[0..len), at most RELAY_CHUNK),
 * for the peer; r 0: its end, the peer's end of input. */
void relay_stdout(struct relay *rl, const char *chunk, size_t len, int r);
/* Closes the relay's ends: the peer sees the end of both copies. */
void relay_close(struct relay *rl);
/* A run never supervised (relay_close did not run): its relay ends
 * closed all the same. */
void relay_abandon(const struct sandbox_spec *spec, bool supervised);

#endif
