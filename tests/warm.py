#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Warms the page cache with every installed toolchain before a suite.

CI runs on a machine whose page cache may be cold and whose disk may be slow
(17 MB/s read on one day): the first C++, Rust or C# program after a cold
start waits seconds for its compiler's and runtime's files, and a client's
own wall-clock limit (Codebattle's container_run_timeout) can pass while it
waits.  A service that has been up a while has them in memory; this makes
the suites' host look like one.  One /evaluate of each language's a+b
program and one /run of its Codebattle example (the checker's own crates and
headers: Rust's serde, C++'s json) through gaol-run (the real sandbox and
recipes), two at a time, each pair of processes in its own instance and
state directory; the answers are not judged (the suites do that), only
printed as one line each.

With a command, it then runs the command and keeps what is cached mapped
until the command ends (tests/hold.py: the CI host pages out file pages that
no process maps a minute after their last use), and exits with its status.

Usage: BUILD=build tests/warm.py [COMMAND ARG...]"""

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

import hold  # noqa: E402
import test_evaluate  # noqa: E402
import test_evaluate_languages  # noqa: E402
import test_languages  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
GAOL_RUN = os.path.join(REPO, BUILD, "gaol-run") if not os.path.isabs(BUILD) \
    else os.path.join(BUILD, "gaol-run")
LANES = 2
PER_LANGUAGE_S = 180


def run_body(slug):
    """POST /run of the language's Codebattle example (its a+b example where
    it has none)."""
    ex = os.path.join(HERE, "integration", "examples", slug)
    return test_languages.example(
        slug, "codebattle" if os.path.isdir(os.path.join(ex, "codebattle")) else "sum")[0]


def programs():
    """(slug, what, request body) for each language directory (those of
    GAOL_TEST_LANGS only when it is set: the suite runs no other's tests)."""
    both = dict(test_evaluate.PROGRAMS)
    both.update(test_evaluate_languages.PROGRAMS)
    langs = os.path.join(REPO, "langs")
    only = os.environ.get("GAOL_TEST_LANGS")
    work = []
    for slug, p in sorted(both.items()):
        if "ok" not in p or not os.path.isdir(os.path.join(langs, slug)):
            continue
        if only is not None and slug not in only.split():
            continue
        work.append((slug, "evaluate", {
            "language": slug, "code": p["ok"],
            "test_cases": [{"input": "1 2", "expected_output": "3"}]}))
        if os.path.isdir(os.path.join(HERE, "integration", "examples", slug)):
            work.append((slug, "run", run_body(slug)))
    return work


def warm_one(slug, what, body, lane, state):
    body = json.dumps(body)
    env = dict(os.environ, GAOL_STATE_DIR=state, GAOL_INSTANCE="gaol-warm%d" % lane)
    t0 = time.monotonic()
    try:
        r = subprocess.run([GAOL_RUN, "--langs", os.path.join(REPO, "langs"),
                            "--slot", str(lane)], input=body.encode(), env=env,
                           capture_output=True, timeout=PER_LANGUAGE_S)
        out = r.stdout.decode("utf-8", "replace")
        try:
            doc = json.loads(out)
            said = doc.get("error") or ",".join(t.get("verdict", "?")
                                                for t in doc.get("results", []))
            if what == "run" and not doc.get("error"):
                said = "exit %s%s" % (doc.get("exit_code"),
                                      ", timed out" if doc.get("timed_out") else "")
        except ValueError:
            said = "exit %d %s" % (r.returncode, r.stderr.decode("utf-8", "replace")[-200:])
    except subprocess.TimeoutExpired:
        said = "gave up after %d s" % PER_LANGUAGE_S
    return "warm: %-8s %-8s %6.1f s  %s" % (slug, what, time.monotonic() - t0, said.strip())


def warm():
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
                    slug, what, body = work.pop(0)
                line = warm_one(slug, what, body, k, state)
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
    print("warm: %d requests in %.1f s" % (len(lines), time.monotonic() - t0), flush=True)


def main(argv):
    if not argv:
        warm()
        return 0
    # held from the start: warming takes longer than the host's minute
    holder = hold.Holder(["/usr", os.path.join(REPO, "langs")]).start()
    try:
        warm()
        print("warm: holding %d MiB of cached files mapped" % (holder.held_bytes() >> 20),
              flush=True)
        return subprocess.call(argv)
    finally:
        holder.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
