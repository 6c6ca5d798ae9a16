// SPDX-License-Identifier: Apache-2.0
// Line comparison: line i of the output equals line i of the answer, trailing
// blanks and a final newline aside.
#include "judge.h"

static std::vector<std::string> lines(const std::string &s)
{
	std::vector<std::string> v;
	std::istringstream in(s);
	for (std::string l; std::getline(in, l);) {
		while (!l.empty() && (l.back() == ' ' || l.back() == '\r'))
			l.pop_back();
		v.push_back(l);
	}
	while (!v.empty() && v.back().empty())
		v.pop_back();
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		FAIL("usage: lines <input> <output> <answer>");
	auto out = lines(judge_read(argv[2]));
	auto ans = lines(judge_read(argv[3]));
	for (size_t i = 0; i < ans.size() || i < out.size(); i++) {
		if (i >= out.size() || i >= ans.size() || out[i] != ans[i])
			WA("line %zu differs", i + 1);
	}
	OK("%zu lines", ans.size());
}
