"""The whole matrix of issue 33's languages (`make test-langs`; not in CI,
whose short matrix is test_more_langs.py): for each language, through the
real stack, a runtime error (exit code 3), a timeout (a CPU loop), a memory
kill (an allocation loop, MLE by the cgroup, not the runtime's own
out-of-memory error), and where the language can fork, a fork bomb; after
each, no process of the stack's slot UIDs.  Run with
the short matrix: `make test-langs` runs both files.  A language /health
does not list as installed is skipped by name."""

import threading
import time

import pytest

import gaol_helpers as gh
from more_langs import LANGS, MEMORY_LIMIT_MB, PROGRAMS
from test_evaluate import evaluate, only
from test_more_langs import assert_no_process_left, code_of


def program(language, name, installed):
    code = code_of(language, name, installed)
    if code is None:
        pytest.skip("%s cannot %s" % (language, name))
    return code


@pytest.mark.parametrize("language", LANGS)
def test_runtime_error(stack, installed, language):
    r = only(evaluate(stack, language, program(language, "exit3", installed), [("", "")]))
    assert r["verdict"] == "RE" and r["exit_code"] == 3 and r["signal"] is None, r
    assert r["details"] == "Runtime Error (exit code 3)", r
    assert_no_process_left(stack)


@pytest.mark.parametrize("language", LANGS)
def test_timeout(stack, installed, language):
    doc = evaluate(stack, language, program(language, "busy", installed), [("", "x")],
                   time_limit_ms=500)
    assert doc["compile"]["ok"] is True, doc
    r = only(doc)
    assert r["verdict"] == "TLE" and r["cpu_ms"] > 500 and r["exit_code"] is None, r
    assert_no_process_left(stack)


@pytest.mark.parametrize("language", LANGS)
def test_memory_kill(stack, installed, language):
    limit = MEMORY_LIMIT_MB.get(language, 64)
    doc = evaluate(stack, language, program(language, "memory", installed), [("", "x")],
                   memory_limit_mb=limit, time_limit_ms=10000)
    assert doc["compile"]["ok"] is True, doc
    r = only(doc)
    assert r["verdict"] == "MLE" and r["details"] == "Memory Limit Exceeded", r
    assert r["memory_kb"] >= limit * 1024 * 0.8, r
    assert not (r["exit_code"] == 137 and r["signal"] is None), r
    assert_no_process_left(stack)


@pytest.mark.parametrize("language", LANGS)
def test_fork_bomb(stack, installed, language):
    # The bomb meets the process limits (docs/api.md: 512 in the slot's
    # cgroup, RLIMIT_NPROC 256) and then the time limit; every process of
    # it goes with the run.  It did start processes: a sampler saw more of
    # the slot's UIDs at once than the runtime alone makes.
    code = program(language, "fork", installed)
    lo, hi = stack.uid_base, stack.uid_base + stack.concurrency
    peak, done = [0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], len(gh.processes_of_uids(lo, hi)))
            time.sleep(0.02)
    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        doc = evaluate(stack, language, code, [("", "x")], time_limit_ms=1000)
    finally:
        done.set()
        sampler.join()
    assert doc["compile"]["ok"] is True, doc
    assert peak[0] >= 8, (peak[0], doc)
    r = only(doc)
    assert r["verdict"] in ("TLE", "RE", "MLE"), r
    # Within the absolute deadline, 5 (L + 2 s), and the time it takes to
    # kill a few hundred processes on a loaded machine (21 s seen at a load
    # average of 60 on 2 cores).
    assert r["wall_ms"] < 5 * (1000 + 2000) + 10000, r
    assert_no_process_left(stack)
