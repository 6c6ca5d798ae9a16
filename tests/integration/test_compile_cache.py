# SPDX-License-Identifier: Apache-2.0
"""Issue 11, findings 4, 5 and 8: what a build may leave, and the compile
cache that keeps it (docs/api.md "POST /evaluate", README "Security").

A build step that runs the tenant's code at compile time (Haskell's Template
Haskell `runIO`, here) may leave anything in /sandbox.  What it leaves is
copied out as root by the sandbox's init and kept in the host's compile cache.
These tests attack that copy through the real service:

- finding 4: big dense files, sparse files and many files: the build answers
  CE with a clear message (or an uncached build), and the cache never holds
  more than RUN_EVAL_CACHE_MAX;
- finding 5: a directory tree 130 and 1000 levels deep: CE with a message,
  never "500 sandbox: init died";
- finding 8: entries are named by SHA-256 of their key, an entry in use is
  never evicted under a running request, and RUN_EVAL_HIDE_CACHED=1 hides
  whether a submission was seen before.

Each test then checks that the host is unchanged: no process left, no new
mount, and nothing in the cache directory but committed entries.
"""

import hashlib
import os
import shutil
import threading
import time
import uuid

import pytest

import gaol_helpers as gh

CACHE_MAX = 64 << 20
BUILD_MAX = 16 << 20
BUILD_FILES = 2000


def th_program(action):
    """A Haskell program whose build step runs `action` (IO) through
    Template Haskell, then answers a+b like any solution."""
    return (
        "{-# LANGUAGE TemplateHaskell #-}\n"
        "module Main where\n"
        "import Language.Haskell.TH\n"
        "import System.IO\n"
        "import System.Directory\n"
        "import Control.Monad\n"
        "$(runIO (do { %s ; return [] }))\n"
        "main :: IO ()\n"
        "main = do { [a, b] <- fmap (map read . words) getLine; print (a + b :: Integer) }\n"
        "-- %s\n" % (action, uuid.uuid4().hex))


SPARSE = ('forM_ [1..3 :: Int] (\\i -> withBinaryFile ("sparse" ++ show i) WriteMode '
          '(\\h -> hSetFileSize h (100 * 1024 * 1024)))')
MANY = 'forM_ [1..5000 :: Int] (\\i -> writeFile ("f" ++ show i) "x")'
DENSE = ('forM_ [1..3 :: Int] (\\i -> writeFile ("dense" ++ show i) '
         '(replicate (8 * 1024 * 1024) \'x\'))')


def deep(levels):
    return ('setCurrentDirectory "/sandbox" >> '
            'createDirectoryIfMissing True (foldr1 (\\a b -> a ++ "/" ++ b) (replicate %d "d"))'
            % levels)


@pytest.fixture
def cache_stack(make_stack):
    """A stack of its own whose state directory (and so its cache) the test
    can look into; removed afterwards."""
    state = "/run/gaol-test-cache-%s" % uuid.uuid4().hex[:8]
    made = []

    def make(name="cache", **env):
        e = {"GAOL_STATE_DIR": state, "RUN_EVAL_CACHE_MAX": str(CACHE_MAX),
             "RUN_EVAL_BUILD_MAX": str(BUILD_MAX),
             "RUN_EVAL_BUILD_FILES": str(BUILD_FILES)}
        e.update(env)
        s = make_stack(name, env=e)
        s.state_dir = state
        s.cache_dir = os.path.join(state, "cache")
        s.mounts_before = gh.mountinfo()
        made.append(s)
        return s

    yield make
    shutil.rmtree(state, ignore_errors=True)


def evaluate(stack, code, tests=(("1 2", "3"),), language="haskell", timeout=300,
             time_limit_ms=None):
    body = {"code": code, "language": language,
            "test_cases": [{"input": i, "expected_output": o} for i, o in tests]}
    if time_limit_ms is not None:
        body["time_limit_ms"] = time_limit_ms
    return stack.post("/evaluate", body, timeout=timeout)


def need(stack, language):
    if language not in stack.installed():
        pytest.skip("%s is not installed" % language)


def disk_bytes(path):
    """Bytes the files under path take on disk (du), links not followed."""
    total = 0
    for root, dirs, files in os.walk(path):
        for n in dirs + files:
            try:
                total += os.lstat(os.path.join(root, n)).st_blocks * 512
            except OSError:
                pass
    return total


def entries(stack):
    try:
        return sorted(n for n in os.listdir(stack.cache_dir) if not n.startswith("."))
    except FileNotFoundError:
        return []


def assert_host_unchanged(stack):
    """Nothing of the attack left: no slot process, no new mount, nothing
    in the cache but committed entries, and the cache within its cap."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = gh.processes_of_uids(stack.uid_base, stack.uid_base + stack.concurrency)
        if not left:
            break
        time.sleep(0.1)
    assert not left, "slot processes left: %r" % left
    new = [m for m in gh.mountinfo() if m not in stack.mounts_before]
    assert not new, "new mounts: %r" % new
    if os.path.isdir(stack.cache_dir):
        stray = [n for n in os.listdir(stack.cache_dir)
                 if n.startswith(".tmp-")]
        assert not stray, "half-done builds left in the cache: %r" % stray
    used = disk_bytes(stack.cache_dir)
    assert used <= CACHE_MAX, "cache holds %d bytes, cap %d" % (used, CACHE_MAX)


def assert_ce(resp, words):
    assert resp.status == 200, resp
    doc = resp.json()
    assert doc["compile"]["ok"] is False, doc["compile"]
    assert words in doc["compile"]["output"], doc["compile"]
    assert all(r["verdict"] == "CE" for r in doc["results"]), doc["results"]
    return doc


# ------------------------------------------------------------ finding 4

def test_sparse_files_left_by_a_build_are_kept_sparse(cache_stack):
    s = cache_stack()
    need(s, "haskell")
    r = evaluate(s, th_program(SPARSE))
    assert r.status == 200, r
    doc = r.json()
    # 300 MB of holes is not 300 MB of data: the build is kept, as sparse
    # files, and the cache holds what they take on disk.
    assert doc["compile"]["ok"] is True, doc["compile"]
    assert doc["results"][0]["verdict"] == "OK", doc
    assert disk_bytes(s.cache_dir) < BUILD_MAX, disk_bytes(s.cache_dir)
    assert_host_unchanged(s)


def test_a_build_that_leaves_too_many_bytes_is_a_compile_error(cache_stack):
    s = cache_stack()
    need(s, "haskell")
    r = evaluate(s, th_program(DENSE))
    assert_ce(r, "build left more than")
    assert entries(s) == [], entries(s)
    assert_host_unchanged(s)


def test_a_build_that_leaves_too_many_files_is_a_compile_error(cache_stack):
    s = cache_stack()
    need(s, "haskell")
    r = evaluate(s, th_program(MANY))
    assert_ce(r, "build left more than %d files" % BUILD_FILES)
    assert entries(s) == [], entries(s)
    assert_host_unchanged(s)


def test_the_cache_never_passes_its_cap(cache_stack):
    """Builds of 12 MB each (under the per-build limit) against a 64 MB
    cache, one after another: every one answers OK, and the cache stays
    within its cap after each."""
    s = cache_stack()
    need(s, "haskell")
    action = 'writeFile "blob" (replicate (12 * 1024 * 1024) \'y\')'
    for i in range(7):
        r = evaluate(s, th_program(action))
        assert r.status == 200, r
        doc = r.json()
        assert doc["compile"]["ok"] is True, doc["compile"]
        assert doc["results"][0]["verdict"] == "OK", doc
        used = disk_bytes(s.cache_dir)
        assert used <= CACHE_MAX, "after build %d: %d bytes, cap %d" % (i, used, CACHE_MAX)
    assert_host_unchanged(s)


# ------------------------------------------------------------ finding 5

@pytest.mark.parametrize("levels", [130, 1000])
def test_a_deep_tree_left_by_a_build_is_a_compile_error(cache_stack, levels):
    s = cache_stack()
    need(s, "haskell")
    r = evaluate(s, th_program(deep(levels)))
    assert_ce(r, "build left a directory tree deeper than")
    assert entries(s) == [], entries(s)
    # The service is whole: the next request is served.
    ok = evaluate(s, "main = do { [a, b] <- fmap (map read . words) getLine; "
                     "print (a + b :: Integer) }\n")
    assert ok.status == 200 and ok.json()["results"][0]["verdict"] == "OK", ok
    assert_host_unchanged(s)


# ------------------------------------------------------------ finding 8

def test_entries_are_named_by_sha256_of_their_key(cache_stack):
    s = cache_stack()
    need(s, "c")
    code = "int main(){return 0;} /* %s */\n" % uuid.uuid4().hex
    r = evaluate(s, code, tests=(("", ""),), language="c")
    assert r.status == 200 and r.json()["compile"]["ok"] is True, r
    names = entries(s)
    assert len(names) == 1, names
    key = open(os.path.join(s.cache_dir, names[0], "key"), "rb").read()
    assert key.endswith(code.encode()), key[-200:]
    assert names[0] == hashlib.sha256(key).hexdigest(), names
    assert_host_unchanged(s)


def test_an_entry_in_use_is_not_evicted_under_its_request(cache_stack):
    """A long request runs from a cached build while other builds fill the
    cache past its cap.  The entry it uses is older than any grace period
    (its last use set an hour back, as for a request that has run that
    long); it must stay until the request ends."""
    s = cache_stack(RUN_CONCURRENCY="2")
    need(s, "c")
    code = ('#include <stdio.h>\n#include <unistd.h>\n'
            'int main(){long a,b;scanf("%%ld %%ld",&a,&b);usleep(400000);'
            'printf("%%ld\\n",a+b);return 0;} /* %s */\n' % uuid.uuid4().hex)
    first = evaluate(s, code, language="c")
    assert first.status == 200 and first.json()["compile"]["cached"] is False, first
    victim = entries(s)
    assert len(victim) == 1, victim
    result = {}

    # A 5 s limit: its tests sleep 0.4 s while the builds below fill the disk
    # and the other slot, and a test that made no CPU progress for the 2 s
    # default's window (L + 2 s) during that was once ended TLE (cpu 3 ms).
    def long_request():
        result["r"] = evaluate(s, code, tests=[("%d 1" % i, "%d" % (i + 1)) for i in range(20)],
                               language="c", time_limit_ms=5000)

    t = threading.Thread(target=long_request)
    t.start()
    time.sleep(2.0)     # the request is running its tests
    old = time.time() - 3600
    os.utime(os.path.join(s.cache_dir, victim[0]), (old, old))
    # 13 MB of static data each: five of them pass the 64 MB cap.
    for i in range(6):
        big = ('char blob[13 << 20] = {1}; int main(){return blob[%d] - 1;} /* %s */\n'
               % (i, uuid.uuid4().hex))
        r = evaluate(s, big, tests=(("", ""),), language="c")
        assert r.status == 200, r
    t.join(300)
    doc = result["r"].json()
    assert doc["compile"]["cached"] is True, doc["compile"]
    verdicts = [x["verdict"] for x in doc["results"]]
    assert verdicts == ["OK"] * 20, doc["results"]
    assert_host_unchanged(s)


def test_the_operator_can_hide_whether_a_build_was_cached(cache_stack):
    s = cache_stack(RUN_EVAL_HIDE_CACHED="1")
    need(s, "c")
    code = ('#include <stdio.h>\nint main(){long a,b;scanf("%%ld %%ld",&a,&b);'
            'printf("%%ld\\n",a+b);return 0;} /* %s */\n' % uuid.uuid4().hex)
    first = evaluate(s, code, language="c").json()
    second = evaluate(s, code, language="c").json()
    assert len(entries(s)) == 1     # the cache is used ...
    for doc in (first, second):     # ... and nobody can tell
        assert "cached" not in doc["compile"], doc["compile"]
        assert doc["results"][0]["verdict"] == "OK", doc
    assert set(first["compile"]) == set(second["compile"]), (first, second)
    assert first["compile"]["output"] == second["compile"]["output"]
    assert_host_unchanged(s)
