#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Soak: the real stack (nginx/stack.sh, as `make run` starts it) under a
mixed load for SOAK_SECONDS, then what it grew.

    make soak                      # SOAK_SECONDS=120, RUN_CONCURRENCY=4
    make mini-soak                 # 20 s, part of `make test`

2 x RUN_CONCURRENCY clients send, without pause, a weighted mix of good runs
and judgings, failing programs, hostile programs (endless loop, memory hog,
fork bomb, output flood) and malformed requests (bad JSON, wrong types,
unknown paths and methods, oversized and compressed bodies), builds
that attack the compile cache (issue 11: sparse, big and many files, trees
130 and 1000 deep left by a Template Haskell build step, and fresh C builds
of 6 MB each that keep the cache evicting), and issue 11's attacks on the
service itself: a tiny request for a huge answer (checked against
RUN_ANSWER_MAX), a request whose tests sum past RUN_REQUEST_BUDGET (checked
to end at it) and a client that hangs up mid-run.  Each kind has its expected
statuses; 429 is expected of any kind (twice as many clients
as slots).  Afterwards, once the slots are idle, it compares with the
baseline taken after a warm-up:

  - no unexpected status, no 5xx, no connection error, no worker restart;
  - during the load (sampled every 0.25 s): no gaol-fcgi process's RSS
    above the largest at the baseline + WORKER_RSS_GROWTH_MAX_KB, and no
    process of a slot UID older than SLOT_HELD_MAX_S (the longest a request
    may ask, + 2 s: a client that hung up frees its slot at once);
  - RSS of the gaol-fcgi master and workers: growth at most 1 KB per
    request (RSS_PER_REQUEST_MAX), judged per request over the requests
    that got past nginx's slot limit (a 429 never reaches gaol-fcgi; a
    client backs off 50-200 ms after one) actually answered (a run shorter than 10,000 requests is judged on its own
    count and the 10,000-request figure is printed as an extrapolation; a
    fixed one-off growth makes a short run look worse, never better);
  - open fds of master and workers, the stack's serving processes (stack.sh,
    nginx, gaol-fcgi master and workers), the slot UIDs' processes, the
    host's mounts and the slot cgroups: back to baseline; at most one
    sandbox built ahead per idle worker, and no other process;
  - the compile cache (its own state directory, RUN_EVAL_CACHE_MAX=CACHE_MAX)
    never holds more than its cap: sampled every 0.2 s during the load, the
    committed entries' bytes on disk (builds in progress, each bounded by
    RUN_EVAL_BUILD_MAX, are printed beside it, not judged).

Prints the figures; exits 1 when a target is missed.  --no-rss skips the
RSS verdict (the mini-soak: too few requests to judge 1 KB each, and ASan's
quarantine grows RSS by design), still printing it.  --sanitized (the
SANITIZE=1 build) also leaves the largest process's RSS unjudged, printed:
ASan keeps freed memory in its quarantine (256 MB by default) and adds its
shadow and redzones, so what is measured is the sanitizer's, not gaol's
(CI judges it on the plain build's mini-soak, the same target run before).

Traffic goes only to 127.0.0.1.  The stack is stopped at the end, whatever
happens.
"""

import argparse
import glob
import json
import os
import random
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

import gaol_helpers as gh  # noqa: E402
import shutil  # noqa: E402
import uuid  # noqa: E402

RSS_PER_REQUEST_MAX = 1024          # bytes
OUTPUT_MAX = 65536
# Issue 11's bounds, small so that the attacks below reach them.
ANSWER_MAX = 2 << 20                # RUN_ANSWER_MAX
BUDGET_S = 4                        # RUN_REQUEST_BUDGET
RUN_TIMEOUT_MAX_S = 10              # the longest /run timeout in the mix
# How long a slot may hold a run: the longest a request may ask (its
# budget, or a /run timeout), plus 2 s for the build, the teardown and a
# busy machine.  A client that hangs up must free its slot long before.
SLOT_HELD_MAX_S = max(BUDGET_S, RUN_TIMEOUT_MAX_S) + 2
# What a gaol-fcgi process (master, worker, lane) may grow to above the
# largest at the baseline: a worker streams the answer, so it holds one
# test's result at a time (at most ANSWER_MAX of JSON and 3 x OUTPUT_MAX of
# raw output) and the lanes' results not yet written (at most ANSWER_MAX,
# read from a memfd); 4 x ANSWER_MAX + 16 MiB leaves room for the
# allocator.  Unbounded, a huge-answer request grew a worker by 6 x its
# output (here 10.8 MB).
WORKER_RSS_GROWTH_MAX_KB = (4 * ANSWER_MAX >> 10) + 16384
UID_BASE = 51001 + (os.getpid() % 400) * 25


def run(code, timeout=None, asserts=None):
    d = {"lang_slug": "python", "solution_text": code}
    if timeout:
        d["timeout"] = timeout
    if asserts:
        d["asserts"] = asserts
    return d


ADD = "def solution(a, b):\n    return a + b\n"
EVAL_OK = {"code": "print(int(input()) * 2)", "language": "python",
           "test_cases": [{"input": "4", "expected_output": "8"},
                          {"input": "5", "expected_output": "10"}]}
EVAL_WA = {"code": "print(int(input()) * 3)", "language": "python",
           "test_cases": [{"input": "4", "expected_output": "8"}], "time_limit_ms": 1000}
EVAL_TLE = {"code": "while True: pass", "language": "python",
            "test_cases": [{"input": "", "expected_output": "1"}], "time_limit_ms": 200}

ERRORS_4XX = {400, 404, 405, 411, 413, 415, 422}

CACHE_MAX = 32 << 20
BUILD_MAX = 8 << 20


def th_build(action):
    """/evaluate of a Haskell program whose build step runs action (IO)
    through Template Haskell; a fresh source each time (no cache hit)."""
    def body():
        code = ("{-# LANGUAGE TemplateHaskell #-}\nmodule Main where\n"
                "import Language.Haskell.TH\nimport System.IO\nimport System.Directory\n"
                "import Control.Monad\n$(runIO (do { %s ; return [] }))\n"
                "main :: IO ()\nmain = print 3\n-- %s\n" % (action, uuid.uuid4().hex))
        return {"code": code, "language": "haskell",
                "test_cases": [{"input": "", "expected_output": "3"}]}
    return body


def c_blob():
    """/evaluate of a fresh C program with 6 MB of initialised data: every
    one a new cache entry, so the cache keeps evicting."""
    code = ("char blob[6 << 20] = {1}; int main(){return blob[0] - 1;} /* %s */\n"
            % uuid.uuid4().hex)
    return {"code": code, "language": "c", "test_cases": [{"input": "", "expected_output": ""}]}


def th_deep(levels):
    return th_build('setCurrentDirectory "/sandbox" >> createDirectoryIfMissing True '
                    '(foldr1 (\\a b -> a ++ "/" ++ b) (replicate %d "d"))' % levels)


# Builds that attack the compile cache; kinds of a language that is not
# installed are left out (and said so).
CACHE_KINDS = [
    ("sparse build", 1, "POST", "/evaluate",
     th_build('forM_ [1..3 :: Int] (\\i -> withBinaryFile ("sparse" ++ show i) WriteMode '
              '(\\h -> hSetFileSize h (100 * 1024 * 1024)))'), None, {200}),
    ("big build", 1, "POST", "/evaluate",
     th_build('writeFile "big" (replicate (12 * 1024 * 1024) \'x\')'), None, {200}),
    ("many-file build", 1, "POST", "/evaluate",
     th_build('forM_ [1..12000 :: Int] (\\i -> writeFile ("f" ++ show i) "x")'), None, {200}),
    ("deep build 130", 1, "POST", "/evaluate", th_deep(130), None, {200}),
    ("deep build 1000", 1, "POST", "/evaluate", th_deep(1000), None, {200}),
    ("6 MB C build", 3, "POST", "/evaluate", c_blob, None, {200}),
]
CACHE_LANGS = {"sparse build": "haskell", "big build": "haskell", "many-file build": "haskell",
               "deep build 130": "haskell", "deep build 1000": "haskell", "6 MB C build": "c"}
# Issue 11's attacks.  A tiny request for a huge answer: 30 tests each
# writing 60 KB of NUL (six times that as JSON: 10.8 MB uncapped).
EVAL_HUGE = {"code": "open('output.txt', 'wb').write(b'\\0' * 60000)\n", "language": "python",
             "input_mode": "file", "test_cases": [{"input": "", "expected_output": "x"}] * 30}
# A request whose tests sum past the budget: 6 x 3 s of sleep on 2 lanes.
EVAL_LONG = {"code": "import time\ntime.sleep(3)\nprint(1)\n", "language": "python",
             "time_limit_ms": 1000, "test_cases": [{"input": "", "expected_output": "1"}] * 6}
# A client that leaves while its tests sleep for a minute.
EVAL_HANG = {"code": "import time\ntime.sleep(60)\n", "language": "python",
             "time_limit_ms": 5000, "test_cases": [{"input": "", "expected_output": "1"}] * 4}


def check_huge(r, elapsed):
    if len(r.body) > ANSWER_MAX + 30 * 1024:
        return "answer of %d bytes over RUN_ANSWER_MAX %d" % (len(r.body), ANSWER_MAX)
    # On a busy machine the budget may cut the last tests (never run: "").
    ran = [x for x in r.json()["results"] if x["deadline"] != "budget"]
    if not ran or not all(x["actual_truncated"] for x in ran):
        return "an actual not marked truncated"
    return None


def check_long(r, elapsed):
    if elapsed > BUDGET_S + 2.5:
        return "took %.1f s, budget %d s" % (elapsed, BUDGET_S)
    if r.json()["results"][-1]["deadline"] != "budget":
        return "the last test was not cut by the budget"
    return None


CHECKS = {"huge answer": check_huge, "long request": check_long}

# (name, weight, method, path, body, headers, expected statuses)
KINDS = [
    ("good run", 30, "POST", "/run", run(ADD, asserts='{"arguments": [[1, 2], [3, 4]]}'),
     None, {200}),
    ("good evaluate", 10, "POST", "/evaluate", EVAL_OK, None, {200}),
    ("health", 5, "GET", "/health", None, None, {200}),
    ("failing run", 8, "POST", "/run", run("raise SystemExit(3)"), None, {200}),
    ("exception run", 5, "POST", "/run", run("def solution(a, b):\n    return a / 0\n",
                                             asserts='{"arguments": [[1, 0]]}'), None, {200}),
    ("wrong answer", 5, "POST", "/evaluate", EVAL_WA, None, {200}),
    ("time limit", 3, "POST", "/evaluate", EVAL_TLE, None, {200}),
    ("endless loop", 3, "POST", "/run", run("while True:\n    pass\n", timeout="1s"), None, {200}),
    ("memory hog", 3, "POST", "/run",
     run("b = []\nwhile True:\n    b.append(bytearray(16 << 20))\n", timeout="10s"), None, {200}),
    ("fork bomb", 2, "POST", "/run",
     run("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n"
         "        pass\n", timeout="2s"), None, {200}),
    ("output flood", 3, "POST", "/run",
     run("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n", timeout="5s"),
     None, {413}),
    ("stderr and NULs", 3, "POST", "/run",
     run("import os\nos.write(2, b'\\xff\\x00' * 1000)\nos.write(1, b'\\xc0\\xaf')\n"),
     None, {200}),
    ("bad JSON", 4, "POST", "/run", '{"lang_slug": "pyth', None, {400}),
    ("bad JSON /evaluate", 3, "POST", "/evaluate", '{"code": [', None, {422}),
    ("wrong types", 3, "POST", "/run", {"lang_slug": 5, "solution_text": []}, None, {400}),
    ("unknown language", 2, "POST", "/run", run("x") | {"lang_slug": "cobol"}, None, {400}),
    ("bad timeout", 2, "POST", "/run", run("x", timeout="1h"), None, {400}),
    ("invalid UTF-8", 2, "POST", "/run",
     b'{"lang_slug": "python", "solution_text": "\xc0\xaf"}', None, {400}),
    # CompiCode's executor answers an empty test list 200 {"results": []}.
    ("no tests", 2, "POST", "/evaluate", dict(EVAL_OK, test_cases=[]), None, {200}),
    ("unknown path", 2, "POST", "/nope", "{}", None, {404}),
    ("wrong method", 2, "GET", "/run", None, None, {405}),
    ("gzip", 2, "POST", "/run", json.dumps(run(ADD)), {"Content-Encoding": "gzip"}, {415}),
    ("multipart", 1, "POST", "/evaluate", "--x--", {"Content-Type": "multipart/form-data"},
     {415}),
    ("too large", 1, "POST", "/run", b'{"a": "' + b"x" * (1 << 20) + b'"}', None, {413}),
    ("huge answer", 2, "POST", "/evaluate", EVAL_HUGE, None, {200}),
    ("long request", 1, "POST", "/evaluate", EVAL_LONG, None, {200}),
    ("client hangs up", 2, "HANGUP", "/evaluate", EVAL_HANG, None, {"hung up"}),
] + CACHE_KINDS


def hang_up(port, body, after_s):
    """POST body, then close the connection after after_s without reading
    the answer: a client that gives up."""
    import socket
    data = json.dumps(body).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"POST /evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nContent-Length: %d\r\n\r\n" % len(data) + data)
        time.sleep(after_s)
    return "hung up"


# ---------------------------------------------------------------- measures

def rss_kb(pid):
    for line in (gh._read("/proc/%d/status" % pid) or "").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fd_count(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return 0


def cache_bytes(cache_dir):
    """(committed entries, builds in progress): bytes on disk under the
    cache directory, links not followed."""
    committed = progress = 0
    try:
        names = os.listdir(cache_dir)
    except OSError:
        return 0, 0
    for name in names:
        total = 0
        for root, dirs, files in os.walk(os.path.join(cache_dir, name)):
            for n in dirs + files:
                try:
                    total += os.lstat(os.path.join(root, n)).st_blocks * 512
                except OSError:
                    pass
        try:
            total += os.lstat(os.path.join(cache_dir, name)).st_blocks * 512
        except OSError:
            pass
        if name.startswith("."):
            progress += total
        else:
            committed += total
    return committed, progress


class CacheWatch(threading.Thread):
    """Samples the cache's size while the load runs."""

    def __init__(self, cache_dir):
        super().__init__(daemon=True)
        self.cache_dir = cache_dir
        self.max_committed = self.max_progress = self.samples = 0
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            c, p = cache_bytes(self.cache_dir)
            self.max_committed = max(self.max_committed, c)
            self.max_progress = max(self.max_progress, p)
            self.samples += 1
            self.stop.wait(0.2)


def slot_cgroups(lo, hi):
    dirs = []
    for uid in range(lo, hi):
        for pattern in ("/sys/fs/cgroup/**/gaol/uid%d" % uid, "/sys/fs/cgroup/**/gaol/uid%d-*" % uid):
            dirs.extend(glob.glob(pattern, recursive=True))
    return sorted(set(dirs))


def classify(stack, master, workers):
    """The stack's processes as (serving, sandboxes, others): serving is
    stack.sh, nginx, the gaol-fcgi master, its courier and workers; sandboxes are what
    descends from a live worker once it is idle (the sandbox each worker
    builds ahead of its next request); others are anything else (stack.sh's
    own short `sleep`s excepted), which should not exist."""
    procs = stack.processes()
    workers = set(workers)
    serving, sandboxes, others = [], [], []
    for pid, (ppid, comm, _, _) in procs.items():
        if pid == master or pid in workers or comm in ("stack.sh", "nginx") or \
                (comm == "gaol-courier" and ppid == master):
            serving.append(pid)     # the courier: the master's callback sender
            continue
        p = ppid
        while p in procs and p not in workers:
            p = procs[p][0]
        if p in workers:
            sandboxes.append(pid)
        elif not (comm == "sleep" and procs.get(ppid, (0, ""))[1] == "stack.sh"):
            others.append((pid, ppid, comm))
    return serving, sandboxes, others


def snapshot(stack):
    master = stack.fcgi_master()
    workers = stack.fcgi_workers()
    gaol = [master] + workers
    procs = stack.processes()
    serving, sandboxes, others = classify(stack, master, workers)
    return {
        "master": master,
        "workers": workers,
        "rss_kb": sum(rss_kb(p) for p in gaol),
        "rss_master_kb": rss_kb(master),
        "rss_workers_kb": sum(rss_kb(p) for p in workers),
        "fds": sum(fd_count(p) for p in gaol),
        "nginx_fds": sum(fd_count(p) for p, v in procs.items() if v[1] == "nginx"),
        "processes": len(serving),
        "sandboxes_ahead": len(sandboxes),
        "other_processes": len(others),
        "others": others,
        "slot_processes": len(gh.processes_of_uids(stack.uid_base,
                                                   stack.uid_base + stack.concurrency)),
        "mounts": len(gh.mountinfo()),
        "cgroups": len(slot_cgroups(stack.uid_base, stack.uid_base + stack.concurrency)),
    }


def settle(stack, timeout=30):
    """Waits until no run is left in any slot."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not gh.processes_of_uids(stack.uid_base, stack.uid_base + stack.concurrency):
            break
        time.sleep(0.2)
    time.sleep(1.0)


def age_s(pid):
    """Seconds since pid started (/proc/pid/stat's starttime)."""
    stat = gh._read("/proc/%d/stat" % pid) or ""
    try:
        start = int(stat.rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        return float(gh._read("/proc/uptime").split()[0]) - start
    except (IndexError, ValueError, AttributeError):
        return 0.0


class Monitor:
    """Samples, every 0.25 s during the load, the largest RSS of any
    gaol-fcgi process (master, workers, their lanes) and the oldest process
    of a slot UID: how long a slot has held one run."""

    def __init__(self, stack):
        self.stack = stack
        self.rss_max_kb = 0
        self.rss_max_at = None
        self.held_max_s = 0.0
        self.held_max_by = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def sample(self):
        for pid, (_, comm, uid, _) in self.stack.processes().items():
            if comm == "gaol-fcgi" and uid == 0 and rss_kb(pid) > self.rss_max_kb:
                self.rss_max_kb, self.rss_max_at = rss_kb(pid), pid
        lo, hi = self.stack.uid_base, self.stack.uid_base + self.stack.concurrency
        for pid, v in gh.processes_of_uids(lo, hi).items():
            a = age_s(pid)
            if a > self.held_max_s:
                self.held_max_s, self.held_max_by = a, (pid, v)

    def loop(self):
        while not self.stop.wait(0.25):
            self.sample()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


# ---------------------------------------------------------------- load

class Load:
    def __init__(self, stack, clients, seconds, seed):
        self.stack = stack
        self.clients = clients
        self.deadline = time.monotonic() + seconds
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.by_kind = {}        # name -> {status: count}
        self.unexpected = []     # (name, status or error, body excerpt)
        self.n = 0
        self.weights = [k[1] for k in KINDS]

    def pick(self):
        with self.lock:
            return self.rng.choices(KINDS, self.weights)[0]

    def one(self, kind):
        name, _, method, path, body, headers, expected = kind
        if callable(body):
            body = body()
        try:
            if method == "HANGUP":
                return self.note(name, expected, hang_up(self.stack.port, body, 1.0), "")
            t0 = time.monotonic()
            r = gh.request(self.stack.port, method, path, body, headers=headers, timeout=120)
            status, excerpt = r.status, r.body[:200]
            if status >= 400:
                gh.assert_json_error(r, status)
            why = CHECKS[name](r, time.monotonic() - t0) if status == 200 and name in CHECKS else None
            if why:
                status, excerpt = "failed check", why
        except AssertionError as e:
            status, excerpt = "non-JSON %s" % r.status, str(e)[:200]
        except Exception as e:  # noqa: BLE001 - a connection error is a finding
            status, excerpt = type(e).__name__, str(e)[:200]
        return self.note(name, expected, status, excerpt)

    def note(self, name, expected, status, excerpt):
        with self.lock:
            self.n += 1
            counts = self.by_kind.setdefault(name, {})
            counts[status] = counts.get(status, 0) + 1
            if status not in expected and status != 429:
                self.unexpected.append((name, status, excerpt))
        return status

    def client(self):
        rng = random.Random(self.rng.random())
        while time.monotonic() < self.deadline:
            if self.one(self.pick()) == 429:
                # As a client would: back off, then try again.
                time.sleep(rng.uniform(0.05, 0.2))

    def run(self):
        threads = [threading.Thread(target=self.client, daemon=True) for _ in range(self.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def warm_up(stack):
    """Every kind once, then a few good ones: one-off growth (lazily built
    tables, the compile cache's first entries, allocator arenas) happens
    before the baseline."""
    load = Load(stack, 1, 0, 0)
    for kind in KINDS:
        load.one(kind)
    for _ in range(3):
        for kind in KINDS[:3]:
            load.one(kind)
    return load


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=float(os.environ.get("SOAK_SECONDS", 120)))
    ap.add_argument("--concurrency", type=int,
                    default=int(os.environ.get("RUN_CONCURRENCY", 4)))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("SOAK_SEED", 1)))
    ap.add_argument("--no-rss", action="store_true", help="report RSS growth, do not judge it")
    ap.add_argument("--sanitized", action="store_true",
                    help="an ASan build: report the largest RSS, do not judge it")
    args = ap.parse_args()

    # A state directory of its own, so that its compile cache is the
    # soak's alone to measure; removed at the end.
    state = "%s-soak-%d" % (os.environ.get("GAOL_STATE_DIR", "/run/gaol"), os.getpid())
    cache_dir = os.path.join(state, "cache")
    stack = gh.Stack("soak", uid_base=UID_BASE, concurrency=args.concurrency,
                     env={"RUN_OUTPUT_MAX": str(OUTPUT_MAX), "GAOL_STATE_DIR": state,
                          "RUN_EVAL_CACHE_MAX": str(CACHE_MAX),
                          "RUN_EVAL_BUILD_MAX": str(BUILD_MAX),
                          "RUN_ANSWER_MAX": str(ANSWER_MAX),
                          "RUN_REQUEST_BUDGET": "%ds" % BUDGET_S})
    missed = []
    watch = CacheWatch(cache_dir)
    try:
        stack.start()
        installed = stack.installed()
        for kind in list(KINDS):
            lang = CACHE_LANGS.get(kind[0])
            if lang and lang not in installed:
                print("soak: %s left out: %s is not installed" % (kind[0], lang))
                KINDS.remove(kind)
        warm = warm_up(stack)
        if warm.unexpected:
            print("soak: warm-up answers not as expected: %r" % warm.unexpected)
        settle(stack)
        base = snapshot(stack)
        base_rss_max_kb = max(rss_kb(p) for p in [base["master"]] + base["workers"])
        t0 = time.monotonic()
        load = Load(stack, 2 * args.concurrency, args.seconds, args.seed)
        watch.start()
        with Monitor(stack) as mon:
            load.run()
        elapsed = time.monotonic() - t0
        settle(stack)
        watch.stop.set()
        watch.join()
        end = snapshot(stack)
        cache_end = cache_bytes(cache_dir)
        restarts = stack.log_text().count("restarting in")
    finally:
        log = stack.log_text()
        try:
            stack.stop_clean()
        except AssertionError as e:
            missed.append("the stack did not stop cleanly: %s" % str(e)[:2000])
        shutil.rmtree(state, ignore_errors=True)

    # ---- figures
    statuses = {}
    for counts in load.by_kind.values():
        for st, c in counts.items():
            statuses[st] = statuses.get(st, 0) + c
    fivexx = {st: c for st, c in statuses.items() if isinstance(st, int) and st >= 500}
    # RSS is judged per request that got past nginx's slot limit: a 429
    # never reaches gaol-fcgi and would only dilute the figure.
    n = load.n - statuses.get(429, 0)
    growth_b = (end["rss_kb"] - base["rss_kb"]) * 1024
    per_req = growth_b / n if n else 0.0

    print("soak: %d requests in %.0f s (%.1f/s) from %d clients, RUN_CONCURRENCY=%d, seed %d; "
          "%d past the slot limit (not 429)"
          % (load.n, elapsed, load.n / elapsed if elapsed else 0, 2 * args.concurrency,
             args.concurrency, args.seed, n))
    print("soak: by status: %s" % ", ".join("%s: %d" % (k, v) for k, v in
                                            sorted(statuses.items(), key=lambda kv: str(kv[0]))))
    print("soak: by kind:")
    for kind in KINDS:
        counts = load.by_kind.get(kind[0], {})
        print("  %-20s %s" % (kind[0], ", ".join("%s: %d" % (k, v) for k, v in
                                                  sorted(counts.items(), key=lambda kv: str(kv[0])))))
    print("soak: 5xx: %s" % (fivexx or "none"))
    print("soak: unexpected answers: %d%s" % (len(load.unexpected),
                                              "".join("\n  %r" % (u,) for u in load.unexpected[:20])))
    print("soak: worker restarts: %d" % restarts)
    print("soak: RSS master+workers: %d kB -> %d kB (master %d -> %d, workers %d -> %d): "
          "%+d bytes, %+.1f bytes/request (not 429); over 10,000 requests %s%+.0f kB"
          % (base["rss_kb"], end["rss_kb"], base["rss_master_kb"], end["rss_master_kb"],
             base["rss_workers_kb"], end["rss_workers_kb"], growth_b, per_req,
             "" if n >= 10000 else "(extrapolated) ", per_req * 10000 / 1024))
    print("soak: largest gaol-fcgi RSS during the load: %d kB (pid %s; %d kB at the baseline, "
          "bound +%d kB)" % (mon.rss_max_kb, mon.rss_max_at, base_rss_max_kb,
                             WORKER_RSS_GROWTH_MAX_KB))
    print("soak: longest a slot held one run: %.1f s (%r; bound %d s)"
          % (mon.held_max_s, mon.held_max_by, SLOT_HELD_MAX_S))
    for key in ("fds", "nginx_fds", "processes", "sandboxes_ahead", "other_processes",
                "slot_processes", "mounts", "cgroups"):
        print("soak: %-16s %d -> %d" % (key, base[key], end[key]))

    print("soak: compile cache: at most %d bytes committed (cap %d) in %d samples; "
          "builds in progress at most %d bytes; at the end %d committed, %d in progress"
          % (watch.max_committed, CACHE_MAX, watch.samples, watch.max_progress,
             cache_end[0], cache_end[1]))

    # ---- targets
    if watch.max_committed > CACHE_MAX or cache_end[0] > CACHE_MAX:
        missed.append("the compile cache passed its cap: %d bytes (cap %d)"
                      % (max(watch.max_committed, cache_end[0]), CACHE_MAX))
    if cache_end[1]:
        missed.append("builds left half-done in the cache: %d bytes" % cache_end[1])
    if fivexx:
        missed.append("5xx answers: %r" % fivexx)
    if load.unexpected:
        missed.append("%d unexpected answers" % len(load.unexpected))
    if restarts:
        missed.append("%d worker restarts (a worker died)" % restarts)
    if end["workers"] != base["workers"] or end["master"] != base["master"]:
        missed.append("the pool's processes changed: %r -> %r"
                      % ((base["master"], base["workers"]), (end["master"], end["workers"])))
    if not args.no_rss and per_req > RSS_PER_REQUEST_MAX:
        missed.append("RSS grew %.0f bytes per request (target %d)" % (per_req, RSS_PER_REQUEST_MAX))
    for key in ("fds", "processes", "slot_processes", "mounts", "cgroups"):
        if end[key] != base[key]:
            missed.append("%s not back to baseline: %d -> %d" % (key, base[key], end[key]))
    if end["sandboxes_ahead"] > args.concurrency:
        missed.append("%d sandboxes held by %d idle workers (one each at most)"
                      % (end["sandboxes_ahead"], args.concurrency))
    if end["others"]:
        missed.append("processes that are neither the stack's nor a worker's: %r"
                      % end["others"])
    if n == 0:
        missed.append("no request was answered")
    if not args.sanitized and mon.rss_max_kb > base_rss_max_kb + WORKER_RSS_GROWTH_MAX_KB:
        missed.append("a gaol-fcgi process reached %d kB RSS (bound %d kB)"
                      % (mon.rss_max_kb, base_rss_max_kb + WORKER_RSS_GROWTH_MAX_KB))
    if mon.held_max_s > SLOT_HELD_MAX_S:
        missed.append("a slot held one run %.1f s (bound %d s): %r"
                      % (mon.held_max_s, SLOT_HELD_MAX_S, mon.held_max_by))

    if missed:
        print("soak: FAILED:\n  " + "\n  ".join(missed))
        print("soak: stack log (tail):\n" + log[-3000:])
        return 1
    print("soak: all targets met%s%s" % (" (RSS growth not judged: --no-rss)" if args.no_rss else "",
                                         " (largest RSS not judged: --sanitized)"
                                         if args.sanitized else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
