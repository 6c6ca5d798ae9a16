# SPDX-License-Identifier: Apache-2.0
"""docs/api.md ("POST /run"), response 200: what the program did, told honestly —
timeouts, signals, exit codes, output as valid JSON, the extensions."""

import json
import time

import gaol_helpers as gh
from gaol_helpers import assert_run_shape


def test_timeout_answers_143_with_sigterm_within_the_timeout(stack):
    # Codebattle (output_parser_v2.ex) shows its timeout message for exit 143
    # with "SIGTERM" in stdout or stderr, and waits for the answer exactly the
    # timeout (remote_zig.ex): the answer comes within it; timed_out and
    # signal say what really happened (gaol's SIGKILL).
    code = "import time\ntime.sleep(30)\nresult = 0"
    t0 = time.monotonic()
    r = stack.py(gh.py_source(code), timeout="1s")
    elapsed = time.monotonic() - t0
    assert r.status == 200, r
    doc = r.json()
    assert_run_shape(doc)
    assert doc["exit_code"] == 143, doc
    assert "SIGTERM" in doc["stderr"], doc
    assert doc["timed_out"] is True and doc["signal"] == "SIGKILL", doc
    assert elapsed < 1.0, "a 1s timeout answered after %.3fs" % elapsed
    # The reserve for the answer is a tenth of the timeout (100-500 ms).
    assert doc["wall_ms"] >= 1000 - 100 - 50, doc
    assert doc["wall_ms"] < 1000, doc


def test_timeout_kills_the_whole_process_tree(stack):
    # A child that outlives its parent must not keep the run (or the slot) alive.
    code = ("import os, time\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    time.sleep(60)\n"
            "    os._exit(0)\n"
            "time.sleep(60)\n"
            "result = 0")
    t0 = time.monotonic()
    r = stack.py(gh.py_source(code), timeout="1s")
    assert r.status == 200, r
    assert r.json()["timed_out"] is True
    assert time.monotonic() - t0 < 3.0
    time.sleep(0.3)
    left = gh.processes_of_uids(stack.uid_base, stack.uid_base + stack.concurrency)
    assert not left, "processes of the run outlived it: %r" % left


def test_run_that_finishes_in_time_is_not_timed_out(stack):
    r = stack.py(gh.py_source("result = 0"), timeout="10s")
    doc = r.json()
    assert doc["timed_out"] is False and doc["exit_code"] == 0, doc


def test_signal_exit_sigkill_gives_137_and_signal_name(stack):
    code = "import os\nos.kill(os.getpid(), 9)\nresult = 0"
    r = stack.py(gh.py_source(code))
    assert r.status == 200, r
    doc = r.json()
    assert_run_shape(doc)
    assert doc["exit_code"] == 137, doc
    assert doc["signal"] == "SIGKILL", doc
    assert doc["timed_out"] is False, doc


def test_signal_exit_sigsegv_gives_139_and_signal_name(stack):
    code = "import ctypes\nctypes.string_at(0)\nresult = 0"
    r = stack.py(gh.py_source(code))
    assert r.status == 200, r
    doc = r.json()
    assert doc["exit_code"] == 139, doc
    assert doc["signal"] == "SIGSEGV", doc


def test_exit_code_is_the_programs_own(stack):
    code = "import os\nos._exit(7)\nresult = 0"
    r = stack.py(gh.py_source(code))
    assert r.status == 200, r
    doc = r.json()
    assert doc["exit_code"] == 7, doc
    assert doc["signal"] is None, doc


def test_invalid_utf8_in_output_becomes_replacement_character(stack):
    code = ("import os\n"
            "os.write(1, b'A\\xffB\\xc3(C\\xe2\\x82D\\xf0\\x9f\\x98\\x80E\\n')\n"
            "os.write(2, b'e\\xfe\\n')\n"
            "result = 0")
    r = stack.py(gh.py_source(code))
    assert r.status == 200, r
    doc = r.json()  # strict: body must be valid UTF-8 JSON
    assert "A\ufffdB\ufffd(C\ufffdD\U0001F600E" in doc["stdout"], doc["stdout"]
    assert "e\ufffd" in doc["stderr"], doc["stderr"]


def test_nul_bytes_in_output_survive_escaped(stack):
    code = "import os\nos.write(1, b'x\\x00y\\x01z\\n')\nresult = 0"
    r = stack.py(gh.py_source(code))
    assert r.status == 200, r
    assert b"\\u0000" in r.body, r.body
    doc = r.json()
    assert "x\x00y\x01z" in doc["stdout"], repr(doc["stdout"])


def test_wall_ms_cpu_ms_memory_peak_kb_present(stack):
    code = ("import time\n"
            "t = time.process_time()\n"
            "while time.process_time() - t < 0.3:\n"
            "    pass\n"
            "x = bytearray(64 << 20)\n"
            "result = 0")
    r = stack.py(gh.py_source(code))
    assert r.status == 200, r
    doc = r.json()
    assert_run_shape(doc)
    assert doc["wall_ms"] >= 300, doc
    assert doc["cpu_ms"] is not None and doc["cpu_ms"] >= 250, doc
    assert doc["memory_peak_kb"] is not None and doc["memory_peak_kb"] >= 60 * 1024, doc
    assert doc["oom_killed"] is False, doc


def test_stdout_and_stderr_kept_apart(stack):
    code = ("import os\nos.write(1, b'to-out\\n')\nos.write(2, b'to-err\\n')\nresult = 0")
    doc = stack.py(gh.py_source(code)).json()
    assert "to-out" in doc["stdout"] and "to-out" not in doc["stderr"], doc
    assert "to-err" in doc["stderr"] and "to-err" not in doc["stdout"], doc


def test_python_harness_prints_codebattle_records_for_asserts(stack):
    sol = "def solution(a, b):\n    print('side')\n    return a + b\n"
    r = stack.run({"lang_slug": "python", "solution_text": sol,
                   "asserts": json.dumps({"arguments": [[1, 2], [10, -3]]})})
    assert r.status == 200, r
    doc = r.json()
    assert doc["exit_code"] == 0, doc
    records = gh.records(doc["stdout"])
    results = [rec for rec in records if rec.get("type") == "result"]
    assert [rec["value"] for rec in results] == [3, 7], records
    for rec in results:
        assert "time" in rec, rec
        assert "side" in rec.get("output", ""), rec


def test_python_solution_that_fails_to_load_prints_one_error_record(stack):
    r = stack.run({"lang_slug": "python", "solution_text": "def solution(:\n",
                   "asserts": json.dumps({"arguments": [[1, 2]]})})
    assert r.status == 200, r
    doc = r.json()
    assert doc["exit_code"] == 0, doc
    records = gh.records(doc["stdout"])
    errors = [rec for rec in records if rec.get("type") == "error"]
    assert len(errors) == 1, records


def test_memory_over_the_languages_limit_is_oom_killed(stack):
    # python's lang.json mem_max is 512m: touch 1 GiB.
    code = ("chunks = []\n"
            "for _ in range(16):\n"
            "    chunks.append(b'\\x01' * (64 << 20))\n"
            "result = 0")
    r = stack.py(gh.py_source(code), timeout="30s")
    assert r.status == 200, r
    doc = r.json()
    assert_run_shape(doc)
    assert doc["oom_killed"] is True, doc
    # exit 2 and "Killed", as a killed `make test` reports it: what
    # Codebattle's parser (output_parser_v2.ex) takes for out-of-memory.
    assert doc["exit_code"] == 2 and "Killed" in doc["stderr"], doc
    assert doc["signal"] == "SIGKILL", doc
    assert doc["timed_out"] is False, doc
    assert doc["memory_peak_kb"] is not None and doc["memory_peak_kb"] >= 400 * 1024, doc
    assert stack.get("/health").status == 200
