# SPDX-License-Identifier: Apache-2.0
"""gaol-run --keep: a one-shot CLI's slot kept between starts (core/slot/keep.h,
docs/design.md "What a run reuses"), as isolate keeps a box between --init and
--cleanup.  What is kept is the slot's cgroups, its template mount namespace
and its network namespace (held by bind mounts in <state>/<slot>.keep/); every
run still gets its own PID, mount and IPC namespaces and tmpfs, and the
network namespace serves the next start only when proven unchanged since it
was new.  --cleanup leaves nothing: no mount, no cgroup, no file, no process.

Through the real gaol-run, a whole process per run, with a Python language of
the test's own: each run prints what it can see of the namespaces it got and
of what an earlier run could have left.
"""

import glob
import json
import os
import subprocess
import time

import pytest

import gaol_helpers as gh

GAOL_RUN = os.path.join(gh.BUILD_DIR, "gaol-run")
UID_OFFSET = 17
LANG_JSON = {
    "slug": "kpy", "aliases": [], "workdir": "check", "solution_file": "solution.py",
    "checker_file": None, "checker_required": False, "tmp_size": "16m",
    "mem_max": "256m", "overlay_paths": [], "probe": "/usr/bin/python3 --version",
}

# What every run reports first: its namespaces and what it finds left.
LOOK = """
import json, os, socket
def tw():
    for line in open('/proc/net/sockstat'):
        if line.startswith('TCP:'):
            w = line.split()
            return int(w[w.index('tw') + 1])
seen = {n: os.readlink('/proc/self/ns/' + n) for n in ('net', 'mnt', 'pid', 'ipc')}
seen['tw'] = tw()
seen['shm'] = open('/proc/sysvipc/shm').read().splitlines()[1:]
seen['tmp'] = sorted(os.listdir('/tmp'))
seen['uid'] = os.getuid()
probe = socket.socket()
try:
    probe.bind(('127.0.0.1', PORT))
    seen['bind'] = 'ok'
except OSError as e:
    seen['bind'] = e.strerror
probe.close()
print(json.dumps(seen))
"""

# What a run may leave behind it: a TIME_WAIT on PORT (the server side closes
# first), a SysV shared memory segment, a file in /tmp, a process asleep.
LEAVE = """
import ctypes, subprocess
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', PORT))
srv.listen(1)
cli = socket.create_connection(('127.0.0.1', PORT))
conn, _ = srv.accept()
conn.sendall(b'x')
cli.recv(1)
conn.close()
cli.recv(1)
libc = ctypes.CDLL(None, use_errno=True)
assert libc.shmget(0x6a61, 4096, 0o1666) >= 0
open('/tmp/left-by-the-last-run', 'w').write('x')
subprocess.Popen(['sleep', '300'], start_new_session=True)
"""


@pytest.fixture
def kept():
    for tmp, env in gh.own_langs("gaol-keep-", "kp", UID_OFFSET):
        langs = os.path.join(tmp, "langs")
        gh.write_lang(langs, LANG_JSON,
                      "test run:\n\t/usr/bin/python3 -I check/solution.py\n"
                      "build:\n\ttrue\n\n.PHONY: test run build\n")
        ctx = {"langs": langs, "env": env, "state": env["GAOL_STATE_DIR"],
               "instance": env["GAOL_INSTANCE"], "uid": gh.UID_BASE + UID_OFFSET,
               "port": 20000 + os.getpid() % 20000}
        assert state_mounts(ctx) == []
        try:
            yield ctx
        finally:
            gaol_run(ctx, "--cleanup")
            assert state_mounts(ctx) == []


def gaol_run(ctx, *args, code=None, env=None):
    p = subprocess.run([GAOL_RUN, "--langs", ctx["langs"], "--slot", "0", *args],
                       input=None if code is None else json.dumps(
                           {"lang_slug": "kpy", "timeout": "20s",
                            "solution_text": code.replace("PORT", str(ctx["port"]))}).encode(),
                       env=dict(ctx["env"], **(env or {})), capture_output=True, timeout=120)
    return p


def run(ctx, code, *args, env=None):
    """One --keep run of code: what LOOK reported."""
    p = gaol_run(ctx, "--keep", *args, code=code, env=env)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["exit_code"] == 0, doc
    return json.loads(doc["stdout"].splitlines()[0])


def keep_dir(ctx):
    return os.path.join(ctx["state"], "uid%d.keep" % ctx["uid"])


def pins(ctx):
    """The namespaces the keep directory holds, {name: "mnt:[...]"}, from the
    host's mount table."""
    out = {}
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        if f[4].startswith(keep_dir(ctx) + "/"):
            out[os.path.basename(f[4])] = f[3]
    return out


def slot_cgroups(ctx):
    """The slot's cgroup directories, of any hierarchy."""
    found = set()
    for pattern in ("/sys/fs/cgroup/*/**/%s/uid%d*", "/sys/fs/cgroup/**/%s/uid%d*"):
        found.update(glob.glob(pattern % (ctx["instance"], ctx["uid"]), recursive=True))
    return sorted(found)


def state_mounts(ctx):
    """The host's mounts under the test's state directory."""
    return [m for m in gh.mountinfo() if ctx["state"] in m]


def nothing_of_the_slot_runs(ctx, within=2.0):
    """No process of the slot's UID, and none in its cgroups, within a while
    (a kept slot's last init is killed, not waited for)."""
    end = time.monotonic() + within
    while True:
        procs = gh.processes_of_uids(ctx["uid"], ctx["uid"] + 1)
        # v2: the processes are in the run leaves under the slot's cgroup.
        dirs = [x for d in slot_cgroups(ctx)
                for x in [d] + [e.path for e in os.scandir(d) if e.is_dir()]]
        held = {d: open(os.path.join(d, "cgroup.procs")).read().split()
                for d in dirs if os.path.exists(os.path.join(d, "cgroup.procs"))}
        held = {d: p for d, p in held.items() if p}
        if not procs and not held:
            return
        if time.monotonic() > end:
            raise AssertionError("left running: %r %r" % (procs, held))
        time.sleep(0.05)


def test_a_kept_slot_serves_the_next_start_with_fresh_namespaces(kept):
    first = run(kept, LOOK)
    held = pins(kept)
    assert set(held) == {"mnt", "net"}, held
    assert os.path.isdir(keep_dir(kept))
    nothing_of_the_slot_runs(kept)
    assert slot_cgroups(kept), "the slot's cgroups were not kept"
    second = run(kept, LOOK)
    # The same template and network namespace (the first run used no
    # network).  (That each run has its own mount, PID and IPC namespaces
    # the inode numbers cannot show: the kernel gives a freed one's number
    # to the next; the next test shows it by what a run leaves.)
    assert pins(kept) == held
    assert second["net"] == first["net"]
    assert second["uid"] == kept["uid"]


def test_what_a_run_leaves_is_not_seen_by_the_next_start(kept):
    left = run(kept, LOOK + LEAVE)
    assert left["bind"] == "ok" and left["tw"] == 0, left
    nothing_of_the_slot_runs(kept)
    after = run(kept, LOOK)
    # The TIME_WAIT changed the namespace: the next start makes a new one.
    assert after["net"] != left["net"], (left, after)
    assert after["tw"] == 0 and after["bind"] == "ok", after
    assert after["shm"] == [] and after["tmp"] == [], after
    nothing_of_the_slot_runs(kept)
    # And the new one is kept in its place.
    again = run(kept, LOOK)
    assert again["net"] == after["net"], (after, again)


def test_cleanup_leaves_nothing(kept):
    run(kept, LOOK + LEAVE)
    assert pins(kept)
    p = gaol_run(kept, "--cleanup")
    assert p.returncode == 0, p.stderr
    assert state_mounts(kept) == []
    assert not os.path.exists(keep_dir(kept))
    assert slot_cgroups(kept) == []
    nothing_of_the_slot_runs(kept, within=0)
    # Nothing to remove: still fine.
    p = gaol_run(kept, "--cleanup")
    assert p.returncode == 0, p.stderr


def lock_holders(ctx):
    """The PIDs with the slot UID's lock file open (slot/uidlock.h)."""
    lock = "/run/lock/gaol/uid%d.lock" % ctx["uid"]
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir("/proc/%s/fd" % pid)
            if any(os.readlink("/proc/%s/fd/%s" % (pid, fd)) == lock for fd in fds):
                found.add(int(pid))
        except OSError:
            pass                        # gone meanwhile
    return found


def test_the_uid_lock_is_gaol_runs_alone_not_its_sandboxes(kept):
    """A kept slot's last init is not waited for (sandbox.h): were it to hold
    the UID's lock too, the next start right after could be refused, "uid
    ... is already used by another gaol", by the one before it."""
    run(kept, LOOK)
    req = json.dumps({"lang_slug": "kpy", "timeout": "20s",
                      "solution_text": "import time\nprint('up', flush=True)\ntime.sleep(3)\n"})
    p = subprocess.Popen([GAOL_RUN, "--langs", kept["langs"], "--slot", "0", "--keep"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=kept["env"])
    p.stdin.write(req.encode())
    p.stdin.close()
    p.stdin = None
    try:
        end = time.monotonic() + 30
        while not gh.processes_of_uids(kept["uid"], kept["uid"] + 1):
            assert time.monotonic() < end and p.poll() is None, "the run never started"
            time.sleep(0.02)
        sandboxed = [pid for pid, v in gh.proc_table().items() if v[2] == kept["uid"]]
        holders = lock_holders(kept)
        assert holders == {p.pid}, (holders, p.pid, sandboxed)
    finally:
        out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert json.loads(out)["exit_code"] == 0
    # Back to back, as a judge's loop starts them.
    for _ in range(20):
        run(kept, LOOK)
    nothing_of_the_slot_runs(kept)


def test_a_kept_slot_whose_mounts_are_gone_is_built_again(kept):
    """As after a reboot of a host whose /run is on disk: the keep directory's
    files are there, its mounts are not."""
    first = run(kept, LOOK)
    for name in ("mnt", "net", ""):
        subprocess.run(["umount", "-l", os.path.join(keep_dir(kept), name)], check=True)
    assert pins(kept) == {}
    again = run(kept, LOOK)
    assert set(pins(kept)) == {"mnt", "net"}
    assert again["uid"] == first["uid"]


def test_another_template_input_builds_another_template(kept):
    run(kept, LOOK)
    before = pins(kept)["mnt"]
    extra = run(kept, LOOK + "\nprint(os.path.isdir('/opt'))\n",
                env={"RUN_ROOT_EXTRA": "/opt"})
    assert pins(kept)["mnt"] != before, "RUN_ROOT_EXTRA changed, the template did not"
    assert extra is not None


def test_keep_with_check_or_cleanup_with_repeat_is_a_usage_error(kept):
    for args in (("--keep", "--check"), ("--cleanup", "--repeat", "2")):
        p = gaol_run(kept, *args)
        assert p.returncode == 2, (args, p.stderr)
        assert b"usage" in p.stderr
    assert not os.path.exists(keep_dir(kept))


def test_one_shot_judging_lanes_reuse_only_an_unchanged_namespace(kept):
    """Not --keep: a one-shot /evaluate's judging lanes (lane 0 is the slot
    itself) give a test's network namespace to the lane's next test when
    proven unchanged, as a worker's lanes do, and never one a test used."""
    def evaluate(code):
        req = {"language": "kpy", "code": code.replace("PORT", str(kept["port"])),
               "test_cases": [{"input": "", "expected_output": ""}] * 6}
        p = subprocess.run([GAOL_RUN, "--langs", kept["langs"], "--slot", "0"],
                           input=json.dumps(req).encode(), env=kept["env"],
                           capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return [json.loads(r["actual"].splitlines()[0]) for r in json.loads(p.stdout)["results"]]
    lanes = 2                           # RUN_EVAL_PARALLEL's default
    quiet = evaluate(LOOK)
    for i in range(lanes, len(quiet)):
        assert quiet[i]["net"] == quiet[i - lanes]["net"], (i, quiet)
    noisy = evaluate(LOOK + LEAVE)
    for i in range(lanes, len(noisy)):
        assert noisy[i]["net"] != noisy[i - lanes]["net"], (i, noisy)
        assert noisy[i]["tw"] == 0 and noisy[i]["bind"] == "ok", noisy[i]
        assert noisy[i]["shm"] == [] and noisy[i]["tmp"] == [], noisy[i]
    nothing_of_the_slot_runs(kept)
