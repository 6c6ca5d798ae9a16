# SPDX-License-Identifier: Apache-2.0
"""docs/design.md ("The sandbox step by step") seen over HTTP: the basics every run gets.  The hostile
programs live in tests/isolation; these are the promises a user can check
with one request."""

import os
import uuid

import gaol_helpers as gh


def test_payload_uid_is_run_uid_base_plus_slot(stack):
    seen = set()
    for _ in range(4):
        ids, _ = stack.py_eval("import os\nresult = [os.getuid(), os.geteuid(), os.getgid(),"
                               " os.getgroups(), list(os.getresuid())]")
        uid, euid, gid, groups, resuid = ids
        assert stack.uid_base <= uid < stack.uid_base + stack.concurrency, ids
        assert euid == uid and resuid == [uid, uid, uid], ids
        assert gid != 0, ids
        assert groups == [], "supplementary groups: %r" % ids
        seen.add(uid)
    assert seen


def test_payload_cannot_get_root_back(stack):
    out, _ = stack.py_eval(
        "import os\nr = []\n"
        "for f in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.setgroups([0])):\n"
        "    try:\n        f()\n        r.append('ok')\n"
        "    except OSError as e:\n        r.append(e.errno)\n"
        "caps = [l for l in open('/proc/self/status') if l.startswith(('CapEff', 'CapPrm', 'NoNewPrivs'))]\n"
        "result = [r, caps]")
    errs, caps = out
    assert "ok" not in errs, out
    caps = dict(line.split(":") for line in caps)
    assert int(caps["CapEff"].strip(), 16) == 0, caps
    assert int(caps["CapPrm"].strip(), 16) == 0, caps
    assert caps["NoNewPrivs"].strip() == "1", caps


def test_nothing_persists_between_runs(stack):
    token = "persist-" + uuid.uuid4().hex
    code = ("import os\n"
            "token = %r\n"
            "found = [p for p in ('/sandbox/' + token, '/tmp/' + token, '/dev/shm/' + token,"
            " '/sandbox/check/' + token) if os.path.exists(p)]\n"
            "wrote = []\n"
            "for p in ('/sandbox/' + token, '/tmp/' + token, '/dev/shm/' + token,"
            " '/sandbox/check/' + token):\n"
            "    try:\n"
            "        open(p, 'w').write('x')\n"
            "        wrote.append(p)\n"
            "    except OSError as e:\n"
            "        wrote.append('%%s: %%s' %% (p, e))\n"
            "result = [found, wrote]" % token)
    # Enough runs that every slot runs after another run on the same slot.
    for i in range(2 * stack.concurrency + 1):
        (found, wrote), _ = stack.py_eval(code)
        assert "/sandbox/" + token in wrote and "/tmp/" + token in wrote, wrote
        assert found == [], "run %d saw files of an earlier run: %r" % (i, found)


def test_solution_file_of_one_run_is_not_seen_by_the_next(stack):
    token = uuid.uuid4().hex
    stack.py_eval("SECRET_%s = 1\nresult = 0" % token)
    out, _ = stack.py_eval(
        "import glob\nresult = [open(p, errors='replace').read() for p in"
        " glob.glob('/sandbox/**/*.py', recursive=True)]")
    assert not any(token in text for text in out), "an earlier run's solution is visible"


def test_no_route_to_the_hosts_nginx_port(stack):
    addrs = gh.host_addresses()
    code = ("import socket, errno, os\n"
            "port = %d\n"
            "addrs = %r\n"
            "routes = [l.split() for l in open('/proc/net/route').read().splitlines()[1:]]\n"
            "ifaces = sorted(os.listdir('/sys/class/net')) if os.path.isdir('/sys/class/net') else None\n"
            "def attempt(a):\n"
            "    s = socket.socket()\n"
            "    s.settimeout(3)\n"
            "    try:\n"
            "        s.connect((a, port))\n"
            "        return 'connected'\n"
            "    except OSError as e:\n"
            "        return errno.errorcode.get(e.errno, str(e))\n"
            "    finally:\n"
            "        s.close()\n"
            "out = {'routes': routes, 'ifaces': ifaces, 'loopback': attempt('127.0.0.1')}\n"
            # Only with no route at all: then connect fails before a packet exists.
            "if not routes:\n"
            "    out['host'] = {a: attempt(a) for a in addrs}\n"
            "result = out" % (stack.port, addrs))
    out, _ = stack.py_eval(code)
    assert out["routes"] == [], "the sandbox has IPv4 routes: %r" % out
    assert out["loopback"] != "connected", "reached the host's nginx on 127.0.0.1: %r" % out
    for a, res in out.get("host", {}).items():
        assert res != "connected", "reached the host on %s: %r" % (a, out)
        assert res in ("ENETUNREACH", "EHOSTUNREACH"), out


def test_home_is_sandbox(stack):
    env, _ = stack.py_eval("import os\nresult = [os.environ.get('HOME'), os.getcwd()]")
    assert env[0] == "/sandbox", env


def test_service_environment_is_not_visible(stack):
    out, _ = stack.py_eval(
        "import os\n"
        "result = [dict(os.environ), open('/proc/self/environ', 'rb').read().decode('latin-1'),"
        " open('/proc/1/environ', 'rb').read().decode('latin-1') if os.access('/proc/1/environ', os.R_OK) else '']")
    env, raw, init_env = out
    assert gh.SECRET_NAME not in env, env
    for text in (raw, init_env, repr(env)):
        assert gh.SECRET_VALUE not in text, "the service's secret reached the payload"
    allowed = {"PATH", "LANG", "LC_ALL", "TZ", "HOME", "PWD", "SHLVL", "_", "OLDPWD"}
    extra = set(env) - allowed
    # Harnesses may set their own variables (PYTHON*); nothing of the service's.
    service = [k for k in extra if k in stack.env]
    assert not service, "service variables visible to the payload: %r" % service


def test_run_sees_only_its_own_processes(stack):
    out, _ = stack.py_eval(
        "import os\nresult = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())")
    assert len(out) < 10 and 1 in out, "the payload sees pids %r" % out


def test_stdin_is_dev_null(stack):
    out, _ = stack.py_eval("import sys\nresult = repr(sys.stdin.buffer.read())")
    assert out == "b''", out


def test_a_run_may_use_every_cpu_of_the_service(stack):
    # Each worker is pinned to one CPU of the service's (docs/design.md, "CPU
    # placement"); the program it runs is not: it gets the whole set back
    # before execve, so a JVM or a Go runtime sizes its threads for them all.
    service = sorted(os.sched_getaffinity(0))     # the stack's, as started
    workers = {w: sorted(os.sched_getaffinity(w)) for w in stack.fcgi_workers()}
    if len(service) > 1:
        assert all(len(cpus) == 1 for cpus in workers.values()), workers
        assert len({cpus[0] for cpus in workers.values()}) == min(len(workers), len(service)), \
            "workers share a CPU while another is free: %r" % workers
    for _ in range(2 * stack.concurrency):
        out, _ = stack.py_eval("import os\nresult = sorted(os.sched_getaffinity(0))")
        assert out == service, "the program may use CPUs %r of %r" % (out, service)
