# SPDX-License-Identifier: Apache-2.0
# Partial: k percent of the answer's numbers right, said as testlib's _pc(k)
# does ("partially correct (k)", exit k: its PC base is 0).
import sys

out = open(sys.argv[2]).read().split()
ans = open(sys.argv[3]).read().split()
right = sum(1 for a, b in zip(out, ans) if a == b)
if right == len(ans):
    sys.stderr.write("ok all right\n")
    sys.exit(0)
k = 100 * right // max(len(ans), 1)
sys.stderr.write("partially correct (%d) %d of %d\n" % (k, right, len(ans)))
sys.exit(k)
