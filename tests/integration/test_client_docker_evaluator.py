# SPDX-License-Identifier: Apache-2.0
"""docker-evaluator's contract, against gaol's POST /evaluate (issue 12).

Written from arifahmedozturk/Docker-Evaluator, which is the specification:
- docker_evaluator/evaluator.py (`DockerEvaluator.evaluate`): the call
  `evaluate(code, stdin, expected_output, language, time_limit, input_type,
  file_io_name, memory_limit)`, the memory floor (256 MB, in KB), and the
  answer `{"correct", "details"}`: details is the helper's output when it
  says "Limit Exceeded", "Compilation Error" or "Runtime Error"; "Wrong
  Answer" when `output.split() != expected_output.split()`; else "OK (Nms)".
- docker_evaluator/language_helpers/*/entrypoint.sh: the words ("Time Limit
  Exceeded" for timeout's 124, "Memory Limit Exceeded" for 137, "Runtime
  Error (exit code N)" otherwise, a signal N being timeout's 128 + N), the
  compilers (gcc -std=c99 -O2, g++ -std=c++20 -O2, python3), and file I/O
  (`<file_io_name>.in` in, `<file_io_name>.out` out).
- README.md: the language keys (py3, py2, c, cpp) and the details list.

docker-evaluator is a Python library, not an HTTP service: `evaluate()`
below is its call mapped onto one /evaluate request, one test case, token
comparison (its `split()`), the same limits; `correct` and `details` are
then read from gaol's answer as the library would return them.
"""

import re

import pytest

# README.md, "Supported languages"; py2 has no Python 2 in Debian 12.
LANGUAGES = ["c", "cpp", "py3"]
SLUG = {"c": "c", "cpp": "cpp", "py3": "python"}

PROGRAMS = {
    "c": {
        "ok": "#include <stdio.h>\nint main(void){long a,b;scanf(\"%ld %ld\",&a,&b);"
              "printf(\"%ld\\n\",a+b);return 0;}\n",
        "exit3": "int main(void){return 3;}\n",
        "segv": "int main(void){volatile int *p=0;*p=1;return 0;}\n",
        "busy": "int main(void){volatile unsigned long x=0;for(;;)x++;}\n",
        "memory": "#include <stdlib.h>\n#include <string.h>\nint main(void){for(;;){char*p=malloc(1<<20);"
                  "if(!p)return 1;memset(p,1,1<<20);}}\n",
        "broken": "int main(void){ return 0 }\n",
        "file_io": "#include <stdio.h>\nint main(void){long a,b;FILE*f=fopen(\"sum.in\",\"r\");"
                   "FILE*g=fopen(\"sum.out\",\"w\");if(!f||!g)return 2;fscanf(f,\"%ld %ld\",&a,&b);"
                   "fprintf(g,\"%ld\\n\",a+b);fclose(g);return 0;}\n",
        "deep": "#include <stdio.h>\nstatic int next[1000001];\n"
                "static long walk(int u){volatile long r; if(u<0)return 0; r=walk(next[u]); return r+1;}\n"
                "int main(void){int n;scanf(\"%d\",&n);for(int i=0;i<n;i++)next[i]=i+1<n?i+1:-1;"
                "printf(\"%ld\\n\",walk(0));return 0;}\n",
        "tokens": "#include <stdio.h>\nint main(void){puts(\"1\");puts(\"2\");puts(\"3\");return 0;}\n",
    },
    "cpp": {
        "ok": "#include <bits/stdc++.h>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<\"\\n\";}\n",
        "exit3": "int main(){return 3;}\n",
        "segv": "int main(){volatile int *p=nullptr;*p=1;}\n",
        "busy": "int main(){volatile unsigned long x=0;for(;;)x++;}\n",
        "memory": "#include <vector>\n#include <cstring>\nint main(){std::vector<char*> v;for(;;)"
                  "{char*p=new char[1<<20];std::memset(p,1,1<<20);v.push_back(p);}}\n",
        "broken": "int main(){ return 0 }\n",
        "file_io": "#include <fstream>\nint main(){std::ifstream f(\"sum.in\");std::ofstream g(\"sum.out\");"
                   "long a,b;f>>a>>b;g<<a+b<<\"\\n\";}\n",
        "deep": "#include <bits/stdc++.h>\nstd::vector<std::vector<int>> g;std::vector<int> d;\n"
                "void dfs(int u,int p){for(int v:g[u])if(v!=p){d[v]=d[u]+1;dfs(v,u);}}\n"
                "int main(){int n;std::cin>>n;g.assign(n,{});d.assign(n,0);"
                "for(int i=1;i<n;i++){g[i-1].push_back(i);g[i].push_back(i-1);}"
                "dfs(0,-1);std::cout<<d[n-1]+1<<\"\\n\";}\n",
        "tokens": "#include <cstdio>\nint main(){std::puts(\"1\\n2\\n3\");}\n",
    },
    "py3": {
        "ok": "a, b = map(int, input().split())\nprint(a + b)\n",
        "exit3": "import sys\nsys.exit(3)\n",
        "segv": "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
        "busy": "while True:\n    pass\n",
        "memory": "blocks = []\nwhile True:\n    blocks.append(bytearray(1 << 20))\n",
        "broken": "def main(:\n    pass\n",
        "file_io": "a, b = map(int, open('sum.in').read().split())\nopen('sum.out', 'w').write('%d\\n' % (a + b))\n",
        "deep": None,
        "tokens": "print(1)\nprint(2)\nprint(3)\n",
    },
}


def evaluate(stack, code, stdin, expected_output, language, time_limit,
             input_type="stdin", file_io_name="", memory_limit=1024):
    """evaluator.py, DockerEvaluator.evaluate, as one /evaluate request."""
    memory_limit = max(memory_limit, 256 * 1024)       # evaluator.py: MIN_MEMORY_KB
    body = {"code": code, "language": language,
            "test_cases": [{"input": stdin, "expected_output": expected_output}],
            "time_limit_ms": int(time_limit * 1000),
            "memory_limit_mb": memory_limit // 1024,
            "input_type": input_type, "file_io_name": file_io_name,
            "comparison": "tokens"}
    r = stack.post("/evaluate", body, timeout=180)
    assert r.status == 200, r
    res, = r.json()["results"]
    details = res["details"]
    # evaluator.py: correct only for "OK (...)".
    return {"correct": details.startswith("OK ("), "details": details}, res


def program(language, name, installed):
    if SLUG[language] not in installed:
        pytest.skip("%s is not installed" % language)
    code = PROGRAMS[language][name]
    if code is None:
        pytest.skip("%s: no program for %s" % (language, name))
    return code


def test_the_readme_example(stack, installed):
    # README.md, "Usage": {'correct': True, 'details': 'OK (8ms)'}.
    code = program("py3", "ok", installed)
    out, _ = evaluate(stack, "n = int(input()); print(n * 2)", "21", "42", "py3", 1,
                      memory_limit=256 * 1024)
    assert out["correct"] is True, out
    assert re.fullmatch(r"OK \(\d+ms\)", out["details"]), out
    del code


@pytest.mark.parametrize("language", LANGUAGES)
def test_ok_and_wrong_answer(stack, installed, language):
    # evaluator.py: "OK (Nms)"; "Wrong Answer" when the tokens differ.
    code = program(language, "ok", installed)
    out, _ = evaluate(stack, code, "1 2", "3", language, 1)
    assert out["correct"] is True and re.fullmatch(r"OK \(\d+ms\)", out["details"]), out
    out, res = evaluate(stack, code, "1 1", "3", language, 1)
    assert out == {"correct": False, "details": "Wrong Answer"}, out


@pytest.mark.parametrize("language", LANGUAGES)
def test_output_is_compared_by_tokens(stack, installed, language):
    # evaluator.py: output.split() != expected_output.split().
    code = program(language, "tokens", installed)
    out, _ = evaluate(stack, code, "", "1 2   3", language, 1)
    assert out["correct"] is True, out
    out, _ = evaluate(stack, code, "", "12 3", language, 1)
    assert out["details"] == "Wrong Answer", out


@pytest.mark.parametrize("language", LANGUAGES)
def test_runtime_error_by_exit_code(stack, installed, language):
    # entrypoint.sh: "Runtime Error (exit code $exit_code)".
    code = program(language, "exit3", installed)
    out, _ = evaluate(stack, code, "", "", language, 1)
    assert out == {"correct": False, "details": "Runtime Error (exit code 3)"}, out


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_segfault_is_exit_code_139(stack, installed, language):
    # entrypoint.sh: timeout reports a child killed by SIGSEGV as 128 + 11.
    code = program(language, "segv", installed)
    out, res = evaluate(stack, code, "", "", language, 1)
    assert out == {"correct": False, "details": "Runtime Error (exit code 139)"}, out
    assert res["signal"] == "SIGSEGV", res


@pytest.mark.parametrize("language", LANGUAGES)
def test_time_limit_exceeded_is_the_plain_words(stack, installed, language):
    # entrypoint.sh: exit 124 from timeout -> "Time Limit Exceeded".
    code = program(language, "busy", installed)
    out, res = evaluate(stack, code, "", "x", language, 1)
    assert out == {"correct": False, "details": "Time Limit Exceeded"}, out
    assert res["deadline"] in ("cpu", "no_progress", "wall", None), res


@pytest.mark.parametrize("language", LANGUAGES)
def test_memory_limit_exceeded(stack, installed, language):
    # entrypoint.sh: exit 137 -> "Memory Limit Exceeded"; evaluator.py's
    # floor makes the limit at least 256 MB.
    code = program(language, "memory", installed)
    out, res = evaluate(stack, code, "", "x", language, 5, memory_limit=1024)
    assert out == {"correct": False, "details": "Memory Limit Exceeded"}, out
    assert res["memory_kb"] >= 256 * 1024 * 0.8, res


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_compilation_error(stack, installed, language):
    # entrypoint.sh: "Compilation Error: <output>"; evaluator.py returns it
    # as details.  gaol's details are README.md's "Compilation Error"; the
    # compiler's output is in `error`.
    code = program(language, "broken", installed)
    out, res = evaluate(stack, code, "", "", language, 1)
    assert out == {"correct": False, "details": "Compilation Error"}, out
    assert "Compilation Error" in out["details"]   # evaluator.py's own test
    assert res["error"].startswith("Compilation Error:\n") and "error" in res["error"], res


def test_a_python_syntax_error_is_a_runtime_error(stack, installed):
    # py3_helper/entrypoint.sh: python3 exits 1 -> "Runtime Error (exit code 1)".
    code = program("py3", "broken", installed)
    out, _ = evaluate(stack, code, "", "", "py3", 1)
    assert out == {"correct": False, "details": "Runtime Error (exit code 1)"}, out


@pytest.mark.parametrize("language", LANGUAGES)
def test_file_io_by_file_io_name(stack, installed, language):
    # entrypoint.sh: input copied to ${FILE_IO_NAME}.in, output read from
    # ${FILE_IO_NAME}.out; README.md "File I/O".
    code = program(language, "file_io", installed)
    out, _ = evaluate(stack, code, "5 6", "11", language, 1,
                      input_type="file", file_io_name="sum")
    assert out["correct"] is True, out
    out, _ = evaluate(stack, code, "5 6", "12", language, 1,
                      input_type="file", file_io_name="sum")
    assert out["details"] == "Wrong Answer", out


def test_cpp_is_cpp20(stack, installed):
    # cpp_helper/entrypoint.sh: g++ -std=c++20.
    program("cpp", "ok", installed)
    code = ("#include <bits/stdc++.h>\n#include <concepts>\n#include <ranges>\n#include <span>\n"
            "template <std::integral T> T twice(T x) { return 2 * x; }\n"
            "struct P { int x, y; auto operator<=>(const P&) const = default; };\n"
            "int main() { std::vector<int> v{3, 1, 2}; std::ranges::sort(v);\n"
            "  P a{.x = 1, .y = 2}, b{.x = 1, .y = 3};\n"
            "  auto even = v | std::views::filter([](int x) { return x % 2 == 0; });\n"
            "  std::span<int> s(v); bool starts = std::string(\"abc\").starts_with(\"ab\");\n"
            "  std::cout << twice(v[0]) << ' ' << (a < b) << ' ' << *even.begin() << ' ' << s.size()\n"
            "            << ' ' << starts << ' ' << std::popcount(7u) << '\\n'; }\n")
    out, res = evaluate(stack, code, "", "2 1 2 3 1 3", "cpp", 2)
    assert out["correct"] is True, (out, res["error"])


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_recursion_a_million_deep(stack, installed, language):
    # Issue 12: the stack is as large as the run's memory limit in the
    # compiled languages (lang.json stack_is_memory), so a DFS on a path of
    # 1e6 vertices works as it does under an unlimited stack.
    code = program(language, "deep", installed)
    out, res = evaluate(stack, code, "1000000", "1000000", language, 5)
    assert out["correct"] is True, (out, res["error"], res["signal"])


def test_py2_is_not_available(stack):
    # README.md lists py2; Debian 12 has no Python 2: gaol says so on the
    # test, as an unsupported language (evaluator.py raises ValueError).
    r = stack.post("/evaluate", {"code": "print 1", "language": "py2",
                                 "test_cases": [{"input": "", "expected_output": "1"}]})
    assert r.status == 200, r
    assert r.json()["results"][0]["error"] == "Unsupported language: py2", r
