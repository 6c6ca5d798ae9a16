"""Issue 33: the hostile programs of this suite in the interpreted languages
a judge's users write in (bash, perl, lua, R, octave), through POST
/evaluate: read a host secret, write outside the sandbox, leave a process
behind, open a network socket where the language can (bash's /dev/tcp,
perl, R).  Each asserts what the program saw and, through conftest.py's
autouse check, that the host is unchanged after it.  A language the service
does not list as installed is skipped by name."""

import os
import time

import pytest

import gaol_helpers as gh

HOSTILE_LANGS = ("bash", "perl", "lua", "r", "octave")


@pytest.fixture(scope="module")
def installed(service):
    r = gh.request(service.port, "GET", "/health")
    assert r.status == 200, r
    return set(r.json()["languages"])


# /evaluate stops a program at its first wrong line: the programs report on
# stderr (the answer's `error`), which is not judged.
TO_STDERR = {
    "bash": "exec 1>&2\n",
    "perl": "open(STDOUT, '>&', \\*STDERR);\n",
    "lua": "print = function(...) local t = {} for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end "
           "io.stderr:write(table.concat(t, '\\t'), '\\n') end\n",
    "r": "sink(stderr())\n",
    "octave": "",
}


def report(res):
    return res["error"]


def evaluate(service, installed, language, code, time_limit_ms=5000):
    code = TO_STDERR[language] + code
    if language not in installed:
        pytest.skip("%s is not installed" % language)
    r = gh.request(service.port, "POST", "/evaluate",
                   {"code": code, "language": language, "time_limit_ms": time_limit_ms,
                    "test_cases": [{"input": "", "expected_output": "-"}]}, timeout=120)
    assert r.status == 200, r
    doc = r.json()
    assert doc["compile"]["ok"] is True, doc
    res = doc["results"][0]
    assert gh.SECRET_VALUE not in r.body.decode(errors="replace"), res
    return res


# Prints "shadow denied" when /etc/shadow cannot be read, then every readable
# environ of /proc/<pid> (the run's own processes: its PID namespace).
SECRET = {
    "bash": 'if cat /etc/shadow >/dev/null 2>&1; then echo "shadow read"; else echo "shadow denied"; fi\n'
            'for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < "$f" 2>/dev/null; done\nenv\n',
    "perl": 'if (open(my $f, "<", "/etc/shadow")) { print "shadow read\\n" } else { print "shadow denied\\n" }\n'
            'for my $p (glob "/proc/[0-9]*/environ") { if (open(my $e, "<", $p)) { local $/; my $s = <$e>; $s =~ tr/\\0/\\n/; print $s } }\n'
            'print "$_=$ENV{$_}\\n" for keys %ENV;\n',
    "lua": 'if io.open("/etc/shadow") then print("shadow read") else print("shadow denied") end\n'
           'for pid = 1, 64 do local f = io.open("/proc/" .. pid .. "/environ") '
           'if f then print((f:read("a") or ""):gsub("%z", "\\n")) f:close() end end\n'
           'print(os.getenv("GAOL_TEST_SECRET") or "")\n',
    "r": 'if (inherits(try(readLines("/etc/shadow"), silent = TRUE), "try-error")) cat("shadow denied\\n") else cat("shadow read\\n")\n'
         'for (p in Sys.glob("/proc/[0-9]*/environ")) { x <- try(readBin(p, "raw", 1e6), silent = TRUE)\n'
         '  if (!inherits(x, "try-error")) { x[x == as.raw(0)] <- as.raw(10); cat(rawToChar(x), "\\n") } }\n'
         'print(Sys.getenv())\n',
    "octave": '[fid, msg] = fopen("/etc/shadow", "r");\nif fid < 0\n  fprintf(stderr, "shadow denied\\n");\nelse\n  fprintf(stderr, "shadow read\\n");\nend\n'
              'd = dir("/proc");\nfor i = 1:numel(d)\n  if all(isstrprop(d(i).name, "digit"))\n'
              '    f = fopen(["/proc/" d(i).name "/environ"], "r");\n    if f >= 0\n'
              '      s = fread(f, Inf, "char=>char")'';\n      s(s == 0) = "\\n";\n      fprintf(stderr, "%s\\n", s);\n      fclose(f);\n    end\n  end\nend\n'
              'fprintf(stderr, "%s\\n", getenv("GAOL_TEST_SECRET"));\n',
}


@pytest.mark.parametrize("language", HOSTILE_LANGS)
def test_a_host_secret_is_not_readable(service, installed, language):
    res = evaluate(service, installed, language, SECRET[language])
    out = report(res)
    assert "shadow denied" in out, res
    assert gh.SECRET_VALUE not in out and gh.SECRET_VALUE not in res["error"], res


# Tries to create a file under /usr, /etc, / and the host's /tmp (its own
# /tmp is a private tmpfs), prints one line per path: "created" or "refused".
WRITE = {
    "bash": 'for p in "$@" %(paths)s; do if : > "$p" 2>/dev/null; then echo "$p created"; else echo "$p refused"; fi; done\n',
    "perl": 'for my $p (qw(%(paths)s)) { if (open(my $f, ">", $p)) { print "$p created\\n" } else { print "$p refused\\n" } }\n',
    "lua": 'for _, p in ipairs({%(list)s}) do local f = io.open(p, "w") if f then f:close() print(p .. " created") '
           'else print(p .. " refused") end end\n',
    "r": 'for (p in c(%(list)s)) { ok <- suppressWarnings(try(file.create(p), silent = TRUE))\n'
         '  cat(p, if (isTRUE(ok)) "created" else "refused", "\\n") }\n',
    "octave": 'for p = {%(list)s}\n  f = fopen(p{1}, "w");\n  if f >= 0\n    fclose(f);\n    fprintf(stderr, "%%s created\\n", p{1});\n'
              '  else\n    fprintf(stderr, "%%s refused\\n", p{1});\n  end\nend\n',
}


@pytest.mark.parametrize("language", HOSTILE_LANGS)
def test_writing_outside_the_sandbox_fails_and_leaves_nothing(service, installed, language, token):
    outside = ["/usr/" + token, "/usr/bin/" + token, "/etc/" + token, "/" + token]
    in_tmp = "/tmp/" + token
    paths = outside + [in_tmp]
    code = WRITE[language] % {"paths": " ".join(paths),
                              "list": ", ".join('"%s"' % p for p in paths)}
    res = evaluate(service, installed, language, code)
    lines = dict(line.strip().rsplit(" ", 1) for line in report(res).splitlines()
                 if line.strip().count(" ") >= 1)
    for p in outside:
        assert lines.get(p) == "refused", (p, res)
    # /tmp is the run's own: the file is made there, never on the host.
    assert lines.get(in_tmp) == "created", res
    for p in paths:
        assert not os.path.lexists(p), "%s exists on the host" % p


# Starts a detached process that would write to the host's /tmp a few
# seconds after the run, then ends at once.
BEHIND = {
    "bash": '(setsid sh -c "sleep 3; echo survived > /tmp/%(t)s; sleep 60" </dev/null >/dev/null 2>&1 &)\necho started\n',
    "perl": 'if (fork() == 0) { POSIX::setsid() if eval { require POSIX }; close STDOUT; close STDERR;\n'
            '  sleep 3; open(my $f, ">", "/tmp/%(t)s"); print $f "survived"; close $f; sleep 60; exit 0 }\nprint "started\\n";\n',
    "lua": 'os.execute("setsid sh -c \'sleep 3; echo survived > /tmp/%(t)s; sleep 60\' </dev/null >/dev/null 2>&1 &")\nprint("started")\n',
    "r": 'system("sleep 3; echo survived > /tmp/%(t)s; sleep 60", wait = FALSE, ignore.stdout = TRUE, ignore.stderr = TRUE)\ncat("started\\n")\n',
    "octave": 'system("setsid sh -c \'sleep 3; echo survived > /tmp/%(t)s; sleep 60\' </dev/null >/dev/null 2>&1 &");\nfprintf(stderr, "started\\n");\n',
}


@pytest.mark.parametrize("language", HOSTILE_LANGS)
def test_a_process_left_behind_does_not_outlive_the_run(service, installed, language, token):
    res = evaluate(service, installed, language, BEHIND[language] % {"t": token})
    # Right after the answer: no process of a slot UID.
    left = gh.processes_of_uids(service.uid_lo, service.uid_hi)
    assert not left, "processes outlived their run: %r" % left
    assert report(res).strip() == "started", res
    time.sleep(4)
    assert not os.path.exists("/tmp/" + token)


# Connects to the service's own port and to the host's non-loopback
# addresses; prints "<addr> connected" or "<addr> failed".
CONNECT = {
    "bash": 'for a in %(addrs)s; do if timeout 3 bash -c "exec 3<>/dev/tcp/${a%%:*}/${a#*:}" 2>/dev/null; '
            'then echo "$a connected"; else echo "$a failed"; fi; done\n',
    "perl": 'use IO::Socket::INET;\nfor my $a (qw(%(addrs)s)) { my $s = IO::Socket::INET->new(PeerAddr => $a, Timeout => 3);\n'
            '  print "$a ", ($s ? "connected" : "failed"), "\\n" }\n',
    "r": 'for (a in c(%(list)s)) { h <- strsplit(a, ":")[[1]]\n'
         '  s <- try(suppressWarnings(socketConnection(h[1], as.integer(h[2]), blocking = TRUE, open = "r+", timeout = 3)), silent = TRUE)\n'
         '  cat(a, if (inherits(s, "try-error")) "failed" else "connected", "\\n") }\n',
}


@pytest.mark.parametrize("language", HOSTILE_LANGS)
def test_a_network_socket_reaches_nothing(service, installed, language):
    if language not in CONNECT:
        pytest.skip("%s has no sockets of its own" % language)
    addrs = ["127.0.0.1:%d" % service.port] + ["%s:%d" % (a, p) for a in gh.host_addresses()
                                               for p in (service.port, 22)]
    code = CONNECT[language] % {"addrs": " ".join(addrs), "list": ", ".join('"%s"' % a for a in addrs)}
    res = evaluate(service, installed, language, code, time_limit_ms=10000)
    lines = dict(line.strip().rsplit(" ", 1) for line in report(res).splitlines()
                 if line.strip().count(" ") >= 1)
    for a in addrs:
        assert lines.get(a) == "failed", (a, res)
