# SPDX-License-Identifier: Apache-2.0
"""docs/design.md ("The sandbox step by step"), identity: the payload runs as its slot's UID with no
groups, no capabilities and no_new_privs, cannot get uid 0 back, sees an
environment built from an allowlist, and nothing of the runner's."""

import errno
import os

import gaol_helpers as gh
import gaol_isolation as gi
from gaol_isolation import py

# What the environment may hold: the allowlist (PATH, LANG, LC_ALL, TZ, HOME)
# and what /bin/sh itself sets while starting the command (PWD).
ALLOWED_ENV = {"PATH", "LANG", "LC_ALL", "TZ", "HOME", "PWD"}
# /execute's recipes `cd src` (langs/README.md), and the shell's cd sets
# OLDPWD (to /sandbox): the recipe's own variable, naming nothing of the host.
if gi.API == "execute":
    ALLOWED_ENV = ALLOWED_ENV | {"OLDPWD"}


def test_etc_shadow_is_unreadable(service):
    run = py(service, """
try:
    with open('/etc/shadow', 'rb') as f:
        result = {"read": f.read().decode(errors='replace')}
except OSError as e:
    result = {"errno": e.errno}
""")
    assert run.status == 200 and run.reported, run
    assert run.result == {"errno": errno.EACCES}, "reading /etc/shadow: %r" % run.result


def test_runner_environment_is_not_visible(service):
    run = py(service, """
import os
result = {"environ": dict(os.environ)}
for key, pid in (("init", 1), ("self", os.getpid()), ("parent", os.getppid())):
    try:
        with open('/proc/%d/environ' % pid, 'rb') as f:
            result[key] = f.read().decode(errors='replace')
    except OSError as e:
        result[key] = e.errno
""")
    assert run.status == 200 and run.reported, run
    env = run.result["environ"]
    assert set(env) <= ALLOWED_ENV, "variables outside the allowlist: %r" % sorted(set(env) - ALLOWED_ENV)
    assert env.get("HOME") == "/sandbox", env
    assert env.get("PATH") == "/usr/bin:/bin", env
    # PID 1 is the runner's init: its environment is the worker's.
    assert run.result["init"] in (errno.EACCES, ""), \
        "/proc/1/environ is readable: %r" % run.result["init"]
    for key in ("self", "parent"):
        text = run.result[key]
        if isinstance(text, str):
            names = {kv.split("=", 1)[0] for kv in text.split("\0") if kv}
            assert names <= ALLOWED_ENV, "%s's /proc/pid/environ: %r" % (key, sorted(names))


def test_secret_of_the_service_environment_is_absent_from_environ_and_proc(service):
    run = py(service, """
import os
secret = %r
seen = []
if any(secret in k or secret in v for k, v in os.environ.items()):
    seen.append("os.environ")
for pid in os.listdir('/proc'):
    if not pid.isdigit():
        continue
    paths = ['/proc/%%s/environ' %% pid, '/proc/%%s/cmdline' %% pid]
    try:
        paths += ['/proc/%%s/task/%%s/environ' %% (pid, t) for t in os.listdir('/proc/%%s/task' %% pid)]
    except OSError:
        pass
    for path in paths:
        try:
            with open(path, 'rb') as f:
                if secret.encode() in f.read():
                    seen.append(path)
        except OSError:
            pass
result = {"seen": seen, "pids": sorted(p for p in os.listdir('/proc') if p.isdigit())}
""" % gh.SECRET_VALUE)
    assert run.status == 200 and run.reported, run
    assert run.result["seen"] == [], "the service's secret is visible at %r" % run.result["seen"]
    assert gh.SECRET_VALUE not in run.resp.body.decode(errors="replace")


def test_payload_uid_is_not_root_and_setuid_0_fails(service):
    run = py(service, """
import os
result = {"ids": [os.getresuid(), os.getresgid()], "groups": os.getgroups()}
for name, call in (("setuid", lambda: os.setuid(0)), ("setgid", lambda: os.setgid(0)),
                   ("seteuid", lambda: os.seteuid(0)),
                   ("setresuid", lambda: os.setresuid(0, 0, 0)),
                   ("setgroups", lambda: os.setgroups([0]))):
    try:
        call()
        result[name] = "succeeded"
    except OSError as e:
        result[name] = e.errno
result["after"] = [os.getresuid(), os.getresgid()]
""")
    assert run.status == 200 and run.reported, run
    r = run.result
    (ruid, euid, suid), (rgid, egid, sgid) = r["ids"]
    assert ruid == euid == suid and rgid == egid == sgid == ruid, r["ids"]
    assert ruid != 0 and service.uid_lo <= ruid < service.uid_hi, \
        "payload uid %d is not a slot UID [%d, %d)" % (ruid, service.uid_lo, service.uid_hi)
    assert r["groups"] == [], "supplementary groups: %r" % r["groups"]
    for name in ("setuid", "setgid", "seteuid", "setresuid", "setgroups"):
        assert r[name] == errno.EPERM, "%s(0): %r" % (name, r[name])
    assert r["after"] == r["ids"], r


def test_proc_self_status_shows_no_capabilities_no_new_privs_and_seccomp_filter(service):
    run = py(service, """
result = {}
with open('/proc/self/status') as f:
    for line in f:
        k, _, v = line.partition(':')
        result[k] = v.strip()
""")
    assert run.status == 200 and run.reported, run
    st = run.result
    for cap in ("CapEff", "CapPrm", "CapInh", "CapAmb"):
        assert int(st[cap], 16) == 0, "%s = %s" % (cap, st[cap])
    assert st["NoNewPrivs"] == "1", st["NoNewPrivs"]
    assert st["Seccomp"] == "2", st["Seccomp"]


def test_hostname_is_gaol_and_cannot_be_changed(service):
    run = py(service, """
import os, socket
result = {"gethostname": socket.gethostname(), "uname": os.uname().nodename}
try:
    socket.sethostname("escaped")
    result["sethostname"] = "succeeded"
except OSError as e:
    result["sethostname"] = e.errno
result["after"] = socket.gethostname()
""")
    assert run.status == 200 and run.reported, run
    assert run.result["gethostname"] == run.result["uname"] == "gaol", run.result
    assert run.result["sethostname"] == errno.EPERM, run.result
    assert run.result["after"] == "gaol", run.result


def test_descriptors_of_the_runner_are_closed(service):
    # What the payload holds on entry: stdin (/dev/null), the stdout and
    # stderr pipes, and what the harness itself opened (the capture file in
    # /tmp, a copy of the stdout pipe).  No socket (the FastCGI listener, a
    # connection), nothing of the runner's state.
    run = py(service, """
import os
fds = {}
for name in os.listdir('/proc/self/fd'):
    try:
        fds[name] = os.readlink('/proc/self/fd/' + name)
    except OSError:
        pass
result = fds
""")
    assert run.status == 200 and run.reported, run
    bad = {fd: t for fd, t in run.result.items()
           if not (t.startswith("pipe:") or t == "/dev/null" or t.startswith("/tmp/")
                   or t.startswith("/sandbox/") or t.startswith("/proc/"))}
    assert not bad, "descriptors the payload should not hold: %r" % bad
    # /run's stdin is /dev/null; /execute's is the request's stdin, a pipe.
    assert run.result.get("0") == ("/dev/null" if gi.API == "run" else run.result.get("0")), \
        run.result
    if gi.API == "execute":
        assert run.result.get("0", "").startswith("pipe:"), run.result


def _host(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def test_host_identity_is_not_visible_inside(service):
    # Issue 11, finding 6: the host's kernel command line, hostname,
    # machine id, boot id and memory size were readable inside, and
    # /proc/self/mountinfo named the service's state directory and the
    # checkout's langs/ path.  None of it identifies the host any more.
    run = py(service, """
import os
def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        return "errno %d" % e.errno
result = {p: read(p) for p in ("/proc/cmdline", "/etc/hostname", "/etc/machine-id",
                               "/proc/sys/kernel/random/boot_id", "/proc/meminfo",
                               "/proc/self/mountinfo")}
result["/usr/local"] = sorted(os.listdir("/usr/local")) if os.path.isdir("/usr/local") else None
""")
    assert run.status == 200 and run.reported, run
    inside = run.result
    for path in ("/proc/cmdline", "/etc/hostname", "/etc/machine-id",
                 "/proc/sys/kernel/random/boot_id"):
        host = _host(path)
        if host and host.strip():
            assert host.strip() not in inside[path], \
                "%s inside is the host's: %r" % (path, inside[path])
    host_total = [l for l in _host("/proc/meminfo").splitlines() if l.startswith("MemTotal:")]
    total = [l for l in inside["/proc/meminfo"].splitlines() if l.startswith("MemTotal:")]
    assert total and total != host_total, "MemTotal inside is the host's: %r" % total
    # What a program sizes itself by is the run's own limit (python: 512m).
    assert total[0].split()[1:] == ["524288", "kB"], total
    mountinfo = inside["/proc/self/mountinfo"]
    state = gi.STATE_DIR.rstrip("/")
    for host_path in {state, os.path.basename(state) + "/uid", service.langs.root, gh.REPO}:
        assert host_path not in mountinfo, \
            "/proc/self/mountinfo inside names the host path %s:\n%s" % (host_path, mountinfo)
    # /usr/local is the host's own, not a language's: empty inside.
    assert os.listdir("/usr/local"), "this host's /usr/local is empty: nothing to check"
    assert inside["/usr/local"] in (None, []), \
        "/usr/local inside shows the host's: %r" % inside["/usr/local"]
