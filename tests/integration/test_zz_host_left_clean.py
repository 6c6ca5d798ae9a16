# SPDX-License-Identifier: Apache-2.0
"""Runs last: after every stack of the session has stopped, nothing of theirs
is left on the host — no process of a slot UID, no new mount, no file in /tmp
made by a run, no memory cgroup made for a slot and left beside it."""

import glob
import os
import time

import pytest

import gaol_helpers as gh


@pytest.mark.last
def test_nothing_left_on_the_host(session_stack, host_before, stacks_started):
    # Stop the shared stack now (asserting a clean stop) so that what is
    # checked below is the state after the service is gone.
    session_stack.pause()
    for s in stacks_started:
        if not s.stopped and s.proc is not None:
            s.stop_clean()
    time.sleep(0.3)

    problems = []
    for s in stacks_started:
        lo, hi = s.uid_base, s.uid_base + s.concurrency
        left = gh.processes_of_uids(lo, hi)
        if left:
            problems.append("processes of slot UIDs %d..%d: %r" % (lo, hi - 1, left))
        if s.processes():
            problems.append("processes of stack %s: %r" % (s.name, s.processes()))

    before = list(host_before["mounts"])
    new_mounts = []
    for m in gh.mountinfo():
        if m in before:
            before.remove(m)
        else:
            new_mounts.append(m)
    if new_mounts:
        problems.append("new mounts: %r" % new_mounts)

    slot_uids = set()
    for s in stacks_started:
        slot_uids.update(range(s.uid_base, s.uid_base + s.concurrency))
    # cgroup v1: a slot's next memory cgroup is made as uid<N>[-<lane>].new
    # and renamed to the slot's own (core/slot/cgroup.c, v1_memory_replace).
    nexts = [d for uid in sorted(slot_uids)
             for d in glob.glob("/sys/fs/cgroup/**/gaol/uid%d*.new" % uid, recursive=True)]
    if nexts:
        problems.append("memory cgroups made for a slot and never renamed to it: %r" % nexts)
    new_tmp = []
    for name in set(os.listdir("/tmp")) - host_before["tmp"]:
        path = os.path.join("/tmp", name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if name.startswith("gaol-it-"):
            continue  # the tests' own log directories
        new_tmp.append((path, st.st_uid))
    by_runs = [p for p in new_tmp if p[1] in slot_uids]
    if by_runs:
        problems.append("files in /tmp owned by slot UIDs: %r" % by_runs)
    for path, _ in new_tmp:
        if "persist-" in path:
            problems.append("a run's file reached the host's /tmp: %s" % path)
    if new_tmp:
        print("new in /tmp (not owned by slot UIDs): %r" % new_tmp)

    assert not problems, "\n".join(problems)
