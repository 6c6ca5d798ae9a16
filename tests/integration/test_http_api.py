# SPDX-License-Identifier: Apache-2.0
"""docs/api.md: the HTTP API, one test per promise — status codes and the
rule that every error, nginx's own included, is JSON {"error": ...}."""

import gzip
import json
import threading
import time

import pytest

import gaol_helpers as gh
from gaol_helpers import assert_json_error, assert_run_shape

HELLO = gh.py_source('print("hello")\nresult = 1')


# ---------------------------------------------------------------- 200

def test_health_answers_200_ok_with_slots_and_languages(stack):
    r = stack.get("/health")
    assert r.status == 200, r
    assert r.headers.get("content-type", "").startswith("application/json"), r.headers
    doc = r.json()
    assert doc.get("ok") is True, doc
    assert doc.get("service") == "gaol", doc
    assert 2 in [v for v in doc.values() if isinstance(v, int) and not isinstance(v, bool)], \
        "the slot count (RUN_CONCURRENCY=2) is not in /health: %r" % doc
    assert "python" in gh.installed_langs(doc), doc


def test_root_answers_like_health(stack):
    r = stack.get("/")
    assert r.status == 200, r
    doc = r.json()
    assert doc.get("ok") is True and doc.get("service") == "gaol", doc


def test_health_is_cheap_and_starts_no_sandbox(stack):
    lo, hi = stack.uid_base, stack.uid_base + stack.concurrency
    seen = {}
    spent = 0.0
    for _ in range(20):
        r = stack.get("/health")
        assert r.status == 200, r
        spent += r.elapsed
        seen.update(gh.processes_of_uids(lo, hi))
    per_call = spent / 20
    assert per_call < 0.05, "GET /health took %.1f ms" % (per_call * 1000)
    assert not seen, "slot UIDs ran something during /health: %r" % seen


def test_run_answers_200_with_exit_code_stdout_stderr(stack):
    r = stack.run({"lang_slug": "python", "solution_text": HELLO})
    assert r.status == 200, r
    assert r.headers.get("content-type", "").startswith("application/json"), r.headers
    doc = r.json()
    assert_run_shape(doc)
    assert doc["exit_code"] == 0, doc
    assert "hello" in doc["stdout"], doc
    assert doc["timed_out"] is False and doc["signal"] is None, doc


def test_run_accepts_every_timeout_unit(stack):
    for t in ("20000ms", "20s", "1m"):
        r = stack.run({"lang_slug": "python", "solution_text": HELLO, "timeout": t})
        assert r.status == 200, (t, r)


def test_run_accepts_timeout_equal_to_run_timeout_max(stack):
    r = stack.run({"lang_slug": "python", "solution_text": HELLO, "timeout": "60s"})
    assert r.status == 200, r


# ---------------------------------------------------------------- 400

def test_400_unparseable_json(stack):
    for body in (b"{", b"not json", b"", b'{"lang_slug": "python",}',
                 b'{"lang_slug": "python", "solution_text": "x"} trailing'):
        r = stack.post("/run", body, headers={"Content-Type": "application/json"})
        assert_json_error(r, 400)


@pytest.mark.parametrize("payload", [
    [1, 2],
    "python",
    None,
    {"lang_slug": 7, "solution_text": "x"},
    {"lang_slug": None, "solution_text": "x"},
    {"lang_slug": "python", "solution_text": 5},
    {"lang_slug": "python", "solution_text": ["x"]},
    {"lang_slug": "python", "solution_text": "x", "asserts": {"arguments": []}},
    {"lang_slug": "python", "solution_text": "x", "checker_text": 3},
    {"lang_slug": "python", "solution_text": "x", "timeout": 5},
    {"solution_text": "x"},
    {"lang_slug": "python"},
], ids=["array", "string", "null", "slug-number", "slug-null", "solution-number",
        "solution-array", "asserts-object", "checker-number", "timeout-number",
        "no-slug", "no-solution"])
def test_400_wrong_types_or_missing_fields(stack, payload):
    r = stack.post("/run", json.dumps(payload), headers={"Content-Type": "application/json"})
    assert_json_error(r, 400)


def test_400_unknown_lang_slug(stack):
    r = stack.run({"lang_slug": "befunge93", "solution_text": "x"})
    assert_json_error(r, 400)


def test_400_language_not_installed_names_the_installed_ones(stack, installed):
    # A language gaol has a directory for but whose toolchain is missing here:
    # /health lists those apart from the installed ones.
    health = stack.health()
    missing = [s for s in health.get("not_installed", []) if isinstance(s, str)]
    if not missing:
        pytest.skip("every language of langs/ is installed on this host")
    r = stack.run({"lang_slug": missing[0], "solution_text": "x", "checker_text": "x"})
    err = assert_json_error(r, 400)
    for slug in installed:
        assert slug in err, "400 for %s does not name installed %s: %r" % (missing[0], slug, err)


@pytest.mark.parametrize("slug", ["cpp", "java"])
def test_400_missing_checker_for_checker_languages(stack, slug):
    r = stack.run({"lang_slug": slug, "solution_text": "int x;"})
    err = assert_json_error(r, 400)
    assert "checker" in err.lower(), err


@pytest.mark.parametrize("timeout", ["abc", "10", "-1s", "1.5s", "0s", "s", "10h",
                                     " 10s", "10 s", "99999999999999999999999s", ""])
def test_400_bad_timeout(stack, timeout):
    r = stack.run({"lang_slug": "python", "solution_text": HELLO, "timeout": timeout})
    assert_json_error(r, 400)


@pytest.mark.parametrize("timeout", ["61s", "2m", "60001ms"])
def test_400_timeout_above_run_timeout_max(stack, timeout):
    r = stack.run({"lang_slug": "python", "solution_text": HELLO, "timeout": timeout})
    assert_json_error(r, 400)


# ---------------------------------------------------------------- 404, 405

@pytest.mark.parametrize("method,path", [
    ("GET", "/nope"), ("POST", "/nope"), ("POST", "/run/extra"), ("GET", "/healthz"),
    ("POST", "/runs"),
])
def test_404_unknown_path(stack, method, path):
    r = gh.request(stack.port, method, path, b"{}" if method == "POST" else None)
    assert_json_error(r, 404)


@pytest.mark.parametrize("method,path", [
    ("GET", "/run"), ("PUT", "/run"), ("DELETE", "/run"), ("POST", "/health"),
    ("DELETE", "/health"), ("GET", "/shutdown"),
])
def test_405_wrong_method(stack, method, path):
    r = gh.request(stack.port, method, path, b"{}" if method in ("PUT", "POST") else None)
    if path == "/shutdown" and r.status == 404:
        # With ALLOW_SHUTDOWN off, /shutdown does not exist at all.
        assert_json_error(r, 404)
        return
    assert_json_error(r, 405)
    # RFC 9110: a 405 says which methods the resource has.
    assert "allow" in r.headers, r.headers


# ---------------------------------------------------------------- 413

def test_413_body_over_run_input_max(stack):
    limit = int(stack.env["RUN_INPUT_MAX"])
    payload = json.dumps({"lang_slug": "python", "solution_text": "#" + "x" * limit})
    assert len(payload) > limit
    r = stack.post("/run", payload, headers={"Content-Type": "application/json"})
    assert_json_error(r, 413)


def test_body_just_under_run_input_max_is_accepted(stack):
    limit = int(stack.env["RUN_INPUT_MAX"])
    head = json.dumps({"lang_slug": "python", "solution_text": HELLO + "\n#"})
    payload = head[:-2] + "x" * (limit - len(head) - 64) + head[-2:]
    assert len(payload) < limit
    r = stack.post("/run", payload, headers={"Content-Type": "application/json"})
    assert r.status == 200, r


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_413_output_over_run_output_max_names_the_stream(stack, stream):
    limit = int(stack.env["RUN_OUTPUT_MAX"])
    code = ("import os, time\n"
            "fd = %d\n"
            "chunk = b'y' * 4096\n"
            "for _ in range(%d):\n"
            "    os.write(fd, chunk)\n"
            "time.sleep(20)\n"
            "result = 0" % (1 if stream == "stdout" else 2, limit // 4096 + 8))
    r = stack.py(gh.py_source(code), timeout="40s")
    err = assert_json_error(r, 413)
    assert stream in err, "413 does not name %s: %r" % (stream, err)
    other = "stderr" if stream == "stdout" else "stdout"
    assert other not in err, "413 for %s names %s too: %r" % (stream, other, err)
    # Killed the moment the cap was crossed, not after the 20 s sleep.
    assert r.elapsed < 10, "413 came after %.1fs: the program was not killed at the cap" % r.elapsed


def test_output_just_under_run_output_max_is_returned_whole(stack):
    limit = int(stack.env["RUN_OUTPUT_MAX"])
    n = limit - 4096
    code = "import os\nos.write(2, b'z' * %d)\nresult = 0" % n
    r = stack.py(gh.py_source(code))
    assert r.status == 200, r
    doc = r.json()
    assert doc["stderr"].count("z") == n, len(doc["stderr"])


def test_413_body_over_run_input_max_sent_chunked(stack):
    limit = int(stack.env["RUN_INPUT_MAX"])
    body = json.dumps({"lang_slug": "python", "solution_text": "#" + "x" * limit}).encode()
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 8192]), body[i:i + 8192])
                      for i in range(0, len(body), 8192)) + b"0\r\n\r\n"
    head = (b"POST /run HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    try:
        status, headers, data = gh.raw_request(stack.port, head + chunks)
    except ConnectionResetError:
        pytest.fail("connection reset instead of a 413 answer")
    assert_json_error(gh.Response(status, headers, data, 0), 413)


def test_chunked_body_is_accepted(stack):
    body = json.dumps({"lang_slug": "python", "solution_text": HELLO}).encode()
    head = (b"POST /run HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    half = len(body) // 2
    chunks = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (half, body[:half],
                                                             len(body) - half, body[half:])
    status, headers, data = gh.raw_request(stack.port, head + chunks, timeout=60)
    assert status == 200, data
    assert json.loads(data)["exit_code"] == 0, data


def test_413_app_checks_run_input_max_itself(stack):
    """Past nginx (straight to the pool's FastCGI socket) the app still
    refuses a body over RUN_INPUT_MAX."""
    limit = int(stack.env["RUN_INPUT_MAX"])
    body = json.dumps({"lang_slug": "python", "solution_text": "#" + "x" * limit}).encode()
    r = stack.fcgi("POST", "/run", body)
    assert_json_error(r, 413)


def test_415_app_checks_content_encoding_itself(stack):
    body = gzip.compress(json.dumps({"lang_slug": "python", "solution_text": HELLO}).encode())
    r = stack.fcgi("POST", "/run", body, headers={"Content-Encoding": "gzip"})
    assert_json_error(r, 415)


def test_app_answers_run_past_nginx(stack):
    body = json.dumps({"lang_slug": "python", "solution_text": HELLO}).encode()
    r = stack.fcgi("POST", "/run", body)
    assert r.status == 200, r
    assert r.json()["exit_code"] == 0, r


# ---------------------------------------------------------------- 415

@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br"])
def test_415_non_identity_content_encoding(stack, encoding):
    body = gzip.compress(json.dumps({"lang_slug": "python", "solution_text": HELLO}).encode())
    r = stack.post("/run", body, headers={"Content-Type": "application/json",
                                          "Content-Encoding": encoding})
    assert_json_error(r, 415)


def test_identity_content_encoding_is_accepted(stack):
    r = stack.post("/run", json.dumps({"lang_slug": "python", "solution_text": HELLO}),
                   headers={"Content-Type": "application/json",
                            "Content-Encoding": "identity"})
    assert r.status == 200, r


# ---------------------------------------------------------------- 429

def test_429_when_all_slots_busy(stack):
    n = stack.concurrency + 1
    slow = gh.py_source("import time\ntime.sleep(4)\nresult = 0")
    results = [None] * n
    barrier = threading.Barrier(n)

    def go(i):
        barrier.wait()
        try:
            results[i] = stack.py(slow, timeout="20s")
        except Exception as e:  # noqa: BLE001 - reported below
            results[i] = e

    threads = [threading.Thread(target=go, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    statuses = [getattr(r, "status", r) for r in results]
    busy = [r for r in results if getattr(r, "status", None) == 429]
    assert busy, "no 429 with %d runs on %d slots: %r" % (n, stack.concurrency, statuses)
    for r in busy:
        assert_json_error(r, 429)
        assert r.elapsed < 2, "429 took %.1fs: it should be immediate" % r.elapsed
    ok = [r for r in results if getattr(r, "status", None) == 200]
    assert len(ok) + len(busy) == n, statuses
    assert ok, statuses


# ---------------------------------------------------------------- nginx's own errors

def test_nginx_own_400_for_a_malformed_request_is_json(stack):
    status, headers, body = gh.raw_request(stack.port, b"GET /health HTTP/1.1\r\n\r\n")
    # HTTP/1.1 without Host: nginx itself answers 400.
    r = gh.Response(status, headers, body, 0)
    assert_json_error(r, 400)


def test_nginx_own_414_uri_too_long_is_json(stack):
    path = "/" + "a" * 70000
    status, headers, body = gh.raw_request(
        stack.port, ("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
    r = gh.Response(status, headers, body, 0)
    assert status in (400, 414), r
    assert_json_error(r, status)


def test_error_statuses_are_json_even_for_clients_accepting_html(stack):
    r = gh.request(stack.port, "GET", "/nope", headers={"Accept": "text/html"})
    assert_json_error(r, 404)


# ---------------------------------------------------------------- /shutdown off

def test_shutdown_404_when_not_allowed(stack):
    r = stack.post("/shutdown", b"")
    assert_json_error(r, 404)
    assert stack.get("/health").status == 200
