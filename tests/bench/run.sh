#!/usr/bin/env bash
# gaol's benchmark (`make bench`): what one run costs, against the bare cost of
# starting the same command and against a peer sandbox, all measured in this
# one invocation so that the ratios compare like with like.
#
#   (a) bare      /bin/sh -c true                              hyperfine
#   (b) gaol-run  the engine from the command line, language
#                 "true" (tests/bench/langs), slot 0            hyperfine
#   (c) HTTP      POST /run through nginx + the pool, wrk at
#                 concurrency 1 and 2 (latency median, req/s)
#   (d) bwrap     bubblewrap with every namespace, /bin/sh -c true   hyperfine
#
# Prints a table and writes it to $BUILD/bench/results.txt.  Not a pass/fail
# test: the target (gaol-run - bare <= 1 ms) is reported, not enforced.
#
# Environment: BUILD (default build), BENCH_RUNS (hyperfine runs per command,
# default 200), BENCH_WRK_SECONDS (duration of each wrk run, default 5).
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=${BUILD:-build}
case $BUILD in /*) BUILD_DIR=$BUILD ;; *) BUILD_DIR=$ROOT/$BUILD ;; esac
OUT=$BUILD_DIR/bench
RUNS=${BENCH_RUNS:-200}
WRK_SECONDS=${BENCH_WRK_SECONDS:-5}
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
rm -f "$OUT"/*.json "$OUT"/wrk-*.txt "$OUT/results.txt"
# The binaries measured are copies taken now, so that a rebuild during the
# benchmark cannot change (or break) what is being measured half-way.
SNAP=$OUT/bin
rm -rf "$SNAP" && mkdir -p "$SNAP" &&
	cp "$BUILD_DIR/gaol-run" "$BUILD_DIR/gaol-fcgi" "$SNAP/" ||
	die "cannot copy the binaries into $SNAP"
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

# Medians of a shared 2-core machine mean little while it is busy: say so.
cut -d' ' -f1-3 /proc/loadavg >"$OUT/load-before.txt"
HF=(hyperfine --style basic --warmup 20 --runs "$RUNS")

echo "bench: (a) bare /bin/sh -c true, $RUNS runs"
"${HF[@]}" -N --export-json "$OUT/bare.json" '/bin/sh -c true'

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
"$PY" - "$REQUEST" "$LUA" <<'EOF'
import json, sys
body = open(sys.argv[1]).read().strip()
open(sys.argv[2], "w").write(
    'wrk.method = "POST"\n'
    'wrk.body = %s\n'
    'wrk.headers["Content-Type"] = "application/json"\n'
    '-- the first few failures are shown, so that a non-2xx count has a reason\n'
    'local shown = 0\n'
    'response = function(status, headers, body)\n'
    '  if status ~= 200 and shown < 3 then\n'
    '    shown = shown + 1\n'
    '    io.stderr:write("wrk: " .. status .. " " .. body .. "\\n")\n'
    '  end\n'
    'end\n' % json.dumps(body))
EOF
for c in 1 2; do
	wrk -t"$c" -c"$c" -d"${WRK_SECONDS}s" --latency -s "$LUA" \
		"http://127.0.0.1:$PORT/run" | tee "$OUT/wrk-c$c.txt"
done
cleanup
cut -d' ' -f1-3 /proc/loadavg >"$OUT/load-after.txt"

"$PY" - "$OUT" <<'EOF' | tee "$OUT/results.txt"
import json, os, re, sys

out = sys.argv[1]

def hf(name):
    r = json.load(open(os.path.join(out, name + ".json")))["results"][0]
    return r["median"] * 1000.0, len(r["times"])

def wrk(c):
    text = open(os.path.join(out, "wrk-c%d.txt" % c)).read()
    unit = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}
    m = re.search(r"^\s*50%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M)
    p50 = float(m.group(1)) * unit[m.group(2)] if m else float("nan")
    m = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    rps = float(m.group(1)) if m else float("nan")
    m = re.search(r"(\d+) requests in", text)
    total = int(m.group(1)) if m else 0
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    bad = int(m.group(1)) if m else 0
    return p50, rps, total, bad

bare, nb = hf("bare")
run, nr = hf("gaol-run")
bw, nw = hf("bwrap")
start, ns = hf("gaol-run-startup")
rows = [
    ("bare   /bin/sh -c true", bare, "%d runs" % nb),
    ("gaol-run (true, slot 0)", run, "%d runs" % nr),
    ("gaol-run start-up only (400)", start, "%d runs, no sandbox" % ns),
    ("bwrap  --unshare-all sh -c true", bw, "%d runs" % nw),
]
load = [open(os.path.join(out, "load-%s.txt" % w)).read().strip() for w in ("before", "after")]
lines = ["gaol benchmark (medians measured in this run; %d cores, load average %s before, %s after)"
         % (os.cpu_count(), load[0], load[1]), ""]
lines.append("%-34s %10s   %s" % ("what", "median ms", "notes"))
for name, ms, note in rows:
    lines.append("%-34s %10.3f   %s" % (name, ms, note))
for c in (1, 2):
    p50, rps, total, bad = wrk(c)
    lines.append("%-34s %10.3f   %.1f req/s, %d requests, %d non-2xx"
                 % ("HTTP POST /run, wrk -c%d" % c, p50, rps, total, bad))
over = run - bare
lines += [
    "",
    "ratio gaol-run / bare   %8.2f" % (run / bare),
    "ratio bwrap / bare      %8.2f" % (bw / bare),
    "overhead gaol-run - bare %7.3f ms   (target <= 1 ms: %s)"
    % (over, "met" if over <= 1.0 else "NOT met"),
    "  of which gaol-run's start-up  %7.3f ms; the run itself - bare %7.3f ms"
    % (start, run - start - bare),
]
print("\n".join(lines))
EOF
echo "bench: results in $OUT/results.txt"
