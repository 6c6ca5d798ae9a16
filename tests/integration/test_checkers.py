# SPDX-License-Identifier: Apache-2.0
"""docs/api.md, "Checkers and interactors" (issue 30): /evaluate's `files`,
`checker` and `interactor`.  The checkers and interactors are this project's
own, written to testlib's protocol (tests/integration/checkers/README.md):
token, float, line and yes/no comparisons, points and partial scores, a
wrong output format, a checker that fails (exit 3), one that loops, one that
takes memory, a python checker, and a guess-the-number interactor with a
correct, a wrong, a silent and a flooding solution.  Each answer is checked
field by field; after each request no process of the slots' or the aides'
UIDs is left and no test's files stay in the aides' judge directories."""

import glob
import json
import os
import time

import pytest

import gaol_helpers as gh

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkers")
CHECKER_KEYS = {"exit_code", "verdict", "message", "cpu_ms", "memory_kb"}


def src(name):
    with open(os.path.join(HERE, name)) as f:
        return f.read()


def py_checker(name, **kw):
    c = {"language": "python", "code": src(name)}
    c.update(kw)
    return c


def cpp_checker(name, **kw):
    """One of checkers/*.cpp with the project's judge.h beside it (files)."""
    c = {"language": "cpp", "code": src(name),
         "files": [{"name": "judge.h", "content": src("judge.h")}]}
    c.update(kw)
    return c


def evaluate(stack, body, timeout=180.0):
    r = stack.post("/evaluate", json.dumps(body).encode(), timeout=timeout)
    return r, (r.json() if r.body else None)


def aide_uids(stack):
    lo = stack.uid_base + stack.concurrency + 1
    return lo, lo + stack.concurrency


def judge_files(stack):
    state = stack.env.get("GAOL_STATE_DIR") or "/run/" + stack.env.get("GAOL_INSTANCE", "gaol")
    lo, hi = aide_uids(stack)
    return [p for uid in range(lo, hi) for p in glob.glob("%s/uid%d-*/judge/*" % (state, uid))]


def host_clean(stack):
    """Nothing of a run is left: no process of a slot's or an aide's UID,
    no test's files in the aides' judge directories."""
    lo, hi = stack.uid_base, stack.uid_base + 2 * stack.concurrency + 2
    deadline = time.time() + 5
    while time.time() < deadline and gh.processes_of_uids(lo, hi):
        time.sleep(0.1)
    assert not gh.processes_of_uids(lo, hi)
    assert judge_files(stack) == []


def judged(stack, code, tests, language="python", **kw):
    body = {"language": language, "code": code, "test_cases": tests}
    body.update(kw)
    r, doc = evaluate(stack, body)
    assert r.status == 200, (r.status, doc)
    host_clean(stack)
    return doc


def verdicts(doc):
    return [t["verdict"] for t in doc["results"]]


def need(installed, *slugs):
    for slug in slugs:
        if slug not in installed:
            pytest.skip("%s is not installed here" % slug)


ECHO = "import sys\nsys.stdout.write(sys.stdin.read())"


# ---- checkers ----

def test_token_checker_decides_ok_and_wrong_answer_with_its_message(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, ECHO, [
        {"input": "1  2\n3", "expected_output": "1 2 3"},
        {"input": "1 2 4", "expected_output": "1 2 3"},
    ], checker=cpp_checker("tokens.cpp"))
    assert doc["checker_compile"]["ok"] is True, doc["checker_compile"]
    ok, wa = doc["results"]
    assert ok["verdict"] == "OK" and ok["passed"] is True and ok["score"] == 1
    assert CHECKER_KEYS <= set(ok["checker"])
    assert ok["checker"]["exit_code"] == 0 and ok["checker"]["message"] == "ok 3 tokens"
    assert ok["checker"]["cpu_ms"] >= 0 and ok["checker"]["memory_kb"] > 0
    assert wa["verdict"] == "WA" and wa["passed"] is False and wa["success"] is True
    assert wa["details"] == "Wrong Answer" and wa["score"] == 0
    assert wa["checker"]["exit_code"] == 1
    assert wa["checker"]["message"] == 'wrong answer token 3: expected "3", found "4"'
    assert doc["score"] == 1
    # The solution's own measurement: its CPU, not the checker's.
    assert ok["cpu_ms"] is not None and ok["points"] is None


def test_checker_is_built_once_through_the_compile_cache(stack, installed):
    need(installed, "cpp", "python")
    checker = cpp_checker("lines.cpp")
    tests = [{"input": "a\nb", "expected_output": "a\nb"}]
    judged(stack, ECHO, tests, checker=checker)
    doc = judged(stack, ECHO, tests, checker=checker)
    assert doc["checker_compile"]["cached"] is True
    assert verdicts(doc) == ["OK"]


def test_float_checker_accepts_within_1e6_and_names_a_wrong_format(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, "print(input())", [
        {"input": "0.3333333", "expected_output": "0.33333333333"},
        {"input": "0.34", "expected_output": "0.33333333333"},
        {"input": "abc", "expected_output": "0.5"},
    ], checker=cpp_checker("floats.cpp"))
    assert verdicts(doc) == ["OK", "WA", "PE"]
    pe = doc["results"][2]
    assert pe["details"] == "Presentation Error" and pe["checker"]["exit_code"] == 2
    assert pe["checker"]["message"].startswith("wrong output format")
    assert pe["passed"] is False and pe["success"] is True and pe["score"] == 0


def test_line_checker_compares_line_by_line(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, ECHO, [
        {"input": "x y  \nz\n\n", "expected_output": "x y\nz"},
        {"input": "x\ny z", "expected_output": "x y\nz"},
    ], checker=cpp_checker("lines.cpp"))
    assert verdicts(doc) == ["OK", "WA"]


def test_python_yes_no_checker(stack, installed):
    need(installed, "python")
    doc = judged(stack, ECHO, [
        {"input": "yes", "expected_output": "YES"},
        {"input": "NO", "expected_output": "YES"},
        {"input": "maybe", "expected_output": "NO"},
    ], checker={"language": "python", "code": src("yesno.py")})
    assert verdicts(doc) == ["OK", "WA", "PE"]
    assert doc["checker_compile"] is None      # python builds nothing
    assert doc["results"][0]["checker"]["message"] == "ok answer is YES"


def test_points_give_a_score_against_points_max(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, ECHO, [
        {"input": "1 2 9 9", "expected_output": "1 2 3 4"},
        {"input": "1 2 3 4", "expected_output": "1 2 3 4"},
        {"input": "9 9 9 9", "expected_output": "1 2 3 4"},
    ], checker=py_checker("points.py", points_max=4))
    pc, ok, none = doc["results"]
    assert pc["verdict"] == "PC" and pc["points"] == 2 and pc["score"] == 0.5
    assert pc["details"] == "Partially Correct (0.5)" and pc["passed"] is False
    assert pc["checker"]["exit_code"] == 7 and pc["checker"]["message"].startswith("points 2")
    assert ok["verdict"] == "OK" and ok["score"] == 1
    assert none["verdict"] == "WA" and none["points"] == 0 and none["score"] == 0
    assert doc["score"] == 1.5


def test_points_without_points_max_score_nothing(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, ECHO, [{"input": "1 9", "expected_output": "1 2"}],
                 checker=py_checker("points.py"))
    t = doc["results"][0]
    assert t["points"] == 1 and t["score"] == 0 and t["verdict"] == "WA"


def test_partial_answer_is_its_exit_code_read_with_its_message(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, ECHO, [
        {"input": "1 2 3 4 0 0 0 0 0 0", "expected_output": "1 2 3 4 5 6 7 8 9 10"},
        {"input": "1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
                  "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
                  "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
         "expected_output": " ".join(["1"] * 100)},
    ], checker=py_checker("partial.py"))
    forty, one = doc["results"]
    assert forty["verdict"] == "PC" and forty["score"] == 0.4
    assert forty["details"] == "Partially Correct (0.4)"
    assert forty["checker"]["exit_code"] == 40
    # _pc(1) exits 1, as a wrong answer does: the message decides.
    assert one["verdict"] == "PC" and one["score"] == 0.01 and one["checker"]["exit_code"] == 1


def test_checker_that_fails_is_IE_never_a_wrong_answer(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, ECHO, [{"input": "1", "expected_output": "1"}],
                 checker=py_checker("fail.py"))
    t = doc["results"][0]
    assert t["verdict"] == "IE" and t["passed"] is False
    assert t["details"] == "Checker failed: FAIL answer file is corrupt: 1 bytes"
    assert t["checker"]["exit_code"] == 3 and t["checker"]["verdict"] == "IE"
    assert t["success"] is True          # the solution itself ended cleanly


def test_looping_checker_is_stopped_by_its_own_time_limit(stack, installed):
    need(installed, "cpp", "python")
    t0 = time.monotonic()
    doc = judged(stack, ECHO, [{"input": "1", "expected_output": "1"}],
                 checker=py_checker("loops.py", time_limit_ms=500))
    t = doc["results"][0]
    assert t["verdict"] == "IE"
    assert t["details"] == "Checker failed: it exceeded its time limit (500 ms)"
    assert t["checker"]["exit_code"] is None
    assert time.monotonic() - t0 < 60


def test_memory_hog_checker_is_stopped_by_its_own_memory_limit(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, ECHO, [{"input": "1", "expected_output": "1"}],
                 checker=py_checker("hog.py", memory_limit_mb=64))
    t = doc["results"][0]
    assert t["verdict"] == "IE"
    assert t["details"] == "Checker failed: it exceeded its memory limit"
    # The solution's peak is its own, not the checker's 64 MB.
    assert t["memory_kb"] < 64 * 1024


def test_checker_that_does_not_build_is_IE_with_its_build_output(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, ECHO, [{"input": "1", "expected_output": "1"}] * 2,
                 checker={"language": "cpp", "code": "int main( { nope"})
    assert doc["compile"]["ok"] is True                 # the solution's
    assert doc["checker_compile"]["ok"] is False
    assert "error" in doc["checker_compile"]["output"]
    for t in doc["results"]:
        assert t["verdict"] == "IE"
        assert t["details"] == "Checker failed: it does not build"


def test_no_checker_runs_when_the_solution_fails(stack, installed):
    need(installed, "python")
    doc = judged(stack, "raise SystemExit(3)", [{"input": "", "expected_output": "x"}],
                 checker={"language": "python", "code": src("yesno.py")})
    t = doc["results"][0]
    assert t["verdict"] == "RE" and t["checker"] is None and t["score"] == 0


def test_file_io_output_goes_to_the_checker(stack, installed):
    need(installed, "python")
    code = "open('out.txt', 'w').write(open('in.txt').read().upper())"
    doc = judged(stack, code, [{"input": "yes", "expected_output": "YES"}],
                 input_mode="file", input_file="in.txt", output_file="out.txt",
                 checker={"language": "python", "code": src("yesno.py")})
    assert verdicts(doc) == ["OK"]


# ---- the solution's files ----

def test_solution_files_are_written_beside_it(stack, installed):
    need(installed, "python", "cpp")
    doc = judged(stack, "import helper\nprint(helper.twice(int(input())))",
                 [{"input": "21", "expected_output": "42"}],
                 files=[{"name": "helper.py", "content": "def twice(x):\n    return 2 * x\n"}])
    assert verdicts(doc) == ["OK"]
    doc = judged(stack, '#include "twice.h"\n#include <cstdio>\n'
                 'int main(){int x;std::scanf("%d",&x);std::printf("%d\\n",twice(x));}',
                 [{"input": "4", "expected_output": "8"}], language="cpp",
                 files=[{"name": "twice.h", "content": "static int twice(int x){return 2*x;}"}])
    assert verdicts(doc) == ["OK"]


# ---- bad input: a 4xx naming the program, nothing runs ----

@pytest.mark.parametrize("extra, status, words", [
    ({"checker": {"language": "python"}}, 422, "checker.code is required"),
    ({"checker": {"language": "nosuch", "code": "x"}}, 422,
     "checker.language: unknown language nosuch"),
    ({"interactor": {"language": "python", "code": "x",
                     "files": [{"name": "../x", "content": ""}]}}, 422,
     "interactor.files[0].name"),
    ({"checker": {"language": "python", "code": "x",
                  "files": [{"name": "main.py", "content": ""}]}}, 422,
     "checker.files"),
    ({"files": [{"name": "solution.py", "content": ""}]}, 422, "files"),
    ({"checker": {"language": "python", "code": "x", "time_limit_ms": 0}}, 422,
     "checker.time_limit_ms"),
    ({"checker": {"language": "python", "code": "x", "points_max": -1}}, 422,
     "checker.points_max"),
    ({"checker": "x"}, 422, "checker must be an object"),
    ({"interactor": {"language": "python", "code": "x"}, "input_mode": "file"}, 422,
     "input_mode"),
])
def test_bad_checker_or_interactor_input_is_a_4xx_naming_it(stack, installed, extra,
                                                            status, words):
    need(installed, "python")
    body = {"language": "python", "code": "print(1)",
            "test_cases": [{"input": "", "expected_output": "1"}]}
    body.update(extra)
    r, doc = evaluate(stack, body)
    assert r.status == status, (r.status, doc)
    assert words in doc["error"], doc
    host_clean(stack)


def test_too_many_checker_files_is_a_4xx(stack, installed):
    need(installed, "python")
    files = [{"name": "f%d.py" % i, "content": ""} for i in range(300)]
    r, doc = evaluate(stack, {"language": "python", "code": "print(1)",
                              "test_cases": [{"input": "", "expected_output": "1"}],
                              "checker": {"language": "python", "code": "x", "files": files}})
    assert r.status == 422 and "checker.files" in doc["error"] and "RUN_FILES_MAX" in doc["error"]


# ---- interactors ----

GUESS = """
lo, hi = 1, 1000
while True:
    m = (lo + hi) // 2
    print(m, flush=True)
    r = input()
    if r == "ok":
        break
    if r == "higher":
        lo = m + 1
    else:
        hi = m - 1
"""


def interactor():
    return cpp_checker("guess.cpp", time_limit_ms=5000)


def test_interactive_correct_solution_is_ok(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, GUESS, [{"input": "37", "expected_output": ""},
                                {"input": "1000", "expected_output": ""}],
                 interactor=interactor())
    assert doc["interactor_compile"]["ok"] is True
    for t in doc["results"]:
        assert t["verdict"] == "OK" and t["score"] == 1, t
        assert CHECKER_KEYS <= set(t["interactor"])
        assert t["interactor"]["message"].startswith("ok ")
        assert t["checker"] is None if "checker" in t else True
    assert doc["score"] == 2


def test_interactive_wrong_solution_is_judged_by_the_interactor(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, "print('fifty', flush=True)\ninput()",
                 [{"input": "37", "expected_output": ""}], interactor=interactor())
    t = doc["results"][0]
    assert t["verdict"] == "PE" and t["interactor"]["exit_code"] == 2, t
    # A solution that gives up early: the interactor reads the end (exit 8).
    doc = judged(stack, "print(1, flush=True)", [{"input": "37", "expected_output": ""}],
                 interactor=interactor())
    t = doc["results"][0]
    assert t["verdict"] == "PE" and t["interactor"]["exit_code"] == 8, t


def test_interactive_silent_solution_is_a_time_limit_of_the_pair(stack, installed):
    need(installed, "cpp", "python")
    t0 = time.monotonic()
    doc = judged(stack, "import time\ntime.sleep(60)", [{"input": "37", "expected_output": ""}],
                 interactor=interactor(), time_limit_ms=500)
    t = doc["results"][0]
    # Neither runs: the pair made no progress for L + 2 s.
    assert t["verdict"] == "TLE" and t["deadline"] == "no_progress", t
    assert time.monotonic() - t0 < 30


def test_interactive_flooding_solution_is_stopped(stack, installed):
    need(installed, "cpp", "python")
    doc = judged(stack, "import sys\nwhile True:\n    sys.stdout.write('500\\n' * 4096)",
                 [{"input": "37", "expected_output": ""}], interactor=interactor())
    t = doc["results"][0]
    # Stopped either way: by the output cap first when it is past it (the
    # solution's own OLE comes first), else the interactor counts its
    # questions and gives up, and its word decides.
    assert t["verdict"] in ("OLE", "WA"), t
    if t["verdict"] == "WA":
        assert t["interactor"]["message"] == "wrong answer more than 20 questions", t
    else:
        assert t["actual_truncated"] or len(t["actual"]) >= 65536 or t["error"], t


def test_interactor_and_checker_judge_together(stack, installed):
    need(installed, "cpp", "python")
    # The checker reads the interactor's output file: the questions asked,
    # at most the test's answer.
    checker = ("import sys\nq = int(open(sys.argv[2]).read())\n"
               "m = int(open(sys.argv[3]).read())\n"
               "if q <= m:\n    sys.stderr.write('ok %d questions' % q); sys.exit(0)\n"
               "sys.stderr.write('wrong answer %d questions' % q); sys.exit(1)\n")
    doc = judged(stack, GUESS, [{"input": "37", "expected_output": "10"},
                                {"input": "37", "expected_output": "3"}],
                 interactor=interactor(), checker={"language": "python", "code": checker})
    ok, wa = doc["results"]
    assert ok["verdict"] == "OK" and ok["checker"]["message"].startswith("ok ")
    assert wa["verdict"] == "WA" and wa["interactor"]["verdict"] == "OK"


def test_interactor_with_python_and_lanes_in_parallel(stack, installed):
    need(installed, "python")
    inter = ("import sys\nn = int(open(sys.argv[1]).read())\n"
             "print(n, flush=True)\nx = int(input())\n"
             "open(sys.argv[2], 'w').write(str(x))\n"
             "if x == 2 * n:\n    sys.stderr.write('ok'); sys.exit(0)\n"
             "sys.stderr.write('wrong answer'); sys.exit(1)\n")
    tests = [{"input": str(i), "expected_output": ""} for i in range(6)]
    doc = judged(stack, "print(2 * int(input()))", tests,
                 interactor={"language": "python", "code": inter})
    assert verdicts(doc) == ["OK"] * 6
    doc = judged(stack, "print(3 * int(input()))", tests[1:3],
                 interactor={"language": "python", "code": inter})
    assert verdicts(doc) == ["WA"] * 2
