"""pytest plugin for the suites inside the VM (tests/vm/suites.sh loads it
with -p vm_select): deselects, never skips, so that what did not run is
counted as deselected and not as passed.

1. Languages: under TCG a JVM or a .NET runtime takes tens of seconds to
   start, so inside the VM the integration tests run for the languages in
   GAOL_VM_LANGS only (default "python c cpp js", the ones issue 10 names).
   A test is another language's when one of its parameters is a language
   slug (langs/<slug>, or one of the clients' names for it: py3, C++, Java)
   not in that list, or when a word of its function's name is one.
2. tests/vm/timing-bound.txt: tests that cannot hold under emulation, one
   node id per line with the reason after " # ".  Each is listed with its
   reason in the output.
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ALIASES = {"py3": "python", "python3": "python", "c++": "cpp", "node": "js",
           "javascript": "js", "go": "golang", "c#": "csharp"}


def _slugs():
    d = os.path.join(REPO, "langs")
    return {s for s in os.listdir(d) if os.path.isfile(os.path.join(d, s, "lang.json"))}


def _timing_bound():
    out = {}
    path = os.path.join(HERE, "timing-bound.txt")
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                nodeid, _, why = line.partition(" # ")
                out[nodeid.strip()] = why.strip()
    return out


def _values(v):
    if isinstance(v, (tuple, list)):
        for x in v:
            yield from _values(x)
    elif isinstance(v, str):
        yield v


def other_language(item, others):
    """The slug of another language this test is about, or None."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    for v in params.values():
        for s in _values(v):
            s = ALIASES.get(s.lower(), s.lower())
            if s in others:
                return s
    for word in getattr(item, "originalname", item.name).split("_"):
        if word in others:
            return word
    return None


def pytest_collection_modifyitems(session, config, items):
    keep = set(os.environ.get("GAOL_VM_LANGS", "python c cpp js").split())
    # The languages tests/vm/run.sh hid from the guest's langs/ count too.
    others = (_slugs() | set(os.environ.get("GAOL_VM_LANGS_HIDDEN", "").split())) - keep
    timing = _timing_bound()
    selected, dropped, by_lang = [], [], {}
    for item in items:
        if item.nodeid in timing:
            dropped.append(item)
            print("\nvm_select: deselected (timing-bound under TCG): %s -- %s"
                  % (item.nodeid, timing[item.nodeid]))
            continue
        lang = other_language(item, others)
        if lang is not None:
            dropped.append(item)
            by_lang[lang] = by_lang.get(lang, 0) + 1
            continue
        selected.append(item)
    if by_lang:
        print("\nvm_select: languages kept: %s; deselected by language: %s"
              % (" ".join(sorted(keep)),
                 ", ".join("%s %d" % kv for kv in sorted(by_lang.items()))))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = selected
