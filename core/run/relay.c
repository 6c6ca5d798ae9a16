/* SPDX-License-Identifier: Apache-2.0 */
/*
 * relay: an interactive run's two copies, made by the worker (relay.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/relay.h"
#include "util/util.h"

/* poll() skips a negative fd: parked, it is -2 - fd (-1 stays "ended"). */
static void park(struct pollfd *pfd, bool parked)
{
	if (parked && pfd->fd >= 0)
		pfd->fd = -2 - pfd->fd;
	else if (!parked && pfd->fd < -1)
		pfd->fd = -2 - pfd->fd;
}

void relay_arm(struct relay *rl)
{
	if (!rl->on)
		return;
	rl->rin->fd = rl->in;
	rl->rout->fd = rl->out;
	park(rl->rin, rl->prog_len > rl->prog_off);
	park(rl->pin, rl->prog_len == rl->prog_off);
	park(rl->rout, rl->peer_len == rl->peer_off);
	park(rl->pout, rl->peer_len > rl->peer_off);
}

/* The peer's bytes: read into the buffer, written to the program's stdin;
 * the peer's end closes the program's stdin. */
static void relay_to_prog(struct relay *rl)
{
	if (rl->rin->fd >= 0 && rl->rin->revents) {
		ssize_t n = read(rl->in, rl->to_prog, RELAY_CHUNK);
		if (n > 0 && !rl->sink) {
			rl->prog_len = (size_t)n;
			rl->prog_off = 0;
		} else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			close_fd(&rl->in);
			if (!rl->sink)
				close_fd(rl->prog_in);
			rl->pin->fd = -1;
		}
	}
	if (rl->pin->fd >= 0 && rl->pin->revents) {
		ssize_t k = write(*rl->prog_in, rl->to_prog + rl->prog_off,
				  rl->prog_len - rl->prog_off);
		if (k > 0)
			rl->prog_off += (size_t)k;
		else if (k < 0 && errno != EAGAIN && errno != EINTR) {
			/* The program closed its stdin: the rest is dropped. */
			close_fd(rl->prog_in);
			rl->pin->fd = -1;
			rl->sink = true;
			rl->prog_len = rl->prog_off = 0;
		}
	}
}

/* The program's stdout, copied on to the peer; a peer gone closes the
 * program's stdout, which then meets EPIPE as it would on a pipe. */
static void relay_to_peer(struct relay *rl)
{
	if (rl->rout->fd < 0 || !rl->rout->revents)
		return;
	ssize_t k = write(rl->out, rl->to_peer + rl->peer_off, rl->peer_len - rl->peer_off);
	if (k > 0) {
		rl->peer_off += (size_t)k;
	} else if (k < 0 && errno != EAGAIN && errno != EINTR) {
		close_fd(&rl->out);
		rl->peer_len = rl->peer_off = 0;
		close_fd(rl->prog_out);
		rl->pout->fd = -1;
	}
}

/* What the program wrote to stdout, for the peer (the buffer is empty:
 * stdout is read only then); its end is the peer's end of input. */
void relay_stdout(struct relay *rl, const char *chunk, size_t len, int r)
{
	if (!rl->on || rl->out < 0)
		return;
	memcpy(rl->to_peer, chunk, len);
	rl->peer_len = len;
	rl->peer_off = 0;
	if (r == 0)
		close_fd(&rl->out);
}

int relay_open(struct relay *rl, const struct sandbox_spec *spec, int *prog_in,
	       int *prog_out)
{
	*rl = (struct relay){ .on = spec->relay, .in = spec->relay ? spec->relay_in : -1,
			      .out = spec->relay ? spec->relay_out : -1,
			      .prog_in = prog_in, .prog_out = prog_out };
	if (rl->on && (!(rl->to_prog = malloc(RELAY_CHUNK)) ||
		       !(rl->to_peer = malloc(RELAY_CHUNK))))
		return -1;
	return 0;
}

void relay_poll(struct relay *rl, struct pollfd *rin, struct pollfd *rout,
		struct pollfd *pin, struct pollfd *pout)
{
	rl->rin = rin;
	rl->rout = rout;
	rl->pin = pin;
	rl->pout = pout;
}

void relay_step(struct relay *rl)
{
	relay_to_prog(rl);
	relay_to_peer(rl);
}

void relay_close(struct relay *rl)
{
	close_fd(&rl->in);
	close_fd(&rl->out);
	free(rl->to_prog);
	free(rl->to_peer);
	rl->to_prog = rl->to_peer = NULL;
}

void relay_abandon(const struct sandbox_spec *spec, bool supervised)
{
	if (!spec->relay || supervised)
		return;
	close(spec->relay_in);
	close(spec->relay_out);
}
