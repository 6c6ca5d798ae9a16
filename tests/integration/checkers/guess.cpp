// SPDX-License-Identifier: Apache-2.0
// An interactor: guess the number of the input (1..1000) in at most 20
// questions; it answers "higher", "lower" or "ok", and writes the number of
// questions to its output file for a checker.
#include <cstdio>
#include <iostream>
#include <string>
#include "judge.h"

int main(int argc, char **argv)
{
	if (argc < 3)
		FAIL("usage: guess <input> <output>");
	long n = std::atol(judge_read(argv[1]).c_str());
	FILE *tout = std::fopen(argv[2], "w");
	if (!tout)
		FAIL("cannot write %s", argv[2]);
	for (int q = 1;; q++) {
		std::string word;
		if (!(std::cin >> word))
			judge_quit(8, "unexpected eof", "after %d questions", q - 1);
		char *end;
		long g = std::strtol(word.c_str(), &end, 10);
		if (*end)
			PE("question %d: \"%.20s\" is not a number", q, word.c_str());
		if (q > 20)
			WA("more than 20 questions");
		if (g == n) {
			std::cout << "ok" << std::endl;
			std::fprintf(tout, "%d\n", q);
			std::fclose(tout);
			OK("%ld found in %d questions", n, q);
		}
		std::cout << (g < n ? "higher" : "lower") << std::endl;
	}
}
