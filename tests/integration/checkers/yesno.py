# SPDX-License-Identifier: Apache-2.0
# YES or NO, in any case: the answer's word, else wrong answer; anything
# else is a wrong output format.  A python checker, to testlib's protocol.
import sys


def quit(code, words, message):
    sys.stderr.write("%s %s\n" % (words, message))
    sys.exit(code)


def main():
    if len(sys.argv) < 4:
        quit(3, "FAIL", "usage: yesno <input> <output> <answer>")
    out = open(sys.argv[2]).read().split()
    ans = open(sys.argv[3]).read().split()
    if len(out) != 1 or out[0].upper() not in ("YES", "NO"):
        quit(2, "wrong output format", "YES or NO expected, found %r" % out[:2])
    if out[0].upper() != ans[0].upper():
        quit(1, "wrong answer", "expected %s, found %s" % (ans[0], out[0]))
    quit(0, "ok", "answer is %s" % ans[0].upper())


main()
