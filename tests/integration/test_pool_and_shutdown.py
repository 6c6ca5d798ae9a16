# SPDX-License-Identifier: Apache-2.0
"""The prefork pool and the stack's life cycle: a killed worker is replaced,
/shutdown stops gracefully only when allowed, Ctrl-C stops everything, a bad
configuration value stops the start naming the variable."""

import os
import signal
import threading
import time

import pytest

import gaol_helpers as gh
from gaol_helpers import assert_json_error

SLOW = gh.py_source("import time\ntime.sleep(3)\nprint('finished')\nresult = 0")


def test_worker_killed_with_sigkill_is_replaced(stack):
    workers = stack.fcgi_workers()
    assert len(workers) == stack.concurrency, \
        "expected %d workers, found %r" % (stack.concurrency, workers)
    victim = workers[0]
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 10
    now = []
    while time.monotonic() < deadline:
        now = stack.fcgi_workers()
        if len(now) == len(workers) and victim not in now:
            break
        time.sleep(0.1)
    assert victim not in now and len(now) == len(workers), \
        "worker %d not replaced: before %r, after %r" % (victim, workers, now)
    # The victim's sandbox init (it was waiting for a request) dies with it.
    master = stack.fcgi_master()
    orphans = []
    while time.monotonic() < deadline:
        orphans = [p for p, v in stack.processes().items()
                   if v[0] != master and v[1] == "gaol-fcgi" and p != master
                   and v[0] not in now]
        if not orphans:
            break
        time.sleep(0.1)
    assert not orphans, "left behind by the killed worker: %r" % orphans
    for _ in range(2 * stack.concurrency):
        r = stack.run({"lang_slug": "python", "solution_text": gh.py_source("result = 1")})
        assert r.status == 200, r
    assert stack.get("/health").status == 200


def test_worker_killed_mid_run_does_not_take_the_service_down(stack):
    result = {}

    def slow():
        try:
            result["r"] = stack.py(gh.py_source("import time\ntime.sleep(5)\nresult = 0"),
                                   timeout="20s")
        except Exception as e:  # noqa: BLE001
            result["r"] = e

    t = threading.Thread(target=slow)
    t.start()
    # The busy worker is the one with a child (its sandbox).
    busy = None
    deadline = time.monotonic() + 5
    while busy is None and time.monotonic() < deadline:
        table = gh.proc_table()
        for w in stack.fcgi_workers():
            if any(v[0] == w for v in table.values()):
                busy = w
                break
        time.sleep(0.05)
    assert busy, "no worker started a sandbox"
    os.kill(busy, signal.SIGKILL)
    t.join(30)
    r = result.get("r")
    # The client of the killed run gets an answer (an error), not a hang.
    assert isinstance(r, gh.Response), r
    if r.status != 200:
        assert_json_error(r, r.status)
    time.sleep(0.5)
    left = gh.processes_of_uids(stack.uid_base, stack.uid_base + stack.concurrency)
    assert not left, "the killed worker's run outlived it: %r" % left
    deadline = time.monotonic() + 10
    while len(stack.fcgi_workers()) != stack.concurrency and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(stack.fcgi_workers()) == stack.concurrency
    r = stack.run({"lang_slug": "python", "solution_text": gh.py_source("result = 1")})
    assert r.status == 200, r


def test_shutdown_404_when_allow_shutdown_is_unset(make_stack):
    s = make_stack("noshutdown", env={"ALLOW_SHUTDOWN": None})
    assert_json_error(s.post("/shutdown", b""), 404)
    assert s.get("/health").status == 200


def _start_slow_run(s, inflight):
    def slow():
        inflight["r"] = s.py(SLOW, timeout="20s")
    t = threading.Thread(target=slow)
    t.start()
    time.sleep(0.8)  # the run is in its sandbox
    return t


def _wait_stopped_by_itself(s, sockets):
    try:
        rc = s.proc.wait(timeout=20)
    except Exception:
        pytest.fail("stack still running 20s after it was told to stop:\n%s\n%s"
                    % (s.diagnose(), s.log_text()))
    s.stopped = True
    s.sockets = sockets
    s.wait_gone()
    problems = s.leftovers()
    assert not problems, "%s\n%s" % (problems, s.log_text())
    assert rc == 0, "stack.sh exited %s after the stop:\n%s" % (rc, s.log_text())


def test_shutdown_200_then_graceful_stop_inflight_run_finishes(make_stack):
    s = make_stack("shutdown", env={"ALLOW_SHUTDOWN": "1"})
    s.remember_pids()
    sockets = s.socket_paths()
    inflight = {}
    t = _start_slow_run(s, inflight)
    r = s.post("/shutdown", b"")
    assert r.status == 200, r
    assert r.headers.get("content-type", "").startswith("application/json"), r
    r.json()
    t.join(30)
    r = inflight.get("r")
    assert r is not None and r.status == 200, r
    assert "finished" in r.json()["stdout"], r
    # And then the whole stack stops by itself.
    _wait_stopped_by_itself(s, sockets)


def test_silent_clients_on_the_pool_socket_do_not_hold_a_stopping_master(make_stack):
    # While stopping, the master answers what waits on the pool socket with
    # 503 itself, and libfcgi reads a request with blocking reads: a client
    # there (a front end's connection) that connected and sent nothing, or
    # half a record, held the master, and the stop never ended.  The one
    # worker is busy in a run, so the clients stay queued for the master.
    mounts = gh.mountinfo()
    s = make_stack("silent-pool", concurrency=1)
    s.remember_pids()
    sockets = s.socket_paths()
    inflight = {}
    t = _start_slow_run(s, inflight)
    silent = []
    try:
        for i in range(3):
            silent.append(gh.stalled_client(s.fcgi_socket(), half_record=(i == 1)))
        os.kill(s.fcgi_master(), signal.SIGTERM)
        t.join(30)
        r = inflight.get("r")
        assert r is not None and r.status == 200, r
        assert "finished" in r.json()["stdout"], r
        _wait_stopped_by_itself(s, sockets)
    finally:
        for c in silent:
            c.close()
    assert gh.host_left_clean(s, mounts) == []


def test_a_stalled_client_on_the_pool_socket_holds_a_worker_for_10s_at_most(make_stack):
    # A worker reads a request with libfcgi's blocking reads: a client on the
    # pool socket that sent half a record and then nothing held the worker,
    # and its slot, for as long as it stayed connected (libfcgi itself drops
    # a unix-socket connection that sends nothing at all for 2 s).  It is
    # dropped 10 s after the worker took it (REQUEST_READ_MS), and the slot
    # serves again.
    mounts = gh.mountinfo()
    s = make_stack("silent-worker", concurrency=1)
    c = gh.stalled_client(s.fcgi_socket(), half_record=True)
    try:
        time.sleep(0.5)         # the one worker has taken it
        t0 = time.monotonic()
        r = s.run({"lang_slug": "python", "solution_text": gh.py_source("result = 5")},
                  timeout=40)
        took = time.monotonic() - t0
        assert r.status == 200 and r.json()["exit_code"] == 0, r
        assert 5 < took < 15, "the /run behind the silent client took %.1f s" % took
        c.settimeout(1)
        assert c.recv(16) == b"", "the silent client was not dropped"
    finally:
        c.close()
    s.stop_clean()
    assert gh.host_left_clean(s, mounts) == []


def test_503_while_shutting_down(make_stack):
    """While an in-flight run drains after /shutdown, new work is refused
    with 503 (or the listener is already closed): never run."""
    s = make_stack("shutdown503", env={"ALLOW_SHUTDOWN": "1"})
    s.remember_pids()
    sockets = s.socket_paths()
    inflight = {}
    t = _start_slow_run(s, inflight)
    assert s.post("/shutdown", b"").status == 200
    try:
        late = s.run({"lang_slug": "python", "solution_text": gh.py_source("result = 1")},
                     timeout=20)
    except ConnectionError:
        late = None
    t.join(30)
    if late is not None:
        assert late.status != 200, \
            "a /run sent after /shutdown answered 200 was run: %r" % late
        assert_json_error(late, 503)
    assert inflight.get("r") is not None and inflight["r"].status == 200, inflight
    _wait_stopped_by_itself(s, sockets)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_stack_stops_everything_on_signal(make_stack, sig):
    s = make_stack("sig%d" % sig)
    assert s.run({"lang_slug": "python", "solution_text": gh.py_source("result = 1")}).status == 200
    s.stop_clean(sig)


def test_stack_stop_during_a_run_leaves_nothing(make_stack):
    s = make_stack("stopbusy")
    t = threading.Thread(target=lambda: _swallow(s.py, SLOW, timeout="20s"))
    t.start()
    time.sleep(0.8)
    s.stop_clean()
    t.join(30)
    left = gh.processes_of_uids(s.uid_base, s.uid_base + s.concurrency)
    assert not left, left


def _swallow(f, *a, **kw):
    try:
        f(*a, **kw)
    except Exception:  # noqa: BLE001 - the stack is going away under it
        pass


@pytest.mark.parametrize("var,value", [
    ("RUN_CONCURRENCY", "lots"),
    ("RUN_CONCURRENCY", "0"),
    ("RUN_OUTPUT_MAX", "-5"),
    ("RUN_TIMEOUT_MAX", "soon"),
    ("RUN_UID_BASE", "0"),
    ("GAOL_INSTANCE", "a/b"),
    ("RUN_TIME_LIMIT_MAX", "1h"),
    ("RUN_MEMORY_LIMIT_MAX", "lots"),
])
def test_bad_configuration_value_stops_start_naming_the_variable(make_stack, var, value):
    s = make_stack("badcfg", env={var: value}, start=False)
    s.start(wait=False)
    try:
        rc = s.proc.wait(timeout=30)
    except Exception:
        pytest.fail("stack with %s=%s still running after 30s:\n%s" % (var, value, s.log_text()))
    s.stopped = True
    assert rc != 0, "stack with %s=%s exited 0" % (var, value)
    assert var in s.log_text(), "start-up error does not name %s:\n%s" % (var, s.log_text())
    s.wait_gone()
    assert not s.leftovers(), s.leftovers()
