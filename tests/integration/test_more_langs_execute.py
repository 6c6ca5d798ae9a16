"""Issue 33's languages through Piston's /api/v2/execute (docs/api.md, "POST
/execute"): each found under its Piston name in /runtimes with its real
version, hello world and a+b from stdin run from one unnamed file (named
by the language's execute_file), and a compile or syntax error reported as
the language reports it; no process of the slots' UIDs left after each.
Stage timeouts at the operator's default ceilings (30 s): a JVM or
crystal build on a loaded machine needs more than Piston's 10 s."""

import pytest

from more_langs import HELLO, LANGS, PROGRAMS
from test_execute import check_stage, execute, need, no_run_left

LIMITS = {"compile_timeout": 30000, "run_timeout": 15000}


@pytest.fixture
def runtimes(stack):
    r = stack.get("/api/v2/runtimes")
    assert r.status == 200, r
    return {rt["slug"]: rt for rt in r.json()}


def run(stack, runtimes, language, code, stdin=""):
    body = dict(LIMITS, language=runtimes[language]["language"], version="*",
                files=[{"content": code}], stdin=stdin)
    r, doc = execute(stack, body, "/api/v2/execute")
    assert r.status == 200, (r, doc)
    return doc


@pytest.mark.parametrize("language", LANGS)
def test_hello_and_stdin(stack, installed, runtimes, language):
    need(installed, language)
    rt = runtimes[language]
    assert rt["version"].count(".") == 2, rt
    doc = run(stack, runtimes, language, PROGRAMS[language]["hello"])
    assert check_stage(doc["run"])["stdout"] == HELLO + "\n", doc
    assert doc["run"]["code"] == 0, doc
    doc = run(stack, runtimes, language, PROGRAMS[language]["ok"], "40 2\n")
    assert check_stage(doc["run"])["stdout"] == "42\n" and doc["run"]["code"] == 0, doc
    no_run_left(stack)


@pytest.mark.parametrize("language", LANGS)
def test_a_syntax_error(stack, installed, runtimes, language):
    need(installed, language)
    doc = run(stack, runtimes, language, PROGRAMS[language]["broken"])
    failed = doc.get("compile") if doc.get("compile") and doc["compile"]["code"] != 0 else doc["run"]
    assert failed is not None, doc
    check_stage(failed)
    assert failed["code"] not in (0, None) and failed["stderr"] + failed["stdout"], doc
    no_run_left(stack)
