# SPDX-License-Identifier: Apache-2.0
"""Helpers for the integration tests: an HTTP client on the standard library,
a running stack (nginx/stack.sh: nginx + spawn-fcgi + gaol-fcgi) and its
processes, and python snippets run through POST /run.

Traffic goes only to 127.0.0.1.
"""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples")
BUILD = os.environ.get("BUILD", "build")
BUILD_DIR = BUILD if os.path.isabs(BUILD) else os.path.join(REPO, BUILD)

# The slot UIDs of the stacks these tests start.  Not the default 10001, so
# that a stack somebody else runs on the same machine is not mistaken for ours
# (and ours not for theirs).  Each stack gets its own block.
UID_BASE = 41001 + (os.getpid() % 500) * 20

# Set in every stack's environment; the payload must never see it.
SECRET_NAME = "GAOL_TEST_SECRET"
SECRET_VALUE = "s3cr3t-" + uuid.uuid4().hex


# ---------------------------------------------------------------- HTTP

class Response:
    def __init__(self, status, headers, body, elapsed):
        self.status = status
        self.headers = headers          # dict, lower-case names
        self.body = body                # bytes
        self.elapsed = elapsed          # seconds, request sent to body read

    def json(self):
        # Strict: the body must be valid UTF-8 and valid JSON.
        return json.loads(self.body.decode("utf-8", errors="strict"))

    def __repr__(self):
        b = self.body[:600]
        return "<Response %d %r%s>" % (self.status, b,
                                        "..." if len(self.body) > 600 else "")


# The stack listening on each port, so that request() can note each answer
# gaol-fcgi gave (test_zz_request_log.py: each one left one log line).
_STACK_ON_PORT = {}


def _note_answer(port, method, path, resp):
    """An answer of gaol-fcgi's own (its Cache-Control: no-store; nginx's
    error pages have none) and its X-Request-Id, on the stack's list."""
    s = _STACK_ON_PORT.get(port)
    rid = resp.headers.get("x-request-id")
    if s is not None and rid and resp.headers.get("cache-control") == "no-store":
        s.answered.append((rid, method, path, resp.status))


def request(port, method, path, body=None, headers=None, timeout=60.0):
    """One HTTP/1.1 request on a fresh connection to 127.0.0.1:port.

    body may be bytes, str or a JSON-able object (then sent as JSON).  A
    server that answers before reading the whole body (413) and closes is
    fine: the answer is still read."""
    hdrs = {}
    if body is not None and not isinstance(body, (bytes, str)):
        body = json.dumps(body)
        hdrs["Content-Type"] = "application/json"
    if isinstance(body, str):
        body = body.encode("utf-8")
    if headers:
        hdrs.update(headers)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    t0 = time.monotonic()
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        if body is not None and not any(k.lower() == "content-length" for k in hdrs):
            hdrs["Content-Length"] = str(len(body))
        for k, v in hdrs.items():
            conn.putheader(k, v)
        conn.endheaders()
        if body:
            try:
                view = memoryview(body)
                for i in range(0, len(body), 65536):
                    conn.send(view[i:i + 65536])
            except (BrokenPipeError, ConnectionResetError):
                pass  # answered early; read what it said
        resp = conn.getresponse()
        data = resp.read()
        hdr = {k.lower(): v for k, v in resp.getheaders()}
        r = Response(resp.status, hdr, data, time.monotonic() - t0)
        _note_answer(port, method, path, r)
        return r
    finally:
        conn.close()


def raw_request(port, data, timeout=10.0):
    """Sends raw bytes, returns (status, headers, body) of what came back."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        resp = http.client.HTTPResponse(s)
        resp.begin()
        body = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


def post_run(port, payload, timeout=120.0):
    return request(port, "POST", "/run", payload, timeout=timeout)


def assert_json_error(resp, status):
    """The promise of docs/api.md ("Errors and status codes"): every error is JSON {"error": "..."}."""
    assert resp.status == status, "expected %d, got %r" % (status, resp)
    ctype = resp.headers.get("content-type", "")
    assert ctype.startswith("application/json"), \
        "error %d has Content-Type %r: %r" % (status, ctype, resp)
    try:
        doc = resp.json()
    except ValueError as e:
        raise AssertionError("error %d body is not JSON (%s): %r" % (status, e, resp))
    assert isinstance(doc, dict) and isinstance(doc.get("error"), str) and doc["error"], \
        "error %d body has no \"error\" string: %r" % (status, resp)
    return doc["error"]


def assert_run_shape(doc):
    """The 200 body of /run: Codebattle's three fields and gaol's extensions."""
    assert isinstance(doc, dict), doc
    assert "exit_code" in doc and (doc["exit_code"] is None or isinstance(doc["exit_code"], int)), doc
    assert isinstance(doc.get("stdout"), str), doc
    assert isinstance(doc.get("stderr"), str), doc
    for k in ("timed_out", "oom_killed"):
        assert isinstance(doc.get(k), bool), (k, doc)
    assert "signal" in doc and (doc["signal"] is None or isinstance(doc["signal"], str)), doc
    for k in ("wall_ms", "cpu_ms", "memory_peak_kb"):
        assert k in doc and (doc[k] is None or isinstance(doc[k], int)), (k, doc)
    assert isinstance(doc["wall_ms"], int) and doc["wall_ms"] >= 0, doc


# ---------------------------------------------------------------- python snippets

MARK = "@@GAOL-RESULT@@"

# What the snippet wrapper appends: the value of `result` as one JSON line,
# written straight to file descriptors 1 and 2 so that whatever the harness
# does with sys.stdout while it imports the solution, one copy comes back.
_EPILOGUE = """
import json as _gj, os as _go
_gm = %r + %r
_gl = ("\\n" + _gm + _gj.dumps(result) + _gm + "\\n").encode()
for _gfd in (1, 2):
    try:
        _go.write(_gfd, _gl)
    except OSError:
        pass
def solution(*args):
    return None
""" % (MARK[:7], MARK[7:])


# What the snippet wrapper puts first.  langs/python's harness points fd 1 at
# a capture file while it imports the solution (and keeps what is printed only
# for the records of asserts).  These tests are about what the engine does
# with the bytes a program writes, so the snippet puts the harness's own
# duplicate of the real stdout back on fd 1 first: print() and os.write(1, ..)
# then reach the run's stdout pipe as they would for any program.
_PROLOGUE = """
import os as _go0
def _gaol_real_stdout():
    try:
        one = _go0.readlink('/proc/self/fd/1')
        err = _go0.readlink('/proc/self/fd/2')
    except OSError:
        return
    if one.startswith(('pipe:', 'socket:')):
        return
    for name in sorted(_go0.listdir('/proc/self/fd'), key=int):
        fd = int(name)
        if fd <= 2:
            continue
        try:
            t = _go0.readlink('/proc/self/fd/%d' % fd)
        except OSError:
            continue
        if t.startswith(('pipe:', 'socket:')) and t != err:
            _go0.dup2(fd, 1)
            return
_gaol_real_stdout()
"""


def py_source(code):
    """solution.py whose top level runs code (the harness imports it, so it
    runs), with fd 1 on the run's real stdout, then reports `result`."""
    return _PROLOGUE + code.rstrip() + "\n" + _EPILOGUE


def py_run(port, code, timeout=None, asserts=None, http_timeout=120.0):
    payload = {"lang_slug": "python", "solution_text": code}
    if timeout is not None:
        payload["timeout"] = timeout
    if asserts is not None:
        payload["asserts"] = asserts
    return post_run(port, payload, timeout=http_timeout)


def py_eval(port, code, timeout=None):
    """Runs code, which sets `result`, in the sandbox; returns (result, doc)."""
    resp = py_run(port, py_source(code), timeout=timeout)
    assert resp.status == 200, resp
    doc = resp.json()
    for stream in (doc["stdout"], doc["stderr"]):
        i = stream.find(MARK)
        if i >= 0:
            j = stream.find(MARK, i + len(MARK))
            return json.loads(stream[i + len(MARK):j]), doc
    raise AssertionError("snippet printed no result: %r" % doc)


def records(stdout):
    """The Codebattle record list a harness printed: one JSON array, or one
    JSON record per line; lines that are not JSON records are ignored."""
    text = stdout.strip()
    try:
        doc = json.loads(text)
        if isinstance(doc, list):
            return doc
    except ValueError:
        pass
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] not in "[{":
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        out.extend(doc if isinstance(doc, list) else [doc])
    return [r for r in out if isinstance(r, dict) and "type" in r]


# ---------------------------------------------------------------- processes

def _read(path, mode="r"):
    try:
        with open(path, mode) as f:
            return f.read()
    except (FileNotFoundError, ProcessLookupError, PermissionError, OSError):
        return None


def proc_table():
    """{pid: (ppid, comm, uid, state)} of every process on the host."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        status = _read("/proc/%s/status" % name)
        if not status:
            continue
        f = {}
        for line in status.splitlines():
            k, _, v = line.partition(":")
            f[k] = v.strip()
        try:
            table[int(name)] = (int(f["PPid"]), f["Name"], int(f["Uid"].split()[0]),
                                f["State"].split()[0])
        except (KeyError, ValueError, IndexError):
            pass
    return table


def processes_with_env(marker):
    """Pids whose initial environment holds marker, and their descendants."""
    table = proc_table()
    tagged = set()
    needle = marker.encode() + b"\0"
    for pid in table:
        env = _read("/proc/%d/environ" % pid, "rb")
        if env and needle in env + b"\0":
            tagged.add(pid)
    changed = True
    while changed:
        changed = False
        for pid, (ppid, _, _, _) in table.items():
            if ppid in tagged and pid not in tagged:
                tagged.add(pid)
                changed = True
    return {pid: table[pid] for pid in tagged if pid in table and table[pid][3] != "Z"}


def processes_of_uids(lo, hi):
    return {pid: v for pid, v in proc_table().items() if lo <= v[2] < hi and v[3] != "Z"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stalled_client(path, half_record=False):
    """A client connected to the unix socket path that sends nothing more:
    nothing at all, or half a FastCGI record header (which gets it past
    libfcgi's own drop of a unix connection that sends nothing for 2 s)."""
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(path)
    if half_record:
        c.sendall(b"\x01\x01\x00")
    return c


def mountinfo():
    """Mount points of this mount namespace, as a multiset of lines without
    the mount ids (which are what change when a mount is replaced)."""
    out = []
    for line in _read("/proc/self/mountinfo").splitlines():
        fields = line.split()
        out.append(" ".join(fields[3:]))
    return sorted(out)


# ---------------------------------------------------------------- the stack

def _default_signals():
    # As a terminal's foreground job gets them: a test runner started in the
    # background (CI, nohup) inherits SIGINT ignored, and a shell cannot trap
    # a signal that was ignored when it started.
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


class StackError(Exception):
    pass


class Stack:
    """One instance of nginx/stack.sh, started as `make run` starts it."""

    READY_TIMEOUT = float(os.environ.get("GAOL_TEST_READY_TIMEOUT", "120"))

    def __init__(self, name="stack", env=None, uid_base=None, concurrency=2):
        self.name = name
        self.port = free_port()
        self.marker = "GAOL_TEST_STACK=%s-%s" % (name, uuid.uuid4().hex[:12])
        self.concurrency = concurrency
        self.uid_base = uid_base if uid_base is not None else UID_BASE
        self.workdir = tempfile.mkdtemp(prefix="gaol-it-%s-" % name)
        self.log_path = os.path.join(self.workdir, "stack.log")
        self.env = dict(os.environ)
        self.env.update({
            "BUILD": BUILD,
            "PORT": str(self.port),
            "RUN_CONCURRENCY": str(concurrency),
            "ALLOW_SHUTDOWN": "0",
            "RUN_UID_BASE": str(self.uid_base),
            "RUN_TIMEOUT_MAX": "60s",
            SECRET_NAME: SECRET_VALUE,
        })
        k, v = self.marker.split("=", 1)
        self.env[k] = v
        if env:
            for k, v in env.items():
                if v is None:
                    self.env.pop(k, None)
                else:
                    self.env[k] = v
        self.proc = None
        self.log = None
        self.pids_seen = {}
        self.stopped = False

    # -- life cycle

    def start(self, wait=True):
        self.log = open(self.log_path, "wb")
        self.answered = []          # (request id, method, path, status)
        _STACK_ON_PORT[self.port] = self
        self.proc = subprocess.Popen(
            [os.path.join(REPO, "nginx", "stack.sh")], cwd=REPO, env=self.env,
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_default_signals)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self):
        deadline = time.monotonic() + self.READY_TIMEOUT
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise StackError("%s: stack.sh exited with %s before /health answered:\n%s"
                                 % (self.name, self.proc.returncode, self.log_text()))
            try:
                r = request(self.port, "GET", self.env.get("GAOL_PREFIX", "") + "/health",
                            timeout=5)
                if r.status == 200:
                    # stack.sh polls /health too until it says it is ready:
                    # wait for that, or one of its polls could land in a
                    # test (and count in /metrics' exact increments).
                    while b"stack: ready:" not in (_read(self.log_path, "rb") or b""):
                        if self.proc.poll() is not None or time.monotonic() > deadline:
                            break
                        time.sleep(0.05)
                    self.remember_pids()
                    return r
                last = r
            except OSError as e:
                last = e
            time.sleep(0.1)
        raise StackError("%s: /health did not answer 200 within %.0fs (last: %r):\n%s"
                         % (self.name, self.READY_TIMEOUT, last, self.log_text()))

    def log_text(self):
        if self.log:
            self.log.flush()
        return (_read(self.log_path, "rb") or b"").decode("utf-8", "replace")[-6000:]

    def processes(self):
        """Our stack's live processes: {pid: (ppid, comm, uid, state)}."""
        return processes_with_env(self.marker)

    def remember_pids(self):
        self.pids_seen.update(self.processes())

    def fcgi_master(self):
        # stack.sh's own gaol-fcgi child. Not "a gaol-fcgi whose parent is
        # not one": a killed worker's sandbox init is reparented to pid 1
        # for the moment it takes the kernel to tear its namespaces down.
        procs = self.processes()
        masters = [p for p, v in procs.items() if v[1] == "gaol-fcgi"
                   and v[0] == self.proc.pid]
        if len(masters) != 1:
            raise AssertionError("expected one gaol-fcgi master, found %r in %r"
                                 % (masters, procs))
        return masters[0]

    def fcgi_workers(self):
        master = self.fcgi_master()
        return sorted(p for p, v in proc_table().items()
                      if v[0] == master and v[1] == "gaol-fcgi" and v[3] != "Z")

    def ready_workers(self, timeout=30.0):
        """The workers, once each has said it took its slot (DEBUG's "slot N:
        ready, pid P"; the stack must run with DEBUG=1).  /health can answer
        while a worker is still taking its slot, and a fault in that start-up
        stops the pool by design."""
        workers = self.fcgi_workers()
        deadline = time.monotonic() + timeout

        def said_ready(w):
            self.log.flush()
            with open(self.log_path, "rb") as f:
                return b"ready, pid %d\n" % w in f.read()
        while not all(said_ready(w) for w in workers):
            assert time.monotonic() < deadline, \
                "workers %r never said ready:\n%s" % (workers, self.log_text())
            time.sleep(0.1)
        return workers

    def socket_paths(self):
        """Unix sockets our processes listen on (from /proc/net/unix)."""
        inodes = set()
        for pid in self.pids_seen:
            try:
                for fd in os.listdir("/proc/%d/fd" % pid):
                    try:
                        t = os.readlink("/proc/%d/fd/%s" % (pid, fd))
                    except OSError:
                        continue
                    if t.startswith("socket:["):
                        inodes.add(t[8:-1])
            except OSError:
                pass
        paths = set()
        for line in (_read("/proc/net/unix") or "").splitlines()[1:]:
            f = line.split()
            if len(f) >= 8 and f[6] in inodes and f[7].startswith("/"):
                paths.add(f[7])
        return paths

    def fcgi_socket(self):
        """The pool's listening socket (stack.sh: $BUILD/run/gaol-$PORT.sock)."""
        self.remember_pids()
        for path in sorted(self.socket_paths()):
            # (not the master's own /health socket beside it)
            if path.endswith(".sock") and not path.endswith("-health.sock"):
                return path
        return os.path.join(BUILD_DIR, "run", "gaol-%d.sock" % self.port)

    def fcgi(self, method, uri, body=b"", headers=None, timeout=60.0):
        return fcgi_request(self.fcgi_socket(), method, uri, body, headers, timeout)

    def stop(self, sig=signal.SIGTERM, timeout=30.0):
        """Stops the stack as Ctrl-C / systemd would; returns leftovers."""
        if self.stopped:
            return
        self.stopped = True
        if self.proc.poll() is None:
            self.remember_pids()
            self.sockets = self.socket_paths()
            self.proc.send_signal(sig)
        else:
            self.sockets = set()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.diagnosis = self.diagnose()
        self.wait_gone(timeout=5)

    def diagnose(self):
        """What the stack's processes are doing (for a stop that hung)."""
        out = []
        for pid, v in sorted(self.processes().items()):
            st = _read("/proc/%d/status" % pid) or ""
            sig = " ".join(l.replace("\t", "") for l in st.splitlines()
                           if l.startswith(("SigBlk", "SigIgn", "SigCgt", "SigPnd", "ShdPnd")))
            out.append("%d %r wchan=%s %s" % (pid, v, _read("/proc/%d/wchan" % pid), sig))
        return "\n".join(out)

    def wait_gone(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.processes():
            time.sleep(0.1)

    def leftovers(self):
        """What a clean stop must not leave: processes, sockets."""
        problems = []
        if self.proc.poll() is None:
            problems.append("stack.sh (pid %d) still running; %s"
                            % (self.proc.pid, getattr(self, "diagnosis", "")))
        procs = self.processes()
        if procs:
            problems.append("processes left: %r" % procs)
        for path in getattr(self, "sockets", ()):
            if os.path.exists(path):
                problems.append("socket left: %s" % path)
        return problems

    def kill_all(self):
        """Last resort after a failed test: nothing of ours may stay behind."""
        for _ in range(3):
            procs = self.processes()
            if not procs:
                break
            for pid in procs:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.2)
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait(timeout=10)
        if self.log:
            self.log.close()
            self.log = None

    def stop_clean(self, sig=signal.SIGTERM):
        """Stops and asserts it stopped cleanly; cleans up regardless."""
        try:
            self.stop(sig)
            problems = self.leftovers()
            rc = self.proc.returncode
        finally:
            log = self.log_text()
            self.kill_all()
        assert not problems, "%s did not stop cleanly: %s\n%s" % (self.name, problems, log)
        return rc

    # -- conveniences

    def get(self, path, **kw):
        return request(self.port, "GET", path, **kw)

    def post(self, path, body=None, **kw):
        return request(self.port, "POST", path, body, **kw)

    def run(self, payload, **kw):
        return post_run(self.port, payload, **kw)

    def py(self, code, **kw):
        return py_run(self.port, code, **kw)

    def py_eval(self, code, timeout=None):
        return py_eval(self.port, code, timeout=timeout)

    def health(self):
        r = self.get("/health")
        assert r.status == 200, r
        return r.json()

    def installed(self):
        """Installed language slugs, as /health says them."""
        return installed_langs(self.health())


def fds_of(pid):
    try:
        return frozenset(int(fd) for fd in os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return frozenset()


def limit_fds_to_one_more(pids, timeout=10.0):
    """Lowers each process's RLIMIT_NOFILE so that it can open one more
    descriptor and no other: the limit is on fd numbers, so it is set just
    above the lowest free one.  Taken once the process's fd table stands
    still (two readings 100 ms apart agree): a worker still closing an
    answered connection would otherwise get room for two.  Returns the old
    limits, {pid: (soft, hard)}, to restore."""
    import resource
    old = {}
    for pid in pids:
        deadline = time.monotonic() + timeout
        fds = fds_of(pid)
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = fds_of(pid)
            if now == fds:
                break
            fds = now
        lowest_free = min(set(range(len(fds) + 1)) - fds)
        old[pid] = resource.prlimit(pid, resource.RLIMIT_NOFILE)
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (lowest_free + 1, old[pid][1]))
    return old


def own_langs(prefix, instance, uid_offset):
    """A generator for a pytest fixture: a temporary directory of the test's
    own (world-readable: the sandbox's UIDs read the languages in it) with an
    empty langs/ in it, and the environment for gaol-run on it (a state
    directory, instance and UIDs of the test's own).  Yields (tmp, env);
    removes both afterwards."""
    if os.geteuid() != 0:
        raise AssertionError("gaol-run needs root")
    tmp = tempfile.mkdtemp(prefix=prefix)
    os.chmod(tmp, 0o755)
    os.makedirs(os.path.join(tmp, "langs"))
    state = "/run/%s%d" % (prefix, os.getpid())
    env = dict(os.environ, GAOL_STATE_DIR=state, GAOL_INSTANCE="%s%d" % (instance, os.getpid()),
               RUN_UID_BASE=str(UID_BASE + uid_offset))
    try:
        yield tmp, env
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(["rm", "-rf", "--one-file-system", state], check=False)


def write_lang(langs, lang_json, makefile, files=None):
    """langs/<slug>: its lang.json, Makefile and other files ({name: (text,
    mode)}), with an empty check/.  The directory."""
    d = os.path.join(langs, lang_json["slug"])
    os.makedirs(os.path.join(d, "check"))
    with open(os.path.join(d, "lang.json"), "w") as f:
        json.dump(lang_json, f)
    with open(os.path.join(d, "Makefile"), "w") as f:
        f.write(makefile)
    for name, (text, mode) in (files or {}).items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(d, name), mode)
    return d


def installed_langs(health):
    """Finds the installed languages in a /health document, whichever shape
    the service chose: a list of slugs, or {slug: bool|{installed: bool}}."""
    for key in ("languages", "langs", "installed", "installed_languages"):
        v = health.get(key)
        if isinstance(v, list):
            out = set()
            for item in v:
                if isinstance(item, str):
                    out.add(item)
                elif isinstance(item, dict) and item.get("installed", True):
                    out.add(item.get("slug") or item.get("name"))
            return out
        if isinstance(v, dict):
            out = set()
            for slug, val in v.items():
                if val is True or (isinstance(val, dict) and val.get("installed")):
                    out.add(slug)
            return out
    raise AssertionError("/health names no installed languages: %r" % health)


def host_addresses():
    """The host's non-loopback IPv4 addresses (from /proc/net/fib_trie)."""
    addrs = set()
    lines = (_read("/proc/net/fib_trie") or "").splitlines()
    for i, line in enumerate(lines):
        if "/32 host LOCAL" in line and i > 0:
            a = lines[i - 1].split()[-1]
            if not a.startswith("127."):
                addrs.add(a)
    return sorted(addrs)


# ---------------------------------------------------------------- FastCGI

def _fcgi_record(rtype, req_id, content):
    out = b""
    for i in range(0, max(len(content), 1), 65535):
        chunk = content[i:i + 65535]
        pad = (8 - len(chunk) % 8) % 8
        out += bytes([1, rtype, req_id >> 8, req_id & 0xFF, len(chunk) >> 8,
                      len(chunk) & 0xFF, pad, 0]) + chunk + b"\0" * pad
        if not content:
            break
    return out


def _fcgi_pair(name, value):
    def length(n):
        return bytes([n]) if n < 128 else (n | 0x80000000).to_bytes(4, "big")
    name, value = name.encode(), value.encode()
    return length(len(name)) + length(len(value)) + name + value


def fcgi_request(sock_path, method, uri, body=b"", headers=None, timeout=60.0, source=None):
    """One request straight to gaol-fcgi's socket, past nginx, as nginx's
    fastcgi_params would send it.  sock_path is a unix socket's path or a
    TCP (host, port); source is the TCP client's own address.  Returns a
    Response (status 0 and no body when the server closed without one)."""
    params = {
        "REQUEST_METHOD": method, "REQUEST_URI": uri, "SCRIPT_NAME": uri.split("?")[0],
        "DOCUMENT_URI": uri.split("?")[0], "QUERY_STRING": "", "SERVER_PROTOCOL": "HTTP/1.1",
        "GATEWAY_INTERFACE": "CGI/1.1", "SERVER_SOFTWARE": "gaol-tests",
        "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": "1", "SERVER_ADDR": "127.0.0.1",
        "SERVER_PORT": "80", "SERVER_NAME": "localhost",
        "CONTENT_LENGTH": str(len(body)) if body else "",
        "CONTENT_TYPE": "application/json" if body else "",
    }
    for k, v in (headers or {}).items():
        key = k.upper().replace("-", "_")
        if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            key = "HTTP_" + key
        params[key] = v
    stream = b"".join(_fcgi_pair(k, v) for k, v in params.items())
    msg = _fcgi_record(1, 1, bytes([0, 1, 0, 0, 0, 0, 0, 0]))      # BEGIN_REQUEST, responder
    msg += _fcgi_record(4, 1, stream) + _fcgi_record(4, 1, b"")    # PARAMS
    msg += (_fcgi_record(5, 1, body) if body else b"") + _fcgi_record(5, 1, b"")  # STDIN
    t0 = time.monotonic()
    out = b""
    family = socket.AF_UNIX if isinstance(sock_path, str) else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        if source:
            s.bind((source, 0))
        s.connect(sock_path)
        try:
            s.sendall(msg)
        except (BrokenPipeError, ConnectionResetError):
            pass
        buf = b""
        while True:
            try:
                data = s.recv(65536)
            except ConnectionResetError:
                break
            if not data:
                break
            buf += data
        while len(buf) >= 8:
            rtype = buf[1]
            clen = (buf[4] << 8) | buf[5]
            pad = buf[6]
            content = buf[8:8 + clen]
            buf = buf[8 + clen + pad:]
            if rtype == 6:          # STDOUT
                out += content
            elif rtype == 3:        # END_REQUEST
                break
    if not out:
        return Response(0, {}, b"", time.monotonic() - t0)
    head, _, body_out = out.partition(b"\r\n\r\n")
    hdrs = {}
    status = 200
    for line in head.decode("latin-1").split("\r\n"):
        k, _, v = line.partition(":")
        if k.lower() == "status":
            status = int(v.strip().split()[0])
        elif k:
            hdrs[k.lower()] = v.strip()
    return Response(status, hdrs, body_out, time.monotonic() - t0)


# ---------------------------------------------------------------- the host after an attack

def _memory_cgroup(pid):
    """The memory cgroup path of pid (v1's memory line, else v2's)."""
    v2 = None
    for line in (_read("/proc/%s/cgroup" % pid) or "").splitlines():
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            return path
        if controllers == "":
            v2 = path
    return v2


def slot_cgroup_procs(lo, hi):
    """{slot cgroup dir: [pids]} of slot UIDs lo..hi-1 that hold a process
    of ours: one in this process's memory cgroup or below it.  (Several
    test sessions may share this machine and, with pid-derived UIDs, a slot
    UID; on a v1 host their stacks then share the pids, cpu and cpuacct
    cgroups gaol/uidN, while each keeps its own memory cgroup.)"""
    import glob
    mine = (_memory_cgroup("self") or "/").rstrip("/") + "/"
    out = {}
    for uid in range(lo, hi):
        for pattern in ("/sys/fs/cgroup/*/**/gaol/uid%d" % uid, "/sys/fs/cgroup/**/gaol/uid%d" % uid):
            for d in glob.glob(pattern, recursive=True):
                pids = [int(p) for p in (_read(os.path.join(d, "cgroup.procs")) or "").split()]
                pids = [p for p in pids if ((_memory_cgroup(p) or "") + "/").startswith(mine)]
                if pids:
                    out[d] = pids
    return out


def host_left_clean(stack, mounts_before):
    """What a stopped stack left on the host: processes of its slot UIDs or
    of the stack, processes in its slot cgroups, mounts of its own paths that
    were not there before (or are gone).  [] when the host is as it was."""
    # The slots', the self-check's and their checkers' and interactors'
    # UIDs (docs/api.md, RUN_UID_BASE).
    lo, hi = stack.uid_base, stack.uid_base + 2 * stack.concurrency + 2
    problems = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (processes_of_uids(lo, hi) or stack.processes()
                                           or slot_cgroup_procs(lo, hi)):
        time.sleep(0.1)
    if processes_of_uids(lo, hi):
        problems.append("processes of slot UIDs: %r" % processes_of_uids(lo, hi))
    if stack.processes():
        problems.append("processes of the stack: %r" % stack.processes())
    if slot_cgroup_procs(lo, hi):
        problems.append("processes in the slot cgroups: %r" % slot_cgroup_procs(lo, hi))
    # Mounts this stack could have left: under its state directory, its
    # build or its work directory.  (The machine is shared: other programs'
    # mounts come and go meanwhile and are not evidence.)
    ours = (os.environ.get("GAOL_STATE_DIR", "/run/gaol"), REPO, stack.workdir)
    before = list(mounts_before)
    added, removed = [], []
    for m in mountinfo():
        if m in before:
            before.remove(m)
        elif any(p in m for p in ours):
            added.append(m)
    removed = [m for m in before if any(p in m for p in ours)]
    if added or removed:
        problems.append("mounts changed: added %r, removed %r" % (added, removed))
    return problems


def request_log_lines(path):
    """The request log's lines in a stack's log file: {request_id: [line, ...]}."""
    by_id = {}
    if not os.path.exists(path):
        return by_id
    with open(path, "rb") as f:
        for raw in f:
            raw = raw.strip()
            if not raw.startswith(b"{"):
                continue
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict) and "request_id" in line:
                by_id.setdefault(line["request_id"], []).append(line)
    return by_id
