"""Issue 29: no correct program judged wrong.  A correct program gets OK
whether its build is cached or not, whatever runs beside it; the deadlines
count from the program's start (docs/api.md, "How a request is judged").

Through the real stack (nginx + spawn-fcgi + gaol-fcgi, real HTTP); each test
on a stack of its own stops it and asserts the host is as it was."""

import time
import uuid

import gaol_helpers as gh

# Reads its whole input (to EOF), sleeps the seconds its first word says and
# prints its second word: test 0 of the requests below prints at once, test
# 1 (judged on the other lane) sleeps.
READ_ALL_THEN_SLEEP = ("import sys, time\nw = sys.stdin.read().split()\n"
                       "time.sleep(float(w[0]))\nprint(w[1])\n")


def evaluate(s, code, tests, language="python", timeout=180, **extra):
    body = {"code": code, "language": language,
            "test_cases": [{"input": i, "expected_output": o} for i, o in tests]}
    body.update(extra)
    r = s.post("/evaluate", body, timeout=timeout)
    assert r.status == 200, r
    return r.json()


def slot_processes(s):
    return gh.processes_of_uids(s.uid_base, s.uid_base + s.concurrency)


def test_a_warm_requests_first_test_gets_its_input_end_at_once(make_stack):
    # The stall of issue 29: a warm request's test 0 runs in the sandbox its
    # worker built ahead, and the judging lane forked before it held a copy
    # of that sandbox's stdin pipe, so a program reading its input to the
    # end (or a number at the very end of it: scanf, Scanner, input())
    # waited until the lane had judged all its tests: 0.4 s of wall clock
    # for 13 ms of CPU in the issue, a no-progress TLE under load.  Here the
    # lane's one test sleeps 4 s: test 0 must not wait for it.
    mounts = gh.mountinfo()
    s = make_stack("stall", env={"RUN_EVAL_PARALLEL": "2"}, concurrency=1)
    tests = [("0 first", "first"), ("4 second", "second")]
    code = READ_ALL_THEN_SLEEP + "# %s\n" % uuid.uuid4().hex   # new to the cache
    cold = evaluate(s, code, tests, time_limit_ms=3000)
    warm = evaluate(s, code, tests, time_limit_ms=3000)
    assert cold["compile"].get("cached") is False, cold["compile"]
    assert warm["compile"].get("cached") is True, warm["compile"]
    for doc in (cold, warm):
        assert [r["verdict"] for r in doc["results"]] == ["OK", "OK"], doc["results"]
        assert doc["results"][0]["wall_ms"] < 2000, doc["results"][0]
    assert not slot_processes(s)
    s.stop_clean()
    assert gh.host_left_clean(s, mounts) == []
