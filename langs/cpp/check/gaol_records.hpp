// gaol_records.hpp: write a Codebattle C++ checker in a few lines.
//
// A checker for POST /run (lang_slug "cpp") is check/checker.cpp; it includes
// the solution and prints one Codebattle record per call, one JSON object per
// line, the way Codebattle's own generated checkers do:
//
//   {"type":"result","time":"0.0000012","value":3,"output":"adding 1 2\n"}
//   {"type":"error","time":"0.0000040","value":"division by zero","output":""}
//
// With this header a checker is:
//
//   #include "gaol_records.hpp"
//   #include "solution.cpp"
//
//   int main() {
//       gaol::Records records;                      // captures stdout from here
//       records.check([] { return solution(1, 2); });
//       records.check([] { return solution(10, 20); });
//       return records.finish();                    // 0
//   }
//
// check(f) calls f once and prints its record at once (so the records of the
// calls before a crash are not lost):
// - "result" with the returned value as JSON (numbers, bool, strings,
//   std::vector, std::map, std::pair, std::optional, nlohmann::json, anything
//   with a nlohmann to_json), or "error" with what() of the exception it threw
//   ("unknown exception" for something that is not a std::exception);
// - "time": the call's wall time in seconds, a string with 7 decimals;
// - "output": what the call wrote to stdout by any means (std::cout, printf,
//   puts, write(1, ...)) since the previous record: fd 1 points at a
//   temporary file while Records lives, and the records go to a private
//   duplicate of the real stdout.
// Strings that are not valid UTF-8 are written with U+FFFD in their place;
// everything else is escaped to plain ASCII.
// result(value) and error(message) print a record without calling anything.
#ifndef GAOL_RECORDS_HPP
#define GAOL_RECORDS_HPP

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <type_traits>
#include <utility>

#include <unistd.h>

#include <nlohmann/json.hpp>

namespace gaol {

class Records {
public:
	using json = nlohmann::ordered_json;

	Records()
	{
		std::cout.flush();
		std::fflush(stdout);
		out_ = ::dup(1);
		char path[] = "/tmp/gaol-out-XXXXXX";
		int fd = ::mkstemp(path);
		if (out_ < 0 || fd < 0) {
			std::perror("gaol_records: capture");
			std::exit(1);
		}
		::unlink(path);
		::dup2(fd, 1);
		::close(fd);
	}

	Records(const Records &) = delete;
	Records &operator=(const Records &) = delete;

	~Records() { finish(); }

	// Calls f(), prints a "result" or "error" record; returns true on result.
	template <class F>
	bool check(F &&f)
	{
		auto start = std::chrono::steady_clock::now();
		try {
			if constexpr (std::is_void_v<decltype(f())>) {
				f();
				emit("result", json(nullptr), start);
			} else {
				auto value = f();
				emit("result", json(value), start);
			}
			return true;
		} catch (const std::exception &e) {
			emit("error", json(std::string(e.what())), start);
		} catch (...) {
			emit("error", json("unknown exception"), start);
		}
		return false;
	}

	template <class T>
	void result(const T &value)
	{
		emit("result", json(value), std::chrono::steady_clock::now());
	}

	void error(const std::string &message)
	{
		emit("error", json(message), std::chrono::steady_clock::now());
	}

	// Puts stdout back; what was printed after the last record, and whatever
	// is printed afterwards, goes out as is (Codebattle ignores lines that
	// are not records).
	int finish()
	{
		if (out_ < 0)
			return 0;
		write_out(take());
		::dup2(out_, 1);
		::close(out_);
		out_ = -1;
		return 0;
	}

private:
	int out_ = -1;

	std::string take()
	{
		std::cout.flush();
		std::fflush(stdout);
		std::string text;
		off_t size = ::lseek(1, 0, SEEK_END);
		if (size > 0) {
			text.resize(static_cast<size_t>(size));
			ssize_t n = ::pread(1, &text[0], text.size(), 0);
			text.resize(n > 0 ? static_cast<size_t>(n) : 0);
		}
		if (::ftruncate(1, 0) != 0) { /* nothing to do about it */ }
		::lseek(1, 0, SEEK_SET);
		return text;
	}

	void emit(const char *type, json value, std::chrono::steady_clock::time_point start)
	{
		std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
		char time[32];
		std::snprintf(time, sizeof time, "%.7f", took.count());
		json rec;
		rec["type"] = type;
		rec["time"] = time;
		rec["value"] = std::move(value);
		rec["output"] = take();
		write_out(rec.dump(-1, ' ', true, json::error_handler_t::replace) + "\n");
	}

	void write_out(const std::string &text)
	{
		const char *p = text.data();
		size_t left = text.size();
		while (left > 0 && out_ >= 0) {
			ssize_t n = ::write(out_, p, left);
			if (n <= 0)
				break;
			p += n;
			left -= static_cast<size_t>(n);
		}
	}
};

} // namespace gaol

#endif
