# SPDX-License-Identifier: Apache-2.0
"""Keeps what is in the page cache there while a suite runs.

The CI machine is a VM whose host pages out, a minute after their last use,
file pages that no process maps: a DAMON scheme (/sys/kernel/mm/damon/admin:
action pageout, filters "anon: reject" and "unmapped: allow", minimum age 12
aggregation intervals of 5 s).  What tests/warm.py read is gone again a
minute later, and a Rust build that comes four minutes into the integration
suite reads librustc_driver and libLLVM (245 MB) from a disk that gives
4-25 MB/s: Codebattle's own 20 s limit for a Rust /run passed at 0.5 s of
CPU (CI, stop 20).  A service that is in use keeps its toolchains mapped by
the runs themselves; a suite moves from language to language.

Holder maps every file of 64 KiB or more under the given trees and, every
few seconds, populates the pages of them that are in the page cache
(MADV_POPULATE_READ: minor faults, no reading from the disk), so that they
are mapped and the host's scheme passes them by.  Pages not cached are never read.  It holds nothing
the kernel needs: mapped file pages are reclaimed under memory pressure as
any others (the machine has 24 GB and the suites use a few)."""

import ctypes
import ctypes.util
import mmap
import os
import stat
import threading

PAGE = mmap.PAGESIZE
MIN_SIZE = 64 << 10
SKIP = ("/usr/share/doc", "/usr/share/man", "/usr/share/locale", "/usr/src")

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long)
_libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
_libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
MAP_FAILED = ctypes.c_void_p(-1).value
MADV_RANDOM = 1
MADV_POPULATE_READ = 22


class _Mapping:
    def __init__(self, addr, size):
        self.addr, self.size = addr, size
        self.pages = (size + PAGE - 1) // PAGE
        self.vec = (ctypes.c_ubyte * self.pages)()
        self.held = bytes(self.pages)

    def hold(self):
        """Maps the pages cached since the last sweep (a page evicted since
        is no longer mapped here; read again, it is mapped again)."""
        if _libc.mincore(self.addr, self.size, self.vec) != 0:
            return
        now = bytes(self.vec)
        if now == self.held:
            return
        # runs of cached pages, one madvise each
        i = now.find(1)
        while i >= 0:
            end = now.find(0, i)
            end = self.pages if end < 0 else end
            _libc.madvise(self.addr + i * PAGE, (end - i) * PAGE, MADV_POPULATE_READ)
            i = now.find(1, end)
        self.held = now


def _files(trees):
    for tree in trees:
        for dirpath, dirnames, filenames in os.walk(tree):
            dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in SKIP]
            for name in filenames:
                path = os.path.join(dirpath, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and st.st_size >= MIN_SIZE:
                    yield path, st.st_size


class Holder:
    def __init__(self, trees, interval=5.0):
        self.maps, self.interval = [], interval
        self.stop = threading.Event()
        for path, size in _files(trees):
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            addr = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            os.close(fd)
            if addr not in (None, MAP_FAILED):
                # no read-ahead when a cached page is mapped: nothing is read
                _libc.madvise(addr, size, MADV_RANDOM)
                self.maps.append(_Mapping(addr, size))
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def sweep(self):
        """Maps what became cached since the last sweep."""
        for m in self.maps:
            m.hold()

    def held_bytes(self):
        """What the last sweep found cached (and mapped)."""
        return sum(m.held.count(1) for m in self.maps) * PAGE

    def _loop(self):
        while not self.stop.wait(self.interval):
            self.sweep()

    def start(self):
        self.sweep()
        self.thread.start()
        return self

    def close(self):
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()
        for m in self.maps:
            _libc.munmap(m.addr, m.size)
        self.maps = []
