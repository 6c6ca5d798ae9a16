# SPDX-License-Identifier: Apache-2.0
"""docs/design.md ("The sandbox step by step"), filesystem: a read-only root built from an allowlist,
/sandbox an overlay whose lower layer (the language directory) never changes,
a fresh size-capped /tmp and /dev/shm per run, a fresh /proc with /proc/sys
read-only, and nothing of the runner's state reachable.  Nothing a run
writes survives it."""

import errno
import os
import time

import gaol_isolation as gi
from gaol_isolation import py


def test_writing_to_usr_etc_and_the_root_fails(service, token):
    targets = ["/usr/" + token, "/usr/bin/" + token, "/usr/lib/" + token, "/etc/" + token,
               "/" + token, "/bin/" + token, "/lib/" + token, "/sys/" + token]
    run = py(service, """
import os
result = {}
for path in %r:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        os.close(fd)
        result[path] = "created"
    except OSError as e:
        result[path] = e.errno
for path in ('/etc/passwd', '/etc/hostname', '/usr/bin/python3', '/bin/sh'):
    try:
        with open(path, 'ab'):
            pass
        result[path] = "opened for writing"
    except OSError as e:
        result[path] = e.errno
""" % targets)
    assert run.status == 200 and run.reported, run
    for path, outcome in run.result.items():
        assert outcome in (errno.EROFS, errno.EACCES), "%s: %r" % (path, outcome)
    for path in targets:
        assert not os.path.lexists(path), "%s exists on the host" % path


def test_writing_the_language_directory_changes_only_the_run_not_the_host(service, token):
    lang_dir = service.langs.python
    before = gi.digest_tree(lang_dir)
    run = py(service, """
import os, shutil
result = {}
def attempt(name, fn):
    try:
        fn()
        result[name] = "ok"
    except OSError as e:
        result[name] = e.errno
def write(path, text):
    with open(path, 'w') as f:
        f.write(text)
attempt("new file", lambda: write('/sandbox/%(t)s', 'x'))
attempt("new file in check", lambda: write('/sandbox/check/%(t)s', 'x'))
attempt("new dir", lambda: os.mkdir('/sandbox/%(t)s.d'))
attempt("overwrite harness", lambda: write('/sandbox/check/harness.py', 'raise SystemExit(3)'))
attempt("overwrite Makefile", lambda: write('/sandbox/Makefile', 'test:\\n\\tfalse\\n'))
attempt("delete lang.json", lambda: os.unlink('/sandbox/lang.json'))
attempt("rename check", lambda: os.rename('/sandbox/check', '/sandbox/%(t)s.check'))
attempt("chmod Makefile", lambda: os.chmod('/sandbox/Makefile', 0o777))
attempt("truncate harness", lambda: os.truncate('/sandbox/check/harness.py', 0))
result["listing"] = sorted(os.listdir('/sandbox'))
""" % {"t": token})
    assert run.status == 200 and run.reported, run
    r = run.result
    # /sandbox is writable through the overlay ...
    assert r["new file"] == "ok" and r["new file in check"] == "ok" and r["new dir"] == "ok", r
    assert token in r["listing"], r
    # ... and the host's language directory, its lower layer, is untouched.
    added, removed, changed = gi.diff_trees(before, gi.digest_tree(lang_dir))
    assert not (added or removed or changed), \
        "the service's langs/python on the host changed: added %r, removed %r, changed %r" % (added, removed, changed)
    # The next run sees the pristine harness again (host_unchanged runs one).
    again = py(service, "import os\nresult = sorted(os.listdir('/sandbox'))")
    assert again.status == 200 and again.reported, again
    assert not any(token in name for name in again.result), again.result
    assert "lang.json" in again.result and "check" in again.result, again.result


def test_files_do_not_persist_from_one_run_to_the_next(service, token):
    places = ["/sandbox/" + token, "/sandbox/check/" + token, "/tmp/" + token,
              "/dev/shm/" + token, "/sandbox/" + token + ".d/inner"]
    write = py(service, """
import os
os.mkdir('/sandbox/%s.d')
result = {}
for path in %r:
    with open(path, 'w') as f:
        f.write('left behind')
    result[path] = os.path.exists(path)
""" % (token, places))
    assert write.status == 200 and write.reported, write
    assert all(write.result.values()), "run 1 could not write: %r" % write.result
    # Several reads, so that every slot of the pool serves at least one
    # whichever worker took the write.
    for i in range(2 * gi.CONCURRENCY):
        read = py(service, """
import os
result = {path: os.path.lexists(path) for path in %r}
for top in ('/sandbox', '/tmp', '/dev/shm'):
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            if %r in name:
                result[os.path.join(dirpath, name)] = True
""" % (places, token))
        assert read.status == 200 and read.reported, read
        seen = [p for p, present in read.result.items() if present]
        assert not seen, "run %d sees what run 1 wrote: %r" % (i + 2, seen)


def fill(service, directory, token):
    return py(service, """
import errno, os
total, err = 0, None
chunk = b'\\xa5' * (1 << 20)
fd = os.open(%r, os.O_WRONLY | os.O_CREAT, 0o644)
try:
    while True:
        total += os.write(fd, chunk)
except OSError as e:
    err = e.errno
try:
    os.close(fd)
except OSError:
    pass
result = {"bytes": total, "errno": err}
""" % os.path.join(directory, token), timeout="20s")


def assert_filled_to_enospc(service, run, cap):
    assert run.status == 200, run
    assert run.reported, "the run was not answered normally: %r" % run
    assert run["exit_code"] == 0 and not run["timed_out"], run
    assert run.result["errno"] == errno.ENOSPC, "expected ENOSPC, got %r" % run.result
    assert run.result["bytes"] <= cap, run.result
    # What the run wrote goes with it: the slot's memory (tmpfs pages are
    # charged there) does not go on holding the file.  The run's tmpfs goes
    # with its mount namespace, which the worker lets go while idle after
    # answering, before the slot's next run; here no next run is needed.
    deadline = time.monotonic() + 5
    while True:
        usage = gi.slot_memory_usage(service.uid_lo, service.uid_hi)
        if all(v < cap // 2 for v in usage.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert all(v < cap // 2 for v in usage.values()), \
        "slot memory still in use 5 s after the run: %r" % usage


def test_filling_tmp_stops_at_enospc_and_the_host_disk_is_unaffected(service, token):
    free = gi.disk_free("/")
    run = fill(service, "/tmp", token)
    assert_filled_to_enospc(service, run, 256 << 20)      # python's tmp_size
    assert abs(gi.disk_free("/") - free) < (128 << 20), "the host's disk changed"


def test_filling_sandbox_stops_at_enospc_and_the_host_disk_is_unaffected(service, token):
    free = gi.disk_free("/")
    run = fill(service, "/sandbox", token)
    assert_filled_to_enospc(service, run, 256 << 20)
    assert abs(gi.disk_free("/") - free) < (128 << 20), "the host's disk changed"


def test_filling_dev_shm_stops_at_enospc(service, token):
    run = fill(service, "/dev/shm", token)
    assert_filled_to_enospc(service, run, 64 << 20)


def test_proc_sys_is_read_only(service):
    run = py(service, """
import os
result = {"mounts": {}}
with open('/proc/self/mountinfo') as f:
    for line in f:
        fields = line.split()
        result["mounts"][fields[4]] = fields[5].split(',')
for path in ('/proc/sys/kernel/hostname', '/proc/sys/vm/drop_caches',
             '/proc/sys/kernel/core_pattern', '/proc/sys/net/ipv4/ip_forward'):
    try:
        with open(path, 'w') as f:
            f.write('1')
        result[path] = "written"
    except OSError as e:
        result[path] = e.errno
""")
    assert run.status == 200 and run.reported, run
    mounts = run.result.pop("mounts")
    assert "ro" in mounts.get("/proc/sys", []), "/proc/sys is not mounted read-only: %r" % mounts
    for path, outcome in run.result.items():
        assert outcome in (errno.EROFS, errno.EACCES), "%s: %r" % (path, outcome)


def test_dev_holds_only_null_zero_full_random_urandom_fd_links_and_shm(service):
    run = py(service, "import os\nresult = sorted(os.listdir('/dev'))")
    assert run.status == 200 and run.reported, run
    assert set(run.result) <= {"null", "zero", "full", "random", "urandom", "fd", "stdin",
                               "stdout", "stderr", "shm"}, run.result


def test_runner_state_and_host_root_are_not_reachable(service):
    run = py(service, """
import os
result = {"root": sorted(os.listdir('/'))}
for path in ('/run', '/root', '/home', '/var', '/work', '/run/gaol', '/proc/1/root/',
             '/proc/1/cwd/', '/.old/'):
    try:
        result[path] = sorted(os.listdir(path))
    except OSError as e:
        result[path] = e.errno
for path in ('/etc/gaol', '/etc/default/gaol'):
    try:
        with open(path, 'rb') as f:
            result[path] = f.read().decode(errors='replace')
    except OSError as e:
        result[path] = e.errno
""")
    assert run.status == 200 and run.reported, run
    r = run.result
    for path in ('/run', '/root', '/home', '/var', '/work', '/run/gaol'):
        assert r[path] == errno.ENOENT, "%s is visible: %r" % (path, r[path])
    for path in ('/proc/1/root/', '/proc/1/cwd/'):
        assert r[path] == errno.EACCES, "%s of init is readable: %r" % (path, r[path])
    assert r["/.old/"] in ([], errno.ENOENT), "the old root is reachable: %r" % r["/.old/"]
    for path in ('/etc/gaol', '/etc/default/gaol'):
        assert r[path] in ("", errno.ENOENT), "%s is readable: %r" % (path, r[path])


def test_cgroup_view_is_read_only_and_rooted_at_the_run(service):
    run = py(service, """
import glob, os
view = {}
for dirpath, dirnames, filenames in os.walk('/sys/fs/cgroup'):
    view[dirpath] = sorted(dirnames)
limits = {}
for path in glob.glob('/sys/fs/cgroup/*/memory.limit_in_bytes') + glob.glob('/sys/fs/cgroup/memory.max'):
    with open(path) as f:
        limits[path] = f.read().strip()
with open('/proc/self/cgroup') as f:
    own = f.read().split()
result = {}
for path in sorted(glob.glob('/sys/fs/cgroup/*/memory.limit_in_bytes') +
                   glob.glob('/sys/fs/cgroup/*/pids.max') +
                   glob.glob('/sys/fs/cgroup/memory.max') + glob.glob('/sys/fs/cgroup/pids.max') +
                   glob.glob('/sys/fs/cgroup/*/cgroup.procs') + glob.glob('/sys/fs/cgroup/cgroup.procs')):
    try:
        with open(path, 'w') as f:
            f.write('max' if path.endswith('max') else '1')
        result[path] = "written"
    except OSError as e:
        result[path] = e.errno
result = {"writes": result, "view": view, "limits": limits, "own": own}
""")
    assert run.status == 200 and run.reported, run
    r = run.result
    # Rooted at the slot: no other slot, no other cgroup of the host.
    subdirs = {d: sub for d, sub in r["view"].items()
               if sub and not d.rstrip('/').endswith('/sys/fs/cgroup')}
    assert not subdirs, "cgroups beyond the run's own are visible: %r" % subdirs
    assert all(line.endswith(":/") for line in r["own"]), r["own"]
    # ... showing the run's own limit (python's mem_max, 512m).
    assert r["limits"] and set(r["limits"].values()) == {str(512 << 20)}, r["limits"]
    assert r["writes"], "no cgroup files are visible at /sys/fs/cgroup"
    for path, outcome in r["writes"].items():
        assert outcome in (errno.EROFS, errno.EACCES), "%s: %r" % (path, outcome)
