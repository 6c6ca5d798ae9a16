/* SPDX-License-Identifier: Apache-2.0 */
/*
 * netns: a slot's network namespace, and when it may serve another run.
 *
 * Every run gets a network namespace with only a loopback.  Making one costs
 * about half a millisecond in the worker, and the kernel's teardown of the
 * last one (cleanup_net, in a kworker, with RCU grace periods) about as much
 * CPU again: on a busy pool, a quarter of a run's cost.  So a worker's own
 * slot (never a judging lane's, never with RUN_NETNS_FRESH=1) gives its
 * namespace to the next run when it can prove that the run before left
 * nothing in it that a run could see:
 *
 *   - only after that run's init is reaped: init is PID 1 of the run, so
 *     every process that ever entered the namespace is gone, and nothing
 *     but the worker's descriptor holds it;
 *   - only when everything a run can read of it is byte for byte what it
 *     was when the namespace was new (the snapshot netns_remember takes
 *     before the first run enters it):
 *     the count of sockets of every family (unix ones with their abstract
 *     names included), each protocol's sockets and TIME_WAIT entries
 *     (sockstat, sockstat6), IPv6 flow labels (which outlive their
 *     socket), and every counter: the loopback's packets and bytes (dev)
 *     and the protocols' (snmp, snmp6, netstat).  Equal
 *     counters mean no packet ever crossed the
 *     loopback, so nothing of the last run's traffic is left to learn.
 *
 * What else a run could change in a namespace (interfaces, routes,
 * addresses, filters, sysctls) needs CAP_NET_ADMIN or CAP_NET_RAW in the
 * host's user namespace, which no payload has.  Any difference, a file that
 * cannot be read, or a snapshot over its buffer: a new namespace.  What a
 * run can still learn is only that its namespace served an earlier run of
 * the slot which used no network (the namespace's inode number is the same).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/fail.h"
#include "slot/netns.h"
#include "slot/slot.h"
#include "util/prof.h"
#include "util/util.h"

#define SNAPSHOT_MAX NETNS_SNAPSHOT_MAX

/* Under /proc/self/net: what a run can read of its namespace that a run
 * can change.  Sockets: "sockets: used" in sockstat counts every socket of
 * every family (unix ones with their abstract names, netlink, packet, ping)
 * until it is freed, orphans included; "tw" counts TIME_WAIT entries, which
 * are no sockets; "inuse" each protocol's.  The socket tables themselves
 * are not read: the kernel walks machine-wide hash tables for tcp and udp
 * (3.4 ms for tcp here).  IPv6 flow labels outlive their socket.  The
 * counters: the loopback's (dev) and the protocols' (snmp, snmp6,
 * netstat; the loopback's own IPv6 ones, dev_snmp6/lo, move only with
 * snmp6's).  Routes, addresses, filters and xfrm need CAP_NET_ADMIN;
 * multicast memberships and conntrack entries go with their socket or need
 * traffic, which moves the counters. */
static const char *const watched[NETNS_WATCHED] = {
	"sockstat", "sockstat6", "ip6_flowlabel", "dev", "snmp", "snmp6", "netstat",
};

/* sockstat and sockstat6 also show machine-wide figures, which move with
 * the host: TCP's orphans, allocated sockets and memory, UDP's memory.
 * Drops those (the word and its number) from text[0..len); the new length. */
static size_t per_namespace_only(char *text, size_t len)
{
	static const char *const global[] = { " orphan ", " alloc ", " mem " };
	size_t out = 0;
	for (size_t i = 0; i < len;) {
		size_t skip = 0;
		for (size_t g = 0; g < N(global) && !skip; g++) {
			size_t n = strlen(global[g]);
			if (i + n <= len && !memcmp(text + i, global[g], n))
				skip = n;
		}
		if (!skip) {
			text[out++] = text[i++];
			continue;
		}
		i += skip;
		while (i < len && text[i] >= '0' && text[i] <= '9')
			i++;
	}
	return out;
}

/* Everything watched of the slot's namespace, into buf: each file's name,
 * then its text (or "-" when it does not exist).  The files were opened
 * from inside the namespace, and a /proc/net file shows the namespace it
 * was opened in, whoever reads it: read again from offset 0 (pread: a
 * seq_file read at 0 starts over), it tells that namespace's figures now.
 * The length, or -1 when it does not fit or a file cannot be read.  With
 * was (a snapshot of was_len bytes): -1 as soon as what is read differs
 * from it; the files are in the order of their cost (the kernel takes 20
 * times as long to print netstat as sockstat). */
static long snapshot(const int *fds, char *buf, size_t cap, const char *was, long was_len)
{
	size_t len = 0;
	for (size_t i = 0; i < N(watched); i++) {
		size_t n = strlen(watched[i]);
		if (n + 1 >= cap - len)
			return -1;
		memcpy(buf + len, watched[i], n);
		buf[len + n] = '\n';
		len += n + 1;
		if (fds[i] == -ENOENT) {
			if (cap - len < 2)
				return -1;
			memcpy(buf + len, "-\n", 2);
			len += 2;
		} else {
			if (fds[i] < 0)
				return -1;
			size_t start = len;
			ssize_t got;
			while ((got = pread(fds[i], buf + len, cap - len,
					    (off_t)(len - start))) > 0)
				len += (size_t)got;
			if (got < 0 || len == cap)
				return -1;
			if (i < 2)      /* sockstat, sockstat6 */
				len = start + per_namespace_only(buf + start, len - start);
		}
		if (was && (len > (size_t)was_len || memcmp(buf, was, len)))
			return -1;
	}
	return (long)len;
}

static void close_files(struct slot *s)
{
	for (size_t i = 0; i < N(watched); i++) {
		if (s->netns_files[i] >= 0)
			close(s->netns_files[i]);
		s->netns_files[i] = -1;
	}
}

/* The loopback up, in the namespace the worker is in now. */
static int loopback_up(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = { 0 };
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	int rc = -1;
	if (fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The watched files of the namespace the worker is in now, opened; the
 * snapshot of them is taken before the namespace is first entered
 * (netns_remember).  A file that cannot be opened: never reused. */
static void open_files(struct slot *s)
{
	close_files(s);
	s->netns_fresh_len = -1;
	int dir = open("/proc/self/net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; dir >= 0 && i < N(watched); i++) {
		s->netns_files[i] = openat(dir, watched[i], O_RDONLY | O_CLOEXEC);
		if (s->netns_files[i] < 0)
			s->netns_files[i] = errno == ENOENT ? -ENOENT : -1;
	}
	if (dir >= 0)
		close(dir);
}

void netns_remember(struct slot *s)
{
	if (!s->netns_reuse || s->netns_used || s->netns_fresh_len >= 0)
		return;
	if (!s->netns_fresh)
		s->netns_fresh = malloc(SNAPSHOT_MAX);
	if (s->netns_fresh)
		s->netns_fresh_len = snapshot(s->netns_files, s->netns_fresh, SNAPSHOT_MAX,
					      NULL, 0);
}

/* Back to the network namespace host names, which this process left for a
 * slot's: nothing of the worker may go on in a run's namespace, so a
 * process that cannot return ends here. */
static void back_home(int host)
{
	if (setns(host, CLONE_NEWNET) < 0) {
		fprintf(stderr, "gaol: netns: back to the host's network namespace "
			"errno=%d\n", errno);
		abort();
	}
	close(host);
}

int netns_make(struct slot *s, char *err, size_t errlen)
{
	long long t = prof_begin();
	int host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (host < 0) {
		return fail(err, errlen, "sandbox: open host netns errno=%d", errno);
	}
	if (unshare(CLONE_NEWNET) < 0) {
		fail(err, errlen, "sandbox: unshare net errno=%d", errno);
		close(host);
		return -1;
	}
	/* In the new namespace from here: every way out goes back first. */
	const char *step = "loopback up";
	int ns = -1;
	if (loopback_up() == 0) {
		step = "open slot netns";
		ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	}
	int saved = errno;
	if (ns >= 0 && s->netns_reuse)
		open_files(s);
	back_home(host);
	if (ns < 0) {
		return fail(err, errlen, "sandbox: %s errno=%d", step, saved);
	}
	if (s->netns_fd >= 0)
		close(s->netns_fd);
	s->netns_fd = ns;
	s->netns_used = false;
	prof_end(PROF_NETNS, t);
	return 0;
}

bool netns_unchanged(struct slot *s)
{
	if (!s->netns_reuse || s->netns_fd < 0 || s->netns_fresh_len < 0)
		return false;
	long long t = prof_begin();
	/* Written on every check while the sandbox built ahead (a clone of
	 * the worker) may live: memory it does not share. */
	if (!s->netns_now)
		s->netns_now = unshared_alloc(SNAPSHOT_MAX);
	if (!s->netns_now)
		return false;
	long len = snapshot(s->netns_files, s->netns_now, SNAPSHOT_MAX, s->netns_fresh,
			    s->netns_fresh_len);
	bool same = len == s->netns_fresh_len;
	prof_end(PROF_NETNS_CHECK, t);
	return same;
}

bool netns_adopt(struct slot *s, int ns, const char *fresh, long len)
{
	if (!s->netns_reuse || s->netns_fd >= 0 || len <= 0 || len > SNAPSHOT_MAX)
		return false;
	int host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (host < 0)
		return false;
	bool in = setns(ns, CLONE_NEWNET) == 0;
	if (in)
		open_files(s);
	back_home(host);
	if (!s->netns_fresh)
		s->netns_fresh = malloc(SNAPSHOT_MAX);
	if (!in || !s->netns_fresh) {
		close_files(s);
		return false;
	}
	memcpy(s->netns_fresh, fresh, (size_t)len);
	s->netns_fresh_len = len;
	s->netns_fd = ns;
	if (netns_unchanged(s)) {
		s->netns_used = false;
		return true;
	}
	s->netns_fd = -1;
	s->netns_fresh_len = -1;
	close_files(s);
	return false;
}

void netns_free(struct slot *s)
{
	free(s->netns_fresh);
	if (s->netns_now)
		munmap(s->netns_now, SNAPSHOT_MAX);
	s->netns_fresh = s->netns_now = NULL;
	close_files(s);
	s->netns_fresh_len = -1;
}
