#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The tables of `make bench`, from what tests/bench/run.sh and
tests/bench/service.py left in <out>: printed, written to <out>/results.txt
and, with --doc, as Markdown (docs/bench.md).  Medians and ratios only; a
target is reported as met or not, never enforced."""

import argparse
import json
import os
import re
import subprocess
import sys

NAN = float("nan")


def load(out, name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f) if name.endswith(".json") else f.read().strip()


def hf(out, name):
    """hyperfine's median (ms) and number of runs; (nan, 0) when missing."""
    doc = load(out, name + ".json")
    if not doc:
        return NAN, 0
    r = doc["results"][0]
    return r["median"] * 1000.0, len(r["times"])


def repeat(out, gap):
    text = load(out, "repeat-gap%d.txt" % gap) or ""
    m = re.search(r"(\d+) runs: median ([\d.]+) ms, p10 ([\d.]+) ms, p90 ([\d.]+) ms"
                  r"(?:, cycle ([\d.]+) ms)?", text)
    if not m:
        return None
    return {"runs": int(m.group(1)), "median": float(m.group(2)),
            "p10": float(m.group(3)), "p90": float(m.group(4)),
            "cycle": float(m.group(5)) if m.group(5) else None}


def wrk(out, c):
    text = load(out, "wrk-c%d.txt" % c) or ""
    unit = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}
    m = re.search(r"^\s*50%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M)
    p50 = float(m.group(1)) * unit[m.group(2)] if m else NAN
    m = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    rps = float(m.group(1)) if m else NAN
    m = re.search(r"(\d+) requests in", text)
    total = int(m.group(1)) if m else 0
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    bad = int(m.group(1)) if m else 0
    return p50, rps, total, bad


def first_line(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=10)
        return p.stdout.decode(errors="replace").strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "?"


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def f(x, digits=3):
    if x is None or x != x:
        return "n/a"
    return "%.*f" % (digits, x)


class Table:
    def __init__(self, head, align):
        self.head, self.align, self.rows = head, align, []

    def add(self, *cells):
        self.rows.append([str(c) for c in cells])

    def text(self):
        w = [max(len(r[i]) for r in [self.head] + self.rows) for i in range(len(self.head))]

        def line(r):
            return "  ".join(c.rjust(w[i]) if self.align[i] == "r" else c.ljust(w[i])
                             for i, c in enumerate(r)).rstrip()
        return "\n".join([line(self.head), line(["-" * x for x in w])] +
                         [line(r) for r in self.rows])

    def md(self):
        out = ["| " + " | ".join(self.head) + " |",
               "|" + "|".join("---:" if a == "r" else "---" for a in self.align) + "|"]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in self.rows]
        return "\n".join(out)


LANGS_BEGIN = "<!-- bench-langs -->"
LANGS_END = "<!-- /bench-langs -->"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--doc")
    args = ap.parse_args()
    out = args.out

    svc = load(out, "service.json") or {}
    date = load(out, "date.txt") or "?"
    load_before = load(out, "load-before.txt") or "?"
    load_after = load(out, "load-after.txt") or "?"
    try:
        took = "%d s" % (int(load(out, "t1.txt")) - int(load(out, "t0.txt")))
    except (TypeError, ValueError):
        took = "?"
    source = {}
    for line in (load(out, "source.txt") or "").splitlines():
        k, _, v = line.partition(" ")
        source[k] = v.strip()
    machine = {
        "nproc": os.cpu_count(),
        "kernel": os.uname().release,
        "cpu": cpu_model(),
        "mem": next((l.split(":")[1].strip() for l in open("/proc/meminfo")
                     if l.startswith("MemTotal")), "?"),
    }
    tools = {
        "hyperfine": first_line(["hyperfine", "--version"]),
        "wrk": first_line(["wrk", "-v"]).split(" [")[0],
        "bwrap": first_line(["bwrap", "--version"]),
        "g++": first_line(["/usr/bin/g++", "--version"]),
    }

    # ------------------------------------------------------------ 1. sandbox
    bare, nb = hf(out, "bare")
    bare_exec, nbe = hf(out, "bare-exec")
    whole, nw = hf(out, "gaol-run")
    start, ns = hf(out, "gaol-run-startup")
    bw, nbw = hf(out, "bwrap")
    gap = {g: repeat(out, g) for g in (0, 5)}
    t1 = Table(["what", "median ms", "notes"], "lrl")
    t1.add("bare /bin/sh -c true", f(bare), "hyperfine -N, %d runs (like for like)" % nb)
    t1.add("bare /bin/sh -c 'exec true'", f(bare_exec),
           "hyperfine -N, %d runs (one execve more: a program's cost)" % nbe)
    for g, label in ((0, "saturated worker"), (5, "between requests")):
        r = gap[g]
        if r:
            t1.add("gaol-run in-process, --gap %d" % g, f(r["median"]),
                   "%s: --repeat %d, p10 %s, p90 %s, cycle %s" % (
                       label, r["runs"], f(r["p10"]), f(r["p90"]),
                       f(r["cycle"]) if r.get("cycle") else "n/a"))
        else:
            t1.add("gaol-run in-process, --gap %d" % g, "n/a", "no result")
    t1.add("gaol-run whole process", f(whole), "hyperfine, %d runs, start-up included" % nw)
    t1.add("gaol-run start-up only (400)", f(start), "hyperfine, %d runs, no sandbox" % ns)
    t1.add("bwrap --unshare-all sh -c true", f(bw), "hyperfine -N, %d runs" % nbw)
    for c in (1, 2):
        p50, rps, total, bad = wrk(out, c)
        t1.add("HTTP POST /run, wrk -c%d" % c, f(p50),
               "%.1f req/s, %d requests, %d non-2xx" % (rps, total, bad))
    d1 = []
    for g in (0, 5):
        r = gap[g]
        if r:
            over = r["median"] - bare
            d1.append("sandbox overhead, --gap %d: in-process %s - bare sh -c true %s = %s ms "
                      "(target <= 1 ms: %s)" % (g, f(r["median"]), f(bare), f(over),
                                                "met" if over <= 1.0 else "not met"))
    for g in (0, 5):
        if gap[g]:
            d1.append("ratio in-process (--gap %d) / bare sh -c true  %s"
                      % (g, f(gap[g]["median"] / bare, 2)))
    if gap[0] and gap[0].get("cycle"):
        d1.append("one worker saturated (--gap 0): a run every %s ms (%s runs/s), the run "
                  "and the worker's work after it (reaping, the next network namespace and "
                  "sandbox)" % (f(gap[0]["cycle"]), f(1000.0 / gap[0]["cycle"], 0)))
    d1.append("ratio gaol-run whole process / bare sh -c true  %s" % f(whole / bare, 2))
    d1.append("ratio bwrap / bare sh -c true                   %s" % f(bw / bare, 2))
    d1.append("gaol-run whole process - start-up only - bare sh -c true = %s ms"
              % f(whole - start - bare))

    # ------------------------------------------------------------ 2. languages
    t2 = Table(["language", "service /run ms", "bare ms", "service / bare",
                "service - bare ms", "in-sandbox wall / cpu ms", "bare cpu ms", "load"], "lrrrrrrr")
    notes2 = []
    langs = svc.get("languages", [])
    runs2 = None
    for row in langs:
        if "service_median_ms" in row:
            runs2 = row["runs"]
            t2.add(row["slug"], f(row["service_median_ms"], 1), f(row["bare_median_ms"], 1),
                   f(row["ratio"], 2), f(row["overhead_ms"], 1),
                   "%s / %s" % (f(row["run_wall_ms_median"], 0), f(row["run_cpu_ms_median"], 0)),
                   f(row.get("bare_cpu_ms_median"), 0), f(row.get("load1"), 1))
        else:
            why = row.get("failed") or row.get("skipped")
            t2.add(row["slug"], "—", "—", "—", "—", "—", "—", "—")
            notes2.append("%s: %s" % (row["slug"], why))
    health = svc.get("health", {})
    if health.get("not_installed"):
        notes2.append("not installed (GET /health): %s" % " ".join(health["not_installed"]))
    pch = svc.get("pch") or {}
    t2b = Table(["C++ judge build of a <bits/stdc++.h> a+b", "median ms", "notes"], "lrl")
    if "with_median_ms" in pch:
        t2b.add("with the precompiled header (-I pch/judge)", f(pch["with_median_ms"], 1),
                "%d runs; pch built: %s, used (g++ -H): %s"
                % (pch["runs"], "yes" if pch.get("pch_built") else "no",
                   "yes" if pch.get("pch_used") else "no"))
        t2b.add("without (same flags, no -I pch/judge)", f(pch["without_median_ms"], 1),
                "%d runs" % pch["runs"])
        d2 = ["speed-up without / with  %sx   (target >= 3x: %s)"
              % (f(pch["speedup"], 2), "met" if pch["speedup"] >= 3 else "not met")]
    else:
        d2 = ["C++ precompiled header: %s" % (pch.get("failed") or pch.get("skipped") or "not measured")]

    # ------------------------------------------------------------ 3. /evaluate
    ev = svc.get("evaluate") or {}
    t3 = Table(["POST /evaluate, cpp a+b, %s test cases" % ev.get("tests", "?"), "cold compile",
                "cached compile"], "lrr")
    d3 = []
    if "cold_request_ms" in ev:
        def both(key, digits=1):
            return f(ev.get("cold_" + key), digits), f(ev.get("cached_" + key), digits)
        t3.add("request wall, median ms (client)", *both("request_ms"))
        t3.add("compile wall_ms, median", f(ev.get("cold_compile_wall_ms"), 0), "0 (cache hit)")
        t3.add("compile cpu_ms, median", f(ev.get("cold_compile_cpu_ms"), 0), "—")
        t3.add("per-test overhead ms", *both("per_test_overhead_ms", 2))
        t3.add("program cpu_ms per test, median", *both("test_cpu_ms_median", 0))
        t3.add("test wall_ms per test, median", *both("test_wall_ms_median", 0))
        d3.append("per-test overhead = (request wall - compile wall) / %d - the program's median "
                  "cpu_ms per test; RUN_EVAL_PARALLEL=%s (tests judged %s at a time)"
                  % (ev["tests"], ev.get("eval_parallel"), ev.get("eval_parallel")))
        d3.append("cold compile wall / cached request's compile: %s ms / 0 ms (a cached "
                  "request costs %s ms less)" % (f(ev.get("cold_compile_wall_ms"), 0),
                                                 f(ev["cold_request_ms"] - ev["cached_request_ms"], 1)))
    else:
        d3.append("/evaluate: %s" % (ev.get("failed") or "not measured"))

    # ------------------------------------------------------------ text
    head = ("gaol benchmark, %s, took %s; %d cores (%s), kernel %s; load average %s at the "
            "start, %s at the end (a shared machine)"
            % (date, took, machine["nproc"], machine["cpu"], machine["kernel"], load_before,
               load_after))
    text = [head, "",
            "1. sandbox cost, language \"true\" (test command: true)", t1.text(), ""]
    text += d1 + ["", "2. /run a+b per language (tests/integration/examples/<slug>/sum), "
                  "median of %s runs each" % (runs2 or "?"), t2.text()]
    text += ["  " + n for n in notes2] + ["", t2b.text()] + d2
    text += ["", "3. judging", t3.text() if t3.rows else ""] + d3
    text = "\n".join(text) + "\n"
    sys.stdout.write(text)
    with open(os.path.join(out, "results.txt"), "w") as fh:
        fh.write(text)

    if not args.doc:
        return 0
    # ------------------------------------------------------------ Markdown
    reps = gap[0]["runs"] if gap[0] else "?"
    md = ["# gaol benchmark", "",
          "Figures of one `make bench` run (`BUILD=build tests/bench/run.sh`), all measured in "
          "that one run so that the ratios compare like with like.  Medians, never pass/fail: "
          "a target is said to be met or not, nothing fails.  Regenerated by every `make bench`; "
          "the raw measurements stay in `build/bench/`.", "",
          "## Machine", "",
          "- date: %s; the whole `tests/bench/run.sh` took %s" % (date, took),
          "- %d cores: %s, %s memory" % (machine["nproc"], machine["cpu"], machine["mem"]),
          "- kernel %s" % machine["kernel"],
          "- binaries measured (copies taken at the start; sha256 prefix, build time): gaol-run %s, "
          "gaol-fcgi %s; git HEAD "
          "%s; uncommitted changes then under core/, fcgi/, Makefile: %s"
          % (source.get("gaol-run", "?"), source.get("gaol-fcgi", "?"), source.get("head", "?"),
             (source.get("dirty") or "none") if "dirty" in source else "not recorded"),
          "- load average (1, 5, 15 min): %s at the start, %s at the end.  **The machine is "
          "shared** with other work (builds, test suites) that ran during the benchmark, so "
          "medians move from run to run; compare figures of one run with each other, not "
          "across runs." % (load_before, load_after),
          "- tools: %s; %s; %s; %s" % (tools["hyperfine"], tools["wrk"], tools["bwrap"], tools["g++"]),
          ""]
    md += ["## 1. The sandbox's own cost", "", t1.md(), ""]
    md += ["- " + x for x in d1] + [""]
    md += ["How it was measured: the benchmark language `true` (tests/bench/langs/true) has the "
           "test command `true`, which gaol resolves with `make -n` and runs as `/bin/sh -c true` "
           "(a shell builtin, so not given `exec`) in a full sandbox (namespaces, pivot_root, overlay, slot cgroup, seccomp, "
           "privilege drop), so a run measures gaol and nothing of a toolchain.  The bare rows "
           "are hyperfine without a shell (`-N`) on `/bin/sh -c true`, like for like, and "
           "`/bin/sh -c 'exec true'`, which adds the execve a program (not a builtin) costs.  The in-process rows are one `gaol-run --langs "
           "tests/bench/langs --slot 0 --repeat %s` each: the request runs %s times in one "
           "process, with a worker's between-request work (building the next sandbox ahead) "
           "between runs, and gaol-run prints the median, p10 and p90 of a run and the mean "
           "cycle (a run and the work after it); `--gap 0` is a "
           "saturated worker, `--gap 5` one that idles 5 ms between requests.  The sandbox "
           "overhead is the in-process median minus the bare `sh -c true` median.  The "
           "whole-process row is hyperfine on `gaol-run < request.json` (through `sh`, whose "
           "start-up hyperfine subtracts) and includes gaol-run's start-up (configuration, "
           "toolchain probes, `make -n`, slot set-up), which the start-up row measures alone "
           "with a request it refuses (400, no sandbox).  The HTTP rows are wrk against nginx "
           "and a pool of 2 workers (RUN_CONCURRENCY=2) for %s s each at 1 and 2 connections "
           "(the latency median).  bwrap is bubblewrap with `--unshare-all` over read-only "
           "/usr, /etc and the merged-/usr links, a tmpfs /tmp, /proc and /dev: a peer sandbox "
           "without cgroups, overlay or seccomp.  The sandboxed side runs in the shared `gaol` cpu "
           "cgroup and the bare side at the root of the hierarchy: see section 2 on what that "
           "means on a shared machine." % (reps, reps, os.environ.get(
               "BENCH_WRK_SECONDS", "5")), ""]
    md += ["## 2. Every Codebattle language: /run a+b, in the service and bare", "", t2.md(), ""]
    md += ["- " + n for n in notes2] + ([""] if notes2 else [])
    md += ["How it was measured: one stack (`nginx/stack.sh`, langs/, RUN_CONCURRENCY=2) on "
           "127.0.0.1; the languages are the ones GET /health lists as installed.  For each, "
           "the request is tests/integration/examples/<slug>/sum (solution, checker where the "
           "language has one, asserts.json); the service time is the client's, from sending "
           "POST /run on a fresh connection to reading the answer; `in-sandbox wall / cpu` are "
           "the answer's `wall_ms` and `cpu_ms` (the run's own, from its cgroup), `bare cpu` the "
           "user+system time of the bare command's processes (getrusage of the children), `load` "
           "the 1-minute load average when the language's runs began.  The bare command is the language's "
           "`make -s -n test`, joined as gaol joins it (one simple line gets `exec`, several "
           "become `{ l1 } && { l2 }`), run with `/bin/sh -c` in a copy of the language "
           "directory with the request's files in its workdir (check/, lib/ for dart), under "
           "`env -i PATH=/usr/bin:/bin HOME=<fresh dir> LANG=C.UTF-8` (LANG as every sandboxed "
           "run has it), stdin /dev/null, as root.  Each bare run gets a fresh hard-linked copy "
           "of the directory and a fresh directory in place of `/tmp` in the command, as each "
           "sandboxed run gets a fresh overlay and tmpfs: otherwise ghc's `-outputdir /tmp/ghc` "
           "would skip the next compile, Go's build cache would warm up and php would append to "
           "the last run's file (and all would share the host's /tmp with its other users).  "
           "Service and bare runs alternate, one uncounted run of each first (which also checks "
           "that both print the example's records); %s counted runs each, medians.  The "
           "difference is what the sandbox, nginx and FastCGI add to a whole toolchain run; a "
           "sandboxed run also has its memory limited by its slot cgroup and its own tmpfs."
           % (runs2 or "?"), "",
           "Reading the ratios on a shared machine: the two sides do not compete for the CPU "
           "alike.  A bare run is a set of ordinary processes at the root of the cpu cgroup "
           "hierarchy; a sandboxed run is in its slot's cgroup under the one `gaol` cpu cgroup "
           "(cgroup v1 here) that every gaol slot on the machine shares, and CFS gives that "
           "group, as a whole, the weight of one process.  Load from other gaol instances (a "
           "test suite running beside the benchmark) therefore slows the sandboxed side, and "
           "load from ordinary processes slows the bare side more.  A side experiment (not part "
           "of `make bench`; js a+b, gaol-run --repeat 7 in-process against the bare command, "
           "medians): quiet, bare 42-46 ms and sandboxed 57-58 ms; with three busy loops in "
           "gaol sandboxes, bare 51 ms and sandboxed 127 ms; with three busy loops as ordinary "
           "processes, bare 226 ms and sandboxed 144 ms.  The `load` column says how busy the "
           "machine was; a ratio well above 1 for a multi-threaded toolchain (JVM, node, g++ "
           "-pipe) at a high load says more about the neighbours than about gaol, and the "
           "in-sandbox cpu_ms against the bare cpu time is the steadier comparison.", ""]
    md += ["### C++ precompiled header", "", t2b.md() if t2b.rows else "", ""]
    md += ["- " + x for x in d2] + [""]
    md += ["How it was measured: bare, in a copy of langs/cpp (which `make prepare` gave "
           "pch/judge/bits/stdc++.h.gch), with an a+b program that starts with "
           "`#include <bits/stdc++.h>` in check/solution.cpp.  With: the judge's build command "
           "as langs/cpp's `build` target resolves it (`%s`); without: the same command "
           "without `-I pch/judge`.  One uncounted run of each, then %s of each, alternating; "
           "medians.  A `g++ -H` run (not timed) tells whether the header was taken "
           "precompiled." % (pch.get("command_with", "?"), pch.get("runs", "?")), ""]
    md += ["## 3. /evaluate: judging C++ a+b against %s test cases" % ev.get("tests", "?"), "",
           t3.md() if t3.rows else "", ""]
    md += ["- " + x for x in d3] + [""]
    md += ["How it was measured: on the same stack, POST /evaluate with a C++ a+b program "
           "(`#include <bits/stdc++.h>`, so the judge build uses the precompiled header) and "
           "%s test cases of two random 10^9-sized numbers.  Cold: %s requests, each with a "
           "fresh source (a comment with a counter and a per-run nonce, so the compile cache "
           "cannot have it); cached: %s more requests with the last of those sources again "
           "(`compile.cached` is checked either way, and every test must be OK).  Request wall "
           "is the client's; compile wall is the answer's `compile.wall_ms`.  The per-test "
           "overhead is (request wall - compile wall) / %s - the median of the tests' cpu_ms: "
           "what judging one test costs beyond the program's own CPU time, with the tests run "
           "RUN_EVAL_PARALLEL=%s at a time, each in its own fresh sandbox stacked on the build.  "
           "Medians over the requests of each kind."
           % (ev.get("tests", "?"), ev.get("requests", "?"), ev.get("requests", "?"),
              ev.get("tests", "?"), ev.get("eval_parallel", "?")), ""]
    md += ["## Reproduce", "",
           "```sh",
           "sudo make bench        # BUILD=build tests/bench/run.sh after make all",
           "```", "",
           "Knobs (environment): BENCH_RUNS (hyperfine runs, 200), BENCH_REPEAT (500), "
           "BENCH_WRK_SECONDS (5), BENCH_LANG_RUNS (10), BENCH_PCH_RUNS (5), "
           "BENCH_EVAL_REQUESTS (3), BENCH_LANGS (a subset of slugs), BENCH_DOC (this file; "
           "empty: not written).  The plain-text tables are in build/bench/results.txt.", ""]
    os.makedirs(os.path.dirname(os.path.abspath(args.doc)), exist_ok=True)
    # `make bench-langs` (tests/bench/langs.py) keeps its section between
    # its markers: kept as it is, at the end.
    try:
        old = open(args.doc).read()
        a, b = old.index(LANGS_BEGIN), old.index(LANGS_END) + len(LANGS_END)
        md += [old[a:b], ""]
    except (OSError, ValueError):
        pass
    # make bench-throughput's section (tests/bench/throughput.py) is kept.
    kept = ""
    if os.path.exists(args.doc):
        old = open(args.doc).read()
        begin = old.find("<!-- bench-throughput: begin")
        if begin >= 0:
            kept = "\n" + old[begin:]
    with open(args.doc, "w") as fh:
        fh.write("\n".join(md) + kept)
    return 0


if __name__ == "__main__":
    sys.exit(main())
