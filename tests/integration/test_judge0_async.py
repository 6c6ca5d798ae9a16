# SPDX-License-Identifier: Apache-2.0
"""Judge0's asynchronous side on gaol (issue 32): tokens, the on-disk queue,
batches, callbacks, the queue's bound, a master killed with work queued.

Each case cites the page of Judge0's documentation it follows
(github.com/judge0/judge0, docs/api/submissions/*.md) or the line of its
submissions controller (app/controllers/submissions_controller.rb).  One stack
serves the module (3 slots, one of which serves the queue); the kill test
restarts a stack of its own on the same queue directory.
"""
import base64
import http.server
import json
import os
import re
import signal
import threading
import time
import uuid

import pytest

import gaol_helpers as gh

HOST_ID = 5
TOKEN_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-%04x[0-9a-f]{8}$"
                      % HOST_ID)
PY = 71       # Judge0 CE's "Python (3.8.1)"


class Callbacks:
    """A local listener for Judge0's callback PUTs (submissions.md,
    callback_url): every request's method, path and JSON body."""

    def __init__(self):
        self.got = []
        self.cond = threading.Condition()
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            def do_PUT(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n)
                with outer.cond:
                    outer.got.append((self.command, self.path,
                                      self.headers.get("Content-Type"), body))
                    outer.cond.notify_all()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait(self, n, timeout=60.0):
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.got) < n and time.monotonic() < deadline:
                self.cond.wait(0.2)
            return list(self.got)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def listener():
    cb = Callbacks()
    yield cb
    cb.close()


@pytest.fixture(scope="module")
def queue_dir():
    d = "/tmp/gaol-it-queue-%s" % uuid.uuid4().hex[:12]
    yield d
    import shutil
    shutil.rmtree(d, ignore_errors=True)


def async_env(queue_dir, callback_port, **more):
    env = {
        "RUN_QUEUE_SLOTS": "1",
        "RUN_QUEUE_DIR": queue_dir,
        "RUN_QUEUE_MAX": "100",
        "RUN_HOST_ID": str(HOST_ID),
        "RUN_CALLBACK_ALLOW": "127.0.0.1:%d" % callback_port,
    }
    env.update(more)
    return env


@pytest.fixture(scope="module")
def jstack(session_stack, stacks_started, listener, queue_dir):
    """The module's stack: 3 slots, the last serving the queue."""
    session_stack.pause()
    s = gh.Stack("judge0-async", env=async_env(queue_dir, listener.port),
                 concurrency=3, uid_base=gh.UID_BASE + 100 * (len(stacks_started) + 1))
    stacks_started.append(s)
    try:
        s.start()
    except Exception:
        s.kill_all()
        raise
    yield s
    s.stop_clean()


def submit(s, body, query=""):
    return s.post("/submissions" + query, body)


def token_of(r):
    assert r.status == 201, r
    t = r.json()["token"]
    assert TOKEN_RE.match(t), t
    return t


def poll(s, token, timeout=60.0, query=""):
    """GET /submissions/{token} until its status is neither In Queue (1)
    nor Processing (2) (get_a_submission.md)."""
    deadline = time.monotonic() + timeout
    while True:
        r = s.get("/submissions/%s%s" % (token, query))
        assert r.status == 200, r
        doc = r.json()
        if doc["status"]["id"] not in (1, 2):
            return doc
        assert time.monotonic() < deadline, "still %r" % doc
        time.sleep(0.1)


def py(code, stdin=None, **more):
    d = {"language_id": PY, "source_code": code}
    if stdin is not None:
        d["stdin"] = stdin
    d.update(more)
    return d


def queue_files(queue_dir, state):
    return sorted(os.listdir(os.path.join(queue_dir, state)))


# ------------------------------------------------------------ create and get

def test_wait_false_answers_a_token_at_once_and_the_result_is_polled(jstack):
    """create_a_submission.md: wait=false (the default) answers 201 with the
    token alone; get_a_submission.md: the token's submission, In Queue or
    Processing until it ends."""
    r = submit(jstack, py("print(input()[::-1])", "gaol"))
    t = token_of(r)
    assert list(r.json()) == ["token"]
    doc = poll(jstack, t)
    assert doc["status"] == {"id": 3, "description": "Accepted"}
    assert doc["stdout"] == "loag\n"
    assert doc["token"] == t


def test_the_default_fields_and_fields_asked_for(jstack):
    """get_a_submission.md: `fields` picks the attributes; the default list
    is stdout, time, memory, stderr, token, compile_output, message, status."""
    t = token_of(submit(jstack, py("print(6*7)")))
    doc = poll(jstack, t)
    assert set(doc) == {"stdout", "time", "memory", "stderr", "token",
                        "compile_output", "message", "status"}
    r = jstack.get("/submissions/%s?fields=stdout,status" % t)
    assert r.status == 200, r
    assert set(r.json()) == {"stdout", "status"}
    assert r.json()["stdout"] == "42\n"


def test_base64_encoded_get(jstack):
    """get_a_submission.md: base64_encoded=true answers the byte fields in
    base64."""
    t = token_of(submit(jstack, py("print('hi')")))
    poll(jstack, t)
    r = jstack.get("/submissions/%s?base64_encoded=true" % t)
    assert r.status == 200, r
    assert base64.b64decode(r.json()["stdout"]) == b"hi\n"


def test_a_submission_judge0_refuses_is_422_and_nothing_queued(jstack, queue_dir):
    """create_a_submission.md: a submission that fails validation is 422
    with Judge0's {"field": ["message"]} object; nothing is queued."""
    before = queue_files(queue_dir, "done") + queue_files(queue_dir, "queued")
    r = submit(jstack, {"language_id": 123456789, "source_code": "x"})
    assert r.status == 422, r
    assert "language_id" in r.json()
    assert queue_files(queue_dir, "done") + queue_files(queue_dir, "queued") == before


# ------------------------------------------------------------ tokens

@pytest.mark.parametrize("token", [
    "not-a-token",
    "ZZZZZZZZ-0000-7000-8000-000500000000",      # not hex
    "00000000-0000-7000-8000-0005000000",          # short
    "%2e%2e%2fqueued",
])
def test_a_malformed_token_is_404_and_touches_nothing(jstack, token):
    """get_a_submission.md: a token Judge0 does not hold is 404."""
    r = jstack.get("/submissions/" + token)
    assert r.status in (404,), r


def test_a_token_of_another_host_is_404_naming_that_host(jstack):
    """A token names the host that holds it (RUN_HOST_ID); another host's
    is not looked up here: 404 (a front routes it to its host)."""
    t = token_of(submit(jstack, py("print(1)")))
    other = t[:24] + "%04x" % (HOST_ID + 1) + t[28:]
    r = jstack.get("/submissions/" + other)
    assert r.status == 404, r
    assert "host %d" % (HOST_ID + 1) in r.json()["error"]
    poll(jstack, t)


def test_an_unknown_token_of_this_host_is_404(jstack):
    t = token_of(submit(jstack, py("print(1)")))
    unknown = t[:28] + "00000000"
    r = jstack.get("/submissions/" + unknown)
    assert r.status == 404, r
    poll(jstack, t)


def test_a_wait_true_submission_is_kept_under_its_token(jstack, queue_dir):
    """create_a_submission.md: wait=true answers the whole submission with
    its token; Judge0 keeps every submission, so get_a_submission.md and
    delete_a_submission.md work on that token too (a token of this host,
    its result in done/, swept as the others)."""
    r = submit(jstack, py("print(input()*2)", "ab"), "?wait=true")
    t = token_of(r)
    assert r.json()["stdout"] == "abab\n", r.json()
    assert t in queue_files(queue_dir, "done")
    doc = jstack.get("/submissions/%s?fields=stdout,status,token" % t).json()
    assert doc == {"stdout": "abab\n", "status": {"id": 3, "description": "Accepted"},
                   "token": t}, doc
    r = gh.request(jstack.port, "DELETE", "/submissions/%s" % t)
    assert r.status == 200 and base64.b64decode(r.json()["stdout"]) == b"abab\n", r
    assert jstack.get("/submissions/%s" % t).status == 404


# ------------------------------------------------------------ delete

def test_delete_a_finished_submission_then_it_is_gone(jstack, queue_dir):
    """delete_a_submission.md: 200 with the submission, base64_encoded
    forced true; afterwards the token is unknown."""
    t = token_of(submit(jstack, py("print('bye')")))
    poll(jstack, t)
    r = gh.request(jstack.port, "DELETE", "/submissions/%s" % t)
    assert r.status == 200, r
    assert base64.b64decode(r.json()["stdout"]) == b"bye\n"
    assert r.json()["token"] == t
    assert t not in queue_files(queue_dir, "done")
    r = jstack.get("/submissions/%s" % t)
    assert r.status == 404, r


def test_delete_of_a_queued_submission_is_400(jstack):
    """delete_a_submission.md: "submission cannot be deleted because its
    status is 1 (In Queue)" (or 2, Processing)."""
    busy = token_of(submit(jstack, py("import time; time.sleep(2)")))
    waiting = token_of(submit(jstack, py("print(2)")))
    r = gh.request(jstack.port, "DELETE", "/submissions/%s" % waiting)
    assert r.status == 400, r
    assert re.match(r"submission cannot be deleted because its status is [12] "
                    r"\((In Queue|Processing)\)$", r.json()["error"]), r
    assert poll(jstack, busy)["status"]["id"] == 3
    assert poll(jstack, waiting)["stdout"] == "2\n"


# ------------------------------------------------------------ batches

def test_batch_create_and_get(jstack):
    """create_a_submission_batch.md: 201, a token or the element's errors
    each; get_a_submission_batch.md: {"submissions": [...]} in the tokens'
    order, null for a token not held here."""
    r = jstack.post("/submissions/batch", {"submissions": [
        py("print('a')"), {"language_id": 123456789, "source_code": "x"}, py("print('c')")]})
    assert r.status == 201, r
    out = r.json()
    assert len(out) == 3
    a, c = out[0]["token"], out[2]["token"]
    assert TOKEN_RE.match(a) and TOKEN_RE.match(c)
    assert "language_id" in out[1]
    poll(jstack, a)
    poll(jstack, c)
    unknown = a[:28] + "00000000"
    r = jstack.get("/submissions/batch?tokens=%s,%s,%s&fields=stdout,status" % (a, unknown, c))
    assert r.status == 200, r
    subs = r.json()["submissions"]
    assert [s and s["stdout"] for s in subs] == ["a\n", None, "c\n"]


def test_a_batch_of_only_invalid_submissions_is_422(jstack):
    """submissions_controller.rb batch_create: 422 when no element was valid."""
    r = jstack.post("/submissions/batch", {"submissions": [
        {"language_id": 123456789, "source_code": "x"}]})
    assert r.status == 422, r


def test_a_batch_over_its_bound_or_empty_is_400(jstack):
    """submissions_controller.rb: "number of submissions in a batch should
    be less than or equal to 20" (RUN_BATCH_MAX, Judge0's default 20), and
    "there should be at least one submission in a batch"."""
    r = jstack.post("/submissions/batch", {"submissions": [py("print(1)")] * 21})
    assert r.status == 400, r
    assert r.json()["error"] == ("number of submissions in a batch should be less "
                                 "than or equal to 20")
    r = jstack.post("/submissions/batch", {"submissions": []})
    assert r.status == 400, r
    assert r.json()["error"] == "there should be at least one submission in a batch"
    toks = ",".join(["%08x-0000-7000-8000-000500000000" % i for i in range(21)])
    r = jstack.get("/submissions/batch?tokens=" + toks)
    assert r.status == 400, r


# ------------------------------------------------------------ callbacks

def test_a_callback_is_put_to_an_allowed_url(jstack, listener):
    """submissions.md, callback_url: Judge0 PUTs the submission there when
    it is done (isolate_job.rb: base64_encoded true, the default fields)."""
    n = len(listener.got)
    url = "http://127.0.0.1:%d/hook/%s" % (listener.port, uuid.uuid4().hex)
    t = token_of(submit(jstack, py("print('called back')", callback_url=url)))
    got = listener.wait(n + 1)
    mine = [g for g in got if g[1] == url.split(str(listener.port))[1]]
    assert len(mine) == 1, got
    method, path, ctype, body = mine[0]
    assert method == "PUT" and ctype == "application/json"
    doc = json.loads(body)
    assert doc["token"] == t
    assert doc["status"]["id"] == 3
    assert base64.b64decode(doc["stdout"]) == b"called back\n"
    m = jstack.get("/metrics").body.decode()
    assert re.search(r"^gaol_callbacks_sent_total [1-9]", m, re.M), m


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:1/elsewhere",              # a port not allowed
    "http://169.254.169.254/latest/meta-data",   # a host not allowed
    "file:///etc/passwd",
    "http://user@127.0.0.1:%PORT%/x",
])
def test_a_callback_url_not_allowed_is_422_and_nothing_queued(jstack, listener, queue_dir, url):
    """RUN_CALLBACK_ALLOW: any other target is Judge0's validation 422,
    {"callback_url": [...]}; nothing is queued or run."""
    url = url.replace("%PORT%", str(listener.port))
    before = queue_files(queue_dir, "queued") + queue_files(queue_dir, "done")
    r = submit(jstack, py("print(1)", callback_url=url))
    assert r.status == 422, r
    assert list(r.json()) == ["callback_url"] and r.json()["callback_url"], r
    assert queue_files(queue_dir, "queued") + queue_files(queue_dir, "done") == before


# ------------------------------------------------------------ /metrics

def test_metrics_show_the_queue(jstack):
    m = jstack.get("/metrics").body.decode()
    for name in ("gaol_queue_depth", "gaol_queue_wait_milliseconds_count",
                 "gaol_results_kept", "gaol_results_bytes",
                 "gaol_callbacks_sent_total", "gaol_callbacks_failed_total"):
        assert re.search(r"^%s \d+" % name, m, re.M), name
    assert re.search(r"^gaol_queue_wait_milliseconds_count [1-9]", m, re.M)
    # Judge0's information routes are counted by route, as every other.
    before = re.search(r'^gaol_requests_total\{route="/languages/\*",status="200"\} (\d+)',
                       m, re.M)
    assert jstack.get("/languages/71").status == 200
    assert jstack.get("/statuses").status == 200
    m = jstack.get("/metrics").body.decode()
    after = re.search(r'^gaol_requests_total\{route="/languages/\*",status="200"\} (\d+)',
                      m, re.M)
    assert after and int(after.group(1)) == (int(before.group(1)) if before else 0) + 1, m
    assert re.search(r'^gaol_requests_total\{route="/statuses",status="200"\} [1-9]', m, re.M)


# ------------------------------------------------------------ bound, load, kill

def test_the_queue_past_its_bound_is_503_then_accepts_again(make_stack, listener):
    """submissions_controller.rb check_queue_size: 503 {"error": "queue is
    full"}, worded apart from the pool's stop ("shutting down")."""
    d = "/tmp/gaol-it-queue-%s" % uuid.uuid4().hex[:12]
    try:
        s = make_stack("judge0-bound", env=async_env(d, listener.port, RUN_QUEUE_MAX="3"),
                       concurrency=2)
        toks = [token_of(submit(s, py("import time; time.sleep(1)"))) for _ in range(3)]
        r = submit(s, py("print(1)"))
        assert r.status == 503, r
        assert r.json() == {"error": "queue is full"}
        r = s.post("/submissions/batch", {"submissions": [py("print(1)")]})
        assert r.status == 503, r
        for t in toks:
            poll(s, t)
        t = token_of(submit(s, py("print('again')")))
        assert poll(s, t)["stdout"] == "again\n"
    finally:
        import shutil
        shutil.rmtree(d, ignore_errors=True)


def load(s, n, clients, code):
    """n submissions of code (stdin: its number) from `clients` threads; a
    503 (queue full) or a 429 (nginx's limit_conn: every HTTP worker busy
    taking a submission) is retried after a pause, as a Judge0 client does.
    Returns {token: number} and the 503s and 429s seen."""
    results, lock, full = {}, threading.Lock(), [0]
    errors = []

    def client(k):
        try:
            for i in range(k, n, clients):
                while True:
                    r = submit(s, py(code, str(i)))
                    if r.status not in (429, 503):
                        break
                    with lock:
                        full[0] += 1
                    time.sleep(0.2)
                t = token_of(r)
                with lock:
                    results[t] = i
        except Exception as e:   # noqa: BLE001 - reported below
            errors.append(repr(e))
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results, full[0]


def test_many_asynchronous_submissions_from_four_clients_all_answered(jstack):
    """Load (short form; `make soak` runs 1,000): 100 submissions from 4
    clients, every token answered, each with its own correct output."""
    n = int(os.environ.get("GAOL_JUDGE0_LOAD", "100"))
    results, full = load(jstack, n, 4, "print(int(input())*3)")
    assert len(results) == n
    for t, i in results.items():
        doc = poll(jstack, t, timeout=300)
        assert doc["status"]["id"] == 3, doc
        assert doc["stdout"] == "%d\n" % (i * 3), (t, i, doc)


def test_a_master_killed_with_work_queued_runs_it_after_the_restart(make_stack, listener):
    """Every accepted token ends with exactly one result: the master is
    SIGKILLed halfway through (its workers and the run in progress die with
    it), a new one starts on the same RUN_QUEUE_DIR, queues again what was
    running and runs everything left."""
    n = int(os.environ.get("GAOL_JUDGE0_KILL_LOAD", "40"))
    d = "/tmp/gaol-it-queue-%s" % uuid.uuid4().hex[:12]
    try:
        env = async_env(d, listener.port, RUN_QUEUE_MAX=str(n + 10))
        s = make_stack("judge0-kill", env=env, concurrency=2)
        toks = {}
        for i in range(n):
            toks[token_of(submit(s, py("import time; time.sleep(0.1); print(int(input())+1)",
                                       str(i))))] = i
        # Halfway: some done, one running, the rest queued.
        deadline = time.monotonic() + 120
        while len(queue_files(d, "done")) < n // 2:
            assert time.monotonic() < deadline, queue_files(d, "done")
            time.sleep(0.05)
        running = queue_files(d, "running")
        os.kill(s.fcgi_master(), signal.SIGKILL)
        s.proc.wait(timeout=30)
        s.wait_gone(timeout=10)
        assert not s.processes(), s.processes()
        s.stopped = True
        left = queue_files(d, "queued") + queue_files(d, "running")
        assert left, "nothing left to run after the kill"

        s2 = make_stack("judge0-kill-2", env=env, concurrency=2,
                        uid_base=s.uid_base)
        if running:
            assert "running when the service last stopped are queued again" \
                in s2.log_text(), s2.log_text()
        for t, i in toks.items():
            doc = poll(s2, t, timeout=300)
            assert doc["status"]["id"] == 3, doc
            assert doc["stdout"] == "%d\n" % (i + 1), (t, i, doc)
        assert sorted(queue_files(d, "done")) == sorted(toks)
        assert queue_files(d, "queued") == [] and queue_files(d, "running") == []
    finally:
        import shutil
        shutil.rmtree(d, ignore_errors=True)
