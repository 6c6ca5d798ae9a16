# SPDX-License-Identifier: Apache-2.0
"""CompiCode's client, unchanged, against gaol's POST /evaluate (issue 12).

Written from SanjayMarathi/CompiCode, which is the specification here:
- main.py (`submit_code`, `sandbox_test`, `call_executor`): the request it
  sends -- {"code", "language", "test_cases": [{"input", "expected_output"}]}
  and nothing else -- and how it reads the answer: a 200's
  `response.json().get("results", [])`; 400, 413 and 422 are "rejected the
  request"; the submission's verdict is "accepted" when every result is
  `passed`, else "error" when any has a non-empty `error`, else
  "wrong_answer".
- frontend/src/pages/SolvePlatform.jsx: the language menu (cpp, python, java)
  and each test's label: `passed` ? "Accepted" : (`error` ? "Error" :
  "Wrong Answer"); the first `error` is shown as "Compilation / Runtime Error
  Details"; `actual` is shown only when `error` is empty.
- executor/server.cpp and executor/README.md: the answers the executor gives,
  whose words the UI shows (the strings asserted below are from there).

Every case names the file (and function) it comes from.
"""

import json
import re

import pytest

import gaol_helpers as gh

# SolvePlatform.jsx: <option value="cpp">, "python", "java".
LANGUAGES = ["cpp", "python", "java"]

APLUSB = {
    "cpp": "#include <bits/stdc++.h>\nusing namespace std;\n"
           "int main(){long long a,b;cin>>a>>b;cout<<a+b<<endl;return 0;}\n",
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "java": "import java.util.*;\npublic class Main {\n  public static void main(String[] args) {\n"
            "    Scanner s = new Scanner(System.in);\n    long a = s.nextLong(), b = s.nextLong();\n"
            "    System.out.println(a + b);\n  }\n}\n",
}
BROKEN = {
    "cpp": "#include <iostream>\nint main(){ std::cout << 1 }\n",
    "java": "public class Main { public static void main(String[] a) { int x = } }\n",
}
BUSY = {
    "cpp": "int main(){ volatile unsigned long x = 0; for (;;) x++; }\n",
    "python": "while True:\n    pass\n",
    "java": "public class Main { public static void main(String[] a) { long i = 0; while (true) i++; } }\n",
}


def payload(code, language, tests):
    """main.py, submit_code: the executor's payload, exactly these keys."""
    return {"code": code, "language": language,
            "test_cases": [{"input": i, "expected_output": o} for i, o in tests]}


def call_executor(stack, code, language, tests, timeout=180):
    """main.py, call_executor: a 200 is the results; 400/413/422 a refusal."""
    r = stack.post("/evaluate", payload(code, language, tests), timeout=timeout)
    assert r.status == 200, "CompiCode would say: it rejected the request (HTTP %d): %r" % (
        r.status, r)
    results = r.json().get("results", [])
    assert len(results) == len(tests), results
    for res in results:
        # executor/server.cpp, handle_evaluate: the fields of a result.
        for key, kind in (("input", str), ("expected", str), ("actual", str), ("error", str),
                          ("success", bool), ("passed", bool), ("runtime_ms", int)):
            assert isinstance(res.get(key), kind), (key, res)
    return results


def submission_verdict(results):
    """main.py, submit_code: the verdict stored with the submission."""
    passed_all = bool(results) and all(r.get("passed", False) for r in results)
    if passed_all:
        return "accepted"
    return "error" if any(r.get("error") for r in results) else "wrong_answer"


def label(res):
    """SolvePlatform.jsx: a testcase's heading."""
    return "Accepted" if res["passed"] else ("Error" if res["error"] else "Wrong Answer")


def need(installed, language):
    if language not in installed:
        pytest.skip("%s is not installed" % language)


# ---------------------------------------------------------------- answers

def test_the_executor_readme_example(stack, installed):
    # executor/README.md, "API": print(int(input()) * 2) on "4".
    need(installed, "python")
    res, = call_executor(stack, "print(int(input()) * 2)", "python", [("4", "8")])
    assert res["input"] == "4" and res["expected"] == "8", res
    assert res["actual"] == "8\n" and res["error"] == "", res
    assert res["success"] is True and res["passed"] is True, res
    assert res["runtime_ms"] >= 0, res


@pytest.mark.parametrize("language", LANGUAGES)
def test_accepted_and_wrong_answer(stack, installed, language):
    # main.py, submit_code; SolvePlatform.jsx, the testcase labels.
    need(installed, language)
    results = call_executor(stack, APLUSB[language], language,
                            [("1 2", "3"), ("40 2\n", "42\n"), ("1 1", "3")])
    assert [label(r) for r in results] == ["Accepted", "Accepted", "Wrong Answer"], results
    wa = results[2]
    # server.cpp, run_testcase: success is the clean exit, not the answer.
    assert wa["success"] is True and wa["error"] == "" and wa["actual"] == "2\n", wa
    assert submission_verdict(results) == "wrong_answer"
    assert submission_verdict(results[:2]) == "accepted"


@pytest.mark.parametrize("language", ["cpp", "java"])
def test_a_compile_error_shows_the_compilers_words(stack, installed, language):
    # server.cpp, prepare(): "Compilation Error:\n" + the compiler's stderr, on
    # every test; the UI shows "Error" and the text, never "Wrong Answer".
    need(installed, language)
    results = call_executor(stack, BROKEN[language], language, [("", "1"), ("", "2")])
    for res in results:
        assert res["error"].startswith("Compilation Error:\n"), res
        assert "error" in res["error"][len("Compilation Error:\n"):], res
        assert res["success"] is False and res["passed"] is False, res
        assert label(res) == "Error", res
    assert submission_verdict(results) == "error"


def test_a_python_syntax_error_is_the_programs_own_error(stack, installed):
    # server.cpp, prepare(): python is not compiled; python3 main.py fails
    # with exit 1 and the traceback is the error.
    need(installed, "python")
    res, = call_executor(stack, "def f(:\n    pass\n", "python", [("", "x")])
    assert "SyntaxError" in res["error"], res
    assert not res["error"].startswith("Compilation Error"), res
    assert res["success"] is False and label(res) == "Error", res


@pytest.mark.parametrize("code,text", [
    ("int main(){ volatile int *p = nullptr; *p = 1; }\n",
     "Runtime Error: Segmentation fault (signal 11)"),
    ("#include <cstdlib>\nint main(){ std::abort(); }\n", "Runtime Error: Aborted (signal 6)"),
    ("int main(){ volatile int a = 7, z = 0; return a / z; }\n",
     "Runtime Error: Floating point exception (signal 8)"),
])
def test_a_crash_is_named_by_its_signal(stack, installed, code, text):
    # server.cpp, run_testcase: "Runtime Error: " + strsignal(sig) +
    # " (signal N)"; executor/README.md step 5 names the segfault's text.
    need(installed, "cpp")
    res, = call_executor(stack, code, "cpp", [("", "")])
    assert res["error"] == text, res
    assert res["success"] is False and label(res) == "Error", res


def test_a_crash_after_stderr_keeps_it_before_the_signal(stack, installed):
    # server.cpp, run_testcase: stderr, a newline, then the signal's text.
    need(installed, "cpp")
    code = ("#include <cstdio>\nint main(){ std::fputs(\"boom\", stderr); std::fflush(stderr);"
            " volatile int *p = nullptr; *p = 1; }\n")
    res, = call_executor(stack, code, "cpp", [("", "")])
    assert res["error"] == "boom\nRuntime Error: Segmentation fault (signal 11)", res


@pytest.mark.parametrize("language,seconds", [("cpp", "2"), ("python", "2"), ("java", "3")])
def test_a_timeout_says_how_long(stack, installed, language, seconds):
    # server.cpp, evaluate(): 2 s, Java 3 s; run_testcase: "Execution Timeout
    # (over N seconds)".  gaol measures CPU time; lang.json's time_factor 1.5
    # gives Java its 3 s.
    need(installed, language)
    res, = call_executor(stack, BUSY[language], language, [("", "x")])
    assert res["error"] == "Execution Timeout (over %s seconds)" % seconds, res
    assert res["success"] is False and res["passed"] is False, res
    assert label(res) == "Error", res


def test_a_sleeping_program_is_stopped_near_its_limit(stack, installed):
    # server.cpp: a 2 s wall clock.  gaol judges CPU time; a program that
    # only sleeps is ended by the no-progress deadline (L + 2 s), not 12 s.
    need(installed, "python")
    res, = call_executor(stack, "import time\ntime.sleep(60)\n", "python", [("", "x")])
    assert res["error"] == "Execution Timeout (over 2 seconds)", res
    assert res["runtime_ms"] < 6000, res


def test_crlf_and_lone_cr_are_line_ends_and_actual_comes_back_with_lf(stack, installed):
    # server.cpp, normalize_newlines: \r\n and \r both become \n, in the
    # expected output, in the actual output, and in the `actual` returned.
    need(installed, "python")
    code = "import sys\nsys.stdout.write('1\\r\\n2\\r3\\n')\n"
    res, = call_executor(stack, code, "python", [("", "1\n2\r\n3")])
    assert res["passed"] is True, res
    assert res["actual"] == "1\n2\n3\n", res


def test_leading_and_trailing_whitespace_are_ignored(stack, installed):
    # executor/README.md: passed ignores leading and trailing whitespace.
    need(installed, "python")
    results = call_executor(stack, "print('  7 8  ')\nprint()\n", "python",
                            [("", "7 8"), ("", "7  8")])
    assert [r["passed"] for r in results] == [True, False], results


@pytest.mark.parametrize("name", ["Python", "PYTHON", "CPP", "C++", "Java"])
def test_language_names_are_case_insensitive(stack, installed, name):
    # server.cpp, evaluate(): lower(language), and "c++" is cpp.
    slug = {"python": "python", "cpp": "cpp", "c++": "cpp", "java": "java"}[name.lower()]
    need(installed, slug)
    res, = call_executor(stack, APLUSB[slug], name, [("2 3", "5")])
    assert res["passed"] is True, res


def test_an_unknown_language_is_every_tests_error(stack):
    # server.cpp, evaluate(): fail_all("Unsupported language: " + language).
    results = call_executor(stack, "x", "Brainfuck", [("", "1"), ("", "2")])
    for res in results:
        assert res["error"] == "Unsupported language: Brainfuck", res
        assert res["passed"] is False and res["success"] is False, res
    assert submission_verdict(results) == "error"


def test_no_test_cases_is_an_empty_result_list(stack):
    # server.cpp, evaluate(): no inputs, no results (the language unchecked).
    r = stack.post("/evaluate", payload("x", "anything", []))
    assert r.status == 200, r
    assert r.json() == {"results": []}, r


@pytest.mark.parametrize("body", [
    {"code": "x", "language": "python", "test_cases": [{"input": "1"}]},
    {"code": "x", "language": "python", "test_cases": [{"input": "1", "expected_output": 1}]},
    {"code": "x", "language": "python"},
    [1, 2],
])
def test_a_malformed_body_is_422_with_detail(stack, body):
    # server.cpp, handle_evaluate: 422 {"detail": "..."}; main.py treats it
    # as a refusal.
    r = stack.post("/evaluate", body)
    assert r.status == 422, r
    assert isinstance(r.json().get("detail"), str) and r.json()["detail"], r


def test_java_file_is_named_after_the_public_class(stack, installed):
    # server.cpp, java_class_name: the public class, whatever its name.
    need(installed, "java")
    code = APLUSB["java"].replace("class Main", "class Solution")
    res, = call_executor(stack, code, "java", [("2 2", "4")])
    assert res["passed"] is True, res


def test_many_tests_come_back_in_order(stack, installed):
    # server.cpp, evaluate(): results[i] for test i, whatever ran first.
    need(installed, "python")
    tests = [("%d %d" % (i, i), str(2 * i)) for i in range(10)]
    results = call_executor(stack, APLUSB["python"], "python", tests)
    assert [r["input"] for r in results] == [t[0] for t in tests], results
    assert all(r["passed"] for r in results), [(r["verdict"], r["error"]) for r in results]


# ---------------------------------------------------------------- limits

def test_compicodes_limits_on_a_stack_with_the_defaults(make_stack, installed):
    # server.cpp: kMaxStdout 8 MiB per run ("Output Limit Exceeded (over 8
    # MB)"), kMaxStderr 64 KiB kept and the rest dropped (never a reason to
    # fail), payload up to 16 MiB (set_payload_max_length); gaol's defaults
    # RUN_EVAL_OUTPUT_MAX, RUN_EVAL_STDERR_MAX, RUN_EVAL_INPUT_MAX.  /run
    # keeps its 1 MiB.
    need(installed, "cpp")
    need(installed, "python")
    s = make_stack("compicode-limits", env={"RUN_INPUT_MAX": None, "RUN_OUTPUT_MAX": None,
                                            "RUN_EVAL_INPUT_MAX": None,
                                            "RUN_EVAL_OUTPUT_MAX": None,
                                            "RUN_EVAL_STDERR_MAX": None})
    # The answer, then blanks forever: blanks after the end compare equal,
    # so only the output limit can stop it.
    flood = ("#include <cstdio>\nint main(){ std::puts(\"1\"); for(;;) std::fputs(\"        \", stdout); }\n")
    res, = call_executor(s, flood, "cpp", [("", "1")])
    assert res["error"] == "Output Limit Exceeded (over 8 MB)", res
    assert label(res) == "Error", res

    # 7 MiB of stdout is within the limit, and compared.
    seven = "import sys\nsys.stdout.write('x' * (7 << 20))\n"
    res, = call_executor(s, seven, "python", [("", "x" * (7 << 20))])
    assert res["passed"] is True and len(res["actual"]) == 7 << 20, len(res["actual"])

    # 1 MiB of stderr: the first 64 KiB kept, the answer still judged.
    noisy = "import sys\nsys.stderr.write('e' * (1 << 20))\nprint(5)\n"
    res, = call_executor(s, noisy, "python", [("", "5")])
    assert res["passed"] is True and res["success"] is True, {k: res[k] for k in ("passed",)}
    assert len(res["error"]) == 64 << 10, len(res["error"])

    # n = 2e5 numbers of 10 digits: a body of about 2.2 MB.
    n = 200000
    numbers = " ".join(str(10 ** 9 + i) for i in range(n))
    code = "import sys\nd = sys.stdin.read().split()\nprint(sum(map(int, d[1:])))\n"
    body = payload(code, "python", [("%d\n%s\n" % (n, numbers),
                                      str(sum(10 ** 9 + i for i in range(n))))])
    assert len(json.dumps(body)) > 2 * 10 ** 6
    r = s.post("/evaluate", body, timeout=120)
    assert r.status == 200, r
    assert r.json()["results"][0]["passed"] is True, r.json()["results"][0]["error"]

    # /run keeps RUN_INPUT_MAX, 1 MiB, in nginx and in gaol.
    r = s.post("/run", {"lang_slug": "python", "solution_text": "x" * (2 << 20)})
    gh.assert_json_error(r, 413)
