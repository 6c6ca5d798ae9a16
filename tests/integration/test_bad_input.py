# SPDX-License-Identifier: Apache-2.0
"""Bad input: malformed HTTP requests against the real stack (README, "Status
codes").  Each one gets its documented status -- 400 for a /run body, 422
for an /evaluate body, 405, 404, 411, 413, 415 -- with a JSON body holding
an "error" string, and the service answers a good request right after it.

Requests that http.client cannot send (no length, chunked, broken framing,
repeated headers, raw bytes in the request line) go over a raw socket; a few
go straight to gaol-fcgi's socket, past nginx, to reach the app's own checks
(nginx would stop them first).  Traffic goes only to 127.0.0.1.

The session stack has RUN_INPUT_MAX=262144 and RUN_TIMEOUT_MAX=60s
(conftest.SESSION_ENV).
"""

import http.client
import json
import socket

import pytest

import gaol_helpers as gh
from conftest import SESSION_ENV

INPUT_MAX = int(SESSION_ENV["RUN_INPUT_MAX"])
GOOD_RUN = {"lang_slug": "python", "solution_text": "def solution(a, b):\n    return a + b\n",
            "asserts": json.dumps({"arguments": [[1, 2]]})}
RUN = {"lang_slug": "python", "solution_text": "print(1)"}
EVAL = {"code": "print(1)", "language": "python",
        "test_cases": [{"input": "", "expected_output": "1"}]}
DROP = object()     # run_with(field=DROP): the field left out


def with_fields(base, **kw):
    """base's JSON with the fields of kw set (or left out: DROP)."""
    d = dict(base)
    for k, v in kw.items():
        if v is DROP:
            d.pop(k, None)
        else:
            d[k] = v
    return json.dumps(d, ensure_ascii=False)


def run_with(**kw):
    return with_fields(RUN, **kw)


def eval_with(**kw):
    return with_fields(EVAL, **kw)


def exactly(size, prefix, suffix=b'"}'):
    """A JSON body of exactly size bytes: prefix, then x's in a string."""
    pad = size - len(prefix) - len(suffix)
    assert pad >= 0
    return prefix + b"x" * pad + suffix


# ---------------------------------------------------------------- bodies
# (id, path, body, status): sent with http.client, Content-Length set.

BODY_ERRORS = {
    # Unparseable JSON.
    "truncated": ('{"lang_slug": "pyth', '{"code": "x", "langu'),
    "empty body": ("", ""),
    "whitespace only": (" \r\n\t ", " \n "),
    "bom only": (b"\xef\xbb\xbf", b"\xef\xbb\xbf"),
    "single quotes": ("{'lang_slug': 'python'}", "{'code': 'x'}"),
    "trailing comma": (run_with()[:-1] + ",}", eval_with()[:-1] + ",}"),
    "comment": ("/* hi */" + run_with(), "// hi\n" + eval_with()),
    # Each of these is a good request but for the one defect.
    "NaN": (run_with()[:-1] + ', "n": NaN}', eval_with()[:-1] + ', "n": NaN}'),
    "Infinity": (run_with()[:-1] + ', "n": [-Infinity]}', eval_with()[:-1] + ', "n": Infinity}'),
    "number out of range": (run_with()[:-1] + ', "n": 1e400}',
                            eval_with()[:-1] + ', "n": {"m": -1e999}}'),
    "data after the object": (run_with() + " {}", eval_with() + "x"),
    "two objects": (run_with() + run_with(), eval_with() + eval_with()),
    "unterminated string": ('{"lang_slug": "python", "solution_text": "x',
                            '{"code": "x", "language": "py'),
    "bad escape": ('{"lang_slug": "python", "solution_text": "\\q"}',
                   '{"code": "\\x41", "language": "python"}'),
    "nesting 200 deep": ('{"x": ' + "[" * 200 + "]" * 200 + "}",
                         '{"x": ' + '{"a":' * 200 + "1" + "}" * 200 + "}"),
    "NUL byte in the JSON": (b'{"lang_slug": "python",\x00 "solution_text": "x"}',
                             b'{"code": "x",\x00 "language": "python"}'),
    "NUL byte in a string": (b'{"lang_slug": "python", "solution_text": "a\x00b"}',
                             b'{"code": "a\x00b", "language": "python"}'),
    "invalid UTF-8": (run_with(solution_text="#\udcff\udcfe").encode("utf-8", "surrogateescape"),
                      eval_with(code="#\udcc0\udcaf").encode("utf-8", "surrogateescape")),
    "overlong UTF-8": (run_with(solution_text="#\udce0\udc80\udcaf").encode("utf-8", "surrogateescape"),
                       eval_with(code="#\udcc1\udcbf").encode("utf-8", "surrogateescape")),
    "UTF-8 of a surrogate": (run_with(solution_text="#\udced\udca0\udc80").encode("utf-8", "surrogateescape"),
                             eval_with(code="#\udced\udcbf\udcbf").encode("utf-8", "surrogateescape")),
    "UTF-8 above U+10FFFF": (run_with(solution_text="#\udcf4\udc90\udc80\udc80").encode("utf-8", "surrogateescape"),
                             eval_with(code="#\udcf5\udc80\udc80\udc80").encode("utf-8", "surrogateescape")),
    "latin-1 body": (run_with(solution_text="# caf\xe9").encode("latin-1"),
                     eval_with(code="# caf\xe9").encode("latin-1")),
    # Valid JSON of the wrong shape.
    "array": ("[]", "[1]"),
    "string": ('"x"', '"x"'),
    "number": ("42", "-1e400"),
    "null": ("null", "null"),
    # Missing, unknown, empty and duplicated fields.
    "empty object": ("{}", "{}"),
    "required field missing": (run_with(lang_slug=DROP), eval_with(code=DROP)),
    "other required field missing": (run_with(solution_text=DROP), eval_with(language=DROP)),
    "required field null": (run_with(lang_slug=None), eval_with(test_cases=None)),
    "only unknown fields": ('{"language": "python", "code": "x"}',
                            '{"lang_slug": "python", "solution_text": "x"}'),
    # /evaluate answers these 200, "Unsupported language: X" on every test
    # as CompiCode's executor does (test_client_compicode.py): None.
    "unknown language": (run_with(lang_slug="befunge93"), None),
    "empty language": (run_with(lang_slug=""), None),
    "language with NUL": (run_with(lang_slug="pyt\u0000hon"), None),
    "100k language name": (run_with(lang_slug="p" * 100000), None),
    "duplicated key, last wrong": ('{"lang_slug": "python", "solution_text": "x", "lang_slug": 5}',
                                   '{"code": "x", "language": "python", "test_cases": [], '
                                   '"code": null}'),
    # Wrong types.
    "language not a string": (run_with(lang_slug=["python"]), eval_with(language={"slug": "python"})),
    "source a number": (run_with(solution_text=42), eval_with(code=42)),
    "source a bool": (run_with(solution_text=True), eval_with(code=False)),
}

RUN_ONLY = {
    "checker missing for cpp": run_with(lang_slug="cpp", solution_text="int x;"),
    "checker_text an object": run_with(checker_text={"a": 1}),
    "asserts an object": run_with(asserts={"arguments": [[1]]}),
    "timeout a number": run_with(timeout=30),
    "timeout without unit": run_with(timeout="30"),
    "timeout zero": run_with(timeout="0s"),
    "timeout negative": run_with(timeout="-5s"),
    "timeout fraction": run_with(timeout="1.5s"),
    "timeout upper-case unit": run_with(timeout="30S"),
    "timeout in hours": run_with(timeout="1h"),
    "timeout with spaces": run_with(timeout=" 30 s"),
    "timeout above RUN_TIMEOUT_MAX": run_with(timeout="61s"),
    "timeout of LONG_MAX ms": run_with(timeout="9223372036854775807ms"),
    "timeout overflowing": run_with(timeout="99999999999999999999999m"),
    "timeout with NUL": run_with(timeout="30s\u0000"),
}

EVAL_ONLY = {
    "test_cases not an array": eval_with(test_cases={"input": "", "expected_output": ""}),
    "test_cases 1001 entries": eval_with(test_cases=[{}] * 1001),
    "test case not an object": eval_with(test_cases=["1"]),
    "test input a number": eval_with(test_cases=[{"input": 4, "expected_output": "8"}]),
    "expected_output an array": eval_with(test_cases=[{"input": "4", "expected_output": ["8"]}]),
    "time_limit_ms zero": eval_with(time_limit_ms=0),
    "time_limit_ms negative": eval_with(time_limit_ms=-1),
    "time_limit_ms above the maximum": eval_with(time_limit_ms=60001),
    "time_limit_ms a float": eval_with(time_limit_ms=1.5),
    "time_limit_ms a string": eval_with(time_limit_ms="2000"),
    "time_limit_ms 2^63": eval_with(time_limit_ms=2 ** 63),
    "time_limit_ms -2^63-1": eval_with(time_limit_ms=-2 ** 63 - 1),
    "time_limit_ms 1e400": eval_with()[:-1] + ', "time_limit_ms": 1e400}',
    "memory_limit_mb too small": eval_with(memory_limit_mb=7),
    "memory_limit_mb 2^64": eval_with(memory_limit_mb=2 ** 64),
    "input_mode unknown": eval_with(input_mode="tcp"),
    "input_file with a slash": eval_with(input_mode="file", input_file="../etc/passwd"),
    "output_file dot-dot": eval_with(input_mode="file", output_file=".."),
    "input_file empty": eval_with(input_mode="file", input_file=""),
    "output_file with NUL": eval_with(input_mode="file", output_file="out\u0000.txt"),
    "output_file 300 bytes": eval_with(input_mode="file", output_file="o" * 300),
}


def body_cases():
    for name, (run_body, eval_body) in BODY_ERRORS.items():
        yield pytest.param("/run", run_body, 400, id="run: " + name)
        if eval_body is not None:
            yield pytest.param("/evaluate", eval_body, 422, id="evaluate: " + name)
    for name, body in RUN_ONLY.items():
        yield pytest.param("/run", body, 400, id="run: " + name)
    for name, body in EVAL_ONLY.items():
        yield pytest.param("/evaluate", body, 422, id="evaluate: " + name)


# ---------------------------------------------------------------- the check

def answers_a_good_request(stack):
    r = stack.run(GOOD_RUN, timeout=60)
    assert r.status == 200, "a good request after the bad one: %r" % r
    doc = r.json()
    assert doc["exit_code"] == 0 and '"value": 3' in doc["stdout"], doc


def raw(stack, data, timeout=15.0):
    """Raw bytes to nginx; the answer as a gh.Response."""
    with socket.create_connection(("127.0.0.1", stack.port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass    # answered before the body was read
        resp = http.client.HTTPResponse(s, method=data.split(b" ", 1)[0].decode("latin-1"))
        resp.begin()
        body = resp.read()
        return gh.Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, body, 0)


def head(method, path, *lines):
    return ("%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n%s\r\n"
            % (method, path, "".join(l + "\r\n" for l in lines))).encode("latin-1")


def chunked(data, size=7):
    out = b""
    for i in range(0, len(data), size):
        part = data[i:i + size]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


# ---------------------------------------------------------------- tests

@pytest.mark.parametrize("path, body, status", list(body_cases()))
def test_a_malformed_body_gets_its_status_in_json(stack, path, body, status):
    r = stack.post(path, body, headers={"Content-Type": "application/json"})
    gh.assert_json_error(r, status)
    answers_a_good_request(stack)


@pytest.mark.parametrize("path, status", [("/run", 400), ("/evaluate", 422)])
def test_a_body_of_exactly_RUN_INPUT_MAX_bytes_is_read(stack, path, status):
    # Not 413: the body is within the limit, and refused for its content.
    field = b'{"lang_slug": "befunge93", "solution_text": "' if path == "/run" \
        else b'{"language": "python", "code": "'
    body = exactly(INPUT_MAX, field)
    r = stack.post(path, body, headers={"Content-Type": "application/json"})
    gh.assert_json_error(r, status)
    answers_a_good_request(stack)


@pytest.mark.parametrize("path", ["/run", "/evaluate"])
def test_a_body_one_byte_over_RUN_INPUT_MAX_is_413(stack, path):
    body = exactly(INPUT_MAX + 1, b'{"lang_slug": "python", "solution_text": "')
    r = stack.post(path, body, headers={"Content-Type": "application/json"})
    gh.assert_json_error(r, 413)
    answers_a_good_request(stack)


@pytest.mark.parametrize("path", ["/run", "/evaluate"])
def test_a_chunked_body_over_RUN_INPUT_MAX_is_413(stack, path):
    body = exactly(INPUT_MAX + 1, b'{"lang_slug": "python", "solution_text": "')
    r = raw(stack, head("POST", path, "Transfer-Encoding: chunked") + chunked(body, 65536))
    gh.assert_json_error(r, 413)
    answers_a_good_request(stack)


@pytest.mark.parametrize("path, status", [("/run", 400), ("/evaluate", 422)])
def test_a_chunked_body_is_parsed_like_any_other(stack, path, status):
    # nginx buffers it and hands the app a length; broken JSON is still 400/422.
    r = raw(stack, head("POST", path, "Transfer-Encoding: chunked") + chunked(b'{"a": [1, 2'))
    gh.assert_json_error(r, status)
    answers_a_good_request(stack)


ENCODINGS = ["gzip", "deflate", "br", "compress", "x-custom", "gzip, identity", "identity, gzip"]


@pytest.mark.parametrize("path", ["/run", "/evaluate"])
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_non_identity_content_encoding_is_415(stack, path, encoding):
    body = run_with() if path == "/run" else eval_with()
    r = stack.post(path, body, headers={"Content-Type": "application/json",
                                        "Content-Encoding": encoding})
    gh.assert_json_error(r, 415)
    answers_a_good_request(stack)


@pytest.mark.parametrize("path", ["/run", "/evaluate"])
def test_a_repeated_content_encoding_header_is_415_when_one_is_not_identity(stack, path):
    # Two header lines are one list, "identity, gzip" (RFC 9110, 5.3): the
    # body is gzip-coded.  nginx 1.22 hands them over as two params.
    body = (run_with() if path == "/run" else eval_with()).encode()
    r = raw(stack, head("POST", path, "Content-Type: application/json",
                        "Content-Encoding: identity", "Content-Encoding: gzip",
                        "Content-Length: %d" % len(body)) + body)
    gh.assert_json_error(r, 415)
    answers_a_good_request(stack)


@pytest.mark.parametrize("path", ["/run", "/evaluate"])
@pytest.mark.parametrize("ctype", ["multipart/form-data; boundary=xyz", "multipart/mixed"])
def test_a_multipart_body_is_415(stack, path, ctype):
    body = "--xyz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--xyz--\r\n"
    r = stack.post(path, body, headers={"Content-Type": ctype})
    gh.assert_json_error(r, 415)
    answers_a_good_request(stack)


@pytest.mark.parametrize("path, status", [("/run", 400), ("/evaluate", 422)])
def test_another_content_type_is_parsed_as_json_and_refused_for_its_content(stack, path, status):
    r = stack.post(path, "lang_slug=python&solution_text=x",
                   headers={"Content-Type": "application/x-www-form-urlencoded"})
    gh.assert_json_error(r, status)
    answers_a_good_request(stack)


@pytest.mark.parametrize("path", ["/run", "/evaluate"])
@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "FOO",
                                    "TRACE"])
def test_a_wrong_method_is_405(stack, path, method):
    r = raw(stack, head(method, path, "Content-Length: 2") + b"{}")
    gh.assert_json_error(r, 405)
    answers_a_good_request(stack)


@pytest.mark.parametrize("path", ["/run/", "/RUN", "/run.json", "/evaluate/1", "/evaluat",
                                  "/shutdown"])
def test_an_unknown_path_is_404(stack, path):
    r = raw(stack, head("POST", path, "Content-Length: 2") + b"{}")
    gh.assert_json_error(r, 404)
    answers_a_good_request(stack)


@pytest.mark.parametrize("path", ["/run", "/evaluate"])
@pytest.mark.parametrize("version", ["1.1", "1.0"])
def test_a_body_without_a_length_is_411(stack, path, version):
    data = head("POST", path, "Content-Type: application/json").replace(
        b"HTTP/1.1", b"HTTP/" + version.encode()) + b"{}"
    r = raw(stack, data)
    gh.assert_json_error(r, 411)
    answers_a_good_request(stack)


FRAMING = {
    # What nginx refuses itself, before the app: 400 in JSON.
    "Content-Length not a number": (head("POST", "/run", "Content-Length: abc") + b"{}", 400),
    "Content-Length negative": (head("POST", "/run", "Content-Length: -1") + b"{}", 400),
    "Content-Length beyond 2^64": (head("POST", "/evaluate",
                                        "Content-Length: 99999999999999999999") + b"{}", 400),
    "two Content-Lengths": (head("POST", "/run", "Content-Length: 2", "Content-Length: 3")
                            + b"{}", 400),
    "Content-Length and chunked": (head("POST", "/evaluate", "Content-Length: 5",
                                        "Transfer-Encoding: chunked") + chunked(b"{}"), 400),
    "broken chunk size": (head("POST", "/run", "Transfer-Encoding: chunked")
                          + b"zz\r\n{}\r\n0\r\n\r\n", 400),
    "Content-Length over RUN_INPUT_MAX": (head("POST", "/run", "Content-Length: %d"
                                               % (INPUT_MAX + 1)) + b"{}", 413),
    "Expect 100-continue over RUN_INPUT_MAX": (head("POST", "/evaluate", "Expect: 100-continue",
                                                    "Content-Length: %d" % (INPUT_MAX * 4)), 413),
    "no Host in HTTP/1.1": (b"POST /run HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 400),
    "garbage request line": (b"GARBAGE\r\n\r\n", 400),
    "HTTP/2 preface on HTTP/1": (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400),
    "NUL in the path": (head("POST", "/run%00x", "Content-Length: 2") + b"{}", 400),
    "path above the root": (head("POST", "/../run", "Content-Length: 2") + b"{}", 400),
    "20 kB header": (head("POST", "/run", "X-Big: " + "a" * 20000, "Content-Length: 2")
                     + b"{}", 400),
}


@pytest.mark.parametrize("data, status", [pytest.param(*v, id=k) for k, v in FRAMING.items()])
def test_broken_http_framing_gets_its_status_in_json(stack, data, status):
    r = raw(stack, data)
    gh.assert_json_error(r, status)
    answers_a_good_request(stack)


# Past nginx, straight to gaol-fcgi: the app's own checks of what nginx
# normally guarantees (http.c: 413 from the length alone, 400 for a length
# that is not a number or a body shorter than its length, 411).

APP_CHECKS = {
    "length over RUN_INPUT_MAX": ("/run", b"{}", {"Content-Length": str(INPUT_MAX + 1)}, 413),
    "length of 2^64": ("/evaluate", b"{}", {"Content-Length": "18446744073709551616"}, 400),
    "length not a number": ("/run", b"{}", {"Content-Length": "2x"}, 400),
    "length with a sign": ("/evaluate", b"{}", {"Content-Length": "+2"}, 400),
    "body shorter than its length": ("/run", b"{}", {"Content-Length": "100"}, 400),
    "no length": ("/evaluate", b"", {}, 411),
    "gzip": ("/run", b"{}", {"Content-Encoding": "gzip"}, 415),
}


@pytest.mark.parametrize("path, body, headers, status",
                         [pytest.param(*v, id=k) for k, v in APP_CHECKS.items()])
def test_the_app_checks_the_framing_itself(stack, path, body, headers, status):
    r = stack.fcgi("POST", path, body, headers=headers, timeout=30)
    gh.assert_json_error(r, status)
    answers_a_good_request(stack)
