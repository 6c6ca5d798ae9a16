# SPDX-License-Identifier: Apache-2.0
"""GET /metrics (issue 15): Prometheus' text format, parsed with Debian's
python3-prometheus-client; its counters move by exactly what was asked, live
in shared memory (a worker killed and respawned loses none), and nginx serves
/metrics only to the addresses its configuration allows."""

import http.client
import json
import os
import signal
import socket
import time
import uuid

import pytest

import gaol_helpers as gh

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:   # a failure, not a skip: make deps-test installs it
    text_string_to_metric_families = None


def scrape(stack):
    if text_string_to_metric_families is None:
        pytest.fail("python3-prometheus-client is missing (make deps-test)")
    resp = stack.get("/metrics")
    assert resp.status == 200, resp
    assert resp.headers["content-type"].startswith("text/plain; version=0.0.4"), resp.headers
    samples = {}
    for family in text_string_to_metric_families(resp.body.decode("utf-8")):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def delta(before, after, name, **labels):
    return value(after, name, **labels) - value(before, name, **labels)


def evaluate_body(marker):
    return {"language": "python", "code": "print(int(input()) * 2)  # %s\n" % marker,
            "test_cases": [{"input": "4", "expected_output": "8"},
                           {"input": "5", "expected_output": "11"}]}


def test_metrics_count_exactly_what_was_asked_and_survive_a_worker_restart(make_stack):
    s = make_stack("metrics")
    before = scrape(s)
    assert value(before, "gaol_slots") == s.concurrency
    assert value(before, "gaol_slots_busy") == 0

    marker = uuid.uuid4().hex
    assert s.get("/health").status == 200
    assert s.run({"lang_slug": "python", "solution_text": gh.py_source("result = 1")}).status == 200
    r = s.run({"lang_slug": "python", "timeout": "1s",
               "solution_text": "while True: pass\n"})
    assert r.status == 200 and r.json()["timed_out"], r
    # /run stops a run a reserve (a tenth of its timeout) before it: 0.9 s.
    timed_out_wall = r.json()["wall_ms"]
    assert timed_out_wall >= 900, r
    for _ in range(2):   # a build, then the same build from the cache
        r = s.post("/evaluate", evaluate_body(marker))
        assert r.status == 200, r
    assert s.get("/nope").status == 404
    assert s.post("/run", b"{not json").status == 400
    after = scrape(s)

    req = "gaol_requests_total"
    assert delta(before, after, req, route="/health", status="200") == 1
    assert delta(before, after, req, route="/run", status="200") == 2
    assert delta(before, after, req, route="/run", status="400") == 1
    assert delta(before, after, req, route="/evaluate", status="200") == 2
    assert delta(before, after, req, route="none", status="404") == 1
    assert delta(before, after, req, route="/metrics", status="200") == 1   # the first scrape
    runs = "gaol_runs_total"
    assert delta(before, after, runs, language="python", outcome="exit") == 1
    assert delta(before, after, runs, language="python", outcome="timeout") == 1
    assert delta(before, after, runs, language="python", outcome="OK") == 2
    assert delta(before, after, runs, language="python", outcome="WA") == 2
    # 1 + 1 runs of /run, 2 x 2 test cases of /evaluate.
    for h in ("gaol_run_wall_milliseconds", "gaol_run_cpu_milliseconds"):
        assert delta(before, after, h + "_count") == 6, h
        assert delta(before, after, h + "_bucket", le="+Inf") == 6, h
    # The buckets are cumulative: the 1 s timeout is past le="500", every run
    # is within le="60000".
    assert delta(before, after, "gaol_run_wall_milliseconds_bucket", le="500") <= 5
    assert delta(before, after, "gaol_run_wall_milliseconds_bucket", le="60000") == 6
    assert delta(before, after, "gaol_run_wall_milliseconds_sum") >= timed_out_wall
    assert delta(before, after, "gaol_compile_cache_misses_total") == 1
    assert delta(before, after, "gaol_compile_cache_hits_total") == 1
    assert value(after, "gaol_compile_cache_entries") >= 1
    assert value(after, "gaol_compile_cache_bytes") > 0
    assert delta(before, after, "gaol_sandbox_build_failures_total") == 0
    assert delta(before, after, "gaol_worker_restarts_total") == 0

    # A worker killed: the master starts another; the counters stay.
    workers = s.fcgi_workers()
    os.kill(workers[0], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while (workers[0] in s.fcgi_workers() or len(s.fcgi_workers()) != s.concurrency) \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(s.fcgi_workers()) == s.concurrency
    later = scrape(s)
    assert delta(after, later, "gaol_worker_restarts_total") == 1
    assert delta(after, later, req, route="/metrics", status="200") == 1
    for key, v in after.items():
        if key[0] in (req, runs) or key[0].endswith("_count"):
            assert later.get(key, 0) >= v, (key, v, later.get(key))


def test_metrics_only_to_allowed_addresses(stack):
    """gaol-locations.conf allows 127.0.0.1 and ::1; 127.0.0.2 is another
    client (same loopback, another address), which nginx refuses."""
    conn = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30,
                                      source_address=("127.0.0.2", 0))
    try:
        conn.request("GET", "/metrics")
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    assert resp.status == 403, body
    assert json.loads(body) == {"error": "forbidden"}
    assert stack.get("/metrics").status == 200


def test_sandbox_build_failures_are_counted(make_stack):
    """A worker without file descriptors to spare cannot build a sandbox: each
    such request is a 500 "sandbox: <step> errno=N", and each one counts."""
    import resource
    # As test_faults does: the limit only on workers that said they are ready
    # (one still taking its slot would fail its start-up, which stops the
    # pool by design).
    s = make_stack("metrics-fds", env={"DEBUG": "1"})
    workers = s.ready_workers()
    before = scrape(s)
    limits = {}
    statuses = []
    try:
        limits = gh.limit_fds_to_one_more(workers)
        for _ in range(2 * len(workers)):
            r = s.run({"lang_slug": "python", "solution_text": gh.py_source("result = 1")})
            sandbox = r.status == 500 and r.json()["error"].startswith("sandbox:")
            statuses.append((r.status, sandbox))
    finally:
        for w, lim in limits.items():
            resource.prlimit(w, resource.RLIMIT_NOFILE, lim)
    failures = sum(1 for _, sandbox in statuses if sandbox)
    assert failures >= 1, statuses
    after = scrape(s)
    assert delta(before, after, "gaol_sandbox_build_failures_total") == failures, statuses
    assert delta(before, after, "gaol_requests_total", route="/run", status="500") == \
        sum(1 for st, _ in statuses if st == 500), statuses
