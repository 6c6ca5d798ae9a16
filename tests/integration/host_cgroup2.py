# SPDX-License-Identifier: Apache-2.0
"""The host's cgroup2 mount as RUN_CGROUP_FAVORDYNMODS (core/slot/dynmods.c)
changes it, read and given back, for its test and for `make bench-langs`."""

import ctypes
import os

SYS_FSCONFIG, SYS_FSPICK = 431, 433          # x86_64
FSPICK_CLOEXEC = 1
FSCONFIG_SET_FLAG, FSCONFIG_CMD_RECONFIGURE = 0, 7
AT_FDCWD = -100
_LIBC = ctypes.CDLL(None, use_errno=True)


def mount():
    """(point, mount options, superblock options) of the first cgroup2 mount
    in this process's mountinfo, or None."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, super_fields = left.split(), right.split()
            if len(super_fields) == 3 and super_fields[0] == "cgroup2":
                return fields[4].replace("\\040", " "), fields[5], super_fields[2]
    return None


def reconfigure(point, opts):
    """The superblock given exactly the flags opts ("rw,nsdelegate"): a
    reconfigure clears those it is not given."""
    fd = _LIBC.syscall(SYS_FSPICK, AT_FDCWD, point.encode(), FSPICK_CLOEXEC)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "fspick " + point)
    try:
        for o in opts.split(","):
            if _LIBC.syscall(SYS_FSCONFIG, fd, FSCONFIG_SET_FLAG, o.encode(), None, 0) != 0:
                raise OSError(ctypes.get_errno(), "fsconfig " + o)
        if _LIBC.syscall(SYS_FSCONFIG, fd, FSCONFIG_CMD_RECONFIGURE, None, None, 0) != 0:
            raise OSError(ctypes.get_errno(), "fsconfig reconfigure " + point)
    finally:
        os.close(fd)


def without_favor(opts):
    return ",".join(o for o in opts.split(",") if o != "favordynmods")


def v1_host():
    """gaol's slots are on cgroup v1 here (gaol's own test: no memory in the
    unified root's controllers)."""
    try:
        with open("/sys/fs/cgroup/cgroup.controllers") as f:
            return "memory" not in f.read().split()
    except OSError:
        return True
