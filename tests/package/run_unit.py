#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a systemd service unit's ExecStart the way systemd would, for hosts
where systemd is not PID 1 (the package test's chroot).  It does what the
unit's keys below ask, and refuses a unit with a key it does not know, so
that a unit that gains a key this emulation would silently skip fails the
test instead of passing it on a different setup:

- Environment=, EnvironmentFile= (a leading "-": optional): the process's
  whole environment, over systemd's default PATH;
- RuntimeDirectory= with RuntimeDirectoryMode=: created under /run;
- StateDirectory= with StateDirectoryMode=: created under /var/lib (kept);
- StandardInput=socket: the listening socket of the unit's .socket
  (ListenStream=, SocketUser=, SocketGroup=, SocketMode=) as fd 0;
- ExecStart=: split like systemd does (quotes; no shell) and exec'd.

Usage: run_unit.py /lib/systemd/system/gaol.service  (run as root)."""

import grp
import os
import pwd
import shlex
import socket
import sys

HANDLED = {"Environment", "EnvironmentFile", "RuntimeDirectory", "RuntimeDirectoryMode",
           "StateDirectory", "StateDirectoryMode", "StandardInput", "ExecStart", "Service"}
# What systemd does around the process, not to it: dependencies and ordering,
# the kill and restart policy (the test stops the process itself, as KillMode=
# mixed does: SIGTERM to the main process), cgroup delegation (the test's
# process already may create cgroups), logging to the journal (the test keeps
# stderr), documentation, and the socket's own [Install].
IGNORED = {"Description", "Documentation", "Requires", "After", "Conflicts", "WantedBy",
           "Also", "Type", "StandardOutput", "StandardError", "Delegate", "KillMode",
           "KillSignal", "TimeoutStopSec", "Restart", "RestartSec"}
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def parse(path):
    """[(key, value)] of a unit file, every section."""
    keys = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;" or line.startswith("["):
                continue
            key, _, value = line.partition("=")
            keys.append((key.strip(), value.strip()))
    return keys


def env_file(path):
    """KEY=VALUE lines, comments and blank lines skipped (systemd's syntax,
    as far as /etc/default/gaol uses it: no line continuations)."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            key, _, value = line.partition("=")
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            out[key.strip()] = value
    return out


def listen(socket_unit):
    keys = dict(parse(socket_unit))
    unknown = set(keys) - {"Description", "Documentation", "Conflicts", "ListenStream",
                           "SocketMode", "SocketUser", "SocketGroup", "Service", "WantedBy"}
    if unknown:
        sys.exit("run_unit: %s: keys not emulated: %s" % (socket_unit, sorted(unknown)))
    path = keys["ListenStream"]
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chown(path, pwd.getpwnam(keys.get("SocketUser", "root")).pw_uid,
             grp.getgrnam(keys.get("SocketGroup", "root")).gr_gid)
    os.chmod(path, int(keys.get("SocketMode", "0666"), 8))
    s.listen(socket.SOMAXCONN)
    return s


def socket_of(unit):
    """The .socket beside unit whose Service= names it (or of its name)."""
    d, name = os.path.split(unit)
    for f in sorted(os.listdir(d)):
        if f.endswith(".socket"):
            service = dict(parse(os.path.join(d, f))).get("Service", f[:-7] + ".service")
            if service == name:
                return os.path.join(d, f)
    sys.exit("run_unit: no .socket in %s starts %s" % (d, name))


def main():
    unit = sys.argv[1]
    keys = parse(unit)
    unknown = {k for k, _ in keys} - HANDLED - IGNORED
    if unknown:
        sys.exit("run_unit: %s: keys not emulated: %s" % (unit, sorted(unknown)))
    env = {"PATH": DEFAULT_PATH}
    for key, value in keys:
        if key == "Environment":
            for item in shlex.split(value):
                k, _, v = item.partition("=")
                env[k] = v
        elif key == "EnvironmentFile":
            optional = value.startswith("-")
            path = value.lstrip("-")
            if os.path.exists(path):
                env.update(env_file(path))
            elif not optional:
                sys.exit("run_unit: %s is missing" % path)
    mode = int(dict(keys).get("RuntimeDirectoryMode", "0755"), 8)
    for key, value in keys:
        if key == "RuntimeDirectory":
            for d in value.split():
                os.makedirs(os.path.join("/run", d), exist_ok=True)
                os.chmod(os.path.join("/run", d), mode)
    mode = int(dict(keys).get("StateDirectoryMode", "0755"), 8)
    for key, value in keys:
        if key == "StateDirectory":
            for d in value.split():
                os.makedirs(os.path.join("/var/lib", d), exist_ok=True)
                os.chmod(os.path.join("/var/lib", d), mode)
    if dict(keys).get("StandardInput") == "socket":
        s = listen(socket_of(unit))
        os.dup2(s.fileno(), 0, inheritable=True)
        s.close()
    argv = shlex.split(dict(keys)["ExecStart"])
    os.execve(argv[0], argv, env)


if __name__ == "__main__":
    main()
