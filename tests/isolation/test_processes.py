# SPDX-License-Identifier: Apache-2.0
"""docs/design.md ("The sandbox step by step"), processes: PID 1 of the run is the runner's init, and when
it dies everything inside dies, so nothing outlives its run; signals from
inside reach nothing outside; concurrent runs cannot see each other."""

import errno
import os
import subprocess
import threading
import time

import gaol_helpers as gh
import gaol_isolation as gi
from gaol_isolation import SYSCALL, py


def test_daemon_started_with_setsid_and_double_fork_does_not_outlive_its_run(service, token):
    run = py(service, """
import os, socket, time
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    # The daemon: detached from the session and the parent, its own
    # descriptors closed, it waits for the run to end and then acts.
    os.write(w, str(os.getpid()).encode())
    os.close(w)
    for fd in range(0, 4):
        try:
            os.close(fd)
        except OSError:
            pass
    time.sleep(5)
    with open('/tmp/%(t)s', 'w') as f:
        f.write('survived')
    s = socket.socket()
    s.settimeout(1)
    try:
        s.connect(('127.0.0.1', %(port)d))
    except OSError:
        pass
    time.sleep(60)
    os._exit(0)
os.close(w)
daemon = int(os.read(r, 32))
# A second one keeps the run's stdout open, as a careless daemon would.
if os.fork() == 0:
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    time.sleep(60)
    os._exit(0)
time.sleep(0.2)
result = {"daemon": daemon, "me": os.getpid()}
""" % {"t": token, "port": service.port}, timeout="10s", http_timeout=20)
    # Right after the answer, before anything else: no process of a slot UID.
    left = gh.processes_of_uids(service.uid_lo, service.uid_hi)
    assert not left, "processes outlived their run: %r" % left
    assert run.status == 200 and run.reported, run
    assert run["exit_code"] == 0 and run["timed_out"] is False, run
    assert run.elapsed < 3.0, "the answer waited %.1fs for the daemons" % run.elapsed
    assert not os.path.exists("/tmp/" + token)


def test_kill_minus_one_from_inside_reaches_nothing_outside(service):
    canaries = {
        "root": subprocess.Popen(["sleep", "60"], start_new_session=True),
        "slot uid": gi.run_as(service.uid_lo, ["sleep", "60"]),
        "other slot uid": gi.run_as(service.uid_hi - 1, ["sleep", "60"]),
    }
    try:
        stack_before = service.processes()
        run = py(service, """
import os, signal, time
child = os.fork()                 # something inside for kill(-1) to reach
if child == 0:
    time.sleep(60)
    os._exit(0)
try:
    os.kill(-1, signal.SIGKILL)
    result = {"kill": "sent"}
except OSError as e:
    result = {"kill": e.errno}
result["child"] = os.waitpid(child, 0)[1]
os.write(1, b"STILL HERE\\n")
""")
        dead = {name: p.poll() for name, p in canaries.items() if p.poll() is not None}
        stack_after = service.processes()
    finally:
        for p in canaries.values():
            if p.poll() is None:
                p.kill()
            p.wait()
    assert not dead, "kill(-1, SIGKILL) from inside killed host processes: %r" % dead
    assert stack_after == stack_before, \
        "the stack's processes changed: %r -> %r" % (stack_before, stack_after)
    assert run.status == 200, run
    assert "STILL HERE" in run.stdout, run
    assert run.result == {"kill": "sent", "child": 9}, \
        "kill(-1) did not work inside the run: %r" % run.result


def test_init_of_the_run_cannot_be_signalled_from_inside(service):
    run = py(service, """
import os, signal
result = {"ppid": os.getppid()}
for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
    try:
        os.kill(1, sig)
        result[sig.name] = "sent"
    except OSError as e:
        result[sig.name] = e.errno
os.write(1, b"STILL HERE\\n")
""")
    assert run.status == 200 and run.reported, run
    for sig in ("SIGKILL", "SIGTERM", "SIGSTOP"):
        assert run.result[sig] == errno.EPERM, "kill(1, %s): %r" % (sig, run.result[sig])
    assert "STILL HERE" in run.stdout and run["exit_code"] == 0, run


def test_fork_bomb_does_not_starve_a_concurrent_run(service):
    bomb = {}

    def bomber():
        bomb["run"] = py(service, """
import os, time
while True:
    try:
        os.fork()
    except OSError:
        pass
""", timeout="4s", http_timeout=15)

    thread = threading.Thread(target=bomber)
    thread.start()
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and \
                len(gh.processes_of_uids(service.uid_lo, service.uid_hi)) < 100:
            time.sleep(0.05)
        crowded = len(gh.processes_of_uids(service.uid_lo, service.uid_hi))
        t0 = time.monotonic()
        other = py(service, "result = sum(range(1000))", timeout="5s")
        took = time.monotonic() - t0
    finally:
        thread.join(20)
    assert crowded >= 100, "the bomb never got going (%d processes)" % crowded
    assert other.status == 200 and other.reported and other.result == 499500, other
    assert took < 3.0, "a concurrent run took %.1fs beside a fork bomb" % took
    assert bomb["run"].status == 200 and bomb["run"]["timed_out"], bomb["run"]


def test_concurrent_runs_cannot_see_each_other(service, token):
    key = int(token[-8:], 16) & 0x7fffffff or 1
    tcp_port = 20000 + key % 20000
    run_a = {}

    def a():
        run_a["run"] = py(service, SYSCALL + """
import os, socket, time
result = {"uid": os.getuid()}
for path in ('/tmp/%(t)s', '/sandbox/%(t)s', '/dev/shm/%(t)s', '/sandbox/check/%(t)s'):
    with open(path, 'w') as f:
        f.write('A was here')
result["shm"] = syscall(29, %(key)d, 4096, 0o1000 | 0o666)[0]        # shmget IPC_CREAT
u = socket.socket(socket.AF_UNIX)
u.bind('\\0%(t)s')
u.listen(1)
t = socket.socket()
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(('127.0.0.1', %(tcp)d))
t.listen(1)
with open('/sandbox/%(t)s.ready', 'w') as f:
    f.write('ready')
os.system('sleep 4 # %(t)s')               # a process with the token in its cmdline
result["done"] = True
""" % {"t": token, "key": key, "tcp": tcp_port}, timeout="15s", http_timeout=30)

    thread = threading.Thread(target=a)
    thread.start()
    try:
        # Wait until A has done everything, watching from the host (root sees
        # into A's mount namespace through /proc/<pid>/root).
        deadline = time.monotonic() + 10
        ready = False
        while time.monotonic() < deadline and not ready:
            for pid in gh.processes_of_uids(service.uid_lo, service.uid_hi):
                if os.path.exists("/proc/%d/root/sandbox/%s.ready" % (pid, token)):
                    ready = True
                    break
            time.sleep(0.05)
        assert ready, "run A never got ready"
        run_b = py(service, SYSCALL + """
import os, socket
seen = []
for top in ('/tmp', '/sandbox', '/dev/shm'):
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            if %(t)r in name:
                seen.append(os.path.join(dirpath, name))
procs = {}
for pid in os.listdir('/proc'):
    if not pid.isdigit():
        continue
    try:
        with open('/proc/%%s/cmdline' %% pid, 'rb') as f:
            cmd = f.read()
        with open('/proc/%%s/status' %% pid) as f:
            uid = [l.split()[1] for l in f if l.startswith('Uid:')][0]
    except OSError:
        continue
    procs[pid] = uid
    if %(t)r.encode() in cmd:
        seen.append('/proc/%%s' %% pid)
shm = syscall(29, %(key)d, 0, 0)                              # shmget, no create
if shm[0] >= 0:
    seen.append('shm segment %%d' %% shm[0])
u = socket.socket(socket.AF_UNIX)
try:
    u.connect('\\0%(t)s')
    seen.append('abstract socket')
except OSError:
    pass
t = socket.socket()
t.settimeout(1)
try:
    t.connect(('127.0.0.1', %(tcp)d))
    seen.append('tcp port %(tcp)d')
except OSError:
    pass
result = {"seen": seen, "procs": procs, "uid": os.getuid()}
""" % {"t": token, "key": key, "tcp": tcp_port}, timeout="5s")
        a_alive = any(os.path.exists("/proc/%d/root/sandbox/%s.ready" % (pid, token))
                      for pid in gh.processes_of_uids(service.uid_lo, service.uid_hi))
    finally:
        thread.join(30)
    ra = run_a.get("run")
    assert ra is not None and ra.status == 200 and ra.reported, "run A: %r" % ra
    assert ra.result["done"] and ra.result["shm"] >= 0, "run A did not set up: %r" % ra.result
    assert run_b.status == 200 and run_b.reported, run_b
    assert a_alive, "run A was over before run B ended: the test proves nothing"
    rb = run_b.result
    assert rb["uid"] != ra.result["uid"], "concurrent runs share a UID: %r" % rb["uid"]
    assert rb["seen"] == [], "run B sees run A: %r" % rb["seen"]
    foreign = {pid: uid for pid, uid in rb["procs"].items() if int(uid) not in (0, rb["uid"])}
    assert not foreign, "run B sees processes of other UIDs: %r" % foreign
    assert len(rb["procs"]) < 10, "run B sees %d processes" % len(rb["procs"])
