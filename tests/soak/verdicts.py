#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Verdict stability (issue 29): no correct program judged wrong, warm or
cold, whatever runs beside it.

    make soak       # soak.py, then this: VERDICT_SECONDS (240), 4 clients,
                    # 2 hogs, until VERDICT_MIN_TESTS (0: the time alone)
    tests/soak/verdicts.py --seconds 60 --clients 4 --hogs 2 --max-tests 200
    tests/integration/test_verdict_stability.py   # its short form, in make test

N clients send CompiCode-shaped POST /evaluate requests at once (inputs
without a final newline), each cycling through python, cpp, java and js
(those installed).  For each language one a+b source is built once at the
start, the class's boilerplate (warm: a cache hit for every client), and
each round pairs it with a fresh source (cold), which goes first
alternating; the test counts cycle through 200, 20, 1 and 50 (at most
--max-tests).  Every few rounds a client also sends a wrong program (every
verdict WA), a sleeper and a busy loop (one test each, time_limit_ms 500).
Meanwhile --hogs CPU-bound processes run on the host outside gaol; they are
killed at the end, whatever happens.

Every answer is checked: a correct program's every test OK, a wrong one's
WA, a sleeper TLE by the no-progress deadline (its window, L + 2 s, L the
language's limit, ended it: not the absolute cap), a busy loop TLE past L
(by the CPU ceiling, or the absolute cap when the load starves it).  Prints
the counts, each wrong answer, and warm against cold (the request's wall,
and test #0's against the median test's); exits 1 on any wrong answer.  A
test the request's budget stopped is counted apart, not as wrong: the
budget is the operator's bound, documented; the suite's own stack sets it
to 600 s.  Against a stack given by --port, or one of its own
(RUN_CONCURRENCY = clients, a state directory of its own, stopped and
removed at the end).
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

import gaol_helpers as gh  # noqa: E402

LANGS = ["python", "cpp", "java", "js"]
COMMENT = {"python": "#", "cpp": "//", "java": "//", "js": "//"}
PROGRAMS = {
    "python": {
        "ok": "a, b = map(int, input().split())\nprint(a + b)\n",
        "wrong": "a, b = map(int, input().split())\nprint(a + b + 1)\n",
        "sleep": "import time\ntime.sleep(600)\n",
        "busy": "while True: pass\n",
    },
    "cpp": {
        "ok": "#include <bits/stdc++.h>\nint main(){long long a,b;std::cin>>a>>b;"
              "std::cout<<a+b<<\"\\n\";}\n",
        "wrong": "#include <bits/stdc++.h>\nint main(){long long a,b;std::cin>>a>>b;"
                 "std::cout<<a+b+1<<\"\\n\";}\n",
        "sleep": "#include <unistd.h>\nint main(){sleep(600);}\n",
        "busy": "int main(){volatile long x=0;for(;;)x++;}\n",
    },
    "java": {
        "ok": "import java.util.*;\npublic class Main { public static void main(String[] x) "
              "{ Scanner s = new Scanner(System.in); long a = s.nextLong(), b = s.nextLong(); "
              "System.out.println(a + b); } }\n",
        "wrong": "import java.util.*;\npublic class Main { public static void main(String[] x) "
                 "{ Scanner s = new Scanner(System.in); long a = s.nextLong(), b = s.nextLong(); "
                 "System.out.println(a + b + 1); } }\n",
        "sleep": "public class Main { public static void main(String[] x) throws Exception "
                 "{ Thread.sleep(600000); } }\n",
        "busy": "public class Main { public static void main(String[] x) "
                "{ long i = 0; while (true) i++; } }\n",
    },
    "js": {
        "ok": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/)"
              ".map(Number);\nconsole.log(a + b);\n",
        "wrong": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/)"
                 ".map(Number);\nconsole.log(a + b + 1);\n",
        "sleep": "setTimeout(() => {}, 600000);\n",
        "busy": "for (;;) {}\n",
    },
}
# The languages' time_factor (lang.json): java's L is 1.5 times the request's.
FACTOR = {"java": 1.5}
COUNTS = [200, 20, 1, 50]
TRAP_LIMIT_MS = 500        # time_limit_ms of the sleepers and busy loops


def source(lang, kind, tag):
    return PROGRAMS[lang][kind] + "%s %s\n" % (COMMENT[lang], tag)


def cases(n, rnd):
    out = []
    for _ in range(n):
        a, b = rnd.randint(-10**9, 10**9), rnd.randint(-10**9, 10**9)
        out.append({"input": "%d %d" % (a, b), "expected_output": str(a + b)})
    return out


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = self.tests = self.budget = 0
        self.wrong = []             # (what, detail)
        self.kinds = {}             # (lang, kind) -> requests
        self.pairs = {}             # lang -> {"warm": [...], "cold": [...]}

    def add(self, lang, kind, n, wrong):
        with self.lock:
            self.requests += 1
            self.tests += n
            self.kinds[(lang, kind)] = self.kinds.get((lang, kind), 0) + 1
            self.budget += sum(1 for w in wrong if w[0] == "budget")
            self.wrong.extend(w for w in wrong if w[0] != "budget")

    def timing(self, lang, kind, wall_ms, res):
        walls = [r.get("wall_ms") or 0 for r in res]
        with self.lock:
            self.pairs.setdefault(lang, {"warm": [], "cold": []})[kind].append(
                (wall_ms, walls[0], statistics.median(walls), len(res)))


def post(port, lang, code, tcs, **extra):
    body = {"code": code, "language": lang, "test_cases": tcs}
    body.update(extra)
    t0 = time.monotonic()
    r = gh.request(port, "POST", "/evaluate", body, timeout=600)
    wall = (time.monotonic() - t0) * 1000
    if r.status != 200:
        return None, wall, "HTTP %d %r" % (r.status, r.body[:200])
    return r.json(), wall, None


def check_all(doc, want, what):
    """Every result's verdict is want: the wrong ones, described.  A test
    the request's budget stopped (deadline "budget") is the operator's
    bound, as documented, not the program's verdict: counted apart."""
    bad = []
    for i, r in enumerate(doc["results"]):
        if r.get("deadline") == "budget":
            bad.append(("budget", what))
        elif r.get("verdict") != want:
            bad.append((what, "test #%d: %s %s cpu_ms %s wall_ms %s setup_ms %s" % (
                i, r.get("verdict"), r.get("deadline"), r.get("cpu_ms"), r.get("wall_ms"),
                r.get("setup_ms"))))
    return bad


def check_trap(doc, lang, kind, what):
    """A sleeper: TLE by the no-progress window (not the absolute cap,
    deadline "wall"); a busy loop: TLE by the CPU ceiling, past L."""
    r = doc["results"][0]
    limit = r.get("time_limit_ms") or int(TRAP_LIMIT_MS * FACTOR.get(lang, 1))
    window = limit + 2000
    if kind == "sleep":
        ok = (r.get("verdict") == "TLE" and r.get("deadline") == "no_progress"
              and window <= (r.get("wall_ms") or 0) < 5 * window)
    else:
        # The CPU ceiling, or, a busy loop starved by the load (two hogs
        # and other work: 6 % of a CPU seen), the absolute cap: TLE past L.
        ok = (r.get("verdict") == "TLE" and r.get("deadline") in ("cpu", "wall")
              and (r.get("cpu_ms") or 0) > limit)
    if ok:
        return []
    return [(what, "%s %s cpu_ms %s wall_ms %s setup_ms %s exit_code %s signal %s "
             "(window %d ms)" % (r.get("verdict"), r.get("deadline"), r.get("cpu_ms"),
                                 r.get("wall_ms"), r.get("setup_ms"), r.get("exit_code"),
                                 r.get("signal"), window))]


def one(port, tally, lang, kind, code, tcs, want, what, **extra):
    doc, wall, err = post(port, lang, code, tcs, **extra)
    if err:
        tally.add(lang, kind, len(tcs), [(what, err)])
        return None
    if kind in ("sleep", "busy"):
        wrong = check_trap(doc, lang, kind, what)
    else:
        wrong = check_all(doc, want, what)
        cached = doc["compile"].get("cached")
        if kind in ("warm", "cold") and cached is not (kind == "warm"):
            wrong.append((what, "compile.cached is %r" % cached))
    tally.add(lang, kind, len(tcs), wrong)
    if kind in ("warm", "cold"):
        tally.timing(lang, kind, wall, doc["results"])
    return doc


def client(port, k, langs, warm, stop, tally, max_tests, seed):
    rnd = random.Random(seed * 1000 + k)
    rounds = 0
    while not stop.is_set():
        lang = langs[(rounds + k) % len(langs)]
        n = min(COUNTS[(rounds // len(langs) + k) % len(COUNTS)], max_tests)
        if lang == "java":
            n = min(n, max(1, max_tests // 2))
        tcs = cases(n, rnd)
        cold = source(lang, "ok", "cold %d-%d-%s" % (k, rounds, uuid.uuid4().hex[:8]))
        order = ("cold", "warm") if rounds % 2 == 0 else ("warm", "cold")
        for kind in order:
            code = cold if kind == "cold" else warm[lang]
            one(port, tally, lang, kind, code, tcs, "OK",
                "client %d %s %s %d tests" % (k, lang, kind, n))
        if rounds % 4 == k % 4:
            one(port, tally, lang, "wrong", source(lang, "wrong", "c%d" % k), cases(5, rnd),
                "WA", "client %d %s wrong" % (k, lang))
        if rounds % 8 == (k * 2) % 8:
            for kind in ("sleep", "busy"):
                one(port, tally, lang, kind, source(lang, kind, "c%d" % k),
                    [{"input": "1 2", "expected_output": "3"}], "TLE",
                    "client %d %s %s" % (k, lang, kind), time_limit_ms=TRAP_LIMIT_MS)
        rounds += 1


def hogs(n):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def stop_hogs(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def run(port, installed, clients=4, seconds=60.0, n_hogs=2, max_tests=200, min_tests=0,
        seed=1, out=sys.stdout, until_tests=0):
    """The load against the stack on port; the tally."""
    langs = [l for l in LANGS if l in installed]
    tally = Tally()
    warm = {}
    for lang in langs:     # the class's boilerplate, built once
        warm[lang] = source(lang, "ok", "warm %s" % uuid.uuid4().hex[:8])
        one(port, tally, lang, "build", warm[lang], cases(1, random.Random(0)), "OK",
            "%s warm source's build" % lang)
    stop = threading.Event()
    procs = hogs(n_hogs)
    t0 = time.monotonic()
    try:
        ts = [threading.Thread(target=client, args=(port, k, langs, warm, stop, tally,
                                                    max_tests, seed), daemon=True)
              for k in range(clients)]
        for t in ts:
            t.start()
        while time.monotonic() - t0 < seconds or tally.tests < min_tests:
            time.sleep(0.5)
            if until_tests and tally.tests >= until_tests:
                break
            if time.monotonic() - t0 > max(seconds, 1) * 10:
                break          # a guard: min_tests out of reach
        stop.set()
        for t in ts:
            t.join()
    finally:
        stop.set()
        stop_hogs(procs)
        report(tally, langs, clients, n_hogs, time.monotonic() - t0, out)
    return tally


def report(tally, langs, clients, n_hogs, secs, out):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p("verdicts: %d clients, %d hogs, %.0f s: %d requests, %d tests, %d wrong answers; "
      "%d tests stopped by the request's budget" % (clients, n_hogs, secs, tally.requests,
                                                     tally.tests, len(tally.wrong), tally.budget))
    p("  requests by language and kind: %s" % ", ".join(
        "%s %s %d" % (l, k, n) for (l, k), n in sorted(tally.kinds.items())))
    kinds = {}
    for what, detail in tally.wrong:
        key = " ".join(detail.split(":", 1)[-1].split()[:2])
        kinds[key] = kinds.get(key, 0) + 1
    if kinds:
        p("  wrong answers by verdict and deadline: %s" % ", ".join(
            "%s %d" % kv for kv in sorted(kinds.items())))
    for what, detail in tally.wrong[:40]:
        p("  WRONG: %s: %s" % (what, detail))
    for lang in langs:
        pr = tally.pairs.get(lang)
        if not pr or not pr["warm"] or not pr["cold"]:
            continue
        for kind in ("warm", "cold"):
            xs = pr[kind]
            p("  %-6s %-4s %3d requests: request wall median %6.0f ms; test #0 median %5.0f ms, "
              "worst %5.0f ms; median test %5.0f ms" % (
                  lang, kind, len(xs), statistics.median(x[0] for x in xs),
                  statistics.median(x[1] for x in xs), max(x[1] for x in xs),
                  statistics.median(x[2] for x in xs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float,
                    default=float(os.environ.get("VERDICT_SECONDS", 240)))
    ap.add_argument("--min-tests", type=int, default=int(os.environ.get("VERDICT_MIN_TESTS", 0)))
    ap.add_argument("--until-tests", type=int, default=0,
                    help="stop once this many tests ran, however long --seconds is")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--hogs", type=int, default=2)
    ap.add_argument("--max-tests", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--port", type=int, help="a running stack's (default: one of its own)")
    args = ap.parse_args()
    if args.port:
        installed = gh.installed_langs(gh.request(args.port, "GET", "/health").json())
        tally = run(args.port, installed, args.clients, args.seconds, args.hogs,
                    args.max_tests, args.min_tests, args.seed, until_tests=args.until_tests)
        return 1 if tally.wrong else 0
    state = "%s-verdicts-%d" % (os.environ.get("GAOL_STATE_DIR", "/run/gaol"), os.getpid())
    # The request's budget well above what the load takes: the suite is
    # about the tests' verdicts (test_hostile_budget.py tests the budget).
    stack = gh.Stack("verdicts", uid_base=47001 + (os.getpid() % 300) * 20,
                     concurrency=args.clients, env={"GAOL_STATE_DIR": state,
                                                    "RUN_REQUEST_BUDGET": "600s"})
    try:
        stack.start()
        tally = run(stack.port, stack.installed(), args.clients, args.seconds, args.hogs,
                    args.max_tests, args.min_tests, args.seed, until_tests=args.until_tests)
    finally:
        try:
            stack.stop()
        finally:
            stack.kill_all()
            subprocess.run(["rm", "-rf", state, stack.workdir])
    return 1 if tally.wrong else 0


if __name__ == "__main__":
    sys.exit(main())
