// SPDX-License-Identifier: Apache-2.0
// gaol's own small helper for checkers in its tests: testlib's exit codes
// and first words, nothing of testlib's code.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

enum { J_OK = 0, J_WA = 1, J_PE = 2, J_FAIL = 3, J_POINTS = 7 };

[[noreturn]] inline void judge_quit(int code, const char *words, const char *fmt, ...)
{
	std::fprintf(stderr, "%s ", words);
	va_list ap;
	va_start(ap, fmt);
	std::vfprintf(stderr, fmt, ap);
	va_end(ap);
	std::fprintf(stderr, "\n");
	std::exit(code);
}

#define OK(...) judge_quit(J_OK, "ok", __VA_ARGS__)
#define WA(...) judge_quit(J_WA, "wrong answer", __VA_ARGS__)
#define PE(...) judge_quit(J_PE, "wrong output format", __VA_ARGS__)
#define FAIL(...) judge_quit(J_FAIL, "FAIL", __VA_ARGS__)

inline std::string judge_read(const char *path)
{
	std::ifstream f(path, std::ios::binary);
	if (!f)
		FAIL("cannot open %s", path);
	std::stringstream s;
	s << f.rdbuf();
	return s.str();
}

inline std::vector<std::string> judge_tokens(const std::string &text)
{
	std::istringstream in(text);
	std::vector<std::string> v;
	for (std::string t; in >> t;)
		v.push_back(t);
	return v;
}
