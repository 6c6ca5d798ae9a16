#!/usr/bin/python3
"""Sizes that STYLE.md and COMMON.md bound: C files over 700 lines and
functions over 90 lines, in core/ and fcgi/.  A function runs from its
signature (the lines above a column-0 '{', or a line ending in ') {') to the
next column-0 '}'.  Prints the longest (TOP, default 10) and the files over
700 lines; exits 1 when a bound is crossed.

    /usr/bin/python3 tests/style/lengths.py core/*/*.c fcgi/*.c
"""
import os, re, sys

SKIP = ('__attribute__', 'noreturn', 'format')
rows, files = [], []
for path in sys.argv[1:]:
    lines = open(path).read().split('\n')
    files.append((len(lines) - 1, path))
    i = 0
    while i < len(lines):
        if lines[i] == '{' or re.match(r'^[A-Za-z_].*\)\s*\{$', lines[i]):
            j = i if lines[i] != '{' else i - 1
            while j > 0 and lines[j - 1] and not lines[j - 1].startswith((' ', '\t', '}', '#', '/', '*')) \
                    and not lines[j - 1].endswith((';', '*/')):
                j -= 1
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
