# SPDX-License-Identifier: Apache-2.0
"""pytest plugin for the suites inside the VM (tests/vm/suites.sh loads it
with -p vm_select): deselects, never skips, so that what did not run is
counted as deselected and not as passed.

1. Languages: under TCG a JVM or a .NET runtime takes tens of seconds to
   start, so inside the VM the integration tests run for the languages in
   GAOL_VM_LANGS only (default "python c js": issue 10 named these and
   cpp, whose toolchain-heavy builds issue 29 left to the host, see
   tests/vm/README.md), by tests/lang_select.py's rule.
2. tests/vm/timing-bound.txt: tests that cannot hold under emulation, one
   node id per line with the reason after " # ".  Each is listed with its
   reason in the output.
3. tests/vm/host-only.txt, in the same format: tests that hold in the VM
   but test nothing of the kernel or of cgroup v2 and cost minutes under
   TCG (a language recipe's choices, one C++ build each); `make test` runs
   them on the host.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import lang_select  # noqa: E402


def _listed(name):
    out = {}
    path = os.path.join(HERE, name)
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                nodeid, _, why = line.partition(" # ")
                out[nodeid.strip()] = why.strip()
    return out


def pytest_collection_modifyitems(session, config, items):
    keep = set(os.environ.get("GAOL_VM_LANGS", "python c js").split())
    # The languages tests/vm/run.sh hid from the guest's langs/ count too.
    others = (lang_select.slugs() | set(os.environ.get("GAOL_VM_LANGS_HIDDEN", "").split())) - keep
    timing = dict((k, ("timing-bound under TCG", v)) for k, v in _listed("timing-bound.txt").items())
    timing.update((k, ("host-only", v)) for k, v in _listed("host-only.txt").items())
    timed = [item for item in items if item.nodeid in timing]
    for item in timed:
        print("\nvm_select: deselected (%s): %s -- %s"
              % (timing[item.nodeid][0], item.nodeid, timing[item.nodeid][1]))
    selected, dropped, by_lang = lang_select.split(
        [item for item in items if item.nodeid not in timing], others)
    dropped = timed + dropped
    lang_select.report("vm_select", keep, by_lang)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = selected
