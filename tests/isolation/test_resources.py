# SPDX-License-Identifier: Apache-2.0
"""docs/design.md ("The sandbox step by step"), limits: a fork bomb hits the pids limit, a memory bomb is
the cgroup's own OOM kill, output is capped as it crosses, a run is stopped
at its timeout; and what a run spent is reported honestly (seed 001)."""

import errno

import gaol_helpers as gh
import gaol_isolation as gi
from gaol_isolation import SIGNAL_EXIT, py

MARGIN = 2.0        # seconds an answer may take beyond a run's own timeout


def test_fork_bomb_is_stopped_and_leaves_nothing(service):
    run = py(service, """
import os, time
forks, first_error = 0, None
while first_error is None:
    try:
        pid = os.fork()
    except OSError as e:
        first_error = e.errno
        break
    if pid == 0:
        while True:                       # every child bombs on
            try:
                os.fork()
            except OSError:
                time.sleep(0.01)
    forks += 1
os.write(1, ("FORKBOMB forks=%d errno=%d\\n" % (forks, first_error)).encode())
time.sleep(60)
""", timeout="3s", http_timeout=3 + 10)
    assert run.status == 200, run
    assert run.elapsed < 3 + MARGIN, "answered after %.1fs" % run.elapsed
    assert "FORKBOMB" in run.stdout, "the bomb never hit a limit: %r" % run
    assert "errno=%d" % errno.EAGAIN in run.stdout, run
    forks = int(run.stdout.split("forks=")[1].split()[0])
    assert forks < 512, "more processes than the pids limit: %d" % forks
    assert run["timed_out"] is True and run["exit_code"] == 143, run


def test_memory_bomb_is_oom_killed_quickly(service):
    run = py(service, """
chunks = []
while True:
    chunks.append(b'\\x5a' * (16 << 20))      # written, so really resident
""", timeout="20s", http_timeout=30)
    assert run.status == 200, run
    assert run["oom_killed"] is True, run
    assert run["exit_code"] == 2 and "Killed" in run["stderr"], run   # as make says it
    assert run["signal"] == "SIGKILL", run
    assert run["timed_out"] is False, run
    assert run.elapsed < 5.0, "the OOM kill took %.1fs (timeout 20s)" % run.elapsed
    # The limit is python's mem_max (512m): the peak reached it, not more.
    assert run["memory_peak_kb"] is not None and run["memory_peak_kb"] <= 512 * 1024 * 1.02, run


def flood(service, fd):
    return py(service, """
import os
chunk = b'%s' * 65536
while True:
    os.write(%d, chunk)
""" % ("o" if fd == 1 else "e", fd), timeout="10s", http_timeout=20)


def test_stdout_flood_answers_413_naming_stdout(service):
    run = flood(service, 1)
    error = gh.assert_json_error(run.resp, 413)
    assert "stdout" in error and "stderr" not in error, error
    assert run.elapsed < 5.0, "the flood ran for %.1fs before the answer" % run.elapsed


def test_stderr_flood_answers_413_naming_stderr(service):
    run = flood(service, 2)
    error = gh.assert_json_error(run.resp, 413)
    assert "stderr" in error and "stdout" not in error, error
    assert run.elapsed < 5.0, "the flood ran for %.1fs before the answer" % run.elapsed


def assert_stopped_at_timeout(run, timeout_s):
    assert run.status == 200, run
    assert run["timed_out"] is True, run
    assert run["exit_code"] == 143 and "SIGTERM" in run["stderr"], run
    assert run["signal"] == "SIGKILL", run
    assert run.elapsed < timeout_s + MARGIN, "answered after %.1fs" % run.elapsed
    # stopped a reserve (timeout/10, 100-500 ms) early, so the answer is in time
    assert run["wall_ms"] >= timeout_s * 1000 * 0.85, run
    assert "ALIVE-AT-END" not in run.stdout, run


def test_busy_loop_past_the_timeout_is_stopped(service):
    # The loop reports its own CPU time as it goes: how much of the 2 s it
    # gets depends on the machine's load (a shared machine gave it 0.78 s),
    # but the run's cpu_ms can never be less than what the program itself
    # last saw.
    run = py(service, """
import os, time
os.write(1, b"STARTED\\n")
end = time.monotonic() + 30
tick = 0.0
while time.monotonic() < end:
    if time.monotonic() >= tick:
        os.write(1, b"CPU %d\\n" % int(time.process_time() * 1000))
        tick = time.monotonic() + 0.05
os.write(1, b"ALIVE-AT-END\\n")
""", timeout="2s", http_timeout=20)
    assert_stopped_at_timeout(run, 2)
    assert "STARTED" in run.stdout, run
    seen = [int(l.split()[1]) for l in run.stdout.splitlines() if l.startswith("CPU ")]
    assert len(seen) >= 2 and seen[-1] > seen[0], run
    assert run["cpu_ms"] is not None and run["cpu_ms"] >= seen[-1], \
        "the loop saw %d ms of its own CPU, the run reported cpu_ms %r" % (seen[-1], run["cpu_ms"])
    assert run["cpu_ms"] <= run["wall_ms"] + 100, run


def test_sleep_past_the_timeout_is_stopped(service):
    run = py(service, """
import os, time
os.write(1, b"STARTED\\n")
time.sleep(30)
os.write(1, b"ALIVE-AT-END\\n")
""", timeout="2s", http_timeout=20)
    assert_stopped_at_timeout(run, 2)
    assert "STARTED" in run.stdout, run
    assert run["cpu_ms"] is not None and run["cpu_ms"] < 500, run


def test_memory_peak_is_honest_for_100_mb_touched(service):
    run = py(service, """
import os, time
block = b'\\x33' * (100 << 20)              # 100 MiB, every page written
time.sleep(0.2)
result = len(block)
""", timeout="10s")
    assert run.status == 200 and run.reported, run
    assert run.result == 100 << 20, run
    peak = run["memory_peak_kb"]
    assert peak is not None, run
    assert abs(peak - 102400) <= 10240, \
        "memory_peak_kb %d is not within 10%% of 102400" % peak


def test_cpu_time_is_honest_for_half_a_second_of_work(service):
    run = py(service, """
import time
t0 = time.process_time()
n = 0
while time.process_time() - t0 < 0.5:
    n += 1
result = time.process_time() - t0
""", timeout="10s")
    assert run.status == 200 and run.reported, run
    assert run.result >= 0.5, run
    cpu = run["cpu_ms"]
    assert cpu is not None, run
    assert abs(cpu - 500) <= 100, "cpu_ms %d is not within 20%% of 500" % cpu
    assert run["wall_ms"] >= 500, run


def test_memory_and_cpu_of_children_are_counted(service):
    # What the payload's children spend is the run's too: two processes,
    # each touching 40 MiB and working 0.3 s of CPU.
    run = py(service, """
import os, time
def work():
    block = b'\\x44' * (40 << 20)
    t0 = time.process_time()
    while time.process_time() - t0 < 0.3:
        pass
    time.sleep(0.3)
    return len(block)
kids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        work()
        os._exit(0)
    kids.append(pid)
result = [os.waitpid(k, 0)[1] for k in kids]
""", timeout="10s")
    assert run.status == 200 and run.reported, run
    assert run.result == [0, 0], run
    assert run["memory_peak_kb"] >= 80 * 1024, run
    assert run["cpu_ms"] >= 550, run


# What the two page-cache tests below run to fill the page cache: read files
# of /usr (as the sandbox sees it) until `limit` bytes or `seconds`, whichever
# comes first.  largest_first: the 40 largest libraries first (sequential
# reads: a walk of small files on a cold, slow disk reads a few MB/s);
# afresh: each file dropped from the cache before it is read, so that the
# reading is charged to this run.
USR_READER = """
import os, time
def read_usr(limit, seconds, largest_first=False, afresh=False):
    total, stop = 0, time.monotonic() + seconds
    def batches():
        if largest_first:
            lib = '/usr/lib/x86_64-linux-gnu'
            sized = [(os.path.getsize(p), p) for p in
                     (os.path.join(lib, n) for n in os.listdir(lib))
                     if os.path.isfile(p) and not os.path.islink(p)]
            yield [p for _, p in sorted(sized, reverse=True)[:40]]
        for top in ('/usr/lib', '/usr/share'):
            for dirpath, dirnames, filenames in os.walk(top):
                yield [os.path.join(dirpath, name) for name in filenames]
    for paths in batches():
        for path in paths:
            if total > limit or time.monotonic() > stop:
                return total
            if os.path.islink(path):
                continue
            try:
                with open(path, 'rb') as f:
                    if afresh:
                        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
                    while total <= limit and time.monotonic() < stop:
                        chunk = f.read(1 << 20)
                        if not chunk:
                            break
                        total += len(chunk)
            except OSError:
                pass
    return total
"""


def test_memory_peak_is_honest_in_a_slot_where_an_earlier_run_left_page_cache(service):
    # Runs share their slot's cgroup, one after the other.  What an earlier
    # run left charged there (the page cache of the files it read: a
    # compiler's headers, a runtime's libraries) is not the next run's, and
    # must not be taken off it either: a program that touches 400 MiB reports
    # about 400 MiB, whatever ran in the slot before.
    # The reader stops at 320 MiB or after 25 s, whichever comes first, even
    # in the middle of a walk or a large file: on a slow disk (CI rehearsals
    # twice timed out at 30 s, with 2.2 and 3.2 s of CPU: the disk, after
    # POSIX_FADV_DONTNEED) it still reports, and what it read is left cached
    # all the same.  It reads the largest libraries first: a walk of small
    # files read 63 MB in 15 s on one CI day (seeks), too little to test.
    reader = py(service, USR_READER + """
result = {"read": read_usr(320 << 20, 25, largest_first=True, afresh=True),
          "uid": os.getuid()}
""", timeout="45s", http_timeout=90)
    assert reader.status == 200 and reader.reported, reader
    assert reader.result["read"] >= 64 << 20, \
        "the reader left too little page cache to test anything: %r" % reader.result
    left = gi.slot_memory_usage(service.uid_lo, service.uid_hi)
    for _ in range(4 * gi.CONCURRENCY):
        run = py(service, """
import os
block = b'\\x33' * (400 << 20)              # every page written
result = {"uid": os.getuid()}
""", timeout="30s", http_timeout=60)
        assert run.status == 200 and run.reported, run
        if run.result["uid"] == reader.result["uid"]:
            break
    else:
        raise AssertionError("no run landed on the reader's slot")
    peak = run["memory_peak_kb"]
    assert peak is not None and abs(peak - 409600) <= 40960, \
        "memory_peak_kb %r for 400 MiB touched (expected within 10%% of 409600) after an " \
        "earlier run read %d MiB in the slot (slot cgroup usage then: %r)" \
        % (peak, reader.result["read"] >> 20, left)


def test_memory_peak_at_the_limit_does_not_depend_on_what_ran_before(service):
    # Issue 11, finding 10: on cgroup v1 a run killed at its 512 MiB limit
    # reported 411 MiB while the first identical run reported 520 MiB: what
    # the run before it left charged to the slot (page cache) was taken off,
    # and the kernel reclaimed that cache for this run.  The same program
    # three times in a row in one slot: three processes of 200 MiB each (the
    # limit kills one: no single process holds the peak), then 200 MiB of
    # files read, which stay cached after it.  Each run reports the peak it
    # reached, the limit, whatever the run before it left.  Two survivors
    # hold 400 MiB, well under the limit: with five of 150 MiB the three left
    # held ~470 MiB of 512 and a run could thrash on its own program's pages
    # (v1 reclaims file pages rather than kill) until its 30 s timeout.  The
    # reading stops after 8 s as well: a cold page cache on a slow disk (CI,
    # 17 MB/s) once kept a run reading past its 30 s timeout (3.5 s of CPU).
    code = USR_READER + """
kids = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        chunks = [b'\\x5a' * (20 << 20) for _ in range(10)]
        time.sleep(2)
        os._exit(0)
    kids.append(pid)
killed = 0
for pid in kids:
    killed += os.waitpid(pid, 0)[1] != 0
result = {"uid": os.getuid(), "killed": killed, "read": read_usr(200 << 20, 8)}
"""
    peaks = {}
    for _ in range(6 * gi.CONCURRENCY):
        run = py(service, code, timeout="30s", http_timeout=60)
        if gi.cgroup_v2():
            # cgroup v2: each run has a cgroup of its own (nothing of the
            # run before is charged to it) and memory.oom.group kills the
            # whole run at the limit, so the program never reports; three
            # runs in a row, wherever they ran, each reach the limit.
            assert run.status == 200 and run["oom_killed"] is True, run
            assert run["exit_code"] == 2 and not run.reported, run
            uid = 0
        else:
            assert run.status == 200 and run.reported, run
            assert run.result["killed"] >= 1 and run["oom_killed"] is True, run
            uid = run.result["uid"]
        peaks.setdefault(uid, []).append(run["memory_peak_kb"])
        if len(peaks[uid]) == 3:
            break
    else:
        raise AssertionError("no slot got three runs: %r" % peaks)
    limit = 512 * 1024
    for peak in peaks[uid]:
        assert peak is not None and abs(peak - limit) <= limit // 10, \
            "peaks %r of three identical runs that reached the 512 MiB limit in one slot: " \
            "not each within 10%% of 524288 kB" % peaks[uid]
    assert max(peaks[uid]) - min(peaks[uid]) <= limit // 10, peaks[uid]
