# SPDX-License-Identifier: Apache-2.0
"""docs/design.md ("Accounting"), docs/api.md (memory_peak_kb, cpu_ms,
oom_killed, MLE): what a run spent is measured by its cgroup, the same
figures on a cgroup v1 (hybrid) host and on a cgroup v2-only one (`make vm`),
and the limits are the run's own.  Like every isolation test, each one also
leaves the host unchanged (conftest.py): no process, mount or file, and on
v2 no run leaf cgroup but the one of the sandbox built ahead.

The figures each test measured are printed (pytest -s shows them), so a
report can quote them for both hosts."""

import os

import gaol_helpers as gh
import gaol_isolation as gi
from gaol_isolation import py

MiB = 1 << 20
TOUCHED = 100 * MiB


def cgroup_version():
    return 2 if os.path.exists("/sys/fs/cgroup/cgroup.controllers") and \
        "memory" in open("/sys/fs/cgroup/cgroup.controllers").read() else 1


def peak_kb(service, touch):
    run = py(service, """
import os
data = b'\\x5a' * %d           # written, so really resident
os.write(1, b"TOUCHED %%d\\n" %% len(data))
result = len(data)
""" % touch, timeout="20s")
    assert run.status == 200 and run["exit_code"] == 0 and run.result == touch, run
    assert run["memory_peak_kb"] is not None, "no peak measured (cgroup v%d): %r" % (
        cgroup_version(), run)
    return run["memory_peak_kb"]


def test_a_program_that_touches_100_mb_reports_its_peak_within_10_percent(service):
    """The peak is the run's: its interpreter (measured by the same program
    touching nothing) plus the 100 MB, within 10 %, on either cgroup version."""
    base = min(peak_kb(service, 0) for _ in range(2))
    peak = peak_kb(service, TOUCHED)
    grew = (peak - base) * 1024
    print("\ncgroup v%d: peak %d KiB touching 100 MiB, %d KiB touching nothing: "
          "+%.1f MiB" % (cgroup_version(), peak, base, grew / MiB))
    assert peak * 1024 >= TOUCHED, "peak %d KiB is below what was touched" % peak
    assert abs(grew - TOUCHED) <= 0.10 * TOUCHED, \
        "100 MiB touched read as +%.1f MiB (%d - %d KiB)" % (grew / MiB, peak, base)


def test_half_a_second_of_cpu_is_reported_within_20_percent(service):
    """cpu_ms is the run's CPU time: the program's own count of it (0.5 s of
    spinning plus its interpreter's start, which under qemu's emulation
    alone can take more than a second), within 20 %."""
    run = py(service, """
import os
start = sum(os.times()[:2])
while sum(os.times()[:2]) - start < 0.5:
    pass
own = sum(os.times()[:2])
os.write(1, b"CPU %d\\n" % int(own * 1000))
result = own
""", timeout="20s")
    assert run.status == 200 and run["exit_code"] == 0 and run.reported, run
    own_ms = run.result * 1000
    print("\ncgroup v%d: cpu_ms %d, the program's own count %.0f ms, wall %d ms"
          % (cgroup_version(), run["cpu_ms"], own_ms, run["wall_ms"]))
    assert run["cpu_ms"] >= 500, run
    assert abs(run["cpu_ms"] - own_ms) <= 0.20 * own_ms, \
        "cpu_ms %d against the program's %.0f ms" % (run["cpu_ms"], own_ms)


ALLOCATE = """
chunks = []
while True:
    chunks.append(b'\\x5a' * (8 << 20))
"""


def test_allocation_past_the_limit_is_oom_killed_on_run(service):
    run = py(service, ALLOCATE, timeout="20s", http_timeout=40)
    assert run.status == 200, run
    assert run["oom_killed"] is True and run["timed_out"] is False, run
    assert run["exit_code"] == 2 and run["signal"] == "SIGKILL", run
    # python's limit is 512 MiB: the peak met it, and did not pass it.
    peak = run["memory_peak_kb"]
    print("\ncgroup v%d: OOM kill at a peak of %s KiB (limit 524288)" % (cgroup_version(), peak))
    assert peak is not None and 0.9 * 512 * 1024 <= peak <= 512 * 1024 * 1.02, run


def test_allocation_past_the_limit_is_mle_on_evaluate(service):
    if service.via != "http":
        raise AssertionError("/evaluate needs the HTTP service (GAOL_ISOLATION_VIA unset)")
    body = {"language": "python", "memory_limit_mb": 64,
            "code": "import sys\nsys.stdin.read()\n" + ALLOCATE,
            "test_cases": [{"input": "1", "expected_output": "1"},
                           {"input": "2", "expected_output": "2"}]}
    resp = service.stack.post("/evaluate", body, timeout=60)
    assert resp.status == 200, resp
    results = resp.json()["results"]
    print("\ncgroup v%d: /evaluate over 64 MB: %r" % (
        cgroup_version(), [(r["verdict"], r["memory_kb"]) for r in results]))
    for r in results:
        assert r["verdict"] == "MLE", r
        assert r["memory_kb"] is not None and 0.9 * 64 * 1024 <= r["memory_kb"] <= 64 * 1024 * 1.2, r


def test_the_run_sees_its_own_limits_in_its_cgroup(service):
    """The limits are written into the run's own cgroup (on v2 its leaf,
    the root of its cgroup namespace): a fork bomb's wall and the memory
    limit, read from inside."""
    run = py(service, """
import os
v2 = os.path.exists('/sys/fs/cgroup/cgroup.controllers')
def read(v2name, v1name):
    with open('/sys/fs/cgroup/' + (v2name if v2 else v1name)) as f:
        return f.read().strip()
result = {'pids': read('pids.max', 'pids/pids.max'),
          'memory': read('memory.max', 'memory/memory.limit_in_bytes'),
          'swap': read('memory.swap.max', 'memory/memory.swappiness')}
""", timeout="10s")
    assert run.status == 200 and run.reported, run
    assert run.result["pids"] == "512", run.result
    assert int(run.result["memory"]) == 512 * MiB, run.result
    assert run.result["swap"] == "0", run.result


def test_a_fork_bomb_stops_at_the_process_limits(service):
    run = py(service, """
import os, time
n = 0
while True:
    try:
        pid = os.fork()
    except OSError as e:
        os.write(1, b"STOPPED %d errno=%d\\n" % (n, e.errno))
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    n += 1
time.sleep(60)
""", timeout="10s", http_timeout=30)
    assert run.status == 200, run
    assert "STOPPED" in run.stdout, run
    n = int(run.stdout.split("STOPPED ")[1].split()[0])
    print("\ncgroup v%d: the fork bomb stopped after %d forks: %s" % (
        cgroup_version(), n, run.stdout.strip()))
    assert "errno=11" in run.stdout, run          # EAGAIN: a limit, not a crash
    assert 100 < n < 512, run
    assert run["timed_out"] is True, run
