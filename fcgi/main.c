/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gaol-fcgi: the FastCGI server.  main() is straight-line setup: read the
 * configuration and the languages once (a bad variable stops us here, named),
 * build one sandbox and check every mechanism from inside it (fail closed:
 * a host that cannot contain a program is refused, with the reason), get
 * the listening socket, then hand over to the prefork master (master.c),
 * whose workers (worker.c) answer requests through the route table (http.c).
 *
 * The socket comes from one of:
 * - fd 0, as spawn-fcgi and systemd's StandardInput=socket hand it over;
 * - --socket PATH: gaol-fcgi binds a unix socket itself (mode 0660, group
 *   --socket-group if given) and removes it when it stops.
 * fd 0 may be a TCP socket (spawn-fcgi -a/-p, systemd ListenStream=ADDR:PORT)
 * for front ends on other hosts: see check_front_ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "slot/cgroup.h"
#include "conf/config.h"
#include "api/engine.h"
#include "judge/judge.h"
#include "master.h"
#include "metrics.h"
#include "conf/version.h"
#include "slot/pool.h"
#include "slot/uidlock.h"

#define LISTEN_BACKLOG 128

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gaol-fcgi [--socket PATH [--socket-group GROUP]]\n"
		"       gaol-fcgi --check\n"
		"       gaol-fcgi --version\n"
		"Serves gaol's HTTP API over FastCGI with a prefork pool of\n"
		"RUN_CONCURRENCY workers.  Without --socket the listening socket\n"
		"is fd 0 (spawn-fcgi, systemd StandardInput=socket).\n"
		"Configuration comes from the environment (RUN_*, DEBUG,\n"
		"ALLOW_SHUTDOWN, GAOL_*).\n");
}

/* fd 0 must be a listening stream socket; it moves to a close-on-exec fd and
 * /dev/null takes its place, so no program the engine runs inherits it. */
static int socket_from_stdin(void)
{
	int listening = 0, type = 0, fd, null;
	socklen_t len = sizeof listening;
	struct stat st;

	if (fstat(0, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    getsockopt(0, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0 ||
	    !listening ||
	    (len = sizeof type, getsockopt(0, SOL_SOCKET, SO_TYPE, &type, &len)) < 0 ||
	    type != SOCK_STREAM) {
		fprintf(stderr, "gaol-fcgi: fd 0 is not a listening socket: start "
			"gaol-fcgi under spawn-fcgi or systemd socket activation, "
			"or give --socket PATH\n");
		return -1;
	}
	fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
	null = open("/dev/null", O_RDONLY);
	if (fd < 0 || null < 0 || dup2(null, 0) < 0) {
		fprintf(stderr, "gaol-fcgi: moving the socket off fd 0 errno=%d\n",
			errno);
		return -1;
	}
	if (null != 0)
		close(null);
	return fd;
}

static int socket_at_path(const char *path, const char *group)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old_mask;
	gid_t gid = (gid_t)-1;
	int fd, rc;

	if (strlen(path) >= sizeof sun.sun_path) {
		fprintf(stderr, "gaol-fcgi: --socket %s: path too long\n", path);
		return -1;
	}
	strcpy(sun.sun_path, path);
	if (group) {
		struct group *gr = getgrnam(group);
		if (!gr) {
			fprintf(stderr, "gaol-fcgi: --socket-group %s: no such "
				"group\n", group);
			return -1;
		}
		gid = gr->gr_gid;
	}
	/* A stale socket from a crashed predecessor is replaced; anything
	 * else at that path is not ours to remove. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr, "gaol-fcgi: --socket %s: exists and is "
				"not a socket\n", path);
			return -1;
		}
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "gaol-fcgi: socket errno=%d\n", errno);
		return -1;
	}
	old_mask = umask(0117);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof sun);
	umask(old_mask);
	if (rc < 0 || (gid != (gid_t)-1 && chown(path, (uid_t)-1, gid) < 0) ||
	    listen(fd, LISTEN_BACKLOG) < 0) {
		fprintf(stderr, "gaol-fcgi: --socket %s errno=%d\n", path,
			errno);
		close(fd);
		return -1;
	}
	return fd;
}

/* Builds one sandbox in slot and checks each mechanism (engine_selfcheck).
 * With out, the whole report goes there; without, only what is missing goes
 * to stderr.  Returns 0 when the host can run gaol safely, 1 otherwise. */
static int selfcheck(struct engine *e, unsigned slot, FILE *out)
{
	char err[512];
	char *text = NULL;
	size_t len = 0;
	FILE *report = out ? out : open_memstream(&text, &len);
	int missing;

	if (!report || engine_take_slot(e, slot, err, sizeof err) < 0) {
		fprintf(stderr, "gaol-fcgi: self-check: %s\n",
			report ? err : "out of memory");
		if (report && !out)
			fclose(report);
		free(text);
		engine_release_slot(e);
		return 1;
	}
	missing = engine_selfcheck(e, report);
	engine_release_slot(e);
	if (!out) {
		fclose(report);
		if (missing) {
			fprintf(stderr, "gaol-fcgi: refusing to start: the sandbox "
				"is incomplete on this host:\n");
			for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
				if (strncmp(line, "ok", 2))
					fprintf(stderr, "gaol-fcgi:   %s\n", line);
		}
		free(text);
	}
	return missing ? 1 : 0;
}

/* Our UIDs, before any slot is taken: taking one kills what runs in it.
 * --check uses the UID just past the pool's. */
static int take_uids(const struct engine *e, bool check, struct uid_locks *uids)
{
	char err[512];

	/* The checkers' and interactors' UIDs, past the check's (config.h,
	 * CONFIG_AIDE_UID): held by the pool for as long as it lives. */
	static struct uid_locks aides;

	if (uidlock_take(uids, e->cfg.instance,
			 e->cfg.uid_base + (check ? e->cfg.concurrency : 0),
			 check ? 1 : e->cfg.concurrency, err, sizeof err) < 0) {
		fprintf(stderr, "gaol-fcgi: refusing to start: %s\n", err);
		return -1;
	}
	if (!check && uidlock_take(&aides, e->cfg.instance, CONFIG_AIDE_UID(&e->cfg, 0),
				   e->cfg.concurrency, err, sizeof err) < 0) {
		fprintf(stderr, "gaol-fcgi: refusing to start: %s\n", err);
		uidlock_release(uids);
		return -1;
	}
	return 0;
}

/*
 * FastCGI carries no authentication: on a TCP socket anyone who reaches the
 * port may run programs.  libfcgi (2.4.2, os_unix.c) reads
 * FCGI_WEB_SERVER_ADDRS once, in FCGX_Init, and in OS_Accept closes an
 * accepted connection at once unless its peer's address equals, by
 * inet_addr(), one of the list's comma-separated entries.  It checks only
 * AF_INET peers: unix and IPv6 (IPv4-mapped included) connections pass
 * unchecked, an entry it cannot parse silently matches nobody, and an unset
 * or empty list lets everyone in.  So on TCP we insist on what it can
 * enforce: an IPv4 socket and a list of plain dotted quads.
 */
static int check_front_ends(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	const char *list = getenv("FCGI_WEB_SERVER_ADDRS");
	char entry[64];
	struct in_addr a;
	size_t n;

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		fprintf(stderr, "gaol-fcgi: getsockname errno=%d\n", errno);
		return -1;
	}
	if (ss.ss_family == AF_UNIX)
		return 0;
	if (ss.ss_family != AF_INET) {
		fprintf(stderr, "gaol-fcgi: refusing to start: the socket is not "
			"IPv4 (family %d), and libfcgi checks FCGI_WEB_SERVER_ADDRS "
			"for IPv4 peers only: listen on an IPv4 address (spawn-fcgi "
			"-a 10.0.0.5, ListenStream=10.0.0.5:9000)\n", ss.ss_family);
		return -1;
	}
	if (!list || !*list) {
		fprintf(stderr, "gaol-fcgi: refusing to start: a TCP socket needs "
			"FCGI_WEB_SERVER_ADDRS, the IPv4 addresses of the front ends "
			"that may connect (FastCGI has no authentication)\n");
		return -1;
	}
	for (const char *p = list;; p += n + 1) {
		bool ok;

		n = strcspn(p, ",");
		ok = n < sizeof entry;

		if (ok) {
			memcpy(entry, p, n);
			entry[n] = 0;
			ok = inet_pton(AF_INET, entry, &a) == 1;
		}
		if (!ok) {
			fprintf(stderr, "gaol-fcgi: refusing to start: "
				"FCGI_WEB_SERVER_ADDRS=\"%s\": \"%.*s\" is not an "
				"IPv4 address (a.b.c.d, comma separated, no blanks)\n",
				list, (int)n, p);
			return -1;
		}
		if (!p[n])
			return 0;
	}
}

/* The socket to serve, ready for the workers, and libfcgi initialised
 * (FCGX_Init reads FCGI_WEB_SERVER_ADDRS). */
static int listening_socket(const char *path, const char *group)
{
	int fd = path ? socket_at_path(path, group) : socket_from_stdin();
	int flags;

	if (fd < 0)
		return -1;
	if (check_front_ends(fd) < 0) {
		close(fd);
		return -1;
	}
	/* The workers wait in ppoll() and never block in accept(): see the
	 * design comment of worker.c. */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
	    FCGX_Init() != 0) {
		fprintf(stderr, "gaol-fcgi: preparing the socket errno=%d\n",
			errno);
		close(fd);
		return -1;
	}
	return fd;
}

/* The pool's own memory bounded (RUN_POOL_MEMORY_MAX): the master goes
 * first, the workers follow it by fork. */
static int enter_pool(const struct engine *e, struct pool_cgroup *pool)
{
	char err[512];

	if (pool_enter(pool, e->cgroup_version, e->cfg.instance, (unsigned)e->cfg.uid_base,
		       e->cfg.pool_memory_max, err, sizeof err) == 0)
		return 0;
	fprintf(stderr, "gaol-fcgi: %s\n", err);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "socket-group", required_argument, NULL, 'g' },
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket_path = NULL, *socket_group = NULL;
	struct engine e;
	struct uid_locks uids = { 0 };
	struct pool_cgroup pool;
	bool check = false;
	char err[512];
	int opt, fd, status;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 's': socket_path = optarg; break;
		case 'g': socket_group = optarg; break;
		case 'c': check = true; break;
		case 'h': usage(stdout); return 0;
		case 'V':
			printf("gaol-fcgi %s (build %s)\n", gaol_version(), gaol_build());
			return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || (socket_group && !socket_path)) {
		usage(stderr);
		return 2;
	}

	/* Configuration, languages (probes, `make -n`) and the service's
	 * cgroup, once for the pool. */
	if (engine_load(&e, err, sizeof err) < 0) {
		fprintf(stderr, "gaol-fcgi: %s\n", err);
		return 1;
	}

	if (take_uids(&e, check, &uids) < 0) {
		engine_free(&e);
		return 1;
	}
	if (check) {
		/* The host report, in a slot no worker of a running pool uses. */
		status = selfcheck(&e, e.cfg.concurrency, stdout);
		engine_free(&e);
		uidlock_release(&uids);
		return status;
	}
	if (enter_pool(&e, &pool) < 0) {
		engine_free(&e);
		uidlock_release(&uids);
		return 1;
	}
	engine_sweep(&e);
	/* Fail closed: one real sandbox, every mechanism checked from inside
	 * it, before a socket is served. */
	if (selfcheck(&e, 0, NULL) != 0) {
		pool_leave(&pool);
		engine_free(&e);
		uidlock_release(&uids);
		return 1;
	}

	fd = listening_socket(socket_path, socket_group);
	if (fd < 0) {
		engine_free(&e);
		uidlock_release(&uids);
		return 1;
	}

	/* Before the fork: the workers share the counters. */
	if (metrics_init(&e) < 0)
		fprintf(stderr, "gaol-fcgi: metrics: mmap errno=%d (GET /metrics "
			"will answer 500)\n", errno);
	fprintf(stderr, "gaol-fcgi: starting %u workers (cgroup v%d), %u on the queue\n",
		e.cfg.concurrency, e.cgroup_version, e.cfg.queue_slots);
	status = master_run(&e, fd);   /* closes fd */
	pool_leave(&pool);

	if (socket_path)
		unlink(socket_path);
	engine_free(&e);
	uidlock_release(&uids);
	return status;
}
