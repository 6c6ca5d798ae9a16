# SPDX-License-Identifier: Apache-2.0
"""docs/design.md ("What a run reuses"): kernel state that may serve the slot's
next run is reused only when proven empty, and nothing a run leaves in it is
visible to the next.

Each test sends 2 * CONCURRENCY + 1 runs one after the other.  Every run
first looks for what an earlier run could have left (and reports its slot
UID), then leaves it behind itself.  With more runs than slots, at least one
run follows another of the same test in its slot (checked): that is the
case under test, a leftover of the slot's previous run.  The network
namespace is what a worker reuses (when proven unchanged since new, slot/
netns.c); the IPC namespace is never reused, and the test says so by
failing if it were.

Against a build patched to reuse the network namespace always, without the
check, the TIME_WAIT and datagram tests fail (docs/bench.md says how that
was checked); against one without CLONE_NEWIPC, the SysV IPC test does.
The abstract-name test states the promise for unix sockets; no build of
gaol can fail it, since a unix socket does not outlive its run (init, PID 1,
kills every process, and the kernel collects fds in flight at once).
"""

import os
import time

import gaol_isolation as gi
from gaol_isolation import py

RUNS = 2 * gi.CONCURRENCY + 1

# A program's lines that leave a TIME_WAIT behind: the server side closes
# first, so 127.0.0.1:%(port)d is the address left waiting.
LEAVE_TIME_WAIT = """
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', %(port)d))
srv.listen(1)
cli = socket.create_connection(('127.0.0.1', %(port)d))
conn, _ = srv.accept()
conn.sendall(b'x')
cli.recv(1)
conn.close()
cli.recv(1)
"""


def runs_in_one_slot_after_another(service, code, timeout="10s"):
    """The results of RUNS runs of code; asserts that each answered and
    that at least one followed a run of the same code in its slot."""
    results, seen, followed = [], set(), 0
    for _ in range(RUNS):
        run = py(service, code, timeout=timeout)
        assert run.status == 200 and run.reported, run
        uid = run.result["uid"]
        followed += uid in seen
        seen.add(uid)
        results.append(run.result)
    assert followed >= 1, "no run followed another in its slot: %r" % results
    return results


def test_time_wait_of_the_previous_run_is_not_visible(service, token):
    port = 20000 + int(token[-6:], 16) % 20000
    results = runs_in_one_slot_after_another(service, ("""
import os, socket
def tcp_table():
    rows = []
    for name in ('/proc/net/tcp', '/proc/net/tcp6'):
        with open(name) as f:
            rows += [l.split() for l in f.readlines()[1:]]
    return rows
def tw_count():
    with open('/proc/net/sockstat') as f:
        for line in f:
            if line.startswith('TCP:'):
                w = line.split()
                return int(w[w.index('tw') + 1])
found = {"uid": os.getuid(), "tcp": tcp_table(), "tw": tw_count()}
# The listening port again, without SO_REUSEADDR: refused while a
# TIME_WAIT of it is left in this namespace.
probe = socket.socket()
try:
    probe.bind(('127.0.0.1', %(port)d))
    found["bind"] = "ok"
except OSError as e:
    found["bind"] = e.errno
probe.close()
""" + LEAVE_TIME_WAIT + """cli.close()
srv.close()
found["left_tw"] = tw_count()
result = found
""") % {"port": port})
    for r in results:
        assert r["left_tw"] >= 1, "the run did not leave a TIME_WAIT behind: %r" % r
    for r in results:
        assert r["tcp"] == [] and r["tw"] == 0 and r["bind"] == "ok", \
            "a run saw TCP state an earlier run left in its network namespace: %r" % r


def test_datagrams_of_the_previous_run_are_not_counted(service, token):
    port = 20000 + int(token[-6:], 16) % 20000
    results = runs_in_one_slot_after_another(service, """
import os, socket
def counters():
    out = {}
    with open('/proc/net/snmp') as f:
        lines = f.read().splitlines()
    for head, vals in zip(lines[0::2], lines[1::2]):
        if head.startswith(('Udp:', 'UdpLite:')):
            proto = head.split(':')[0]
            for k, v in zip(head.split()[1:], vals.split()[1:]):
                out[proto + k] = int(v)
    with open('/proc/net/dev') as f:
        for line in f:
            if line.strip().startswith('lo:'):
                v = line.split(':')[1].split()
                out["lo_rx_packets"], out["lo_tx_packets"] = int(v[1]), int(v[9])
    return out
found = {"uid": os.getuid(), "before": counters()}
with open('/proc/net/udp') as f:
    found["udp"] = [l.split() for l in f.readlines()[1:]]
# Leave datagrams behind: some received, some to a port nobody holds.
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind(('127.0.0.1', %(port)d))
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(5):
    tx.sendto(b'%(t)s', ('127.0.0.1', %(port)d))
    tx.sendto(b'%(t)s', ('127.0.0.1', %(port)d + 1))
found["received"] = len(rx.recv(64))
found["after"] = counters()
result = found
""" % {"port": port, "t": token})
    for r in results:
        assert r["after"]["UdpOutDatagrams"] >= 5, "the run sent no datagram: %r" % r
    for r in results:
        assert r["udp"] == [] and all(v == 0 for v in r["before"].values()), \
            "a run saw datagram sockets or counters an earlier run left in its " \
            "network namespace: %r" % r


def test_abstract_unix_names_of_the_previous_run_are_not_visible(service, token):
    results = runs_in_one_slot_after_another(service, """
import array, os, socket
name = b'\\0%(t)s'
with open('/proc/net/unix') as f:
    rows = f.read().splitlines()[1:]
found = {"uid": os.getuid(), "unix": [r for r in rows if '%(t)s' in r]}
probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    probe.bind(name)          # EADDRINUSE while an earlier run's name is there
    found["bind"] = "ok"
except OSError as e:
    found["bind"] = e.errno
probe.close()
# Leave the name behind as hard as a program can: bound, and sent in flight
# in a cycle of unix sockets that only the kernel's collector can free.
a = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
a.bind(name)
x, y = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
x.sendmsg([b'm'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                     array.array('i', [y.fileno(), a.fileno()]).tobytes())])
result = found
""" % {"t": token})
    for r in results:
        assert r["unix"] == [] and r["bind"] == "ok", \
            "a run saw an abstract unix name an earlier run left: %r" % r


def test_sysv_ipc_objects_of_the_previous_run_are_not_visible(service, token):
    key = int(token[-7:], 16) & 0x7fffffff or 1
    results = runs_in_one_slot_after_another(service, gi.SYSCALL + """
import os
def table(name):
    with open('/proc/sysvipc/' + name) as f:
        return [l.split() for l in f.readlines()[1:]]
found = {"uid": os.getuid(), "shm": table('shm'), "sem": table('sem'), "msg": table('msg')}
# Leave one of each behind (IPC_CREAT | 0666).
found["made"] = [syscall(29, %(key)d, 4096, 0o1000 | 0o666)[0],     # shmget
                 syscall(64, %(key)d, 1, 0o1000 | 0o666)[0],        # semget
                 syscall(68, %(key)d, 0o1000 | 0o666)[0]]           # msgget
result = found
""" % {"key": key})
    for r in results:
        assert all(m >= 0 for m in r["made"]), "the run could not make its objects: %r" % r
    for r in results:
        assert r["shm"] == [] and r["sem"] == [] and r["msg"] == [], \
            "a run saw SysV IPC objects an earlier run left: %r" % r


def test_the_slot_template_is_read_only_and_the_same_for_every_run(service, token):
    # docs/design.md, "The slot's template": the read-only part of the mount
    # view serves every run of a slot.  Each run tries to change every part
    # of it (and leaves files where a run may write, /tmp and /dev/shm); the
    # next run of the slot finds the template as the first run found it and
    # nothing of the per-run parts.
    results = runs_in_one_slot_after_another(service, """
import os
def kinds(path):
    out = {}
    for name in sorted(os.listdir(path)):
        st = os.lstat(os.path.join(path, name))
        out[name] = [st.st_mode, st.st_uid, st.st_size if not os.path.isdir(os.path.join(path, name)) else 0]
    return out
def refused(what, fn):
    try:
        fn()
        return "done"
    except OSError as e:
        return e.errno
found = {"uid": os.getuid(), "root": kinds("/"), "dev": kinds("/dev"),
         "cgroup": kinds("/sys/fs/cgroup"), "usr_local": kinds("/usr/local"),
         "passwd": open("/etc/passwd").read(), "machine_id": open("/etc/machine-id").read(),
         "tmp": os.listdir("/tmp"), "shm": os.listdir("/dev/shm")}
found["writes"] = {
    "/ file": refused("/", lambda: open("/left-%(t)s", "w")),
    "/ dir": refused("/", lambda: os.mkdir("/left-%(t)s.d")),
    "/ link": refused("/", lambda: os.symlink("x", "/left-%(t)s.l")),
    "/.old": refused("/", lambda: os.mkdir("/.old/left-%(t)s")),
    "/dev file": refused("/dev", lambda: open("/dev/left-%(t)s", "w")),
    "/dev chmod": refused("/dev", lambda: os.chmod("/dev/null", 0o777)),
    "/etc/passwd": refused("/etc", lambda: open("/etc/passwd", "a")),
    "/etc/machine-id": refused("/etc", lambda: open("/etc/machine-id", "w")),
    "/usr/local": refused("/usr/local", lambda: open("/usr/local/left-%(t)s", "w")),
    "cgroup view": refused("cg", lambda: os.mkdir("/sys/fs/cgroup/pids/left-%(t)s")
                           if os.path.isdir("/sys/fs/cgroup/pids") else os.mkdir("/sys/fs/cgroup/left-%(t)s")),
}
open("/tmp/left-%(t)s", "w").write("x")
open("/dev/shm/left-%(t)s", "w").write("x")
result = found
""" % {"t": token})
    for r in results:
        assert all(v != "done" for v in r["writes"].values()), \
            "a run changed the slot's template: %r" % r["writes"]
        assert r["tmp"] == [] and r["shm"] == [], \
            "a run found files an earlier run left in /tmp or /dev/shm: %r" % r
    by_slot = {}
    for r in results:
        first = by_slot.setdefault(r["uid"], r)
        for part in ("root", "dev", "cgroup", "usr_local", "passwd"):
            assert r[part] == first[part], \
                "the slot's %s differs from one run to the next: %r vs %r" % (part, first[part], r[part])
    # Nothing of a template is mounted in the host's mount namespace, and a
    # worker is in the template's only while it clones an init: each one is
    # found back in the host's within a second.
    state = gi.STATE_DIR.rstrip("/") + "/"
    with open("/proc/self/mountinfo") as f:
        text = f.read()
    assert state not in text, "the host's mount table shows a mount under %s:\n%s" % (state, text)
    host_ns = os.readlink("/proc/self/ns/mnt")
    workers = [pid for pid, comm in getattr(service, "processes", dict)().items()
               if comm == "gaol-fcgi"]
    for pid in workers:
        seen = []
        for _ in range(100):
            try:
                seen.append(os.readlink("/proc/%d/ns/mnt" % pid))
            except OSError:
                break       # a worker that exited meanwhile
            if seen[-1] == host_ns:
                break
            time.sleep(0.01)
        assert not seen or seen[-1] == host_ns, \
            "worker %d stays out of the host's mount namespace: %r" % (pid, seen[-3:])


def test_a_judging_lane_reuses_nothing_a_test_left(service, token):
    # A judging lane runs its share of an /evaluate's tests one after the
    # other in its slot, and gives its network namespace to its next test
    # only when proven unchanged (docs/design.md): each test here looks for
    # a TIME_WAIT or a counter an earlier test left, answers "clean" when
    # there is none, then leaves both behind.  Every test must be OK.
    if service.via != "http":
        raise AssertionError("/evaluate needs the HTTP service (GAOL_ISOLATION_VIA unset)")
    port = 20000 + int(token[-5:], 16) % 20000
    code = ("""
import socket, sys
sys.stdin.read()
def tw():
    with open('/proc/net/sockstat') as f:
        for line in f:
            if line.startswith('TCP:'):
                w = line.split()
                return int(w[w.index('tw') + 1])
def udp_out():
    with open('/proc/net/snmp') as f:
        rows = [l.split() for l in f if l.startswith('Udp:')]
    return int(rows[1][rows[0].index('OutDatagrams')])
seen = []
if tw():
    seen.append('tw %%d' %% tw())
if udp_out():
    seen.append('udp out %%d' %% udp_out())
probe = socket.socket()
try:
    probe.bind(('127.0.0.1', %(port)d))
except OSError as e:
    seen.append('bind errno %%d' %% e.errno)
probe.close()
print(' '.join(seen) or 'clean')
sys.stdout.flush()
""" + LEAVE_TIME_WAIT + """u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(b'x', ('127.0.0.1', %(port)d))
""") % {"port": port}
    body = {"language": "python", "code": code,
            "test_cases": [{"input": str(i), "expected_output": "clean"} for i in range(8)]}
    resp = service.stack.post("/evaluate", body, timeout=120)
    assert resp.status == 200, resp
    results = resp.json()["results"]
    assert len(results) == 8, results
    for r in results:
        assert r["verdict"] == "OK", "a test saw what an earlier one left: %r" % r
