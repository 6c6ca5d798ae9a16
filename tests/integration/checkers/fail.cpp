// SPDX-License-Identifier: Apache-2.0
// A checker that fails (testlib's FAIL, exit 3): the answer file is not what
// it expects.  The test is the checker's fault, never a wrong answer.
#include "judge.h"

int main(int argc, char **argv)
{
	if (argc < 4)
		FAIL("usage: fail <input> <output> <answer>");
	FAIL("answer file is corrupt: %zu bytes", judge_read(argv[3]).size());
}
