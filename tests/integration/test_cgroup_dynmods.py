# SPDX-License-Identifier: Apache-2.0
"""RUN_CGROUP_FAVORDYNMODS (core/slot/dynmods.c): on a host whose controllers
are on cgroup v1, gaol remounts the cgroup2 superblock with favordynmods, so
that a run's init joining its slot's cgroups waits for no RCU grace period.

Through the real gaol-run on the host's real cgroup2 mount.  What is asserted
is what a host's owner sees: the option set on a v1 host and nothing else of
the mount changed (its other superblock options, such as systemd's nsdelegate,
and the mount's own flags), left alone on a v2 host and without the flag.
Each test gives the mount back as it found it.  (From Linux 6.18 the
kernel keeps favordynmods' effect until reboot once it has been set, whatever
the mount says after: a host's owner should know that gaol's test suite, run
on a v1 host, turns it on for good.)
"""

import json
import os
import subprocess

import pytest

import gaol_helpers as gh
import host_cgroup2 as hc

GAOL_RUN = os.path.join(gh.BUILD_DIR, "gaol-run")


@pytest.fixture
def host():
    """The cgroup2 mount without favordynmods for the test (taken off first
    if the host had it), given back as found afterwards."""
    if os.geteuid() != 0:
        pytest.fail("gaol-run needs root")
    found = hc.mount()
    if found is None:
        pytest.skip("no cgroup2 mount on this host: nothing to set the option on")
    point, _, super_opts = found
    plain = hc.without_favor(super_opts)
    if plain != super_opts:
        hc.reconfigure(point, plain)
        if hc.mount()[2] != plain:
            # Kernels after 6.18 may refuse to take it off once set.
            pytest.skip("the host's cgroup2 mount has favordynmods and this kernel "
                        "keeps it: gaol setting it cannot be observed")
    langs = os.path.join(gh.REPO, "tests", "bench", "langs")
    state = "/run/gaol-dynmods-%d" % os.getpid()
    env = dict(os.environ, GAOL_STATE_DIR=state, GAOL_INSTANCE="dm%d" % os.getpid(),
               RUN_UID_BASE=str(gh.UID_BASE + 160))
    env.pop("RUN_CGROUP_FAVORDYNMODS", None)
    yield {"point": point, "plain": plain, "found": found, "env": env, "langs": langs}
    if hc.mount()[2] != super_opts:
        hc.reconfigure(point, super_opts)
    # Given back as found, but for a kernel that keeps favordynmods once set
    # (after 6.18): then the test set it and the host keeps it.
    assert hc.mount() in (found, (point, found[1], hc.without_favor(super_opts) +
                                  ",favordynmods")), hc.mount()
    subprocess.run(["rm", "-rf", "--one-file-system", state], check=False)


def run(ctx, **extra):
    p = subprocess.run([GAOL_RUN, "--langs", ctx["langs"], "--slot", "0"],
                       input=json.dumps({"lang_slug": "true", "solution_text": ""}).encode(),
                       env=dict(ctx["env"], **extra), capture_output=True, timeout=60)
    return p


def test_a_v1_host_gets_favordynmods_and_nothing_else_of_its_mount_changes(host):
    point, mount_opts, _ = host["found"]
    p = run(host, RUN_CGROUP_FAVORDYNMODS="1")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["exit_code"] == 0 and doc["oom_killed"] is False, doc
    if hc.v1_host():
        want = host["plain"] + ",favordynmods"
        assert hc.mount() == (point, mount_opts, want)
        # Set once: the next start finds it and changes nothing.
        p = run(host, RUN_CGROUP_FAVORDYNMODS="1")
        assert p.returncode == 0, p.stderr
        assert hc.mount() == (point, mount_opts, want)
    else:
        # v2: each init is cloned into its cgroup; the option is left alone.
        assert hc.mount() == (point, mount_opts, host["plain"])


def test_the_superblock_options_a_host_set_are_kept(host):
    # systemd mounts cgroup2 with nsdelegate (and memory_recursiveprot where
    # the kernel has it); a reconfigure clears the flags it is not given.
    if not hc.v1_host():
        pytest.skip("v2 host: gaol leaves the mount alone (the test above)")
    point, mount_opts, _ = host["found"]
    opts = host["plain"] + ("" if "nsdelegate" in host["plain"].split(",") else ",nsdelegate")
    hc.reconfigure(point, opts)
    p = run(host, RUN_CGROUP_FAVORDYNMODS="true")
    assert p.returncode == 0, p.stderr
    assert hc.mount() == (point, mount_opts, opts + ",favordynmods")


def test_without_the_flag_the_mount_is_left_alone(host):
    point, mount_opts, _ = host["found"]
    for value in (None, "0"):
        extra = {} if value is None else {"RUN_CGROUP_FAVORDYNMODS": value}
        p = run(host, **extra)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["exit_code"] == 0
        assert hc.mount() == (point, mount_opts, host["plain"])


def test_a_value_that_is_not_a_flag_is_refused_by_name(host):
    p = run(host, RUN_CGROUP_FAVORDYNMODS="sometimes")
    assert p.returncode != 0
    assert b"RUN_CGROUP_FAVORDYNMODS" in p.stderr, p.stderr
    assert hc.mount() == (host["point"], host["found"][1], host["plain"])
