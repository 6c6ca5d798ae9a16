#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Dependencies run one way (docs/layout.md, "Floors"): a file of a folder
never includes a header of a folder on a higher floor, and no two folders
include each other.  The floors are read from docs/layout.md's numbered
list, lowest first; each folder of core/ must be on one, and fcgi/ is the
top floor (its own headers are included without a folder).  Every
`#include "folder/..."` of every .c and .h file is a dependency.

    /usr/bin/python3 tests/style/layers.py [ROOT]      (make style)
    /usr/bin/python3 tests/style/layers.py --count ROOT FLOOR...
        the dependencies between folders of the tree at ROOT, and those
        that point up in the order FLOOR... (for a before/after figure)

Exits 1, naming each file and include, when a rule is broken.
"""
import os, re, sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z0-9_]+)/[^"]+"', re.M)


def floors_of(root):
    """The numbered list under '## Floors' of docs/layout.md."""
    text = open(os.path.join(root, 'docs/layout.md')).read()
    part = text.split('\n## Floors\n', 1)
    if len(part) != 2:
        sys.exit('layers: docs/layout.md has no "## Floors" section')
    names = []
    for line in part[1].split('\n## ', 1)[0].splitlines():
        m = re.match(r'^\d+\. `([a-z0-9_]+)/`', line)
        if m:
            names.append(m.group(1))
    if not names:
        sys.exit('layers: docs/layout.md lists no floor')
    return names


def folders(root):
    """Each folder's files: core/<folder>/*.[ch], and fcgi/*.[ch]."""
    out = {}
    for top in ('core', 'fcgi'):
        base = os.path.join(root, top)
        for dirpath, _, names in sorted(os.walk(base)):
            for n in sorted(names):
                if not n.endswith(('.c', '.h')):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, n), root)
                parts = rel.split(os.sep)
                folder = 'fcgi' if top == 'fcgi' else parts[1]
                if top == 'core' and len(parts) != 3:
                    continue
                out.setdefault(folder, []).append(rel)
    return out


def edges(root, files):
    """(from folder, to folder, file, included folder) for each include of
    another folder."""
    found = []
    for folder, paths in files.items():
        for p in paths:
            for target in INCLUDE.findall(open(os.path.join(root, p)).read()):
                if target != folder and target in files:
                    found.append((folder, target, p))
    return found


def check(root):
    order = floors_of(root)
    files = folders(root)
    rank = {f: i for i, f in enumerate(order)}
    bad = ['%s/ is on no floor of docs/layout.md' % f for f in sorted(files)
           if f not in rank]
    found = edges(root, files)
    for a, b, p in found:
        if a in rank and b in rank and rank[b] > rank[a]:
            bad.append('%s: includes %s/, a floor above %s/' % (p, b, a))
    pairs = {(a, b) for a, b, _ in found}
    for a, b in sorted(pairs):
        if a < b and (b, a) in pairs:
            bad.append('%s/ and %s/ include each other' % (a, b))
    for line in bad:
        print('layers: ' + line)
    print('layers: %d folders, %d dependencies between them, floors %s: %s'
          % (len(files), len(pairs), ' < '.join(order), 'FAILED' if bad else 'ok'))
    return 1 if bad else 0


def count(root, order):
    files = folders(root)
    rank = {f: i for i, f in enumerate(order)}
    pairs = sorted({(a, b) for a, b, _ in edges(root, files)})
    up = [(a, b) for a, b in pairs if rank.get(b, -1) > rank.get(a, -1)]
    circles = [(a, b) for a, b in pairs if a < b and (b, a) in pairs]
    print('%d dependencies between folders; %d upward: %s; %d circles: %s'
          % (len(pairs), len(up), ', '.join('%s->%s' % e for e in up),
             len(circles), ', '.join('%s<->%s' % e for e in circles)))


if __name__ == '__main__':
    if len(sys.argv) > 2 and sys.argv[1] == '--count':
        count(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else '.'))
