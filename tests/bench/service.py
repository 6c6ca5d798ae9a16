#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""gaol's benchmark, the part that needs the real languages (called by
tests/bench/run.sh; standard library only).

One stack (nginx/stack.sh with langs/, started by gaol_helpers.Stack on
127.0.0.1 only) serves:

  languages  for every language GET /health lists as installed: the median
             latency of POST /run with tests/integration/examples/<slug>/sum
             (solution, checker, asserts), measured by the client, next to
             the same toolchain command run bare, outside any sandbox: the
             language directory copied, the request's files in its workdir,
             `make -s -n test` joined as the engine joins it, run with
             /bin/sh -c under env -i.  Service and bare runs alternate, so
             that a change of the (shared) machine's load hits both.
  pch        the C++ judge build of a <bits/stdc++.h> program, bare, as
             langs/cpp's `build` resolves it (-I pch/judge) and without the
             precompiled header (the same flags without -I pch/judge).
  evaluate   POST /evaluate: a C++ a+b program against 50 test cases, each
             request with a fresh source (a cold compile), then the same
             source again (the compile cache).

Writes <out>/service.json; tests/bench/report.py makes the tables.
Not a pass/fail test: a language that fails is reported as failed.
"""

import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
import gaol_helpers as gh  # noqa: E402

LANGS = os.path.join(REPO, "langs")
BARE_PATH = "/usr/bin:/bin"


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def median(xs):
    return statistics.median(xs) if xs else None


# ---------------------------------------------------------------- commands

def join_commands(out):
    """`make -s -n <target>`'s output as the one /bin/sh -c command the
    engine runs (core/lang/ join_commands): one simple line gets `exec`,
    several become `{ l1\\n} && { l2\\n}`."""
    lines, pos, n = [], 0, len(out)
    while pos < n:
        start = pos
        while True:
            e = out.find("\n", pos)
            e = n if e < 0 else e
            pos = e + 1 if e < n else e
            seg = out[start:e]
            tail = len(seg) - len(seg.rstrip("\\"))
            if pos < n and tail % 2 == 1:
                continue
            break
        if seg.strip():
            lines.append(seg)
    if len(lines) == 1:
        return ("exec " + lines[0]) if is_simple(lines[0]) else lines[0]
    return " && ".join("{ %s\n}" % l for l in lines)


KEYWORDS = {"if", "for", "while", "until", "case", "exec", "cd", "export", "set",
            "{", "!", "("}


def is_simple(line):
    if any(c in line for c in ";&|<>()`\n\\{}") or "$(" in line:
        return False
    first = line.lstrip(" \t").split(" ")[0].split("\t")[0]
    return bool(first) and "=" not in first and first not in KEYWORDS


def resolve(langdir, target):
    out = subprocess.run(["make", "-s", "-n", target], cwd=langdir, check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={"PATH": BARE_PATH, "LANG": "C"}).stdout.decode()
    return join_commands(out)


# In the sandbox /tmp is the run's own tmpfs; bare, the host's /tmp is shared
# with every other user of the machine and outlives a run (ghc's -outputdir
# would skip the next run's compile, php appends to its file).  Bare runs get
# a fresh directory of their own in its place.
TMP_WORD = re.compile(r"(?<![\w./-])/tmp(?=[/\s'\":;]|$)")


def private_tmp(cmd, tmp):
    return TMP_WORD.sub(tmp, cmd)


# ---------------------------------------------------------------- bare runs

class Bare:
    """Bare runs of one language: a pristine copy of its directory made once,
    and for each run a hard-linked copy of that (a run's writes are its own,
    as in the sandbox's overlay: a Go build cache, for one, does not warm up
    from run to run), a fresh HOME and /tmp, stdin /dev/null."""

    def __init__(self, root, slug):
        self.root = root
        self.slug = slug
        self.pristine = os.path.join(root, "pristine", slug)
        if not os.path.isdir(self.pristine):
            os.makedirs(os.path.dirname(self.pristine), exist_ok=True)
            subprocess.run(["cp", "-a", os.path.join(LANGS, slug), self.pristine], check=True)
        self.count = 0

    def run(self, cmd_template, workdir, files, timeout=120):
        """Runs once; returns (seconds, exit status, stdout, stderr, cpu
        seconds of the command's processes)."""
        self.count += 1
        run_root = os.path.join(self.root, "run-%s-%d" % (self.slug, self.count))
        d = os.path.join(run_root, "dir")
        home = os.path.join(run_root, "home")
        tmp = os.path.join(run_root, "tmp")
        os.makedirs(run_root)
        subprocess.run(["cp", "-al", self.pristine, d], check=True)
        os.mkdir(home)
        os.mkdir(tmp)
        wd = os.path.join(d, workdir)
        os.makedirs(wd, exist_ok=True)
        for name, text in files.items():
            path = os.path.join(wd, name)
            if os.path.lexists(path):
                os.unlink(path)        # a hard link: never write through it
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        cmd = private_tmp(cmd_template, tmp)
        # env -i PATH=/usr/bin:/bin HOME=<tmp>, plus the LANG every run gets
        env = {"PATH": BARE_PATH, "HOME": home, "LANG": "C.UTF-8"}
        try:
            with open(os.devnull, "rb") as null:
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.monotonic()
                p = subprocess.run(["/bin/sh", "-c", cmd], cwd=d, env=env, stdin=null,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=timeout)
                t = time.monotonic() - t0
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        finally:
            shutil.rmtree(run_root, ignore_errors=True)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        return t, p.returncode, p.stdout.decode("utf-8", "replace"), \
            p.stderr.decode("utf-8", "replace"), cpu


# ---------------------------------------------------------------- languages

def manifest(slug):
    with open(os.path.join(LANGS, slug, "lang.json")) as f:
        return json.load(f)


def read(path):
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return f.read()
    return None


def example(slug):
    """The a+b /run request of examples/<slug>/sum, its files by name, and
    the number of records it must print; None without an example."""
    d = os.path.join(gh.EXAMPLES, slug, "sum")
    if not os.path.isfile(os.path.join(d, "expect.json")):
        return None
    m = manifest(slug)
    payload = {"lang_slug": slug, "timeout": "60s",
               "solution_text": read(os.path.join(d, m["solution_file"]))}
    files = {m["solution_file"]: payload["solution_text"]}
    if m.get("checker_file"):
        checker = read(os.path.join(d, m["checker_file"]))
        if checker is not None:
            payload["checker_text"] = checker
            files[m["checker_file"]] = checker
    asserts = read(os.path.join(d, "asserts.json"))
    if asserts is not None:
        payload["asserts"] = asserts
        files["asserts.json"] = asserts
    expect = json.loads(read(os.path.join(d, "expect.json")))
    return payload, files, m.get("workdir", "check"), len(expect.get("records", []))


def answer_ok(exit_code, stdout, want_records):
    if exit_code != 0:
        return "exit code %r" % (exit_code,)
    got = len(gh.records(stdout))
    if got != want_records:
        return "%d records, expected %d" % (got, want_records)
    return None


def bench_language(port, bare_root, slug, runs):
    row = {"slug": slug}
    langdir = os.path.join(LANGS, slug)
    try:
        cmd = resolve(langdir, "test")
    except subprocess.CalledProcessError as e:
        err = e.stderr.decode(errors="replace").strip()
        row["skipped"] = ("no `test` target: /evaluate only (/run answers 400)"
                          if "No rule to make target" in err else "make -n test: " + err[:200])
        return row
    ex = example(slug)
    if ex is None:
        row["skipped"] = "no tests/integration/examples/%s/sum" % slug
        return row
    payload, files, workdir, want = ex
    row["command"] = cmd
    bare = Bare(bare_root, slug)
    svc, walls, cpus, bares, bare_cpus = [], [], [], [], []
    # A first run of each, not counted: the page cache, and a check that
    # both give Codebattle's answer.
    for i in range(runs + 1):
        r = gh.post_run(port, payload, timeout=180)
        if r.status != 200:
            row["failed"] = "service: HTTP %d %s" % (r.status, r.body[:200])
            return row
        doc = r.json()
        why = answer_ok(doc.get("exit_code"), doc.get("stdout", ""), want)
        if why:
            row["failed"] = "service: %s; stderr %r" % (why, doc.get("stderr", "")[-300:])
            return row
        t, rc, out, err, cpu = bare.run(cmd, workdir, files)
        why = answer_ok(rc, out, want)
        if why:
            row["failed"] = "bare: %s; stderr %r" % (why, err[-300:])
            return row
        if i == 0:
            continue
        svc.append(r.elapsed * 1000.0)
        walls.append(doc.get("wall_ms"))
        cpus.append(doc.get("cpu_ms"))
        bares.append(t * 1000.0)
        bare_cpus.append(cpu * 1000.0)
    row.update({
        "runs": runs,
        "service_ms": svc, "service_median_ms": median(svc),
        "run_wall_ms_median": median([w for w in walls if w is not None]),
        "run_cpu_ms_median": median([c for c in cpus if c is not None]),
        "bare_ms": bares, "bare_median_ms": median(bares),
        "bare_cpu_ms_median": median(bare_cpus),
    })
    row["ratio"] = row["service_median_ms"] / row["bare_median_ms"]
    row["overhead_ms"] = row["service_median_ms"] - row["bare_median_ms"]
    return row


# ---------------------------------------------------------------- C++ pch

PCH_SOURCE = ('#include <bits/stdc++.h>\n'
              'int main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n')


def bench_pch(bare_root, runs):
    langdir = os.path.join(LANGS, "cpp")
    with_pch = resolve(langdir, "build")
    out = {"runs": runs, "command_with": with_pch}
    if " -I pch/judge" not in with_pch:
        out["skipped"] = "langs/cpp build has no -I pch/judge: %s" % with_pch
        return out
    without = with_pch.replace(" -I pch/judge", "")
    out["command_without"] = without
    bare = Bare(bare_root, "cpp")
    files = {"solution.cpp": PCH_SOURCE}
    out["pch_built"] = os.path.isfile(os.path.join(bare.pristine, "pch", "judge", "bits",
                                                   "stdc++.h.gch"))
    # Whether g++ takes the header precompiled (-H marks it "!"), not timed.
    _, rc, _, err, _ = bare.run(with_pch.replace(" -o ", " -H -o ", 1), "check", files)
    out["pch_used"] = rc == 0 and any(l.startswith("! ") and l.endswith(".gch")
                                      for l in err.splitlines())
    w, wo = [], []
    for i in range(runs + 1):
        for cmd, acc in ((with_pch, w), (without, wo)):
            t, rc, _, err, _ = bare.run(cmd, "check", files)
            if rc != 0:
                out["failed"] = "%s: exit %d: %s" % (cmd, rc, err[-300:])
                return out
            if i > 0:
                acc.append(t * 1000.0)
    out.update({"with_ms": w, "without_ms": wo, "with_median_ms": median(w),
                "without_median_ms": median(wo)})
    out["speedup"] = out["without_median_ms"] / out["with_median_ms"]
    return out


# ---------------------------------------------------------------- /evaluate

EVAL_TEMPLATE = ('// gaol bench %s #%d\n#include <bits/stdc++.h>\n'
                 'int main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n')


def bench_evaluate(port, requests, tests):
    rnd = random.Random(7)
    cases = []
    for _ in range(tests):
        a, b = rnd.randint(-10**9, 10**9), rnd.randint(-10**9, 10**9)
        cases.append({"input": "%d %d\n" % (a, b), "expected_output": "%d\n" % (a + b)})
    nonce = "%x-%d" % (random.getrandbits(48), os.getpid())
    out = {"tests": tests, "requests": requests, "cold": [], "cached": []}

    def one(code, kind):
        body = {"code": code, "language": "cpp", "test_cases": cases}
        r = gh.request(port, "POST", "/evaluate", body, timeout=300)
        if r.status != 200:
            raise RuntimeError("HTTP %d %r" % (r.status, r.body[:300]))
        doc = r.json()
        comp, res = doc["compile"], doc["results"]
        bad = [x.get("verdict") for x in res if x.get("verdict") != "OK"]
        if not comp.get("ok") or bad or len(res) != tests:
            raise RuntimeError("compile %r, verdicts %r" % (comp, bad[:5]))
        if comp.get("cached") != (kind == "cached"):
            raise RuntimeError("%s request: compile.cached is %r" % (kind, comp.get("cached")))
        wall = r.elapsed * 1000.0
        compile_ms = comp.get("wall_ms") or 0 if kind == "cold" else 0
        cpu = median([x["cpu_ms"] for x in res if x.get("cpu_ms") is not None]) or 0
        out[kind].append({
            "request_ms": wall,
            "compile_wall_ms": comp.get("wall_ms"),
            "compile_cpu_ms": comp.get("cpu_ms"),
            "test_wall_ms_median": median([x["wall_ms"] for x in res]),
            "test_cpu_ms_median": cpu,
            "per_test_overhead_ms": (wall - compile_ms) / tests - cpu,
        })

    try:
        code = None
        for i in range(requests):        # a fresh source: a cold compile
            code = EVAL_TEMPLATE % (nonce, i)
            one(code, "cold")
        for i in range(requests):        # the same source: the compile cache
            one(code, "cached")
    except (RuntimeError, OSError, ValueError, KeyError) as e:
        out["failed"] = str(e)
        return out

    def med(kind, key):
        return median([x[key] for x in out[kind] if x[key] is not None])
    for kind in ("cold", "cached"):
        for key in ("request_ms", "compile_wall_ms", "compile_cpu_ms", "test_wall_ms_median",
                    "test_cpu_ms_median", "per_test_overhead_ms"):
            out["%s_%s" % (kind, key)] = med(kind, key)
    return out


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--build", required=True, help="directory of gaol-fcgi (a snapshot)")
    ap.add_argument("--uid-base", type=int, default=38001)
    ap.add_argument("--lang-runs", type=int, default=10)
    ap.add_argument("--pch-runs", type=int, default=5)
    ap.add_argument("--eval-requests", type=int, default=3)
    ap.add_argument("--eval-tests", type=int, default=50)
    ap.add_argument("--langs", default="", help="only these slugs (space separated)")
    args = ap.parse_args()

    result = {"started": time.time()}
    bare_root = tempfile.mkdtemp(prefix="gaol-bench-bare-")
    stack = gh.Stack("bench", uid_base=args.uid_base, concurrency=2,
                     env={"BUILD": args.build, "GAOL_LANGS_DIR": LANGS,
                          "RUN_TIMEOUT_MAX": "120s"})
    try:
        log("starting a stack with langs/ (RUN_CONCURRENCY=2, RUN_EVAL_PARALLEL default)")
        t0 = time.monotonic()
        stack.start()
        result["stack_start_s"] = time.monotonic() - t0
        health = stack.health()
        result["health"] = health
        installed = sorted(gh.installed_langs(health))
        if args.langs:
            installed = [s for s in installed if s in args.langs.split()]
        result["languages"] = []
        for slug in installed:
            log("language %s: %d runs through the service and bare" % (slug, args.lang_runs))
            t0 = time.monotonic()
            load1 = float(open("/proc/loadavg").read().split()[0])
            row = bench_language(stack.port, bare_root, slug, args.lang_runs)
            row["load1"] = load1
            row["seconds"] = time.monotonic() - t0
            if "failed" in row or "skipped" in row:
                log("  %s: %s" % (slug, row.get("failed") or row.get("skipped")))
            else:
                log("  %s: service %.1f ms, bare %.1f ms" % (slug, row["service_median_ms"],
                                                            row["bare_median_ms"]))
            result["languages"].append(row)
        if "cpp" in installed or not args.langs:
            log("C++ judge build with and without the precompiled header, %d runs each"
                % args.pch_runs)
            result["pch"] = bench_pch(bare_root, args.pch_runs)
            log("POST /evaluate, cpp, %d test cases: %d cold requests, %d cached"
                % (args.eval_tests, args.eval_requests, args.eval_requests))
            result["evaluate"] = bench_evaluate(stack.port, args.eval_requests, args.eval_tests)
            result["evaluate"]["eval_parallel"] = int(os.environ.get("RUN_EVAL_PARALLEL", "2"))
    finally:
        try:
            stack.stop()
        finally:
            stack.kill_all()
            shutil.rmtree(stack.workdir, ignore_errors=True)
            shutil.rmtree(bare_root, ignore_errors=True)
    result["finished"] = time.time()
    with open(os.path.join(args.out, "service.json"), "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
