# SPDX-License-Identifier: Apache-2.0
"""Codebattle's app as the client, unchanged (issue 12): requests built as
remote_zig.ex builds them, checkers generated as the runner generates them
(checker_generator.ex + priv/templates/<slug>.eex), answers judged by
output_parser_v2.ex's rules — see codebattle_client.py, which rewrites those
three in Python and cites them.  Every language of Codebattle's white list
(languages.ex) that /health lists as installed is tried; the others are
skipped by name, never counted as passed.

Cases, per language:
- ok:      a + b printing a line per call: status "ok", each assert's output
- types:   a string with quotes, a backslash and a newline, and an array
           (the generator's escaping and array literals): status "ok"
- nested:  an array of arrays and a hash in, an array out (the generator's
           nested literals; for csharp nested target-typed new()): "ok"
- failure: a - b: status "failure", 0 of 2
- error:   a solution that does not compile / load: status "error", with
           neither the timeout nor the out-of-memory message
- timeout: an endless loop with the language's container_run_timeout:
           the timeout message, answered within that timeout (Finch's
           receive_timeout: later is "service_timeout")
- oom:     (python, cpp, golang, rust) a memory hog: the out-of-memory message
- output:  (js, ts) what the solution prints while it loads: output_error,
           and a call's output cut to 99 characters + " ..." (checker.js)
"""

import time

import pytest

import codebattle_client as cb
import gaol_helpers as gh

LANGS = ["clojure", "cpp", "csharp", "dart", "elixir", "golang", "java", "js",
         "kotlin", "php", "python", "ruby", "rust", "swift", "ts", "zig"]

# Tasks as Codebattle stores them (Runner.Task: input_signature,
# output_signature, asserts with arguments and expected).
SUM = {
    "input_signature": [{"argument_name": "a", "type": {"name": "integer"}},
                        {"argument_name": "b", "type": {"name": "integer"}}],
    "output_signature": {"type": {"name": "integer"}},
    "asserts": [{"arguments": [1, 2], "expected": 3},
                {"arguments": [3, 5], "expected": 8}],
}
TYPES = {
    "input_signature": [{"argument_name": "s", "type": {"name": "string"}},
                        {"argument_name": "xs",
                         "type": {"name": "array", "nested": {"name": "integer"}}}],
    "output_signature": {"type": {"name": "integer"}},
    "asserts": [{"arguments": ['a"b\\c\nd', [1, 2, 3]], "expected": 13},
                {"arguments": ["", []], "expected": 0}],
}

NESTED = {
    "input_signature": [
        {"argument_name": "grid",
         "type": {"name": "array", "nested": {"name": "array", "nested": {"name": "integer"}}}},
        {"argument_name": "names", "type": {"name": "hash", "nested": {"name": "integer"}}}],
    "output_signature": {"type": {"name": "array", "nested": {"name": "integer"}}},
    "asserts": [{"arguments": [[[1, 2], [3]], {"x": 5, "y": 6}], "expected": [6, 5]},
                {"arguments": [[[]], {"x": 0}], "expected": [0, 0]}],
}

# Solutions in the shape of each language's solution_template (languages.ex);
# the wrapper (module.exports, package ...) is added by cb.request.
S = {
    "python": {
        "nested": "def solution(grid, names):\n    return [sum(map(sum, grid)), names['x']]\n",
        "ok": "def solution(a: int, b: int) -> int:\n    print('sum', a, b)\n    return a + b\n",
        "wrong": "def solution(a: int, b: int) -> int:\n    return a - b\n",
        "broken": "def solution(a, b:\n    return a\n",
        "loop": "def solution(a, b):\n    while True:\n        pass\n",
        "types": "def solution(s, xs):\n    return len(s) + sum(xs)\n",
        "oom": "def solution(a, b):\n    x = []\n    while True:\n        x.append(b'\\x01' * (1 << 24))\n",
    },
    "js": {
        "nested": "const solution = (grid, names) => [grid.flat().reduce((a, b) => a + b, 0), names.x];",
        "ok": "const solution = (a, b) => {\n  console.log('sum', a, b);\n  return a + b;\n};",
        "wrong": "const solution = (a, b) => a - b;",
        "broken": "const solution = (a, b) => { return a + ; };",
        "loop": "const solution = (a, b) => { while (true) {} };",
        "types": "const solution = (s, xs) => s.length + xs.reduce((x, y) => x + y, 0);",
        "output": ("const _ = require(\"lodash\");\nconsole.log('loading');\n"
                   "const solution = (a, b) => { console.log('x'.repeat(150)); return a + b; };"),
    },
    "ts": {
        "nested": "function solution(grid: Array<Array<number>>, names: any): Array<number> {\n  return [grid.flat().reduce((a, b) => a + b, 0), names.x];\n}",
        "ok": "function solution(a: number, b: number): number {\n  console.log('sum', a, b);\n  return a + b;\n}",
        "wrong": "function solution(a: number, b: number): number {\n  return a - b;\n}",
        "broken": "function solution(a: number, b: number): number {\n  return a + ;\n}",
        "loop": "function solution(a: number, b: number): number {\n  while (true) {}\n}",
        "types": "function solution(s: string, xs: Array<number>): number {\n  return s.length + xs.reduce((x, y) => x + y, 0);\n}",
        "output": ("import * as _ from \"lodash\";\nconsole.log('loading');\n"
                   "function solution(a: number, b: number): number {\n"
                   "  console.log('x'.repeat(150));\n  return a + b;\n}"),
    },
    "ruby": {
        "nested": "def solution(grid, names)\n  [grid.flatten.sum, names['x']]\nend\n",
        "ok": "def solution(a, b)\n  puts \"sum #{a} #{b}\"\n  a + b\nend\n",
        "wrong": "def solution(a, b)\n  a - b\nend\n",
        "broken": "def solution(a, b)\n  a +\n",
        "loop": "def solution(a, b)\n  loop {}\nend\n",
        "types": "def solution(s, xs)\n  s.length + xs.sum\nend\n",
    },
    "php": {
        "nested": "<?php\n\nfunction solution(array $grid, array $names) {\n  $s = 0;\n  foreach ($grid as $r) $s += array_sum($r);\n  return [$s, $names['x']];\n}\n",
        "ok": "<?php\n\nfunction solution(int $a, int $b) {\n  echo \"sum $a $b\\n\";\n  return $a + $b;\n}\n",
        "wrong": "<?php\n\nfunction solution(int $a, int $b) {\n  return $a - $b;\n}\n",
        "broken": "<?php\n\nfunction solution(int $a, int $b) {\n  return $a + ;\n}\n",
        "loop": "<?php\n\nfunction solution(int $a, int $b) {\n  while (true) {}\n}\n",
        "types": "<?php\n\nfunction solution(string $s, array $xs) {\n  return strlen($s) + array_sum($xs);\n}\n",
    },
    "elixir": {
        "ok": "defmodule Solution do\n  def solution(a, b) do\n    IO.puts(\"sum #{a} #{b}\")\n    a + b\n  end\nend\n",
        "wrong": "defmodule Solution do\n  def solution(a, b) do\n    a - b\n  end\nend\n",
        "broken": "defmodule Solution do\n  def solution(a, b) do\n    a +\n  end\n",
        "loop": "defmodule Solution do\n  def solution(a, b), do: spin(a + b)\n  defp spin(x), do: spin(x)\nend\n",
        "types": "defmodule Solution do\n  def solution(s, xs), do: String.length(s) + Enum.sum(xs)\nend\n",
    },
    "clojure": {
        "ok": "(defn solution [a b]\n  (println \"sum\" a b)\n  (+ a b))\n",
        "wrong": "(defn solution [a b]\n  (- a b))\n",
        "broken": "(defn solution [a b]\n  (+ a b)\n",
        "loop": "(defn solution [a b]\n  (loop [] (recur)))\n",
        "types": "(defn solution [s xs]\n  (+ (count s) (reduce + 0 xs)))\n",
    },
    "cpp": {
        "nested": ("#include <bits/stdc++.h>\n\nusing namespace std;\n\n"
                   "vector<int> solution(vector<vector<int>> grid, map<string,int> names) {\n"
                   "  int s = 0;\n  for (auto& r : grid) for (int x : r) s += x;\n  return {s, names[\"x\"]};\n}\n"),
        "ok": ("#include <bits/stdc++.h>\n\nusing namespace std;\n\nint solution(int a, int b) {\n"
               "  cout << \"sum \" << a << \" \" << b << endl;\n  return a + b;\n}\n"),
        "wrong": "#include <bits/stdc++.h>\n\nusing namespace std;\n\nint solution(int a, int b) {\n  return a - b;\n}\n",
        "broken": "#include <bits/stdc++.h>\n\nusing namespace std;\n\nint solution(int a, int b) {\n  return a + ;\n}\n",
        "loop": ("#include <bits/stdc++.h>\n\nusing namespace std;\n\nint solution(int a, int b) {\n"
                 "  volatile long long x = 0;\n  while (true) x++;\n  return 0;\n}\n"),
        "types": ("#include <bits/stdc++.h>\n\nusing namespace std;\n\nint solution(string s, vector<int> xs) {\n"
                  "  int r = s.size();\n  for (int x : xs) r += x;\n  return r;\n}\n"),
        "oom": ("#include <bits/stdc++.h>\n\nusing namespace std;\n\nint solution(int a, int b) {\n"
                "  vector<vector<char>> v;\n  while (true) v.emplace_back(1 << 24, 1);\n  return 0;\n}\n"),
    },
    "java": {
        "nested": ("import java.util.*;\n\npublic class Solution {\n"
                   "  public List<Integer> solution(List<List<Integer>> grid, Map<String, Integer> names) {\n"
                   "    int s = 0;\n    for (List<Integer> r : grid) for (int x : r) s += x;\n"
                   "    return List.of(s, names.get(\"x\"));\n  }\n}"),
        "ok": ("import java.util.*;\n\npublic class Solution {\n  public Integer solution(Integer a, Integer b) {\n"
               "    System.out.println(\"sum \" + a + \" \" + b);\n    return a + b;\n  }\n}"),
        "wrong": "public class Solution {\n  public Integer solution(Integer a, Integer b) {\n    return a - b;\n  }\n}",
        "broken": "public class Solution {\n  public Integer solution(Integer a, Integer b) {\n    return a + ;\n  }\n}",
        "loop": "public class Solution {\n  public Integer solution(Integer a, Integer b) {\n    while (true) {}\n  }\n}",
        "types": ("import java.util.*;\n\npublic class Solution {\n  public Integer solution(String s, List<Integer> xs) {\n"
                  "    int r = s.length();\n    for (int x : xs) r += x;\n    return r;\n  }\n}"),
    },
    "kotlin": {
        "nested": ("fun solution(grid: List<List<Int>>, names: Map<String, Int>): List<Int> {\n"
                   "  return listOf(grid.map { it.sum() }.sum(), names[\"x\"]!!)\n}"),
        "ok": "fun solution(a: Int, b: Int): Int {\n  println(\"sum $a $b\")\n  return a + b\n}",
        "wrong": "fun solution(a: Int, b: Int): Int {\n  return a - b\n}",
        "broken": "fun solution(a: Int, b: Int): Int {\n  return a +\n}",
        "loop": "fun solution(a: Int, b: Int): Int {\n  while (true) {}\n}",
        "types": "fun solution(s: String, xs: List<Int>): Int {\n  return s.length + xs.sum()\n}",
    },
    "golang": {
        "nested": ("func solution(grid [][]int, names map[string]int) []int {\n  s := 0\n"
                   "  for _, r := range grid {\n    for _, x := range r {\n      s += x\n    }\n  }\n"
                   "  return []int{s, names[\"x\"]}\n}"),
        "ok": "import \"fmt\"\n\nfunc solution(a int, b int) int {\n  fmt.Println(\"sum\", a, b)\n  return a + b\n}",
        "wrong": "func solution(a int, b int) int {\n  return a - b\n}",
        "broken": "func solution(a int, b int) int {\n  return a +\n}",
        "loop": "func solution(a int, b int) int {\n  for {\n  }\n}",
        "types": "func solution(s string, xs []int) int {\n  r := len(s)\n  for _, x := range xs {\n    r += x\n  }\n  return r\n}",
        "oom": ("func solution(a int, b int) int {\n  var v [][]byte\n  for {\n    c := make([]byte, 1<<24)\n"
                "    for i := range c {\n      c[i] = 1\n    }\n    v = append(v, c)\n  }\n}"),
    },
    "rust": {
        "nested": ("use std::collections::HashMap;\n\n"
                   "pub fn solution(grid: Vec<Vec<i64>>, names: HashMap<String, i64>) -> Vec<i64> {\n"
                   "  let s: i64 = grid.iter().map(|r| r.iter().sum::<i64>()).sum();\n  vec![s, names[\"x\"]]\n}\n"),
        "ok": ("use std::collections::HashMap;\n\npub fn solution(a: i64, b: i64) -> i64 {\n"
               "  println!(\"sum {} {}\", a, b);\n  a + b\n}\n"),
        "wrong": "pub fn solution(a: i64, b: i64) -> i64 {\n  a - b\n}\n",
        "broken": "pub fn solution(a: i64, b: i64) -> i64 {\n  a +\n}\n",
        "loop": "pub fn solution(a: i64, b: i64) -> i64 {\n  loop {}\n}\n",
        "types": "pub fn solution(s: String, xs: Vec<i64>) -> i64 {\n  s.len() as i64 + xs.iter().sum::<i64>()\n}\n",
        "oom": ("pub fn solution(a: i64, b: i64) -> i64 {\n  let mut v: Vec<Vec<u8>> = Vec::new();\n"
                "  loop {\n    v.push(vec![1u8; 1 << 24]);\n  }\n}\n"),
    },
    "csharp": {
        # .NET's implicit usings (System.Linq) and a target-typed new(), as
        # Codebattle's own solution template writes it (languages.ex).
        "nested": ("using System;\nusing System.Collections.Generic;\n\nnamespace app\n{\n  public class Solution\n  {\n"
                   "    public List<int> solution(List<List<int>> grid, Dictionary<string, int> names)\n    {\n"
                   "      List<int> ans = new();\n      ans.Add(grid.Sum(r => r.Sum()));\n      ans.Add(names[\"x\"]);\n"
                   "      return ans;\n    }\n  }\n}\n"),
        "ok": ("using System;\nusing System.Collections.Generic;\n\nnamespace app\n{\n  public class Solution\n  {\n"
               "    public int solution(int a, int b)\n    {\n      Console.WriteLine(\"sum \" + a + \" \" + b);\n"
               "      return a + b;\n    }\n  }\n}\n"),
        "wrong": ("using System;\n\nnamespace app\n{\n  public class Solution\n  {\n"
                  "    public int solution(int a, int b)\n    {\n      return a - b;\n    }\n  }\n}\n"),
        "broken": ("using System;\n\nnamespace app\n{\n  public class Solution\n  {\n"
                   "    public int solution(int a, int b)\n    {\n      return a + ;\n    }\n  }\n}\n"),
        "loop": ("using System;\n\nnamespace app\n{\n  public class Solution\n  {\n"
                 "    public int solution(int a, int b)\n    {\n      while (true) {}\n    }\n  }\n}\n"),
        "types": ("using System;\nusing System.Collections.Generic;\n\nnamespace app\n{\n  public class Solution\n  {\n"
                  "    public int solution(string s, List<int> xs)\n    {\n      int r = s.Length;\n"
                  "      foreach (var x in xs) r += x;\n      return r;\n    }\n  }\n}\n"),
    },
}

CASES = [(slug, case) for slug in LANGS
         for case in ("ok", "types", "nested", "failure", "error", "timeout", "oom", "output")
         if case in ("ok", "types", "failure", "error", "timeout") or case in S.get(slug, {})]
NAME = {"failure": "wrong", "error": "broken", "timeout": "loop"}


def send(stack, task, slug, solution):
    """POST /run as remote_zig.ex does; the verdict as output_parser_v2.ex
    gives it (service_timeout when the answer comes after Finch's
    receive_timeout, the request's own timeout)."""
    body = cb.request(task, slug, solution)
    t0 = time.monotonic()
    r = stack.run(body, timeout=cb.timeout_ms(slug) / 1000 + 60)
    elapsed = time.monotonic() - t0
    assert r.status == 200, r
    doc = r.json()
    if elapsed > cb.timeout_ms(slug) / 1000:
        return doc, {"status": "service_timeout", "elapsed": elapsed}
    return doc, cb.parse(doc, task)


@pytest.mark.parametrize("slug,case", CASES)
def test_codebattle(stack, slug, case):
    if slug not in stack.installed():
        pytest.skip("%s is not installed (GET /health)" % slug)
    sols = S[slug]
    task = {"types": TYPES, "nested": NESTED}.get(case, SUM)
    doc, v = send(stack, task, slug, sols[NAME.get(case, case)])
    why = (v, doc)
    if case == "ok":
        assert v["status"] == "ok" and v["success_count"] == 2, why
        outputs = [a["output"] for a in v["asserts"]]
        assert any(o and "sum" in o and "1" in o and "2" in o for o in outputs), why
        assert any(o and "sum" in o and "3" in o and "5" in o for o in outputs), why
    elif case in ("types", "nested"):
        assert v["status"] == "ok" and v["success_count"] == 2, why
    elif case == "failure":
        assert v["status"] == "failure" and v["success_count"] == 0, why
        assert v["asserts_count"] == 2 and len(v["asserts"]) == 2, why
    elif case == "error":
        assert v["status"] == "error", why
        assert v["output_error"] not in (cb.TIMEOUT_MESSAGE, cb.OOM_MESSAGE), why
        assert doc["timed_out"] is False, why
    elif case == "timeout":
        assert v["status"] == "error" and v["output_error"] == cb.TIMEOUT_MESSAGE, why
        assert doc["timed_out"] is True and doc["signal"] == "SIGKILL", why
    elif case == "oom":
        assert v["status"] == "error" and v["output_error"] == cb.OOM_MESSAGE, why
        assert doc["oom_killed"] is True and doc["timed_out"] is False, why
    elif case == "output":
        assert v["status"] == "ok", why
        assert v["output_error"] == "loading\n", why
        assert all(a["output"] == "x" * 99 + " ..." for a in v["asserts"]), why


def test_checker_text_null_is_accepted_for_a_harness_language(stack):
    # remote_zig.ex sends "checker_text": nil (JSON null) when the language's
    # meta says generate_checker? false.
    body = cb.request(SUM, "python", S["python"]["ok"])
    assert "checker_text" in body and body["checker_text"] is None
    r = stack.run(body)
    assert r.status == 200, r
    assert cb.parse(r.json(), SUM)["status"] == "ok", r


def test_health_names_the_compiler_that_serves_csharp(stack):
    # issue 12: Mono's mcs or a .NET SDK — a Codebattle operator must see which.
    health = stack.health()
    if "csharp" not in health["languages"]:
        pytest.skip("csharp is not installed (GET /health)")
    assert any(w in health["toolchains"]["csharp"] for w in ("Mono", ".NET")), health
