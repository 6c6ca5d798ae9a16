#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make bench-throughput (issue 13): POST /run through nginx against the
# unsandboxed floor of the same shape, on the same nginx, in one run.
#
#   gaol   POST /run of the benchmark language `true` (tests/bench/langs):
#          nginx -> gaol-fcgi worker -> a fresh sandbox -> /bin/sh -c true
#   floor  POST /floor: nginx -> fcgiwrap (Debian's) -> one /bin/sh CGI
#          process per request, which reads the body (a builtin) and prints
#          a small JSON answer
#   box    POST /box: nginx -> minbox (tests/bench/minbox.c), preforked as
#          gaol is, the least a fresh sandbox per request costs (new PID,
#          mount, IPC and UTS namespaces, a tmpfs and an overlay, /proc,
#          /tmp, pivot_root) -> /bin/sh -c true; no cgroups, seccomp or
#          privilege drop: what no sandbox under the issue's freshness rules
#          avoids, so a bound on what gaol could reach
#
# For each RUN_CONCURRENCY in BENCH_LEVELS (1 2 4 8) one stack
# (nginx/stack.sh, GAOL_NGINX_EXTRA adds /floor to its server) with
# RUN_CONCURRENCY workers, and fcgiwrap with as many processes.  wrk with as
# many connections as workers (2 connections at RUN_CONCURRENCY=2, the
# issue's figure), BENCH_ROUNDS rounds of the two sides alternating (which
# goes first alternates too), BENCH_WRK_SECONDS each; medians of req/s, p50
# and p99.  Before the curve, the cycle of one worker: gaol-run --repeat of
# a -DGAOL_PROFILE build (build/prof), with the network namespace reused and
# with RUN_NETNS_FRESH=1, alternating.  tests/bench/throughput.py prints the
# figures next to their peers with the targets met or not, into
# $BUILD/bench-throughput/results.txt and docs/bench.md's throughput
# section (BENCH_DOC; empty: not written).
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=${BUILD:-build}
case $BUILD in /*) BUILD_DIR=$BUILD ;; *) BUILD_DIR=$ROOT/$BUILD ;; esac
OUT=$BUILD_DIR/bench-throughput
SECS=${BENCH_WRK_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-3}
LEVELS=${BENCH_LEVELS:-1 2 4 8}
REPEAT=${BENCH_REPEAT:-500}
DOC=${BENCH_DOC-docs/bench.md}
LANGS=$ROOT/tests/bench/langs
PY=/usr/bin/python3
FCGIWRAP=/usr/sbin/fcgiwrap
export RUN_UID_BASE=${BENCH_UID_BASE:-38001}
# The sandboxed side's cgroups (cpu among them) are an instance of their own,
# not the default "gaol" that test suites on this machine share; the floor
# gets a cpu cgroup of its own beside it (floor_cgroup below), so that on a
# shared machine both sides compete for the CPU as one group each.
export GAOL_INSTANCE=${BENCH_INSTANCE:-gaol-bench}

die() { echo "bench-throughput: $*" >&2; exit 1; }

for tool in wrk curl spawn-fcgi "$FCGIWRAP" "$PY"; do
	command -v "$tool" >/dev/null || die "$tool is missing (make deps-bench installs it)"
done
for b in gaol-run gaol-fcgi prof/gaol-run minbox; do
	[ -x "$BUILD_DIR/$b" ] || die "$BUILD_DIR/$b is not built (make bench-throughput builds it)"
done
[ "$(id -u)" = 0 ] || die "gaol needs root to build its sandboxes"
id -u www-data >/dev/null 2>&1 || die "no www-data user for fcgiwrap"

mkdir -p "$OUT"
rm -f "$OUT"/*.txt "$OUT"/*.out
cut -d' ' -f1-3 /proc/loadavg >"$OUT/load-before.txt"
date -u '+%Y-%m-%d %H:%M:%S UTC' >"$OUT/date.txt"
SNAP=$OUT/bin
rm -rf "$SNAP" && mkdir -p "$SNAP/prof" &&
	cp "$BUILD_DIR/gaol-run" "$BUILD_DIR/gaol-fcgi" "$BUILD_DIR/minbox" "$SNAP/" &&
	cp "$BUILD_DIR/prof/gaol-run" "$SNAP/prof/" || die "cannot copy the binaries into $SNAP"
echo "head $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')" >"$OUT/source.txt"
echo "dirty $(git -C "$ROOT" status --porcelain -- core fcgi nginx 2>/dev/null | awk '{print $2}' | tr '\n' ' ')" >>"$OUT/source.txt"

REQUEST=$OUT/request.json
printf '%s\n' '{"lang_slug": "true", "solution_text": "", "timeout": "10s"}' >"$REQUEST"

# ------------------------------------------------------------ the cycle
echo "bench-throughput: a worker's cycle, gaol-run --repeat $REPEAT (profile build), reuse vs RUN_NETNS_FRESH=1"
for round in 1 2 3; do
	for mode in reuse fresh; do
		fresh=0; [ $mode = fresh ] && fresh=1
		RUN_NETNS_FRESH=$fresh "$SNAP/prof/gaol-run" --langs "$LANGS" --slot 0 --repeat "$REPEAT" \
			<"$REQUEST" >/dev/null 2>"$OUT/cycle-$mode-$round.txt" ||
			{ cat "$OUT/cycle-$mode-$round.txt" >&2; die "gaol-run --repeat failed"; }
		head -1 "$OUT/cycle-$mode-$round.txt"
	done
done

# ------------------------------------------------------------ many host mounts
# A host with many mounts (container runtimes, snaps): the same cycle with
# $HOST_MOUNTS more tmpfs mounted on the host, which the slot's template
# keeps no copy of (core/slot/prune.h): the cycle should not grow with them.
HOST_MOUNTS=${BENCH_HOST_MOUNTS:-200}
MOUNTS=$OUT/host-mounts
unmount_many() {
	local m
	for m in "$MOUNTS"/*; do
		mountpoint -q "$m" 2>/dev/null && umount "$m"
	done
	rm -rf "$MOUNTS"
}
trap unmount_many EXIT
unmount_many
mkdir -p "$MOUNTS"
for i in $(seq "$HOST_MOUNTS"); do
	mkdir "$MOUNTS/$i" && mount -t tmpfs -o size=4k bench-host-mount "$MOUNTS/$i" ||
		die "cannot mount a tmpfs at $MOUNTS/$i"
done
echo "bench-throughput: the cycle with $HOST_MOUNTS more host mounts"
for round in 1 2 3; do
	"$SNAP/prof/gaol-run" --langs "$LANGS" --slot 0 --repeat "$REPEAT" \
		<"$REQUEST" >/dev/null 2>"$OUT/cycle-mounts-$round.txt" ||
		{ cat "$OUT/cycle-mounts-$round.txt" >&2; die "gaol-run --repeat failed"; }
	head -1 "$OUT/cycle-mounts-$round.txt"
done
unmount_many
echo "$HOST_MOUNTS" >"$OUT/host-mounts.txt"

# ------------------------------------------------------------ the floor's parts
FLOOR_CGI=$OUT/floor.cgi
cat >"$FLOOR_CGI" <<'EOF'
#!/bin/sh
read -r body || :
printf 'Content-Type: application/json\r\n\r\n{"exit_code":0,"stdout":"","stderr":""}\n'
EOF
chmod 0755 "$FLOOR_CGI"
LUA=$OUT/post.lua
"$PY" "$ROOT/tests/bench/wrk_post.py" "$REQUEST" "$LUA"

STACK_PID=
FLOOR_CG=
BOX_CG=
WRAP_PID=
BOX_PID=
# fcgiwrap's preforked children outlive their parent (they are re-parented
# to init): they are the bench's own, found by their parent or the floor's
# cgroup, and go with it.
wrap_children() {
	[ -n "$WRAP_PID" ] && pgrep -P "$WRAP_PID" || true
	[ -z "$FLOOR_CG" ] || cat "$FLOOR_CG/cgroup.procs" 2>/dev/null || true
}
stop() {
	local kids
	kids=$(wrap_children | sort -u | tr '\n' ' ')
	# minbox's workers and their sandboxes die with it (PR_SET_PDEATHSIG).
	for pid in $STACK_PID $WRAP_PID $BOX_PID $kids; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in $STACK_PID $WRAP_PID $BOX_PID; do
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	for pid in $kids; do
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	done
	STACK_PID= WRAP_PID= BOX_PID=
}
trap stop EXIT
trap 'exit 130' INT TERM

# A cpu cgroup for the floor (fcgiwrap and its CGI processes), and one for
# minbox, as the sandboxed runs have theirs: v1's cpu hierarchy or v2's
# root.  Empty when neither can be made (that side then runs at the root).
cpu_cgroup() {
	local cg=
	if [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then
		cg=/sys/fs/cgroup/cpu/$GAOL_INSTANCE-$1
	elif grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		cg=/sys/fs/cgroup/$GAOL_INSTANCE-$1
	fi
	[ -z "$cg" ] || mkdir -p "$cg" || cg=
	echo "$cg"
}
FLOOR_CG=$(cpu_cgroup floor)
BOX_CG=$(cpu_cgroup box)
echo "floor cgroup ${FLOOR_CG:-none}; minbox cgroup ${BOX_CG:-none}" >>"$OUT/source.txt"

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# A POST answered 200 with exit code 0 (a side that answers fast because
# its sandbox failed would be measured otherwise).
post_ok() {
	local answer
	answer=$(curl -fsS -X POST -H 'Content-Type: application/json' \
		--data-binary @"$REQUEST" "http://127.0.0.1:$PORT$1") || return 1
	grep -Eq '"exit_code": ?0[,}]' <<<"$answer" || { echo "$1 answered: $answer" >&2; return 1; }
}

# One wrk of $2 seconds at $1 connections on path $3, into file $4.
measure() {
	local c=$1 secs=$2 path=$3 file=$4 t=2
	[ "$c" -lt 2 ] && t=1
	wrk -t"$t" -c"$c" -d"${secs}s" --latency -s "$LUA" "http://127.0.0.1:$PORT$path" >"$file" 2>&1 ||
		{ cat "$file" >&2; die "wrk failed"; }
}

for c in $LEVELS; do
	echo "bench-throughput: RUN_CONCURRENCY=$c, wrk -c$c, ${SECS}s x $ROUNDS rounds per side"
	PORT=$(free_port)
	FSOCK=$BUILD_DIR/run/floor-$PORT.sock
	mkdir -p "$BUILD_DIR/run" && rm -f "$FSOCK"
	# Into the floor's cgroup first, so that fcgiwrap's children are born there.
	setsid sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1; shift; exec "$@"' floor \
		"$FLOOR_CG" setpriv --pdeathsig KILL spawn-fcgi -n -s "$FSOCK" -M 0660 -U www-data \
		-G www-data -u www-data -g www-data -- "$FCGIWRAP" -c "$c" \
		>"$OUT/fcgiwrap-c$c.log" 2>&1 </dev/null &
	WRAP_PID=$!
	BSOCK=$BUILD_DIR/run/box-$PORT.sock
	rm -f "$BSOCK"
	setsid sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1; shift; exec "$@"' box \
		"$BOX_CG" setpriv --pdeathsig KILL spawn-fcgi -n -s "$BSOCK" -M 0660 -U www-data \
		-G www-data -- "$SNAP/minbox" "$c" "$OUT/minbox" \
		>"$OUT/minbox-c$c.log" 2>&1 </dev/null &
	BOX_PID=$!
	cat >"$OUT/floor.conf" <<EOF
location = /floor {
    include fastcgi_params;
    fastcgi_param SCRIPT_FILENAME $FLOOR_CGI;
    fastcgi_pass unix:$FSOCK;
}
location = /box {
    include fastcgi_params;
    fastcgi_pass unix:$BSOCK;
}
EOF
	BUILD=$SNAP PORT=$PORT GAOL_LANGS_DIR=$LANGS RUN_CONCURRENCY=$c ALLOW_SHUTDOWN=0 \
		GAOL_NGINX_EXTRA=$OUT/floor.conf \
		setsid "$ROOT/nginx/stack.sh" >"$OUT/stack-c$c.log" 2>&1 </dev/null &
	STACK_PID=$!
	ready=
	for _ in $(seq 600); do
		kill -0 "$STACK_PID" 2>/dev/null || { cat "$OUT/stack-c$c.log" >&2; die "stack.sh exited"; }
		if grep -q 'stack: ready' "$OUT/stack-c$c.log"; then ready=1; break; fi
		sleep 0.1
	done
	[ -n "$ready" ] || { cat "$OUT/stack-c$c.log" >&2; die "stack not ready in 60 s"; }
	for _ in 1 2 3 4 5; do
		post_ok /run || die "POST /run failed through nginx"
		post_ok /floor || { cat "$OUT/fcgiwrap-c$c.log" >&2; die "POST /floor failed through nginx"; }
		post_ok /box || { cat "$OUT/minbox-c$c.log" >&2; die "POST /box failed through nginx"; }
	done
	# All warmed up the same way (1 s each), then the rounds; which side
	# goes first turns round by round.
	for side in floor run box; do
		measure "$c" 1 "/$side" /dev/null
	done
	for r in $(seq "$ROUNDS"); do
		case $((r % 3)) in
		1) order="floor run box" ;;
		2) order="run box floor" ;;
		0) order="box floor run" ;;
		esac
		for side in $order; do
			measure "$c" "$SECS" "/$side" "$OUT/wrk-c$c-$side-$r.out"
			rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/wrk-c$c-$side-$r.out")
			echo "  round $r $side: $rps req/s"
		done
	done
	stop
done
cut -d' ' -f1-3 /proc/loadavg >"$OUT/load-after.txt"
for cg in $FLOOR_CG $BOX_CG; do
	rmdir "$cg" || echo "bench-throughput: $cg not removed" >&2
done

"$PY" "$ROOT/tests/bench/throughput.py" --out "$OUT" --levels "$LEVELS" --rounds "$ROUNDS" \
	--seconds "$SECS" --repeat "$REPEAT" ${DOC:+--doc "$ROOT/$DOC"}
