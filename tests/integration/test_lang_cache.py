# SPDX-License-Identifier: Apache-2.0
"""The languages' start-up shells (probe, `make -s -n` of each target) are
cached between starts in the state directory, keyed by what they depend on
(core/lang/shellcache.c): a start whose inputs are unchanged runs no probe,
and any change of an input named in the key runs the shells again.

Through the real gaol-run (a whole process per request, as the one-shot CLI
is used), with a language of the test's own whose probe counts its runs in a
file outside the language directory, and whose `test` target prints a word
read with make's $(shell cat /abs/path) at `make -n` time.
"""

import json
import os
import stat
import subprocess

import pytest

import gaol_helpers as gh

GAOL_RUN = os.path.join(gh.BUILD_DIR, "gaol-run")
LANG_JSON = {
    "slug": "probed", "aliases": [], "workdir": "check",
    "solution_file": "solution.txt", "checker_file": None,
    "checker_required": False, "tmp_size": "16m", "mem_max": "64m",
    "overlay_paths": [],
}


@pytest.fixture
def setup():
    for tmp, env in gh.own_langs("gaol-langcache-", "lc", 18):
        langs = os.path.join(tmp, "langs")
        os.makedirs(os.path.join(tmp, "bin"))
        tool = os.path.join(tmp, "bin", "tool")
        with open(tool, "w") as f:
            # Output that begins with blanks, kept byte for byte by the cache.
            f.write("#!/bin/sh\nprintf '\\n  tool 1\\n'\n")
        os.chmod(tool, 0o755)
        with open(os.path.join(tmp, "word"), "w") as f:
            f.write("alpha\n")
        # The count by a relative path: an absolute one would be in the key,
        # and the count's own growth would change it at every start.
        manifest = dict(LANG_JSON, probe="echo x >> ../../count && %s" % tool)
        d = gh.write_lang(langs, manifest,
                          "test:\n\techo $(shell cat %s/word)\n\n.PHONY: test\n" % tmp)
        env.pop("GAOL_LANG_CACHE", None)
        yield {"tmp": tmp, "langs": langs, "dir": d, "env": env,
               "state": env["GAOL_STATE_DIR"]}


def run(ctx, **extra):
    env = dict(ctx["env"], **extra)
    p = subprocess.run([GAOL_RUN, "--langs", ctx["langs"], "--slot", "0"],
                       input=json.dumps({"lang_slug": "probed", "solution_text": ""}).encode(),
                       env=env, capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["exit_code"] == 0, doc
    return doc["stdout"]


def probes(ctx):
    with open(os.path.join(ctx["tmp"], "count")) as f:
        return len(f.read().split())


def entry(ctx):
    d = os.path.join(ctx["state"], "langs-cache")
    names = [n for n in os.listdir(d) if n.startswith("probed-")]
    assert len(names) == 1, names
    return os.path.join(d, names[0])


def test_unchanged_inputs_run_no_shell_and_a_changed_one_runs_them_again(setup):
    ctx = setup
    assert run(ctx) == "alpha\n" and probes(ctx) == 1
    st = os.stat(entry(ctx))
    assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == 0
    # Unchanged: the probe does not run, the resolved command is the same.
    assert run(ctx) == "alpha\n" and probes(ctx) == 1
    assert run(ctx) == "alpha\n" and probes(ctx) == 1

    # A file the Makefile names (read by $(shell) at make -n time) changes.
    with open(os.path.join(ctx["tmp"], "word"), "w") as f:
        f.write("beta-longer\n")
    assert run(ctx) == "beta-longer\n" and probes(ctx) == 2
    assert run(ctx) == "beta-longer\n" and probes(ctx) == 2

    # The toolchain the probe names is replaced (same size, new inode).
    tool = os.path.join(ctx["tmp"], "bin", "tool")
    with open(tool + ".new", "w") as f:
        f.write("#!/bin/sh\necho tool 2\n")
    os.chmod(tool + ".new", 0o755)
    os.rename(tool + ".new", tool)
    assert run(ctx) == "beta-longer\n" and probes(ctx) == 3
    assert run(ctx) == "beta-longer\n" and probes(ctx) == 3

    # The language directory changes (a file added: its fingerprint).
    with open(os.path.join(ctx["dir"], "extra.txt"), "w") as f:
        f.write("x")
    assert run(ctx) == "beta-longer\n" and probes(ctx) == 4
    assert run(ctx) == "beta-longer\n" and probes(ctx) == 4


def test_cache_off_and_an_untrusted_entry_mean_the_shells_run(setup):
    ctx = setup
    run(ctx)
    assert probes(ctx) == 1
    # Turned off: every start runs its shells.
    run(ctx, GAOL_LANG_CACHE="0")
    run(ctx, GAOL_LANG_CACHE="0")
    assert probes(ctx) == 3
    # An entry others could have written is not used (and is replaced).
    path = entry(ctx)
    os.chmod(path, 0o666)
    run(ctx)
    assert probes(ctx) == 4
    assert stat.S_IMODE(os.stat(entry(ctx)).st_mode) == 0o600
    run(ctx)
    assert probes(ctx) == 4
    # A damaged entry (cut short) is not used either.
    with open(entry(ctx), "r+b") as f:
        f.truncate(os.path.getsize(entry(ctx)) - 3)
    run(ctx)
    assert probes(ctx) == 5
    run(ctx)
    assert probes(ctx) == 5


def test_a_one_shot_runs_the_shells_of_its_own_language_only(setup):
    """A one-shot gaol-run reads every manifest but runs (or takes from the
    cache) the start-up shells of the language its request names alone
    (core/lang/lang.h, langs_load_names); a language it does not know makes
    it list the installed ones, which needs every probe."""
    ctx = setup
    other = dict(LANG_JSON, slug="other", aliases=["oth"],
                 probe="echo x >> ../../count-other")
    gh.write_lang(ctx["langs"], other,
                  "test run:\n\techo other\nbuild:\n\ttrue\n\n.PHONY: test run build\n")

    def other_probes():
        path = os.path.join(ctx["tmp"], "count-other")
        return len(open(path).read().split()) if os.path.exists(path) else 0

    off = {"GAOL_LANG_CACHE": "0"}
    assert run(ctx, **off) == "alpha\n"
    assert (probes(ctx), other_probes()) == (1, 0)
    # /evaluate by an alias, in another case: that language's alone.
    req = {"language": "OTH", "code": "", "test_cases": [{"input": "", "expected_output": "other"}]}
    p = subprocess.run([GAOL_RUN, "--langs", ctx["langs"], "--slot", "0"],
                       input=json.dumps(req).encode(), env=dict(ctx["env"], **off),
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["results"][0]["verdict"] == "OK", p.stdout
    assert (probes(ctx), other_probes()) == (1, 1)
    # An unknown language: the answer names the installed ones.
    p = subprocess.run([GAOL_RUN, "--langs", ctx["langs"], "--slot", "0"],
                       input=json.dumps({"lang_slug": "nope", "solution_text": ""}).encode(),
                       env=dict(ctx["env"], **off), capture_output=True, timeout=60)
    assert p.returncode == 1
    assert json.loads(p.stdout)["error"] == \
        'unknown lang_slug "nope" (installed: other, probed)', p.stdout
    assert (probes(ctx), other_probes()) == (2, 2)
