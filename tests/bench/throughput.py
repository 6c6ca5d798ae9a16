#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The figures of tests/bench/throughput.sh (make bench-throughput), each
next to its peer with the target met or not: printed, written to
<out>/results.txt and, with --doc, into docs/bench.md between the
throughput markers (the rest of the file is left as it is)."""
import argparse
import glob
import os
import re
import statistics
import sys

BEGIN = "<!-- bench-throughput: begin (tests/bench/throughput.py writes this section) -->"
END = "<!-- bench-throughput: end -->"
UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def ms(text):
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def wrk(path):
    text = open(path).read()
    out = {"non2xx": 0, "errors": 0}
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    out["rps"] = float(m.group(1)) if m else None
    for pct in ("50", "99"):
        m = re.search(r"^\s+%s%%\s+(\S+)" % pct, text, re.M)
        out["p" + pct] = ms(m.group(1)) if m else None
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    if m:
        out["non2xx"] = int(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if m:
        out["errors"] = sum(int(x) for x in m.groups())
    m = re.search(r"(\d+) requests in", text)
    out["requests"] = int(m.group(1)) if m else 0
    return out


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def cycle(path):
    """gaol-run --repeat's summary and profile lines."""
    lines = open(path).read().splitlines()
    out = {"steps": []}
    for line in lines:
        m = re.search(r"median ([\d.]+) ms.*cycle ([\d.]+) ms", line)
        if m:
            out["run"], out["cycle"] = float(m.group(1)), float(m.group(2))
        m = re.match(r"^  (\s*)(\S.*?)\s+([\d.]+)\s+\(([\d.]+)\)$", line)
        if m:
            out["steps"].append((m.group(1) + m.group(2), float(m.group(3)), float(m.group(4))))
    return out


def fmt(x, spec="%.2f"):
    return spec % x if x is not None else "—"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--levels", required=True)
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--seconds", required=True)
    ap.add_argument("--repeat", required=True)
    ap.add_argument("--doc")
    a = ap.parse_args()
    out = a.out
    read = lambda n: open(os.path.join(out, n)).read().strip() if os.path.exists(os.path.join(out, n)) else "?"
    text, md = [], []

    # The cycle: the run of median cycle of each mode.
    cyc = {}
    for mode in ("reuse", "fresh", "mounts"):
        runs = [cycle(p) for p in sorted(glob.glob(os.path.join(out, "cycle-%s-*.txt" % mode)))]
        runs = [r for r in runs if "cycle" in r]
        if runs:
            runs.sort(key=lambda r: r["cycle"])
            cyc[mode] = (runs[len(runs) // 2], [r["cycle"] for r in runs])
    if cyc:
        names = [s[0] for s in (cyc.get("fresh") or cyc["reuse"])[0]["steps"]]
        rows = ["| step (mean ms per cycle) | RUN_NETNS_FRESH=1 | reuse (default) |",
                "|---|---:|---:|"]
        for name in names:
            vals = []
            for mode in ("fresh", "reuse"):
                r = cyc.get(mode)
                v = next((s for s in r[0]["steps"] if s[0] == name), None) if r else None
                vals.append("%.3f (%.2fx)" % (v[1], v[2]) if v else "—")
            rows.append("| %s | %s | %s |" % (name.replace("  ", "&nbsp;&nbsp;"), vals[0], vals[1]))
        for key, label in (("run", "run, median ms"), ("cycle", "**cycle**, ms")):
            rows.append("| %s | %s | %s |" % (label, *[
                fmt(cyc[m][0][key], "%.3f") if m in cyc else "—" for m in ("fresh", "reuse")]))
        md += ["### A worker's cycle", "", "\n".join(rows), ""]
        md += ["- cycles of the 3 runs each: RUN_NETNS_FRESH=1 %s ms; reuse %s ms (the table is "
               "the run of median cycle; `(n x)` is how many times a step happened per cycle)"
               % (", ".join("%.3f" % x for x in cyc["fresh"][1]) if "fresh" in cyc else "—",
                  ", ".join("%.3f" % x for x in cyc["reuse"][1]) if "reuse" in cyc else "—"), ""]
        if "mounts" in cyc and "reuse" in cyc:
            m, r = cyc["mounts"][0]["cycle"], cyc["reuse"][0]["cycle"]
            md += ["- with %s more host mounts (tmpfs, mounted for the measurement; the slot's "
                   "template keeps none of them: core/slot/prune.h), reuse: cycle %.3f ms "
                   "(runs %s) against %.3f ms without, **%.2fx**" % (
                       read("host-mounts.txt"), m,
                       ", ".join("%.3f" % x for x in cyc["mounts"][1]), r, m / r), ""]
        text += ["A worker's cycle (gaol-run --repeat %s, profile build), median of 3:" % a.repeat]
        for m in ("fresh", "reuse", "mounts"):
            if m in cyc:
                text.append("  %-6s run %.3f ms  cycle %.3f ms" % (m, cyc[m][0]["run"], cyc[m][0]["cycle"]))
        text.append("")

    # The curve: gaol, the minimal fresh sandbox (minbox) and the floor.
    rows = ["| RUN_CONCURRENCY (= wrk connections) | gaol req/s | minbox req/s | floor req/s | "
            "gaol / floor | minbox / floor | gaol / minbox | gaol p50 ms | minbox p50 ms | "
            "floor p50 ms | p50 difference (gaol - floor) | gaol p99 ms | minbox p99 ms | "
            "floor p99 ms |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    verdicts = []
    bad = []
    ratio_of = lambda x, y: x["rps"] / y["rps"] if x.get("rps") and y.get("rps") else None
    p50_over = lambda x, y: (x["p50"] - y["p50"] if x.get("p50") is not None
                             and y.get("p50") is not None else None)
    for c in a.levels.split():
        side = {}
        for s in ("run", "box", "floor"):
            rs = [wrk(p) for p in sorted(glob.glob(os.path.join(out, "wrk-c%s-%s-*.out" % (c, s))))]
            for r in rs:
                if r["non2xx"] or r["errors"]:
                    bad.append("c%s %s: %d non-2xx, %d socket errors" % (c, s, r["non2xx"], r["errors"]))
            side[s] = {k: median([r[k] for r in rs]) for k in ("rps", "p50", "p99")} if rs else {}
        g, b, f = side.get("run", {}), side.get("box", {}), side.get("floor", {})
        if not g or not f:
            continue
        b = b or {"rps": None, "p50": None, "p99": None}
        ratio, box_ratio, gaol_box = ratio_of(g, f), ratio_of(b, f), ratio_of(g, b)
        diff = p50_over(g, f)
        rows.append("| %s |" % " | ".join([
            c, fmt(g["rps"], "%.0f"), fmt(b["rps"], "%.0f"), fmt(f["rps"], "%.0f"), fmt(ratio),
            fmt(box_ratio), fmt(gaol_box), fmt(g["p50"]), fmt(b["p50"]), fmt(f["p50"]),
            fmt(diff, "%+.2f"), fmt(g["p99"]), fmt(b["p99"]), fmt(f["p99"])]))
        text.append("RUN_CONCURRENCY=%s, wrk -c%s: gaol %s req/s, minbox %s, floor %s: gaol %sx "
                    "the floor, minbox %sx, gaol %sx minbox; p50 %s / %s / %s ms (gaol %s); "
                    "p99 %s / %s / %s ms" % (
                        c, c, fmt(g["rps"], "%.0f"), fmt(b["rps"], "%.0f"), fmt(f["rps"], "%.0f"),
                        fmt(ratio), fmt(box_ratio), fmt(gaol_box), fmt(g["p50"]), fmt(b["p50"]),
                        fmt(f["p50"]), fmt(diff, "%+.2f"), fmt(g["p99"]), fmt(b["p99"]),
                        fmt(f["p99"])))
        if c == "2":
            verdicts.append("req/s, RUN_CONCURRENCY=2 and 2 connections: gaol %s / floor %s = "
                            "%sx (target >= 0.8x: %s)" % (
                                fmt(g["rps"], "%.0f"), fmt(f["rps"], "%.0f"), fmt(ratio),
                                "met" if ratio is not None and ratio >= 0.8 else "not met"))
            verdicts.append("p50 latency: gaol %s ms, floor %s ms, difference %s ms (target "
                            "within 1 ms: %s)" % (fmt(g["p50"]), fmt(f["p50"]), fmt(diff, "%+.2f"),
                                                 "met" if diff is not None and diff <= 1.0 else "not met"))
            verdicts.append("the least a fresh sandbox per request costs (minbox): %s req/s = %sx "
                            "the floor, p50 %s ms (%s against the floor); gaol is %sx minbox "
                            "(peer, not a target)" % (
                                fmt(b["rps"], "%.0f"), fmt(box_ratio), fmt(b["p50"]),
                                fmt(p50_over(b, f), "%+.2f"), fmt(gaol_box)))
    text = ["bench-throughput: %s, load %s at the start, %s at the end; %s" % (
        read("date.txt"), read("load-before.txt"), read("load-after.txt"),
        read("source.txt").replace("\n", "; "))] + [""] + text + [""] + verdicts + bad
    sys.stdout.write("\n".join(text) + "\n")
    with open(os.path.join(out, "results.txt"), "w") as fh:
        fh.write("\n".join(text) + "\n")

    md = ["## 4. Throughput through nginx: POST /run against the fcgiwrap floor and the least sandbox", "",
          "One `make bench-throughput` run (`BUILD=build tests/bench/throughput.sh`): %s; load "
          "average %s at the start, %s at the end (the machine is shared: compare within the "
          "run); binaries and cgroups: %s." % (read("date.txt"), read("load-before.txt"),
                                  read("load-after.txt"), "; ".join(
                                      l.strip() for l in read("source.txt").splitlines()
                                      if l.strip() not in ("dirty", ""))),
          ""] + md
    md += ["### The curve", "", "\n".join(rows), ""]
    md += ["- " + v for v in verdicts + bad] + [""]
    md += ["How it was measured: for each RUN_CONCURRENCY, one stack (`nginx/stack.sh` with "
           "that many workers, the benchmark language `true`) whose nginx also serves `/floor` "
           "(`GAOL_NGINX_EXTRA`): Debian's fcgiwrap with as many processes, started by "
           "spawn-fcgi as www-data, running one `/bin/sh` CGI script per request that prints a "
           "small JSON answer; and `/box`: tests/bench/minbox.c, a FastCGI server of as "
           "many preforked processes (each on a CPU, as gaol's workers), run as root, that "
           "for each request clones a child in a new PID, mount, IPC and UTS namespace (a "
           "copy of the server's private one), mounts a fresh tmpfs, an overlay of the "
           "host's root on it, a fresh /proc and /tmp, pivots into it, detaches the old "
           "root and executes `/bin/sh -c true` as PID 1, its output piped back: the least "
           "a fresh sandbox per request costs, without gaol's cgroups, limits, seccomp, "
           "privilege drop, init or read-only root (a bound, not a sandbox).  "
           "The sandboxed side is a gaol instance of its own "
           "(`GAOL_INSTANCE=gaol-bench`: its slots' cpu cgroup is not the one other gaol "
           "stacks on the machine share), and fcgiwrap with its CGI processes and minbox run in cpu "
           "cgroups of their own beside it (`gaol-bench-floor`, `gaol-bench-box`, same "
           "weight), so that on a shared machine each side competes for the CPU as one "
           "group.  The same POST body goes to all three.  wrk with as many connections "
           "as workers (`-c` = RUN_CONCURRENCY, so the pool is saturated and nginx's limit_conn "
           "never answers 429), one uncounted second of each side, then %d rounds of %s s per "
           "side, in turn (which side goes first turns round by round); medians of the rounds' "
           "req/s, p50 and p99 (wrk --latency).  The cycle is `gaol-run --langs "
           "tests/bench/langs --slot 0 --repeat %s` of a `-DGAOL_PROFILE` build (build/prof), "
           "3 runs with the network namespace reused and 3 with `RUN_NETNS_FRESH=1`, "
           "alternating, then 3 (reused) with BENCH_HOST_MOUNTS more tmpfs mounted on the "
           "host under build/bench-throughput/host-mounts (removed afterwards).  "
           "Knobs (environment): BENCH_LEVELS (\"1 2 4 8\"), BENCH_ROUNDS (3), "
           "BENCH_WRK_SECONDS (5), BENCH_REPEAT (500), BENCH_HOST_MOUNTS (200), "
           "BENCH_INSTANCE (gaol-bench), "
           "BENCH_UID_BASE (38001), BENCH_DOC (this file; empty: not written); the raw "
           "measurements stay in build/bench-throughput/." % (a.rounds, a.seconds, a.repeat), ""]
    if a.doc:
        old = open(a.doc).read() if os.path.exists(a.doc) else ""
        block = BEGIN + "\n" + "\n".join(md) + END + "\n"
        if BEGIN in old and END in old:
            new = old[:old.index(BEGIN)] + block + old[old.index(END) + len(END) + 1:]
        else:
            new = old.rstrip("\n") + "\n\n" + block
        with open(a.doc, "w") as fh:
            fh.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
