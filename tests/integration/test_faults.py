# SPDX-License-Identifier: Apache-2.0
"""Fault injection against the real stack (nginx/stack.sh): what happens when
a part of the service dies or runs out of something, and that it recovers.

- A worker SIGKILLed in the middle of a run: its sandbox dies with it (no
  process of the slot UIDs, nothing in the slot cgroups that a live worker
  does not own, no mount added to the host's table), the client gets
  nginx's 502 in JSON, the master starts a new worker in the slot, and the
  next request is served.
- The master SIGKILLed under load: its workers and their sandboxes die
  (PR_SET_PDEATHSIG), the stack stops, and a new start on the same slots
  sweeps what is left and serves.
- nginx reloaded (SIGHUP) under load: no request is lost (every answer is
  200, or nginx's 429 when a client's next request beats the release of its
  last one's slot).
- A worker out of file descriptors (RLIMIT_NOFILE lowered with prlimit): the
  run is refused with a JSON 500 ("sandbox: <step> errno=24"), never a
  crash, and the worker serves again once the limit is back.
- The state directory full (GAOL_STATE_DIR on a small tmpfs mounted for the
  test): a JSON 500 where a request needs to write there, and service again
  once there is room.

Each test starts stacks of its own (make_stack) and prints what it observed;
`pytest -s` shows it.  Traffic goes only to 127.0.0.1.
"""

import glob
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest

import gaol_helpers as gh

GOOD_RUN = {"lang_slug": "python", "solution_text": "def solution(a, b):\n    return a + b\n",
            "asserts": '{"arguments": [[1, 2]]}'}
GOOD_EVAL = {"code": "print(int(input()) * 2)", "language": "python",
             "test_cases": [{"input": "4", "expected_output": "8"}]}
# A run that lasts until something kills it (the harness imports it).
SLEEPER = {"lang_slug": "python", "solution_text": "import time\ntime.sleep(50)\n",
           "timeout": "60s"}


def say(*args):
    print("fault:", *args, flush=True)


def wait_for(what, timeout, step=0.1):
    """what()'s first true value within timeout seconds, else None."""
    deadline = time.monotonic() + timeout
    while True:
        v = what()
        if v or time.monotonic() > deadline:
            return v
        time.sleep(step)


def slot_uids(stack):
    return stack.uid_base, stack.uid_base + stack.concurrency


def payloads(stack):
    return gh.processes_of_uids(*slot_uids(stack))


def slot_cgroup_procs(stack):
    """{cgroup dir: pids} of the stack's non-empty slot (and lane) cgroups."""
    lo, hi = slot_uids(stack)
    out = {}
    for uid in range(lo, hi):
        for pattern in ("/sys/fs/cgroup/**/gaol/uid%d" % uid,
                        "/sys/fs/cgroup/**/gaol/uid%d-*" % uid):
            for d in glob.glob(pattern, recursive=True):
                try:
                    with open(os.path.join(d, "cgroup.procs")) as f:
                        pids = f.read().split()
                except OSError:
                    continue
                if pids:
                    out[d] = pids
    return out


def serving_worker(stack, pid):
    """The gaol-fcgi worker that pid descends from."""
    workers = set(stack.fcgi_workers())
    table = gh.proc_table()
    while pid in table and pid > 1:
        if pid in workers:
            return pid
        pid = table[pid][0]
    raise AssertionError("no worker above pid %d" % pid)


def assert_serves(stack):
    r = stack.run(GOOD_RUN, timeout=60)
    assert r.status == 200, "a good request: %r" % r
    doc = r.json()
    assert doc["exit_code"] == 0 and '"value": 3' in doc["stdout"], doc


def nginx_master(stack):
    procs = stack.processes()
    masters = [p for p, v in procs.items()
               if v[1] == "nginx" and procs.get(v[0], (0, ""))[1] != "nginx"]
    assert len(masters) == 1, procs
    return masters[0]


class Client(threading.Thread):
    """One request in the background; .response or .error once joined."""

    def __init__(self, stack, payload, path="/run", timeout=120):
        super().__init__(daemon=True)
        self.stack, self.payload, self.path, self.timeout = stack, payload, path, timeout
        self.response = self.error = None
        self.start()

    def run(self):
        try:
            self.response = self.stack.post(self.path, self.payload, timeout=self.timeout)
        except Exception as e:  # noqa: BLE001 - what the client saw is the observation
            self.error = e


def describe(pids):
    table = gh.proc_table()
    out = []
    for pid in pids:
        cmd = (gh._read("/proc/%s/cmdline" % pid, "rb") or b"").replace(b"\0", b" ")
        out.append("%s %r %r" % (pid, table.get(int(pid)), cmd[:80]))
    return out


def orphans_in_slot_cgroups(stack):
    """{cgroup dir: pids} of the processes in the slot cgroups that do not
    descend from a live worker of the stack.  A live worker's own children
    are expected there: the sandbox it built ahead of its next request (its
    init waits in the slot cgroup), or a run in progress."""
    try:
        workers = set(stack.fcgi_workers())
    except AssertionError:
        workers = set()         # no master: nothing is owned
    table = gh.proc_table()

    def owned(pid):
        while pid in table and pid > 1:
            if pid in workers:
                return True
            pid = table[pid][0]
        return False

    out = {}
    for d, pids in slot_cgroup_procs(stack).items():
        left = [p for p in pids if not owned(int(p))]
        if left:
            out[d] = left
    return out


def mounts_added(before):
    """Host mounts that appeared since before.  The machine is shared: the
    state-directory tmpfs of another run of this file is not ours."""
    return sorted(m for m in set(gh.mountinfo()) - set(before)
                  if "gaol-fault-state-" not in m)


def leftovers(stack, mounts_before):
    """What a killed run must not leave."""
    problems = []
    procs = payloads(stack)
    if procs:
        problems.append("processes of the slot UIDs: %r" % procs)
    cg = orphans_in_slot_cgroups(stack)
    if cg:
        problems.append("processes in the slot cgroups that no live worker owns: %r" % {
            d: describe(pids) for d, pids in cg.items()})
    added = mounts_added(mounts_before)
    if added:
        problems.append("host mounts added: %r" % added)
    return problems


# ---------------------------------------------------------------- tests

def test_a_worker_killed_mid_run_takes_its_sandbox_and_is_replaced(make_stack):
    s = make_stack("fault-worker")
    mounts = gh.mountinfo()
    workers = s.fcgi_workers()
    client = Client(s, SLEEPER)
    running = wait_for(lambda: payloads(s), 30)
    assert running, "the sleeper never started: %s" % s.log_text()
    victim = serving_worker(s, min(running))
    t0 = time.monotonic()
    os.kill(victim, signal.SIGKILL)
    client.join(60)
    assert not client.is_alive(), "the client got no answer after its worker died"
    say("worker %d killed: client got %r after %.2fs"
        % (victim, client.response or client.error, time.monotonic() - t0))
    assert client.error is None, client.error
    gh.assert_json_error(client.response, 502)

    problems = wait_for(lambda: not leftovers(s, mounts), 10) or leftovers(s, mounts)
    assert problems is True, problems
    say("worker %d: sandbox gone %.2fs after the kill" % (victim, time.monotonic() - t0))

    replaced = wait_for(lambda: (lambda w: len(w) == len(workers) and victim not in w
                                 and w)(s.fcgi_workers()), 15)
    assert replaced, "the master did not replace worker %d: %r\n%s" % (
        victim, s.fcgi_workers(), s.log_text())
    say("workers before %r, after %r" % (workers, replaced))
    assert_serves(s)
    assert_serves(s)


def test_the_master_killed_under_load_takes_everything_and_the_next_start_serves(make_stack):
    s = make_stack("fault-master")
    mounts = gh.mountinfo()
    clients = [Client(s, SLEEPER) for _ in range(s.concurrency)]
    assert wait_for(lambda: len(payloads(s)) >= s.concurrency, 30), \
        "the sleepers never started: %r" % payloads(s)
    master = s.fcgi_master()
    t0 = time.monotonic()
    os.kill(master, signal.SIGKILL)
    for c in clients:
        c.join(60)
    seen = [c.response.status if c.response else repr(c.error) for c in clients]
    say("master %d killed: clients saw %r" % (master, seen))
    for c in clients:
        # nginx's 502 in JSON (or, if stack.sh's stop closed the connection
        # first, no answer at all): never a hang.
        assert not c.is_alive()
        if c.response is not None:
            gh.assert_json_error(c.response, 502)

    gone = wait_for(lambda: not any(v[1] == "gaol-fcgi" for v in s.processes().values()), 15)
    assert gone, "gaol-fcgi processes outlived their master: %r" % s.processes()
    clean = wait_for(lambda: not leftovers(s, mounts), 10)
    assert clean, leftovers(s, mounts)
    say("master %d: workers and sandboxes gone %.2fs after the kill"
        % (master, time.monotonic() - t0))
    rc = s.proc.wait(60)
    say("stack.sh exited with %d: %s" % (rc, s.log_text()[-300:].strip().splitlines()[-1]))
    assert rc != 0

    again = make_stack("fault-master-again", uid_base=s.uid_base)
    assert_serves(again)
    assert_serves(again)
    r = again.post("/evaluate", GOOD_EVAL, timeout=120)
    assert r.status == 200 and r.json()["results"][0]["verdict"] == "OK", r
    say("the next start on the same slots serves")


def test_nginx_reloaded_under_load_loses_no_request(make_stack):
    s = make_stack("fault-nginx")
    statuses = []
    lock = threading.Lock()
    stop = time.monotonic() + 8

    def load():
        while time.monotonic() < stop:
            try:
                r = s.run(GOOD_RUN, timeout=60)
                st = r.status
            except Exception as e:  # noqa: BLE001
                st = repr(e)
            with lock:
                statuses.append(st)
            if st == 429:
                # A client's next request can reach nginx before the slot
                # count of its last one is released (more so with an old
                # worker still finishing after a reload): nginx's documented
                # "all slots busy", not a lost request.  Retry, as a client does.
                time.sleep(0.1)

    threads = [threading.Thread(target=load, daemon=True) for _ in range(s.concurrency)]
    for t in threads:
        t.start()
    master = nginx_master(s)
    for _ in range(3):
        time.sleep(2)
        os.kill(master, signal.SIGHUP)
    for t in threads:
        t.join(90)
    counts = {st: statuses.count(st) for st in set(statuses)}
    say("nginx %d reloaded 3 times under load: %r" % (master, counts))
    assert statuses.count(200) > 10 and set(statuses) <= {200, 429}, counts
    assert nginx_master(s) == master
    assert_serves(s)


def test_a_worker_out_of_file_descriptors_answers_500_and_recovers(make_stack):
    # A worker that cannot take its slot at start-up stops the pool (a
    # start-up fault is fatal by design), and /health can answer while the
    # other worker is still taking its slot: the limit is set only on
    # workers that said they are ready (DEBUG's "slot N: ready, pid P").
    s = make_stack("fault-fds", env={"DEBUG": "1"})
    workers = s.ready_workers()
    limits = {}
    outcomes = []
    try:
        # Room for the accepted connection and nothing else.  (The worker
        # holds the pipes of the sandbox it built ahead of the next request;
        # a run that frees those has room again, so the answers are a mix of
        # 500 and 200.)
        limits = gh.limit_fds_to_one_more(workers)
        for _ in range(2 * len(workers)):
            r = s.run(GOOD_RUN, timeout=60)
            outcomes.append((r.status, r.body[:120]))
            if r.status != 200:
                gh.assert_json_error(r, 500)
        say("workers at their fd limit: %r" % outcomes)
        assert any(st == 500 for st, _ in outcomes), outcomes
        assert s.fcgi_workers() == workers, "a worker died of it"
        h = s.get("/health")
        say("/health at the limit: %d" % h.status)
    finally:
        for w, lim in limits.items():
            try:
                resource.prlimit(w, resource.RLIMIT_NOFILE, lim)
            except OSError:
                pass
    assert_serves(s)
    assert_serves(s)
    assert s.fcgi_workers() == workers


def _fill(path):
    """Writes path until the file system is full; returns the bytes written."""
    n = 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (1 << 20, 65536, 4096, 1):
            block = b"\0" * size
            try:
                while True:
                    n += os.write(fd, block)
            except OSError:
                pass
    finally:
        os.close(fd)
    return n


def test_a_full_state_directory_answers_500_and_recovers(make_stack):
    mnt = tempfile.mkdtemp(prefix="gaol-fault-state-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0711", "gaol-fault-state",
                    mnt], check=True)
    s = None
    try:
        s = make_stack("fault-state", env={"GAOL_STATE_DIR": mnt})
        assert_serves(s)
        filler = os.path.join(mnt, "filler")
        written = _fill(filler)
        say("state dir %s filled with %d bytes" % (mnt, written))
        run = s.run(GOOD_RUN, timeout=60)
        code = dict(GOOD_EVAL, code="print(int(input()) * 2)  # %d" % time.time_ns())
        ev = s.post("/evaluate", code, timeout=120)
        say("state dir full: /run %r; /evaluate (a new build) %r" % (run, ev))
        for r in (run, ev):
            assert r.status in (200, 500, 503), r
            if r.status != 200:
                gh.assert_json_error(r, r.status)
        assert run.status == 500 or ev.status == 500, \
            "nothing needed the full state directory: %r %r" % (run, ev)
        assert len(s.fcgi_workers()) == s.concurrency
        os.unlink(filler)
        assert_serves(s)
        ev = s.post("/evaluate", code, timeout=120)
        assert ev.status == 200 and ev.json()["results"][0]["verdict"] == "OK", ev
        say("room again: /run 200, /evaluate %d" % ev.status)
    finally:
        if s is not None:
            s.stop_clean()
        for _ in range(50):
            if subprocess.run(["umount", mnt]).returncode == 0:
                break
            time.sleep(0.2)
        shutil.rmtree(mnt, ignore_errors=True)
    assert not any(mnt in m for m in gh.mountinfo()), "the test's tmpfs is still mounted"
