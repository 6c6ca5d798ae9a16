# SPDX-License-Identifier: Apache-2.0
"""docs/api.md ("Languages") and the Codebattle table: each language's memory default
(lang.json mem_max) is the limit enforced on its runs.  The limit is written
into the slot's cgroup for each run and stays there afterwards, so a stack of
one slot shows, right after a language's run, the limit that run had."""

import glob
import os
import time

import pytest

import gaol_helpers as gh
from test_languages import example, manifest

SLUGS = sorted(d for d in os.listdir(gh.EXAMPLES)
               if os.path.isfile(os.path.join(gh.EXAMPLES, d, "sum", "expect.json")))


def size_bytes(text):
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    text = text.strip().lower()
    if text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


def slot_memory_limit(uid):
    """The slot's memory limit.  On v1 the worker may be replacing the
    slot's memory cgroup just then (after a run that left page cache
    charged: a new one set up beside it, the old one removed, the new one
    renamed to the slot's), while the client already has its answer: a
    cgroup found missing is looked for again, for 2 s at most."""
    deadline = time.monotonic() + 2
    while True:
        dirs = glob.glob("/sys/fs/cgroup/memory/**/gaol/uid%d" % uid, recursive=True)
        dirs += glob.glob("/sys/fs/cgroup/**/gaol/uid%d" % uid, recursive=True)
        for d in dirs:
            for name in ("memory.limit_in_bytes", "memory.max"):
                try:
                    with open(os.path.join(d, name)) as f:
                        return int(f.read().strip())
                except FileNotFoundError:
                    pass
        if time.monotonic() > deadline:
            raise AssertionError("no memory cgroup for slot uid %d" % uid)
        time.sleep(0.05)


@pytest.fixture(scope="module")
def one_slot(request):
    # A stack of its own with one slot: every run lands in the same cgroup.
    session = request.getfixturevalue("session_stack")
    session.pause()
    started = request.getfixturevalue("stacks_started")
    s = gh.Stack("limits", concurrency=1, uid_base=gh.UID_BASE + 150)
    started.append(s)
    try:
        s.start()
    except Exception:
        s.kill_all()
        raise
    yield s
    s.stop_clean()


@pytest.mark.parametrize("slug", SLUGS)
def test_language_memory_default_is_the_enforced_limit(one_slot, slug):
    if slug not in one_slot.installed():
        pytest.skip("%s is not installed" % slug)
    payload, _ = example(slug, "sum")
    r = one_slot.run(payload, timeout=180)
    assert r.status == 200, r
    want = size_bytes(manifest(slug)["mem_max"])
    assert slot_memory_limit(one_slot.uid_base) == want, (slug, want)
