#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Sizes that CONTRIBUTING.md ("Code style") bounds: C files over 700 lines
and functions over 90 lines, in core/ and fcgi/.  A function runs from its
signature to the next column-0 '}'.  The signature is the column-0 line that
names the function, with the lines above it of the same declaration (a
return type on a line of its own) and the lines below it that continue it
(indented: parameters wrapped onto more lines), up to a column-0 '{' or a
line ending in ') {'.  Prints the longest (TOP, default 10) and the files
over 700 lines; exits 1 when a bound is crossed.

    /usr/bin/python3 tests/style/lengths.py core/*/*.c fcgi/*.c
"""
import os, re, sys

SKIP = ('__attribute__', 'noreturn', 'format')
ENDS_DECL = (';', '*/', '{', '}')


def starts_signature(line):
    """A column-0 line that may begin a function's signature."""
    return bool(re.match(r'^[A-Za-z_]', line)) and not line.endswith(ENDS_DECL[:2])


def opens_body(lines, i):
    """Whether lines[i] opens a function body: a column-0 '{', or a line
    ending in ') {' that is (or continues) a column-0 signature."""
    if lines[i] == '{':
        return True
    if not re.search(r'\)\s*\{$', lines[i]):
        return False
    j = i
    while j > 0 and lines[j][:1] in (' ', '\t'):
        j -= 1
        if not lines[j] or lines[j].endswith(ENDS_DECL):
            return False
    return starts_signature(lines[j])


def signature_start(lines, i):
    """The first line of the signature whose body opens at lines[i]."""
    j = i if lines[i] != '{' else i - 1
    while j > 0 and lines[j][:1] in (' ', '\t') and lines[j - 1] \
            and not lines[j - 1].endswith(ENDS_DECL):
        j -= 1                         # wrapped parameters
    while j > 0 and lines[j - 1] and starts_signature(lines[j - 1]):
        j -= 1                         # a return type on its own line
    return j


rows, files = [], []
for path in sys.argv[1:]:
    lines = open(path).read().split('\n')
    files.append((len(lines) - 1, path))
    i = 0
    while i < len(lines):
        if opens_body(lines, i):
            j = signature_start(lines, i)
            sig = ' '.join(lines[j:i + 1])
            names = [n for n in re.findall(r'(\w+)\s*\(', sig) if n not in SKIP]
            k = i + 1
            while k < len(lines) and lines[k] != '}' and not lines[k].startswith('};'):
                k += 1
            if names and '=' not in sig.split('(')[0]:
                rows.append((k - j + 1, path, names[0]))
            i = k
        i += 1
rows.sort(reverse=True)
for n, p, f in rows[:int(os.environ.get('TOP', '10'))]:
    print('%5d %s:%s' % (n, p, f))
big = [(n, p) for n, p in files if n > 700]
for n, p in big:
    print('file over 700 lines: %s (%d)' % (p, n))
sys.exit(1 if big or (rows and rows[0][0] > 90) else 0)
