# SPDX-License-Identifier: Apache-2.0
"""`make test-cluster`: three gaol hosts on this machine (network namespaces
with veth links, see cluster.py), each its own gaol instance on FastCGI over
TCP, behind nginx fronts configured by nginx/cluster/render.sh.  A bounded
load runs through the front while a host's master is SIGKILLed and while a
host's link is cut: only requests in flight on that host may fail, each with
a JSON error, every other request gets 200 with its program's right answer,
and throughput goes on; the host then rejoins.  A second front shares the
hosts.  429 comes only when every host is full.  Nothing is left behind.

The tests run in order on one cluster (module fixture); the figures (requests
sent, answered 200 and 502, how long the front took to stop using a dead
host) are printed and written to $BUILD/cluster-figures.json."""

import json
import os
import shutil
import threading
import time
import uuid

import pytest

import cluster as cl
from cluster import gh

LOAD_CLIENTS = 6        # two hosts' slots: the load fits when one host is gone
FIGURES = {}


class Cluster:
    def __init__(self):
        self.hosts = [cl.Host(i) for i in (1, 2, 3)]
        self.front = cl.Front(1, self.hosts, cl.SLOTS)
        self.front2 = None
        self.marker = "GAOL_CLUSTER_TEST=%s" % uuid.uuid4().hex
        self.pgids = set()

    def start_host(self, h):
        h.start()
        self.pgids.add(h.proc.pid)

    def start_front(self, f):
        f.start()
        self.pgids.add(f.proc.pid)

    def processes(self):
        """Every live process of ours: started by us (their process groups)
        or carrying our marker (gaol's workers and sandboxes)."""
        mine = set(gh.processes_with_env(self.marker))
        for pid, v in gh.proc_table().items():
            try:
                with open("/proc/%d/stat" % pid) as f:
                    pgrp = int(f.read().rsplit(") ", 1)[1].split()[2])
            except (OSError, ValueError, IndexError):
                continue
            if pgrp in self.pgids and v[3] != "Z":
                mine.add(pid)
        return sorted(mine)


@pytest.fixture(scope="module")
def cluster():
    if os.geteuid() != 0:
        pytest.fail("test-cluster needs root (network namespaces, gaol's sandboxes)")
    for tool in ("ip", "nsenter", "nginx", "spawn-fcgi"):
        if not any(os.access(os.path.join(d, tool), os.X_OK) for d in ("/usr/sbin", "/usr/bin",
                                                                        "/sbin", "/bin")):
            pytest.fail("%s is not installed (make deps-test)" % tool)
    c = Cluster()
    stale = [n for n in cl.netns_list() if n in [cl.NS_FRONT] + [h.ns for h in c.hosts]]
    if stale:   # ours, from a run that was killed: gcl* names are this test's
        cl.destroy(c.hosts)
    os.makedirs(os.path.join(cl.STATE, "front1"), exist_ok=True)
    k, v = c.marker.split("=", 1)
    os.environ[k] = v           # reaches the hosts' environment below
    t0 = time.monotonic()
    try:
        cl.create(c.hosts)
        for h in c.hosts:
            c.start_host(h)
        for h in c.hosts:
            h.wait_ready()
        c.start_front(c.front)
        FIGURES["start_s"] = round(time.monotonic() - t0, 1)
        yield c
    finally:
        for f in (c.front, c.front2):
            if f:
                f.stop()
        for h in c.hosts:
            h.stop()
        deadline = time.monotonic() + 15
        while c.processes() and time.monotonic() < deadline:
            time.sleep(0.2)
        left_procs = c.processes()
        cl.destroy(c.hosts)
        for h in c.hosts:
            cl.remove_instance_parents(h.instance)
            shutil.rmtree(h.state_dir, ignore_errors=True)
        problems = cl.leftovers(c.hosts, [c.front, c.front2], left_procs)
        if left_procs:
            problems.append("processes: %r" % left_procs)
        FIGURES["total_s"] = round(time.monotonic() - t0, 1)
        report()
        os.environ.pop(k, None)
        assert not problems, "left behind:\n" + "\n".join(problems)


def report():
    path = os.path.join(gh.BUILD_DIR, "cluster-figures.json")
    try:
        with open(path, "w") as f:
            json.dump(FIGURES, f, indent=1, sort_keys=True)
    except OSError:
        pass
    print("\ncluster figures (%s):\n%s" % (path, json.dumps(FIGURES, indent=1, sort_keys=True)))


def run_load(fronts, seconds, clients=LOAD_CLIENTS, during=None):
    load = cl.Load(fronts, clients).start()
    marks = {}
    t0 = time.time()
    try:
        if during:
            during(load, marks)
        rest = seconds - (time.time() - t0)
        if rest > 0:
            time.sleep(rest)
    finally:
        stuck = load.stop()
    assert not stuck, "load clients still waiting after 120s: %d" % len(stuck)
    return load, marks


def served_by(front, results):
    """{test_id: [hosts tried, in order]} from the front's log."""
    log = front.access_log()
    return {r.id: log.get(r.id) for r in results}


def counts(results):
    return {"sent": len(results),
            "answered_200": sum(1 for r in results if r.status == 200),
            "answered_200_right": sum(1 for r in results if r.status == 200 and r.ok),
            "answered_502": sum(1 for r in results if r.status == 502),
            "other": sorted(set(str(r.status) for r in results if r.status not in (200, 502)))}


def check_only_inflight_failed(results, log, host, t_event, allowed=(502,), t_done=None):
    """Every request got 200 and its right answer, except requests in flight on
    `host` at the event, which may have failed with a JSON error. The event
    began at t_event and was done at t_done (a kill or an `ip link` takes a few
    milliseconds): a request sent in between reached the host before it was
    gone, so it was in flight too."""
    t_done = t_event if t_done is None else t_done
    bad, failed = [], []
    for r in results:
        if r.status == 200 and r.ok:
            continue
        entry = log.get(r.id)
        last = entry["tried"][-1] if entry and entry["tried"] else None
        inflight = r.start < t_done and t_event <= r.end and last == host.fcgi
        if r.status in allowed and r.json_error() and inflight:
            failed.append(r)
        else:
            bad.append((r.id, r.status, r.body[:200], r.error, entry, r.start - t_event))
    assert not bad, "requests that should have succeeded:\n%s" % "\n".join(map(repr, bad))
    return failed


def throughput_per_window(results, t0, t1, width=2.0):
    """200s completed in each window of `width` seconds from t0 to t1."""
    out = []
    t = t0
    while t + width <= t1 + 1e-9:
        out.append(sum(1 for r in results if r.status == 200 and r.ok and t <= r.end < t + width))
        t += width
    return out


def attempts_on(log, host, after):
    """Log entries of requests that nginx tried on host, started after `after`."""
    return sorted((e for e in log.values() if host.fcgi in e["tried"] and e["start"] >= after),
                  key=lambda e: e["start"])


# ---------------------------------------------------------------- phases

def test_1_every_host_serves(cluster):
    load, _ = run_load([cluster.front], 6)
    log = cluster.front.access_log()
    assert load.results, "no request was sent"
    check_only_inflight_failed(load.results, log, cluster.hosts[0], float("inf"))
    used = {log[r.id]["tried"][-1] for r in load.results if r.id in log}
    assert used == {h.fcgi for h in cluster.hosts}, used
    connects = sorted(float(x) for r in load.results if r.id in log
                      for x in log[r.id]["conn"].split(", ") if x not in ("", "-"))
    FIGURES["1_steady"] = dict(counts(load.results), seconds=6,
                               upstream_connect_ms_median=round(1000 * connects[len(connects) // 2], 2),
                               upstream_connect_ms_max=round(1000 * connects[-1], 2))
    health = cluster.front.health()
    assert all(health["hosts"][h.fcgi]["ok"] is True for h in cluster.hosts), health


def test_2_sigkill_of_a_hosts_master_fails_only_its_requests_in_flight(cluster):
    victim = cluster.hosts[0]

    def kill(load, marks):
        time.sleep(3)
        marks["t"] = time.time()
        victim.kill_master()
        marks["done"] = time.time()

    load, marks = run_load([cluster.front], 11, during=kill)
    t_k, t_kd = marks["t"], marks["done"]
    log = cluster.front.access_log()
    failed = check_only_inflight_failed(load.results, log, victim, t_k, t_done=t_kd)
    after = throughput_per_window(load.results, t_k, t_k + 8)
    assert all(n > 0 for n in after), "throughput stopped after the kill: %r per 2s" % after
    tries = attempts_on(log, victim, t_kd)
    # The front stops using the host at its first failure there: a request
    # in flight that failed, or a new one whose connection was refused.
    first_failure = min([r.end for r in failed] + [e["end"] for e in tries] or [None])
    FIGURES["2_sigkill"] = dict(
        counts(load.results), failed_in_flight=len(failed),
        completed_200_per_2s_after_kill=after,
        front_stopped_using_dead_host_after_s=(round(first_failure - t_k, 3)
                                               if first_failure else None),
        later_attempts_on_dead_host=[round(e["start"] - t_k, 2) for e in tries],
        their_statuses=sorted(set(e["status"] for e in tries)))
    # Those attempts were refused connections: each moved on and got its 200.
    assert all(e["status"] == "200" for e in tries), tries


def test_3_killed_host_rejoins_and_serves(cluster):
    victim = cluster.hosts[0]
    t_r = time.time()
    cluster.start_host(victim)
    victim.wait_ready()
    ready = time.time()

    def until_served(load, marks):
        deadline = time.time() + 20
        while time.time() < deadline:
            log = cluster.front.access_log()
            if any(e["tried"][-1:] == [victim.fcgi] and e["status"] == "200" and e["start"] >= ready
                   for e in log.values()):
                marks["served"] = time.time()
                return
            time.sleep(0.5)

    load, marks = run_load([cluster.front], 4, during=until_served)
    log = cluster.front.access_log()
    check_only_inflight_failed(load.results, log, victim, float("inf"))
    assert "served" in marks, "the restarted host served nothing within 20s"
    health = cluster.front.health()
    assert health["hosts"][victim.fcgi]["ok"] is True, health
    FIGURES["3_rejoin"] = dict(counts(load.results), restart_to_ready_s=round(ready - t_r, 1),
                               ready_to_first_200_s=round(marks["served"] - ready, 1))


def test_4_cutting_a_hosts_link_fails_only_its_requests_in_flight(cluster):
    victim = cluster.hosts[1]
    health_during = {}

    def cut(load, marks):
        time.sleep(3)
        marks["t"] = time.time()
        victim.link(False)
        marks["done"] = time.time()
        time.sleep(3)
        health_during.update(cluster.front.health())
        time.sleep(5)
        marks["up"] = time.time()
        victim.link(True)
        time.sleep(8)

    load, marks = run_load([cluster.front], 19, during=cut)
    t_c, t_cd, t_u = marks["t"], marks["done"], marks["up"]
    log = cluster.front.access_log()
    # A request in flight on the cut host waits: its answer comes after the
    # link is back (TCP retransmits), or it ends 502/504 (JSON).
    failed = check_only_inflight_failed(load.results, log, victim, t_c, allowed=(502, 504),
                                        t_done=t_cd)
    assert health_during["hosts"][victim.fcgi]["ok"] is False, health_during
    assert all(health_during["hosts"][h.fcgi]["ok"] is True
               for h in cluster.hosts if h is not victim), health_during
    during = throughput_per_window(load.results, t_c, t_u)
    assert all(n > 0 for n in during), "throughput stopped while the link was down: %r" % during
    tries = attempts_on(log, victim, t_cd)
    cut_tries = [e for e in tries if e["start"] < t_u]
    back = [e for e in tries if e["start"] >= t_u and e["tried"][-1] == victim.fcgi
            and e["status"] == "200"]
    assert back, "the host whose link came back served nothing in 8s"
    assert all(e["status"] == "200" for e in cut_tries), cut_tries
    inflight_ok = [r for r in load.results if r.start < t_cd and t_c <= r.end and r.status == 200
                   and log.get(r.id, {}).get("tried", [None])[-1] == victim.fcgi]
    FIGURES["4_link_cut"] = dict(
        counts(load.results), link_down_s=round(t_u - t_c, 1), failed_in_flight=len(failed),
        in_flight_on_cut_host_answered_200_after_link_back=len(inflight_ok),
        completed_200_per_2s_while_down=during,
        first_attempt_on_cut_host_s=round(cut_tries[0]["start"] - t_c, 3) if cut_tries else None,
        requests_that_tried_cut_host_while_down=len(cut_tries),
        their_added_latency_s=[round(float(e["rt"]), 2) for e in cut_tries],
        link_up_to_first_200_from_it_s=round(back[0]["end"] - t_u, 1))


def test_4b_an_idle_hosts_cut_link_costs_one_connect_timeout_per_try(cluster):
    # Cut while nothing is in flight on it: new requests find out by
    # connecting (fastcgi_connect_timeout), move on to the next host, and the
    # host is left out for fail_timeout; then one request tries it again.
    victim = cluster.hosts[2]
    victim.link(False)
    t_c = time.time()
    try:
        load, _ = run_load([cluster.front], 12)
    finally:
        victim.link(True)
    log = cluster.front.access_log()
    check_only_inflight_failed(load.results, log, victim, float("inf"))
    tries = attempts_on(log, victim, t_c)
    assert tries, "no request tried the cut host in 12s"
    assert all(e["status"] == "200" and e["tried"][-1] != victim.fcgi for e in tries), tries
    # Each try waited for the connect timeout (1s) and no longer than that
    # plus its run.
    assert all(1.0 <= float(e["rt"]) < 5.0 for e in tries), tries
    gaps = [round(b["start"] - a["start"], 1) for a, b in zip(tries, tries[1:])]
    FIGURES["4b_idle_link_cut"] = dict(
        counts(load.results), seconds=12,
        requests_that_tried_cut_host=len(tries),
        their_request_time_s=[round(float(e["rt"]), 2) for e in tries],
        seconds_between_tries=gaps,
        front_stopped_using_cut_host_after_s=round(tries[0]["end"] - t_c, 2))


def test_5_a_second_front_shares_the_hosts(cluster):
    # Two fronts, each given half of every host's slots (rounded up here:
    # 2 of 3, so a host may get 4 connections at once and queue one).
    cluster.front2 = cl.Front(2, cluster.hosts, (cl.SLOTS + 1) // 2)
    os.makedirs(cluster.front2.dir, exist_ok=True)
    cluster.start_front(cluster.front2)
    load, _ = run_load([cluster.front, cluster.front2], 6, clients=3)
    for f in (cluster.front, cluster.front2):
        mine = [r for r in load.results if r.front is f]
        log = f.access_log()
        check_only_inflight_failed(mine, log, cluster.hosts[0], float("inf"))
        used = {log[r.id]["tried"][-1] for r in mine if r.id in log}
        assert len(used) >= 2, "front %d used %r" % (f.index, used)
    FIGURES["5_two_fronts"] = dict(counts(load.results),
                                   by_front={f.index: len([r for r in load.results if r.front is f])
                                             for f in (cluster.front, cluster.front2)})


def test_6_429_only_when_every_host_is_full_and_503_when_the_rest_are_full(cluster):
    front = cluster.front
    slow = gh.py_source("import time\ntime.sleep(4)\nresult = 1")
    body = json.dumps({"lang_slug": "python", "solution_text": slow}).encode()
    total = cl.SLOTS * len(cluster.hosts)

    def fill(n):
        out = []
        ts = [threading.Thread(target=lambda: out.append(front.request("POST", "/run", body,
                                                                       timeout=60)[0]))
              for _ in range(n)]
        for t in ts:
            t.start()
        return ts, out

    ts, out = fill(total)
    time.sleep(1.5)
    status, _, payload = front.request("POST", "/run", body, timeout=10)
    assert status == 429, (status, payload)
    assert "every gaol host is full" in json.loads(payload)["error"], payload
    for t in ts:
        t.join(60)
    assert out == [200] * total, out

    # One host gone: its slots are not there to fill.  With the others full,
    # the front has no host to try: 503 (retry later), never 429 nor 502.
    gone = cluster.hosts[2]
    gone.stop()
    ts, out = fill(total - cl.SLOTS)
    time.sleep(1.5)
    status, _, payload = front.request("POST", "/run", body, timeout=10)
    for t in ts:
        t.join(60)
    assert status == 503, (status, payload)
    assert "no gaol host can take the request" in json.loads(payload)["error"], payload
    assert out == [200] * (total - cl.SLOTS), out
    FIGURES["6_full"] = {"all_full": 429, "rest_full_one_gone": 503}


# ---------------------------------------------------------------- Judge0's tokens

def _submit(front, code, stdin=""):
    status, _, body = front.request("POST", "/submissions", json.dumps(
        {"language_id": 71, "source_code": code, "stdin": stdin}).encode())
    assert status == 201, (status, body)
    return json.loads(body)["token"]


def _poll(front, token, timeout=120):
    deadline = time.monotonic() + timeout
    while True:
        status, _, body = front.request("GET", "/submissions/%s?fields=stdout,status" % token)
        assert status == 200, (token, status, body)
        doc = json.loads(body)
        if doc["status"]["id"] not in (1, 2):
            return doc
        assert time.monotonic() < deadline, (token, doc)
        time.sleep(0.2)


def test_7_a_token_made_through_one_front_is_read_through_the_other(cluster):
    """A token names its host (RUN_HOST_ID = its place in render.sh's list):
    either front routes its GET there, whichever host took the POST."""
    assert cluster.front2 is not None, "test 5 starts the second front"
    toks = {_submit(cluster.front, "print(int(input())*5)", str(i)): i for i in range(6)}
    hosts = {t[24:28] for t in toks}
    assert len(hosts) >= 2, "every submission went to one host: %r" % hosts
    for t, i in toks.items():
        assert _poll(cluster.front2, t)["stdout"] == "%d\n" % (i * 5)
    status, _, body = cluster.front2.request("GET", "/submissions/batch?tokens=%s"
                                             % ",".join(toks))
    assert status == 200, body
    status, _, _ = cluster.front2.request("GET", "/submissions/" + "0" * 24 + "00ff" + "0" * 8)
    assert status == 404


def test_8_a_host_restarted_with_submissions_queued_runs_them(cluster):
    """A host's master SIGKILLed with submissions queued and running there:
    after its restart every token it gave ends with its result."""
    host = cluster.hosts[1]
    toks = {}
    while len([t for t in toks if t[24:28] == "%04x" % host.index]) < 6:
        toks[_submit(cluster.front, "import time; time.sleep(0.3); print(int(input())+7)",
                     str(len(toks)))] = len(toks)
        assert len(toks) < 60, "host %d took none of them" % host.index
    host.kill_master()
    time.sleep(1)
    cluster.start_host(host)
    host.wait_ready()
    for t, i in toks.items():
        assert _poll(cluster.front, t, timeout=180)["stdout"] == "%d\n" % (i + 7), t
