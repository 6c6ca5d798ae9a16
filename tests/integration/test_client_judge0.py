# SPDX-License-Identifier: Apache-2.0
"""Judge0's API on gaol, the synchronous side (issue 32 part A), each case
written from Judge0's own documentation (github.com/judge0/judge0,
docs/api/**; the page is named in each test's docstring) and from its code
where the documentation is silent (app/enumerations/status.rb,
app/models/submission.rb, app/helpers/config.rb, app/jobs/isolate_job.rb).
Real nginx, real gaol-fcgi, real programs.  The asynchronous side (tokens
kept, GET/DELETE of a token, batches, callbacks) has its own test file."""

import base64
import io
import json
import os
import re
import zipfile

import pytest

import gaol_helpers as gh

# A UUID as Judge0's clients parse one: gaol's tokens (kept for wait=true as
# for wait=false) are version 7, time-ordered and naming their host.
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
DEFAULT_FIELDS = {"token", "time", "memory", "stdout", "stderr", "compile_output", "message",
                  "status"}
STATUSES = ["In Queue", "Processing", "Accepted", "Wrong Answer", "Time Limit Exceeded",
            "Compilation Error", "Runtime Error (SIGSEGV)", "Runtime Error (SIGXFSZ)",
            "Runtime Error (SIGFPE)", "Runtime Error (SIGABRT)", "Runtime Error (NZEC)",
            "Runtime Error (Other)", "Internal Error", "Exec Format Error"]
PY, C, CPP, JAVA, MULTI = 71, 50, 54, 62, 89
AUTH = os.path.join(gh.REPO, "nginx", "judge0-auth.conf")


def submit(stack, body, query="wait=true", headers=None, timeout=120.0):
    return gh.request(stack.port, "POST", "/submissions?" + query, body, headers=headers,
                      timeout=timeout)


def run(stack, body, query="wait=true&fields=*"):
    r = submit(stack, body, query)
    assert r.status == 201, r
    return r.json()


def b64(s):
    return base64.b64encode(s.encode() if isinstance(s, str) else s).decode()


def zip_of(files, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in files:
            z.writestr(name, data)
    return b64(buf.getvalue())


SLUGS = {PY: ["python"], C: ["c"], CPP: ["cpp"], JAVA: ["java"], MULTI: ["bash", "c"]}


def need(stack, *ids):
    """Skips unless each id's language (and what its test compiles) is
    installed; an id must be mapped either way."""
    mapped = {l["id"] for l in stack.get("/languages/all").json()}
    installed = set(stack.installed())
    for i in ids:
        assert i in mapped, i
        missing = [s for s in SLUGS[i] if s not in installed]
        if missing:
            pytest.skip("%s not installed here" % ", ".join(missing))


# ---- docs/api/submissions/create_a_submission.md

def test_create_with_wait_answers_201_with_the_default_fields(stack):
    """create_a_submission.md: wait=true answers 201 with the submission's
    default fields (token, time, memory, stdout, stderr, compile_output,
    message, status); the token is a UUID."""
    need(stack, PY)
    r = submit(stack, {"source_code": "print('hello, ' + input())", "language_id": PY,
                       "stdin": "world"})
    assert r.status == 201, r
    doc = r.json()
    assert set(doc) == DEFAULT_FIELDS, doc
    assert UUID.match(doc["token"]), doc
    assert doc["stdout"] == "hello, world\n"
    assert doc["status"] == {"id": 3, "description": "Accepted"}
    assert doc["stderr"] is None and doc["compile_output"] is None
    assert re.match(r"^\d+\.\d{3}$", doc["time"]) and isinstance(doc["memory"], int)


def test_base64_encoded_applies_to_what_is_sent_and_what_comes_back(stack):
    """create_a_submission.md, base64_encoded: source_code, stdin and
    expected_output are sent in base64, and stdout, stderr, compile_output
    and message come back in base64."""
    need(stack, PY)
    src = "import sys\nprint(input()[::-1])\nprint('\u00e9rr', file=sys.stderr)\n"
    doc = run(stack, {"source_code": b64(src), "language_id": PY, "stdin": b64("abc"),
                      "expected_output": b64("cba")}, "wait=true&base64_encoded=true&fields=*")
    assert base64.b64decode(doc["stdout"]) == b"cba\n"
    assert base64.b64decode(doc["stderr"]).decode() == "\u00e9rr\n"
    assert doc["status"]["id"] == 3
    assert base64.b64decode(doc["source_code"]).decode() == src


def test_output_that_is_not_utf8_needs_base64(stack):
    """submissions_controller.rb, render_conversion_error: without
    base64_encoded an answer that is not UTF-8 is Judge0's error, with the
    token; with it, the bytes come back."""
    need(stack, PY)
    body = {"source_code": "import sys; sys.stdout.buffer.write(b'\\xff\\xfe')",
            "language_id": PY}
    r = submit(stack, body)
    assert r.status == 201, r
    doc = r.json()
    assert "cannot be converted to UTF-8" in doc["error"] and UUID.match(doc["token"])
    body["source_code"] = b64(body["source_code"])
    doc = run(stack, body, "wait=true&base64_encoded=true")
    assert base64.b64decode(doc["stdout"]) == b"\xff\xfe"


def test_fields_are_honoured(stack):
    """submissions.md / get_a_submission.md: fields=a,b answers those
    fields alone, fields=* every field; an unknown one is 400 "invalid
    fields"."""
    need(stack, PY)
    body = {"source_code": "print(1)", "language_id": PY}
    doc = run(stack, body, "wait=true&fields=stdout,status_id,language")
    assert doc == {"stdout": "1\n", "status_id": 3,
                   "language": {"id": PY, "name": doc["language"]["name"]}}
    every = run(stack, body, "wait=true&fields=*")
    for key in ("source_code", "language_id", "stdin", "expected_output", "cpu_time_limit",
                "memory_limit", "exit_code", "exit_signal", "wall_time", "created_at",
                "finished_at", "token", "gaol_verdict"):
        assert key in every, key
    assert every["cpu_time_limit"] == "5.0" and every["memory_limit"] == 128000
    r = submit(stack, body, "wait=true&fields=stdout,nope,status")
    gh.assert_json_error(r, 400)
    assert r.json() == {"error": "invalid fields: [nope]"}


def test_number_of_runs_averages_time_and_memory(stack):
    """submissions.md, number_of_runs: the program is run that many times
    and time and memory are their means."""
    need(stack, PY)
    doc = run(stack, {"source_code": "print(2)", "language_id": PY, "number_of_runs": 3})
    assert doc["status"]["id"] == 3 and doc["number_of_runs"] == 3
    assert doc["stdout"] == "2\n"


# ---- the statuses: docs/api/statuses_and_languages/get_statuses.md

def test_statuses_lists_judge0s_fourteen(stack):
    """get_statuses.md: GET /statuses answers [{id, description}], 1-14."""
    r = stack.get("/statuses")
    assert r.status == 200, r
    assert r.json() == [{"id": i + 1, "description": d} for i, d in enumerate(STATUSES)]


C_PROGRAMS = {
    "SIGSEGV": ("int main(){volatile int *p = 0; return *p;}", 7, 11),
    "SIGFPE": ("#include <signal.h>\nint main(){raise(SIGFPE); return 0;}", 9, 8),
    "SIGABRT": ("#include <stdlib.h>\nint main(){abort();}", 10, 6),
    "Other": ("#include <signal.h>\nint main(){raise(SIGUSR1); return 0;}", 12, 10),
}


@pytest.mark.parametrize("name", sorted(C_PROGRAMS))
def test_a_signal_is_its_runtime_error(stack, name):
    """status.rb, find_runtime_error_by_status_code: SIGSEGV 7, SIGFPE 9,
    SIGABRT 10, any other signal 12; exit_signal is the signal's number."""
    need(stack, C)
    src, status, sig = C_PROGRAMS[name]
    doc = run(stack, {"source_code": src, "language_id": C})
    assert doc["status"] == {"id": status, "description": STATUSES[status - 1]}, doc
    assert doc["exit_signal"] == sig and doc["gaol_verdict"] == "RE"
    assert doc["message"] == "Caught fatal signal %d" % sig


def test_accepted_and_wrong_answer_compare_as_judge0_does(stack):
    """isolate_job.rb, determine_status and strip: trailing blanks of each
    line and trailing lines are ignored; anything else differs."""
    need(stack, PY)
    src = "print('1 2  ')\nprint()\nprint()"
    assert run(stack, {"source_code": src, "language_id": PY,
                       "expected_output": "1 2\n"})["status"]["id"] == 3
    doc = run(stack, {"source_code": src, "language_id": PY, "expected_output": "1  2"})
    assert doc["status"] == {"id": 4, "description": "Wrong Answer"}
    assert doc["gaol_verdict"] == "WA"


def test_nzec_carries_the_exit_code(stack):
    """status.rb: a non-zero exit is Runtime Error (NZEC), exit_code set."""
    need(stack, PY)
    doc = run(stack, {"source_code": "import sys; sys.exit(3)", "language_id": PY})
    assert doc["status"]["id"] == 11 and doc["exit_code"] == 3
    assert doc["message"] == "Exited with error status 3"


def test_time_limit_exceeded(stack):
    """submissions.md, cpu_time_limit and cpu_extra_time: a program over
    its CPU time is Time Limit Exceeded."""
    need(stack, PY)
    doc = run(stack, {"source_code": "while True: pass", "language_id": PY,
                      "cpu_time_limit": 0.5, "cpu_extra_time": 0.2})
    assert doc["status"] == {"id": 5, "description": "Time Limit Exceeded"}, doc
    assert doc["gaol_verdict"] == "TLE" and float(doc["time"]) >= 0.5


def test_memory_limit_is_runtime_error_other_with_gaols_mle(stack):
    """A memory-limit kill as Judge0 reports it (the cgroup's SIGKILL:
    Runtime Error (Other), exit_signal 9), with gaol's MLE beside it."""
    need(stack, PY)
    doc = run(stack, {"source_code": "x = bytearray(300 << 20)\nprint(len(x))",
                      "language_id": PY, "memory_limit": 65536})
    assert doc["status"]["id"] == 12 and doc["exit_signal"] == 9, doc
    assert doc["gaol_verdict"] == "MLE"


def test_output_past_max_file_size_is_sigxfsz(stack):
    """submissions.md, max_file_size: output past it is what isolate's -f
    makes of it, Runtime Error (SIGXFSZ)."""
    need(stack, PY)
    doc = run(stack, {"source_code": "while True: print('x' * 1000)", "language_id": PY,
                      "max_file_size": 64})
    assert doc["status"]["id"] == 8 and doc["exit_signal"] == 25, doc
    assert doc["gaol_verdict"] == "OLE"


def test_compilation_error(stack):
    """status.rb: a program that does not compile is Compilation Error with
    the compiler's words in compile_output, nothing run."""
    need(stack, CPP)
    doc = run(stack, {"source_code": "int main() { syntax error }", "language_id": CPP})
    assert doc["status"] == {"id": 6, "description": "Compilation Error"}
    assert "error" in doc["compile_output"] and doc["stdout"] is None
    assert doc["time"] is None and doc["gaol_verdict"] == "CE"


# ---- request fields: docs/api/submissions/submissions.md

def test_command_line_arguments_are_words_without_expansion(stack):
    """submissions.md, command_line_arguments: split into words as a shell
    would, with nothing expanded or run."""
    need(stack, PY)
    doc = run(stack, {"source_code": "import sys, json; print(json.dumps(sys.argv[1:]))",
                      "language_id": PY,
                      "command_line_arguments": "a 'b c' \"d $HOME\" $(id) *; rm -rf /"})
    assert json.loads(doc["stdout"]) == ["a", "b c", "d $HOME", "$(id)", "*;", "rm", "-rf", "/"]


def test_redirect_stderr_to_stdout(stack):
    """submissions.md, redirect_stderr_to_stdout: stderr goes to stdout."""
    need(stack, PY)
    doc = run(stack, {"source_code": "import sys\nprint(1, flush=True)\n"
                      "print(2, file=sys.stderr, flush=True)\nprint(3)",
                      "language_id": PY, "redirect_stderr_to_stdout": True})
    assert doc["stdout"] == "1\n2\n3\n" and doc["stderr"] is None


def test_compiler_options_reach_the_compiler_and_the_cache_key(stack):
    """submissions.md, compiler_options: the options are the compiler's,
    and the same source with other options is compiled again."""
    need(stack, C)
    src = "#include <stdio.h>\nint main(){printf(\"%d\\n\", X);}"
    for x in ("5", "7"):
        doc = run(stack, {"source_code": src, "language_id": C,
                          "compiler_options": "-O2 -DX=" + x})
        assert doc["stdout"] == x + "\n", doc


def test_compiler_options_outside_the_languages_rule_are_422(stack):
    """submission.rb, compiler_options_allowed: options a language does
    not allow are refused under compiler_options."""
    need(stack, C, PY)
    r = submit(stack, {"source_code": "int main(){}", "language_id": C,
                       "compiler_options": "-fplugin=/tmp/x.so"})
    assert r.status == 422 and list(r.json()) == ["compiler_options"], r
    r = submit(stack, {"source_code": "print(1)", "language_id": PY,
                       "compiler_options": "-O2"})
    assert r.status == 422 and list(r.json()) == ["compiler_options"], r


def test_additional_files_are_beside_the_source(stack):
    """submissions.md, additional_files: a base64 zip whose files the
    program finds beside its source."""
    need(stack, PY)
    doc = run(stack, {"source_code": "import helper\nprint(helper.f(), open('d/x.txt').read())",
                      "language_id": PY,
                      "additional_files": zip_of([("helper.py", "def f(): return 42\n"),
                                                  ("d/x.txt", "data")])})
    assert doc["stdout"] == "42 data\n", doc
    assert base64.b64decode(doc["additional_files"])[:2] == b"PK"


@pytest.mark.parametrize("name", ["../evil.py", "/abs.py", "a/../../b.py", "a//b"])
def test_additional_files_with_bad_names_are_refused_unrun(stack, name):
    """A zip entry's name is checked as every `files` name is: refused as
    Judge0 refuses a field (422), before anything runs."""
    need(stack, PY)
    r = submit(stack, {"source_code": "print(1)", "language_id": PY,
                       "additional_files": zip_of([(name, "x")])})
    assert r.status == 422, r
    assert list(r.json()) == ["additional_files"]
    assert not os.path.exists("/tmp/evil.py") and not os.path.exists("/abs.py")


def test_a_zip_bomb_is_refused_unrun(stack):
    """A zip that inflates a thousand times (and more than
    max_extract_size) is refused before anything reads it."""
    need(stack, PY)
    r = submit(stack, {"source_code": "print(1)", "language_id": PY,
                       "additional_files": zip_of([("bomb", b"\0" * (64 << 20))])})
    assert r.status == 422 and "zip bomb" in r.json()["additional_files"][0], r


def test_multi_file_program_runs_its_compile_and_run_scripts(stack):
    """submissions.md, "Multi-file programs": language 89, the files in
    additional_files with `compile` and `run` scripts, source_code absent."""
    need(stack, MULTI, C)
    files = zip_of([
        ("main.c", '#include <stdio.h>\n#include "lib.h"\nint main(int c, char **v)'
                   '{printf("%d %s\\n", twice(21), c > 1 ? v[1] : "-");}\n'),
        ("lib.h", "static int twice(int x){return 2*x;}\n"),
        ("compile", "gcc -O2 -o prog main.c\n"),
        ("run", './prog "$@"\n')])
    doc = run(stack, {"language_id": MULTI, "additional_files": files,
                      "command_line_arguments": "arg"})
    assert doc["stdout"] == "42 arg\n" and doc["status"]["id"] == 3, doc
    r = submit(stack, {"language_id": MULTI, "source_code": "x", "additional_files": files})
    assert r.status == 422 and "source_code" in r.json(), r
    r = submit(stack, {"language_id": MULTI})
    assert r.status == 422 and "additional_files" in r.json(), r


# ---- bad input, answered as Judge0 answers it (422 by field, 400)

@pytest.mark.parametrize("body,fields", [
    ({"source_code": "x", "language_id": 9999}, ["language_id"]),
    ({"source_code": "x"}, ["language_id"]),
    ({"language_id": PY}, ["source_code"]),
    ({"source_code": "x", "language_id": PY, "enable_network": True}, ["enable_network"]),
    ({"source_code": "x", "language_id": PY, "cpu_time_limit": 99}, ["cpu_time_limit"]),
    ({"source_code": "x", "language_id": PY, "memory_limit": 100}, ["memory_limit"]),
    ({"source_code": "x", "language_id": PY, "number_of_runs": 0}, ["number_of_runs"]),
    ({"source_code": "x", "language_id": PY, "wall_time_limit": "soon"}, ["wall_time_limit"]),
    ({"source_code": "x", "language_id": PY, "command_line_arguments": "'open"},
     ["command_line_arguments"]),
    ({"source_code": "x", "language_id": PY,
      "enable_per_process_and_thread_time_limit": True},
     ["enable_per_process_and_thread_time_limit"]),
])
def test_invalid_submissions_are_422_by_field(stack, body, fields):
    """create_a_submission.md, 422: {"field": ["message", ...]} for each
    field refused (submission.rb's validations)."""
    r = submit(stack, body)
    assert r.status == 422, r
    doc = r.json()
    assert sorted(doc) == sorted(fields), doc
    assert all(isinstance(m, str) for v in doc.values() for m in v)


def test_unknown_language_and_network_say_judge0s_words(stack):
    """submission.rb: "language with id N doesn't exist", "enabling network
    is not allowed" (the sandbox has no network)."""
    r = submit(stack, {"source_code": "x", "language_id": 9999, "enable_network": True})
    assert r.json() == {"language_id": ["language with id 9999 doesn't exist"],
                        "enable_network": ["enabling network is not allowed"]}


def test_a_body_that_is_not_json_is_400(stack):
    r = submit(stack, "{not json")
    gh.assert_json_error(r, 400)


# ---- languages: docs/api/statuses_and_languages/*.md

def test_languages_lists_one_id_per_installed_language_with_its_version(stack):
    """get_languages.md: [{id, name}]; here one id per installed language
    (the newest Judge0 id), named with the toolchain's real version."""
    langs = stack.get("/languages").json()
    assert langs and all(set(l) == {"id", "name"} for l in langs)
    ids = [l["id"] for l in langs]
    assert len(ids) == len(set(ids))
    by_id = {l["id"]: l["name"] for l in langs}
    if 100 in by_id:
        version = stack.get("/runtimes").json()
        py = [r["version"] for r in version if r["slug"] == "python"][0]
        assert by_id[100] == "Python (%s)" % py
        assert 71 not in by_id and 92 not in by_id


def test_every_python_id_runs_on_the_installed_python(stack):
    """get_active_and_archived_languages.md: every mapped id, and each of
    Judge0 CE's Python ids (71, 92, 100) runs here."""
    need(stack, PY)
    listed = stack.get("/languages/all").json()
    every = {l["id"]: l for l in listed}
    assert len(every) == len(listed), "a Judge0 id mapped by two languages"
    for i in (71, 92, 100):
        assert every[i]["is_archived"] is False
        assert run(stack, {"source_code": "print(6*7)", "language_id": i})["stdout"] == "42\n"


def test_get_a_language(stack):
    """get_a_language.md: {id, name, is_archived, source_file, compile_cmd,
    run_cmd}; an unknown id is 404."""
    doc = stack.get("/languages/71").json()
    assert set(doc) == {"id", "name", "is_archived", "source_file", "compile_cmd", "run_cmd"}
    assert doc["id"] == 71 and doc["source_file"] == "main.py"
    gh.assert_json_error(stack.get("/languages/99999"), 404)


# ---- information: docs/api/information/*.md, docs/api/health_check/workers.md

def test_information_pages(stack):
    """about.md, version.md (plain text), config_info (Judge0's keys, this
    host's values), system_info, workers."""
    about = stack.get("/about").json()
    assert {"version", "homepage", "source_code", "maintainer"} <= set(about)
    v = stack.get("/version")
    assert v.status == 200 and v.headers["content-type"].startswith("text/plain")
    assert v.body.decode() == about["version"]
    cfg = stack.get("/config_info").json()
    assert cfg["cpu_time_limit"] == 5 and cfg["max_number_of_runs"] == 20
    assert cfg["allow_enable_network"] is False and cfg["enable_network"] is False
    assert "CPU(s)" in stack.get("/system_info").json()
    w = stack.get("/workers").json()
    assert {"queue", "size", "available", "idle", "working", "paused", "failed"} <= set(w[0])


def test_the_operators_defaults_and_maxima_are_config_info_and_the_submissions(make_stack):
    """config_info.md: each default and maximum is an operator setting
    (RUN_JUDGE0_LIMITS, Judge0's keys and units); a default above a lower
    maximum is lowered to it; a submission past a maximum is 422 naming the
    field; an unset limit takes the operator's default."""
    s = make_stack("judge0limits", env={"RUN_JUDGE0_LIMITS":
                                        "cpu_time_limit=0.5,max_cpu_time_limit=2,"
                                        "max_memory_limit=100000,number_of_runs=2"})
    need(s, PY)
    cfg = s.get("/config_info").json()
    assert cfg["cpu_time_limit"] == 0.5 and cfg["max_cpu_time_limit"] == 2, cfg
    assert cfg["max_memory_limit"] == 100000 and cfg["memory_limit"] == 100000, cfg
    assert cfg["number_of_runs"] == 2 and cfg["max_number_of_runs"] == 20, cfg
    r = submit(s, {"source_code": "print(1)", "language_id": PY, "cpu_time_limit": 3})
    assert r.status == 422 and "cpu_time_limit" in r.json(), r
    r = submit(s, {"source_code": "print(1)", "language_id": PY, "memory_limit": 128000})
    assert r.status == 422 and "memory_limit" in r.json(), r
    doc = run(s, {"source_code": "while True: pass", "language_id": PY})
    assert doc["status"]["id"] == 5, doc
    assert float(doc["cpu_time_limit"]) == 0.5 and doc["number_of_runs"] == 2, doc
    assert float(doc["time"]) < 2.5, doc
    s.stop_clean()


# ---- authentication: docs/api/authentication, docs/api/authorization

def test_auth_on_and_internal_error(make_stack, tmp_path):
    """authentication.md and authorization.md with nginx/judge0-auth.conf
    included: no X-Auth-Token is 401, the right one passes, DELETE of a
    submission without X-Auth-User is 403, bodies empty as Judge0's.  (The
    session stack runs without the snippet: auth off, every other test.)
    The same stack's RUN_REQUEST_BUDGET of 1 s stops a run that its own
    limits allow: Internal Error, gaol's limit and not the program's."""
    conf = tmp_path / "auth.conf"
    conf.write_text(open(AUTH).read().replace("CHANGE-ME-AUTHN-TOKEN", "t0k3n")
                    .replace("CHANGE-ME-AUTHZ-TOKEN", "us3r"))
    os.chmod(tmp_path, 0o755)
    os.chmod(conf, 0o644)
    s = make_stack("judge0auth", env={"GAOL_NGINX_EXTRA": str(conf),
                                      "RUN_REQUEST_BUDGET": "1s"})
    ok = {"X-Auth-Token": "t0k3n"}
    r = s.get("/statuses")
    assert r.status == 401 and r.body == b"", r
    assert s.get("/health").status == 200     # left open for monitoring
    assert s.get("/statuses", headers={"X-Auth-Token": "wrong"}).status == 401
    assert s.get("/statuses", headers=ok).status == 200
    r = gh.request(s.port, "DELETE", "/submissions/abc", headers=ok)
    assert r.status == 403 and r.body == b"", r
    r = gh.request(s.port, "DELETE", "/submissions/abc", headers=dict(ok, **{"X-Auth-User": "us3r"}))
    assert r.status not in (401, 403), r
    r = submit(s, {"source_code": "import time; time.sleep(5)", "language_id": PY,
                   "wall_time_limit": 10}, "wait=true&fields=status,message", headers=ok)
    assert r.status == 201, r
    doc = r.json()
    assert doc["status"] == {"id": 13, "description": "Internal Error"}, doc
    assert "RUN_REQUEST_BUDGET" in doc["message"]
