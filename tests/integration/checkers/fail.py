# SPDX-License-Identifier: Apache-2.0
# A checker that fails (testlib's FAIL, exit 3): the answer is not what it
# expects.  The test is the checker's fault, never a wrong answer.
import sys

size = len(open(sys.argv[3], "rb").read())
sys.stderr.write("FAIL answer file is corrupt: %d bytes\n" % size)
sys.exit(3)
