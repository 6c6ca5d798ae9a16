# SPDX-License-Identifier: Apache-2.0
"""README.md (`make install`: systemd units under PREFIX): the units in
systemd/, rendered as the Makefile's install target renders them, pass
`systemd-analyze verify`, keep the promises a deployment relies on (graceful
stop, the socket handed to nginx's group, socket activation with the socket on
standard input), and gaol-fcgi really serves a socket handed over on fd 0.

`systemd-analyze verify` works offline (PID 1 need not be systemd): it loads
the given files and checks them, including that every ExecStart binary
exists, so the PREFIX used here holds links to the built binaries."""

import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile

import pytest

import gaol_helpers as gh

UNITS_DIR = os.path.join(gh.REPO, "systemd")
UNITS = ("gaol.service", "gaol.socket", "gaol-socket.service", "gaol@.service")
ANALYZE = "/usr/bin/systemd-analyze"


def render(prefix, dest):
    """What `make install PREFIX=prefix` does to each unit."""
    paths = []
    for name in UNITS:
        with open(os.path.join(UNITS_DIR, name)) as f:
            text = f.read()
        path = os.path.join(dest, name)
        with open(path, "w") as f:
            f.write(text.replace("@PREFIX@", prefix))
        paths.append(path)
    return paths


@pytest.fixture
def rendered():
    top = tempfile.mkdtemp(prefix="gaol-it-systemd-")
    prefix = os.path.join(top, "prefix")
    os.makedirs(os.path.join(prefix, "bin"))
    os.makedirs(os.path.join(prefix, "share", "gaol"))
    for binary in ("gaol-fcgi", "gaol-run"):
        built = os.path.join(gh.BUILD_DIR, binary)
        if not os.access(built, os.X_OK):
            pytest.fail("%s is not built (run `make`)" % built)
        os.symlink(built, os.path.join(prefix, "bin", binary))
    os.symlink(os.path.join(gh.REPO, "langs"), os.path.join(prefix, "share", "gaol", "langs"))
    units = os.path.join(top, "units")
    os.makedirs(units)
    yield prefix, render(prefix, units)
    shutil.rmtree(top, ignore_errors=True)


def verify(paths):
    if not os.access(ANALYZE, os.X_OK):
        pytest.fail("%s is missing (Debian package systemd)" % ANALYZE)
    return subprocess.run([ANALYZE, "verify", "--man=no"] + list(paths),
                          cwd=os.path.dirname(paths[0]), capture_output=True,
                          text=True, timeout=60)


def parse_unit(path):
    """{section: [(key, value), ...]} of a unit file."""
    sections, current = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("[") and line.endswith("]"):
                current = sections.setdefault(line[1:-1], [])
                continue
            key, _, value = line.partition("=")
            current.append((key.strip(), value.strip()))
    return sections


def values(unit, section, key):
    return [v for k, v in unit.get(section, []) if k == key]


def one(unit, section, key):
    v = values(unit, section, key)
    assert len(v) == 1, "%s= in [%s]: %r" % (key, section, v)
    return v[0]


# ---------------------------------------------------------------- verify

def test_rendered_units_pass_systemd_analyze_verify(rendered):
    _, paths = rendered
    r = verify(paths)
    # verify exits 0 on some problems (an unknown key, a bad value) and only
    # says so: any diagnostic counts as a failure here.
    assert r.returncode == 0 and not r.stdout.strip() and not r.stderr.strip(), \
        "systemd-analyze verify (rc %d):\n%s%s" % (r.returncode, r.stdout, r.stderr)


def test_verify_really_checks_offline(rendered):
    """The test above means something: a unit whose binary is missing fails."""
    prefix, paths = rendered
    os.unlink(os.path.join(prefix, "bin", "gaol-fcgi"))
    r = verify(paths)
    assert r.returncode != 0, "verify accepted a missing ExecStart binary:\n%s%s" % (
        r.stdout, r.stderr)


def test_rendering_leaves_no_placeholder(rendered):
    prefix, paths = rendered
    for path in paths:
        with open(path) as f:
            text = f.read()
        assert "@PREFIX@" not in text, "%s still has a placeholder" % path
    svc = parse_unit(paths[0])
    assert one(svc, "Service", "ExecStart").endswith(" -- %s/bin/gaol-fcgi" % prefix)


# ---------------------------------------------------------------- promises

def test_spawn_fcgi_unit_gives_the_socket_to_nginx_user(rendered):
    _, paths = rendered
    svc = parse_unit(paths[0])
    argv = one(svc, "Service", "ExecStart").split()
    assert argv[0] == "/usr/bin/spawn-fcgi", argv
    assert "-n" in argv, "spawn-fcgi must not fork: gaol-fcgi is the main process"
    opts = dict(zip(argv[1:], argv[2:]))
    assert opts.get("-s") == "/run/gaol/gaol.sock", argv
    assert opts.get("-M") == "0660", argv
    # The socket's owner is the package's system user, its group nginx's.
    assert opts.get("-U") == "gaol" and opts.get("-G") == "www-data", argv
    assert "gaol" in values(svc, "Service", "RuntimeDirectory"), svc


@pytest.mark.parametrize("name", ["gaol.service", "gaol-socket.service", "gaol@.service"])
def test_stop_is_graceful_and_cgroups_are_delegated(rendered, name):
    _, paths = rendered
    svc = parse_unit(paths[UNITS.index(name)])
    # SIGTERM to the master only: it lets runs in progress finish.  A
    # control-group kill would signal the sandboxed programs too.
    assert one(svc, "Service", "KillMode") == "mixed"
    assert one(svc, "Service", "Delegate") == "yes"
    assert one(svc, "Service", "Restart") == "on-failure"
    # Longer than the default RUN_TIMEOUT_MAX (60 s).
    assert int(one(svc, "Service", "TimeoutStopSec")) > 60
    default = "-/etc/default/%i" if "@" in name else "-/etc/default/gaol"
    assert default in values(svc, "Service", "EnvironmentFile")


def test_instance_unit_names_socket_state_and_cgroups_by_instance(rendered):
    _, paths = rendered
    svc = parse_unit(paths[UNITS.index("gaol@.service")])
    argv = one(svc, "Service", "ExecStart").split()
    opts = dict(zip(argv[1:], argv[2:]))
    assert opts.get("-s") == "/run/%i/gaol.sock", argv
    assert "GAOL_INSTANCE=%i" in values(svc, "Service", "Environment")
    # The state directory defaults to /run/<instance>: systemd makes it.
    assert values(svc, "Service", "RuntimeDirectory") == ["%i"]
    assert not [v for v in values(svc, "Service", "Environment") if "GAOL_STATE_DIR" in v]


def test_socket_unit_starts_the_pool_with_the_socket_on_stdin(rendered):
    prefix, paths = rendered
    sock = parse_unit(paths[1])
    svc = parse_unit(paths[2])
    assert one(sock, "Socket", "ListenStream") == "/run/gaol/gaol.sock"
    assert one(sock, "Socket", "SocketMode") == "0660"
    assert one(sock, "Socket", "SocketUser") == "gaol"
    assert one(sock, "Socket", "SocketGroup") == "www-data"
    assert one(sock, "Socket", "Service") == "gaol-socket.service"
    assert one(svc, "Service", "ExecStart") == "%s/bin/gaol-fcgi" % prefix
    assert one(svc, "Service", "StandardInput") == "socket"
    # Left to default, stdout and stderr would be the socket as well.
    assert one(svc, "Service", "StandardOutput") == "journal"
    assert one(svc, "Service", "StandardError") == "journal"
    # The state directory is removed at each stop; the socket must survive.
    assert "gaol" not in values(svc, "Service", "RuntimeDirectory")


# ---------------------------------------------------------------- fd 0

def fcgi_get(path, sock_path):
    """GET path over FastCGI; returns (status, body)."""
    def record(rtype, content, req=1):
        pad = (8 - len(content) % 8) % 8
        return struct.pack("!BBHHBx", 1, rtype, req, len(content), pad) + content + b"\0" * pad

    def pair(k, v):
        k, v = k.encode(), v.encode()
        return bytes([len(k)]) + bytes([len(v)]) + k + v

    params = b"".join(pair(k, v) for k, v in (
        ("REQUEST_METHOD", "GET"), ("REQUEST_URI", path), ("DOCUMENT_URI", path),
        ("SERVER_PROTOCOL", "HTTP/1.1"), ("CONTENT_LENGTH", "")))
    data = b""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(30)
        s.connect(sock_path)
        s.sendall(record(1, struct.pack("!HB5x", 1, 0)) + record(4, params) +
                  record(4, b"") + record(5, b""))
        while True:     # the application closes after FCGI_END_REQUEST
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    out, i = b"", 0
    while i + 8 <= len(data):
        _, rtype, _, clen, pad = struct.unpack("!BBHHBx", data[i:i + 8])
        if rtype == 6:  # FCGI_STDOUT
            out += data[i + 8:i + 8 + clen]
        i += 8 + clen + pad
    head, _, body = out.partition(b"\r\n\r\n")
    status = int(head.split(b"Status:")[1].split()[0])
    return status, body


def test_gaol_fcgi_serves_a_socket_handed_over_on_stdin(session_stack):
    """What systemd does with StandardInput=socket (and spawn-fcgi too)."""
    session_stack.pause()   # one gaol at a time in this process's cgroup
    top = tempfile.mkdtemp(prefix="gaol-it-fd0-")
    path = os.path.join(top, "gaol.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    env = dict(os.environ, RUN_CONCURRENCY="1", RUN_UID_BASE=str(gh.UID_BASE + 19),
               GAOL_LANGS_DIR=os.path.join(gh.REPO, "langs"))
    proc = subprocess.Popen([os.path.join(gh.BUILD_DIR, "gaol-fcgi")], stdin=listener,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    listener.close()
    try:
        try:
            status, body = fcgi_get("/health", path)
        except OSError:
            proc.kill()
            raise AssertionError("gaol-fcgi did not answer: %s" % proc.communicate()[0])
        assert status == 200, body
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0, out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(top, ignore_errors=True)


def test_gaol_fcgi_refuses_a_stdin_that_is_not_a_socket():
    r = subprocess.run([os.path.join(gh.BUILD_DIR, "gaol-fcgi")], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, GAOL_LANGS_DIR=os.path.join(gh.REPO, "langs")))
    assert r.returncode != 0
    assert "not a listening socket" in r.stderr, r.stderr
