/* SPDX-License-Identifier: Apache-2.0 */
/* signals: the front end's handlers and the read timer (see signals.h). */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "signals.h"

int install_handler(int sig, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	return sigaction(sig, &sa, NULL);
}

/* Only interrupts: the read it lands in fails with EINTR. */
static void on_read_timer(int sig)
{
	(void)sig;
}

int read_timer(unsigned first_ms, unsigned every_ms)
{
	struct itimerval t = {
		.it_interval = { every_ms / 1000, (every_ms % 1000) * 1000 },
		.it_value = { first_ms / 1000, (first_ms % 1000) * 1000 },
	};
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = first_ms ? on_read_timer : SIG_DFL;     /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	if (!first_ms && setitimer(ITIMER_REAL, &t, NULL) < 0)
		return -1;
	if (sigaction(SIGALRM, &sa, NULL) < 0)
		return -1;
	return first_ms ? setitimer(ITIMER_REAL, &t, NULL) : 0;
}
