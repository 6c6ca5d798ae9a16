# SPDX-License-Identifier: Apache-2.0
"""Simulated gaol hosts on this machine, for `make test-cluster`.

Topology (everything named gcl*, every address only inside these namespaces):

    gclfront  bridge gclbr0, 10.77.0.1/24 (front 1) and 10.77.0.2/24 (front 2)
      |-- gclh1b ====veth==== gclh1a  10.77.0.11/24  in namespace gclh1
      |-- gclh2b ====veth==== gclh2a  10.77.0.12/24  in namespace gclh2
      '-- gclh3b ====veth==== gclh3a  10.77.0.13/24  in namespace gclh3

Each host runs its own gaol instance (GAOL_INSTANCE gcl-hN, its own
RUN_UID_BASE and state directory) as `spawn-fcgi -a 10.77.0.1N -p PORT --
gaol-fcgi`, with FCGI_WEB_SERVER_ADDRS the two fronts' addresses.  The fronts
are nginx, configured by nginx/cluster/render.sh, inside gclfront; they listen
on unix sockets, which the test reaches from the root namespace through the
shared file system, so no address is ever added outside the namespaces.

Processes enter a namespace with `nsenter --net` (network only): `ip netns
exec` would also give them a fresh /sys without /sys/fs/cgroup.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import gaol_helpers as gh  # noqa: E402

NS_FRONT = "gclfront"
BRIDGE = "gclbr0"
FRONT_ADDRS = ("10.77.0.1", "10.77.0.2")
FCGI_PORT = 18600
SLOTS = 3
UID_BASE = 60001           # host i: UID_BASE + 10 * i, SLOTS UIDs each
# State directories, logs and the fronts' configurations (kept for a look
# after a failure; the state directories are removed at the end).
STATE = os.environ.get("GAOL_CLUSTER_STATE", "/run/gaol-test-cluster")
RUN_TIMEOUT_MAX = "20s"


def sh(*argv, check=True):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if check and p.returncode != 0:
        raise RuntimeError("%s: rc %d: %s%s" % (" ".join(argv), p.returncode, p.stdout, p.stderr))
    return p


def netns_list():
    return [l.split()[0] for l in sh("ip", "netns", "list").stdout.splitlines() if l.strip()]


class Host:
    def __init__(self, index):
        self.index = index
        self.ns = "gclh%d" % index
        self.veth_in = "gclh%da" % index      # inside the host's namespace
        self.veth_front = "gclh%db" % index   # in gclfront, on the bridge
        self.addr = "10.77.0.%d" % (10 + index)
        self.fcgi = "%s:%d" % (self.addr, FCGI_PORT)
        self.instance = "gcl-h%d" % index
        self.uid_base = UID_BASE + 10 * (index - 1)
        self.state_dir = os.path.join(STATE, self.instance)
        self.proc = None
        self.log_path = os.path.join(STATE, "%s.log" % self.instance)

    def env(self):
        env = {k: v for k, v in os.environ.items()
               if k in ("PATH", "LANG", "LC_ALL", "TZ", "GAOL_CLUSTER_TEST")}
        env.update({
            "GAOL_INSTANCE": self.instance,
            "GAOL_STATE_DIR": self.state_dir,
            "GAOL_LANGS_DIR": os.path.join(gh.REPO, "langs"),
            "RUN_UID_BASE": str(self.uid_base),
            # One more slot, serving Judge0's queue: SLOTS still take HTTP.
            "RUN_CONCURRENCY": str(SLOTS + 1),
            "RUN_QUEUE_SLOTS": "1",
            "RUN_HOST_ID": str(self.index),
            "RUN_TIMEOUT_MAX": RUN_TIMEOUT_MAX,
            "FCGI_WEB_SERVER_ADDRS": ",".join(FRONT_ADDRS),
        })
        return env

    def start(self):
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            ["nsenter", "--net=/run/netns/%s" % self.ns, "spawn-fcgi", "-n", "-a", self.addr,
             "-p", str(FCGI_PORT), "--", os.path.join(gh.BUILD_DIR, "gaol-fcgi")],
            env=self.env(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
        log.close()

    def wait_ready(self, timeout=120):
        """GET /health over FastCGI from inside the front's namespace."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("%s exited %s:\n%s" % (self.instance, self.proc.returncode,
                                                          self.log_tail()))
            if self.health_ok():
                return
            time.sleep(0.3)
        raise RuntimeError("%s: no /health within %ds:\n%s" % (self.instance, timeout,
                                                              self.log_tail()))

    def health_ok(self):
        code = ("import sys; sys.path.insert(0, %r); import gaol_helpers as gh; "
                "r = gh.fcgi_request((%r, %d), 'GET', '/health', source=%r, timeout=3); "
                "sys.exit(0 if r.status == 200 else 1)"
                % (os.path.join(HERE, "..", "integration"), self.addr, FCGI_PORT, FRONT_ADDRS[0]))
        p = subprocess.run(["nsenter", "--net=/run/netns/%s" % NS_FRONT, sys.executable, "-c", code],
                           capture_output=True, timeout=20)
        return p.returncode == 0

    def master(self):
        return self.proc.pid if self.proc and self.proc.poll() is None else None

    def kill_master(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self, timeout=60):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def link(self, up):
        sh("ip", "-n", self.ns, "link", "set", self.veth_in, "up" if up else "down")

    def log_tail(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-4000:].decode("utf-8", "replace")
        except OSError:
            return ""


class Front:
    def __init__(self, index, hosts, slots_share):
        self.index = index
        self.addr = FRONT_ADDRS[index - 1]
        self.dir = os.path.join(STATE, "front%d" % index)
        self.conf = os.path.join(self.dir, "conf")
        self.prefix = os.path.join(self.dir, "prefix")
        self.sock = os.path.join(self.dir, "front.sock")
        self.hosts = hosts
        self.slots_share = slots_share
        self.proc = None

    def render(self):
        env = dict(os.environ, GAOL_FRONT_LISTEN="unix:" + self.sock,
                   GAOL_FRONT_PREFIX=self.prefix, GAOL_FRONT_BIND=self.addr,
                   GAOL_FRONT_USER="user www-data www-data;",
                   RUN_TIMEOUT_MAX=RUN_TIMEOUT_MAX)
        p = subprocess.run([os.path.join(gh.REPO, "nginx", "cluster", "render.sh"), self.conf]
                           + ["%s:%d" % (h.fcgi, self.slots_share) for h in self.hosts],
                           env=env, capture_output=True, text=True, timeout=30)
        if p.returncode != 0:
            raise RuntimeError("render.sh: %s%s" % (p.stdout, p.stderr))

    def start(self):
        self.render()
        log = open(os.path.join(self.dir, "nginx.out"), "ab")
        self.proc = subprocess.Popen(
            ["nsenter", "--net=/run/netns/%s" % NS_FRONT, "nginx", "-e", "stderr",
             "-p", self.prefix + "/", "-c", os.path.join(self.conf, "nginx.conf"),
             "-g", "daemon off;"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
        log.close()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("front %d: nginx exited:\n%s" % (self.index, self.out()))
            if os.path.exists(self.sock):
                try:
                    if self.request("GET", "/health", timeout=10)[0] == 200:
                        return
                except OSError:
                    pass
            time.sleep(0.2)
        raise RuntimeError("front %d did not answer:\n%s" % (self.index, self.out()))

    def out(self):
        try:
            with open(os.path.join(self.dir, "nginx.out"), "rb") as f:
                return f.read()[-4000:].decode("utf-8", "replace")
        except OSError:
            return ""

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGQUIT)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def request(self, method, path, body=None, headers=None, timeout=60.0):
        """HTTP/1.0 over the front's unix socket: (status, headers, body)."""
        data = body if body is not None else b""
        head = "%s %s HTTP/1.0\r\nHost: front\r\n" % (method, path)
        for k, v in (headers or {}).items():
            head += "%s: %s\r\n" % (k, v)
        if body is not None:
            head += "Content-Type: application/json\r\nContent-Length: %d\r\n" % len(data)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(self.sock)
            s.sendall(head.encode() + b"\r\n" + data)
            buf = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        head, _, payload = buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        hdrs = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            hdrs[k.strip().lower()] = v.strip()
        return status, hdrs, payload

    def health(self):
        status, _, body = self.request("GET", "/health", timeout=15)
        assert status == 200, (status, body)
        return json.loads(body)

    LOG_RE = re.compile(r'^\S+ (?P<msec>[\d.]+) \S+ "(?P<req>[^"]*)" (?P<status>\d+) '
                        r'upstream="(?P<up>[^"]*)" upstream_status="(?P<ups>[^"]*)" '
                        r'connect="(?P<conn>[^"]*)" request_time=(?P<rt>[\d.]+) '
                        r'test_id="(?P<id>[^"]*)"$')

    def access_log(self):
        """{test_id: {...}} of the front's access log."""
        out = {}
        try:
            with open(os.path.join(self.prefix, "logs", "access.log")) as f:
                for line in f:
                    m = self.LOG_RE.match(line.strip())
                    if not m or m.group("id") in ("", "-"):
                        continue
                    d = m.groupdict()
                    d["end"] = float(d["msec"])
                    d["start"] = d["end"] - float(d["rt"])
                    d["tried"] = [a.strip() for a in re.split(r"[,:] (?=\S)", d["up"])
                                  if a.strip()] if d["up"] != "-" else []
                    out[d["id"]] = d
        except OSError:
            pass
        return out


# ---------------------------------------------------------------- load

class Result:
    __slots__ = ("id", "front", "start", "end", "status", "body", "ok", "error")

    def __init__(self, rid, front):
        self.id, self.front = rid, front
        self.start = self.end = None
        self.status, self.body, self.ok, self.error = None, b"", False, None

    def json_error(self):
        try:
            doc = json.loads(self.body)
        except ValueError:
            return False
        return isinstance(doc, dict) and isinstance(doc.get("error"), str) and len(doc) == 1


class Load:
    """`clients` threads per front, each sending POST /run one after the other
    (a Python program that sleeps `sleep_s` and computes n*2) until stopped;
    every answer is checked."""

    def __init__(self, fronts, clients, sleep_s=0.3, max_requests=5000):
        self.fronts = fronts
        self.clients = clients
        self.sleep_s = sleep_s
        self.max_requests = max_requests
        self.results = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = []
        self.counter = 0

    def _next(self, front):
        with self.lock:
            if self.counter >= self.max_requests:
                return None
            self.counter += 1
            r = Result("gcl-%d-%d" % (os.getpid(), self.counter), front)
            self.results.append(r)
            return r

    def _client(self, front):
        while not self.stopping.is_set():
            r = self._next(front)
            if r is None:
                return
            n = int(r.id.rsplit("-", 1)[1])
            code = gh.py_source("import time\ntime.sleep(%s)\nresult = %d * 2" % (self.sleep_s, n))
            body = json.dumps({"lang_slug": "python", "solution_text": code,
                               "timeout": "10s"}).encode()
            r.start = time.time()
            try:
                r.status, _, r.body = front.request("POST", "/run", body,
                                                    headers={"X-Gaol-Test-Id": r.id},
                                                    timeout=120)
            except OSError as e:
                r.error = repr(e)
            r.end = time.time()
            if r.status == 200:
                try:
                    doc = json.loads(r.body)
                    want = gh.MARK + json.dumps(n * 2) + gh.MARK
                    r.ok = doc.get("exit_code") == 0 and want in doc.get("stdout", "")
                except ValueError:
                    r.ok = False

    def start(self):
        for front in self.fronts:
            for _ in range(self.clients):
                t = threading.Thread(target=self._client, args=(front,), daemon=True)
                t.start()
                self.threads.append(t)
        return self

    def stop(self, timeout=120):
        self.stopping.set()
        for t in self.threads:
            t.join(timeout)
        return [t for t in self.threads if t.is_alive()]

    def between(self, t0, t1):
        return [r for r in self.results if r.start is not None and t0 <= r.start < t1]


# ---------------------------------------------------------------- topology

def create(hosts):
    sh("ip", "netns", "add", NS_FRONT)
    sh("ip", "-n", NS_FRONT, "link", "set", "lo", "up")
    sh("ip", "-n", NS_FRONT, "link", "add", BRIDGE, "type", "bridge")
    for a in FRONT_ADDRS:
        sh("ip", "-n", NS_FRONT, "addr", "add", a + "/24", "dev", BRIDGE)
    sh("ip", "-n", NS_FRONT, "link", "set", BRIDGE, "up")
    for h in hosts:
        sh("ip", "netns", "add", h.ns)
        sh("ip", "-n", h.ns, "link", "set", "lo", "up")
        # Both ends are made where they live: never in the root namespace.
        sh("ip", "-n", NS_FRONT, "link", "add", h.veth_front, "type", "veth",
           "peer", "name", h.veth_in, "netns", h.ns)
        sh("ip", "-n", NS_FRONT, "link", "set", h.veth_front, "master", BRIDGE)
        sh("ip", "-n", NS_FRONT, "link", "set", h.veth_front, "up")
        sh("ip", "-n", h.ns, "addr", "add", h.addr + "/24", "dev", h.veth_in)
        sh("ip", "-n", h.ns, "link", "set", h.veth_in, "up")


def destroy(hosts):
    """Deleting a namespace deletes its links (the veths, the bridge)."""
    for ns in [NS_FRONT] + [h.ns for h in hosts]:
        if ns in netns_list():
            sh("ip", "netns", "delete", ns, check=False)


def leftovers(hosts, fronts, pids):
    problems = []
    left_ns = [n for n in netns_list() if n.startswith("gcl")]
    if left_ns:
        problems.append("network namespaces left: %r" % left_ns)
    links = sh("ip", "-o", "link", "show").stdout
    if "gcl" in links:
        problems.append("links named gcl* in the root namespace: %s" % links)
    addrs = sh("ip", "-o", "addr", "show").stdout
    if "10.77." in addrs:
        problems.append("10.77.* addresses in the root namespace: %s" % addrs)
    alive = []
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(") ")[1][0] != "Z":
                    alive.append(pid)
        except OSError:
            pass
    if alive:
        problems.append("processes still running: %r" % alive)
    for h in hosts:
        left = gh.processes_of_uids(h.uid_base, h.uid_base + SLOTS)
        if left:
            problems.append("processes of %s's slot UIDs: %r" % (h.instance, left))
        cgs = cgroups_of(h.instance)
        if cgs:
            problems.append("cgroups of %s: %r" % (h.instance, cgs))
    return problems


def cgroups_of(instance):
    out = []
    for root, dirs, _ in os.walk("/sys/fs/cgroup"):
        if os.path.basename(root) == instance:
            out.append(root)
            dirs[:] = []
    return out


def remove_instance_parents(instance):
    """The instance's cgroup parents, which gaol leaves (empty) when it stops.
    rmdir fails on a cgroup that still holds a slot or a process: those stay,
    and leftovers() reports them."""
    for path in sorted(cgroups_of(instance), key=len, reverse=True):
        try:
            os.rmdir(path)
        except OSError:
            pass
