# SPDX-License-Identifier: Apache-2.0
"""Several gaol instances on one machine (GAOL_INSTANCE): each has its own
cgroup parent, state directory and socket; instances with different
RUN_UID_BASE never touch each other's slots, and an instance whose UIDs
overlap a running one's is refused at start-up, naming the holder."""

import glob
import os
import shutil
import subprocess
import threading
import time

import pytest

import gaol_helpers as gh

LONG = gh.py_source("import time\ntime.sleep(20)\nprint('survived')\nresult = 0")
QUICK = gh.py_source("print('quick')\nresult = 0")


def instance_name(tag):
    return "gaol-it-%s-%d" % (tag, os.getpid())


def instance_env(name):
    # GAOL_STATE_DIR unset: the instance's default, /run/<instance>.
    return {"GAOL_INSTANCE": name, "GAOL_STATE_DIR": None}


def slot_cgroups(instance):
    return sorted(set(glob.glob("/sys/fs/cgroup/**/%s/uid*" % instance, recursive=True)))


def remove_instance_leftovers(instance):
    """The parents an instance leaves (empty once its slots are gone) and
    its state directory: a test's own names, removed after it.  Returns the
    parents that could not be removed (something is still in them)."""
    left = []
    for parent in sorted(set(glob.glob("/sys/fs/cgroup/**/%s" % instance, recursive=True)),
                         key=len, reverse=True):
        try:
            os.rmdir(parent)
        except OSError as e:
            left.append("%s: %s" % (parent, e))
    shutil.rmtree("/run/%s" % instance, ignore_errors=True)
    return left


class Background:
    """A request in a thread, its answer (or exception) kept."""

    def __init__(self, fn, *args, **kw):
        self.result = None
        self.thread = threading.Thread(target=self._run, args=(fn, args, kw), daemon=True)
        self.thread.start()

    def _run(self, fn, args, kw):
        try:
            self.result = fn(*args, **kw)
        except Exception as e:  # noqa: BLE001
            self.result = e

    def join(self, timeout):
        self.thread.join(timeout)
        return self.result


def wait_in_sandbox(stack, uid_lo, uid_hi, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if gh.processes_of_uids(uid_lo, uid_hi):
            return
        time.sleep(0.05)
    pytest.fail("no program of UIDs %d..%d started within %.0fs" % (uid_lo, uid_hi - 1, timeout))


@pytest.fixture
def instances():
    names = [instance_name("a"), instance_name("b")]
    yield names
    left = []
    for n in names:
        left += remove_instance_leftovers(n)
    assert not left, "instance cgroups not empty after the stacks stopped: %r" % left


def test_two_instances_side_by_side_a_long_run_survives_the_others_start_stop_and_sweep(
        instances, make_stack):
    name_a, name_b = instances
    a = make_stack("inst-a", env=instance_env(name_a))
    a_uids = (a.uid_base, a.uid_base + a.concurrency)
    long_run = Background(a.run, {"lang_slug": "python", "solution_text": LONG,
                                  "timeout": "40s"}, timeout=90)
    wait_in_sandbox(a, *a_uids)

    # B starts (its start-up sweeps its slots and its cache), serves, stops,
    # and starts again, all while A's program runs.
    b = make_stack("inst-b", env=instance_env(name_b))
    assert b.uid_base >= a.uid_base + a.concurrency
    r = b.run({"lang_slug": "python", "solution_text": QUICK})
    assert r.status == 200 and "quick" in r.json()["stdout"], r
    assert os.path.isdir("/run/%s" % name_b), "B's default state directory is not /run/<instance>"
    b_cgroups = slot_cgroups(name_b)
    assert b_cgroups, "B's slot cgroups are not under its own parent %s" % name_b
    assert all("/%s/uid" % name_a not in p for p in b_cgroups)
    assert "/%s-%d.sock" % (name_b, b.port) in " ".join(b.socket_paths()), b.socket_paths()
    b.stop_clean()
    b2 = make_stack("inst-b2", env=instance_env(name_b), uid_base=b.uid_base)
    r = b2.run({"lang_slug": "python", "solution_text": QUICK})
    assert r.status == 200, r
    b2.stop_clean()

    assert long_run.thread.is_alive(), "A's run ended before B's stop: %r" % (long_run.result,)
    r = long_run.join(timeout=60)
    assert not isinstance(r, Exception), r
    assert r.status == 200, r
    doc = r.json()
    assert doc["exit_code"] == 0 and "survived" in doc["stdout"] and not doc["timed_out"], doc
    # A's slots are its own: under A's parent, and B's are gone with B.
    assert slot_cgroups(name_a), "A's slot cgroups are not under %s" % name_a
    assert not slot_cgroups(name_b), "B left slot cgroups: %r" % slot_cgroups(name_b)
    assert not gh.processes_of_uids(b.uid_base, b.uid_base + b.concurrency)


def test_an_instance_sharing_uids_with_a_running_one_is_refused(instances, make_stack):
    name_a, name_b = instances
    a = make_stack("uid-a", env=instance_env(name_a))
    a_uids = (a.uid_base, a.uid_base + a.concurrency)
    long_run = Background(a.run, {"lang_slug": "python", "solution_text": LONG,
                                  "timeout": "40s"}, timeout=90)
    wait_in_sandbox(a, *a_uids)

    # Overlapping by one UID is enough to be refused.
    b = make_stack("uid-b", env=instance_env(name_b), uid_base=a.uid_base + a.concurrency - 1,
                   start=False)
    b.start(wait=False)
    try:
        rc = b.proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("a stack sharing UIDs with a running one still runs:\n%s" % b.log_text())
    b.stopped = True
    log = b.log_text()
    assert rc != 0, log
    shared = a.uid_base + a.concurrency - 1
    assert "uid %d is already used by another gaol (instance %s, pid " % (shared, name_a) in log, log
    assert "RUN_UID_BASE" in log, log
    b.wait_gone()
    assert not b.leftovers(), b.leftovers()

    # gaol-run on one of A's slots is refused the same way.
    env = dict(os.environ, RUN_UID_BASE=str(a.uid_base), GAOL_INSTANCE=name_b,
               GAOL_LANGS_DIR=os.path.join(gh.REPO, "langs"))
    env.pop("GAOL_STATE_DIR", None)
    p = subprocess.run([os.path.join(gh.BUILD_DIR, "gaol-run"), "--slot", "0"],
                       input=b"{}", env=env, capture_output=True, timeout=60)
    assert p.returncode != 0
    assert b"uid %d is already used by another gaol" % a.uid_base in p.stderr, p.stderr

    r = long_run.join(timeout=60)
    assert not isinstance(r, Exception), r
    assert r.status == 200 and "survived" in r.json()["stdout"], r
    r = a.run({"lang_slug": "python", "solution_text": QUICK})
    assert r.status == 200, r


def test_uids_are_free_again_once_an_instance_stops(instances, make_stack):
    name_a, name_b = instances
    a = make_stack("free-a", env=instance_env(name_a))
    uid_base = a.uid_base
    a.stop_clean()
    b = make_stack("free-b", env=instance_env(name_b), uid_base=uid_base)
    r = b.run({"lang_slug": "python", "solution_text": QUICK})
    assert r.status == 200, r
