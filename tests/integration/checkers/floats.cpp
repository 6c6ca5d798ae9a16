// SPDX-License-Identifier: Apache-2.0
// Floating-point comparison: each number within 1e-6, absolute or relative.
#include <cmath>
#include "judge.h"

int main(int argc, char **argv)
{
	if (argc < 4)
		FAIL("usage: floats <input> <output> <answer>");
	auto out = judge_tokens(judge_read(argv[2]));
	auto ans = judge_tokens(judge_read(argv[3]));
	if (out.size() != ans.size())
		WA("%zu numbers expected, found %zu", ans.size(), out.size());
	for (size_t i = 0; i < ans.size(); i++) {
		char *end;
		double x = std::strtod(out[i].c_str(), &end);
		if (*end || out[i].empty())
			PE("number %zu: \"%s\" is not a number", i + 1, out[i].c_str());
		double y = std::strtod(ans[i].c_str(), nullptr);
		double d = std::fabs(x - y);
		if (d > 1e-6 && d > 1e-6 * std::fabs(y))
			WA("number %zu: expected %.9g, found %.9g", i + 1, y, x);
	}
	OK("%zu numbers", ans.size());
}
