# SPDX-License-Identifier: Apache-2.0
"""The integration tests talk HTTP to the real thing: nginx/stack.sh started as
`make run` starts it (nginx + spawn-fcgi + the gaol-fcgi pool), on a free port,
with the binaries of $BUILD (default "build").

The session stack has two slots (RUN_CONCURRENCY=2) so that 429 is easy to
provoke, ALLOW_SHUTDOWN=0, RUN_TIMEOUT_MAX=60s, small input and output caps,
and a secret in its environment that no payload may see.  Tests that need
another configuration start their own stack (see `make_stack`).
"""

import os
import shutil
import time

import pytest

import gaol_helpers as gh

SESSION_ENV = {
    "RUN_INPUT_MAX": "262144",
    "RUN_OUTPUT_MAX": "65536",
    # /evaluate's own caps (defaults 16 MiB and 8 MiB), as small as /run's
    # here so that the 413 and OLE tests stay quick; the defaults are tested
    # on stacks of their own (test_client_compicode.py).
    "RUN_EVAL_INPUT_MAX": "262144",
    "RUN_EVAL_OUTPUT_MAX": "65536",
}


def pytest_configure(config):
    config.addinivalue_line("markers", "last: runs after every other test")


def pytest_collection_modifyitems(session, config, items):
    # Tests with stacks of their own run together (the shared stack is
    # stopped once for them, not once per test); the `last` ones at the end.
    def order(item):
        if item.get_closest_marker("last") is not None:
            return 2
        return 1 if "make_stack" in getattr(item, "fixturenames", ()) else 0
    items.sort(key=order)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # A failing test shows the end of the stack's log (nginx, gaol-fcgi).
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        s = getattr(item, "funcargs", {}).get("stack")
        if isinstance(s, gh.Stack):
            report.sections.append(("stack log (%s)" % s.name, s.log_text()[-3000:]))


@pytest.fixture(scope="session")
def host_before():
    """What the host looked like before any stack started."""
    return {
        "mounts": gh.mountinfo(),
        "tmp": set(os.listdir("/tmp")),
        "time": time.time(),
    }


@pytest.fixture(scope="session")
def stacks_started():
    """Every stack the session started, so the last test can check them all."""
    started = []
    yield started
    for s in started:
        s.kill_all()
        shutil.rmtree(s.workdir, ignore_errors=True)   # its log directory


class SessionStack:
    """The shared stack.  It is stopped (and its clean stop asserted) while a
    test runs a stack of its own: two gaol instances started from one process
    share that process's cgroup, and their slot cgroups would be shared too."""

    def __init__(self, started):
        self.started = started
        self.current = None
        self.generation = 0

    def ensure(self):
        if self.current is None or self.current.stopped:
            for binary in ("gaol-fcgi", "gaol-run"):
                if not os.access(os.path.join(gh.BUILD_DIR, binary), os.X_OK):
                    pytest.fail("%s/%s is not built (run `make`)" % (gh.BUILD, binary))
            if not os.access(os.path.join(gh.REPO, "nginx", "stack.sh"), os.X_OK):
                pytest.fail("nginx/stack.sh is missing")
            self.generation += 1
            s = gh.Stack("session%d" % self.generation, env=SESSION_ENV)
            self.started.append(s)
            self.current = s
            try:
                s.start()
            except Exception:
                s.kill_all()
                raise
        return self.current

    def pause(self):
        if self.current is not None and not self.current.stopped:
            self.current.stop_clean()


@pytest.fixture(scope="session")
def session_stack(host_before, stacks_started):
    holder = SessionStack(stacks_started)
    yield holder
    holder.pause()


@pytest.fixture
def stack(session_stack):
    return session_stack.ensure()


@pytest.fixture
def make_stack(session_stack, stacks_started):
    """Starts extra stacks for one test; stops them (cleanly) after it."""
    session_stack.pause()
    mine = []

    def make(name, env=None, start=True, **kw):
        # Its own block of slot UIDs, away from the session stack's.
        kw.setdefault("uid_base", gh.UID_BASE + 100 * (len(stacks_started) + 1))
        s = gh.Stack(name, env=env, **kw)
        stacks_started.append(s)
        mine.append(s)
        if start:
            try:
                s.start()
            except Exception:
                s.kill_all()
                raise
        return s

    yield make
    errors = []
    for s in mine:
        if s.proc is None or s.stopped:
            s.kill_all()
            continue
        try:
            s.stop_clean()
        except AssertionError as e:
            errors.append(str(e))
    assert not errors, "\n".join(errors)


@pytest.fixture
def installed(stack):
    return stack.installed()
