#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gaol's benchmark (`make bench`): what one run costs, against the bare cost of
# starting the same command and against a peer sandbox, all measured in this
# one invocation so that the ratios compare like with like.
#
#   (a)  bare      /bin/sh -c true (what the benchmark language's test
#                  command resolves to), and /bin/sh -c 'exec true'  hyperfine
#   (b)  gaol-run  the engine from the command line, language
#                  "true" (tests/bench/langs), slot 0: the whole process
#                  (start-up included), its start-up alone (a refused
#                  request), and in-process (--repeat N, --gap 0 and 5 ms:
#                  a saturated worker and one between requests)
#   (c)  HTTP      POST /run through nginx + the pool, wrk at
#                  concurrency 1 and 2 (latency median, req/s)
#   (d)  bwrap     bubblewrap with every namespace, /bin/sh -c true   hyperfine
#   (e)  languages tests/bench/service.py, on a stack with langs/: /run a+b
#                  per installed language against the same toolchain
#                  command bare; the C++ judge build with and without its
#                  precompiled header; POST /evaluate of C++ a+b with 50
#                  test cases, cold and cached compile
#
# tests/bench/report.py prints the tables and writes them to
# $BUILD/bench/results.txt and docs/bench.md.  Not a pass/fail test: targets
# (sandbox overhead <= 1 ms, pch speed-up >= 3x) are reported, not enforced.
#
# Environment: BUILD (default build), BENCH_RUNS (hyperfine runs per command,
# default 200), BENCH_REPEAT (gaol-run --repeat, default 500),
# BENCH_WRK_SECONDS (duration of each wrk run, default 5), BENCH_LANG_RUNS
# (runs per language, default 10), BENCH_PCH_RUNS (default 5),
# BENCH_EVAL_REQUESTS (cold and cached /evaluate requests, default 3),
# BENCH_LANGS (only these slugs), BENCH_DOC (default docs/bench.md; empty:
# not written).
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=${BUILD:-build}
case $BUILD in /*) BUILD_DIR=$BUILD ;; *) BUILD_DIR=$ROOT/$BUILD ;; esac
OUT=$BUILD_DIR/bench
RUNS=${BENCH_RUNS:-200}
WRK_SECONDS=${BENCH_WRK_SECONDS:-5}
REPEAT=${BENCH_REPEAT:-500}
DOC=${BENCH_DOC-docs/bench.md}
LANGS=$ROOT/tests/bench/langs
PY=/usr/bin/python3

die() { echo "bench: $*" >&2; exit 1; }

for tool in hyperfine wrk bwrap curl "$PY"; do
	command -v "$tool" >/dev/null || die "$tool is missing (make deps-bench installs it)"
done
for b in gaol-run gaol-fcgi; do
	[ -x "$BUILD_DIR/$b" ] || die "$BUILD_DIR/$b is not built (make)"
done
[ -x "$ROOT/nginx/stack.sh" ] || die "nginx/stack.sh is missing"
[ "$(id -u)" = 0 ] || die "gaol needs root to build its sandboxes"

mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.txt
# The machine is shared: its load at the start and at the end go in the report.
cut -d' ' -f1-3 /proc/loadavg >"$OUT/load-before.txt"
date -u '+%Y-%m-%d %H:%M:%S UTC' >"$OUT/date.txt"
date +%s >"$OUT/t0.txt"
# The binaries measured are copies taken now, so that a rebuild during the
# benchmark cannot change (or break) what is being measured half-way.
SNAP=$OUT/bin
rm -rf "$SNAP" && mkdir -p "$SNAP" &&
	cp "$BUILD_DIR/gaol-run" "$BUILD_DIR/gaol-fcgi" "$SNAP/" ||
	die "cannot copy the binaries into $SNAP"
# What they were built from, as far as git knows: others may be editing the
# sources while the benchmark runs.
{
	echo "head $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
	echo "dirty $(git -C "$ROOT" status --porcelain -- core fcgi Makefile 2>/dev/null | awk '{print $2}' | tr '\n' ' ')"
	for b in gaol-run gaol-fcgi; do
		echo "$b $(sha256sum "$SNAP/$b" | cut -c1-16) built $(date -u -r "$BUILD_DIR/$b" '+%H:%M:%S')"
	done
} >"$OUT/source.txt"
REQUEST=$OUT/request.json
printf '%s\n' '{"lang_slug": "true", "solution_text": "", "timeout": "10s"}' >"$REQUEST"

STACK_PID=
cleanup() {
	if [ -n "$STACK_PID" ] && kill -0 "$STACK_PID" 2>/dev/null; then
		kill -TERM "$STACK_PID" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$STACK_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$STACK_PID" 2>/dev/null || true
		wait "$STACK_PID" 2>/dev/null || true
	fi
	STACK_PID=
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# bwrap's binds: what exists of /usr /bin /lib /lib64 /sbin /etc, merged-/usr
# symlinks (Debian 12: /bin -> usr/bin) as symlinks.
BWRAP=(bwrap --unshare-all --die-with-parent)
for d in /usr /bin /sbin /lib /lib32 /lib64 /etc; do
	if [ -L "$d" ]; then
		BWRAP+=(--symlink "$(readlink "$d")" "$d")
	elif [ -d "$d" ]; then
		BWRAP+=(--ro-bind "$d" "$d")
	fi
done
BWRAP+=(--tmpfs /tmp --proc /proc --dev /dev /bin/sh -c true)

# Slot UIDs (and so state directories) of their own, away from the default
# 10001 of a stack that may be running beside the benchmark.
export RUN_UID_BASE=${BENCH_UID_BASE:-38001}
GAOL_RUN="$SNAP/gaol-run --langs $LANGS --slot 0"

echo "bench: sanity checks"
"${BWRAP[@]}" || die "bwrap cannot run here: ${BWRAP[*]}"
answer=$($GAOL_RUN <"$REQUEST") || die "gaol-run failed: $answer"
case $answer in *'"exit_code": 0'*|*'"exit_code":0'*) ;; *) die "gaol-run answered: $answer" ;; esac
echo "  gaol-run: $answer"

HF=(hyperfine --style basic --warmup 20 --runs "$RUNS")

echo "bench: (a) bare /bin/sh -c true, $RUNS runs"
"${HF[@]}" -N --export-json "$OUT/bare.json" '/bin/sh -c true'

# The benchmark language's test command is `true`, a shell builtin, which
# gaol runs as it is (/bin/sh -c true: the like-for-like bare command is the
# one above).  A program is exec'd: this row is what that execve adds.
echo "bench: (a2) bare /bin/sh -c 'exec true', $RUNS runs"
"${HF[@]}" -N --export-json "$OUT/bare-exec.json" "/bin/sh -c 'exec true'"

# gaol-run reads the request on stdin and hyperfine (1.15) has no --input:
# it runs through sh, whose own start-up hyperfine measures and subtracts.
echo "bench: (b) gaol-run, slot 0, language true, $RUNS runs"
"${HF[@]}" -S /bin/sh --export-json "$OUT/gaol-run.json" "$GAOL_RUN < $REQUEST"

# The same binary answering a request it refuses (unknown language: 400, no
# sandbox): its start-up alone (configuration, languages, make -n, slot), so
# that the run's own cost can be told apart from the command line's.
REFUSED=$OUT/refused.json
printf '%s\n' '{"lang_slug": "no_such_language", "solution_text": ""}' >"$REFUSED"
echo "bench: (b0) gaol-run start-up only (refused request), $RUNS runs"
"${HF[@]}" -i -S /bin/sh --export-json "$OUT/gaol-run-startup.json" "$GAOL_RUN < $REFUSED"

# In-process: one gaol-run runs the request REPEAT times as a worker does
# (the next sandbox built ahead between runs) and prints the median, p10 and
# p90 of a run on stderr: the sandbox's own cost, without the start-up.
# --gap 0 is a saturated worker, --gap 5 one that idles between requests.
for gap in 0 5; do
	echo "bench: (b1) gaol-run in-process, --repeat $REPEAT --gap $gap"
	$GAOL_RUN --repeat "$REPEAT" --gap "$gap" <"$REQUEST" >"$OUT/repeat-gap$gap.out" \
		2>"$OUT/repeat-gap$gap.txt" || { cat "$OUT/repeat-gap$gap.txt" >&2; die "gaol-run --repeat failed"; }
	cat "$OUT/repeat-gap$gap.txt"
done

echo "bench: (d) bwrap --unshare-all /bin/sh -c true, $RUNS runs"
"${HF[@]}" -N --export-json "$OUT/bwrap.json" "${BWRAP[*]}"

echo "bench: (c) POST /run through nginx, wrk ${WRK_SECONDS}s at concurrency 1 and 2"
PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
BUILD=$SNAP PORT=$PORT GAOL_LANGS_DIR=$LANGS RUN_CONCURRENCY=2 ALLOW_SHUTDOWN=0 \
	setsid "$ROOT/nginx/stack.sh" >"$OUT/stack.log" 2>&1 </dev/null &
STACK_PID=$!
ready=
for _ in $(seq 600); do
	kill -0 "$STACK_PID" 2>/dev/null || { cat "$OUT/stack.log" >&2; die "stack.sh exited"; }
	if curl -fsS -o /dev/null "http://127.0.0.1:$PORT/health" 2>/dev/null; then ready=1; break; fi
	sleep 0.1
done
[ -n "$ready" ] || { cat "$OUT/stack.log" >&2; die "stack did not answer /health in 60 s"; }
for _ in 1 2 3 4 5; do
	curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' \
		--data-binary @"$REQUEST" "http://127.0.0.1:$PORT/run" ||
		die "POST /run failed through nginx"
done
LUA=$OUT/post.lua
"$PY" "$ROOT/tests/bench/wrk_post.py" "$REQUEST" "$LUA"
for c in 1 2; do
	wrk -t"$c" -c"$c" -d"${WRK_SECONDS}s" --latency -s "$LUA" \
		"http://127.0.0.1:$PORT/run" | tee "$OUT/wrk-c$c.txt"
done
cleanup

echo "bench: (e) languages, the C++ precompiled header, /evaluate"
"$PY" "$ROOT/tests/bench/service.py" --out "$OUT" --build "$SNAP" --uid-base "$RUN_UID_BASE" \
	--lang-runs "${BENCH_LANG_RUNS:-10}" --pch-runs "${BENCH_PCH_RUNS:-5}" \
	--eval-requests "${BENCH_EVAL_REQUESTS:-3}" --langs "${BENCH_LANGS:-}" ||
	die "tests/bench/service.py failed"
cut -d' ' -f1-3 /proc/loadavg >"$OUT/load-after.txt"
date +%s >"$OUT/t1.txt"

"$PY" "$ROOT/tests/bench/report.py" --out "$OUT" ${DOC:+--doc "$ROOT/$DOC"}
echo "bench: results in $OUT/results.txt${DOC:+ and $DOC}"
