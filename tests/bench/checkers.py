#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""`make bench-checkers` (issue 30): what a checker and an interactor cost
per test on a warm request (every program built and cached), through the
real service (nginx + gaol-fcgi, one worker, one lane: RUN_EVAL_PARALLEL=1,
so each test's cost is the request's divided by its tests).

Four requests of TESTS tests each, sent in turn REPEAT times (interleaved,
so the machine's load falls on all alike), timed from the client:

  plain        C++ a+b judged by the streamed comparison;
  checker      the same with a testlib-style C++ token checker
               (tests/integration/checkers/tokens.cpp);
  line         C++: one number in, one line out (the interactive one's
               plain twin);
  interactive  C++: the same program, its number sent by a C++
               interactor (judge.h beside it) that checks the answer.

Prints the medians and the per-test differences (targets: a checker at
most +20 ms per test, an interactive test at most +30 ms), and writes them
between <!-- bench-checkers --> markers into docs/bench.md.  Root; about a
minute on a warm cache.

Usage: BUILD=build tests/bench/checkers.py"""

import json
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))

import gaol_helpers as gh  # noqa: E402

TESTS = int(os.environ.get("CHECKERS_TESTS", "20"))
REPEAT = int(os.environ.get("CHECKERS_REPEAT", "9"))
CHK = os.path.join(REPO, "tests", "integration", "checkers")

APLUSB = "#include <cstdio>\nint main(){long a,b;std::scanf(\"%ld %ld\",&a,&b);" \
         "std::printf(\"%ld\\n\",a+b);}"
# The interactive twin: the interactor sends the test's number, the
# solution answers it on one line, the interactor checks it.
ECHO = "#include <iostream>\nint main(){long n;std::cin>>n;std::cout<<n<<std::endl;}"
ASKER = ('#include <iostream>\n#include "judge.h"\n'
         "int main(int argc,char**argv){long n=std::atol(judge_read(argv[1]).c_str());"
         "std::cout<<n<<std::endl;long m;if(!(std::cin>>m))"
         "judge_quit(8,\"unexpected eof\",\"no answer\");"
         "if(m!=n)WA(\"%ld for %ld\",m,n);OK(\"%ld\",n);}")


def src(name):
    with open(os.path.join(CHK, name)) as f:
        return f.read()


def program(name):
    return {"language": "cpp", "code": src(name),
            "files": [{"name": "judge.h", "content": src("judge.h")}]}


def bodies():
    sums = [{"input": "%d %d" % (i, i + 1), "expected_output": str(2 * i + 1)}
            for i in range(TESTS)]
    nums = [{"input": str(i + 1), "expected_output": str(i + 1)} for i in range(TESTS)]
    base = {"language": "cpp", "time_limit_ms": 2000}
    return {
        "plain": dict(base, code=APLUSB, test_cases=sums),
        "checker": dict(base, code=APLUSB, test_cases=sums, checker=program("tokens.cpp")),
        "line": dict(base, code=ECHO, test_cases=nums),
        "interactive": dict(base, code=ECHO, test_cases=nums,
                            interactor={"language": "cpp", "code": ASKER,
                                        "files": [{"name": "judge.h",
                                                   "content": src("judge.h")}]}),
    }


def timed(stack, body):
    data = json.dumps(body).encode()
    t0 = time.monotonic()
    r = stack.post("/evaluate", data, timeout=300.0)
    ms = (time.monotonic() - t0) * 1000
    doc = r.json()
    bad = [t["verdict"] for t in doc.get("results", []) if t["verdict"] != "OK"]
    if r.status != 200 or bad:
        raise RuntimeError("%s: %s" % (r.status, json.dumps(doc)[:800]))
    return ms


def table(med):
    per = {k: v / TESTS for k, v in med.items()}
    lines = [
        "| request (%d tests, warm) | median ms | per test ms |" % TESTS,
        "|---|---|---|",
    ]
    for k in ("plain", "checker", "line", "interactive"):
        lines.append("| %s | %.0f | %.1f |" % (k, med[k], per[k]))
    lines += [
        "",
        "- a checker adds **%.1f ms per test** (target: at most 20; ratio %.2f)"
        % (per["checker"] - per["plain"], med["checker"] / med["plain"]),
        "- an interactive test costs **%.1f ms more** than its plain twin (target: at "
        "most 30; ratio %.2f)" % (per["interactive"] - per["line"],
                                  med["interactive"] / med["line"]),
    ]
    return "\n".join(lines)


def write_docs(text):
    path = os.path.join(REPO, "docs", "bench.md")
    with open(path) as f:
        doc = f.read()
    section = ("<!-- bench-checkers -->\n## Checkers and interactors (`make bench-checkers`, "
               "issue 30)\n\n" "Measured by `tests/bench/checkers.py` on %s: one worker, "
               "RUN_EVAL_PARALLEL=1, %d interleaved rounds, medians from one run.\n\n%s\n"
               "<!-- /bench-checkers -->" % (time.strftime("%Y-%m-%d"), REPEAT, text))
    if "<!-- bench-checkers -->" in doc:
        doc = re.sub(r"<!-- bench-checkers -->.*?<!-- /bench-checkers -->", lambda m: section,
                     doc, flags=re.S)
    else:
        doc = doc.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as f:
        f.write(doc)


def main():
    stack = gh.Stack("bench-checkers", concurrency=1,
                     env={"RUN_EVAL_PARALLEL": "1"},
                     uid_base=36001 + (os.getpid() % 200) * 10)
    stack.start()
    try:
        reqs = bodies()
        for body in reqs.values():        # builds everything: warm from here
            timed(stack, body)
        times = {k: [] for k in reqs}
        for _ in range(REPEAT):
            for k, body in reqs.items():
                times[k].append(timed(stack, body))
    finally:
        stack.stop_clean()
    med = {k: statistics.median(v) for k, v in times.items()}
    text = table(med)
    print(text)
    write_docs(text)


if __name__ == "__main__":
    main()
