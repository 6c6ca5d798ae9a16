# SPDX-License-Identifier: Apache-2.0
"""FastCGI over TCP: gaol-fcgi serves a TCP socket that spawn-fcgi (-a/-p)
hands over, and libfcgi accepts connections only from the front ends listed
in FCGI_WEB_SERVER_ADDRS.  FastCGI has no authentication, so gaol-fcgi
refuses a TCP socket without that list, with an entry libfcgi could not
match, or on IPv6 (libfcgi checks IPv4 peers only)."""

import subprocess
import time

import pytest

import gaol_helpers as gh
from gaol_helpers import assert_json_error

QUICK = gh.py_source("print('over tcp')\nresult = 0")


def tcp_stack(make_stack, name, allowed, start=True, listen_addr="127.0.0.1"):
    port = gh.free_port()
    env = {"GAOL_FCGI_LISTEN": "%s:%d" % (listen_addr, port)}
    if allowed is not None:
        env["FCGI_WEB_SERVER_ADDRS"] = allowed
    s = make_stack(name, env=env, start=start)
    s.fcgi_addr = (listen_addr, port)
    return s


def refused_at_start(s):
    s.start(wait=False)
    try:
        rc = s.proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("%s still runs:\n%s" % (s.name, s.log_text()))
    s.stopped = True
    s.wait_gone()
    assert rc != 0, s.log_text()
    assert not s.leftovers(), s.leftovers()
    return s.log_text()


def test_serves_a_tcp_socket_from_spawn_fcgi_to_a_listed_front_end(make_stack):
    s = tcp_stack(make_stack, "tcp-ok", "127.0.0.1")
    r = s.run({"lang_slug": "python", "solution_text": QUICK})
    assert r.status == 200 and "over tcp" in r.json()["stdout"], r
    # The pool really is on TCP: a FastCGI client from the listed address.
    r = gh.fcgi_request(s.fcgi_addr, "GET", "/health", source="127.0.0.1")
    assert r.status == 200 and r.json()["ok"] is True, r


def test_a_front_end_not_listed_is_refused(make_stack):
    # nginx connects from 127.0.0.1; only 127.0.0.9 may.
    s = tcp_stack(make_stack, "tcp-refused", "127.0.0.9,127.0.0.10", start=False)
    # stack.sh waits for /health through nginx, which is refused: wait for
    # the pool itself instead, from a listed address.
    s.start(wait=False)
    deadline = time.monotonic() + s.READY_TIMEOUT
    while True:
        assert s.proc.poll() is None, s.log_text()
        try:
            if gh.fcgi_request(s.fcgi_addr, "GET", "/health", source="127.0.0.9",
                               timeout=5).status == 200:
                break
        except OSError:
            pass
        assert time.monotonic() < deadline, s.log_text()
        time.sleep(0.2)
    r = s.get("/health")
    assert_json_error(r, 502)
    r = s.run({"lang_slug": "python", "solution_text": QUICK})
    assert_json_error(r, 502)
    # Closed at once, without an answer, to a client from an unlisted address...
    r = gh.fcgi_request(s.fcgi_addr, "GET", "/health", source="127.0.0.1", timeout=10)
    assert r.status == 0 and r.body == b"", r
    # ...while both listed addresses are served: it is the list, not a broken pool.
    for source in ("127.0.0.9", "127.0.0.10"):
        r = gh.fcgi_request(s.fcgi_addr, "GET", "/health", source=source)
        assert r.status == 200 and r.json()["ok"] is True, (source, r)
    assert not gh.processes_of_uids(s.uid_base, s.uid_base + s.concurrency)


def test_a_tcp_socket_without_front_ends_listed_is_refused(make_stack):
    log = refused_at_start(tcp_stack(make_stack, "tcp-open", None, start=False))
    assert "a TCP socket needs FCGI_WEB_SERVER_ADDRS" in log, log


@pytest.mark.parametrize("allowed", ["127.0.0.1, 127.0.0.2", "10.0.0.0/24", "127.0.0.1,",
                                     "front.example"])
def test_an_entry_libfcgi_could_not_match_is_refused(make_stack, allowed):
    log = refused_at_start(tcp_stack(make_stack, "tcp-bad", allowed, start=False))
    assert 'FCGI_WEB_SERVER_ADDRS="%s"' % allowed in log, log
    assert "is not an IPv4 address" in log, log


def test_an_ipv6_socket_is_refused(make_stack):
    # libfcgi checks only AF_INET peers: on IPv6 the list would let anyone in.
    s = make_stack("tcp-v6", env={"FCGI_WEB_SERVER_ADDRS": "127.0.0.1"}, start=False)
    port = gh.free_port()
    p = subprocess.run(["spawn-fcgi", "-n", "-a", "::1", "-p", str(port), "--",
                        gh.BUILD_DIR + "/gaol-fcgi"], env=s.env, capture_output=True,
                       timeout=120)
    s.stopped = True
    assert p.returncode != 0, p
    assert b"the socket is not IPv4" in p.stderr, p.stderr
