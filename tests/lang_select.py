# SPDX-License-Identifier: Apache-2.0
"""pytest plugin (-p lang_select, with tests/ on PYTHONPATH): when
GAOL_TEST_LANGS is set, the integration tests of other languages are
deselected, never skipped, so that what did not run is counted as
deselected and not as passed.

`make test SANITIZE=1` sets it (SAN_LANGS): the sanitizers watch gaol's own
C, which every language drives the same way, so that pass runs the toolchain
matrix (a+b, the clients' checkers, the limits of every language) for a few
languages only; the plain pass runs all of them.  tests/vm/vm_select.py uses
the same rule inside the VM.

A test is another language's when one of its parameters is a language slug
(langs/<slug>, or one of the clients' names for it: py3, C++, Java) not in
the list, or when a word of its function's name is one.
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ALIASES = {"py3": "python", "python3": "python", "c++": "cpp", "node": "js",
           "javascript": "js", "go": "golang", "c#": "csharp"}


def slugs():
    d = os.path.join(REPO, "langs")
    return {s for s in os.listdir(d) if os.path.isfile(os.path.join(d, s, "lang.json"))}


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


def split(items, others):
    """(kept, dropped, {slug: count dropped}) of items by other_language."""
    kept, dropped, by_lang = [], [], {}
    for item in items:
        lang = other_language(item, others)
        if lang is None:
            kept.append(item)
        else:
            dropped.append(item)
            by_lang[lang] = by_lang.get(lang, 0) + 1
    return kept, dropped, by_lang


def report(prefix, keep, by_lang):
    if by_lang:
        print("\n%s: languages kept: %s; deselected by language: %s"
              % (prefix, " ".join(sorted(keep)),
                 ", ".join("%s %d" % kv for kv in sorted(by_lang.items()))))


def pytest_collection_modifyitems(session, config, items):
    if "GAOL_TEST_LANGS" not in os.environ:
        return
    keep = set(os.environ["GAOL_TEST_LANGS"].split())
    kept, dropped, by_lang = split(items, slugs() - keep)
    report("lang_select", keep, by_lang)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
