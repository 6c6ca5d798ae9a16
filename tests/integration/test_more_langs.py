"""The short matrix of issue 33's languages (CI: `make test`): for each,
through the real stack, hello world, a+b from stdin to stdout, and a syntax
error (CE where the language's build parses the program, else the run's
own failure, RE with the message on stderr), with no process of the
stack's slot UIDs left after each.  The whole matrix (runtime error,
timeout, memory kill, fork bomb) is tests/integration/matrix_more_langs.py,
`make test-langs`, outside CI.  A language /health does not list as
installed is skipped by name."""

import time

import pytest

import gaol_helpers as gh
from more_langs import HELLO, LANGS, PROGRAMS, SYNTAX_AT_RUN
from test_evaluate import evaluate


def code_of(language, name, installed):
    if language not in installed:
        pytest.skip("%s is not installed" % language)
    return PROGRAMS[language][name]


def assert_no_process_left(stack):
    # (The slot cgroups hold the sandbox built ahead of the next request,
    # root's: what a run left would be a process of a slot UID.)
    lo, hi = stack.uid_base, stack.uid_base + stack.concurrency
    deadline = time.monotonic() + 5
    while gh.processes_of_uids(lo, hi) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gh.processes_of_uids(lo, hi) == {}, gh.processes_of_uids(lo, hi)


@pytest.mark.parametrize("language", LANGS)
def test_hello_world(stack, installed, language):
    code = code_of(language, "hello", installed)
    doc = evaluate(stack, language, code, [("", HELLO)])
    assert doc["compile"]["ok"] is True, doc
    r = doc["results"][0]
    assert r["verdict"] == "OK" and r["actual"] == HELLO + "\n", r
    assert_no_process_left(stack)


@pytest.mark.parametrize("language", LANGS)
def test_stdin_to_stdout(stack, installed, language):
    code = code_of(language, "ok", installed)
    doc = evaluate(stack, language, code, [("1 2", "3"), ("40 2\n", "42\n"), ("1 1", "3")])
    assert doc["compile"]["ok"] is True, doc
    ok, ok2, wa = doc["results"]
    assert ok["verdict"] == "OK" and ok2["verdict"] == "OK", doc["results"]
    assert ok2["actual"] == "42\n", ok2
    assert wa["verdict"] == "WA" and wa["actual"].strip() == "2", wa
    assert_no_process_left(stack)


@pytest.mark.parametrize("language", LANGS)
def test_syntax_error(stack, installed, language):
    code = code_of(language, "broken", installed)
    doc = evaluate(stack, language, code, [("1 2", "3")])
    r = doc["results"][0]
    if language in SYNTAX_AT_RUN:
        assert doc["compile"]["ok"] is True, doc
        assert r["verdict"] == "RE" and r["exit_code"] not in (0, None), r
        assert r["error"].strip(), r
    else:
        assert doc["compile"]["ok"] is False and doc["compile"]["output"], doc
        assert r["verdict"] == "CE" and r["details"] == "Compilation Error", r
    assert_no_process_left(stack)
