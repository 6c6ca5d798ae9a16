# SPDX-License-Identifier: Apache-2.0
"""A recipe that is `exec <path> <plain words>` is exec'd by init itself,
without /bin/sh (core/lang/recipe.c, lang_direct_argv; core/inside/init.c).
What the program gets and what the client reads must be what dash gave:
the same environment, the same argv, and, when the exec fails, dash's own
answer (init then execs /bin/sh -c, which does it again and says why).

Through the real gaol-run, each case twice: as a language whose recipe init
execs itself, and as one whose recipe ends in a shell comment (`#shell`), so
that it goes through dash as before.  The answers must be equal.
"""

import json
import os
import subprocess

import pytest

import gaol_helpers as gh

GAOL_RUN = os.path.join(gh.BUILD_DIR, "gaol-run")
LANG_JSON = {
    "aliases": [], "workdir": "check", "solution_file": "solution.txt",
    "checker_file": None, "checker_required": False, "tmp_size": "16m",
    "mem_max": "64m", "overlay_paths": [], "probe": "true",
}
# name: (recipe, files of the language directory {name: (text, mode)})
CASES = {
    "env": ("/usr/bin/env", {}),
    "argv": ("/usr/bin/printf %s: a b=c -d ./e", {}),
    "missing": ("./missing", {}),
    "noshebang": ("./script", {"script": ("echo from dash: $0 $#\n", 0o755)}),
    "notexec": ("./notexec", {"notexec": ("#!/bin/sh\necho never\n", 0o644)}),
    "fails": ("/usr/bin/false", {}),
}


@pytest.fixture(scope="module")
def langs():
    for tmp, env in gh.own_langs("gaol-direct-", "dx", 170):
        root = os.path.join(tmp, "langs")
        for name, (recipe, files) in CASES.items():
            for via, line in (("direct", recipe), ("shell", recipe + " #shell")):
                gh.write_lang(root, dict(LANG_JSON, slug=name + via),
                              "test:\n\t%s\n\n.PHONY: test\n" % line, files)
        yield {"root": root, "env": env}


def run(ctx, slug):
    p = subprocess.run([GAOL_RUN, "--langs", ctx["root"], "--slot", "0"],
                       input=json.dumps({"lang_slug": slug, "solution_text": ""}).encode(),
                       env=ctx["env"], capture_output=True, timeout=60)
    assert p.returncode in (0, 1), p.stderr
    doc = json.loads(p.stdout)
    return {k: doc[k] for k in ("exit_code", "stdout", "stderr", "signal", "timed_out")}


@pytest.mark.parametrize("name", sorted(CASES))
def test_init_execing_the_recipe_answers_as_dash_did(langs, name):
    direct, shell = run(langs, name + "direct"), run(langs, name + "shell")
    if name == "env":
        # The same variables, PWD among them; only their order may differ.
        d, s = sorted(direct["stdout"].splitlines()), sorted(shell["stdout"].splitlines())
        assert d == s and "PWD=/sandbox" in d, (direct, shell)
        direct["stdout"] = shell["stdout"] = ""
    assert direct == shell


def test_what_each_case_answers(langs):
    # The cases above compare two paths; this pins what both give, so that
    # two equally wrong answers do not pass.
    assert run(langs, "argvdirect")["stdout"] == "a:b=c:-d:./e:"
    missing = run(langs, "missingdirect")
    assert missing["exit_code"] == 127 and "not found" in missing["stderr"], missing
    assert run(langs, "noshebangdirect")["stdout"] == "from dash: ./script 0\n"
    notexec = run(langs, "notexecdirect")
    assert notexec["exit_code"] == 126 and "Permission denied" in notexec["stderr"], notexec
    assert run(langs, "failsdirect")["exit_code"] == 1
