# SPDX-License-Identifier: Apache-2.0
"""The isolation tests' view of gaol: the service under attack, the hostile
programs sent to it, and what "the host is unchanged" means, measured.

The service is the real stack (nginx/stack.sh through gaol_helpers.Stack),
reached with POST /run over HTTP on 127.0.0.1.  GAOL_ISOLATION_VIA=gaol-run
swaps it for build/gaol-run (the same engine on the command line, answers
emulated as HTTP responses): a debugging aid only, never what `make isolation`
runs.  GAOL_ISOLATION_API=execute sends every hostile program through POST
/execute instead (`make isolation` runs the suite both ways).
"""

import glob
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import gaol_helpers as gh

# Slot UIDs of the stack these tests start: a block of their own, below the
# integration tests' blocks (gh.UID_BASE, 41001 and up), so that neither
# suite ever mistakes the other's payloads for its own.
UID_BASE = 31001 + (os.getpid() % 500) * 20
CONCURRENCY = 2
OUTPUT_MAX = 65536

STACK_ENV = {
    "RUN_OUTPUT_MAX": str(OUTPUT_MAX),
    "RUN_EXECUTE_OUTPUT_MAX": str(OUTPUT_MAX),
    "RUN_TIMEOUT_MAX": "60s",
    "RUN_EXECUTE_RUN_TIMEOUT_MAX": "60s",
}

# Which API the hostile programs go through: POST /run (Codebattle's
# harness imports the program), or POST /execute (the program is main.py,
# run as it is; `make isolation` runs the suite through both).  /execute's
# answer is read as /run's (execute_as_run), so every test holds for both.
API = os.environ.get("GAOL_ISOLATION_API", "run")

# Directories on the host where a payload that got out would leave files.
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
STATE_DIR = os.environ.get("GAOL_STATE_DIR", "/run/gaol")
LANGS_SOURCE = os.path.join(gh.REPO, "langs")
# python for every test; the others for test_more_langs_hostile.py (issue 33).
LANGS = ("python", "bash", "perl", "lua", "r", "octave")

SIGNAL_EXIT = {name: 128 + int(getattr(signal, name)) for name in ("SIGKILL", "SIGSYS")}


# ---------------------------------------------------------------- the service

class LangsCopy:
    """The service's language directories: a private copy of langs/python
    (and of the few other languages whose hostile programs run here, LANGS),
    made once per session.  It is the overlay's lower layer of every run, so
    it is what must stay byte-for-byte the same; being private, nobody else
    editing the work tree meanwhile can be mistaken for a payload that got
    out."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="gaol-iso-langs-")
        os.chmod(self.root, 0o755)
        for slug in LANGS:
            # python is every test's; the others only where the checkout
            # has them (the v2 VM's guest hides the languages it does not
            # keep): test_more_langs_hostile.py skips a language gaol does
            # not list as installed.
            if slug != "python" and not os.path.isdir(os.path.join(LANGS_SOURCE, slug)):
                continue
            shutil.copytree(os.path.join(LANGS_SOURCE, slug), os.path.join(self.root, slug),
                            symlinks=True)
        self.python = os.path.join(self.root, "python")

    def remove(self):
        shutil.rmtree(self.root, ignore_errors=True)


class HttpService:
    """The real thing: nginx + gaol-fcgi, one stack for the whole session."""

    via = "http"

    def __init__(self):
        self.langs = LangsCopy()
        env = dict(STACK_ENV, GAOL_LANGS_DIR=self.langs.root)
        self.stack = gh.Stack("isolation", env=env, uid_base=UID_BASE,
                              concurrency=CONCURRENCY)
        self.uid_lo = UID_BASE
        # The slots', the self-check's, and their checkers' and
        # interactors' UIDs (docs/api.md, RUN_UID_BASE).
        self.uid_hi = UID_BASE + 2 * CONCURRENCY + 2
        self.port = self.stack.port

    def start(self):
        try:
            self.stack.start()
        except Exception:
            self.stack.kill_all()
            self.langs.remove()
            raise
        return self

    def stop(self):
        try:
            self.stack.stop_clean()      # its log is in the failure, if any
        finally:
            self.langs.remove()
            shutil.rmtree(self.stack.workdir, ignore_errors=True)

    def run(self, payload, http_timeout=60.0):
        return gh.post_run(self.port, payload, timeout=http_timeout)

    # The stack's long-lived processes.  (stack.sh also runs short helpers,
    # such as a sleep while it waits, which come and go.)
    SERVING = ("stack.sh", "nginx", "gaol-fcgi", "spawn-fcgi")

    def processes(self):
        """{pid: comm} of the stack's serving processes: nginx master and
        workers, the gaol-fcgi master and workers, stack.sh.  A sandbox a
        worker built ahead of its next request is not one of them: its init
        (a fork of the worker, so also "gaol-fcgi") is PID 1 of a PID
        namespace of its own, and is replaced after every run."""
        host = _pid_ns("self")
        procs = self.stack.processes()
        # stack.sh forks briefly (a subshell that becomes `sleep`): only
        # the stack.sh that is not a child of stack.sh is serving.
        return {pid: v[1] for pid, v in procs.items()
                if v[1] in self.SERVING and _pid_ns(pid) == host
                and not (v[1] == "stack.sh" and procs.get(v[0], (0, ""))[1] == "stack.sh")}

    def alive(self):
        return self.stack.proc.poll() is None

    def log_text(self):
        return self.stack.log_text()


def _pid_ns(pid):
    try:
        return os.readlink("/proc/%s/ns/pid" % pid)
    except OSError:
        return None


class CliService:
    """build/gaol-run as a stand-in for the stack while developing."""

    via = "gaol-run"

    def __init__(self):
        self.langs = LangsCopy()
        self.uid_lo = UID_BASE
        # The slots', the self-check's, and their checkers' and
        # interactors' UIDs (docs/api.md, RUN_UID_BASE).
        self.uid_hi = UID_BASE + 2 * CONCURRENCY + 2
        self.port = gh.free_port()          # nothing listens: like nginx's, unreachable
        self.env = dict(os.environ, RUN_UID_BASE=str(UID_BASE),
                        RUN_CONCURRENCY=str(CONCURRENCY), GAOL_LANGS_DIR=self.langs.root,
                        **STACK_ENV)
        self.env[gh.SECRET_NAME] = gh.SECRET_VALUE
        self.free = list(range(CONCURRENCY))
        self.lock = threading.Condition()

    def start(self):
        return self

    def stop(self):
        self.langs.remove()

    def run(self, payload, http_timeout=60.0):
        with self.lock:
            while not self.free:
                self.lock.wait()
            slot = self.free.pop(0)
        try:
            t0 = time.monotonic()
            p = subprocess.run([os.path.join(gh.BUILD_DIR, "gaol-run"), "--slot", str(slot)],
                               input=json.dumps(payload).encode(), capture_output=True,
                               env=self.env, timeout=http_timeout)
            status = 200
            for line in p.stderr.decode(errors="replace").splitlines():
                if line.startswith("gaol-run: status "):
                    status = int(line.split()[-1])
            return gh.Response(status, {"content-type": "application/json"},
                               p.stdout.rstrip(b"\n"), time.monotonic() - t0)
        finally:
            with self.lock:
                self.free.append(slot)
                self.lock.notify()

    def processes(self):
        return {}

    def alive(self):
        return True

    def log_text(self):
        return ""


def make_service():
    if os.environ.get("GAOL_ISOLATION_VIA") == "gaol-run" and API != "execute":
        return CliService().start()
    for path in (os.path.join(gh.BUILD_DIR, "gaol-fcgi"), os.path.join(gh.REPO, "nginx", "stack.sh")):
        if not os.access(path, os.X_OK):
            raise RuntimeError("%s is missing: the isolation tests attack the real "
                               "service (run `make`)" % path)
    return HttpService().start()


# ---------------------------------------------------------------- hostile programs

class Run:
    """One /run answer: the HTTP response, its JSON document, and what the
    snippet reported (`result`), if it lived long enough to report it."""

    def __init__(self, resp):
        self.resp = resp
        self.status = resp.status
        self.elapsed = resp.elapsed
        self.doc = None
        self.result = None
        self.reported = False
        if resp.status == 200:
            self.doc = resp.json()
            gh.assert_run_shape(self.doc)
            for stream in (self.doc["stdout"], self.doc["stderr"]):
                i = stream.find(gh.MARK)
                if i >= 0:
                    j = stream.find(gh.MARK, i + len(gh.MARK))
                    self.result = json.loads(stream[i + len(gh.MARK):j])
                    self.reported = True
                    break

    def __getitem__(self, key):
        assert self.doc is not None, "no 200 answer: %r" % self.resp
        return self.doc[key]

    @property
    def stdout(self):
        return self["stdout"]

    def __repr__(self):
        return "<Run %r>" % (self.doc if self.doc is not None else self.resp)


def py(service, code, timeout="5s", http_timeout=60.0):
    """Runs python `code` at the top level of solution.py (the harness imports
    it), with fd 1 on the run's real stdout; `result` is reported if set."""
    if "result" not in code:
        code += "\nresult = None\n"
    if API == "execute":
        return Run(execute_as_run(service, gh.py_source(code), timeout, http_timeout))
    payload = {"lang_slug": "python", "solution_text": gh.py_source(code), "timeout": timeout}
    return Run(service.run(payload, http_timeout=http_timeout))


def execute_as_run(service, source, timeout, http_timeout):
    """POST /execute of main.py, its answer in /run's fields and words, so
    that the tests' assertions hold for both: the exit code as a shell gives
    it (128 + a signal), and where /run answers as Codebattle's runner does
    (README, "POST /run"), that: a timeout is 143 with a `SIGTERM` line on
    stderr, an OOM kill 2 with a `Killed` line, an output cap (/execute's
    `OL`, `EL`) /run's 413 naming the stream."""
    ms = int(float(timeout[:-2]) if timeout.endswith("ms") else float(timeout[:-1]) * 1000)
    body = {"language": "python", "files": [{"name": "main.py", "content": source}],
            "run_timeout": ms, "run_cpu_time": ms}
    resp = gh.request(service.port, "POST", "/execute", json.dumps(body).encode(),
                      timeout=http_timeout)
    if resp.status != 200:
        return resp
    run = resp.json()["run"]
    if run["status"] in ("OL", "EL"):
        stream = "stdout" if run["status"] == "OL" else "stderr"
        return gh.Response(413, resp.headers, json.dumps(
            {"error": "%s: %s" % (stream, run["message"])}).encode(), resp.elapsed)
    code = run["code"]
    if run["timed_out"]:
        code = 143
        run["stderr"] += "\ngaol: timed out after %d ms: SIGTERM (as /run says it)\n" % ms
    elif run["oom_killed"]:
        code = 2
        run["stderr"] += "\ngaol: Killed: memory limit exceeded (as /run says it)\n"
    elif run["signal"]:
        code = 128 + int(getattr(signal, run["signal"]))
    doc = {"exit_code": code, "stdout": run["stdout"], "stderr": run["stderr"],
           "timed_out": run["timed_out"], "oom_killed": run["oom_killed"],
           "signal": run["signal"], "wall_ms": run["wall_time"], "cpu_ms": run["cpu_time"],
           "memory_peak_kb": run["memory_peak_kb"], "status": run["status"]}
    return gh.Response(200, resp.headers, json.dumps(doc).encode(), resp.elapsed)


# A prelude for raw system calls from python.
SYSCALL = """
import ctypes, os
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
def syscall(nr, *args):
    ctypes.set_errno(0)
    r = _libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return r, ctypes.get_errno()
def say(text):
    os.write(1, (text + "\\n").encode())
"""


def assert_killed_by_sigsys(run, before="BEFORE", after="AFTER"):
    """The program reached the forbidden call (it said `before`) and was
    killed there (it never said `after`): exit_code 128+SIGSYS and signal
    "SIGSYS" (the harness's command is a simple one, which sh execs: the
    payload's own death is what the answer reports)."""
    assert run.status == 200, run.resp
    out = run.stdout
    assert before in out, "the program never reached the call: %r" % run
    assert after not in out, "the call returned instead of killing the program: %r" % run
    assert run["exit_code"] == SIGNAL_EXIT["SIGSYS"], \
        "expected exit_code 159 (SIGSYS), got %r" % run
    assert run["signal"] == "SIGSYS", run
    assert run["timed_out"] is False, run


# ---------------------------------------------------------------- the host

def slot_state_dirs(uid_lo, uid_hi):
    """The service's own state of our slots (skeleton root, identity files,
    the mount point of each run's scratch tmpfs), as the host sees it."""
    return [d for d in glob.glob(os.path.join(STATE_DIR, "uid*"))
            if os.path.basename(d)[3:].split("-")[0].isdigit()
            and uid_lo <= int(os.path.basename(d)[3:].split("-")[0]) < uid_hi]


def cgroup_v2():
    """This host's slot cgroups are cgroup v2's (a unified tree offering the
    memory controller), not v1's hierarchies."""
    try:
        with open("/sys/fs/cgroup/cgroup.controllers") as f:
            return "memory" in f.read().split()
    except OSError:
        return False


def slot_cgroup_dirs(uid_lo, uid_hi):
    """The slot cgroups of our UIDs (judging lanes' uid<N>-<k> included), on
    every hierarchy (v1) or the unified one."""
    dirs = []
    for uid in range(uid_lo, uid_hi):
        for name in ("uid%d" % uid, "uid%d-*" % uid):
            for pattern in ("/sys/fs/cgroup/*/gaol/" + name, "/sys/fs/cgroup/*/**/gaol/" + name,
                            "/sys/fs/cgroup/gaol/" + name, "/sys/fs/cgroup/**/gaol/" + name):
                dirs.extend(glob.glob(pattern, recursive=True))
    return sorted(set(dirs))


def is_idle_sandbox_init(pid):
    """The init of a sandbox a worker built ahead of its next request: a
    root-owned fork of the worker ("gaol-fcgi"), PID 1 of a PID namespace of
    its own, in the slot's cgroup, with no child (no payload yet).  Anything
    else in a slot cgroup after a run is a leftover."""
    try:
        with open("/proc/%d/status" % pid) as f:
            status = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            children = f.read().split()
    except OSError:
        return False
    return (status.get("Name") == "gaol-fcgi" and status.get("Uid", "").split()[0] == "0"
            and status.get("NSpid", "").split()[1:] == ["1"] and not children
            and _pid_ns(pid) != _pid_ns("self"))


def run_leaves(slot_dir):
    """The run leaves under a slot cgroup (cgroup v2: one per run,
    run<pid>-<N>); none on v1."""
    try:
        return sorted(os.path.join(slot_dir, n) for n in os.listdir(slot_dir)
                      if os.path.isdir(os.path.join(slot_dir, n)))
    except OSError:
        return []


def cgroup_procs(uid_lo, uid_hi):
    """{cgroup dir: [pids]} of the slot cgroups (and their run leaves, on v2)
    holding anything but an idle sandbox built ahead of its request."""
    out = {}
    for d in [x for slot in slot_cgroup_dirs(uid_lo, uid_hi)
              for x in [slot] + run_leaves(slot)]:
        try:
            with open(os.path.join(d, "cgroup.procs")) as f:
                pids = [int(x) for x in f.read().split()]
        except OSError:
            continue
        pids = [p for p in pids if not is_idle_sandbox_init(p)]
        if pids:
            out[d] = pids
    return out


def leftover_leaves(uid_lo, uid_hi, wait=3.0):
    """Run leaves (v2) of finished runs: every leaf but the one a sandbox
    built ahead of its request sits in (its idle init alone).  A worker
    removes its last run's leaf when it turns idle, right after answering:
    given `wait` seconds to do so."""
    deadline = time.monotonic() + wait
    while True:
        left = []
        for slot in slot_cgroup_dirs(uid_lo, uid_hi):
            for leaf in run_leaves(slot):
                try:
                    with open(os.path.join(leaf, "cgroup.procs")) as f:
                        pids = [int(x) for x in f.read().split()]
                except OSError:
                    continue        # removed meanwhile
                if not (len(pids) == 1 and is_idle_sandbox_init(pids[0])):
                    left.append((leaf, pids))
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def slot_memory_usage(uid_lo, uid_hi):
    """{memory cgroup dir: bytes in use} of our slots."""
    out = {}
    for d in slot_cgroup_dirs(uid_lo, uid_hi):
        for name in ("memory.usage_in_bytes", "memory.current"):
            try:
                with open(os.path.join(d, name)) as f:
                    out[d] = int(f.read())
                break
            except OSError:
                continue
    return out


def file_tree(roots, max_depth=6):
    """{path: (uid, type)} below roots, not following symlinks nor other mounts."""
    tree = {}
    for root in roots:
        try:
            dev = os.lstat(root).st_dev
        except OSError:
            continue
        stack = [(root, 0)]
        while stack:
            path, depth = stack.pop()
            try:
                entries = list(os.scandir(path))
            except OSError:
                continue
            for e in entries:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                kind = "d" if e.is_dir(follow_symlinks=False) else "f"
                tree[e.path] = (st.st_uid, kind)
                if kind == "d" and st.st_dev == dev and depth < max_depth:
                    stack.append((e.path, depth + 1))
    return tree


def digest_tree(root):
    """{relative path: (mode, uid, gid, size, mtime_ns, content)} of a small tree."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            content = None
            if os.path.islink(path):
                content = os.readlink(path)
            elif os.path.isfile(path) and st.st_size <= (1 << 20):
                with open(path, "rb") as f:
                    content = f.read()
            out[os.path.relpath(path, root)] = (st.st_mode, st.st_uid, st.st_gid,
                                                st.st_size, st.st_mtime_ns, content)
    return out


def diff_trees(before, after):
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    return added, removed, changed


def disk_free(path="/"):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def run_as(uid, argv):
    """A host process of the given UID (a canary), in a session of its own."""
    def drop():
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    return subprocess.Popen(argv, preexec_fn=drop, start_new_session=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
