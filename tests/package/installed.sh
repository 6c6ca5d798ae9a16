#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package, tested as installed (make test-package):
#
#   tests/package/installed.sh build/gaol_<version>_<arch>.deb
#
# What it proves: on a root that is this host's own (an overlay over / in a
# private mount and PID namespace, with fresh /run and /tmp), `dpkg -i` of
# the .deb succeeds with its maintainer scripts really run (the socket's
# system user is created by postinst), the files land where the README says,
# and a real request goes through Debian's nginx package configured as the
# README tells a user to (one include at http level, one in the server), to
# the pool started by the units' own lines: first gaol.service (spawn-fcgi),
# then gaol.socket + gaol-socket.service (the socket handed over on fd 0).
# systemd is not PID 1 here, so tests/package/run_unit.py starts each unit's
# ExecStart with the unit's environment, runtime directory and socket, and
# refuses a unit key it does not emulate.  Last, `dpkg --purge` removes it.
#
# What it does not prove: that systemd itself accepts the units (see
# tests/integration/test_systemd.py: systemd-analyze verify), nor an install
# on a host other than this one (the root is this host's, with its packages).
#
# Everything happens inside the namespaces: when the script ends, the kernel
# kills every process left in them and drops every mount; the host checks at
# the end assert that nothing is left (processes, mounts, cgroups, the user,
# the temporary directory).
set -euo pipefail

# A free port unless one is given (several stacks may run on a CI host).
PORT=${PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
UID_BASE=${UID_BASE:-$((60001 + ($$ % 500) * 8))}
CONCURRENCY=2
HERE=$(cd "$(dirname "$0")" && pwd)

fail() { echo "package-test: FAILED: $*" >&2; exit 1; }
ok() { echo "package-test: ok: $*"; }

# ------------------------------------------------------------ inside
if [ "${1:-}" = --inside ]; then
	T=$2 DEB=$3 VERSION=$4
	R=$T/root
	mount --make-rprivate /
	mkdir -p "$T/layers" "$R"
	# The writable layer on a tmpfs of its own: an upper directory on the
	# same filesystem as the lower / would overlap it.
	mount -t tmpfs -o size=1g,mode=0755 gaol-pkgtest "$T/layers"
	mkdir "$T/layers/upper" "$T/layers/work"
	mount -t overlay gaol-pkgtest -o "lowerdir=/,upperdir=$T/layers/upper,workdir=$T/layers/work" "$R"
	mount -t proc proc "$R/proc"
	mount --rbind /sys "$R/sys"
	mount --rbind /dev "$R/dev"
	mount -t tmpfs -o mode=0755 gaol-pkgtest-run "$R/run"
	mount -t tmpfs -o mode=1777 gaol-pkgtest-tmp "$R/tmp"
	in_root() { chroot "$R" "$@"; }

	# -------------------------------------------------------- install
	cp "$DEB" "$R/tmp/"
	cp "$HERE/run_unit.py" "$R/tmp/"
	if in_root getent passwd gaol >/dev/null; then fail "the root already has a user gaol"; fi
	in_root dpkg -i "/tmp/$(basename "$DEB")" >"$T/dpkg.log" 2>&1 ||
		{ cat "$T/dpkg.log"; fail "dpkg -i"; }
	ok "dpkg -i $(basename "$DEB")"
	[ "$(in_root dpkg-query -W -f='${Status} ${Version}' gaol)" = "install ok installed $VERSION" ] ||
		fail "dpkg-query: $(in_root dpkg-query -W -f='${Status} ${Version}' gaol)"
	shell=$(in_root getent passwd gaol | cut -d: -f7)
	[ "$shell" = /usr/sbin/nologin ] || fail "postinst did not create the system user gaol ($shell)"
	ok "postinst created the system user gaol"
	conffiles=$(in_root dpkg-query -W -f='${Conffiles}' gaol)
	for f in /etc/default/gaol /etc/nginx/snippets/gaol-http.conf /etc/nginx/snippets/gaol-locations.conf; do
		grep -q " $f " <<<"$conffiles" || fail "$f is not a conffile"
	done
	ok "conffiles: /etc/default/gaol and the nginx snippets"
	for f in /usr/bin/gaol-fcgi /usr/bin/gaol-run /usr/share/gaol/langs/python/lang.json \
		 /lib/systemd/system/gaol.service /lib/systemd/system/gaol.socket \
		 /lib/systemd/system/gaol-socket.service; do
		[ -e "$R$f" ] || fail "$f is not installed"
	done
	for page in gaol-fcgi.8 gaol-run.1 gaol.7; do
		in_root man -w "${page%.*}" >/dev/null 2>&1 || fail "man ${page%.*}: no page"
		in_root env MANWIDTH=80 man "${page##*.}" "${page%.*}" 2>/dev/null | grep -q '^NAME' ||
			fail "man ${page##*.} ${page%.*} does not render"
	done
	ok "man gaol-fcgi, gaol-run and gaol render"
	for b in gaol-fcgi gaol-run; do
		in_root $b --version | grep -qF "$b $VERSION (build " ||
			fail "$b --version: $(in_root $b --version), package $VERSION"
	done
	ok "gaol-fcgi --version: $(in_root gaol-fcgi --version)"

	# -------------------------------------------------------- configure
	# As the README tells an administrator: the pool's settings in
	# /etc/default/gaol; gaol-http.conf at http level (conf.d), and
	# gaol-locations.conf inside the server that serves gaol.  The default
	# site goes: it would take port 80, which is not ours to take here.
	cat >>"$R/etc/default/gaol" <<-EOF
	RUN_CONCURRENCY=$CONCURRENCY
	RUN_UID_BASE=$UID_BASE
	EOF
	echo 'include snippets/gaol-http.conf;' >"$R/etc/nginx/conf.d/gaol.conf"
	rm -f "$R/etc/nginx/sites-enabled/default"
	cat >"$R/etc/nginx/sites-enabled/gaol" <<-EOF
	server {
	    listen 127.0.0.1:$PORT;
	    include snippets/gaol-locations.conf;
	}
	EOF
	in_root nginx -t -q || fail "nginx -t"
	ok "nginx -t with the snippets included"

	URL=http://127.0.0.1:$PORT
	serve() {   # $1: the unit whose ExecStart runs the pool
		local unit=$1 pid i
		# chroot itself, not the in_root function (a subshell): $! must be
		# the pool's main process, as systemd's MainPID is.
		chroot "$R" /usr/bin/python3 /tmp/run_unit.py "/lib/systemd/system/$unit" \
			>"$T/$unit.log" 2>&1 &
		pid=$!
		# Debian's nginx.service: ExecStart=/usr/sbin/nginx -g 'daemon on; master_process on;'
		in_root /usr/sbin/nginx -g 'daemon on; master_process on;' || fail "nginx did not start"
		for i in $(seq 1 120); do
			curl -sf -o /dev/null "$URL/health" && break
			kill -0 $pid 2>/dev/null || { cat "$T/$unit.log"; fail "$unit: the pool exited"; }
			sleep 0.5
		done
		health=$(curl -sS "$URL/health") || { cat "$T/$unit.log"; fail "$unit: no /health in 60 s"; }
		python3 - "$health" "$VERSION" "$CONCURRENCY" <<-'EOF' || fail "$unit: /health: $health"
		import json, sys
		h = json.loads(sys.argv[1])
		assert h["ok"] is True and h["version"] == sys.argv[2], h
		assert h["slots"] == int(sys.argv[3]), h
		assert "python" in h["languages"], h
		EOF
		ok "$unit: /health through nginx: version $VERSION, $CONCURRENCY slots"
		sock=$(in_root stat -c '%U:%G %a %F' /run/gaol/gaol.sock)
		[ "$sock" = "gaol:www-data 660 socket" ] || fail "$unit: the socket is $sock"
		ok "$unit: /run/gaol/gaol.sock is gaol:www-data 0660"

		run=$(curl -sS -w '\n%{http_code}' "$URL/run" -H 'Content-Type: application/json' -d '{
		  "lang_slug": "python",
		  "solution_text": "def solution(a, b):\n    return a + b\n",
		  "asserts": "{\"arguments\": [[1, 2], [3, 4]]}"}')
		python3 - "$run" <<-'EOF' || fail "$unit: POST /run: $run"
		import json, sys
		body, status = sys.argv[1].rsplit("\n", 1)
		r = json.loads(body)
		assert status == "200" and r["exit_code"] == 0, r
		values = [rec["value"] for rec in json.loads(r["stdout"]) if rec["type"] == "result"]
		assert values == [3, 7], r
		EOF
		ok "$unit: POST /run (python) through nginx: exit 0, results 3 and 7"
		ev=$(curl -sS -w '\n%{http_code}' "$URL/evaluate" -H 'Content-Type: application/json' -d '{
		  "code": "print(int(input()) * 2)", "language": "python",
		  "test_cases": [{"input": "4", "expected_output": "8"},
		                 {"input": "5", "expected_output": "11"}]}')
		python3 - "$ev" <<-'EOF' || fail "$unit: POST /evaluate: $ev"
		import json, sys
		body, status = sys.argv[1].rsplit("\n", 1)
		r = json.loads(body)
		assert status == "200", r
		assert [t["verdict"] for t in r["results"]] == ["OK", "WA"], r
		EOF
		ok "$unit: POST /evaluate (python) through nginx: OK then WA"
		metrics=$(curl -sS "$URL/metrics")
		grep -q '^gaol_runs_total{language="python",outcome="OK"} 1$' <<<"$metrics" ||
			fail "$unit: /metrics: $metrics"
		ok "$unit: GET /metrics through nginx counts the runs"

		# Stop as systemd would (KillMode=mixed: SIGTERM to the main
		# process), then nginx as its unit's ExecStop does.
		kill -TERM $pid
		for i in $(seq 1 60); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
		if kill -0 $pid 2>/dev/null; then fail "$unit: still running 30 s after SIGTERM"; fi
		rc=0; wait $pid || rc=$?
		[ $rc = 0 ] || { cat "$T/$unit.log"; fail "$unit: exit status $rc after SIGTERM"; }
		in_root /usr/sbin/nginx -s quit 2>/dev/null
		for i in $(seq 1 60); do [ -e "$R/run/nginx.pid" ] || break; sleep 0.5; done
		left=$(ps -eo pid=,comm= | grep -v -w -e "$$" -e ps -e grep -e installed.sh -e sleep || true)
		[ -z "$left" ] || fail "$unit: processes left after the stop: $left"
		ok "$unit: stopped cleanly (SIGTERM: exit 0), nothing left running"
	}
	serve gaol.service
	rm -rf "$R/run/gaol"   # systemd removes a RuntimeDirectory at stop
	serve gaol-socket.service

	# -------------------------------------------------------- purge
	in_root dpkg --purge gaol >"$T/dpkg.log" 2>&1 || { cat "$T/dpkg.log"; fail "dpkg --purge"; }
	for f in /usr/bin/gaol-fcgi /usr/share/gaol /etc/default/gaol /etc/nginx/snippets/gaol-http.conf \
		 /lib/systemd/system/gaol.service; do
		if [ -e "$R$f" ]; then fail "$f is left after dpkg --purge"; fi
	done
	ok "dpkg --purge removes the files and the conffiles"
	exit 0
fi

# ------------------------------------------------------------ outside
DEB=${1:?usage: installed.sh path/to/gaol_VERSION_ARCH.deb}
[ "$(id -u)" = 0 ] || fail "must run as root (dpkg, mounts, sandboxes)"
for tool in unshare chroot nginx curl python3 dpkg-deb; do
	command -v $tool >/dev/null || fail "$tool is missing (make deps-test)"
done
DEB=$(realpath "$DEB")
VERSION=$(dpkg-deb -f "$DEB" Version)
had_user=$(getent passwd gaol || true)
T=$(mktemp -d /tmp/gaol-pkgtest.XXXXXX)
trap 'rm -rf "$T"' EXIT

# A private mount and PID namespace: the script inside is PID 1, so when it
# ends every process it started goes with it, and every mount with the
# namespace.
status=0
unshare --mount --pid --fork --kill-child --mount-proc -- "$0" --inside "$T" "$DEB" "$VERSION" || status=$?

# The host is as it was.
if grep -q "$T" /proc/self/mountinfo; then fail "mounts of $T are left on the host"; fi
for p in /proc/[0-9]*; do
	root=$(readlink "$p/root" 2>/dev/null || true)
	case "$root" in "$T"*) fail "process ${p#/proc/} is left in the test's root";; esac
done
for i in $(seq 0 $((CONCURRENCY))); do
	left=$(find /sys/fs/cgroup -type d -name "uid$((UID_BASE + i))*" 2>/dev/null | head -n 3)
	[ -z "$left" ] || fail "cgroups left: $left"
done
[ "$(getent passwd gaol || true)" = "$had_user" ] || fail "the host's user gaol changed"
rm -rf "$T"
[ ! -e "$T" ] || fail "$T is left"
[ $status = 0 ] || fail "inside the test root (above)"
echo "package-test: passed ($VERSION; host left as it was)"
