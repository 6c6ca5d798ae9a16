# SPDX-License-Identifier: Apache-2.0
"""docs/design.md ("Checkers and interactors"), issue 30: a checker and an
interactor are contained on the same terms as the solution, and neither
shares a directory or a pipe end with it.  A solution hunts for the answer
file everywhere it can reach; a checker tries to write to the solution's
files and to the host; an interactor floods the solution, or never writes.
Each is stopped or refused as promised, and (the autouse fixture, with the
aides' UIDs in its range) the host is unchanged afterwards; no test's files
stay in the aides' judge directories."""

import glob
import json

import gaol_helpers as gh
import gaol_isolation as gi


def evaluate(service, body):
    r = gh.request(service.port, "POST", "/evaluate", json.dumps(body).encode(),
                   headers={"Content-Type": "application/json"}, timeout=180.0)
    assert r.status == 200, (r.status, r.body[:2000])
    # The aides' judge directories of this service's UIDs (the machine is
    # shared: other stacks judge meanwhile).
    left = [p for uid in range(service.uid_lo, service.uid_hi)
            for p in glob.glob("%s/uid%d-*/judge/*" % (gi.STATE_DIR, uid))]
    assert not left, "a test's files were left: %r" % left
    return r.json()


def test_solution_cannot_find_the_answer_the_checker_or_the_interactor(service, token):
    # The secret is in the expected answer, the checker's source and files,
    # and the interactor's source and input: the solution looks for it by
    # name and by content wherever it can reach, while it talks to the
    # interactor.
    solution = r'''
import os, sys
secret = %r[::-1].encode()   # not itself in this source
skip = ("/proc", "/sys", "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc")
found = []
for top in ["/"]:
    for root, dirs, files in os.walk(top):
        if root.startswith(skip) and root != "/":
            dirs[:] = []
            continue
        for name in dirs + files:
            if any(w in name for w in ("judge", "answer", "tout", "checker", "interactor")):
                found.append(os.path.join(root, name))
        for name in files:
            path = os.path.join(root, name)
            try:
                with open(path, "rb") as f:
                    if secret in f.read(1 << 20):
                        found.append(path)
            except OSError:
                pass
mounts = open("/proc/self/mountinfo").read()
if "judge" in mounts:
    found.append("mountinfo")
for pid in os.listdir("/proc"):
    if pid.isdigit() and pid != str(os.getpid()):
        try:
            if secret in open("/proc/%%s/cmdline" %% pid, "rb").read():
                found.append("proc " + pid)
        except OSError:
            pass
print(len(found), flush=True)
sys.stderr.write(repr(found[:20]))
input()
print("clean" if not found else "found", flush=True)
''' % token[::-1]
    interactor = r'''
import sys
secret = open(sys.argv[1]).read()
first = sys.stdin.readline().strip()
print("go", flush=True)
last = sys.stdin.readline().strip()
open(sys.argv[2], "w").write(last)
if first == "0" and last == "clean":
    sys.stderr.write("ok nothing found"); sys.exit(0)
sys.stderr.write("wrong answer found %s" % first); sys.exit(1)
# ''' + token
    checker = r'''
import sys
out = open(sys.argv[2]).read().strip()
ans = open(sys.argv[3]).read().strip()
if out == "clean" and ans.startswith("clean"):
    sys.stderr.write("ok clean"); sys.exit(0)
sys.stderr.write("wrong answer " + out); sys.exit(1)
# ''' + token
    doc = evaluate(service, {
        "language": "python", "code": solution, "time_limit_ms": 10000,
        "test_cases": [{"input": token, "expected_output": "clean " + token}],
        "checker": {"language": "python", "code": checker,
                    "files": [{"name": "secret.txt", "content": token}]},
        "interactor": {"language": "python", "code": interactor,
                       "files": [{"name": "secret.txt", "content": token}]}})
    t = doc["results"][0]
    assert t["verdict"] == "OK", (t["error"], t)
    assert t["interactor"]["message"] == "ok nothing found", t
    assert t["checker"]["message"] == "ok clean", t


def test_checker_cannot_write_to_the_solutions_files_or_the_host(service, token):
    checker = r'''
import errno, os, signal, sys
token = %r
tried = {}
for path in (sys.argv[2], sys.argv[3], sys.argv[1]):
    try:
        open(path, "w").write("x")
        tried[path] = "written"
    except OSError as e:
        tried[path] = e.errno
for path in ("/sandbox/judge/" + token, "/" + token, "/usr/" + token, "/etc/" + token,
             "/run/" + token, "/var/tmp/" + token):
    try:
        open(path, "w").write("x")
        tried[path] = "written"
    except OSError as e:
        tried[path] = e.errno
try:
    os.kill(-1, signal.SIGKILL) if False else None
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) > 2]
except OSError:
    others = []
written = sorted(p for p, v in tried.items() if v == "written")
if written:
    sys.stderr.write("wrong answer wrote %%s" %% written); sys.exit(1)
sys.stderr.write("ok refused %%d, %%d other processes" %% (len(tried), len(others) - 1))
sys.exit(0)
''' % token
    doc = evaluate(service, {
        "language": "python", "code": "print(input())",
        "test_cases": [{"input": "7", "expected_output": "7"}],
        "checker": {"language": "python", "code": checker}})
    t = doc["results"][0]
    assert t["verdict"] == "OK", t
    assert t["checker"]["message"].startswith("ok refused 9"), t
    # The checker's run saw its own process tree only (its shell, python).
    assert t["actual"] == "7\n"


def test_interactor_that_floods_the_solution_is_stopped_by_its_own_limits(service, token):
    flood = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    doc = evaluate(service, {
        "language": "python", "code": "import sys\nfor line in sys.stdin: pass",
        "test_cases": [{"input": "", "expected_output": ""}],
        "interactor": {"language": "python", "code": flood, "time_limit_ms": 3000}})
    t = doc["results"][0]
    assert t["verdict"] == "IE", t
    assert t["details"] in ("Interactor failed: it exceeded the output limit",
                            "Interactor failed: it exceeded its time limit (3000 ms)"), t
    assert t["interactor"]["exit_code"] is None


def test_interactor_that_floods_a_solution_that_does_not_read(service, token):
    flood = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    doc = evaluate(service, {
        "language": "python", "code": "import time\ntime.sleep(60)",
        "time_limit_ms": 500,
        "test_cases": [{"input": "", "expected_output": ""}],
        "interactor": {"language": "python", "code": flood}})
    t = doc["results"][0]
    # Both wait: the relay holds one chunk, no more; the pair is idle.
    assert t["verdict"] == "TLE" and t["deadline"] == "no_progress", t


def test_interactor_that_never_writes(service, token):
    silent = "import time\ntime.sleep(60)\n"
    doc = evaluate(service, {
        "language": "python", "code": "print(input())", "time_limit_ms": 500,
        "test_cases": [{"input": "", "expected_output": ""}],
        "interactor": {"language": "python", "code": silent}})
    t = doc["results"][0]
    assert t["verdict"] == "TLE" and t["deadline"] == "no_progress", t
