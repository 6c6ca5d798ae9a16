#!/usr/bin/python3
"""`make bench-langs`, issue 33's part: the one-shot time of hello world in
each of issue 33's languages (tests/integration/more_langs.py), as a user of
gaol-run sees it: one gaol-run process per request (start-up, the sandbox,
the build when not cached, one run), timed from start to exit.  Per
language: the first request with an empty compile cache ("cold": what a
new program costs), then the median of REPEAT identical requests (the build
cached: what the runtime's own start-up costs), and the run's own wall and
CPU time from the answer.  Writes the table to stdout and, run for every
language (no slug given), between <!-- bench-hello --> markers into
docs/bench.md.  Root; a few minutes.

Usage: BUILD=build tests/bench/hello_langs.py [slug...]"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))

from more_langs import HELLO, LANGS, PROGRAMS  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
REPEAT = int(os.environ.get("HELLO_REPEAT", "5"))
UID_BASE = str(62000 + os.getpid() % 500 * 4)


def one(env, slug):
    req = json.dumps({"language": slug, "code": PROGRAMS[slug]["hello"],
                      "test_cases": [{"input": "", "expected_output": HELLO}]})
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(BUILD, "gaol-run"), "--slot", "0"], input=req.encode(),
                       capture_output=True, env=env, timeout=120)
    ms = (time.monotonic() - t0) * 1000
    doc = json.loads(p.stdout)
    r = doc["results"][0]
    if r["verdict"] != "OK":
        raise RuntimeError("%s: %s %s" % (slug, r["verdict"], doc["compile"].get("output", "")[:300]))
    return ms, doc["compile"], r


def main():
    slugs = sys.argv[1:] or LANGS
    state = tempfile.mkdtemp(prefix="gaol-bench-hello-")
    env = dict(os.environ, RUN_UID_BASE=UID_BASE, GAOL_STATE_DIR=state, RUN_CONCURRENCY="1",
               GAOL_INSTANCE="bh%d" % (os.getpid() % 1000))
    rows = []
    try:
        for slug in slugs:
            try:
                cold, comp, _ = one(env, slug)
                warm = [one(env, slug) for _ in range(REPEAT)]
            except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                rows.append("| %s | not measured: %s | | | |" % (slug, str(e).splitlines()[0][:80]))
                continue
            med = statistics.median(w[0] for w in warm)
            run_wall = statistics.median(w[2]["wall_ms"] for w in warm)
            run_cpu = statistics.median(w[2]["cpu_ms"] for w in warm)
            rows.append("| %s | %.0f | %d | %.0f | %d / %d |" % (slug, cold, comp["cpu_ms"] or 0, med,
                                                                run_wall, run_cpu))
            print(rows[-1], flush=True)
    finally:
        subprocess.run([os.path.join(BUILD, "gaol-run"), "--slot", "0", "--cleanup"], env=env,
                       capture_output=True)
        subprocess.run(["rm", "-rf", state])
    table = ("| language | one-shot, cold (ms) | its build's CPU (ms) | one-shot, build cached "
             "(ms, median of %d) | the run: wall / CPU (ms) |\n|---|---|---|---|---|\n" % REPEAT
             + "\n".join(rows) + "\n")
    print(table)
    path = os.path.join(REPO, "docs", "bench.md")
    text = open(path).read()
    block = "<!-- bench-hello -->\n" + table + "<!-- /bench-hello -->"
    if "<!-- bench-hello -->" in text and not sys.argv[1:]:
        text = re.sub(r"<!-- bench-hello -->.*?<!-- /bench-hello -->", lambda m: block, text, flags=re.S)
        open(path, "w").write(text)


if __name__ == "__main__":
    main()
