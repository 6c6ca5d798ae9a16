// SPDX-License-Identifier: Apache-2.0
// Partial: k percent of the answer's numbers right, said as testlib's
// _pc(k) does ("partially correct (k)", exit k: its PC base is 0).
#include "judge.h"

int main(int argc, char **argv)
{
	if (argc < 4)
		FAIL("usage: partial <input> <output> <answer>");
	auto out = judge_tokens(judge_read(argv[2]));
	auto ans = judge_tokens(judge_read(argv[3]));
	size_t right = 0;
	for (size_t i = 0; i < ans.size() && i < out.size(); i++)
		right += out[i] == ans[i];
	if (right == ans.size())
		OK("all right");
	int k = (int)(100 * right / (ans.empty() ? 1 : ans.size()));
	std::fprintf(stderr, "partially correct (%d) %zu of %zu\n", k, right, ans.size());
	return k;
}
