/*
 * gaol-fcgi: the FastCGI server.  main() is straight-line setup: read the
 * configuration (a bad variable stops us here, named), get the listening
 * socket, then hand over to the prefork master (master.c), whose workers
 * (worker.c) answer requests through the route table (http.c).
 *
 * The socket comes from one of:
 * - fd 0, as spawn-fcgi and systemd's StandardInput=socket hand it over;
 * - --socket PATH: gaol-fcgi binds a unix socket itself (mode 0660, group
 *   --socket-group if given) and removes it when it stops.
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
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "cgroup.h"
#include "config.h"
#include "master.h"

#define LISTEN_BACKLOG 128

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gaol-fcgi [--socket PATH [--socket-group GROUP]]\n"
		"       gaol-fcgi --check\n"
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
		fprintf(stderr, "gaol-fcgi: moving the socket off fd 0: %s\n",
			strerror(errno));
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
		fprintf(stderr, "gaol-fcgi: socket: %s\n", strerror(errno));
		return -1;
	}
	old_mask = umask(0117);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof sun);
	umask(old_mask);
	if (rc < 0 || (gid != (gid_t)-1 && chown(path, (uid_t)-1, gid) < 0) ||
	    listen(fd, LISTEN_BACKLOG) < 0) {
		fprintf(stderr, "gaol-fcgi: --socket %s: %s\n", path,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "socket-group", required_argument, NULL, 'g' },
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket_path = NULL, *socket_group = NULL;
	struct gaol_config cfg;
	bool check = false;
	char err[512], cg_version[8];
	int opt, fd, status, flags;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 's': socket_path = optarg; break;
		case 'g': socket_group = optarg; break;
		case 'c': check = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || (socket_group && !socket_path)) {
		usage(stderr);
		return 2;
	}

	if (config_from_env(&cfg, err, sizeof err) < 0) {
		fprintf(stderr, "gaol-fcgi: %s\n", err);
		return 1;
	}

	if (check) {
		/* --check: the host report (engine_selfcheck) goes here.  It
		 * runs in this process, before any socket or worker exists. */
		fprintf(stderr, "gaol-fcgi: --check is not implemented yet\n");
		config_free(&cfg);
		return 2;
	}

	fd = socket_path ? socket_at_path(socket_path, socket_group)
			 : socket_from_stdin();
	if (fd < 0) {
		config_free(&cfg);
		return 1;
	}
	/* The workers wait in ppoll() and never block in accept(): see the
	 * design comment of worker.c. */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
	    FCGX_Init() != 0) {
		fprintf(stderr, "gaol-fcgi: preparing the socket: %s\n",
			strerror(errno));
		config_free(&cfg);
		return 1;
	}

	/* Once for the whole service, before any worker exists: on cgroup v2
	 * the service's cgroup may hand controllers to the slot cgroups only
	 * when no process sits in it, so the master moves into a leaf and the
	 * workers are born there.  Each worker's engine_init() then finds it
	 * done (the state is inherited across fork). */
	if (cgroup_service_prepare(cg_version, sizeof cg_version, err,
				   sizeof err) < 0) {
		fprintf(stderr, "gaol-fcgi: %s\n", err);
		close(fd);
		config_free(&cfg);
		return 1;
	}

	fprintf(stderr, "gaol-fcgi: starting %u workers (cgroup %s)\n",
		cfg.concurrency, cg_version);
	status = master_run(cfg.concurrency, fd);   /* closes fd */

	if (socket_path)
		unlink(socket_path);
	config_free(&cfg);
	return status;
}
