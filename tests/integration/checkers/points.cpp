// SPDX-License-Identifier: Apache-2.0
// Points: one point per right number of the answer, said testlib's way
// ("points <x>", exit 7); all right is ok.
#include "judge.h"

int main(int argc, char **argv)
{
	if (argc < 4)
		FAIL("usage: points <input> <output> <answer>");
	auto out = judge_tokens(judge_read(argv[2]));
	auto ans = judge_tokens(judge_read(argv[3]));
	size_t right = 0;
	for (size_t i = 0; i < ans.size() && i < out.size(); i++)
		right += out[i] == ans[i];
	if (right == ans.size())
		OK("all %zu right", right);
	std::fprintf(stderr, "points %zu of %zu right\n", right, ans.size());
	return J_POINTS;
}
