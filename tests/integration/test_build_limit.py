# SPDX-License-Identifier: Apache-2.0
"""docs/api.md ("How a request is judged", step 1): an /evaluate build has
10 s of wall clock, not counting up to 10 s more in which a thread of it
waited in the kernel uninterruptibly (state D: a compiler faulting its files
in from a cold page cache on a slow disk).  RUN_EVAL_COMPILE_TIMEOUT sets
the 10 s (and so the excuse's cap).  RUN_REQUEST_BUDGET stops a build too.

Through the real gaol-run, with a language of the test's own whose build
recipe is a small C program: `d N` makes its parent wait N seconds in state
D (vfork's parent waits so for its child), `s N` sleeps N seconds in state
S.  The three cases run side by side, each in its own slot."""

import json
import os
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import gaol_helpers as gh

GAOL_RUN = os.path.join(gh.BUILD_DIR, "gaol-run")
WAITER = r"""
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
	if (argc > 2 && argv[1][0] == 'd') {
		if (vfork() == 0) {
			sleep(n);
			_exit(0);
		}
		return 0;
	}
	sleep(n);
	return 0;
}
"""
LANG_JSON = {
    "slug": "waiter", "aliases": [], "workdir": "check", "solution_file": "how.txt",
    "checker_file": None, "checker_required": False, "tmp_size": "16m",
    "mem_max": "64m", "overlay_paths": [], "probe": "true",
}
MAKEFILE = "build:\n\t./waiter $$(cat check/how.txt)\n\nrun:\n\techo 3\n\n.PHONY: build run\n"


@pytest.fixture(scope="module")
def waiter():
    for tmp, env in gh.own_langs("gaol-build-limit-", "bl", 180):
        d = gh.write_lang(os.path.join(tmp, "langs"), LANG_JSON, MAKEFILE)
        src = os.path.join(tmp, "waiter.c")
        with open(src, "w") as f:
            f.write(WAITER)
        subprocess.run(["/usr/bin/gcc", "-O2", "-o", os.path.join(d, "waiter"), src],
                       check=True)
        yield {"langs": os.path.join(tmp, "langs"), "env": env}


def build(ctx, how, slot, env=None):
    body = {"language": "waiter", "code": how,
            "test_cases": [{"input": "", "expected_output": "3"}]}
    t0 = time.monotonic()
    p = subprocess.run([GAOL_RUN, "--langs", ctx["langs"], "--slot", str(slot)],
                       input=json.dumps(body).encode(), env=dict(ctx["env"], **(env or {})),
                       capture_output=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    doc = json.loads(p.stdout)
    return doc, time.monotonic() - t0


def build_side_by_side(ctx, cases, env=None):
    """{name: how}: each build in a slot of its own, all at once; {name:
    (answer, seconds)}."""
    with ThreadPoolExecutor(len(cases)) as pool:
        futures = {name: pool.submit(build, ctx, how, slot, env)
                   for slot, (name, how) in enumerate(sorted(cases.items()))}
        return {name: f.result() for name, f in futures.items()}


def assert_timed_out(doc, least_ms, below_ms):
    """The build was stopped by its limit, after least_ms to below_ms, and
    judged CE."""
    c = doc["compile"]
    assert c["ok"] is False and c["timed_out"] is True, doc
    assert least_ms <= c["wall_ms"] < below_ms, doc
    assert doc["results"][0]["verdict"] == "CE", doc


def assert_no_process_left(ctx, slots):
    """No process of the first slots' UIDs, within 5 s."""
    lo = int(ctx["env"]["RUN_UID_BASE"])
    deadline = time.monotonic() + 5
    while gh.processes_of_uids(lo, lo + slots) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gh.processes_of_uids(lo, lo + slots) == {}


@pytest.fixture(scope="module")
def answers(waiter):
    return build_side_by_side(waiter, {"blocked 12 s": "d 12", "asleep 12 s": "s 12",
                                       "blocked for ever": "d 600"})


def test_waiting_for_the_disk_is_excused(answers):
    doc, _ = answers["blocked 12 s"]
    c = doc["compile"]
    assert c["ok"] is True and c["timed_out"] is False, doc
    assert c["wall_ms"] >= 12000, doc
    assert doc["results"][0]["verdict"] == "OK", doc


def test_sleeping_is_not_excused(answers):
    doc, _ = answers["asleep 12 s"]
    assert_timed_out(doc, 10000, 12000)
    assert doc["results"][0]["error"] == "Compilation Timeout (over 10 seconds)", doc


def test_the_excuse_has_a_cap(answers, waiter):
    doc, _ = answers["blocked for ever"]
    assert_timed_out(doc, 20000, 23000)
    # Nothing of the blocked build is left.
    assert_no_process_left(waiter, 3)


@pytest.fixture(scope="module")
def answers_2s(waiter):
    """The same language with RUN_EVAL_COMPILE_TIMEOUT=2s (an operator's)."""
    return build_side_by_side(waiter, {"asleep 1 s": "s 1", "asleep 4 s": "s 4",
                                       "blocked for ever": "d 600"},
                              {"RUN_EVAL_COMPILE_TIMEOUT": "2s"})


def test_the_operator_sets_the_build_limit(answers_2s):
    doc, _ = answers_2s["asleep 1 s"]
    assert doc["compile"]["ok"] is True and doc["results"][0]["verdict"] == "OK", doc
    doc, _ = answers_2s["asleep 4 s"]
    assert_timed_out(doc, 2000, 4000)
    assert doc["results"][0]["error"] == "Compilation Timeout (over 2 seconds)", doc
    # The excuse for waiting on the disk is capped at the limit too.
    doc, _ = answers_2s["blocked for ever"]
    assert_timed_out(doc, 4000, 7000)


@pytest.fixture(scope="module")
def answers_budget(waiter):
    """The default 10 s build limit under a 2 s RUN_REQUEST_BUDGET."""
    return build_side_by_side(waiter, {"asleep 6 s": "s 6", "blocked for ever": "d 600"},
                              {"RUN_REQUEST_BUDGET": "2s"})


@pytest.mark.parametrize("case", ["asleep 6 s", "blocked for ever"])
def test_the_request_budget_stops_a_build(answers_budget, waiter, case):
    """At the budget the build is stopped, whatever its own limit and however
    it waits, and the tests are the budget's TLE, not the tenant's CE."""
    doc, seconds = answers_budget[case]
    c = doc["compile"]
    assert c["ok"] is False and c["timed_out"] is True, doc
    # The budget runs from the request's start, the build's wall clock from
    # its own (a few ms later; hundreds under emulation).
    assert 1000 <= c["wall_ms"] < 4000 and 2 <= seconds < 6, (seconds, doc)
    r = doc["results"][0]
    assert (r["verdict"], r["deadline"], r["passed"]) == ("TLE", "budget", False), doc
    assert "RUN_REQUEST_BUDGET" in r["error"], doc
    assert_no_process_left(waiter, 2)


def test_a_build_limit_out_of_range_is_refused_at_start(waiter):
    for bad in ("500ms", "11m", "10"):
        p = subprocess.run([GAOL_RUN, "--langs", waiter["langs"], "--slot", "0"],
                           input=b"{}", env=dict(waiter["env"], RUN_EVAL_COMPILE_TIMEOUT=bad),
                           capture_output=True, timeout=60)
        assert p.returncode != 0 and b"RUN_EVAL_COMPILE_TIMEOUT" in p.stderr, (bad, p)
