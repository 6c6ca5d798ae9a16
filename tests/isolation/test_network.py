# SPDX-License-Identifier: Apache-2.0
"""docs/design.md ("The sandbox step by step"), network: a namespace with a loopback only and no route.
The service's own port and the host's addresses are out of reach.  (The
only traffic these tests send outside 127.0.0.1 is the host-address attempt,
which targets this machine and must fail anyway.)"""

import errno
import socket

import gaol_helpers as gh
import gaol_isolation as gi
from gaol_isolation import py

CONNECT = """
import errno, socket
def connect(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect((host, port))
        s.sendall(b"GET /health HTTP/1.0\\r\\n\\r\\n")
        return "connected: %r" % s.recv(200)
    except OSError as e:
        return e.errno if e.errno is not None else repr(e)
    finally:
        s.close()
"""


def test_tcp_to_the_service_nginx_port_fails(service):
    run = py(service, CONNECT + """
result = {"127.0.0.1": connect("127.0.0.1", %d), "localhost": connect("localhost", %d)}
""" % (service.port, service.port))
    assert run.status == 200 and run.reported, run
    for host, outcome in run.result.items():
        assert outcome in (errno.ECONNREFUSED, errno.ENETUNREACH, errno.EADDRNOTAVAIL), \
            "connecting to %s:%d from inside: %r" % (host, service.port, outcome)


def test_tcp_to_the_host_non_loopback_address_fails(service):
    addrs = gh.host_addresses()
    assert addrs, "this host has no non-loopback IPv4 address to try"
    run = py(service, CONNECT + """
result = {}
for addr in %r:
    result[addr] = [connect(addr, %d), connect(addr, 22)]
""" % (addrs, service.port), timeout="15s")
    assert run.status == 200 and run.reported, run
    for addr, outcomes in run.result.items():
        for outcome in outcomes:
            assert outcome in (errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ECONNREFUSED), \
                "connecting to the host's %s from inside: %r" % (addr, outcome)


def test_network_namespace_has_only_loopback_and_no_route(service):
    run = py(service, """
result = {}
with open('/proc/net/dev') as f:
    result["interfaces"] = sorted(l.split(':')[0].strip() for l in f.readlines()[2:])
with open('/proc/net/route') as f:
    result["routes"] = f.readlines()[1:]
""")
    assert run.status == 200 and run.reported, run
    assert run.result["interfaces"] == ["lo"], run.result
    assert run.result["routes"] == [], run.result


def test_host_unix_sockets_are_out_of_reach(service, token):
    # The host's abstract sockets live in the host's network namespace; the
    # pool's FastCGI socket is a path outside the run's root.
    listener = socket.socket(socket.AF_UNIX)
    listener.bind("\0" + token)
    listener.listen(1)
    try:
        fcgi = sorted(getattr(service, "stack", None) and service.stack.socket_paths() or [])
        run = py(service, """
import socket
result = {}
for name, addr in %r:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(2)
    try:
        s.connect(addr)
        result[name] = "connected"
    except OSError as e:
        result[name] = e.errno
""" % ([("abstract", "\0" + token)] + [(p, p) for p in fcgi],))
        listener.setblocking(False)
        try:
            conn, _ = listener.accept()
            conn.close()
            accepted = True
        except BlockingIOError:
            accepted = False
    finally:
        listener.close()
    assert run.status == 200 and run.reported, run
    assert not accepted, "a payload connected to the host's abstract socket"
    assert run.result["abstract"] == errno.ECONNREFUSED, run.result
    assert fcgi or service.via != "http", "the pool's FastCGI socket was not found"
    for path in fcgi:
        assert run.result[path] == errno.ENOENT, "%s: %r" % (path, run.result[path])


def test_network_state_of_a_run_does_not_survive_into_the_next_run(service, token):
    # A run's sockets die with it, but not everything it did to its network
    # namespace does: a connection it closed first lingers in TIME_WAIT for a
    # minute, and loopback counts the bytes it carried.  The next run of the
    # same slot must find neither (a fresh namespace would show no socket
    # and zero counters).
    port = 20000 + int(token[-6:], 16) % 20000
    sent = 1 << 20
    first = py(service, """
import os, socket
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(('127.0.0.1', %d))
l.listen(1)
c = socket.create_connection(l.getsockname())
a, _ = l.accept()
c.sendall(b'x' * %d)
got = 0
while got < %d:
    got += len(a.recv(1 << 16))
c.close()                                  # the active close: TIME_WAIT
a.close()
result = {"uid": os.getuid()}
""" % (port, sent, sent))
    assert first.status == 200 and first.reported, first
    needle = ":%04X " % port
    problems = []
    same_slot = 0
    for _ in range(4 * gi.CONCURRENCY):
        later = py(service, """
import os
result = {"uid": os.getuid(), "tcp": []}
for name in ('/proc/net/tcp', '/proc/net/tcp6'):
    with open(name) as f:
        result["tcp"] += [l.strip() for l in f.readlines()[1:] if %r in l]
with open('/proc/net/dev') as f:
    for line in f:
        if line.strip().startswith('lo:'):
            result["lo_rx_bytes"] = int(line.split(':')[1].split()[0])
""" % needle)
        assert later.status == 200 and later.reported, later
        if later.result["uid"] != first.result["uid"]:
            continue
        same_slot += 1
        if later.result["tcp"]:
            problems.append("the first run's connection, still in the kernel: %r" % later.result["tcp"])
        if later.result["lo_rx_bytes"] >= sent:
            problems.append("loopback has already carried %d bytes when the run starts"
                            % later.result["lo_rx_bytes"])
        break
    assert same_slot, "no later run landed on the first run's slot"
    assert not problems, "a later run of the same slot sees the first run's network state:\n" + \
        "\n".join(problems)
