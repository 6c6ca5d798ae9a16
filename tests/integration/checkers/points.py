# SPDX-License-Identifier: Apache-2.0
# Points: one point per right number of the answer, said testlib's way
# ("points <x>", exit 7); all right is ok.
import sys

out = open(sys.argv[2]).read().split()
ans = open(sys.argv[3]).read().split()
right = sum(1 for a, b in zip(out, ans) if a == b)
if right == len(ans):
    sys.stderr.write("ok all %d right\n" % right)
    sys.exit(0)
sys.stderr.write("points %d of %d right\n" % (right, len(ans)))
sys.exit(7)
