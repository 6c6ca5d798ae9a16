# SPDX-License-Identifier: Apache-2.0
"""gaol driven by npm's piston-client, unchanged (installed by `make
deps-test` at the version tests/integration/piston/package-lock.json pins):
for every installed language, a program that reads stdin and args and prints
them with a value from a second file, a runtime error, a signal, a timeout,
an output cap and a program that does not compile; each answer checked field
by field against Piston's documented shape (docs/api-v2.md: language,
version, run and compile with stdout, stderr, output, code, signal)."""

import json
import os
import subprocess

import pytest

import gaol_helpers as gh
from piston_programs import HELPER, P

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.join(HERE, "piston")
ARGS = ["; rm -rf /", "$(id)", "two words"]
# Piston's default run_timeout (3 s) is about what Clojure needs to start on
# a loaded two-core host, and a JVM flooding its output through a starved
# pipe takes longer: the programs that should end get the ceilings (30 s,
# RUN_EXECUTE_*_TIMEOUT_MAX), the compile stages too.
SLOW = 30000
SLOW_CONFIG = {"runTimeout": SLOW, "compileTimeout": SLOW}


def drive(stack, jobs):
    if not os.path.isfile(os.path.join(CLIENT, "node_modules", "piston-client", "package.json")):
        pytest.fail("npm's piston-client is not installed: make deps-test")
    feed = json.dumps({"server": "http://127.0.0.1:%d" % stack.port, "jobs": jobs})
    p = subprocess.run(["/usr/bin/node", os.path.join(CLIENT, "drive.mjs")], input=feed.encode(),
                       capture_output=True, timeout=600, cwd=CLIENT)
    assert p.returncode == 0, p.stderr.decode()
    return json.loads(p.stdout)


def stage(doc, name):
    st = doc[name]
    for key, types in (("stdout", str), ("stderr", str), ("output", str),
                       ("code", (int, type(None))), ("signal", (str, type(None)))):
        assert isinstance(st[key], types), (name, key, st)
    assert (st["code"] is None) != (st["signal"] is None), st
    return st


@pytest.mark.parametrize("language", sorted(P))
def test_piston_client_runs_every_kind_of_program(stack, language):
    runtimes = {r["language"]: r for r in json.loads(stack.get("/api/v2/runtimes").body)}
    if language not in runtimes:
        pytest.skip("%s is not installed here" % language)
    prog = P[language]
    compiled = prog.get("compiled", False)
    jobs = [
        {"language": language, "code": prog["files"][0][1], "config": {
            "files": [{"name": n, "content": c} for n, c in prog["files"]],
            "args": ARGS, "stdin": "from stdin", "runTimeout": SLOW, "compileTimeout": SLOW}},
        {"language": language, "code": prog["exit3"], "config": SLOW_CONFIG},
        {"language": language, "code": prog["signal"], "config": SLOW_CONFIG},
        {"language": language, "code": prog["loop"], "config": {"runTimeout": 1000,
                                                               "compileTimeout": SLOW}},
        {"language": language, "code": prog["flood"], "config": SLOW_CONFIG},
        {"language": language, "code": prog["broken"], "config": SLOW_CONFIG},
    ]
    out = drive(stack, jobs)
    assert out["runtimes"] == json.loads(stack.get("/api/v2/runtimes").body), out["runtimes"]
    echo, exit3, signal, loop, flood, broken = out["results"]
    for doc in out["results"]:
        assert doc["language"] == language, doc
        assert doc["version"] == runtimes[language]["version"], doc
        assert ("compile" in doc) == compiled, doc
        if compiled:
            stage(doc, "compile")

    run = stage(echo, "run")
    assert run["code"] == 0, echo
    for word in [HELPER, "from stdin"] + ARGS:
        assert word in run["stdout"], (word, run)
    assert run["output"] == run["stdout"] + run["stderr"] or run["stderr"] == "", run

    run = stage(exit3, "run")
    assert run["code"] == 3 and run["signal"] is None and run["status"] == "RE", exit3

    run = stage(signal, "run")
    assert run["code"] is None and run["signal"].startswith("SIG") and run["status"] == "SG", signal

    run = stage(loop, "run")
    assert run["status"] == "TO" and run["signal"] == "SIGKILL" and run["code"] is None, loop

    run = stage(flood, "run")
    assert run["status"] == "OL" and run["signal"] == "SIGKILL", {**flood, "run": {
        k: v for k, v in run.items() if k not in ("stdout", "output")}}
    assert len(run["stdout"]) == 1 << 20 and run["message"] == "stdout length exceeded"

    if compiled:
        comp = stage(broken, "compile")
        assert comp["code"] not in (0, None) and comp["status"] == "RE", \
            json.dumps({k: v for k, v in comp.items() if k not in ("stdout", "output")})
        assert comp["output"].strip(), broken
        assert "run" not in broken, broken
    else:
        run = stage(broken, "run")
        assert run["code"] not in (0, None) and run["stderr"].strip(), broken
    left = gh.processes_of_uids(stack.uid_base, stack.uid_base + stack.concurrency)
    assert not left, left
