# SPDX-License-Identifier: Apache-2.0
"""docs/api.md ("Languages") over HTTP: a+b in each language of `make run` (python, js,
cpp, java), and every example of tests/integration/examples/<slug>/<case>/
(the request's files under the language's file names, asserts.json, and
expect.json: what the answer must hold), with the Codebattle records checked
in stdout.  A language /health does not list as installed is skipped by name,
never counted as passed."""

import json
import os

import pytest

import gaol_helpers as gh

LANGS = ["python", "js", "cpp", "java"]

# a+b for the harness languages (no checker), used when the language has no
# example of its own: the harness calls solution(*arguments) per assert.
BUILTIN_SUM = {
    "python": "def solution(a, b):\n    print('adding', a, 'and', b)\n    return a + b\n",
    "js": ("const solution = (a, b) => { console.log(`adding ${a} and ${b}`); return a + b; };\n"
           "module.exports = solution;\n"),
}
SUM_ASSERTS = {"arguments": [[1, 2], [-5, 5], [4000000000, 4000000000]]}


def manifest(slug):
    with open(os.path.join(gh.REPO, "langs", slug, "lang.json")) as f:
        return json.load(f)


def cases():
    """Every example, of every language that has examples (languages beyond
    LANGS are skipped when they are not installed, like any other)."""
    out = []
    slugs = sorted(os.listdir(gh.EXAMPLES)) if os.path.isdir(gh.EXAMPLES) else []
    for slug in slugs:
        d = os.path.join(gh.EXAMPLES, slug)
        if os.path.isdir(d):
            for case in sorted(os.listdir(d)):
                if os.path.isfile(os.path.join(d, case, "expect.json")):
                    out.append((slug, case))
    return out


def read(path):
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return f.read()
    return None


def example(slug, case):
    """The /run request and the expectation of examples/<slug>/<case>/."""
    d = os.path.join(gh.EXAMPLES, slug, case)
    m = manifest(slug)
    payload = {"lang_slug": slug, "solution_text": read(os.path.join(d, m["solution_file"])),
               "timeout": "60s"}
    assert payload["solution_text"] is not None, "%s has no %s" % (d, m["solution_file"])
    if m.get("checker_file"):
        checker = read(os.path.join(d, m["checker_file"]))
        if checker is not None:
            payload["checker_text"] = checker
    asserts = read(os.path.join(d, "asserts.json"))
    if asserts is not None:
        payload["asserts"] = asserts
    return payload, json.loads(read(os.path.join(d, "expect.json")))


def require_installed(stack, slug):
    if slug not in stack.installed():
        pytest.skip("%s is not installed (GET /health)" % slug)


def check_expectation(doc, expect):
    gh.assert_run_shape(doc)
    want = expect.get("exit_code", 0)
    if want == "nonzero":
        assert doc["exit_code"] not in (0, None), doc
    else:
        assert doc["exit_code"] == want, doc
    assert doc["timed_out"] is False, doc
    if "signal" in expect:
        assert doc["signal"] == expect["signal"], doc
    if "stdout" in expect:
        assert doc["stdout"] == expect["stdout"], doc
    for key, stream in (("stdout_contains", "stdout"), ("stderr_contains", "stderr")):
        if key in expect:
            assert expect[key] in doc[stream], "%s lacks %r: %r" % (stream, expect[key], doc)
    if "records" in expect:
        got = gh.records(doc["stdout"])
        assert len(got) == len(expect["records"]), \
            "records: expected %r, got %r (stdout %r)" % (expect["records"], got, doc["stdout"])
        for g, w in zip(got, expect["records"]):
            for k, v in w.items():
                assert g.get(k) == v, "record %r: %s is %r, expected %r" % (g, k, g.get(k), v)
            assert isinstance(g.get("time"), str), g


@pytest.mark.parametrize("slug", LANGS)
def test_a_plus_b(stack, slug):
    require_installed(stack, slug)
    if os.path.isfile(os.path.join(gh.EXAMPLES, slug, "sum", "expect.json")):
        payload, expect = example(slug, "sum")
    elif slug in BUILTIN_SUM:
        payload = {"lang_slug": slug, "solution_text": BUILTIN_SUM[slug],
                   "asserts": json.dumps(SUM_ASSERTS), "timeout": "60s"}
        expect = {"exit_code": 0, "records": [
            {"type": "result", "value": a + b, "output": "adding %d and %d\n" % (a, b)}
            for a, b in SUM_ASSERTS["arguments"]]}
    else:
        pytest.fail("no a+b example for %s in %s/%s/sum" % (slug, gh.EXAMPLES, slug))
    r = stack.run(payload, timeout=120)
    assert r.status == 200, r
    check_expectation(r.json(), expect)


@pytest.mark.parametrize("slug,case", cases(), ids=["%s-%s" % c for c in cases()])
def test_example(stack, slug, case):
    if not os.path.isfile(os.path.join(gh.REPO, "langs", slug, "lang.json")):
        pytest.skip("%s: no langs/%s/lang.json" % (slug, slug))
    require_installed(stack, slug)
    payload, expect = example(slug, case)
    r = stack.run(payload, timeout=120)
    assert r.status == 200, r
    check_expectation(r.json(), expect)


def test_python_wrong_answer_still_exits_0_with_records(stack):
    """Codebattle compares the values itself: a wrong a+b is a normal run."""
    r = stack.run({"lang_slug": "python", "solution_text": "def solution(a, b):\n    return a - b\n",
                   "asserts": json.dumps(SUM_ASSERTS)})
    assert r.status == 200, r
    doc = r.json()
    assert doc["exit_code"] == 0, doc
    values = [x.get("value") for x in gh.records(doc["stdout"]) if x.get("type") == "result"]
    assert values == [a - b for a, b in SUM_ASSERTS["arguments"]], doc


# What the cpp recipe forces in before a checker's first line (langs/cpp/Makefile):
# nlohmann/json precompiled (pch/run.hpp) when the checker or solution names it
# or gaol_records.hpp, which includes it; else only the standard library and
# Codebattle's prelude (pch/cb.hpp), whose builds are 4x shorter.  A checker
# that gets the other one still builds, only slower: the preprocessor tells.
# (The "current" checker must not name the library in any form the recipe
# looks for, its #error text included.)
CPP_PCH_CASES = {
    "gaol_records": ('#include "gaol_records.hpp"\n', True),
    "json.hpp": ('#include "../json.hpp"\n', True),
    "nlohmann": ("#include <nlohmann/json.hpp>\n", True),
    "current": ("", False),
}


@pytest.mark.parametrize("case", sorted(CPP_PCH_CASES))
def test_cpp_checker_gets_the_precompiled_header_of_what_it_includes(stack, case):
    require_installed(stack, "cpp")
    include, json_forced = CPP_PCH_CASES[case]
    checker = ("#if %sdefined(INCLUDE_NLOHMANN_JSON_HPP_)\n"
               "#error the JSON library was %sforced in\n#endif\n"
               "#ifndef _GLIBCXX_RELEASE\n#error the standard library was not forced in\n#endif\n"
               "%s#include \"solution.cpp\"\n"
               "int main() { std::cout << solution() << std::endl; }\n"
               % ("!" if json_forced else "", "not " if json_forced else "", include))
    r = stack.run({"lang_slug": "cpp", "checker_text": checker, "timeout": "60s",
                   "solution_text": "int solution() { return 42; }\n"}, timeout=120)
    assert r.status == 200, r
    doc = r.json()
    assert (doc["exit_code"], doc["stdout"]) == (0, "42\n"), doc


# Codebattle's checkers of before 2026-05 declare an insertion-ordered json at
# the top level in these two lines; the recipe then forces pch/fifo.hpp, in
# which that json is declared already and its classes come prebuilt from
# cb/libgaoljson.a (GAOL_FIFO_JSON is defined there).  Any other declaration
# gets pch/run.hpp and builds as before.  Every checker here also uses
# nlohmann/json's string literals, whose bodies `make prepare` moved into the
# same archive.
FIFO_TEMPLATE = "template <class K, class V, class dummy_compare, class A>\n"
FIFO_ALIAS = "using fifo_map = nlohmann::fifo_map<K, V, nlohmann::fifo_map_compare<K>, A>;\n"
CPP_FIFO_CASES = {
    "codebattle": (FIFO_TEMPLATE + FIFO_ALIAS + "using json = nlohmann::basic_json<fifo_map>;\n",
                   True),
    "codebattle-no-space": (FIFO_TEMPLATE.replace("template <", "template<") + FIFO_ALIAS
                            + "using json = nlohmann::basic_json<fifo_map>;\n", True),
    "other-parameter-names": (
        "template <class Key, class T, class C, class Alloc>\n"
        "using fifo_map = nlohmann::fifo_map<Key, T, nlohmann::fifo_map_compare<Key>, Alloc>;\n"
        "using json = nlohmann::basic_json<fifo_map>;\n", False),
    "other-parameter-order": (
        "template <class K, class V, class dummy_compare, class A>\n"
        "using fifo_map = nlohmann::fifo_map<K, V, nlohmann::fifo_map_compare<K>>;\n"
        "using json = nlohmann::basic_json<fifo_map>;\n", False),
    "in-a-namespace": ("namespace cbj {\n    " + FIFO_TEMPLATE + "    " + FIFO_ALIAS
                       + "    using json = nlohmann::basic_json<fifo_map>;\n}\nusing cbj::json;\n", False),
    # Codebattle's lines unindented in a namespace: taken for the top level's,
    # so the prebuilt json is declared beside this one; either way it works.
    "in-a-namespace-unindented": ("namespace cbj {\n" + FIFO_TEMPLATE + FIFO_ALIAS
                                  + "using json = nlohmann::basic_json<fifo_map>;\n}\nusing cbj::json;\n",
                                  None),
    "plain-json": ("using json = nlohmann::json;\n", False),
}


@pytest.mark.parametrize("case", sorted(CPP_FIFO_CASES))
def test_cpp_fifo_map_checker_links_its_json_prebuilt_only_when_declared_as_codebattle_does(stack, case):
    require_installed(stack, "cpp")
    declaration, prebuilt = CPP_FIFO_CASES[case]
    ordered = "fifo_map" in declaration
    if prebuilt is not None:
        declaration += ("#if %sdefined(GAOL_FIFO_JSON)\n#error the prebuilt json was %sforced in\n#endif\n"
                        % ("!" if prebuilt else "", "not " if prebuilt else ""))
    checker = ('#include "../json.hpp"\n#include "../fifo_map.hpp"\n#include "solution.cpp"\n'
               + declaration +
               "int main() {\n"
               "    json j;\n"
               "    j[\"zeta\"] = solution();\n"
               "    j[\"alpha\"] = json::parse(R\"([1, 2.5, \"x\"])\");\n"
               "    nlohmann::json lit = R\"({\"b\": 1, \"a\": [true, null]})\"_json;\n"
               "    std::cout << j << '\\n' << j.dump(1) << '\\n' << lit << ' '\n"
               "              << lit[\"/a/0\"_json_pointer] << '\\n';\n"
               "    for (auto it = j.cbegin(); it != j.cend(); ++it) std::cout << it.key() << ';';\n"
               "    std::cout << std::endl;\n"
               "}\n")
    r = stack.run({"lang_slug": "cpp", "checker_text": checker, "timeout": "60s",
                   "solution_text": "int solution() { return 42; }\n"}, timeout=120)
    assert r.status == 200, r
    doc = r.json()
    keys = ["zeta", "alpha"] if ordered else ["alpha", "zeta"]
    compact = "{%s}" % ",".join('"%s":%s' % (k, {"zeta": "42", "alpha": '[1,2.5,"x"]'}[k]) for k in keys)
    indented = json.dumps({k: {"zeta": 42, "alpha": [1, 2.5, "x"]}[k] for k in keys}, indent=1)
    expected = "%s\n%s\n%s true\n%s\n" % (compact, indented, '{"a":[true,null],"b":1}',
                                         "".join(k + ";" for k in keys))
    assert (doc["exit_code"], doc["stdout"]) == (0, expected), doc
