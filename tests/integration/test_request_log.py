# SPDX-License-Identifier: Apache-2.0
"""Request logs (issue 15): each request gaol-fcgi answers leaves exactly one
JSON line on its stderr, with the id the client saw in X-Request-Id (nginx's
$request_id, passed as GAOL_REQUEST_ID), the route, language, status, outcome
or verdict, times, peak memory, slot and bytes in and out.  The code is never
logged: only its size and its FNV-1a 64 hash."""

import json
import time
import uuid

import gaol_helpers as gh


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def log_lines(stack):
    """The request log's lines in the stack's log: {request_id: [line, ...]}."""
    return gh.request_log_lines(stack.log_path)


def lines_for(stack, ids, timeout=5.0):
    """Waits until every id has a line (written once the answer went out)."""
    deadline = time.time() + timeout
    while True:
        by_id = log_lines(stack)
        if all(i in by_id for i in ids) or time.time() > deadline:
            return by_id
        time.sleep(0.05)


def test_every_request_leaves_one_json_line_with_the_id_the_client_saw(stack):
    marker = "secret_marker_" + uuid.uuid4().hex
    code = "print(%r and int(input()) * 2)\n" % marker
    run_code = "def solution(a, b):\n    return a + b  # %s\n" % marker
    calls = [
        ("GET", "/health", None),
        ("HEAD", "/health", None),
        ("POST", "/run", {"lang_slug": "python", "solution_text": run_code,
                          "asserts": json.dumps({"arguments": [[1, 2]]})}),
        ("POST", "/run", {"lang_slug": "python", "timeout": "1s",
                          "solution_text": "while True: pass  # %s\n" % marker}),
        ("POST", "/evaluate", {"language": "python", "code": code,
                               "test_cases": [{"input": "4", "expected_output": "8"},
                                              {"input": "5", "expected_output": "11"}]}),
        ("POST", "/run", "{not json"),
        ("GET", "/run", None),
        ("GET", "/no/such/path", None),
        # Judge0 names the language by its id (71: python) and the code
        # source_code.
        ("POST", "/submissions?wait=true", {"language_id": 71, "source_code": code,
                                            "stdin": "4", "expected_output": "8"}),
    ]
    seen = []
    for method, path, body in calls:
        resp = gh.request(stack.port, method, path, body=body, timeout=120)
        rid = resp.headers.get("x-request-id")
        assert rid and len(rid) == 32 and int(rid, 16) >= 0, (path, resp.headers)
        seen.append((method, path, body, resp, rid))
    assert len({rid for *_, rid in seen}) == len(seen), "request ids repeat"

    by_id = lines_for(stack, [rid for *_, rid in seen])
    text = open(stack.log_path, "rb").read().decode("utf-8", "replace")
    assert marker not in text, "the submitted code reached the log"

    for method, path, body, resp, rid in seen:
        lines = by_id.get(rid, [])
        assert len(lines) == 1, "%s %s: %d log lines for id %s" % (method, path, len(lines), rid)
        line = lines[0]
        assert line["status"] == resp.status and line["method"] == method, line
        if path == "/health":
            # The master answers /health on its own socket: no slot.
            assert line["slot"] is None, line
        else:
            assert isinstance(line["slot"], int) and 0 <= line["slot"] < 2, line
        assert line["time"].endswith("Z") and isinstance(line["request_ms"], int), line
        assert line["bytes_out"] >= len(resp.body), line
        # The route is the one that answered: none for 404, nor for 405.
        expected_route = path.split("?")[0] if resp.status not in (404, 405) else None
        assert line["route"] == expected_route, line
        if isinstance(body, dict):
            src = (body.get("solution_text") or body.get("code") or body["source_code"]).encode()
            assert line["language"] == "python", line
            assert line["code_bytes"] == len(src), line
            assert line["code_fnv1a64"] == fnv1a64(src), line
            assert line["bytes_in"] == len(json.dumps(body).encode()), line

    lines = [by_id[rid][0] for *_, rid in seen]
    ok_run, loop_run, evaluate, bad_json, wrong_method, unknown, judge0 = lines[2:]
    assert ok_run["outcome"] == "exit" and ok_run["exit_code"] == 0, ok_run
    assert ok_run["cpu_ms"] >= 0 and ok_run["memory_peak_kb"] > 0, ok_run
    # Stopped a reserve (a tenth of the timeout, at least 100 ms) before it,
    # so that the answer is in time (see POST /run in docs/api.md).
    assert loop_run["outcome"] == "timeout" and loop_run["wall_ms"] >= 850, loop_run
    assert evaluate["verdict"] == "WA" and evaluate["verdicts"] == {"OK": 1, "WA": 1}, evaluate
    assert bad_json["status"] == 400 and "error" in bad_json and "outcome" not in bad_json
    assert wrong_method["status"] == 405 and unknown["status"] == 404
    assert judge0["status"] == 201, judge0


def test_nginx_errors_carry_a_request_id_too(stack):
    """An error nginx answers itself (here 413, a body over the limit) never
    reaches gaol-fcgi, so it has no log line; it still carries X-Request-Id."""
    resp = gh.request(stack.port, "POST", "/run", body=b"x" * (300 * 1024))
    assert resp.status == 413, resp
    assert len(resp.headers.get("x-request-id", "")) == 32, resp.headers
