// SPDX-License-Identifier: Apache-2.0
// Token comparison: the output's whitespace-separated words equal the answer's.
#include "judge.h"

int main(int argc, char **argv)
{
	if (argc < 4)
		FAIL("usage: tokens <input> <output> <answer>");
	auto out = judge_tokens(judge_read(argv[2]));
	auto ans = judge_tokens(judge_read(argv[3]));
	for (size_t i = 0; i < ans.size(); i++) {
		if (i >= out.size())
			WA("%zu tokens expected, found %zu", ans.size(), out.size());
		if (out[i] != ans[i])
			WA("token %zu: expected \"%s\", found \"%s\"", i + 1, ans[i].c_str(),
			   out[i].c_str());
	}
	if (out.size() > ans.size())
		WA("extra tokens after %zu", ans.size());
	OK("%zu tokens", ans.size());
}
