# SPDX-License-Identifier: Apache-2.0
"""The slot's template holds a copy of a host mount only when a run reaches it
(core/slot/prune.h, docs/design.md "Mount views"): the state directory, the
languages' directories and overlay paths, each through whatever mounts and
symlinks lead there.  Every other host mount would be copied into each run's
mount namespace and detached again at its pivot_root, for nothing.

Through the real gaol-run with --keep, whose template namespace stays pinned
in the keep directory where the test can look into it (nsenter), on a
language of the test's own that lives on mounts of its own: its directory is
a symlink onto one tmpfs, its overlay path another; a third tmpfs nobody
reaches must not be in the template.
"""

import json
import os
import subprocess

import gaol_helpers as gh

GAOL_RUN = os.path.join(gh.BUILD_DIR, "gaol-run")
UID_OFFSET = 19
KEPT_OFFSET = 21                        # and 22: two kept slots


def mount_tmpfs(path):
    os.makedirs(path)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "gaol-test", path],
                   check=True)


def mount_points():
    return {line.split()[4] for line in open("/proc/self/mountinfo")}


def template_mount_points(keep):
    p = subprocess.run(["nsenter", "--mount=" + os.path.join(keep, "mnt"),
                        "cat", "/proc/self/mountinfo"],
                       capture_output=True, text=True, timeout=30, check=True)
    return {line.split()[4] for line in p.stdout.splitlines()}


def test_the_template_keeps_the_mounts_a_run_reaches_and_no_other():
    for tmp, env in gh.own_langs("gaol-prune-", "pr", UID_OFFSET):
        lang_mnt = os.path.join(tmp, "on-a-mount")
        # Not under /tmp, which is each run's own.
        cache_mnt = "/mnt/%s-cache" % os.path.basename(tmp)
        unrelated = os.path.join(tmp, "unrelated")
        ours = [lang_mnt, cache_mnt, unrelated]
        before = mount_points()
        uid = gh.UID_BASE + UID_OFFSET
        keep = os.path.join(env["GAOL_STATE_DIR"], "uid%d.keep" % uid)
        try:
            for m in ours:
                mount_tmpfs(m)
            with open(os.path.join(cache_mnt, "warm"), "w") as f:
                f.write("from the overlay path\n")
            lang_json = {
                "slug": "prpy", "aliases": [], "workdir": "check",
                "solution_file": "solution.py", "checker_file": None,
                "checker_required": False, "tmp_size": "16m", "mem_max": "256m",
                "overlay_paths": [cache_mnt], "probe": "/usr/bin/python3 --version",
            }
            # The language's directory is on the tmpfs; langs/ holds a
            # symlink to it.
            d = gh.write_lang(lang_mnt, lang_json,
                              "test run:\n\t/usr/bin/python3 -I check/solution.py\n"
                              "build:\n\ttrue\n\n.PHONY: test run build\n",
                              {"marker": ("from the language's mount\n", 0o644)})
            os.symlink(d, os.path.join(tmp, "langs", "prpy"))
            code = ("print(open('/sandbox/marker').read().strip())\n"
                    "print(open(%r).read().strip())\n" % os.path.join(cache_mnt, "warm"))
            p = subprocess.run([GAOL_RUN, "--langs", os.path.join(tmp, "langs"), "--slot", "0",
                                "--keep"],
                               input=json.dumps({"lang_slug": "prpy", "timeout": "20s",
                                                 "solution_text": code}).encode(),
                               env=env, capture_output=True, timeout=120)
            assert p.returncode == 0, p.stderr
            doc = json.loads(p.stdout)
            assert doc["exit_code"] == 0, json.dumps(doc)
            assert doc["stdout"].splitlines() == ["from the language's mount",
                                                  "from the overlay path"], doc

            held = template_mount_points(keep)
            assert lang_mnt in held and cache_mnt in held, sorted(held)
            assert unrelated not in held, sorted(held)
            # Of the host's own mounts, only those on the way to what a run
            # reaches (/, /proc, whatever holds the test's directory or the
            # state directory), beside the slot's own.
            state = env["GAOL_STATE_DIR"]
            host = {m for m in held if not m.startswith(state + "/")} - {lang_mnt, cache_mnt}
            reached = {"/", "/proc"} | {m for m in mount_points() if m != "/" and any(
                (d + "/").startswith(m + "/") for d in (tmp, state, cache_mnt))}
            assert host <= reached, sorted(host - reached)
        finally:
            c = subprocess.run([GAOL_RUN, "--langs", os.path.join(tmp, "langs"), "--slot", "0",
                                "--cleanup"], env=env, capture_output=True, timeout=120)
            for m in ours:
                subprocess.run(["umount", m], check=False)
            if os.path.isdir(cache_mnt):
                os.rmdir(cache_mnt)
        assert c.returncode == 0, c.stderr
        assert not os.path.exists(keep)
        assert mount_points() == before


def test_a_template_holds_no_kept_slots_pins():
    """What a kept slot pins in the state directory (its template's and its
    network namespace's mounts, slot/keep.h) is no run's business: a template
    holding a copy of such a pin would keep that namespace alive after the
    pin is replaced or its slot cleaned up.  The template keeps, of the state
    directory, its own slot's tree and the compile cache."""
    for tmp, env in gh.own_langs("gaol-pins-", "pk", KEPT_OFFSET):
        langs = os.path.join(tmp, "langs")
        gh.write_lang(langs, {
            "slug": "pkpy", "aliases": [], "workdir": "check", "solution_file": "solution.py",
            "checker_file": None, "checker_required": False, "tmp_size": "16m",
            "mem_max": "256m", "overlay_paths": [], "probe": "/usr/bin/python3 --version",
        }, "test:\n\t/usr/bin/python3 -I check/solution.py\n\n.PHONY: test\n")
        state = env["GAOL_STATE_DIR"]
        before = mount_points()

        def run(slot, **extra):
            p = subprocess.run([GAOL_RUN, "--langs", langs, "--slot", str(slot), "--keep"],
                               input=json.dumps({"lang_slug": "pkpy", "solution_text": "print(1)"})
                               .encode(), env=dict(env, **extra), capture_output=True,
                               timeout=120)
            assert p.returncode == 0, p.stderr
            assert json.loads(p.stdout)["stdout"] == "1\n", p.stdout

        def keep(slot):
            return os.path.join(state, "uid%d.keep" % (gh.UID_BASE + KEPT_OFFSET + slot))

        try:
            run(0)
            run(1)
            # Built again (another template input) while its own pins exist.
            run(1, RUN_ROOT_EXTRA="/opt")
            for slot in (0, 1):
                held = template_mount_points(keep(slot))
                pins = sorted(m for m in held if ".keep" in m)
                assert pins == [], (slot, pins)
                own = os.path.join(state, "uid%d" % (gh.UID_BASE + KEPT_OFFSET + slot))
                others = sorted(m for m in held if m.startswith(state + "/")
                                and not (m + "/").startswith(own + "/"))
                assert others == [], (slot, others)
            run(0)
            run(1, RUN_ROOT_EXTRA="/opt")
        finally:
            for slot in (0, 1):
                c = subprocess.run([GAOL_RUN, "--langs", langs, "--slot", str(slot),
                                    "--cleanup"], env=env, capture_output=True, timeout=120)
                assert c.returncode == 0, c.stderr
        assert mount_points() == before
