#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gaol: the stack of `make run`: nginx in front of a gaol-fcgi pool that
# spawn-fcgi starts, both children of this script, everything under $BUILD.
#
#   BUILD=build PORT=8080 nginx/stack.sh
#   GAOL_INSTANCE=b RUN_UID_BASE=20001 PORT=8081 nginx/stack.sh   # a second one
#
# - Renders nginx/nginx.conf.in and the two snippets into $BUILD/nginx/$PORT/
#   with the pool's socket, RUN_CONCURRENCY, RUN_INPUT_MAX (RUN_EVAL_INPUT_MAX
#   in /evaluate's location) and RUN_TIMEOUT_MAX.
# - Starts `spawn-fcgi -n` (which becomes gaol-fcgi) on
#   $BUILD/run/$GAOL_INSTANCE-$PORT.sock (or on TCP: GAOL_FCGI_LISTEN),
#   then `nginx -g 'daemon off;'` on
#   127.0.0.1:$PORT, waits until GET /health answers 200 and prints a ready
#   line.  Each child runs in its own session, so a Ctrl-C reaches this script
#   only and the stop below is the only one.
# - Each child also ends with this script, however it ends (SIGKILL
#   included): setpriv --pdeathsig asks the kernel to signal it when its
#   parent dies, and that survives the exec into spawn-fcgi, gaol-fcgi and
#   nginx.  gaol-fcgi gets SIGKILL (its workers and their sandboxes die with
#   it: nobody is left to read what a run in progress answers), nginx SIGTERM
#   (its fast stop).  The next start removes the socket left behind, and
#   gaol-fcgi kills whatever is left in its slot cgroups.
# - SIGINT/SIGTERM, or either child ending, stops both: gaol-fcgi first with
#   SIGTERM (runs in progress finish, new requests get 503), then nginx with
#   SIGQUIT (graceful).  A second signal hurries both.  The socket is removed.
#   Exit status: 0 for a requested stop or after POST /shutdown, 1 otherwise.
# PORT, RUN_*, ALLOW_SHUTDOWN, DEBUG and GAOL_* reach gaol-fcgi unchanged.
# GAOL_PREFIX=/gaol mounts every gaol path under that prefix (nginx/prefix.sh).
# GAOL_NGINX_EXTRA names a file of nginx locations added to the server
# beside gaol's (a benchmark's peer on the same nginx).
#
# The script is only functions until `main` on its last lines: bash reads a
# script while it runs it, and a stack lives long enough for its file to be
# edited or checked out under it.
set -u

say() { printf 'stack: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# ---------------------------------------------------------------- settings

# $1's value, or $2 when unset or empty (as gaol-fcgi reads it).
value() { local v=${!1:-}; printf '%s' "${v:-$2}"; }

# The values nginx needs are checked here as gaol-fcgi checks them, so that a
# bad one stops the start, named, before anything runs.
settings() {
	REPO=$(cd "$(dirname "$0")/.." && pwd)
	BUILD=${BUILD:-build}
	PORT=${PORT:-8080}
	case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
	BIN=$BUILD/gaol-fcgi
	NGX=$BUILD/nginx/$PORT
	RUN_DIR=$BUILD/run
	INSTANCE=$(value GAOL_INSTANCE gaol)
	[[ $INSTANCE =~ ^[A-Za-z0-9_][A-Za-z0-9_-]{0,31}$ ]] ||
		die "GAOL_INSTANCE=\"$INSTANCE\": not a name of 1 to 32 letters, digits, '-' or '_' (not starting with '-')"
	SOCK=$RUN_DIR/$INSTANCE-$PORT.sock
	HEALTH_SOCK=$RUN_DIR/$INSTANCE-$PORT-health.sock   # gaol-fcgi's master makes it (unix socket only)
	# GAOL_FCGI_LISTEN=ADDR:PORT: FastCGI over TCP instead of the unix
	# socket (spawn-fcgi -a/-p); gaol-fcgi then needs FCGI_WEB_SERVER_ADDRS.
	FCGI_LISTEN=${GAOL_FCGI_LISTEN:-}
	if [ -n "$FCGI_LISTEN" ]; then
		[[ $FCGI_LISTEN =~ ^([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+):([0-9]+)$ ]] ||
			die "GAOL_FCGI_LISTEN=\"$FCGI_LISTEN\": not an IPv4 ADDRESS:PORT"
		FCGI_ADDR=${BASH_REMATCH[1]}
		FCGI_PORT=${BASH_REMATCH[2]}
		UPSTREAM=$FCGI_LISTEN
	else
		UPSTREAM=unix:$SOCK
	fi
	START_TIMEOUT=${GAOL_START_TIMEOUT:-120}   # seconds until /health answers
	export GAOL_LANGS_DIR=${GAOL_LANGS_DIR:-$REPO/langs}

	[[ $PORT =~ ^[0-9]+$ ]] && (( 10#$PORT >= 1 && 10#$PORT <= 65535 )) ||
		die "PORT=\"$PORT\": not a TCP port number"
	CONCURRENCY=$(value RUN_CONCURRENCY 10)
	[[ $CONCURRENCY =~ ^[0-9]+$ ]] && (( 10#$CONCURRENCY >= 1 )) ||
		die "RUN_CONCURRENCY=\"$CONCURRENCY\": not a whole number from 1"
	CONCURRENCY=$(( 10#$CONCURRENCY ))
	# The workers serving Judge0's queue take no HTTP request: nginx's
	# limit_conn counts the others.
	QUEUE_SLOTS=$(value RUN_QUEUE_SLOTS 0)
	[[ $QUEUE_SLOTS =~ ^[0-9]+$ ]] && (( 10#$QUEUE_SLOTS < CONCURRENCY )) ||
		die "RUN_QUEUE_SLOTS=\"$QUEUE_SLOTS\": not a whole number from 0 to RUN_CONCURRENCY - 1"
	HTTP_SLOTS=$(( CONCURRENCY - 10#$QUEUE_SLOTS ))
	INPUT_MAX=$(value RUN_INPUT_MAX 1048576)
	[[ $INPUT_MAX =~ ^0*[1-9][0-9]*[kKmMgG]?$ ]] ||
		die "RUN_INPUT_MAX=\"$INPUT_MAX\": not a size (bytes, or a number with k, m or g)"
	EVAL_INPUT_MAX=$(value RUN_EVAL_INPUT_MAX 16777216)
	[[ $EVAL_INPUT_MAX =~ ^0*[1-9][0-9]*[kKmMgG]?$ ]] ||
		die "RUN_EVAL_INPUT_MAX=\"$EVAL_INPUT_MAX\": not a size (bytes, or a number with k, m or g)"
	TIMEOUT_MAX=$(value RUN_TIMEOUT_MAX 60s)
	[[ $TIMEOUT_MAX =~ ^([0-9]+)(ms|s|m)$ ]] && (( 10#${BASH_REMATCH[1]} > 0 )) ||
		die "RUN_TIMEOUT_MAX=\"$TIMEOUT_MAX\": not a positive whole number with a unit ms, s or m (e.g. \"60s\")"
	case ${BASH_REMATCH[2]} in
	ms) TIMEOUT_S=$(( (10#${BASH_REMATCH[1]} + 999) / 1000 )) ;;
	s)  TIMEOUT_S=$(( 10#${BASH_REMATCH[1]} )) ;;
	m)  TIMEOUT_S=$(( 10#${BASH_REMATCH[1]} * 60 )) ;;
	esac
	# nginx waits for an answer a minute longer than the longest run; a
	# stop waits for runs in progress about as long.
	READ_TIMEOUT=$(( TIMEOUT_S + 60 ))
}

# ---------------------------------------------------------------- checks

check_host() {
	[ -x "$BIN" ] || die "$BIN is not built (run \`make\`)"
	command -v nginx >/dev/null || die "nginx is not installed (\`make deps\`)"
	command -v spawn-fcgi >/dev/null || die "spawn-fcgi is not installed (\`make deps\`)"
	command -v setpriv >/dev/null || die "setpriv (util-linux) is not installed (\`make deps\`)"
	[ -r /etc/nginx/fastcgi_params ] || die "/etc/nginx/fastcgi_params is missing"
	(( ${#HEALTH_SOCK} < 108 )) || die "socket path too long for a unix socket: $HEALTH_SOCK"
	if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
		die "port $PORT is taken: something already listens on 127.0.0.1:$PORT"
	fi

	if [ -n "$FCGI_LISTEN" ] && (exec 3<>"/dev/tcp/$FCGI_ADDR/$FCGI_PORT") 2>/dev/null; then
		die "GAOL_FCGI_LISTEN: something already listens on $FCGI_LISTEN"
	fi

	# nginx's workers, and the socket's owner so that they may connect.
	# Only root can hand the socket to another user.
	NGINX_USER_LINE=""
	SPAWN_OWNER=()
	if [ "$(id -u)" = 0 ]; then
		WEB_USER=www-data
		id -u "$WEB_USER" >/dev/null 2>&1 || WEB_USER=nobody
		WEB_GROUP=$(id -gn "$WEB_USER")
		NGINX_USER_LINE="user $WEB_USER $WEB_GROUP;"
		SPAWN_OWNER=(-U "$WEB_USER" -G "$WEB_GROUP")
	fi
}

# ---------------------------------------------------------------- render

sed_escape() { printf '%s' "$1" | sed 's/[|&\\]/\\&/g'; }

render() {
	local P S
	mkdir -p "$NGX/logs" "$NGX/temp" "$RUN_DIR" || die "cannot create $NGX and $RUN_DIR"
	chmod 0755 "$RUN_DIR"
	if [ -n "$NGINX_USER_LINE" ] &&
	   ! runuser -u "$WEB_USER" -- test -x "$RUN_DIR" 2>/dev/null; then
		die "nginx's workers ($WEB_USER) cannot reach $RUN_DIR: every directory above it must be searchable (o+x)"
	fi

	P=$(sed_escape "$NGX")
	S=$(sed_escape "$UPSTREAM")
	sed -e "s|@PREFIX@|$P|g" -e "s|@PORT@|$PORT|g" -e "s|@USER@|$NGINX_USER_LINE|" \
		"$REPO/nginx/nginx.conf.in" > "$NGX/nginx.conf" &&
	H=$(sed_escape "$HEALTH_SOCK")
	sed -e "s|server unix:/run/gaol/gaol.sock;|server $S;|" \
		-e "s|server unix:/run/gaol/gaol-health.sock;|server unix:$H;|" \
		-e "s|(over RUN_INPUT_MAX, or RUN_EVAL_INPUT_MAX on /evaluate)|(over RUN_INPUT_MAX, $INPUT_MAX bytes, or RUN_EVAL_INPUT_MAX, $EVAL_INPUT_MAX bytes, on /evaluate)|" \
		"$REPO/nginx/gaol-http.conf" > "$NGX/gaol-http.conf" &&
	sed -e "s|limit_conn gaol_slots [0-9]*;|limit_conn gaol_slots $HTTP_SLOTS;|" \
		-e "/^location = \/evaluate /,/^}/ s|client_max_body_size [^;]*;|client_max_body_size $EVAL_INPUT_MAX;|" \
		-e "/^location = \/evaluate /,/^}/ s|client_body_buffer_size [^;]*;|client_body_buffer_size $EVAL_INPUT_MAX;|" \
		-e "/^location = \/evaluate /,/^}/ !s|client_max_body_size [^;]*;|client_max_body_size $INPUT_MAX;|" \
		-e "/^location = \/evaluate /,/^}/ !s|client_body_buffer_size [^;]*;|client_body_buffer_size $INPUT_MAX;|" \
		-e "s|fastcgi_read_timeout [^;]*;|fastcgi_read_timeout ${READ_TIMEOUT}s;|" \
		"$REPO/nginx/gaol-locations.conf" > "$NGX/gaol-locations.conf" &&
	{ [ -z "${GAOL_PREFIX:-}" ] || for f in gaol-locations.conf nginx.conf; do
		"$REPO/nginx/prefix.sh" "$GAOL_PREFIX" < "$NGX/$f" > "$NGX/$f.prefixed" &&
		mv "$NGX/$f.prefixed" "$NGX/$f" || exit 1; done; } &&
	cp /etc/nginx/fastcgi_params "$NGX/fastcgi_params" &&
	rm -rf "$NGX/extra" && mkdir -p "$NGX/extra" ||
		die "cannot render the nginx configuration into $NGX"
	# GAOL_NGINX_EXTRA: a file of locations beside gaol's, on the same
	# server (make bench-throughput's floor: fcgiwrap on the same nginx).
	if [ -n "${GAOL_NGINX_EXTRA:-}" ]; then
		cp "$GAOL_NGINX_EXTRA" "$NGX/extra/extra.conf" ||
			die "GAOL_NGINX_EXTRA=\"$GAOL_NGINX_EXTRA\": cannot copy it into $NGX/extra"
	fi

	# The snippets are the shipped ones: if they no longer have the lines
	# rewritten above, say so rather than run with gaol's defaults.
	grep -qF "server $UPSTREAM;" "$NGX/gaol-http.conf" &&
	grep -qF "server unix:$HEALTH_SOCK;" "$NGX/gaol-http.conf" &&
	grep -qF "limit_conn gaol_slots $HTTP_SLOTS;" "$NGX/gaol-locations.conf" &&
	grep -qF "client_max_body_size $INPUT_MAX;" "$NGX/gaol-locations.conf" &&
	grep -qF "client_body_buffer_size $INPUT_MAX;" "$NGX/gaol-locations.conf" &&
	grep -qF "client_max_body_size $EVAL_INPUT_MAX;" "$NGX/gaol-locations.conf" &&
	grep -qF "fastcgi_read_timeout ${READ_TIMEOUT}s;" "$NGX/gaol-locations.conf" ||
		die "rendering $NGX: a snippet no longer has the lines stack.sh rewrites"
}

# ---------------------------------------------------------------- processes

FCGI_PID=""
NGINX_PID=""
STOPS=0          # SIGINT/SIGTERM received

alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# Waits up to $2 seconds for pid $1 to end.  Returns 1 on timeout, or early
# when another signal arrives, so that the caller can hurry.
wait_gone() {
	local pid=$1 deadline=$((SECONDS + $2)) stops=$STOPS
	while alive "$pid"; do
		(( SECONDS < deadline && STOPS == stops )) || return 1
		sleep 0.1
	done
}

stop_all() {
	if alive "$FCGI_PID"; then
		say "stopping gaol-fcgi (runs in progress finish)"
		kill -TERM "$FCGI_PID"
		if ! wait_gone "$FCGI_PID" $((TIMEOUT_S + 30)); then
			# On a second SIGTERM the master kills its workers.
			kill -TERM "$FCGI_PID" 2>/dev/null
			wait_gone "$FCGI_PID" 5 || kill -KILL "$FCGI_PID" 2>/dev/null
		fi
	fi
	if alive "$NGINX_PID"; then
		kill -QUIT "$NGINX_PID"
		if ! wait_gone "$NGINX_PID" 10; then
			kill -TERM "$NGINX_PID" 2>/dev/null
			wait_gone "$NGINX_PID" 5 || kill -KILL "$NGINX_PID" 2>/dev/null
		fi
	fi
	wait 2>/dev/null
	rm -f "$SOCK" "$HEALTH_SOCK"
}

fail() { say "$*"; stop_all; exit 1; }

# GET /health through nginx answers 200: bash's /dev/tcp, no curl needed.
http_health() {
	timeout 5 bash -c '
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf "GET %s/health HTTP/1.0\r\nHost: localhost\r\n\r\n" "${GAOL_PREFIX:-}" >&3
		IFS= read -r line <&3
		[[ $line == "HTTP/1."?" 200 "* ]]' health "$PORT" 2>/dev/null
}

# Sockets of stacks that were killed (SIGKILL leaves no chance to clean up):
# the files under $RUN_DIR that no process listens on (/proc/net/unix lists
# listening sockets with flag __SO_ACCEPTCON, 00010000).
remove_stale_sockets() {
	local listening f
	listening=$(awk '$4 == "00010000" && $8 != "" { print $8 }' /proc/net/unix)
	for f in "$RUN_DIR/$INSTANCE"-*.sock; do
		[ -S "$f" ] || continue
		grep -qxF "$f" <<< "$listening" || rm -f "$f"
	done
}

# spawn-fcgi's socket is there (it binds before gaol-fcgi starts).
listening() {
	if [ -n "$FCGI_LISTEN" ]; then
		(exec 3<>"/dev/tcp/$FCGI_ADDR/$FCGI_PORT") 2>/dev/null
	else
		[ -S "$SOCK" ]
	fi
}

start() {
	# Ours included: nobody listens on it, or the port check would have
	# failed (the socket is named by the port).
	remove_stale_sockets
	if [ -n "$FCGI_LISTEN" ]; then
		setsid setpriv --pdeathsig KILL spawn-fcgi -n -a "$FCGI_ADDR" -p "$FCGI_PORT" -- "$BIN" &
	else
		setsid setpriv --pdeathsig KILL spawn-fcgi -n -s "$SOCK" -M 0660 "${SPAWN_OWNER[@]}" -- "$BIN" &
	fi
	FCGI_PID=$!
	for _ in $(seq 50); do
		listening && break
		alive "$FCGI_PID" || break
		sleep 0.1
	done
	alive "$FCGI_PID" || fail "gaol-fcgi did not start (see above)"
	listening || fail "spawn-fcgi did not listen on $UPSTREAM"

	setsid setpriv --pdeathsig TERM \
		nginx -e stderr -p "$NGX/" -c "$NGX/nginx.conf" -g 'daemon off;' &
	NGINX_PID=$!
}

# The master's /health socket (a unix socket pool only) exists once its
# start-up made it: asked before, nginx would log a [crit] connect() failure
# to it on a start that goes well.
health_socket_up() {
	[ -n "$FCGI_LISTEN" ] || [ -S "$HEALTH_SOCK" ]
}

wait_ready() {
	local deadline=$((SECONDS + START_TIMEOUT))
	until health_socket_up && http_health; do
		alive "$FCGI_PID" || fail "gaol-fcgi exited during start-up (see above)"
		alive "$NGINX_PID" || fail "nginx exited during start-up (see above; is port $PORT free?)"
		(( STOPS == 0 )) || { stop_all; exit 0; }
		(( SECONDS < deadline )) || fail "GET /health did not answer 200 within ${START_TIMEOUT}s"
		sleep 0.2
	done
	printf 'stack: ready: http://127.0.0.1:%s/ (gaol-fcgi %s, nginx %s; Ctrl-C stops)\n' \
		"$PORT" "$FCGI_PID" "$NGINX_PID"
}

# Returns when a stop is asked for or a child ends; sets STATUS.
#
# A poll, not `wait -n`: bash 5.2's `wait -n` can miss a trapped signal and
# then wait on for good, even with a ticking child beside it (a stop lost
# that way failed CI; under load about 1 stop in 100 here).  A trap runs at
# the latest when the foreground sleep ends.  bash reaps its children as
# they end, so `alive` (kill -0) fails for an ended child and `wait` then
# gives its remembered status.
supervise() {
	local rc
	STATUS=0
	while (( STOPS == 0 )); do
		if ! alive "$FCGI_PID"; then
			wait "$FCGI_PID" 2>/dev/null
			rc=$?
			FCGI_PID=""
			if [ "$rc" = 0 ]; then
				say "gaol-fcgi stopped by itself (POST /shutdown)"
			else
				say "gaol-fcgi exited with status $rc"
				STATUS=1
			fi
			return
		fi
		if ! alive "$NGINX_PID"; then
			wait "$NGINX_PID" 2>/dev/null
			rc=$?
			NGINX_PID=""
			say "nginx exited with status $rc"
			STATUS=1
			return
		fi
		sleep 0.2
	done
}

main() {
	settings
	check_host
	render
	trap 'STOPS=$((STOPS + 1))' INT TERM
	start
	wait_ready
	supervise
	stop_all
	say "stopped"
	exit "$STATUS"
}

main "$@"
exit
