#!/usr/bin/python3
"""Warms the page cache with every installed toolchain before a suite.

CI runs on a machine whose page cache may be cold and whose disk may be slow
(17 MB/s read on one day): the first C++, Rust or C# program after a cold
start waits seconds for its compiler's and runtime's files, and a client's
own wall-clock limit (Codebattle's container_run_timeout) can pass while it
waits.  A service that has been up a while has them in memory; this makes
the suites' host look like one.  One /evaluate of each language's a+b
program through gaol-run (the real sandbox and recipes), two languages at a
time, each pair of processes in its own instance and state directory; the
answers are not judged (the suites do that), only printed as one line each.

Usage: BUILD=build tests/warm.py"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "integration"))

import test_evaluate  # noqa: E402
import test_evaluate_languages  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
GAOL_RUN = os.path.join(REPO, BUILD, "gaol-run") if not os.path.isabs(BUILD) \
    else os.path.join(BUILD, "gaol-run")
LANES = 2
PER_LANGUAGE_S = 180


def programs():
    both = dict(test_evaluate.PROGRAMS)
    both.update(test_evaluate_languages.PROGRAMS)
    langs = os.path.join(REPO, "langs")
    return sorted((slug, p["ok"]) for slug, p in both.items()
                  if "ok" in p and os.path.isdir(os.path.join(langs, slug)))


def warm_one(slug, code, lane, state):
    body = json.dumps({"language": slug, "code": code,
                       "test_cases": [{"input": "1 2", "expected_output": "3"}]})
    env = dict(os.environ, GAOL_STATE_DIR=state, GAOL_INSTANCE="gaol-warm%d" % lane)
    t0 = time.monotonic()
    try:
        r = subprocess.run([GAOL_RUN, "--langs", os.path.join(REPO, "langs"),
                            "--slot", str(lane)], input=body.encode(), env=env,
                           capture_output=True, timeout=PER_LANGUAGE_S)
        out = r.stdout.decode("utf-8", "replace")
        try:
            doc = json.loads(out)
            what = doc.get("error") or ",".join(t.get("verdict", "?")
                                                for t in doc.get("results", []))
        except ValueError:
            what = "exit %d %s" % (r.returncode, r.stderr.decode("utf-8", "replace")[-200:])
    except subprocess.TimeoutExpired:
        what = "gave up after %d s" % PER_LANGUAGE_S
    return "warm: %-8s %6.1f s  %s" % (slug, time.monotonic() - t0, what.strip())


def main():
    work = programs()
    lines, lock = [], threading.Lock()

    def lane(k):
        state = tempfile.mkdtemp(prefix="gaol-warm-")
        os.chmod(state, 0o711)
        try:
            while True:
                with lock:
                    if not work:
                        return
                    slug, code = work.pop(0)
                line = warm_one(slug, code, k, state)
                with lock:
                    print(line, flush=True)
                    lines.append(line)
        finally:
            shutil.rmtree(state, ignore_errors=True)

    t0 = time.monotonic()
    threads = [threading.Thread(target=lane, args=(k,)) for k in range(LANES)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("warm: %d languages in %.1f s" % (len(lines), time.monotonic() - t0), flush=True)


if __name__ == "__main__":
    main()
