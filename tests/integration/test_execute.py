# SPDX-License-Identifier: Apache-2.0
"""docs/api.md, "POST /execute": gaol's plain run (files, stdin, args) in
Piston's v2 shape, GET /runtimes, and Piston's paths on the same handlers.
Each answer is checked field by field; each refused request ran nothing and
left no process of the slots' UIDs behind."""

import base64
import json
import time

import pytest

import gaol_helpers as gh

STAGE_KEYS = {"stdout", "stderr", "output", "code", "signal", "message", "status",
              "cpu_time", "wall_time", "memory"}


def execute(stack, body, path="/execute"):
    r = stack.post(path, json.dumps(body).encode(), timeout=120.0)
    return r, (r.json() if r.body else None)


def check_stage(st):
    assert STAGE_KEYS <= set(st), st
    assert st["status"] in (None, "RE", "SG", "TO", "OL", "EL", "XX"), st
    assert (st["code"] is None) != (st["signal"] is None) or st["status"] == "XX", st
    assert isinstance(st["wall_time"], int) and st["wall_time"] >= 0, st
    return st


def need(installed, slug):
    if slug not in installed:
        pytest.skip("%s is not installed here" % slug)


def no_run_left(stack):
    deadline = time.time() + 5
    while time.time() < deadline:
        left = gh.processes_of_uids(stack.uid_base, stack.uid_base + stack.concurrency)
        if not left:
            return
        time.sleep(0.1)
    assert not left, left


def test_python_reads_stdin_and_args_as_plain_strings(stack, installed):
    need(installed, "python")
    args = ["; rm -rf /", "$(id)", "`id`", "a b", "", "-x"]
    r, doc = execute(stack, {
        "language": "python3", "version": "3.x", "stdin": "line one\n", "args": args,
        "files": [{"name": "$(id).py", "content":
                   "import sys, json, helper\nprint(json.dumps([sys.argv[1:], input()]))\n"
                   "helper.say()"},
                  {"name": "helper.py", "content": "def say(): print('helper')"}]})
    assert r.status == 200, r
    assert doc["language"] == "python" and doc["version"].startswith("3."), doc
    assert "compile" not in doc, doc
    run = check_stage(doc["run"])
    assert run["code"] == 0 and run["status"] is None, run
    lines = run["stdout"].splitlines()
    assert json.loads(lines[0]) == [args, "line one"], run
    assert lines[1] == "helper" and run["output"] == run["stdout"], run


def test_c_several_translation_units_and_a_header(stack, installed):
    need(installed, "c")
    r, doc = execute(stack, {"language": "gcc", "files": [
        {"name": "main.c", "content": '#include "lib/x.h"\n#include <stdio.h>\n'
         'int main(int c, char **v) { printf("%d %s\\n", f(), v[1]); return 3; }'},
        {"name": "lib/x.c", "content": '#include "x.h"\nint f(void) { return 42; }'},
        {"name": "lib/x.h", "content": "int f(void);"}], "args": ["a b"]})
    assert r.status == 200, r
    comp, run = check_stage(doc["compile"]), check_stage(doc["run"])
    assert comp["code"] == 0, comp
    assert run["stdout"] == "42 a b\n" and run["code"] == 3 and run["status"] == "RE", run
    assert run["message"] == "Exited with error status 3", run


def test_java_classes_in_several_files_the_entry_named_after_its_class(stack, installed):
    need(installed, "java")
    r, doc = execute(stack, {"language": "java", "files": [
        {"content": "public class Hello { public static void main(String[] a) {"
                    " System.out.println(Util.twice(a.length)); } }"},
        {"name": "Util.java", "content": "class Util { static int twice(int x) { return 2 * x; } }"}],
        "args": ["x", "y"]})
    assert r.status == 200, r
    assert doc["run"]["stdout"] == "4\n", doc


def test_compile_error_has_no_run_stage(stack, installed):
    need(installed, "cpp")
    r, doc = execute(stack, {"language": "c++", "files": [{"content": "int main() { oops }"}]})
    assert r.status == 200, r
    comp = check_stage(doc["compile"])
    assert comp["code"] != 0 and comp["status"] == "RE" and "oops" in comp["stderr"], comp
    assert "run" not in doc, doc


def test_signal_timeout_and_output_cap(stack, installed):
    need(installed, "python")
    py = lambda code, **kw: execute(stack, dict({"language": "python", "files": [
        {"content": code}]}, **kw))[1]["run"]
    sg = check_stage(py("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"))
    assert sg["status"] == "SG" and sg["signal"] == "SIGSEGV" and sg["code"] is None, sg
    to = check_stage(py("while True: pass", run_timeout=500))
    assert to["status"] == "TO" and to["signal"] == "SIGKILL", to
    assert to["timed_out"] is True, to
    ol = check_stage(py("import sys\nwhile True: sys.stdout.write('x' * 65536)"))
    assert ol["status"] == "OL" and ol["message"] == "stdout length exceeded", ol
    assert len(ol["stdout"]) == 1 << 20, len(ol["stdout"])
    el = check_stage(py("import sys\nwhile True: sys.stderr.write('x' * 65536)"))
    assert el["status"] == "EL", el
    no_run_left(stack)


def test_output_interleaved_in_the_order_read(stack, installed):
    need(installed, "python")
    _, doc = execute(stack, {"language": "python", "files": [{"content":
        "import sys, time\nfor i in range(3):\n print('o%d' % i, flush=True)\n"
        " time.sleep(0.05)\n print('e%d' % i, file=sys.stderr, flush=True)\n time.sleep(0.05)"}]})
    assert doc["run"]["output"] == "o0\ne0\no1\ne1\no2\ne2\n", doc


def test_base64_output_is_byte_exact(stack, installed):
    need(installed, "python")
    every = bytes(range(256))
    _, doc = execute(stack, {"language": "python", "output_encoding": "base64", "files": [
        {"content": base64.b64encode(b"import sys\nsys.stdout.buffer.write(bytes(range(256)))\n"
                                     b"sys.stderr.buffer.write(bytes(range(255, -1, -1)))")
         .decode(), "encoding": "base64"}]})
    run = doc["run"]
    assert base64.b64decode(run["stdout"]) == every, run
    assert base64.b64decode(run["stderr"]) == every[::-1], run


@pytest.mark.parametrize("body, field", [
    ({"language": "befunge93", "files": [{"content": "x"}]}, "runtime is unknown"),
    ({"language": "python", "version": "2.x", "files": [{"content": "x"}]}, "version"),
    ({"language": "python", "files": [{"content": "!!", "encoding": "base64"}]}, "files[0].content"),
    ({"language": "python", "files": [{"content": "abc", "encoding": "hex"}]}, "files[0].content"),
    ({"language": "python", "files": [{"content": "1", "encoding": "rot13"}]}, "files[0].encoding"),
    ({"language": "python", "files": [{"name": "../x.py", "content": "1"}]}, "files[0].name"),
    ({"language": "python", "files": [{"name": "/etc/x.py", "content": "1"}]}, "files[0].name"),
    ({"language": "python", "files": [{"name": "a\u0000b", "content": "1"}]}, "files[0].name"),
    ({"language": "python", "files": [{"name": "/".join("d" * 9), "content": "1"}]}, "files[0].name"),
    ({"language": "python", "files": [{"content": "1"}] * 65}, "RUN_FILES_MAX"),
    ({"language": "python", "files": [{"content": "1"}], "args": [1]}, "args[0]"),
    ({"language": "python", "files": [{"content": "1"}], "run_timeout": 10 ** 7}, "run_timeout"),
    ({"language": "python", "files": [{"content": "1"}], "run_memory_limit": 1 << 40},
     "run_memory_limit"),
    ({"language": "python", "files": []}, "files"),
])
def test_bad_input_is_a_400_naming_the_field_and_runs_nothing(stack, installed, body, field):
    need(installed, "python")
    for path in ("/execute", "/api/v2/execute"):
        r, doc = execute(stack, body, path)
        assert r.status == 400, r
        assert field in doc["error"] and doc["message"] == doc["error"], doc
    no_run_left(stack)


def test_too_large_a_body_is_nginx_413_with_piston_message(stack):
    r = stack.post("/api/v2/execute", b'{"language": "python", "files": [{"content": "' +
                   b"x" * (2 << 20) + b'"}]}')
    assert r.status == 413, r
    doc = r.json()
    assert doc["message"] and doc["error"], doc


def test_runtimes_under_piston_names_with_real_versions(stack, installed):
    for path in ("/runtimes", "/api/v2/runtimes"):
        r = stack.get(path)
        assert r.status == 200, r
        rts = {x["language"]: x for x in r.json()}
        if "python" in installed:
            assert rts["python"]["version"].count(".") == 2, rts["python"]
            assert {"py", "python3"} <= set(rts["python"]["aliases"]), rts["python"]
        if "js" in installed:
            assert "js" in rts["javascript"]["aliases"], rts
            assert rts["javascript"]["runtime"] == "node", rts
        if "cpp" in installed:
            assert "cpp" in rts["c++"]["aliases"], rts


def test_packages_listed_and_not_installable_through_the_api(stack, installed):
    r = stack.get("/api/v2/packages")
    assert r.status == 200, r
    pk = {x["language"]: x for x in r.json()}
    assert pk["python"]["installed"] is ("python" in installed), pk
    assert pk["swift"]["installed"] is False, pk
    for method in ("POST", "DELETE"):
        r = gh.request(stack.port, method, "/api/v2/packages", b"{}")
        assert r.status == 405, r
        assert "make deps LANGS=" in r.json()["message"], r


def test_a_client_that_hangs_up_stops_the_run(stack, installed):
    # The same stop as /run's and /evaluate's: the worker sees nginx close
    # the FastCGI connection while it supervises and kills the run.
    import socket
    need(installed, "python")
    data = json.dumps({"language": "python", "run_timeout": 20000, "files": [
        {"content": "import time\nprint('up', flush=True)\ntime.sleep(20)"}]}).encode()
    sock = socket.create_connection(("127.0.0.1", stack.port))
    sock.sendall(b"POST /execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(data) + data)
    lo, hi = stack.uid_base, stack.uid_base + stack.concurrency
    deadline = time.time() + 10
    while not gh.processes_of_uids(lo, hi) and time.time() < deadline:
        time.sleep(0.05)
    assert gh.processes_of_uids(lo, hi), "the run never started"
    sock.close()
    t_close = time.monotonic()
    left = True
    while time.monotonic() - t_close < 2.0:
        left = gh.processes_of_uids(lo, hi)
        if not left:
            break
        time.sleep(0.05)
    assert not left, "slot processes 2 s after the client left: %r" % left
    r, doc = execute(stack, {"language": "python", "files": [{"content": "print(1)"}]})
    assert r.status == 200 and doc["run"]["stdout"] == "1\n", doc


def test_go_packages_and_the_compile_cache(stack, installed):
    need(installed, "golang")
    # The ceiling's compile timeout: a cold go build on a loaded host.
    body = {"language": "go", "compile_timeout": 30000, "files": [
        {"name": "main.go", "content": 'package main\nimport ("fmt"; "main/util")\n'
                                       'func main() { fmt.Println(util.Twice(21)) }'},
        {"name": "util/util.go", "content": "package util\nfunc Twice(x int) int { return 2 * x }\n"
                                            "// %s" % time.time()}]}
    r, first = execute(stack, body)
    assert r.status == 200 and "run" in first, first["compile"]
    assert first["run"]["stdout"] == "42\n", first
    assert first["compile"]["cached"] is False, first
    r, again = execute(stack, body)
    assert again["run"]["stdout"] == "42\n", again
    assert again["compile"]["cached"] is True and again["compile"]["code"] == 0, again
