# SPDX-License-Identifier: Apache-2.0
"""Isolation tests: hostile programs against the real service (docs/design.md, "The sandbox step by step").

Every test sends a real hostile program through POST /run and asserts two
things (seed 001): the program was stopped the expected way, and the host is
unchanged afterwards.  The second half is the autouse fixture `host_unchanged`
(a snapshot taken before each test) and the check made right after the test's
body (pytest_runtest_makereport below), which fails the test unless:

- no process of a slot UID is left, right after the answer;
- the slot cgroups hold no process, and (v2) no run leaf is left but the
  one of the sandbox built ahead of the next request;
- no mount was added to or removed from the host;
- no file appeared in the host's /tmp, /var/tmp or /dev/shm that a payload
  made (owned by a slot UID, or named with the test's token: the machine is
  shared, so root's files coming and going there are not evidence);
- nothing a run wrote is in the service's state directory (slot uid*/);
- the service's language directories on the host (the lower layer of /sandbox; a
  private copy made for the session, see gaol_isolation.LangsCopy) is
  byte-for-byte the same;
- the stack's own processes (nginx, gaol-fcgi master and workers) are the same
  pids, and the next request is answered normally.

The stack is gaol_helpers.Stack (tests/integration), reused as it is.
"""

import os
import signal
import sys
import uuid

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))

import gaol_helpers as gh  # noqa: E402
import gaol_isolation as gi  # noqa: E402


@pytest.fixture(scope="session")
def service():
    svc = gi.make_service()
    yield svc
    svc.stop()


@pytest.fixture
def token():
    """A name no file or process on this machine has: what a payload leaves
    behind is found by it."""
    return "gaoliso" + uuid.uuid4().hex[:16]


class HostSnapshot:
    def __init__(self, service):
        self.service = service
        self.mounts = gh.mountinfo()
        self.files = gi.file_tree(gi.SCRATCH_DIRS)
        self.langs = gi.digest_tree(service.langs.root)
        self.stack = service.processes()

    def problems(self, token):
        svc = self.service
        out = []
        procs = gh.processes_of_uids(svc.uid_lo, svc.uid_hi)
        if procs:
            out.append("processes of the slot UIDs left after the run: %r" % procs)
        if svc.via == "http" and not gi.slot_cgroup_dirs(svc.uid_lo, svc.uid_hi):
            out.append("no slot cgroup gaol/uid%d..uid%d found under /sys/fs/cgroup: "
                       "nothing to check for leftovers" % (svc.uid_lo, svc.uid_hi - 1))
        cg = gi.cgroup_procs(svc.uid_lo, svc.uid_hi)
        if cg:
            out.append("processes left in the slot cgroups: %r" % cg)
        leaves = gi.leftover_leaves(svc.uid_lo, svc.uid_hi)
        if leaves:
            out.append("run cgroups left after their runs: %r" % leaves)
        mounts = gh.mountinfo()
        if mounts != self.mounts:
            added = sorted(set(mounts) - set(self.mounts))
            removed = sorted(set(self.mounts) - set(mounts))
            out.append("the host's mount table changed: added %r, removed %r" % (added, removed))
        files = gi.file_tree(gi.SCRATCH_DIRS)
        slot_uids = range(svc.uid_lo, svc.uid_hi)
        # Only what a payload would have made: this machine is shared, and
        # root's other programs come and go in these directories too.
        new = sorted(p for p in set(files) - set(self.files)
                     if files[p][0] in slot_uids or token in p)
        if new:
            out.append("new files on the host: %r" % [(p, files[p]) for p in new])
        owned = sorted(p for p, (uid, _) in files.items() if uid in slot_uids)
        if owned:
            out.append("host files owned by a slot UID: %r" % owned)
        # The service's own state may change, but what a run wrote (through
        # its scratch tmpfs, mounted there in the run's namespace) is not in it.
        state = gi.file_tree(gi.slot_state_dirs(svc.uid_lo, svc.uid_hi))
        kept = sorted(p for p, (uid, _) in state.items()
                      if uid in slot_uids or token in p or "/scratch/" in p)
        if kept:
            out.append("a run's files are in the service's state dir: %r" % kept)
        added, removed, changed = gi.diff_trees(self.langs, gi.digest_tree(svc.langs.root))
        if added or removed or changed:
            out.append("the service's langs (%s) changed on the host: added %r, "
                       "removed %r, changed %r" % (svc.langs.root, added, removed, changed))
        if not svc.alive():
            out.append("the stack exited:\n%s" % svc.log_text())
        now = svc.processes()
        gone = {pid: comm for pid, comm in self.stack.items() if now.get(pid) != comm}
        if gone:
            out.append("stack processes died or changed: %r (now %r)" % (gone, now))
        try:
            run = gi.py(svc, "print('next'); result = 6 * 7", timeout="10s")
            if not (run.status == 200 and run.reported and run.result == 42
                    and run["exit_code"] == 0):
                out.append("the next request was not answered normally: %r" % run)
        except Exception as e:  # noqa: BLE001 - any failure to answer is the finding
            out.append("the next request failed: %r" % e)
        return out


def cleanup(service):
    """After a failed check, so one failure does not cascade into the next
    test's: nothing of a slot UID stays alive."""
    for pid in gh.processes_of_uids(service.uid_lo, service.uid_hi):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@pytest.fixture(autouse=True)
def host_unchanged(service, token):
    """The host as it was before the test; compared after it (below)."""
    return HostSnapshot(service)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Right after each test's body: is the host unchanged?  A difference
    fails the test itself (or is added to its failure)."""
    outcome = yield
    if call.when != "call":
        return
    snapshot = item.funcargs.get("host_unchanged")
    if snapshot is None:
        return
    problems = snapshot.problems(item.funcargs["token"])
    if not problems:
        return
    cleanup(snapshot.service)
    text = "the host is not unchanged after the run:\n- " + "\n- ".join(problems)
    rep = outcome.get_result()
    if rep.passed:
        rep.outcome = "failed"
        rep.longrepr = text
    else:
        rep.sections.append(("host unchanged", text))
