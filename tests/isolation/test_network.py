"""SPEC section 5, network: a namespace with a loopback only and no route.
The service's own port and the host's addresses are out of reach.  (The
only traffic these tests send outside 127.0.0.1 is the host-address attempt,
which targets this machine and must fail anyway.)"""

import errno
import socket

import gaol_helpers as gh
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
