# SPDX-License-Identifier: Apache-2.0
"""Hostile tenants against the service itself (issue 11, findings 1 and 2):
one request may not cost the host more than its answer cap, its pool memory
and its wall-clock budget.  Each test makes the attack through the real
stack (nginx + spawn-fcgi + gaol-fcgi, real HTTP), asserts it was stopped,
then that the host is as it was (gh.host_left_clean after a clean stop)."""

import socket
import time

import gaol_helpers as gh

NUL_MB = "import sys\nopen('output.txt', 'wb').write(b'\\0' * (1 << 20))\n"


def file_eval(n_tests, code=NUL_MB, **fields):
    body = {"code": code, "language": "python", "input_mode": "file",
            "test_cases": [{"input": "", "expected_output": "x"}] * n_tests}
    body.update(fields)
    return body


def slot_processes(s):
    return gh.processes_of_uids(s.uid_base, s.uid_base + s.concurrency)


def test_a_huge_answer_is_capped_truncated_and_streamed(make_stack):
    # Finding 1: 10 tests each writing 1 MB of NUL to output.txt made a
    # 67 MB answer (NUL is \u0000 in JSON, six times its size).  With
    # RUN_ANSWER_MAX 4 MiB the answer stays within the cap (plus what the
    # request itself echoes, here nothing but "x"), every `actual` says it
    # was truncated, and the body is streamed (no Content-Length: chunked).
    mounts = gh.mountinfo()
    cap = 4 << 20
    s = make_stack("answer-cap", env={"RUN_ANSWER_MAX": "4m"})
    r = s.post("/evaluate", file_eval(10), timeout=300)
    assert r.status == 200, r
    assert len(r.body) <= cap + 10 * 1024, len(r.body)
    assert r.headers.get("transfer-encoding") == "chunked", r.headers
    assert "content-length" not in r.headers, r.headers
    doc = r.json()
    assert len(doc["results"]) == 10
    for res in doc["results"]:
        assert res["verdict"] == "WA", res["verdict"]
        assert res["actual_truncated"] is True, {k: v for k, v in res.items() if k != "actual"}
        assert 0 < len(res["actual"]) < 1 << 20 and set(res["actual"]) == {"\0"}
    # A small answer is not marked.
    r = s.post("/evaluate", file_eval(2, code="open('output.txt','w').write('x')\n"))
    assert r.status == 200, r
    for res in r.json()["results"]:
        assert res["verdict"] == "OK" and res["actual_truncated"] is False, res
    assert not slot_processes(s)
    s.stop_clean()
    assert gh.host_left_clean(s, mounts) == []


def test_a_worker_over_the_pool_memory_limit_is_replaced_not_the_host(make_stack):
    # Finding 1 (c): the pool (master and workers, not the slots) is in a
    # cgroup with RUN_POOL_MEMORY_MAX.  With an answer cap far above it, a
    # huge answer pushes its worker over: the worker is killed and
    # replaced, the client gets nginx's JSON 502, the next request is served.
    mounts = gh.mountinfo()
    s = make_stack("pool-memory", env={"RUN_ANSWER_MAX": "1g", "RUN_POOL_MEMORY_MAX": "40m",
                                       "RUN_OUTPUT_MAX": "16m", "RUN_EVAL_OUTPUT_MAX": "16m",
                                       "RUN_EVAL_PARALLEL": "1"})
    # The master (and so every worker) is in the pool's memory cgroup; the
    # slots are beside it, not in it (their limits are their own).
    master = s.fcgi_master()
    pool = gh._memory_cgroup(master)
    assert pool.endswith("/pool%d" % s.uid_base), pool
    for pid in s.fcgi_workers():
        assert gh._memory_cgroup(pid) == pool, pid
    slots = [gh._memory_cgroup(p) for p in s.processes() if "/uid" in (gh._memory_cgroup(p) or "")]
    assert slots and not [c for c in slots if "pool" in c], slots
    r = s.post("/evaluate", file_eval(2, code="open('output.txt','wb').write(b'\\0' * (16 << 20))\n"),
               timeout=300)
    assert r.status in (500, 502), r
    assert r.headers.get("content-type", "").startswith("application/json"), r.headers
    r.json()
    # It was the kernel's OOM kill in the pool's cgroup, and the master
    # started the worker again.
    deadline = time.monotonic() + 10
    while "was killed by signal 9" not in s.log_text() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "was killed by signal 9" in s.log_text(), s.log_text()
    deadline = time.monotonic() + 30
    while True:
        r = s.post("/evaluate", file_eval(1, code="open('output.txt','w').write('x')\n"))
        if r.status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert r.status == 200 and r.json()["results"][0]["verdict"] == "OK", r
    assert not slot_processes(s)
    s.stop_clean()
    assert gh.host_left_clean(s, mounts) == []


def _post_and_hang_up(port, body, after_s):
    """Sends POST /evaluate and closes the connection after after_s
    seconds, without reading an answer (a client that gives up)."""
    import json
    data = json.dumps(body).encode()
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"POST /evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(data) + data)
    time.sleep(after_s)
    sock.close()
    return time.monotonic()


def test_a_client_that_hangs_up_frees_its_slot_within_a_second(make_stack):
    # Finding 2: after the client disconnected, its program still ran 4.5 s
    # later.  Now the worker sees nginx close the FastCGI connection while
    # it supervises, kills the run and skips the rest: within 1 s no
    # process of the slot's UID is left and the slot serves the next one.
    mounts = gh.mountinfo()
    s = make_stack("hangup", concurrency=1)
    sleeper = "import time\ntime.sleep(60)\n"
    body = {"code": sleeper, "language": "python", "time_limit_ms": 5000,
            "test_cases": [{"input": "", "expected_output": "x"}] * 4}
    t_close = _post_and_hang_up(s.port, body, 2.0)
    left = True
    while time.monotonic() - t_close < 1.0:
        left = slot_processes(s)
        if not left:
            break
        time.sleep(0.05)
    assert not left, "slot processes 1 s after the client left: %r" % left
    t0 = time.monotonic()
    r = s.post("/evaluate", file_eval(1, code="open('output.txt','w').write('x')\n"))
    assert r.status == 200 and r.json()["results"][0]["verdict"] == "OK", r
    assert time.monotonic() - t0 < 10
    s.stop_clean()
    assert gh.host_left_clean(s, mounts) == []


def test_a_request_is_cut_at_its_wall_clock_budget(make_stack):
    # Finding 2: nothing bounded one request's total time (1000 tests of
    # 60 s: a day).  RUN_REQUEST_BUDGET bounds it: six tests that each sleep
    # 1.5 s (no CPU, so no per-test limit ends them) end at the 3 s budget;
    # the test running then and those after it get TLE, deadline "budget".
    mounts = gh.mountinfo()
    s = make_stack("budget", env={"RUN_REQUEST_BUDGET": "3s", "RUN_EVAL_PARALLEL": "1"},
                   concurrency=1)
    code = "import time\ntime.sleep(1.5)\nprint('x')\n"
    body = {"code": code, "language": "python", "time_limit_ms": 1000,
            "test_cases": [{"input": "", "expected_output": "x"}] * 6}
    t0 = time.monotonic()
    r = s.post("/evaluate", body, timeout=120)
    took = time.monotonic() - t0
    assert r.status == 200, r
    # The budget starts when the request is read; the build comes first.
    assert took < 3.0 + 1.5, took
    res = r.json()["results"]
    assert res[0]["verdict"] == "OK", res[0]
    cut = [x for x in res if x["deadline"] == "budget"]
    assert cut and all(x["verdict"] == "TLE" and x["details"] == "Time Limit Exceeded" for x in cut), [(x["verdict"], x["deadline"]) for x in res]
    assert res[-1] in cut
    assert not slot_processes(s)
    s.stop_clean()
    assert gh.host_left_clean(s, mounts) == []
